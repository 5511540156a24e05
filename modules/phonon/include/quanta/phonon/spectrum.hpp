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

// The modes inside a set of degenerate modes.
enum class DegenerateBasis {
  // As the eigensolver returns them, as ShengBTE and FourPhonon take them: velocities (of X's pairs in
  // silicon), adaptive widths, per-mode rates and kappa then depend on the LAPACK or cuSOLVER build. Kept as
  // the default for now: quanta's comparisons with FourPhonon's reference runs rely on it.
  Solver,
  // canonicalize_degenerate_modes: results independent of the eigensolver's choice.
  Canonical,
};

struct SpectrumOptions {
  Backend backend = Backend::Cpu;     // resolved: Cpu or Cuda
  DegenerateBasis degenerate_basis = DegenerateBasis::Solver;  // the modes inside degenerate sets
  std::size_t gpu_mem_limit = 0;      // bytes, 0: free memory only
  std::size_t max_batch = 0;          // q-points per device batch, 0: as many as memory allows
  bool quiet = true;
};

// Diagonalizes D(q) at every q (Cartesian, nm^-1) and computes group velocities (Hellmann-Feynman); with
// DegenerateBasis::Canonical, then canonicalize_degenerate_modes.
Spectrum compute_spectrum(const HarmonicModel& model, const std::vector<Vec3>& q_cartesian, const SpectrumOptions& options);

// Inside every set of degenerate modes (frequencies equal to 1e-9 of the largest at that q), rotates the
// eigenvectors to the modes that continue the bands from q along a fixed generic direction (degenerate
// perturbation theory: the velocity operator projected onto the set, then the curvature where the
// velocities are equal; kernels/cpu/degenerate_modes_cpu.cpp) and recomputes their velocities. Each mode is
// then fixed up to a phase, and velocities, |V|^2, widths, rates and conductivities no longer depend on the
// basis the eigensolver returned inside the set.
void canonicalize_degenerate_modes(const HarmonicModel& model, const std::vector<Vec3>& q_cartesian, Spectrum& s);

}  // namespace quanta::phonon
