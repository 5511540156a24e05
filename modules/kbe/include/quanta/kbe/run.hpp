#pragma once
#include <cstddef>
#include <filesystem>
#include <string>

#include "quanta/core/backend.hpp"

namespace quanta::kbe {

struct RunOptions {
  std::filesystem::path config;      // the TOML config
  std::filesystem::path output_dir;  // where quanta-kbe.h5, quanta-kbe.txt and the checkpoint go
  Backend backend = Backend::Auto;
  int threads = 0;                   // OpenMP threads; 0: default
  std::size_t gpu_mem_limit = 0;     // device memory the run may plan to use (bytes; 0: the free memory)
  bool quiet = false;
  bool resume = false;               // continue from the checkpoint in output_dir
  bool write_green = false;          // also write the full G<> (as output.write_green = true)
  int stop_after = -1;               // >= 0: stop after this step without final outputs, as a killed run would
};

struct RunSummary {
  int nk = 0, steps = 0;             // steps: those taken (with adaptive steps, up to time.steps)
  int rejected_steps = 0;            // adaptive steps: tries rejected by the error estimate, over the run
  double max_step_error = 0;         // adaptive steps: the largest error estimate of an accepted step
  double end_time = 0;               // t of the last step
  int ranks = 1;                     // processes the k-points were split over
  std::string backend, self_energy;
  int resumed_from = -1;             // step the run continued from; -1: started at t = 0
  bool stopped = false;              // stop_after reached: no final outputs written
  double particles_drift = 0;        // max_n |N(t_n) - N(0)|
  double seconds_total = 0, seconds_propagation = 0;
  int max_corrector_passes = 0;
  int corrector_limit_steps = 0;     // steps whose corrector stopped at corrector_iterations, still changing
  double max_corrector_change = 0;   // the largest remaining change of those steps
  std::filesystem::path results, summary, checkpoint;  // checkpoint: this rank's
};

// quanta kbe: the stages of a run, in order (see src/run.cpp).
RunSummary run(const RunOptions& options);

}  // namespace quanta::kbe
