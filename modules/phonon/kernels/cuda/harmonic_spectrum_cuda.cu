#include <algorithm>
#include <cstdio>
#include <vector>

#include "../harmonic_spectrum.hpp"
#include "../hermitian_eigensolver.hpp"
#include "quanta/core/buffer.hpp"
#include "quanta/core/cuda/check.cuh"

namespace quanta::phonon::kernels {
namespace {

// One thread per (q, a1, a2): the 3x3 block of D(q) and its three gradient blocks.
__global__ void build_dynamical_matrices(ModelView m, int nq, const double* __restrict__ q,  // [nq][3]
                                         cplx* __restrict__ d,                               // [nq][nb][nb]
                                         cplx* __restrict__ dd) {                            // [nq][3][nb][nb]
  const long tid = blockIdx.x * static_cast<long>(blockDim.x) + threadIdx.x;
  const int npair = m.natoms * m.natoms;
  if (tid >= static_cast<long>(nq) * npair) return;
  const int iq = static_cast<int>(tid / npair), pair = static_cast<int>(tid % npair);
  const int a1 = pair / m.natoms, a2 = pair % m.natoms;
  const int nb = 3 * m.natoms;
  const long nb2 = static_cast<long>(nb) * nb;
  cplx blk[3][3], dblk[3][3][3];
  dynamical_matrix_block(m, q + 3 * iq, a1, a2, blk, dblk);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      const long at = (3 * a1 + i) + static_cast<long>(3 * a2 + j) * nb;
      d[iq * nb2 + at] = blk[i][j];
      for (int c = 0; c < 3; ++c) dd[(iq * 3L + c) * nb2 + at] = dblk[c][i][j];
    }
}

// One thread per (q, mode): frequency and group velocity from the eigenpair.
__global__ void frequencies_and_velocities(int nq, int nb, const double* __restrict__ w,  // [nq][nb]
                                           const cplx* __restrict__ e,                   // [nq][nb][nb] (columns)
                                           const cplx* __restrict__ dd,                  // [nq][3][nb][nb]
                                           double* __restrict__ omega,                   // [nq][nb]
                                           double* __restrict__ velocity) {              // [nq][nb][3]
  const long tid = blockIdx.x * static_cast<long>(blockDim.x) + threadIdx.x;
  if (tid >= static_cast<long>(nq) * nb) return;
  const long iq = tid / nb, n = tid % nb;
  const long nb2 = static_cast<long>(nb) * nb;
  const double om = signed_frequency(w[tid]);
  omega[tid] = om;
  group_velocity(nb, e + iq * nb2 + n * nb, dd + iq * 3 * nb2, om, velocity + 3 * tid);
}

}  // namespace

std::size_t harmonic_spectrum_cuda(const HarmonicModel& h, const SpectrumBatch& b, std::size_t budget_bytes, std::size_t max_batch) {
  const int nb = 3 * h.natoms;
  const std::size_t nb2 = static_cast<std::size_t>(nb) * nb;
  const DeviceBuffer<FcTerm> terms(std::span<const FcTerm>(h.terms), "force-constant terms");
  const DeviceBuffer<int> offsets(std::span<const int>(h.pair_offset), "pair offsets");
  const DeviceBuffer<double> zeff(std::span<const double>(h.zeff), "Born charges");
  const DeviceBuffer<double> ism(std::span<const double>(h.inv_sqrt_mass), "masses");
  const DeviceBuffer<double> tau(std::span<const double>(h.tau), "positions");
  const DeviceBuffer<double> g(std::span<const double>(h.gvectors), "G vectors");
  const ModelView view = make_view(h, terms.data(), offsets.data(), zeff.data(), ism.data(), tau.data(), g.data());

  // Device bytes per q-point: D and eigenvectors (in place), dD/dq, eigenvalues, omega, velocities, q;
  // cuSOLVER's workspace is of the order of D again.
  const std::size_t per_q = (5 * nb2) * sizeof(cplx) + (2 * nb + 3 * nb + 3) * sizeof(double);
  std::size_t batch = std::max<std::size_t>(1, budget_bytes / per_q);
  batch = std::min<std::size_t>(batch, b.nq);
  if (max_batch) batch = std::min(batch, max_batch);

  for (int start = 0; start < b.nq;) {
    const int n = static_cast<int>(std::min<std::size_t>(batch, b.nq - start));
    try {
      DeviceBuffer<double> q(std::span<const double>(b.q + 3L * start, 3L * n), "q-points");
      DeviceBuffer<cplx> d(n * nb2, "dynamical matrices");
      DeviceBuffer<cplx> dd(3 * n * nb2, "dynamical-matrix gradients");
      DeviceBuffer<double> w(static_cast<std::size_t>(n) * nb, "eigenvalues");
      DeviceBuffer<double> om(static_cast<std::size_t>(n) * nb, "frequencies");
      DeviceBuffer<double> v(static_cast<std::size_t>(n) * nb * 3, "velocities");
      const long pairs = static_cast<long>(n) * h.natoms * h.natoms;
      build_dynamical_matrices<<<static_cast<unsigned>((pairs + 127) / 128), 128>>>(view, n, q.data(), d.data(), dd.data());
      QUANTA_CUDA_LAUNCH_CHECK("build_dynamical_matrices");
      hermitian_eigensolver_cuda(nb, n, d.data(), w.data());
      const long modes = static_cast<long>(n) * nb;
      frequencies_and_velocities<<<static_cast<unsigned>((modes + 127) / 128), 128>>>(n, nb, w.data(), d.data(), dd.data(), om.data(), v.data());
      QUANTA_CUDA_LAUNCH_CHECK("frequencies_and_velocities");
      om.download(std::span<double>(b.omega + static_cast<std::size_t>(start) * nb, modes));
      v.download(std::span<double>(b.velocity + static_cast<std::size_t>(start) * nb * 3, modes * 3));
      d.download(std::span<cplx>(b.eigenvectors + static_cast<std::size_t>(start) * nb2, n * nb2));
      start += n;
    } catch (const OutOfDeviceMemory&) {
      if (batch == 1) throw;
      batch = std::max<std::size_t>(1, batch / 2);  // fall back to smaller batches
    }
  }
  return batch;
}

}  // namespace quanta::phonon::kernels
