#pragma once
// CUDA backend of the Jacobi step of the linearized BTE (kernels/cuda/bte_cuda.cu): the process lists,
// their rates, the four-phonon collision rows (four_phonon_iteration) and the per-mode tables stay on the
// device between steps; F goes up and down once per step.
#ifdef QUANTA_HAVE_CUDA
#include <memory>
#include <vector>

#include "quanta/phonon/scattering.hpp"

namespace quanta::phonon::kernels {

class BteIterationCuda {
 public:
  // Throws OutOfDeviceMemory when the lists do not fit (the caller then iterates on the CPU).
  BteIterationCuda(const ThreePhononProcesses& p, const ThreePhononRates& r, const std::vector<double>& vw,
                   const std::vector<double>& tau, const std::vector<double>& symmetrizer,
                   const std::vector<int>& irreducible_mode, const std::vector<int>& image,
                   const std::vector<int>& op_of_point, int nb, const double* rows4 = nullptr, std::size_t nmodes = 0);
  ~BteIterationCuda();
  void step(std::vector<double>& F);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace quanta::phonon::kernels
#endif
