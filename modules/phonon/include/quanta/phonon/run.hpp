#pragma once
#include <cstddef>
#include <filesystem>
#include <string>

#include "quanta/core/backend.hpp"

namespace quanta::phonon {

struct RunOptions {
  std::filesystem::path input_dir;   // holds CONTROL and the force constants, as for ShengBTE
  std::filesystem::path output_dir;  // where BTE.* and quanta-phonon.h5 go; default: input_dir
  Backend backend = Backend::Auto;
  std::size_t gpu_mem_limit = 0;     // bytes; 0: no limit beyond the free memory
  int threads = 0;                   // OpenMP threads for CPU stages; 0: default
  bool quiet = false;
};

struct RunSummary {
  int nptk = 0, nlist = 0, nbands = 0;
  std::string backend;               // backend the heavy stages ran on
  double seconds_total = 0, seconds_spectrum = 0;
};

// quanta phonon: the stages of a ShengBTE/FourPhonon run, in order (see src/run.cpp).
RunSummary run(const RunOptions& options);

}  // namespace quanta::phonon
