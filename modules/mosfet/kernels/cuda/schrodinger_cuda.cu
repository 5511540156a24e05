// The Schroedinger kernels on the GPU (seed sec. 4): the matrices, the eigenvalues by multi-section (a warp
// per eigenvalue) or Newton-Raphson (a thread per eigenvalue), and the eigenvectors by inverse iteration (a
// thread per eigenvector, the seed's kernel A). Formulas: kernels/schrodinger.hpp, shared with the CPU.
#include <algorithm>

#include "launch.cuh"
#include "quanta/core/cuda/check.cuh"

namespace quanta::mosfet::kernels {
namespace {

constexpr int kWarp = 32;
constexpr int kBuildBlock = 256;
// Newton and inverse iteration: about one warp per block, whole matrices' eigenpairs in each (ns = 6: 5
// matrices, 30 threads), as the seed's 32-thread blocks: each thread runs long serial recurrences, and
// small blocks spread the few hundred threads over many SMs.
constexpr int kGroupThreads = 32;
// At most this many warps (eigenvalues of one matrix) share a block of the multi-section kernel.
constexpr int kMaxMultisectionWarps = 8;
// (d, e) of one matrix are staged in shared memory when they fit the default 48 KiB without opt-in.
constexpr std::size_t kSharedLimit = 48 * 1024;

unsigned blocks(std::size_t n, int block) { return static_cast<unsigned>((n + block - 1) / block); }

// One thread per matrix entry (i, v, jj): grid ceil(nx*3*n / 256) x 256.
__global__ void build_schrodinger_kernel(SchrodingerBuild b) {  // b.d, b.e: [nx][3][n], n = nz - 2
  const int n = b.nz - 2;
  const std::size_t t = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (t >= static_cast<std::size_t>(b.nx) * valleys * n) return;
  const int jj = static_cast<int>(t % n);
  const int iv = static_cast<int>(t / n);
  schrodinger_entries(b, iv / valleys, iv % valleys, jj);
}

// One warp per eigenvalue (i, v, p) (seed sec. 4.1.1, eq. 19-20). Block (blockIdx.x = i*3 + v,
// blockIdx.y = chunk) holds the warps of eigenvalues p = chunk*W .. chunk*W + W-1 of that one matrix, so
// its (d, e) are read from global memory once per block and then served from shared memory.
// Each step, lane k counts the Sturm sequence at x + (k+1) h (lanes take k, k+32, ... when n_multi > 33);
// best = max{k : count <= p} (or -1) by a shuffle reduction; x += (best+1) h. The step count and the
// arithmetic are those of eigenvalues_multisection_cpu.
// Dynamic shared memory: [2][n] doubles when `staged`, else none (the matrix is read from global memory).
__global__ void multisection_kernel(EigenProblem P, bool staged) {  // P.d, P.e [nx][3][n]; P.eigenvalues [nx][3][ns]
  extern __shared__ double matrix[];  // [2][n]: d then e
  const int n = P.nz - 2, iv = blockIdx.x;
  const double* d = P.d + static_cast<std::size_t>(iv) * n;
  const double* e = P.e + static_cast<std::size_t>(iv) * n;
  if (staged) {
    for (int k = threadIdx.x; k < n; k += blockDim.x) {
      matrix[k] = d[k];
      matrix[n + k] = e[k];
    }
    __syncthreads();
    d = matrix;
    e = matrix + n;
  }
  const int lane = threadIdx.x % kWarp;
  const int p = blockIdx.y * (blockDim.x / kWarp) + threadIdx.x / kWarp;
  if (p >= P.ns) return;  // a whole warp: the shuffles below always see 32 lanes
  double lo, hi;
  gershgorin(d, e, n, &lo, &hi);  // every lane alike: x and h stay identical across the warp
  double x = lo, h = hi - lo;
  const int steps = multisection_steps(h, P.tol, P.n_multi);
  for (int s = 0; s < steps; ++s) {
    h /= P.n_multi;
    int best = -1;
    for (int k = lane; k < P.n_multi - 1; k += kWarp)
      if (sturm_count(d, e, n, x + (k + 1) * h) <= p) best = k;
    for (int offset = kWarp / 2; offset > 0; offset /= 2) best = max(best, __shfl_xor_sync(0xffffffffu, best, offset));
    x += (best + 1) * h;
  }
  if (lane == 0) P.eigenvalues[static_cast<std::size_t>(iv) * P.ns + p] = x + 0.5 * h;
}

// The Newton and inverse-iteration kernels: block b holds the ns eigenpairs of `group` consecutive matrices
// iv = b group ..., a thread each (grid ceil(nx*3 / group) x group*ns). When `staged`, the block's matrices
// are first copied to shared memory: the serial recurrences (Sturm counts, Newton, Thomas) then read
// them at shared-memory latency instead of each step waiting on a global load. Dynamic shared memory:
// [group][2][n] when `staged`.
struct Group {
  int iv = 0;            // this thread's matrix
  int p = 0;             // its eigenpair
  const double* d = nullptr;
  const double* e = nullptr;
  bool active = false;   // false for the threads past the last matrix
};

__device__ Group stage_group(const EigenProblem& P, int group, bool staged, double* matrices) {
  const int n = P.nz - 2, first = blockIdx.x * group, count = min(group, P.nx * valleys - first);
  if (staged) {
    const std::size_t m0 = static_cast<std::size_t>(first) * n;
    for (int k = threadIdx.x; k < count * n; k += blockDim.x) {
      matrices[k / n * 2 * n + k % n] = P.d[m0 + k];
      matrices[k / n * 2 * n + n + k % n] = P.e[m0 + k];
    }
    __syncthreads();
  }
  Group g;
  const int local = threadIdx.x / P.ns;
  g.active = local < count;
  g.iv = first + local;
  g.p = threadIdx.x % P.ns;
  const std::size_t m = static_cast<std::size_t>(g.iv) * n;
  g.d = staged ? matrices + 2 * n * local : P.d + m;
  g.e = staged ? g.d + n : P.e + m;
  return g;
}

__global__ void newton_kernel(EigenProblem P, int group, bool staged, bool) {  // P.eigenvalues [nx][3][ns]: the previous ones on entry
  extern __shared__ double matrices[];
  const Group g = stage_group(P, group, staged, matrices);
  if (!g.active) return;
  const std::size_t t = static_cast<std::size_t>(g.iv) * P.ns + g.p;
  P.eigenvalues[t] = eigenvalue_newton(g.d, g.e, P.nz - 2, g.p, P.eigenvalues[t], P.tol);
}

// Inverse iteration (the seed's kernel A, one thread per eigenvector). P.eigenvectors [nx][3][ns][nz];
// P.scratch [nx][3][ns][2 n]. When `work_shared`, each thread's vector and Thomas scratch (3n doubles,
// rows 3n + 1 apart against bank conflicts) sit in shared memory after the matrices: the sweeps store and
// reload them at every step, which through global memory would each wait on L2.
__global__ void inverse_iteration_kernel(EigenProblem P, int group, bool staged, bool work_shared) {
  extern __shared__ double matrices[];
  const Group g = stage_group(P, group, staged, matrices);
  if (!g.active) return;
  const int n = P.nz - 2;
  const std::size_t t = static_cast<std::size_t>(g.iv) * P.ns + g.p;
  double* psi = P.eigenvectors + t * P.nz;
  double* q = psi + 1;  // interior nodes
  double* y = P.scratch + t * 2 * n;
  if (work_shared) {
    double* mine = matrices + (staged ? 2 * n * group : 0) + static_cast<std::size_t>(threadIdx.x) * (3 * n + 1);
    if (P.warm)
      for (int j = 0; j < n; ++j) mine[j] = q[j];
    q = mine;
    y = mine + n;
  }
  if (!P.warm)
    for (int j = 0; j < n; ++j) q[j] = start_vector(j, n);
  const int it = inverse_iteration(g.d, g.e, n, P.eigenvalues[t], P.vector_tol, P.max_vector_iter, q, y, y + n);
  normalise_eigenvector(q, n, P.dz);
  if (it < 0) P.eigenvalues[t] = NAN;  // not an eigenpair: the block reports it (as eigenvectors_cpu)
  if (work_shared)
    for (int j = 0; j < n; ++j) psi[1 + j] = q[j];
  psi[0] = psi[P.nz - 1] = 0.0;
}

// Launches one of the two group kernels over all matrices, with per_thread doubles of shared work for each
// thread where they fit (after the matrices, staged where they fit the default 48 KiB).
void launch_grouped(void (*kernel)(EigenProblem, int, bool, bool), const EigenProblem& p, int per_thread) {
  const int group = std::max(1, kGroupThreads / p.ns);  // matrices per block
  const std::size_t matrix_bytes = static_cast<std::size_t>(group) * 2 * p.n() * sizeof(double);
  const bool staged = matrix_bytes <= kSharedLimit;
  const std::size_t work_bytes = static_cast<std::size_t>(group) * p.ns * per_thread * sizeof(double);
  const std::size_t base = staged ? matrix_bytes : 0;
  const bool work_shared = per_thread > 0 && base + work_bytes <= shared_memory_optin();
  const std::size_t bytes = base + (work_shared ? work_bytes : 0);
  if (bytes > kSharedLimit)  // above 48 KiB a kernel must opt in
    QUANTA_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes)));
  kernel<<<blocks(static_cast<std::size_t>(p.nx) * valleys, group), group * p.ns, bytes>>>(p, group, staged, work_shared);
}

}  // namespace

