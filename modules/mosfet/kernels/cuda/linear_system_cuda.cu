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
constexpr int kColumnThreads = 1024;            // the direct solver's back substitution, large blocks
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
// Block Thomas over the x columns with the recurrences of direct_solve_cpu:
//   S_0 = M_0, y_0 = b_0;  S_i = M_i - diag(W_i) S_{i-1}^-1 diag(E_{i-1}),  y_i = b_i - diag(W_i) S_{i-1}^-1 y_{i-1};
//   u_{nx-1} = S_{nx-1}^-1 y_{nx-1},  u_i = S_i^-1 (y_i - diag(E_i) u_{i+1}).
// The sweep is sequential over the columns and each block is small (nz^2 doubles), so the GPU work is
// latency-bound: triangular solves (2 nz dependent steps per right-hand side) would dominate. Instead one
// thread block inverts S_i by Gauss-Jordan elimination without pivoting (the same pivots, in the same
// order, as the CPU's LU without pivoting, hence the same zero-pivot test): nz steps of fully parallel
// O(nz^2) updates. S_i^-1 diag(E_i) and S_i^-1 y_i then are an elementwise product and a matrix-vector
// product, and so is each back-substitution step. The results agree with the LU solves of the CPU to
// rounding (the blocks are diagonally dominant after the D^-1 scaling), not bit for bit.
// Two variants of the inversion: S_i in registers (nz <= 32 kMaxColumnSlots, the seed's grids), and S_i
// in shared memory, or in global memory (L2-resident) where it does not fit, for larger nz.

constexpr int kRegisterWarps = 16;   // the register variant's block: 512 threads, up to 128 registers each
constexpr int kMaxColumnSlots = 5;   // its largest tile: 10 x 5 entries per thread, nz <= 160

// Row j of the row-major n x n matrix a times v, by one warp (lanes over the row: coalesced), the same
// on every lane.
__device__ double warp_dot_row(const double* __restrict__ a, int n, int j, const double* v, int lane) {
  const double* row = a + static_cast<std::size_t>(j) * n;
  double sum = 0.0;
  for (int c = lane; c < n; c += kWarp) sum += row[c] * v[c];
  for (int offset = kWarp / 2; offset > 0; offset /= 2) sum += __shfl_xor_sync(kFullMask, sum, offset);
  return sum;
}

// The arrays of column i of the forward sweep.
struct Column {
  const double* rows;       // [nz][nz+2] column i's rows
  const double* prev_rows;  // [nz][nz+2] column i-1's rows (E_{i-1}); null for i = 0
  const double* prev;       // [nz][nz] S_{i-1}^-1; null for i = 0
  double* inverse;          // [nz][nz] S_i^-1, row-major
  double* y;                // [nz] y_i (y_{i-1} just before it)
};

__device__ Column column(const LinearSystem& s, const DirectWork& w, int i) {
  const int nz = s.nz, width = nz + 2;
  const std::size_t block = static_cast<std::size_t>(nz) * nz;
  Column c;
  c.rows = s.rows + static_cast<std::size_t>(i) * nz * width;
  c.prev_rows = i > 0 ? c.rows - static_cast<std::size_t>(nz) * width : nullptr;
  c.inverse = w.inverse + i * block;
  c.prev = i > 0 ? c.inverse - block : nullptr;
  c.y = w.y + static_cast<std::size_t>(i) * nz;
  return c;
}

// Entry (j, c) of S_i = M_i - W_i (S_{i-1}^-1 E_{i-1}); a zero W_j or E_c leaves the term out, as on the CPU.
__device__ double schur_entry(const Column& col, int nz, int j, int c) {
  const int width = nz + 2;
  const double* row = col.rows + static_cast<std::size_t>(j) * width;
  double v = row[c];
  if (col.prev) {
    const double wj = row[nz];
    if (wj != 0.0) {
      const double ec = col.prev_rows[static_cast<std::size_t>(c) * width + nz + 1];
      if (ec != 0.0) v -= wj * (col.prev[static_cast<std::size_t>(j) * nz + c] * ec);
    }
  }
  return v;
}

