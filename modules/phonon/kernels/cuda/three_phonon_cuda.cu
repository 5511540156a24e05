// CUDA backend of the three-phonon processes: enumeration (on the GPU by stream compaction, or on the CPU)
// into compact per-mode lists, then |V|^2 of every listed process with no divergent branch, one thread per
// process. Strategies: all modes in one launch, or batches of modes sized by the device memory budget, the
// CPU enumerating the next batch while the GPU evaluates the current one.
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>

#include <algorithm>
#include <cstdio>
#include <limits>

#include "../cuda_three_phonon.hpp"
#include "quanta/core/buffer.hpp"
#include "quanta/core/cuda/check.cuh"
#include "quanta/core/timer.hpp"

namespace quanta::phonon::kernels {
namespace {

constexpr int kBlock = 256;
using Index = long long;

// One block per irreducible mode. In round r, thread t takes work item r * blockDim + t (kernels::visit_item3:
// the second q-point q' when exact, a draw when sampled); a block scan places each thread's processes, so a
// mode's list comes out in the CPU's order.
template <bool kWrite>
__global__ void enumerate_kernel(MeshView mesh, const int* __restrict__ irreducible, int m0, bool plus, ProcessSample sample,
                                 Index* __restrict__ count,         // [modes in range] (count pass)
                                 const Index* __restrict__ offset,  // [modes in range + 1] (write pass)
                                 int* __restrict__ mode2, int* __restrict__ mode3) {
  using Scan = cub::BlockScan<int, kBlock>;
  using Reduce = cub::BlockReduce<Index, kBlock>;
  __shared__ typename Scan::TempStorage scan_tmp;
  __shared__ typename Reduce::TempStorage reduce_tmp;
  if constexpr (kWrite)
    if (offset[blockIdx.x + 1] == offset[blockIdx.x]) return;  // no processes, or a mode another MPI rank holds
  const int m = m0 + blockIdx.x;
  const int nb = mesh.nb;
  const int q = irreducible[m / nb];
  const double omega = mesh.omega[static_cast<long>(q) * nb + m % nb];
  const unsigned long long stream = stream3(sample, m, plus);
  Index base = kWrite ? offset[blockIdx.x] : 0;
  Index mine = 0;
  if (scatters(mesh, omega)) {
    const long long items = items3(mesh, sample);
    for (long long r0 = 0; r0 < items; r0 += kBlock) {
      const long long item = r0 + threadIdx.x;
      int n = 0;
      if (item < items) visit_item3(mesh, q, omega, plus, sample, stream, item, [&](int, int) { ++n; });
      if (kWrite) {
        int before = 0, total = 0;
        Scan(scan_tmp).ExclusiveSum(n, before, total);
        __syncthreads();
        Index p = base + before;
        if (n > 0)
          visit_item3(mesh, q, omega, plus, sample, stream, item, [&](int a, int b) {
            mode2[p] = a;
            mode3[p] = b;
            ++p;
          });
        base += total;
      } else {
        mine += n;
      }
    }
  }
  if (!kWrite) {
    const Index total = Reduce(reduce_tmp).Sum(mine);
    if (threadIdx.x == 0) count[blockIdx.x] = total;
  }
}

// One thread per listed process: its mode (binary search of the range's offsets) and |V|^2.
__global__ void vertex_kernel(MeshView mesh, Fc3View fc, const int* __restrict__ irreducible, int m0, int nmodes,
                              const Index* __restrict__ offset,  // [nmodes + 1], relative to the batch
                              const int* __restrict__ mode2, const int* __restrict__ mode3, Index nproc, bool plus,
                              double* __restrict__ v2) {
  const Index p = blockIdx.x * static_cast<Index>(blockDim.x) + threadIdx.x;
  if (p >= nproc) return;
  int lo = 0, hi = nmodes;  // largest lo with offset[lo] <= p
  while (hi - lo > 1) {
    const int mid = (lo + hi) / 2;
    if (offset[mid] <= p) lo = mid; else hi = mid;
  }
  const int m = m0 + lo;
  const int nb = mesh.nb;
  v2[p] = vertex2(mesh, fc, irreducible[m / nb] * nb + m % nb, mode2[p], mode3[p], plus);
}

unsigned blocks_for(Index n) { return static_cast<unsigned>((n + kBlock - 1) / kBlock); }

// Device copies of the mesh and force-constant tables, and the views on them.
struct DeviceInputs {
  DeviceBuffer<double> omega, velocity;
  DeviceBuffer<cplx> eigenvectors;
  DeviceBuffer<int> irreducible, group_offset, group_atoms, cells;
  DeviceBuffer<double> phi;
  DeviceBuffer<cplx> roots;
  MeshView mesh;
  Fc3View fc;
  std::size_t bytes() const {
    return omega.bytes() + velocity.bytes() + eigenvectors.bytes() + irreducible.bytes() + group_offset.bytes() +
           group_atoms.bytes() + cells.bytes() + phi.bytes() + roots.bytes();
  }
};

DeviceInputs upload(const Crystal& crystal, const QGrid& grid, const Spectrum& s, const Fc3Tables& t, double scalebroad,
                    double omega_max) {
  DeviceInputs d;
  d.omega = DeviceBuffer<double>(std::span<const double>(s.omega), "frequencies");
  d.velocity = DeviceBuffer<double>(std::span<const double>(s.velocity), "velocities");
  d.eigenvectors = DeviceBuffer<cplx>(std::span<const cplx>(s.eigenvectors), "eigenvectors");
  d.irreducible = DeviceBuffer<int>(std::span<const int>(grid.irreducible), "irreducible q-points");
  d.group_offset = DeviceBuffer<int>(std::span<const int>(t.group_offset), "triplet groups");
  d.group_atoms = DeviceBuffer<int>(std::span<const int>(t.group_atoms), "triplet atoms");
  d.cells = DeviceBuffer<int>(std::span<const int>(t.cells), "triplet cells");
  d.phi = DeviceBuffer<double>(std::span<const double>(t.phi), "third-order force constants");
  d.roots = DeviceBuffer<cplx>(std::span<const cplx>(t.roots), "roots of unity");
  d.mesh = make_mesh_view(crystal, grid, s, scalebroad, d.omega.data(), d.velocity.data(), d.eigenvectors.data());
  d.mesh.omega_max = omega_max;
  d.fc = make_fc3_view(t, d.group_offset.data(), d.group_atoms.data(), d.phi.data(), d.cells.data(), d.roots.data());
  return d;
}


constexpr std::size_t kBytesPerProcess = 2 * sizeof(int) + sizeof(double);

// Per-mode process counts of one sign (plus or minus), on the GPU or the CPU. `host_mesh` is the CPU view of
// the same data (for the CPU enumeration).
std::vector<std::int64_t> count_sign(const DeviceInputs& d, const MeshView& host_mesh, const std::vector<int>& irreducible, int nmodes,
                                     bool plus, const ProcessSample& sample, bool gpu_enum, ScatteringStats& st) {
  WallTimer t;
  std::vector<std::int64_t> count;
  if (gpu_enum) {
    DeviceBuffer<Index> dcount(nmodes, "process counts");
    enumerate_kernel<false><<<nmodes, kBlock>>>(d.mesh, d.irreducible.data(), 0, plus, sample, dcount.data(), nullptr, nullptr, nullptr);
    QUANTA_CUDA_LAUNCH_CHECK("enumerate_kernel<count>");
    std::vector<Index> c(nmodes);
    dcount.download(c);
    count.assign(c.begin(), c.end());
  } else {
    count = count_processes_cpu(host_mesh, irreducible, {0, nmodes}, plus, sample);
  }
  st.seconds_enumerate += t.seconds();
  return count;
}

// One sign: the lists (out.offset set from the counts) in batches, each enumerated and evaluated.
void run_sign(const DeviceInputs& d, const MeshView& host_mesh, const std::vector<int>& irreducible, bool plus,
              const ProcessSample& sample, bool matrix_elements, bool gpu_enum, std::int64_t capacity, std::size_t max_batch_modes,
              ProcessList& out, ScatteringStats& st) {
  const std::int64_t total = out.offset.back();
  out.mode2.resize(total);
  out.mode3.resize(total);
  if (matrix_elements) out.v2.resize(total);

  std::vector<ModeRange> batches = split_modes(out.offset, std::max<std::int64_t>(capacity, 1));
  if (max_batch_modes > 0) {  // finer batches on request (the seed's mode-by-mode strategy: 1 mode per batch)
    std::vector<ModeRange> finer;
    for (const auto& b : batches)
      for (int m = b.m0; m < b.m1; m += static_cast<int>(max_batch_modes))
        finer.push_back({m, std::min(b.m1, m + static_cast<int>(max_batch_modes))});
    batches = std::move(finer);
  }
  std::int64_t largest = 1;
  int widest = 1;
  for (const auto& b : batches) {
    largest = std::max(largest, out.offset[b.m1] - out.offset[b.m0]);
    widest = std::max(widest, b.size());
  }
  DeviceBuffer<int> dmode2(largest, "process list"), dmode3(largest, "process list");
  DeviceBuffer<double> dv2(matrix_elements ? largest : 1, "matrix elements");
  DeviceBuffer<Index> doffset(widest + 1, "process offsets");
  st.peak_device_bytes = std::max(st.peak_device_bytes, d.bytes() + dmode2.bytes() + dmode3.bytes() + dv2.bytes() + doffset.bytes());
  st.batches += static_cast<int>(batches.size());

  // Offsets of a batch relative to its first process.
  auto relative = [&](const ModeRange& b) {
    std::vector<std::int64_t> rel(b.size() + 1);
    for (int m = b.m0; m <= b.m1; ++m) rel[m - b.m0] = out.offset[m] - out.offset[b.m0];
    return rel;
  };
  auto host_fill = [&](const ModeRange& b) {
    WallTimer te;
    const auto rel = relative(b);
    fill_processes_cpu(host_mesh, irreducible, b, plus, sample, rel.data(), out.mode2.data() + out.offset[b.m0],
                       out.mode3.data() + out.offset[b.m0]);
    st.seconds_enumerate += te.seconds();
  };
  if (!gpu_enum && !batches.empty()) host_fill(batches[0]);
  for (std::size_t ib = 0; ib < batches.size(); ++ib) {
    const ModeRange b = batches[ib];
    const std::int64_t first = out.offset[b.m0], n = out.offset[b.m1] - first;
    const auto rel = relative(b);
    doffset.upload(std::span<const Index>(reinterpret_cast<const Index*>(rel.data()), rel.size()));
    if (gpu_enum) {
      enumerate_kernel<true><<<b.size(), kBlock>>>(d.mesh, d.irreducible.data(), b.m0, plus, sample, nullptr, doffset.data(),
                                                   dmode2.data(), dmode3.data());
      QUANTA_CUDA_LAUNCH_CHECK("enumerate_kernel<write>");
    } else {
      device::copy_to_device(dmode2.data(), out.mode2.data() + first, n * sizeof(int));
      device::copy_to_device(dmode3.data(), out.mode3.data() + first, n * sizeof(int));
    }
    if (n > 0 && matrix_elements) {
      vertex_kernel<<<blocks_for(n), kBlock>>>(d.mesh, d.fc, d.irreducible.data(), b.m0, b.size(), doffset.data(),
                                               dmode2.data(), dmode3.data(), n, plus, dv2.data());
      QUANTA_CUDA_LAUNCH_CHECK("vertex_kernel");
    }
    // The CPU enumerates the next batch while the GPU evaluates this one.
    if (!gpu_enum && ib + 1 < batches.size()) host_fill(batches[ib + 1]);
    QUANTA_CUDA_CHECK(cudaDeviceSynchronize());
    if (matrix_elements) device::copy_to_host(out.v2.data() + first, dv2.data(), n * sizeof(double));
    if (gpu_enum) {
      device::copy_to_host(out.mode2.data() + first, dmode2.data(), n * sizeof(int));
      device::copy_to_host(out.mode3.data() + first, dmode3.data(), n * sizeof(int));
    }
  }
}

}  // namespace

ThreePhononProcesses three_phonon_processes_cuda(const Crystal& crystal, const QGrid& grid, const Spectrum& s,
                                                 const Fc3Tables& tables, double scalebroad,
                                                 const ScatteringOptions& opt, ScatteringStats& st) {
  const int nmodes = grid.nlist() * s.nb;
  const bool gpu_enum = opt.enumeration != Enumeration::Cpu;
  st.enumeration = gpu_enum ? "gpu" : "cpu";
  MeshView host_mesh = make_mesh_view(crystal, grid, s, scalebroad, s.omega.data(), s.velocity.data(), s.eigenvectors.data());
  host_mesh.omega_max = opt.omega_max;
  WallTimer t;
  const DeviceInputs d = upload(crystal, grid, s, tables, scalebroad, opt.omega_max);
  GpuMemoryBudget budget;
  budget.user_limit_bytes = opt.gpu_mem_limit;
  // Capacity in processes of one batch from the budget left after the inputs (the offsets are small).
  const std::size_t usable = budget.usable_bytes();
  const std::size_t left = usable > d.bytes() ? usable - d.bytes() : 0;
  std::int64_t capacity = static_cast<std::int64_t>(left / (kBytesPerProcess + 1));
  if (opt.strategy == ScatteringStrategy::AllModes) capacity = std::numeric_limits<std::int64_t>::max();
  const ProcessSample sample = process_sample(opt);
  ThreePhononProcesses out;
  std::vector<std::int64_t> count_plus = count_sign(d, host_mesh, grid.irreducible, nmodes, true, sample, gpu_enum, st);
  std::vector<std::int64_t> count_minus = count_sign(d, host_mesh, grid.irreducible, nmodes, false, sample, gpu_enum, st);
  out.owner = share_out_modes(count_plus, count_minus, host_mesh, grid.irreducible, sample, opt.matrix_elements ? vertex_flop(tables) : 0,
                              &st.mode_cost);
  out.plus.offset = offsets_from_counts(count_plus);
  out.minus.offset = offsets_from_counts(count_minus);
  const std::int64_t most = std::max(out.plus.offset.back(), out.minus.offset.back());
  plan_three_phonon_lists(out.plus.offset.back(), out.minus.offset.back(), opt,
                          d.bytes() + static_cast<std::size_t>(std::min(most, capacity)) * kBytesPerProcess);
  for (bool plus : {true, false}) {
    ProcessList& l = plus ? out.plus : out.minus;
    std::size_t batch_modes = opt.strategy == ScatteringStrategy::Batched ? opt.batch_modes : 0;
    for (;;) {
      try {
        run_sign(d, host_mesh, grid.irreducible, plus, sample, opt.matrix_elements, gpu_enum, capacity, batch_modes, l, st);
        break;
      } catch (const OutOfDeviceMemory& e) {
        // A plan that did not fit after all (fragmentation, other processes): halve the batches and retry.
        const std::int64_t largest = l.offset.empty() ? 0 : l.offset.back();
        capacity = std::min<std::int64_t>(capacity, largest) / 2;
        if (capacity < 1) throw;
        if (!opt.quiet) std::fprintf(stderr, "[phonon] %s; retrying with batches of at most %lld processes\n", e.what(), static_cast<long long>(capacity));
      }
    }
  }
  if (opt.strategy == ScatteringStrategy::AllModes || (opt.strategy == ScatteringStrategy::Auto && st.batches == 2))
    st.strategy = "all-modes";
  else
    st.strategy = "batched";
  st.seconds_vertex = t.seconds() - st.seconds_enumerate;
  return out;
}

}  // namespace quanta::phonon::kernels
