#pragma once
// The checkpoint of a kbe run (one file per process): rows of the half-plane never change once computed,
// so each checkpoint appends only the rows computed since the last one, written by a thread of its own
// while the propagation goes on.
//
// File: attributes `format`, `digest` (the config's trajectory digest), `nk` (this process's k-points),
// `history_nk` and `position` (the last complete step and the slot holding its collision row, one attribute);
// 1-D datasets `g_less`, `g_greater` (the half-plane rows 0..last step as [re, im] doubles, layout of
// kernels/layout.hpp), `history/*` (one entry per step), and the collision row I<>(t_step, .) in two slots,
// `slot0/*` and `slot1/*` (with the adaptive steps' next step `next_dt` and `before`, the values at the step before
// that their error estimate extrapolates from), written alternately. Every dataset is allocated at its final size when the file
// is made (contiguous, never filled: a sparse file), so a later checkpoint changes raw data and one attribute,
// never the file's structure: it writes the new rows, the history and the other slot, flushes, then rewrites
// `position` and flushes again. A run killed at any moment leaves a file whose `position` describes a
// complete state (data written past it is ignored and overwritten on resume). The first checkpoint is
// written under a temporary name and renamed, so the file appears complete.
//
// A compressed history (solver.history = "compressed") has no rows to append: its store changes as blocks are
// recompressed. Its file holds no g_less, g_greater; each checkpoint writes the whole store (Propagator::
// compressed_history_state) to the side file of its slot, `<file>.history0` or `.history1` (checkpoint_history_path),
// under a temporary name renamed when complete, before `position` names that slot.
#include <atomic>
#include <cstdint>
#include <exception>
#include <filesystem>
#include <memory>
#include <thread>
#include <vector>

#include "outputs.hpp"

namespace quanta::kbe {

struct CheckpointPosition {
  int step = -1;  // the last complete step
  int slot = 0;   // which slot holds I<>(t_step, .)
  std::uint64_t digest = 0;  // the config digest the file was checked against
};

class CheckpointWriter {
 public:
  // last_step: the run's last step (the datasets' sizes); resumed: where the existing file stands (continue
  // writing into it); null: start a new file at the first checkpoint. reader: the dense half-plane's rows; null for
  // a compressed history (begin() then takes its store).
  CheckpointWriter(std::filesystem::path file, std::uint64_t digest, int nk, int last_step, std::unique_ptr<HalfPlaneReader> reader,
                   const CheckpointPosition* resumed);
  ~CheckpointWriter();  // waits for the writing in progress
  CheckpointWriter(const CheckpointWriter&) = delete;
  CheckpointWriter& operator=(const CheckpointWriter&) = delete;

  // Starts the checkpoint at `step` (rows up to `step` complete, the history has step + 1 entries, i_less
  // and i_greater are I<>(t_step, .), history_state the compressed store at `step`, empty for a dense history,
  // next_dt and before the adaptive steps' state, Propagator::next_dt and adaptive_state_before) and returns; waits
  // for the previous one first.
  void begin(int step, std::vector<cplx> i_less, std::vector<cplx> i_greater, const History& h, std::vector<double> history_state = {},
             double next_dt = 0, std::vector<cplx> before = {});
  // Whether a checkpoint is still being written.
  bool busy() const { return running_; }
  // Waits for the checkpoint in progress; rethrows its error. Nothing else may use HDF5 while one runs.
  void wait();
  // For a run whose propagation is complete (its checkpoint is removed once the outputs are written):
  // stops the checkpoint in progress at its next piece and waits for that. The file stays at the last
  // complete checkpoint, as after a kill, and a first checkpoint never completed leaves no file.
  void abandon();
  double seconds_waited() const { return seconds_waited_; }   // the propagation's time spent in wait()
  double seconds_writing() const { return seconds_writing_; }  // the writer thread's time

 private:
  struct Job;
  void write(const Job& job);
  std::filesystem::path file_;
  std::uint64_t digest_;
  int nk_;
  int last_step_;
  std::unique_ptr<HalfPlaneReader> reader_;
  CheckpointPosition done_;
  std::int64_t file_id_ = -1;  // hid_t, open between checkpoints once the file exists
  std::thread thread_;
  std::exception_ptr error_;
  std::atomic<bool> abandoned_{false};
  std::atomic<bool> running_{false};
  double seconds_waited_ = 0, seconds_writing_ = 0;
};

// The bytes of a checkpoint file of a run to `last_step` (its datasets; the file is allocated whole when the
// first checkpoint is written): nk this process's k-points, history_nk all of the run's. compressed_state_values:
// for a compressed history, the values of its planned store (both side files counted instead of the rows).
std::uintmax_t checkpoint_bytes(int nk, int last_step, int history_nk, std::uintmax_t compressed_state_values = 0);

// The side file of a compressed history's checkpoint slot; remove_checkpoint removes the file and both side files.
std::filesystem::path checkpoint_history_path(const std::filesystem::path& file, int slot);
void remove_checkpoint(const std::filesystem::path& file);

// Where a checkpoint stands; throws InputError when it is missing, of another format or of another config.
CheckpointPosition read_checkpoint_position(const std::filesystem::path& file, std::uint64_t digest);
// Restores the propagator (half-plane rows, collision row, step) and the history from it.
void restore_checkpoint(const std::filesystem::path& file, const CheckpointPosition& at, Propagator& prop, History& h);

}  // namespace quanta::kbe