// y_i = b_i - W_i (S_{i-1}^-1 y_{i-1}): a warp per row j.
__device__ void next_rhs(const LinearSystem& s, int i, const Column& col, int lane, int warp, int warps) {
  const int nz = s.nz, width = nz + 2;
  for (int j = warp; j < nz; j += warps) {
    const double wj = col.rows[static_cast<std::size_t>(j) * width + nz];
    const double t = (col.prev && wj != 0.0) ? warp_dot_row(col.prev, nz, j, col.y - nz, lane) : 0.0;
    if (lane == 0) col.y[j] = s.rhs[static_cast<std::size_t>(i) * nz + j] - (t != 0.0 ? wj * t : 0.0);
  }
}

// Records a zero pivot (thread 0) for the host.
__device__ void report_zero_pivot(const DirectWork& w, int i, int k, double p) {
  if (threadIdx.x == 0) {
    w.failure[0] = i + 1;
    w.failure[1] = k;
    *w.pivot = p;
  }
}

// The forward sweep with S_i in registers: one block of 16 warps walking the columns i = 0..nx-1; thread
// (warp, lane) holds the entries S(warp + 16 a, lane + 32 b), a < 2 kCols, b < kCols (zero outside nz).
// Gauss-Jordan step k reads row k and column k of S from shared memory, where the threads holding them
// put them while computing them (in the previous step's update, or when forming S_i for k = 0: picking
// them out of the tile afterwards would index the register array dynamically, sending it to local
// memory). The published row and column are double-buffered, so one barrier per step suffices: step k
// writes the buffers of step k+1 while other threads may still read those of step k.
// s.rows [nx*nz][nz+2], s.rhs [nx*nz]; w.inverse [nx][nz][nz] (row-major); w.y [nx][nz]; w.failure [2],
// w.pivot [1]. Precondition: nz <= 32 kCols.
template <int kCols>
__global__ void __launch_bounds__(kRegisterWarps* kWarp) block_thomas_forward_registers(LinearSystem s, DirectWork w) {
  constexpr int kRows = kCols * kWarp / kRegisterWarps;
  constexpr int kSpan = kCols * kWarp;        // the tiles' extent in rows and in columns, >= nz
  __shared__ double row_k[2][kSpan];          // row k of S
  __shared__ double col_k[2][kSpan];          // column k of S
  const int nx = s.nx, nz = s.nz;
  const int lane = threadIdx.x % kWarp, warp = threadIdx.x / kWarp;
  double a[kRows][kCols];
  for (int i = 0; i < nx; ++i) {
    const Column col = column(s, w, i);
    // (1) S_i into the tiles (publishing row 0 and column 0), y_i.
#pragma unroll
    for (int ra = 0; ra < kRows; ++ra) {
      const int j = warp + kRegisterWarps * ra;
#pragma unroll
      for (int cb = 0; cb < kCols; ++cb) {
        const int c = lane + kWarp * cb;
        const double v = (j < nz && c < nz) ? schur_entry(col, nz, j, c) : 0.0;
        a[ra][cb] = v;
        if (j == 0) row_k[0][c] = v;
        if (c == 0) col_k[0][j] = v;
      }
    }
    next_rhs(s, i, col, lane, warp, kRegisterWarps);
    // (2) Gauss-Jordan: row k scaled by 1/p, column k eliminated from every other row.
    for (int k = 0; k < nz; ++k) {
      const int buf = k & 1;
      __syncthreads();
      const double p = row_k[buf][k];  // every thread reads the same value: the return below is uniform
      if (!(fabs(p) > 1e-300)) {
        report_zero_pivot(w, i, k, p);
        return;
      }
      const double inv_p = 1.0 / p;
      double scaled[kCols];  // the new row k: S(k, c) / p, and 1 / p at c = k
#pragma unroll
      for (int cb = 0; cb < kCols; ++cb) {
        const int c = lane + kWarp * cb;
        scaled[cb] = (c == k ? 1.0 : row_k[buf][c]) * inv_p;
      }
#pragma unroll
      for (int ra = 0; ra < kRows; ++ra) {
        const int r = warp + kRegisterWarps * ra;
        const double f = col_k[buf][r];
#pragma unroll
        for (int cb = 0; cb < kCols; ++cb) {
          const int c = lane + kWarp * cb;
          const double v = r == k ? scaled[cb] : (c == k ? 0.0 : a[ra][cb]) - f * scaled[cb];
          a[ra][cb] = v;
          if (r == k + 1) row_k[buf ^ 1][c] = v;
          if (c == k + 1) col_k[buf ^ 1][r] = v;
        }
      }
    }
    // (3) The inverse to global memory, where column i+1 and the back substitution read it.
#pragma unroll
    for (int ra = 0; ra < kRows; ++ra) {
      const int j = warp + kRegisterWarps * ra;
#pragma unroll
      for (int cb = 0; cb < kCols; ++cb) {
        const int c = lane + kWarp * cb;
        if (j < nz && c < nz) col.inverse[static_cast<std::size_t>(j) * nz + c] = a[ra][cb];
      }
    }
    __syncthreads();
  }
}

