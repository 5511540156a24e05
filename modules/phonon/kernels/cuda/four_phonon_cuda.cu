// CUDA backend of four-phonon scattering: thread blocks per irreducible mode and class, each taking a share of
// the mode's second phonons (q2, j). For each, the block forms stage 1 of the matrix element (W, in shared
// memory) together, then tests the candidates (q3, k, l) one q3 per thread and queues the allowed processes
// in shared memory; all threads then evaluate the queue from W, one process each, so that the matrix elements
// run with full warps (kernels/four_phonon.hpp has both stages and the selection, shared with the CPU). Block
// reductions form each share's sums and the host adds the shares in order. Which thread evaluates a queued
// process varies from run to run, so the sums may differ in their last bits between runs (the parity test
// allows 1e-10). Nothing is stored per process, so the device holds only the mesh (frequencies, velocities,
// eigenvectors), the occupations and the force constants, whatever the number of processes: copied once per
// stage (FourPhononDevice), after which a unit of work uploads only its pass's occupations. Modes go in
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

// What both kernels start from. Block (mode, class, share) is the share-th of `shares` blocks of an irreducible
// mode m (m0 + ...) and class; dynamic shared memory (shared_bytes) is carved into W, the roots of unity and the
// eigenvectors of modes 1 and 2, and the first two are copied in (read only after a later barrier).
struct BlockStart {
  cplx *W, *roots, *e1, *x2;  // shared: [ngroups][9], [L], [nb], [nb]
  int share, m, mode1;
  FourClass c;
  int k1[3];  // phase_factors(q1, -1)
  long slot;  // the block's partial sums: out[((m - first) * 3 + class) * shares + share]
};

__device__ BlockStart start_block(const MeshView& mesh, const Fc4View& f, const int* __restrict__ irreducible, int first, int m0,
                                  int shares) {
  extern __shared__ cplx dynamic[];
  const int nb = mesh.nb;
  BlockStart b;
  b.W = dynamic;
  b.roots = b.W + 9 * f.ngroups;
  b.e1 = b.roots + f.roots_n;
  b.x2 = b.e1 + nb;
  b.share = static_cast<int>(blockIdx.x) % shares;
  const int mc = static_cast<int>(blockIdx.x) / shares;
  b.m = m0 + mc / 3;
  b.c = static_cast<FourClass>(mc % 3);
  b.mode1 = irreducible[b.m / nb] * nb + b.m % nb;
  for (int i = threadIdx.x; i < f.roots_n; i += kBlock) b.roots[i] = f.roots[i];
  for (int i = threadIdx.x; i < nb; i += kBlock) b.e1[i] = mesh.eigenvectors[static_cast<long>(b.mode1) * nb + i];
  phase_factors(mesh, f, b.mode1 / nb, -1, b.k1);
  b.slot = (static_cast<long>(b.m - first) * 3 + static_cast<int>(b.c)) * shares + b.share;
  return b;
}

// Stage 1 by the whole block: mode 2's eigenvector (conjugated for --) into x2, then W. The caller makes sure
// the previous W and x2 are no longer read, and synchronizes before W is read.
__device__ void block_stage1(const MeshView& mesh, const Fc4View& f, const BlockStart& b, int mode2) {
  const int nb = mesh.nb;
  const bool conj2 = b.c == FourClass::MinusMinus;
  for (int i = threadIdx.x; i < nb; i += kBlock) {
    const cplx e = mesh.eigenvectors[static_cast<long>(mode2) * nb + i];
    b.x2[i] = conj2 ? conj(e) : e;
  }
  __syncthreads();
  int k2[3];
  phase_factors(mesh, f, mode2 / nb, conj2 ? -1 : 1, k2);
  for (int i = threadIdx.x; i < 9 * f.ngroups; i += kBlock) b.W[i] = contract12(f, b.e1, b.x2, b.k1, k2, i / 9, i % 9);
}

