// CUDA backend of four-phonon scattering: thread blocks per irreducible mode and class, each taking a chunk
// of the (q2, q3) pairs and running the CPU's selection and evaluation (kernels/four_phonon.hpp) on them,
// with a queue in shared memory between the two (below); block reductions form the chunk's sums and the host
// adds the chunks in order. Which thread evaluates a queued process varies from run to run, so the sums may
// differ in their last bits between runs (the parity test allows 1e-10). Nothing is
// stored per process, so the device holds only the mesh (frequencies, velocities, eigenvectors), the
// occupations and the force constants, whatever the number of processes. Modes go in launches of a few
// hundred blocks, so that progress can be reported.
#include <cub/block/block_reduce.cuh>

#include <algorithm>
#include <span>

#include "../../src/four_phonon_setup.hpp"
#include "quanta/core/buffer.hpp"
#include "quanta/core/cuda/check.cuh"
#include "quanta/core/progress.hpp"

namespace quanta::phonon::kernels {
namespace {

constexpr int kBlock = 128;

// Processes queued per round in shared memory (3 mode indices each; 36 KiB).
constexpr int kQueue = 3072;

// Block (mode, class, chunk): the chunk-th of `chunks` equal parts of the mode's (q2, q3) pairs; partial
// sums out[(m * 3 + class) * chunks + chunk], added up on the host in chunk order. In each round every thread
// tests the candidates of one pair (kernels::visit_pair4), counts the allowed processes and queues those that
// carry a rate; then all threads evaluate the queue together, one process each, so that the matrix elements
// run with full warps instead of the one or two lanes whose pair happened to hold a process. A process that
// finds the queue full is evaluated by its own thread at once.
__global__ void four_phonon_kernel(MeshView mesh, Fc4View f, FourRateInputs in, const int* __restrict__ irreducible,
                                   int m0, int chunks, FourSums* __restrict__ out) {
  using Reduce = cub::BlockReduce<double, kBlock>;
  __shared__ typename Reduce::TempStorage tmp;
  __shared__ int queue[kQueue][3];
  __shared__ int queued;
  const int chunk = static_cast<int>(blockIdx.x) % chunks, mc = static_cast<int>(blockIdx.x) / chunks;
  const int m = m0 + mc / 3, nb = mesh.nb;
  const FourClass c = static_cast<FourClass>(mc % 3);
  const int mode1 = irreducible[m / nb] * nb + m % nb;
  FourSums acc{};
  double rates[kMaxTemperatures4];
  if (scatters(mesh, mesh.omega[mode1])) {
    const long pairs = static_cast<long>(mesh.nptk) * mesh.nptk, per_chunk = (pairs + chunks - 1) / chunks;
    const long begin = chunk * per_chunk, end = min(pairs, begin + per_chunk);
    for (long base = begin; base < end; base += kBlock) {
      if (threadIdx.x == 0) queued = 0;
      __syncthreads();
      const long p = base + threadIdx.x;
      if (p < end)
        visit_pair4(mesh, mode1, static_cast<int>(p / mesh.nptk), static_cast<int>(p % mesh.nptk), c,
                    [&](int mode2, int mode3, int mode4, double delta, double sigma) {
                      if (!count_process4(mesh, in, mode2, mode3, mode4, delta, sigma, acc)) return;
                      const int slot = atomicAdd(&queued, 1);
                      if (slot < kQueue) {
                        queue[slot][0] = mode2;
                        queue[slot][1] = mode3;
                        queue[slot][2] = mode4;
                      } else {
                        rate_process4(mesh, f, in, mode1, mode2, mode3, mode4, c, acc, rates);
                      }
                    });
      __syncthreads();
      const int n = min(queued, kQueue);
      for (int i = threadIdx.x; i < n; i += kBlock)
        rate_process4(mesh, f, in, mode1, queue[i][0], queue[i][1], queue[i][2], c, acc, rates);
      __syncthreads();  // the queue is reused
    }
  }
  FourSums* o = out + (static_cast<long>(m) * 3 + static_cast<int>(c)) * chunks + chunk;
  const auto reduce = [&](double x, double* to) {
    const double s = Reduce(tmp).Sum(x);
    __syncthreads();  // the temporary storage is reused
    if (threadIdx.x == 0) *to = s;
  };
  reduce(acc.count, &o->count);
  reduce(acc.p4, &o->p4);
  for (int it = 0; it < in.nT; ++it) {
    reduce(acc.gamma[it], &o->gamma[it]);
    reduce(acc.wp4[it], &o->wp4[it]);
  }
}

// A device copy of a table (one element, unset, for an empty one: no force constants with onlyharmonic).
template <class T>
DeviceBuffer<T> up(const std::vector<T>& h, const char* what) {
  DeviceBuffer<T> d(std::max<std::size_t>(h.size(), 1), what);
  if (!h.empty()) d.upload(h);
  return d;
}

}  // namespace

std::vector<FourSums> four_phonon_sums_cuda(const MeshView& host_mesh, const Fc4Tables& t, const std::vector<int>& irreducible,
                                            const std::vector<double>& bose, const FourRateInputs& host_in, int nmodes,
                                            bool quiet) {
  const std::size_t nfull = static_cast<std::size_t>(host_mesh.nptk) * host_mesh.nb;
  const DeviceBuffer<double> omega(std::span<const double>(host_mesh.omega, nfull), "frequencies");
  const DeviceBuffer<double> velocity(std::span<const double>(host_mesh.velocity, 3 * nfull), "velocities");
  const DeviceBuffer<cplx> eigenvectors(std::span<const cplx>(host_mesh.eigenvectors, nfull * host_mesh.nb), "eigenvectors");
  const DeviceBuffer<double> d_bose = up(bose, "occupations");
  const DeviceBuffer<int> d_irr = up(irreducible, "irreducible q-points");
  const DeviceBuffer<int> offset = up(t.group_offset, "fourth-order groups"), atoms = up(t.group_atoms, "fourth-order atoms"),
                          cells = up(t.cells, "fourth-order cells");
  const DeviceBuffer<double> phi = up(t.phi, "fourth-order constants");
  const DeviceBuffer<cplx> roots = up(t.roots, "roots of unity");
  MeshView mesh = host_mesh;
  mesh.omega = omega.data();
  mesh.velocity = velocity.data();
  mesh.eigenvectors = eigenvectors.data();
  const Fc4View f = make_fc4_view(t, offset.data(), atoms.data(), phi.data(), cells.data(), roots.data());
  FourRateInputs in = host_in;
  in.bose = d_bose.data();
  // Enough blocks to fill the device (a few per SM slot), each a chunk of a mode's pairs of at least ~4096.
  int sms = 1;
  QUANTA_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const long pairs = static_cast<long>(host_mesh.nptk) * host_mesh.nptk;
  const int per_launch = std::max(1, std::min(nmodes, 64));
  const int chunks = static_cast<int>(std::max(1L, std::min(pairs / 4096, (64L * sms + 3 * per_launch - 1) / (3 * per_launch))));
  DeviceBuffer<FourSums> out(static_cast<std::size_t>(nmodes) * 3 * chunks, "four-phonon sums");
  out.zero();
  Progress progress("four-phonon scattering (GPU)", static_cast<std::size_t>(nmodes), quiet);
  for (int m0 = 0; m0 < nmodes; m0 += per_launch) {
    const int n = std::min(per_launch, nmodes - m0);
    four_phonon_kernel<<<3 * n * chunks, kBlock>>>(mesh, f, in, d_irr.data(), m0, chunks, out.data());
    QUANTA_CUDA_CHECK(cudaGetLastError());
    QUANTA_CUDA_CHECK(cudaDeviceSynchronize());
    progress.advance(static_cast<std::size_t>(n));
  }
  progress.finish();
  const std::vector<FourSums> parts = out.to_host();
  std::vector<FourSums> sums(static_cast<std::size_t>(nmodes) * 3);
  for (std::size_t mc = 0; mc < sums.size(); ++mc)
    for (int k = 0; k < chunks; ++k) {
      const FourSums& p = parts[mc * chunks + k];
      FourSums& s = sums[mc];
      s.count += p.count;
      s.p4 += p.p4;
      for (int it = 0; it < kMaxTemperatures4; ++it) {
        s.gamma[it] += p.gamma[it];
        s.wp4[it] += p.wp4[it];
      }
    }
  return sums;
}

}  // namespace quanta::phonon::kernels