void build_schrodinger_cuda(const SchrodingerBuild& b) {
  const std::size_t total = static_cast<std::size_t>(b.nx) * valleys * (b.nz - 2);
  if (total == 0) return;
  build_schrodinger_kernel<<<blocks(total, kBuildBlock), kBuildBlock>>>(b);
  QUANTA_CUDA_LAUNCH_CHECK("mosfet build_schrodinger");
}

void eigenvalues_multisection_cuda(const EigenProblem& p) {
  const int n = p.n();
  if (p.nx == 0 || p.ns == 0) return;
  // Blocks of W warps, W <= 8 balanced over the chunks: ns = 6 gives one block of 6 warps per (i, v) (the
  // seed's layout), ns = 12 two blocks of 6.
  const int chunks = (p.ns + kMaxMultisectionWarps - 1) / kMaxMultisectionWarps;
  const int warps = (p.ns + chunks - 1) / chunks;
  const std::size_t bytes = 2 * static_cast<std::size_t>(n) * sizeof(double);
  const bool staged = bytes <= kSharedLimit;
  const dim3 grid(static_cast<unsigned>(p.nx * valleys), static_cast<unsigned>(chunks));
  multisection_kernel<<<grid, warps * kWarp, staged ? bytes : 0>>>(p, staged);
  QUANTA_CUDA_LAUNCH_CHECK("mosfet eigenvalues_multisection");
}