// Block (mode, class, share): the share-th of every `shares` second phonons (mode 2 = share, share + shares,
// ...: interleaved, since ++ and -- have fewer q3 for larger q2); partial sums out[slot], added up on the host
// in share order.
__global__ void four_phonon_kernel(MeshView mesh, Fc4View f, FourRateInputs in, const int* __restrict__ irreducible,
                                   int first, int m0, int shares, FourSums* __restrict__ out, double* __restrict__ rows,
                                   int nrange) {
  __shared__ int queue[kQueue][2];
  __shared__ int queued;
  const BlockStart b = start_block(mesh, f, irreducible, first, m0, shares);
  const int nb = mesh.nb, mode1 = b.mode1;
  const FourClass c = b.c;
  FourSums acc{};
  double rates[kMaxTemperatures4];
  const auto evaluate = [&](int mode2, int mode3, int mode4) {
    rate_process4(mesh, in, mode1, mode2, mode3, mode4, c, in.with_rates ? vertex4(mesh, f, b.W, b.roots, mode3, mode4, c) : 0.0, acc,
                  rates);
    if (rows)
      for (int it = 0; it < in.nT; ++it) {
        double* row = rows + (static_cast<long>(it) * nrange + b.m - first) * mesh.nptk * nb;
        atomicAdd(row + mode4, rates[it]);
        atomicAdd(row + mode2, collision_sign2(c) * rates[it]);
        atomicAdd(row + mode3, collision_sign3(c) * rates[it]);
      }
  };
  if (scatters(mesh, mesh.omega[mode1])) {
    for (int mode2 = b.share; mode2 < mesh.nptk * nb; mode2 += shares) {
      if (mesh.omega[mode2] == 0) continue;
      const int q2 = mode2 / nb;
      if (in.with_rates) {
        __syncthreads();  // W and x2 of the previous mode 2 are no longer read
        block_stage1(mesh, f, b, mode2);
      }
      if (threadIdx.x == 0) queued = 0;
      __syncthreads();
      // ++ and -- take q3 >= q2 (kernels::visit_branch4)
      const int first_q3 = c == FourClass::PlusMinus ? 0 : q2;
      for (int base = first_q3; base < mesh.nptk; base += kBlock) {
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
  write_sums(acc, in.nT, out + b.slot);
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
  const BlockStart b = start_block(mesh, f, irreducible, first, m0, shares);
  const int mode1 = b.mode1;
  const FourClass c = b.c;
  const unsigned long long stream = sample_stream(seed, purpose, b.m, static_cast<int>(c));
  FourSums acc{};
  double rates[kMaxTemperatures4];
  if (scatters(mesh, mesh.omega[mode1])) {
    for (long long base = b.share; base < draws; base += static_cast<long long>(shares) * kBlock) {
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
        if (in.with_rates) {  // W and x2 of the previous process were last read before the barrier after its v2
          block_stage1(mesh, f, b, mode2);
          __syncthreads();
          const cplx part = vertex4_part(mesh, f, b.W, b.roots, mode3, mode4, c, threadIdx.x, kBlock);
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
  write_sums(acc, in.nT, out + b.slot);
}

// A device copy of a table (one element, unset, for an empty one: no force constants with onlyharmonic).
template <class T>
DeviceBuffer<T> up(const std::vector<T>& h, const char* what) {
  DeviceBuffer<T> d(std::max<std::size_t>(h.size(), 1), what);
  if (!h.empty()) d.upload(h);
  return d;
}

// A device array kept from unit to unit and grown when a unit needs more; its first n elements zeroed.
template <class T>
T* zeroed(DeviceBuffer<T>& b, std::size_t n, const char* what) {
  if (b.size() < n) {
    b = DeviceBuffer<T>();  // the old one freed first
    b = DeviceBuffer<T>(n, what);
  }
  device::fill_zero(b.data(), n * sizeof(T));
  return b.data();
}

}  // namespace

// The stage's device copies (MeshView and Fc4View point into them) and launch settings.
struct FourPhononDevice::State {
  DeviceBuffer<double> omega, velocity, width;
  DeviceBuffer<int> ws_image;
  DeviceBuffer<cplx> eigenvectors;
  DeviceBuffer<int> irreducible, group_offset, group_atoms, group_cell, quad_atoms, quad_cells;
  DeviceBuffer<double> phi;
  DeviceBuffer<cplx> roots;
  DeviceBuffer<double> bose;      // [nT][nfull] of the current pass
  DeviceBuffer<FourSums> out;     // a unit's partial sums
  DeviceBuffer<double> rows;      // a unit's collision rows
  MeshView mesh;
  Fc4View f;
  std::size_t smem = 0;
  int sms = 1;

  State(const MeshView& m, const Fc4Tables& t, const std::vector<int>& irr, std::size_t nfull)
      : omega(std::span<const double>(m.omega, nfull), "frequencies"),
        velocity(std::span<const double>(m.velocity, 3 * nfull), "velocities"),
        width(std::span<const double>(m.width_terms, 4 * nfull), "width terms"),
        ws_image(std::span<const int>(m.ws_image, 3 * static_cast<std::size_t>(m.nptk)), "zone images"),
        eigenvectors(std::span<const cplx>(m.eigenvectors, nfull * m.nb), "eigenvectors"),
        irreducible(up(irr, "irreducible q-points")),
        group_offset(up(t.group_offset, "fourth-order groups")),
        group_atoms(up(t.group_atoms, "fourth-order atoms")),
        group_cell(up(t.group_cell, "fourth-order cells")),
        quad_atoms(up(t.quad_atoms, "fourth-order atoms")),
        quad_cells(up(t.quad_cells, "fourth-order cells")),
        phi(up(t.phi, "fourth-order constants")),
        roots(up(t.roots, "roots of unity")),
        mesh(m),
        f(make_fc4_view(t, {group_offset.data(), group_atoms.data(), group_cell.data(), quad_atoms.data(), quad_cells.data(),
                            phi.data(), roots.data()})) {
    mesh.omega = omega.data();
    mesh.velocity = velocity.data();
    mesh.eigenvectors = eigenvectors.data();
    mesh.width_terms = width.data();
    mesh.ws_image = ws_image.data();
  }
};

FourPhononDevice::FourPhononDevice(const MeshView& host_mesh, const Fc4Tables& t, const std::vector<int>& irreducible)
    : state_(std::make_unique<State>(host_mesh, t, irreducible, static_cast<std::size_t>(host_mesh.nptk) * host_mesh.nb)) {
  State& s = *state_;
  int dev = 0, smem_max = 0;
  QUANTA_CUDA_CHECK(cudaGetDevice(&dev));
  // Stage 1's W lives in shared memory: refuse, with the numbers, constants too many groups for it.
  QUANTA_CUDA_CHECK(cudaDeviceGetAttribute(&smem_max, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
  s.smem = shared_bytes(s.f, host_mesh.nb);
  const std::size_t static_smem = sizeof(int) * (2 * kQueue + 1) + 2048;
  if (s.smem + static_smem > static_cast<std::size_t>(smem_max))
    throw Error("four-phonon scattering (GPU): the fourth-order constants form " + std::to_string(s.f.ngroups) +
                " groups (atoms C, D and R_k - R_l), whose contracted matrix elements need " + std::to_string(s.smem >> 10) +
                " KiB of shared memory per block; this GPU allows " + std::to_string((smem_max - static_smem) >> 10) +
                " KiB: use --backend cpu");
  QUANTA_CUDA_CHECK(cudaFuncSetAttribute(four_phonon_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(s.smem)));
  QUANTA_CUDA_CHECK(cudaFuncSetAttribute(four_phonon_sample_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(s.smem)));
  QUANTA_CUDA_CHECK(cudaDeviceGetAttribute(&s.sms, cudaDevAttrMultiProcessorCount, dev));
}

FourPhononDevice::~FourPhononDevice() = default;

void FourPhononDevice::set_occupations(const std::vector<double>& bose) {
  State& s = *state_;
  if (s.bose.size() < bose.size()) s.bose = DeviceBuffer<double>(bose.size(), "occupations");
  s.bose.upload(bose);
}

std::vector<FourSums> FourPhononDevice::sums(const FourRateInputs& host_in, int first, int last, bool quiet, double* rows,
                                             const ProcessSample* sample) {
  State& s = *state_;
  const int nmodes = last - first;
  const std::size_t nfull = static_cast<std::size_t>(s.mesh.nptk) * s.mesh.nb;
  FourRateInputs in = host_in;
  in.bose = s.bose.data();
  // Enough blocks to fill the device (a few per SM slot); at most one share per second phonon.
  // Shares of a mode's second phonons, or of its draws.
  const long steps = sample ? std::max(1LL, (sample->draws + kBlock - 1) / kBlock) : static_cast<long>(nfull);
  const int per_launch = std::max(1, std::min(nmodes, 64));
  const int chunks = static_cast<int>(std::max(1L, std::min(steps, (64L * s.sms + 3 * per_launch - 1) / (3 * per_launch))));
  const std::size_t nrows = rows ? static_cast<std::size_t>(host_in.nT) * nmodes * nfull : 0;
  double* d_rows = rows ? zeroed(s.rows, std::max<std::size_t>(nrows, 1), "four-phonon collision rows") : nullptr;
  const std::size_t nparts = static_cast<std::size_t>(nmodes) * 3 * chunks;
  FourSums* out = zeroed(s.out, nparts, "four-phonon sums");
  Progress progress(sample ? "four-phonon scattering, sampled (GPU)" : "four-phonon scattering (GPU)", static_cast<std::size_t>(nmodes), quiet);
  for (int m0 = first; m0 < last; m0 += per_launch) {
    const int n = std::min(per_launch, last - m0);
    if (sample) {
      four_phonon_sample_kernel<<<3 * n * chunks, kBlock, s.smem>>>(s.mesh, s.f, in, s.irreducible.data(), first, m0, chunks, out,
                                                                   sample->draws, sample->seed, sample->purpose);
      QUANTA_CUDA_LAUNCH_CHECK("four_phonon_sample_kernel");
    } else {
      four_phonon_kernel<<<3 * n * chunks, kBlock, s.smem>>>(s.mesh, s.f, in, s.irreducible.data(), first, m0, chunks, out, d_rows,
                                                            nmodes);
      QUANTA_CUDA_LAUNCH_CHECK("four_phonon_kernel");
    }
    QUANTA_CUDA_CHECK(cudaDeviceSynchronize());
    progress.advance(static_cast<std::size_t>(n));
  }
  progress.finish();
  std::vector<FourSums> parts(nparts);
  s.out.download(parts);
  if (rows) s.rows.download(std::span<double>(rows, nrows));
  std::vector<FourSums> sums(static_cast<std::size_t>(nmodes) * 3);
  for (std::size_t mc = 0; mc < sums.size(); ++mc)
    for (int k = 0; k < chunks; ++k) {
      const FourSums& p = parts[mc * chunks + k];
      FourSums& r = sums[mc];
      r.count += p.count;
      r.p4 += p.p4;
      for (int it = 0; it < kMaxTemperatures4; ++it) {
        r.gamma[it] += p.gamma[it];
        r.gamma_umklapp[it] += p.gamma_umklapp[it];
        r.wp4[it] += p.wp4[it];
      }
    }
  return sums;
}

}  // namespace quanta::phonon::kernels
