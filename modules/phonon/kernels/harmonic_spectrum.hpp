#pragma once
// Harmonic spectrum of a batch of q-points: D(q) and dD/dq from the force-constant terms
// (dynamical_matrix.hpp), eigenpairs of D(q) (hermitian_eigensolver.hpp), omega = sign sqrt|lambda| and
// v = Re(e^+ dD/dq e) / (2 omega).
#include <cstddef>

#include "dynamical_matrix.hpp"

namespace quanta::phonon::kernels {

struct SpectrumBatch {
  int nq = 0;
  const double* q = nullptr;    // [nq][3] nm^-1
  double* omega = nullptr;      // [nq][nb]
  double* velocity = nullptr;   // [nq][nb][3]
  cplx* eigenvectors = nullptr; // [nq][nb][nb]: eigenvector of mode n is eigenvectors[q][n][:]
};

void harmonic_spectrum_cpu(const ModelView& model, const SpectrumBatch& batch);

// Inside every set of degenerate modes, rotates the eigenvectors to the modes that continue the bands along a
// fixed direction (degenerate_modes_cpu.cpp states the direction, the steps and the tolerances) and
// recomputes the set's velocities, so that nothing depends on the basis the eigensolver returned. On the
// host for both backends, after the eigensolver: only q-points with degenerate modes do any work.
void canonical_degenerate_modes_cpu(const ModelView& model, const SpectrumBatch& batch);

#ifdef QUANTA_HAVE_CUDA
// Host arrays in and out; device memory for as many q-points at a time as `budget_bytes` allows (halved
// and retried when an allocation fails). Returns the batch size used.
std::size_t harmonic_spectrum_cuda(const HarmonicModel& model, const SpectrumBatch& batch, std::size_t budget_bytes,
                                   std::size_t max_batch);
#endif

}  // namespace quanta::phonon::kernels
