#pragma once
#include <cstddef>
#include <filesystem>
#include <string>

#include "quanta/core/backend.hpp"

namespace quanta::mosfet {

struct RunOptions {
  std::filesystem::path config;      // the TOML config
  std::filesystem::path output_dir;  // where quanta-mosfet.h5 and quanta-mosfet.txt go
  Backend backend = Backend::Auto;
  int threads = 0;                   // OpenMP threads; 0: default
  bool quiet = false;
  bool resume = false;               // transport runs: continue from the output folder's checkpoint
  bool sweep = false;                // quanta mosfet sweep: the bias points of the config's [sweep] table
};

struct RunSummary {
  int nx = 0, nz = 0;
  std::string backend, linear_solver;
  bool converged = false;
  int newton_iterations = 0;
  double final_change = 0;           // |V^{k+1} - V^k|_inf of the last iteration, V
  double source_potential = 0;       // V_s, V
  double seconds_total = 0, seconds_block = 0;
  std::filesystem::path results, summary;
  // Transport runs ([transport] in the config):
  bool transport = false;
  long steps = 0;
  double time = 0;                   // s, reached
  double drain_current = 0;          // A/m at the end
  double current_spread = 0;
  bool steady = false;               // stopped by steady_tolerance
  double seconds_per_step = 0, seconds_transport = 0;
  int sweep_points = 0, sweep_steady = 0;
  std::filesystem::path scalars, checkpoint;
};

// quanta mosfet: the equilibrium solution of the device, or with a [transport] table the Boltzmann-Schroedinger-
// Poisson simulation in time (see src/run.cpp for the stages).
RunSummary run(const RunOptions& options);

}  // namespace quanta::mosfet
