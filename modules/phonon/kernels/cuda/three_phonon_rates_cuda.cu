// CUDA backend of the temperature-dependent three-phonon rates: one block per irreducible mode walks the
// mode's processes (threads stride through the list), each thread evaluates kernels::process_weight and the
// rate of its processes, and block reductions form the mode's sums: no atomics, and the same sums whatever
// the launch order. The lists go to the device in batches of modes that fit the memory budget.
#include <cub/block/block_reduce.cuh>

#include <algorithm>

#include "../cuda_three_phonon.hpp"
#include "quanta/core/backend.hpp"
#include "quanta/core/buffer.hpp"
#include "quanta/core/cuda/check.cuh"

namespace quanta::phonon::kernels {
namespace {

constexpr int kBlock = 256;
// Device bytes per process: second and third modes (4 + 4), |V|^2 (8) and its rate when kept (8).
constexpr std::size_t kBytesPerProcess = 24;

__global__ void rates_kernel(MeshView mesh, const int* __restrict__ irreducible,  // [nlist]
                             const double* __restrict__ bose,                     // [nptk][nb]
                             int m0,                                              // first mode of the batch
                             const std::int64_t* __restrict__ offset,             // [batch modes + 1], from 0
                             const int* __restrict__ mode2, const int* __restrict__ mode3,  // [batch processes]
                             const double* __restrict__ v2,                       // [batch processes]
                             double factor, bool plus,
                             double* __restrict__ rate,                           // [batch processes] or null
                             double* __restrict__ weight_sum,                     // [batch modes]
                             double* __restrict__ rate_sum) {                     // [batch modes]
  using Reduce = cub::BlockReduce<double, kBlock>;
  __shared__ typename Reduce::TempStorage tmp;
  const int b = blockIdx.x, m = m0 + b, nb = mesh.nb;
  const double omega = mesh.omega[static_cast<long>(irreducible[m / nb]) * nb + m % nb];
  double w_sum = 0, g_sum = 0;
  for (std::int64_t k = offset[b] + threadIdx.x; k < offset[b + 1]; k += kBlock) {
    const double w = process_weight(mesh, bose, omega, mode2[k], mode3[k], plus);
    const double g = factor * w * v2[k];
    w_sum += w;
    g_sum += g;
    if (rate) rate[k] = g;
  }
  w_sum = Reduce(tmp).Sum(w_sum);
  __syncthreads();  // the temporary storage is reused
  g_sum = Reduce(tmp).Sum(g_sum);
  if (threadIdx.x == 0) {
    weight_sum[b] = w_sum;
    rate_sum[b] = g_sum;
  }
}

template <class T>
DeviceBuffer<T> up(const T* h, std::size_t n, const char* what) {
  return DeviceBuffer<T>(std::span<const T>(h, n), what);
}

}  // namespace

void three_phonon_rates_cuda(const MeshView& host_mesh, const std::vector<int>& irreducible, const std::vector<double>& bose,
                             const ThreePhononProcesses& p, double factor, const RateOptions& opt, RateSums& sums,
                             ThreePhononRates& r) {
  const std::size_t nq_nb = bose.size();
  const DeviceBuffer<double> omega(std::span<const double>(host_mesh.omega, nq_nb), "frequencies");
  const DeviceBuffer<double> velocity(std::span<const double>(host_mesh.velocity, 3 * nq_nb), "velocities");
  const DeviceBuffer<double> d_bose(std::span<const double>(bose), "occupations");
  const DeviceBuffer<int> d_irr(std::span<const int>(irreducible), "irreducible q-points");
  MeshView mesh = host_mesh;
  mesh.omega = omega.data();
  mesh.velocity = velocity.data();
  mesh.eigenvectors = nullptr;  // not needed for rates

  GpuMemoryBudget budget;
  budget.user_limit_bytes = opt.gpu_mem_limit;
  const std::size_t usable = budget.usable_bytes();
  const std::size_t per_process = kBytesPerProcess - (opt.keep_process_rates ? 0 : 8);
  std::int64_t capacity = std::max<std::int64_t>(1, static_cast<std::int64_t>(usable / (per_process + 1)));
  for (bool plus : {true, false}) {
    const ProcessList& l = plus ? p.plus : p.minus;
    std::vector<double>& wsum = plus ? sums.weight_plus : sums.weight_minus;
    std::vector<double>& gsum = plus ? sums.rate_plus : sums.rate_minus;
    double* kept = opt.keep_process_rates ? (plus ? r.process_plus : r.process_minus).data() : nullptr;
    for (;;) {
      try {
        for (const ModeRange& b : split_modes(l.offset, capacity)) {
          const std::int64_t first = l.offset[b.m0], n = l.offset[b.m1] - first;
          std::vector<std::int64_t> offset(b.size() + 1);
          for (int i = 0; i <= b.size(); ++i) offset[i] = l.offset[b.m0 + i] - first;
          const auto d_off = up(offset.data(), offset.size(), "rate offsets");
          const auto d_m2 = up(l.mode2.data() + first, n, "second phonons");
          const auto d_m3 = up(l.mode3.data() + first, n, "third phonons");
          const auto d_v2 = up(l.v2.data() + first, n, "|V|^2");
          DeviceBuffer<double> d_rate(kept ? n : 0, "process rates");
          DeviceBuffer<double> d_w(b.size(), "weight sums"), d_g(b.size(), "rate sums");
          rates_kernel<<<b.size(), kBlock>>>(mesh, d_irr.data(), d_bose.data(), b.m0, d_off.data(), d_m2.data(), d_m3.data(),
                                             d_v2.data(), factor, plus, kept ? d_rate.data() : nullptr, d_w.data(), d_g.data());
          QUANTA_CUDA_LAUNCH_CHECK("rates_kernel");
          d_w.download(std::span<double>(wsum.data() + b.m0, b.size()));
          d_g.download(std::span<double>(gsum.data() + b.m0, b.size()));
          if (kept) d_rate.download(std::span<double>(kept + first, n));
        }
        break;
      } catch (const OutOfDeviceMemory&) {
        // The plan did not fit after all (fragmentation, other processes): halve the batches and retry.
        capacity = std::min<std::int64_t>(capacity, l.offset.back()) / 2;
        if (capacity < 1) throw;
      }
    }
  }
}

}  // namespace quanta::phonon::kernels
