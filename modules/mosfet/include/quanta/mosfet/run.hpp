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
};

// quanta mosfet: the equilibrium solution of the device (see src/run.cpp for the stages).
RunSummary run(const RunOptions& options);

}  // namespace quanta::mosfet
