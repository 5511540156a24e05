// The linear-system kernels on the GPU: the rows (the seed's cuda_constrlinsys), the SRJ solver (seed
// Algorithm 1: a warp per row for the banded product fused with the relaxed update, then a joint
// infinity-norm reduction per cycle), the Newton residual, the potential change and the block-Thomas
// direct solver. Formulas: kernels/linear_system.hpp, shared with the CPU.
#include <cub/block/block_reduce.cuh>

#include <algorithm>
#include <string>
#include <utility>

#include "launch.cuh"
#include "quanta/core/buffer.hpp"
#include "quanta/core/cuda/check.cuh"
#include "quanta/core/error.hpp"

namespace quanta::mosfet::kernels {
namespace {

constexpr int kWarp = 32;
constexpr int kBlock = 256;                     // threads of the row and reduction kernels
constexpr int kRowsPerBlock = kBlock / kWarp;   // warp-per-row kernels: rows per block
constexpr int kReduceBlocks = 512;              // block partial maxima of a reduction (grid-stride beyond)
constexpr int kColumnThreads = 1024;            // the direct solver's one block per x column
constexpr unsigned kFullMask = 0xffffffffu;

using BlockReduce = cub::BlockReduce<double, kBlock>;

struct MaxOp {
  __device__ double operator()(double a, double b) const { return fmax(a, b); }
};

unsigned blocks(std::size_t n, int per_block) { return static_cast<unsigned>((n + per_block - 1) / per_block); }
unsigned reduce_blocks(std::size_t n, int per_block) {
  return std::max(1u, std::min(static_cast<unsigned>(kReduceBlocks), blocks(n, per_block)));
}

// --- construction ------------------------------------------------------------------------------------

// One thread per row (i, j): grid ceil(nx*nz / 256) x 256. b.out.rows [nx*nz][nz+2]; rhs, diag [nx*nz].
__global__ void construct_system_kernel(SystemBuild b) {
  const std::size_t t = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (t >= static_cast<std::size_t>(b.nx) * b.nz) return;
  system_row(b, static_cast<int>(t / b.nz), static_cast<int>(t % b.nz));
}

// --- reductions ---------------------------------------------------------------------------------------

// The block's maximum of v, valid in thread 0. Two calls in one kernel need a __syncthreads between them
// (they share the temporary storage).
__device__ double block_max(double v) {
  __shared__ typename BlockReduce::TempStorage tmp;
  return BlockReduce(tmp).Reduce(v, MaxOp());
}

// One block of 256 threads: out[c] = max_k partial[c][k] for c < count. partial [count][blocks].
__global__ void final_max_kernel(const double* __restrict__ partial, int nblocks, int count, double* __restrict__ out) {
  for (int c = 0; c < count; ++c) {
    double m = 0.0;
    for (int k = threadIdx.x; k < nblocks; k += blockDim.x) m = fmax(m, partial[c * nblocks + k]);
    m = block_max(m);
    if (threadIdx.x == 0) out[c] = m;
    __syncthreads();
  }
}

// |r|_inf and |u|_inf together (the seed's joint reduction): grid-stride over n, block partial maxima
// partial [2][gridDim.x] (r's, then u's).
__global__ void joint_max_kernel(std::size_t n, const double* __restrict__ r, const double* __restrict__ u,
                                 double* __restrict__ partial) {
  double a = 0.0, b = 0.0;
  for (std::size_t k = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; k < n;
       k += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    a = fmax(a, fabs(r[k]));
    b = fmax(b, fabs(u[k]));
  }
  a = block_max(a);
  __syncthreads();
  b = block_max(b);
  if (threadIdx.x == 0) {
    partial[blockIdx.x] = a;
    partial[gridDim.x + blockIdx.x] = b;
  }
}

// |a - b|_inf: grid-stride over n, block partial maxima partial [gridDim.x].
__global__ void difference_max_kernel(std::size_t n, const double* __restrict__ a, const double* __restrict__ b,
                                      double* __restrict__ partial) {
  double m = 0.0;
  for (std::size_t k = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; k < n;
       k += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    m = fmax(m, fabs(a[k] - b[k]));
  m = block_max(m);
  if (threadIdx.x == 0) partial[blockIdx.x] = m;
}

// Reduces partial [count][nblocks] (in scratch) to count numbers and brings them to the host: one copy.
void finish_max(double* scratch, unsigned nblocks, int count, double* host) {
  double* out = scratch + 2 * kReduceBlocks;
  final_max_kernel<<<1, kBlock>>>(scratch, static_cast<int>(nblocks), count, out);
  QUANTA_CUDA_LAUNCH_CHECK("mosfet final max reduction");
  device::copy_to_host(host, out, count * sizeof(double));
}

// --- the banded product ------------------------------------------------------------------------------

// (A u)_r by one warp, the same on every lane: the lanes stride over the nz+2 stored entries of row r
// (coalesced: a row is contiguous) and the partial sums meet by an xor-shuffle butterfly. The x-neighbour
// entries are read only when non-zero, as row_product (the first and last columns have no neighbour on one
// side). s.rows [nx*nz][nz+2]; u [nx*nz].
__device__ double warp_row_product(const LinearSystem& s, std::size_t r, const double* __restrict__ u, int lane) {
  const int nz = s.nz, w = nz + 2;
  const std::size_t i = r / nz, j = r % nz;
  const double* row = s.rows + r * w;
  const double* col = u + i * nz;
  double sum = 0.0;
  for (int k = lane; k < w; k += kWarp) {
    const double a = row[k];
    if (k < nz) sum += a * col[k];
    else if (a != 0.0) sum += a * u[(k == nz ? i - 1 : i + 1) * nz + j];
  }
  for (int offset = kWarp / 2; offset > 0; offset /= 2) sum += __shfl_xor_sync(kFullMask, sum, offset);
  return sum;
}

// One relaxed Jacobi step (seed eq. 13-16; the seed's cuda_matvec_product and cuda_update_x fused):
// r = b - A u, u_next = u + omega r. One warp per row: grid ceil(nx*nz / 8) x 256. The column of u a
// warp reads is read by the nz warps of that column's rows, so it is served from L1/L2 rather than staged
// in shared memory as in the seed. u, u_next, r: [nx*nz], u_next and r distinct from u.
__global__ void srj_step_kernel(LinearSystem s, const double* __restrict__ u, double omega, double* __restrict__ u_next,
                                double* __restrict__ r) {
  const std::size_t row = blockIdx.x * static_cast<std::size_t>(kRowsPerBlock) + threadIdx.x / kWarp;
  if (row >= static_cast<std::size_t>(s.nx) * s.nz) return;  // a whole warp
  const int lane = threadIdx.x % kWarp;
  const double ax = warp_row_product(s, row, u, lane);
  if (lane == 0) {
    const double res = s.rhs[row] - ax;
    r[row] = res;
    u_next[row] = u[row] + omega * res;
  }
}

// |diag (b - A u)|_inf: one warp per row, grid-stride over the rows, block partial maxima partial
// [gridDim.x]. Blocks of 256 (8 warps).
__global__ void newton_residual_kernel(LinearSystem s, const double* __restrict__ u, double* __restrict__ partial) {
  const std::size_t n = static_cast<std::size_t>(s.nx) * s.nz;
  const int lane = threadIdx.x % kWarp;
  double m = 0.0;
  for (std::size_t row = blockIdx.x * static_cast<std::size_t>(kRowsPerBlock) + threadIdx.x / kWarp; row < n;
       row += static_cast<std::size_t>(gridDim.x) * kRowsPerBlock) {
    const double ax = warp_row_product(s, row, u, lane);
    if (lane == 0) m = fmax(m, fabs(s.diag[row] * (s.rhs[row] - ax)));
  }
  m = block_max(m);
  if (threadIdx.x == 0) partial[blockIdx.x] = m;
}

// --- the direct solver ---------------------------------------------------------------------------------
// Block Thomas over the x columns as direct_solve_cpu (same recurrences, same no-pivoting LU, the same
// zero-pivot test):
//   S_0 = M_0, y_0 = b_0;  S_i = M_i - diag(W_i) S_{i-1}^-1 diag(E_{i-1}),  y_i = b_i - diag(W_i) S_{i-1}^-1 y_{i-1};
//   u_{nx-1} = S^-1 y, u_i = S_i^-1 (y_i - diag(E_i) u_{i+1}).
// The forward sweep is one launch per column of one block of 1024 threads, its data (S_{i-1}, S_i, the
// solves: 3 nz^2 doubles) L2-resident: (1) one warp per right-hand side solves S_{i-1} x = E_{i-1,c} e_c
// (c < nz) and S_{i-1} x = y_{i-1} (c = nz); (2) every thread forms entries of S_i and y_i; (3) the block
// factors S_i in place, pivot step by pivot step with __syncthreads between. The back substitution is one
// warp walking the columns. The blocks are stored column-major, so that the triangular solves walk
// columns of L and U contiguously (coalesced over a warp's lanes). Summation orders differ from the CPU's
// row-oriented loops, hence agreement to rounding, not bit for bit.

// Solves (L U) x = b in place by one warp: a: [n][n] column-major, L unit lower, U upper; x: [n]
// (device memory visible to the warp), b on entry. Entries of b before `first` must be zero (the forward
// sweep starts there). Column-oriented: after x_k is final, the lanes update the entries below (L) or
// above (U) it; __syncwarp orders the global-memory writes between steps.
__device__ void lu_solve_warp(const double* __restrict__ a, int n, double* x, int lane, int first) {
  for (int k = first; k < n - 1; ++k) {
    const double xk = x[k];
    if (xk != 0.0)
      for (int r = k + 1 + lane; r < n; r += kWarp) x[r] -= a[static_cast<std::size_t>(k) * n + r] * xk;
    __syncwarp();
  }
  for (int k = n - 1; k >= 0; --k) {
    const double xk = x[k] / a[static_cast<std::size_t>(k) * n + k];
    __syncwarp();  // every lane has read x[k] before lane 0 overwrites it
    if (lane == 0) x[k] = xk;
    for (int r = lane; r < k; r += kWarp) x[r] -= a[static_cast<std::size_t>(k) * n + r] * xk;
    __syncwarp();
  }
}

// Column i of the forward sweep: one block of 1024 threads (see above). s.rows [nx*nz][nz+2], s.rhs
// [nx*nz]; w.lu [nx][nz][nz] column-major; w.y [nx][nz]; w.solves [nz+1][nz]; w.failure [2], w.pivot [1].
__global__ void __launch_bounds__(kColumnThreads) block_thomas_column_kernel(LinearSystem s, int i, DirectWork w) {
  if (w.failure[0] != 0) return;  // an earlier column met a zero pivot; the host reports it
  const int nz = s.nz, width = nz + 2;
  const std::size_t block = static_cast<std::size_t>(nz) * nz;
  double* S = w.lu + i * block;
  double* y = w.y + static_cast<std::size_t>(i) * nz;
  const double* rows = s.rows + static_cast<std::size_t>(i) * nz * width;  // [nz][nz+2]: column i's rows
  const int lane = threadIdx.x % kWarp, warp = threadIdx.x / kWarp, warps = blockDim.x / kWarp;
  // (1) x_c = S_{i-1}^-1 E_{i-1,c} e_c and x_nz = S_{i-1}^-1 y_{i-1}.
  if (i > 0) {
    const double* prev_rows = rows - static_cast<std::size_t>(nz) * width;
    for (int c = warp; c <= nz; c += warps) {
      double* x = w.solves + static_cast<std::size_t>(c) * nz;
      const double ec = c < nz ? prev_rows[static_cast<std::size_t>(c) * width + nz + 1] : 0.0;
      for (int k = lane; k < nz; k += kWarp) x[k] = c < nz ? (k == c ? ec : 0.0) : y[static_cast<std::size_t>(k) - nz];
      __syncwarp();
      if (c == nz || ec != 0.0) lu_solve_warp(S - block, nz, x, lane, c < nz ? c : 0);
    }
    __syncthreads();
  }
  // (2) S_i = M_i - W_i X, y_i = b_i - W_i x_nz (a zero W_j leaves row j alone, as on the CPU).
  for (std::size_t t = threadIdx.x; t < block; t += blockDim.x) {
    const int c = static_cast<int>(t / nz), j = static_cast<int>(t % nz);
    const double* row = rows + static_cast<std::size_t>(j) * width;
    double v = row[c];
    if (i > 0 && row[nz] != 0.0) v -= row[nz] * w.solves[t];
    S[t] = v;
  }
  for (int j = threadIdx.x; j < nz; j += blockDim.x) {
    const double* row = rows + static_cast<std::size_t>(j) * width;
    double v = s.rhs[static_cast<std::size_t>(i) * nz + j];
    if (i > 0 && row[nz] != 0.0) v -= row[nz] * w.solves[block + j];
    y[j] = v;
  }
  __syncthreads();
  // (3) LU without pivoting (lu_factor of the CPU, column-major).
  for (int k = 0; k < nz; ++k) {
    double* col_k = S + static_cast<std::size_t>(k) * nz;
    const double piv = col_k[k];  // every thread reads the same value: the return below is uniform
    if (!(fabs(piv) > 1e-300)) {
      if (threadIdx.x == 0) {
        w.failure[0] = i + 1;
        w.failure[1] = k;
        *w.pivot = piv;
      }
      return;
    }
    for (int r = k + 1 + threadIdx.x; r < nz; r += blockDim.x) col_k[r] /= piv;
    __syncthreads();
    const int m = nz - k - 1;  // the trailing block rows/columns k+1..nz-1
    for (int t = threadIdx.x; t < m * m; t += blockDim.x) {
      const int c = k + 1 + t / m, r = k + 1 + t % m;
      const double l = col_k[r];
      if (l != 0.0) S[static_cast<std::size_t>(c) * nz + r] -= l * S[static_cast<std::size_t>(c) * nz + k];
    }
    __syncthreads();
  }
}

// The back substitution: one warp, columns nx-1 down to 0. u [nx*nz]; w as above.
__global__ void back_substitution_kernel(LinearSystem s, double* __restrict__ u, DirectWork w) {
  if (w.failure[0] != 0) return;
  const int nx = s.nx, nz = s.nz, width = nz + 2, lane = threadIdx.x;
  const std::size_t block = static_cast<std::size_t>(nz) * nz;
  for (int i = nx - 1; i >= 0; --i) {
    double* ui = u + static_cast<std::size_t>(i) * nz;
    const double* yi = w.y + static_cast<std::size_t>(i) * nz;
    for (int j = lane; j < nz; j += kWarp) {
      const double ej = i + 1 < nx ? s.rows[(static_cast<std::size_t>(i) * nz + j) * width + nz + 1] : 0.0;
      ui[j] = yi[j] - (ej != 0.0 ? ej * ui[static_cast<std::size_t>(nz) + j] : 0.0);
    }
    __syncwarp();
    lu_solve_warp(w.lu + i * block, nz, ui, lane, 0);
  }
}

}  // namespace

std::size_t reduction_scratch() { return 2 * static_cast<std::size_t>(kReduceBlocks) + 2; }

void construct_system_cuda(const SystemBuild& b) {
  const std::size_t n = static_cast<std::size_t>(b.nx) * b.nz;
  if (n == 0) return;
  construct_system_kernel<<<blocks(n, kBlock), kBlock>>>(b);
  QUANTA_CUDA_LAUNCH_CHECK("mosfet constr_linsys");
}

double newton_residual_cuda(const LinearSystem& s, const double* u, double* scratch) {
  const unsigned nb = reduce_blocks(s.size(), kRowsPerBlock);
  newton_residual_kernel<<<nb, kBlock>>>(s, u, scratch);
  QUANTA_CUDA_LAUNCH_CHECK("mosfet newton_residual");
  double m = 0.0;
  finish_max(scratch, nb, 1, &m);
  return m;
}

double max_abs_difference_cuda(std::size_t n, const double* a, const double* b, double* scratch) {
  const unsigned nb = reduce_blocks(n, kBlock);
  difference_max_kernel<<<nb, kBlock>>>(n, a, b, scratch);
  QUANTA_CUDA_LAUNCH_CHECK("mosfet potential change");
  double m = 0.0;
  finish_max(scratch, nb, 1, &m);
  return m;
}

SrjStats srj_solve_cuda(const LinearSystem& s, double* u, double tol, int max_cycles, const std::vector<double>& omegas,
                        const SrjWork& work) {
  const std::size_t n = s.size();
  const unsigned step_blocks = blocks(n, kRowsPerBlock), norm_blocks = reduce_blocks(n, kBlock);
  double* cur = u;
  double* other = work.other;
  SrjStats st;
  while (st.cycles < max_cycles && n > 0) {
    for (double omega : omegas) {
      srj_step_kernel<<<step_blocks, kBlock>>>(s, cur, omega, other, work.residual);
      QUANTA_CUDA_LAUNCH_CHECK("mosfet srj step");
      std::swap(cur, other);
      ++st.steps;
    }
    ++st.cycles;
    // The residual of the cycle's last step and the new iterate: one reduction, one copy of two numbers.
    joint_max_kernel<<<norm_blocks, kBlock>>>(n, work.residual, cur, work.scratch);
    QUANTA_CUDA_LAUNCH_CHECK("mosfet srj joint max norm");
    double norms[2];
    finish_max(work.scratch, norm_blocks, 2, norms);
    st.residual = norms[0] / std::max(norms[1], 1e-300);
    if (st.residual <= tol) {
      st.converged = true;
      break;
    }
  }
  if (cur != u) QUANTA_CUDA_CHECK(cudaMemcpy(u, cur, n * sizeof(double), cudaMemcpyDeviceToDevice));
  return st;
}

void direct_solve_cuda(const LinearSystem& s, double* u, const DirectWork& work) {
  if (s.nx == 0 || s.nz == 0) return;
  device::fill_zero(work.failure, 2 * sizeof(int));
  for (int i = 0; i < s.nx; ++i) {
    block_thomas_column_kernel<<<1, kColumnThreads>>>(s, i, work);
    QUANTA_CUDA_LAUNCH_CHECK("mosfet direct solve (block Thomas column)");
  }
  back_substitution_kernel<<<1, kWarp>>>(s, u, work);
  QUANTA_CUDA_LAUNCH_CHECK("mosfet direct solve (back substitution)");
  int failure[2] = {0, 0};
  device::copy_to_host(failure, work.failure, sizeof failure);
  if (failure[0] != 0) {
    double piv = 0.0;
    device::copy_to_host(&piv, work.pivot, sizeof piv);
    throw Error("mosfet direct solver: zero pivot in a column block at row " + std::to_string(failure[1]) + ": " +
                std::to_string(piv) + " (x column " + std::to_string(failure[0] - 1) + ")");
  }
}

}  // namespace quanta::mosfet::kernels