// The forward sweep for larger blocks: one block of 1024 threads, S_i in shared memory when `staged`,
// else in place in w.inverse (global memory). Same steps as above, two barriers per Gauss-Jordan step.
// Dynamic shared memory: [nz] multipliers, then [nz][nz] S_i when `staged`.
__global__ void __launch_bounds__(kColumnThreads) block_thomas_forward_shared(LinearSystem s, DirectWork w, bool staged) {
  extern __shared__ double shared[];
  const int nx = s.nx, nz = s.nz;
  const int lane = threadIdx.x % kWarp, warp = threadIdx.x / kWarp, warps = blockDim.x / kWarp;
  double* f = shared;  // [nz] column k of the elimination step
  for (int i = 0; i < nx; ++i) {
    const Column col = column(s, w, i);
    double* S = staged ? shared + nz : col.inverse;  // [nz][nz] row-major
    // (1) S_i, y_i.
    for (int j = warp; j < nz; j += warps)
      for (int c = lane; c < nz; c += kWarp) S[j * nz + c] = schur_entry(col, nz, j, c);
    next_rhs(s, i, col, lane, warp, warps);
    __syncthreads();
    // (2) Gauss-Jordan: step k scales row k by 1/p and eliminates column k from every other row.
    for (int k = 0; k < nz; ++k) {
      const double p = S[k * nz + k];  // every thread reads the same value: the return below is uniform
      if (!(fabs(p) > 1e-300)) {
        report_zero_pivot(w, i, k, p);
        return;
      }
      const double inv_p = 1.0 / p;
      for (int r = threadIdx.x; r < nz; r += blockDim.x) {
        f[r] = S[r * nz + k];
        S[k * nz + r] = (r == k ? 1.0 : S[k * nz + r]) * inv_p;  // row k; column k is read into f first
      }
      __syncthreads();
      const double* Sk = S + k * nz;
      for (int r = warp; r < nz; r += warps) {  // a warp per row, its lanes along the row
        if (r == k) continue;
        double* Sr = S + r * nz;
        const double fr = f[r];
        for (int c = lane; c < nz; c += kWarp) Sr[c] = (c == k ? 0.0 : Sr[c]) - fr * Sk[c];
      }
      __syncthreads();
    }
    // (3) The inverse to global memory, where column i+1 and the back substitution read it.
    if (staged) {
      for (int t = threadIdx.x; t < nz * nz; t += blockDim.x) col.inverse[t] = S[t];
      __syncthreads();
    }
  }
}

