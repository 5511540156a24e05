#pragma once
#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

#include "quanta/core/backend.hpp"
#include "quanta/phonon/scattering.hpp"
#include "quanta/phonon/spectrum.hpp"

namespace quanta::phonon {

struct RunOptions {
  std::filesystem::path input_dir;   // holds CONTROL and the force constants, as for ShengBTE
  std::filesystem::path output_dir;  // where BTE.* and quanta-phonon.h5 go; default: input_dir
  Backend backend = Backend::Auto;
  std::size_t gpu_mem_limit = 0;     // bytes; 0: no limit beyond the free memory
  int threads = 0;                   // OpenMP threads for CPU stages; 0: default
  bool quiet = false;
  ScatteringStrategy strategy = ScatteringStrategy::Auto;  // CUDA: all modes at once or batches
  Enumeration enumeration = Enumeration::Auto;            // CUDA: processes listed on the GPU or the CPU
  std::size_t batch_modes = 0;                             // modes per batch (batched), 0: from memory
  unsigned long long sample_seed = 0;                      // seed of the sampling estimator (3ph and 4ph)
  bool resume = false;                                     // continue the four-phonon stage from its checkpoints
  DegenerateBasis degenerate_basis = DegenerateBasis::Solver;  // modes inside degenerate sets (spectrum.hpp)
};

struct RunSummary {
  int nptk = 0, nlist = 0, nbands = 0;
  std::string backend;               // backend the heavy stages ran on
  double seconds_total = 0, seconds_spectrum = 0, seconds_scattering = 0, seconds_bte = 0;
  ScatteringStats scattering;
  std::int64_t nplus = 0, nminus = 0;
  std::vector<double> kappa_rta, kappa_converged;   // per temperature, trace / 3, W/mK
};

// quanta phonon: the stages of a ShengBTE/FourPhonon run, in order (see src/run.cpp).
RunSummary run(const RunOptions& options);

}  // namespace quanta::phonon