void eigenvalues_newton_cuda(const EigenProblem& p) {
  if (p.nx == 0 || p.ns == 0) return;
  launch_grouped(newton_kernel, p, 0);
  QUANTA_CUDA_LAUNCH_CHECK("mosfet eigenvalues_NR");
}

__global__ void overlaps_kernel(Overlaps o) {
  const int nvp = valleys * o.subbands;
  const long t = blockIdx.x * static_cast<long>(blockDim.x) + threadIdx.x;
  if (t >= static_cast<long>(o.nx) * nvp * nvp) return;
  overlap_entry(o, static_cast<int>(t / (nvp * nvp)), static_cast<int>(t / nvp % nvp), static_cast<int>(t % nvp));
}

void overlaps_cuda(const Overlaps& o) {
  const long n = static_cast<long>(o.nx) * valleys * o.subbands * valleys * o.subbands;
  if (n == 0) return;
  overlaps_kernel<<<static_cast<unsigned>((n + kBuildBlock - 1) / kBuildBlock), kBuildBlock>>>(o);
  QUANTA_CUDA_LAUNCH_CHECK("mosfet overlaps");
}

void eigenvectors_cuda(const EigenProblem& p) {
  if (p.nx == 0 || p.ns == 0) return;
  launch_grouped(inverse_iteration_kernel, p, 3 * p.n() + 1);
  QUANTA_CUDA_LAUNCH_CHECK("mosfet tridiag_Thomas (inverse iteration)");
}

}  // namespace quanta::mosfet::kernels
