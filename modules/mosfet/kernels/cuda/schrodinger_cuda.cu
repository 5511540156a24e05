// The Schroedinger kernels on the GPU (seed sec. 4): the matrices, the eigenvalues by multi-section (a warp
// per eigenvalue) or Newton-Raphson (a thread per eigenvalue), and the eigenvectors by inverse iteration (a
// thread per eigenvector, the seed's kernel A). Formulas: kernels/schrodinger.hpp, shared with the CPU.
#include "launch.cuh"
#include "quanta/core/cuda/check.cuh"

namespace quanta::mosfet::kernels {
namespace {

constexpr int kWarp = 32;
constexpr int kBuildBlock = 256;
constexpr int kNewtonBlock = 128;
// 32 threads per block for inverse iteration, as the seed: each thread keeps a long Thomas sweep in
// registers, and small blocks spread the few hundred threads over many SMs.
constexpr int kVectorBlock = 32;
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

// One thread per eigenvalue t = (i*3 + v)*ns + p: grid ceil(nx*3*ns / 128) x 128.
__global__ void newton_kernel(EigenProblem P) {  // P.eigenvalues [nx][3][ns]: the previous ones on entry
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= P.nx * valleys * P.ns) return;
  const int n = P.nz - 2, iv = t / P.ns, p = t % P.ns;
  const std::size_t m = static_cast<std::size_t>(iv) * n;
  P.eigenvalues[t] = eigenvalue_newton(P.d + m, P.e + m, n, p, P.eigenvalues[t], P.tol);
}

// One thread per eigenvector t = (i*3 + v)*ns + p, blocks of 32 (the seed's kernel A: the matrix is read
// from global memory at every iteration). P.eigenvectors [nx][3][ns][nz]; P.scratch [nx][3][ns][2 n].
__global__ void __launch_bounds__(kVectorBlock) inverse_iteration_kernel(EigenProblem P) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= P.nx * valleys * P.ns) return;
  const int n = P.nz - 2, iv = t / P.ns;
  const std::size_t m = static_cast<std::size_t>(iv) * n;
  double* psi = P.eigenvectors + static_cast<std::size_t>(t) * P.nz;
  double* q = psi + 1;  // interior nodes
  double* y = P.scratch + static_cast<std::size_t>(t) * 2 * n;
  if (!P.warm)
    for (int j = 0; j < n; ++j) q[j] = start_vector(j, n);
  inverse_iteration(P.d + m, P.e + m, n, P.eigenvalues[t], P.vector_tol, P.max_vector_iter, q, y, y + n);
  normalise_eigenvector(q, n, P.dz);
  psi[0] = psi[P.nz - 1] = 0.0;
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
  const std::size_t total = static_cast<std::size_t>(p.nx) * valleys * p.ns;
  if (total == 0) return;
  newton_kernel<<<blocks(total, kNewtonBlock), kNewtonBlock>>>(p);
  QUANTA_CUDA_LAUNCH_CHECK("mosfet eigenvalues_NR");
}

void eigenvectors_cuda(const EigenProblem& p) {
  const std::size_t total = static_cast<std::size_t>(p.nx) * valleys * p.ns;
  if (total == 0) return;
  inverse_iteration_kernel<<<blocks(total, kVectorBlock), kVectorBlock>>>(p);
  QUANTA_CUDA_LAUNCH_CHECK("mosfet tridiag_Thomas (inverse iteration)");
}

}  // namespace quanta::mosfet::kernels