// The back substitution: one block of 1024 threads walking the columns nx-1 down to 0,
// u_i = S_i^-1 (y_i - E_i u_{i+1}) with a warp per row. u [nx*nz]; w as above.
// Dynamic shared memory: [nz] the right-hand side.
__global__ void __launch_bounds__(kColumnThreads) block_thomas_back_kernel(LinearSystem s, double* u,
                                                                          DirectWork w) {
  if (w.failure[0] != 0) return;  // the forward sweep met a zero pivot; the host reports it
  extern __shared__ double v[];   // [nz]
  const int nx = s.nx, nz = s.nz, width = nz + 2;
  const int lane = threadIdx.x % kWarp, warp = threadIdx.x / kWarp, warps = blockDim.x / kWarp;
  for (int i = nx - 1; i >= 0; --i) {
    double* ui = u + static_cast<std::size_t>(i) * nz;
    const double* yi = w.y + static_cast<std::size_t>(i) * nz;
    for (int j = threadIdx.x; j < nz; j += blockDim.x) {
      const double ej = i + 1 < nx ? s.rows[(static_cast<std::size_t>(i) * nz + j) * width + nz + 1] : 0.0;
      v[j] = yi[j] - (ej != 0.0 ? ej * ui[nz + j] : 0.0);
    }
    __syncthreads();
    const double* inv = w.inverse + static_cast<std::size_t>(i) * nz * nz;
    for (int j = warp; j < nz; j += warps) {
      const double x = warp_dot_row(inv, nz, j, v, lane);
      if (lane == 0) ui[j] = x;
    }
    __syncthreads();
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

namespace {
// Enqueues one SRJ cycle from `start` (its partner: `partner`) and the joint reduction of the last
// residual and the new iterate into scratch's two outputs; returns the buffer holding the new iterate.
double* enqueue_cycle(const LinearSystem& s, double* start, double* partner, const std::vector<double>& omegas,
                      const SrjWork& w, cudaStream_t stream) {
  const std::size_t n = s.size();
  const unsigned step_blocks = blocks(n, kRowsPerBlock), norm_blocks = reduce_blocks(n, kBlock);
  double* cur = start;
  double* other = partner;
  for (double omega : omegas) {
    srj_step_kernel<<<step_blocks, kBlock, 0, stream>>>(s, cur, omega, other, w.residual);
    QUANTA_CUDA_LAUNCH_CHECK("mosfet srj step");
    std::swap(cur, other);
  }
  joint_max_kernel<<<norm_blocks, kBlock, 0, stream>>>(n, w.residual, cur, w.scratch);
  QUANTA_CUDA_LAUNCH_CHECK("mosfet srj joint max norm");
  final_max_kernel<<<1, kBlock, 0, stream>>>(w.scratch, static_cast<int>(norm_blocks), 2, w.scratch + 2 * kReduceBlocks);
  QUANTA_CUDA_LAUNCH_CHECK("mosfet srj final max norm");
  return cur;
}
}  // namespace

SrjCycleGraphs::~SrjCycleGraphs() { release(); }

void SrjCycleGraphs::release() noexcept {
  // Errors here come from an earlier failed kernel and were reported by a checked call.
  for (auto& e : exec_)
    if (e) cudaGraphExecDestroy(std::exchange(e, nullptr));
  if (stream_) cudaStreamDestroy(std::exchange(stream_, nullptr));
  key_ = {};
}

void SrjCycleGraphs::prepare(const LinearSystem& s, double* u, const std::vector<double>& omegas, const SrjWork& work) {
  const Key key{s.rows, s.rhs, u, work.other, work.residual, work.scratch, s.nx, s.nz, omegas};
  if (exec_[0] && key == key_) return;
  release();
  QUANTA_CUDA_CHECK(cudaStreamCreate(&stream_));
  for (int parity = 0; parity < 2; ++parity) {
    double* start = parity == 0 ? u : work.other;
    double* partner = parity == 0 ? work.other : u;
    cudaGraph_t graph = nullptr;
    QUANTA_CUDA_CHECK(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeThreadLocal));
    try {
      enqueue_cycle(s, start, partner, omegas, work, stream_);
    } catch (...) {
      cudaStreamEndCapture(stream_, &graph);
      if (graph) cudaGraphDestroy(graph);
      release();
      throw;
    }
    QUANTA_CUDA_CHECK(cudaStreamEndCapture(stream_, &graph));
    const cudaError_t err = cudaGraphInstantiate(&exec_[parity], graph, 0);
    cudaGraphDestroy(graph);
    if (err != cudaSuccess) {
      release();
      cuda::throw_cuda_error(err, "cudaGraphInstantiate (mosfet SRJ cycle)", __FILE__, __LINE__);
    }
  }
  key_ = key;
  norms_ = work.scratch + 2 * kReduceBlocks;
}

void SrjCycleGraphs::run(int parity, double* r_max, double* u_max) {
  QUANTA_REQUIRE(exec_[parity] != nullptr, "mosfet SRJ: cycle graphs run before prepare()");
  QUANTA_CUDA_CHECK(cudaGraphLaunch(exec_[parity], stream_));
  double norms[2];
  QUANTA_CUDA_CHECK(cudaMemcpyAsync(norms, norms_, sizeof norms, cudaMemcpyDeviceToHost, stream_));
  QUANTA_CUDA_CHECK(cudaStreamSynchronize(stream_));
  *r_max = norms[0];
  *u_max = norms[1];
}

SrjStats srj_solve_cuda(const LinearSystem& s, double* u, double tol, int max_cycles, const std::vector<double>& omegas,
                        const SrjWork& work, SrjCycleGraphs& graphs) {
  const std::size_t n = s.size();
  SrjStats st;
  if (n == 0 || omegas.empty() || max_cycles <= 0) return st;
  graphs.prepare(s, u, omegas, work);
  const int flip = static_cast<int>(omegas.size() % 2);  // an odd cycle leaves the iterate in the partner
  int parity = 0;
  while (st.cycles < max_cycles) {
    double r_max, u_max;
    graphs.run(parity, &r_max, &u_max);
    parity ^= flip;
    st.steps += static_cast<int>(omegas.size());
    ++st.cycles;
    st.residual = r_max / std::max(u_max, 1e-300);
    if (st.residual <= tol) {
      st.converged = true;
      break;
    }
  }
  if (parity == 1) QUANTA_CUDA_CHECK(cudaMemcpy(u, work.other, n * sizeof(double), cudaMemcpyDeviceToDevice));
  return st;
}

namespace {
template <int kCols>
void launch_forward_registers(const LinearSystem& s, const DirectWork& work) {
  block_thomas_forward_registers<kCols><<<1, kRegisterWarps * kWarp>>>(s, work);
  QUANTA_CUDA_LAUNCH_CHECK("mosfet direct solve (block Thomas forward sweep)");
}
}  // namespace

void direct_solve_cuda(const LinearSystem& s, double* u, const DirectWork& work) {
  if (s.nx == 0 || s.nz == 0) return;
  const std::size_t vector_bytes = s.nz * sizeof(double);
  const std::size_t block_bytes = static_cast<std::size_t>(s.nz) * s.nz * sizeof(double);
  int device = 0, optin = 0;
  QUANTA_CUDA_CHECK(cudaGetDevice(&device));
  QUANTA_CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  const std::size_t limit = static_cast<std::size_t>(optin);
  QUANTA_REQUIRE(vector_bytes <= limit, "mosfet direct solver: nz = " + std::to_string(s.nz) +
                                            " is beyond the device's shared memory (" + std::to_string(limit) + " bytes)");
  device::fill_zero(work.failure, 2 * sizeof(int));
  switch ((s.nz + kWarp - 1) / kWarp) {  // column slots of the register tiles
    case 1: launch_forward_registers<1>(s, work); break;
    case 2: launch_forward_registers<2>(s, work); break;
    case 3: launch_forward_registers<3>(s, work); break;
    case 4: launch_forward_registers<4>(s, work); break;
    case kMaxColumnSlots: launch_forward_registers<kMaxColumnSlots>(s, work); break;
    default: {
      const bool staged = vector_bytes + block_bytes <= limit;
      const std::size_t bytes = staged ? vector_bytes + block_bytes : vector_bytes;
      // Above 48 KiB a kernel must opt in to its dynamic shared memory.
      QUANTA_CUDA_CHECK(cudaFuncSetAttribute(block_thomas_forward_shared, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                             static_cast<int>(bytes)));
      block_thomas_forward_shared<<<1, kColumnThreads, bytes>>>(s, work, staged);
      QUANTA_CUDA_LAUNCH_CHECK("mosfet direct solve (block Thomas forward sweep)");
    }
  }
  QUANTA_CUDA_CHECK(cudaFuncSetAttribute(block_thomas_back_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         static_cast<int>(vector_bytes)));
  block_thomas_back_kernel<<<1, kColumnThreads, vector_bytes>>>(s, u, work);
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
