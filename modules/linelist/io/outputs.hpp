#pragma once
// What a line-list run writes: ExoMol .states/.trans in TROVE's columns, GAIN's text table (seed
// Table 3) on request, and quanta-linelist.h5 with everything and the run's metadata.
#include <filesystem>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "quanta/core/comm.hpp"
#include "quanta/linelist/input.hpp"
#include "quanta/linelist/levels.hpp"
#include "quanta/linelist/linelist.hpp"

namespace quanta::linelist {

struct RunMetadata {
  std::string input_file, checkpoint_dir, backend, device, engine;
  int processes = 1;                                    // MPI processes that computed the line list
  std::vector<std::pair<std::string, double>> timings;  // stage, seconds
};

// ID, E - ZPE, g_tot, J, Gamma, vibrational quanta, vibrational symmetries, K, tau, rotational symmetry,
// largest coefficient, ::, level, normal-mode quanta, vibrational index (TROVE's .states layout). With `decay` (the sum
// of A of each level's lines, 1/s, by level index): ExoMol's lifetime column after J, 1 / decay in s ("%12.4E"), "Inf"
// for a level without lines down.
void write_exomol_states(const std::filesystem::path& path, const Levels& levels, const IntensityInput& input,
                         const std::vector<double>* decay = nullptr);
// Whether a line goes into the .trans: A above TROVE's small, epsilon(1.0) of its double kind (2.2e-16 1/s), as TROVE's
// ExoMol writer (dipole.f90) keeps it; fainter ones stay in quanta-linelist.h5 and the GAIN table.
bool in_trans_file(const Transition& t);
// decay[t.upper] += A of each line the .trans holds.
void add_decay_rates(const std::vector<Transition>& transitions, std::vector<double>& decay);
// upper ID, lower ID, A (1/s), wavenumber (cm^-1).
void write_exomol_trans(const std::filesystem::path& path, const Levels& levels, const LineList& list);

// ExoMol's .pf: T and Q(T) (g_ns (2J+1) exp(-c2 (E - ZPE) / T) over the levels read) for T = 1, 2, ..., tmax K.
void write_exomol_pf(const std::filesystem::path& path, const Levels& levels, const IntensityInput& input, int tmax);

// ExoMol's .def file (Tennyson et al., J. Mol. Spectrosc. 327, 73 (2016), the definition file's fields in its order,
// each "value  # description"): the isotopologue from TROVE's ZMAT (mass numbers rounded from the masses; formula and
// slug in the ZMAT's order of first appearance), the group and its irreps with their GNS, the states and the .states
// columns as quanta writes them (quantum labels with their printf formats), the transitions and files, and ExoMol's
// default broadening (0.07 cm^-1, 0.5). Not in TROVE's input and written as such: the InChI key ("unknown").
struct DefInfo {
  std::string dataset;            // the line list's name
  long long transitions = 0;      // in the .trans file(s)
  int trans_files = 1, xsec_files = 0;
  double max_wavenumber = 0;      // of the transitions written
  double max_temperature = 0;     // K
  double complete_energy = 0;     // the highest lower-state energy with every transition (cm^-1)
  bool lifetimes = false;         // the .states has the lifetime column
};
void write_exomol_def(const std::filesystem::path& path, const Levels& levels, const IntensityInput& input, const DefInfo& info);

// The .trans of a large list as ExoMol distributes one: sorted by wavenumber and split into files of `width` cm^-1,
// <stem>__<lo>-<hi>.trans (lo, hi zero-padded to 5 digits; a line at nu is in [lo, hi)), written in bounded memory. Each
// process's transitions go to binary spill files of their ranges as they are computed (24 bytes each, in the output
// folder, which every process must see); finish(), collective, has the first process sort one range at a time in
// memory, every process's part of it (by wavenumber, then upper and lower ID), and write its text file with the
// .trans columns, to a temporary name renamed when complete. Spill files are removed once read, or with the writer.
class SplitTransWriter {
 public:
  // bzip2: each range file written as bzip2 streams (<stem>__<lo>-<hi>.trans.bz2; one stream per thread's block of
  // lines, which bzip2 and Python's bz2 read as one file).
  SplitTransWriter(std::filesystem::path dir, std::string stem, int width, const Levels& levels, const Comm& comm, bool bzip2 = false);
  static void require_bzip2();  // throws Error naming --bzip2 when this build has no bzip2 library
  ~SplitTransWriter();
  SplitTransWriter(const SplitTransWriter&) = delete;
  SplitTransWriter& operator=(const SplitTransWriter&) = delete;
  void add(const std::vector<Transition>& transitions);
  std::vector<std::filesystem::path> finish();  // collective; the files written, in wavenumber order (on the first process)
  std::size_t lines() const { return lines_; }  // this process's until finish(), every process's after
  double max_wavenumber() const { return max_nu_; }
  std::size_t largest_range_bytes() const;        // the memory finish() needs for the largest range
  // Where the time went (seconds): add()'s (spilling the lines as they come); finish()'s reading the spill files back,
  // sorting, formatting the lines (the threads), writing them (a thread of its own, overlapping the others), and the
  // main thread's waits for that thread.
  struct Times {
    double spill = 0, read = 0, sort = 0, format = 0, write = 0, wait = 0;
  };
  const Times& times() const { return times_; }

 private:
  struct Range;
  std::filesystem::path spill_path(std::size_t range, int rank) const;
  std::filesystem::path dir_;
  std::string stem_;
  int width_;
  bool bzip2_;
  const Levels& levels_;
  const Comm& comm_;
  std::vector<std::unique_ptr<Range>> ranges_;  // by floor(nu / width)
  std::size_t lines_ = 0;
  double max_nu_ = 0;
  Times times_;
};
// nu, upper (level, J, Gamma) <- lower (level, J, Gamma), A, I, S.
void write_gain_table(const std::filesystem::path& path, const Levels& levels, const LineList& list);
void write_results(const std::filesystem::path& path, const Levels& levels, const IntensityInput& input, const LineList& list,
                   const RunMetadata& meta);

}  // namespace quanta::linelist
