#pragma once
// What a kbe run writes: quanta-kbe.h5 (results), quanta-kbe.txt (summary), and the checkpoint.
#include <cstdint>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "quanta/kbe/propagator.hpp"

namespace quanta::kbe {

// Time series of the observables, one entry per completed time t_0..t_step.
struct History {
  int nk = 0;
  std::vector<double> time, field, u, particles, polarization, energy_kinetic, energy_interaction, energy_correlation, energy_total,
      energy_field;
  std::vector<double> n_valence, n_conduction;  // [ntimes][nk]
  std::vector<std::int64_t> corrector_passes;
  void append(const Observables& o, int passes);
  std::size_t size() const { return time.size(); }
};

struct RunMetadata {
  std::string backend, device, config_file;
  std::uint64_t digest = 0;
  int processes = 1;  // MPI ranks the k-points were split over
  std::string transpose = "none";  // how the self-energy rows travel between them
  std::vector<std::pair<std::string, double>> timings;
};

// green_less/greater: the whole half-plane [tri_count(steps+1)][4][nk] when it is to be written, else null.
void write_results(const std::filesystem::path& file, const Config& config, const History& h, const std::vector<cplx>* green_less,
                   const std::vector<cplx>* green_greater, const RunMetadata& meta);
void write_summary(const std::filesystem::path& file, const Config& config, const History& h, const RunMetadata& meta);

// Checkpoint: propagator state + history + the config digest, written to a temporary name and renamed.
void write_checkpoint(const std::filesystem::path& file, const PropagatorState& s, const History& h, std::uint64_t digest);
// Throws InputError when the file is unreadable or belongs to another config.
void read_checkpoint(const std::filesystem::path& file, std::uint64_t digest, PropagatorState& s, History& h);

std::string hex_digest(std::uint64_t d);

}  // namespace quanta::kbe
