#pragma once
// What a kbe run writes: quanta-kbe.h5 (results), quanta-kbe.txt (summary), and the checkpoint.
#include <cstdint>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "quanta/kbe/propagator.hpp"

namespace quanta::kbe {

// One series of History with its dataset name in quanta-kbe.h5; `per_step` values per time (1, or nk).
struct HistorySeries {
  const char* name;
  std::vector<double>* values;
  std::size_t per_step;
};

// Time series of the observables, one entry per completed time t_0..t_step.
struct History {
  int nk = 0;
  std::vector<double> time, field, u, particles, polarization, energy_kinetic, energy_interaction, energy_correlation, energy_total,
      energy_field;
  std::vector<double> n_valence, n_conduction;  // [ntimes][nk]
  std::vector<std::int64_t> corrector_passes;
  std::vector<double> corrector_change;         // max |G_new - G_old| of the step's last corrector pass
  std::vector<double> step_error;               // adaptive steps: the step's error estimate (0 on a fixed grid)
  std::vector<double> rejected_steps;           // adaptive steps: tries of the step rejected before it
  void append(const Observables& o, const StepStats& st);
  std::size_t size() const { return time.size(); }
  std::vector<HistorySeries> series();          // every series of doubles
};

struct RunMetadata {
  std::string backend, device, config_file;
  std::uint64_t digest = 0;
  int processes = 1;  // MPI ranks the k-points were split over
  std::string transpose = "none";  // how the self-energy rows travel between them
  HistoryFigures history;          // what the finished history held at the end (this process's k-points)
  std::vector<std::pair<std::string, double>> timings;
};

// green_less/greater: the whole half-plane [tri_count(steps+1)][4][nk] when it is to be written, else null.
void write_results(const std::filesystem::path& file, const Config& config, const History& h, const std::vector<cplx>* green_less,
                   const std::vector<cplx>* green_greater, const RunMetadata& meta);
void write_summary(const std::filesystem::path& file, const Config& config, const History& h, const RunMetadata& meta);

std::string hex_digest(std::uint64_t d);

}  // namespace quanta::kbe
