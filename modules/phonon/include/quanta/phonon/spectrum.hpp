#pragma once
#include <cstddef>
#include <vector>

#include "quanta/core/backend.hpp"
#include "quanta/core/complex.hpp"
#include "quanta/phonon/crystal.hpp"
#include "quanta/phonon/force_constants.hpp"

namespace quanta::phonon {

// Harmonic phonons at a list of q-points.
struct Spectrum {
  int nq = 0, nb = 0;
  std::vector<double> omega;         // [nq][nb] rad/ps, ascending; unstable modes negative
  std::vector<double> velocity;      // [nq][nb][3] group velocities, km/s (= nm/ps)
  std::vector<cplx> eigenvectors;    // [nq][nb (mode)][nb (component 3*atom + cartesian)]
};

struct SpectrumOptions {
  Backend backend = Backend::Cpu;     // resolved: Cpu or Cuda
  std::size_t gpu_mem_limit = 0;      // bytes, 0: free memory only
  std::size_t max_batch = 0;          // q-points per device batch, 0: as many as memory allows
  bool quiet = true;
};

// Diagonalizes D(q) at every q (Cartesian, nm^-1) and computes group velocities (Hellmann-Feynman).
Spectrum compute_spectrum(const HarmonicModel& model, const std::vector<Vec3>& q_cartesian, const SpectrumOptions& options);

}  // namespace quanta::phonon
