// CUDA backend of four-phonon scattering: thread blocks per irreducible mode and class, each taking a share of
// the mode's second phonons (q2, j). For each, the block forms stage 1 of the matrix element (W, in shared
// memory) together, then tests the candidates (q3, k, l) one q3 per thread and queues the allowed processes
// in shared memory; all threads then evaluate the queue from W, one process each, so that the matrix elements
// run with full warps (kernels/four_phonon.hpp has both stages and the selection, shared with the CPU). Block
// reductions form each share's sums and the host adds the shares in order. Which thread evaluates a queued
// process varies from run to run, so the sums may differ in their last bits between runs (the parity test
// allows 1e-10). Nothing is stored per process, so the device holds only the mesh (frequencies, velocities,
// eigenvectors), the occupations and the force constants, whatever the number of processes. Modes go in
// launches of a few dozen, so that progress can be reported.
#include <cub/block/block_reduce.cuh>

#include <algorithm>
#include <span>
#include <string>

#include "../../src/four_phonon_setup.hpp"
#include "quanta/core/buffer.hpp"
#include "quanta/core/cuda/check.cuh"
#include "quanta/core/error.hpp"
#include "quanta/core/progress.hpp"

namespace quanta::phonon::kernels {
namespace {

constexpr int kBlock = 128;

// Processes queued in shared memory (modes 3 and 4; 16 KiB). A round of kBlock q3 adds at most kBlock * nb^2,
// usually a few dozen; a process that finds the queue full is evaluated by its own thread at once.
constexpr int kQueue = 2048;

// Dynamic shared memory: W [ngroups][9], the roots of unity [L], the eigenvectors of modes 1 and 2 [nb] each.
std::size_t shared_bytes(const Fc4View& f, int nb) { return (9 * static_cast<std::size_t>(f.ngroups) + f.roots_n + 2 * nb) * sizeof(cplx); }

// The block's sums (cub block reductions) into *o, by thread 0.
__device__ void write_sums(const FourSums& acc, int nT, FourSums* o) {
  using Reduce = cub::BlockReduce<double, kBlock>;
  __shared__ typename Reduce::TempStorage tmp;
  const auto reduce = [&](double x, double* to) {
    const double s = Reduce(tmp).Sum(x);
    __syncthreads();  // the temporary storage is reused
    if (threadIdx.x == 0) *to = s;
  };
  reduce(acc.count, &o->count);
  reduce(acc.p4, &o->p4);
  for (int it = 0; it < nT; ++it) {
    reduce(acc.gamma[it], &o->gamma[it]);
    reduce(acc.gamma_umklapp[it], &o->gamma_umklapp[it]);
    reduce(acc.wp4[it], &o->wp4[it]);
  }
}

// Block (mode, class, share): the share-th of every `shares` second phonons (mode 2 = share, share + shares,
// ...: interleaved, since ++ and -- have fewer q3 for larger q2); partial sums out[(m * 3 + class) * shares +
// share], added up on the host in share order.
__global__ void four_phonon_kernel(MeshView mesh, Fc4View f, FourRateInputs in, const int* __restrict__ irreducible,
                                   int first, int m0, int shares, FourSums* __restrict__ out, double* __restrict__ rows,
                                   int nrange) {
  __shared__ int queue[kQueue][2];
  __shared__ int queued;
  extern __shared__ cplx dynamic[];
  const int nb = mesh.nb;
  cplx* W = dynamic;
  cplx* roots = W + 9 * f.ngroups;
  cplx* e1 = roots + f.roots_n;
  cplx* x2 = e1 + nb;
  const int share = static_cast<int>(blockIdx.x) % shares, mc = static_cast<int>(blockIdx.x) / shares;
  const int m = m0 + mc / 3;
  const FourClass c = static_cast<FourClass>(mc % 3);
  const int mode1 = irreducible[m / nb] * nb + m % nb;
  for (int i = threadIdx.x; i < f.roots_n; i += kBlock) roots[i] = f.roots[i];
  for (int i = threadIdx.x; i < nb; i += kBlock) e1[i] = mesh.eigenvectors[static_cast<long>(mode1) * nb + i];
  int k1[3];
  phase_factors(mesh, f, mode1 / nb, -1, k1);
  FourSums acc{};
  double rates[kMaxTemperatures4];
  const auto evaluate = [&](int mode2, int mode3, int mode4) {
    rate_process4(mesh, in, mode1, mode2, mode3, mode4, c, in.with_rates ? vertex4(mesh, f, W, roots, mode3, mode4, c) : 0.0, acc, rates);
    if (rows)
      for (int it = 0; it < in.nT; ++it) {
        double* row = rows + (static_cast<long>(it) * nrange + m - first) * mesh.nptk * nb;
        atomicAdd(row + mode4, rates[it]);
        atomicAdd(row + mode2, collision_sign2(c) * rates[it]);
        atomicAdd(row + mode3, collision_sign3(c) * rates[it]);
      }
  };
  if (scatters(mesh, mesh.omega[mode1])) {
    for (int mode2 = share; mode2 < mesh.nptk * nb; mode2 += shares) {
      if (mesh.omega[mode2] == 0) continue;
      const int q2 = mode2 / nb;
      if (in.with_rates) {  // stage 1
        __syncthreads();    // W and x2 of the previous mode 2 are no longer read
        const bool conj2 = c == FourClass::MinusMinus;
        for (int i = threadIdx.x; i < nb; i += kBlock) {
          const cplx e = mesh.eigenvectors[static_cast<long>(mode2) * nb + i];
          x2[i] = conj2 ? conj(e) : e;
        }
        __syncthreads();
        int k2[3];
        phase_factors(mesh, f, q2, conj2 ? -1 : 1, k2);
        for (int i = threadIdx.x; i < 9 * f.ngroups; i += kBlock) W[i] = contract12(f, e1, x2, k1, k2, i / 9, i % 9);
      }
      if (threadIdx.x == 0) queued = 0;
      __syncthreads();
      // ++ and -- take q3 >= q2 (kernels::visit_branch4)
      const int first = c == FourClass::PlusMinus ? 0 : q2;
      for (int base = first; base < mesh.nptk; base += kBlock) {
        const int q3 = base + static_cast<int>(threadIdx.x);
        if (q3 < mesh.nptk)
          visit_branch4(mesh, mode1, mode2, q3, c, [&](int mode3, int mode4, double delta, double sigma) {
            if (!count_process4(mesh, in, mode2, mode3, mode4, delta, sigma, acc)) return;
            const int slot = atomicAdd(&queued, 1);
            if (slot < kQueue) {
              queue[slot][0] = mode3;
              queue[slot][1] = mode4;
            } else {
              evaluate(mode2, mode3, mode4);
            }
          });
        __syncthreads();
        const int n = min(queued, kQueue);
        if (n >= kBlock || base + kBlock >= mesh.nptk) {  // the same decision in every thread
          for (int i = threadIdx.x; i < n; i += kBlock) evaluate(mode2, queue[i][0], queue[i][1]);
          __syncthreads();
          if (threadIdx.x == 0) queued = 0;
          __syncthreads();
        }
      }
    }
  }
  write_sums(acc, in.nT, out + (static_cast<long>(m - first) * 3 + static_cast<int>(c)) * shares + share);
}

// The sampling estimator (kernels::visit_draw4): block (mode, class, share) takes draws share, share +
// shares, ... of the mode's Ns; each thread tests one draw per round and queues the processes that carry a
// rate; then the block evaluates the queue one process at a time, all threads together (stage 1 of the
// matrix element is as costly as for a pair of modes with a thousand processes, and a sampled process shares
// it with none): W by all threads, stage 2 split over the groups and reduced. Unscaled sums as above.
__global__ void four_phonon_sample_kernel(MeshView mesh, Fc4View f, FourRateInputs in, const int* __restrict__ irreducible,
                                          int first, int m0, int shares, FourSums* __restrict__ out, long long draws,
                                          unsigned long long seed, int purpose) {
  using Reduce = cub::BlockReduce<double, kBlock>;
  __shared__ typename Reduce::TempStorage tmp;
  __shared__ int queue[kBlock][3];
  __shared__ int queued;
  __shared__ double v2;
  extern __shared__ cplx dynamic[];
  const int nb = mesh.nb;
  cplx* W = dynamic;
  cplx* roots = W + 9 * f.ngroups;
  cplx* e1 = roots + f.roots_n;
  cplx* x2 = e1 + nb;
  const int share = static_cast<int>(blockIdx.x) % shares, mc = static_cast<int>(blockIdx.x) / shares;
  const int m = m0 + mc / 3;
  const FourClass c = static_cast<FourClass>(mc % 3);
  const int mode1 = irreducible[m / nb] * nb + m % nb;
  for (int i = threadIdx.x; i < f.roots_n; i += kBlock) roots[i] = f.roots[i];
  for (int i = threadIdx.x; i < nb; i += kBlock) e1[i] = mesh.eigenvectors[static_cast<long>(mode1) * nb + i];
  int k1[3];
  phase_factors(mesh, f, mode1 / nb, -1, k1);
  const unsigned long long stream = sample_stream(seed, purpose, m, static_cast<int>(c));
  FourSums acc{};
  double rates[kMaxTemperatures4];
  if (scatters(mesh, mesh.omega[mode1])) {
    for (long long base = share; base < draws; base += static_cast<long long>(shares) * kBlock) {
      if (threadIdx.x == 0) queued = 0;
      __syncthreads();
      const long long n = base + static_cast<long long>(threadIdx.x) * shares;
      if (n < draws)
        visit_draw4(mesh, mode1, c, stream, n, [&](int mode2, int mode3, int mode4, double delta, double sigma) {
          if (!count_process4(mesh, in, mode2, mode3, mode4, delta, sigma, acc) || in.nT == 0) return;
          const int slot = atomicAdd(&queued, 1);  // at most one per thread: never full
          queue[slot][0] = mode2;
          queue[slot][1] = mode3;
          queue[slot][2] = mode4;
        });
      __syncthreads();
      for (int i = 0; i < queued; ++i) {
        const int mode2 = queue[i][0], mode3 = queue[i][1], mode4 = queue[i][2];
        if (in.with_rates) {
          const bool conj2 = c == FourClass::MinusMinus;
          for (int e = threadIdx.x; e < nb; e += kBlock) {
            const cplx x = mesh.eigenvectors[static_cast<long>(mode2) * nb + e];
            x2[e] = conj2 ? conj(x) : x;
          }
          __syncthreads();
          int k2[3];
          phase_factors(mesh, f, mode2 / nb, conj2 ? -1 : 1, k2);
          for (int e = threadIdx.x; e < 9 * f.ngroups; e += kBlock) W[e] = contract12(f, e1, x2, k1, k2, e / 9, e % 9);
          __syncthreads();
          const cplx part = vertex4_part(mesh, f, W, roots, mode3, mode4, c, threadIdx.x, kBlock);
          const double re = Reduce(tmp).Sum(part.re);
          __syncthreads();
          const double im = Reduce(tmp).Sum(part.im);
          if (threadIdx.x == 0) v2 = re * re + im * im;
        } else if (threadIdx.x == 0) {
          v2 = 0;
        }
        __syncthreads();
        if (threadIdx.x == 0) rate_process4(mesh, in, mode1, mode2, mode3, mode4, c, v2, acc, rates);
      }
      __syncthreads();  // the queue is reused
    }
  }
  write_sums(acc, in.nT, out + (static_cast<long>(m - first) * 3 + static_cast<int>(c)) * shares + share);
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
                                            const std::vector<double>& bose, const FourRateInputs& host_in, int first, int last,
                                            bool quiet, double* rows, const ProcessSample* sample) {
  const int nmodes = last - first;
  const std::size_t nfull = static_cast<std::size_t>(host_mesh.nptk) * host_mesh.nb;
  const DeviceBuffer<double> omega(std::span<const double>(host_mesh.omega, nfull), "frequencies");
  const DeviceBuffer<double> velocity(std::span<const double>(host_mesh.velocity, 3 * nfull), "velocities");
  const DeviceBuffer<double> width(std::span<const double>(host_mesh.width_terms, 4 * nfull), "width terms");
  const DeviceBuffer<int> ws_image(std::span<const int>(host_mesh.ws_image, 3 * static_cast<std::size_t>(host_mesh.nptk)), "zone images");
  const DeviceBuffer<cplx> eigenvectors(std::span<const cplx>(host_mesh.eigenvectors, nfull * host_mesh.nb), "eigenvectors");
  const DeviceBuffer<double> d_bose = up(bose, "occupations");
  const DeviceBuffer<int> d_irr = up(irreducible, "irreducible q-points");
  const DeviceBuffer<int> offset = up(t.group_offset, "fourth-order groups"), group_atoms = up(t.group_atoms, "fourth-order atoms"),
                          group_cell = up(t.group_cell, "fourth-order cells"), quad_atoms = up(t.quad_atoms, "fourth-order atoms"),
                          quad_cells = up(t.quad_cells, "fourth-order cells");
  const DeviceBuffer<double> phi = up(t.phi, "fourth-order constants");
  const DeviceBuffer<cplx> roots = up(t.roots, "roots of unity");
  MeshView mesh = host_mesh;
  mesh.omega = omega.data();
  mesh.velocity = velocity.data();
  mesh.eigenvectors = eigenvectors.data();
  mesh.width_terms = width.data();
  mesh.ws_image = ws_image.data();
  const Fc4View f = make_fc4_view(
      t, {offset.data(), group_atoms.data(), group_cell.data(), quad_atoms.data(), quad_cells.data(), phi.data(), roots.data()});
  FourRateInputs in = host_in;
  in.bose = d_bose.data();
  // Stage 1's W lives in shared memory: refuse, with the numbers, constants too many groups for it.
  int smem_max = 0;
  QUANTA_CUDA_CHECK(cudaDeviceGetAttribute(&smem_max, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0));
  const std::size_t smem = shared_bytes(f, host_mesh.nb);
  const std::size_t static_smem = sizeof(int) * (2 * kQueue + 1) + 2048;
  if (smem + static_smem > static_cast<std::size_t>(smem_max))
    throw Error("four-phonon scattering (GPU): the fourth-order constants form " + std::to_string(f.ngroups) +
                " groups (atoms C, D and R_k - R_l), whose contracted matrix elements need " + std::to_string(smem >> 10) +
                " KiB of shared memory per block; this GPU allows " + std::to_string((smem_max - static_smem) >> 10) +
                " KiB: use --backend cpu");
  QUANTA_CUDA_CHECK(cudaFuncSetAttribute(four_phonon_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)));
  QUANTA_CUDA_CHECK(cudaFuncSetAttribute(four_phonon_sample_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)));
  // Enough blocks to fill the device (a few per SM slot); at most one share per second phonon.
  int sms = 1;
  QUANTA_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  // Shares of a mode's second phonons, or of its draws.
  const long steps = sample ? std::max(1LL, (sample->draws + kBlock - 1) / kBlock) : static_cast<long>(host_mesh.nptk) * host_mesh.nb;
  const int per_launch = std::max(1, std::min(nmodes, 64));
  const int chunks = static_cast<int>(std::max(1L, std::min(steps, (64L * sms + 3 * per_launch - 1) / (3 * per_launch))));
  const std::size_t nrows = rows ? static_cast<std::size_t>(host_in.nT) * nmodes * nfull : 0;
  DeviceBuffer<double> d_rows(std::max<std::size_t>(nrows, 1), "four-phonon collision rows");
  d_rows.zero();
  DeviceBuffer<FourSums> out(static_cast<std::size_t>(nmodes) * 3 * chunks, "four-phonon sums");
  out.zero();
  Progress progress(sample ? "four-phonon scattering, sampled (GPU)" : "four-phonon scattering (GPU)", static_cast<std::size_t>(nmodes), quiet);
  for (int m0 = first; m0 < last; m0 += per_launch) {
    const int n = std::min(per_launch, last - m0);
    if (sample)
      four_phonon_sample_kernel<<<3 * n * chunks, kBlock, smem>>>(mesh, f, in, d_irr.data(), first, m0, chunks, out.data(), sample->draws,
                                                                 sample->seed, sample->purpose);
    else
      four_phonon_kernel<<<3 * n * chunks, kBlock, smem>>>(mesh, f, in, d_irr.data(), first, m0, chunks, out.data(),
                                                          rows ? d_rows.data() : nullptr, nmodes);
    QUANTA_CUDA_CHECK(cudaGetLastError());
    QUANTA_CUDA_CHECK(cudaDeviceSynchronize());
    progress.advance(static_cast<std::size_t>(n));
  }
  progress.finish();
  const std::vector<FourSums> parts = out.to_host();
  if (rows) d_rows.download(std::span<double>(rows, nrows));
  std::vector<FourSums> sums(static_cast<std::size_t>(nmodes) * 3);
  for (std::size_t mc = 0; mc < sums.size(); ++mc)
    for (int k = 0; k < chunks; ++k) {
      const FourSums& p = parts[mc * chunks + k];
      FourSums& s = sums[mc];
      s.count += p.count;
      s.p4 += p.p4;
      for (int it = 0; it < kMaxTemperatures4; ++it) {
        s.gamma[it] += p.gamma[it];
        s.gamma_umklapp[it] += p.gamma_umklapp[it];
        s.wp4[it] += p.wp4[it];
      }
    }
  return sums;
}

}  // namespace quanta::phonon::kernels
