// The linear-system kernels on the GPU: the rows (the seed's cuda_constrlinsys), the SRJ solver (seed
// Algorithm 1: a warp per row for the banded product fused with the relaxed update, then a joint
// infinity-norm reduction per cycle), the Newton residual, the potential change and the block cyclic reduction
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
constexpr int kStepResults = 5;                 // the reduction output: residual, change, direct status [3]
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
    a = fmax(a, norm_term(r[k]));
    b = fmax(b, norm_term(u[k]));
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
    m = fmax(m, norm_term(a[k] - b[k]));
  m = block_max(m);
  if (threadIdx.x == 0) partial[blockIdx.x] = m;
}

// Reduces partial [count][nblocks] (in scratch) to count numbers, into slots slot.. of the output, and
// brings the first `fetch` slots of the output to the host (one copy; none when fetch is 0).
void finish_max(double* scratch, unsigned nblocks, int count, int slot, int fetch, double* host) {
  double* out = scratch + 2 * kReduceBlocks;
  final_max_kernel<<<1, kBlock>>>(scratch, static_cast<int>(nblocks), count, out + slot);
  QUANTA_CUDA_LAUNCH_CHECK("mosfet final max reduction");
  if (fetch > 0) device::copy_to_host(host, out, fetch * sizeof(double));
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
    if (lane == 0) m = fmax(m, norm_term(s.diag[row] * (s.rhs[row] - ax)));
  }
  m = block_max(m);
  if (threadIdx.x == 0) partial[blockIdx.x] = m;
}

// --- the direct solver ---------------------------------------------------------------------------------
// Block cyclic reduction with the levels of direct_solve_cpu (see linear_system.hpp): per level, one kernel
// eliminates the level's columns (a thread block each) and one updates the columns that stay (a thread
// block per column and tile of rows); then one kernel per level substitutes back. A level's blocks are
// independent, so the whole GPU works on them; the work per column is a few dense nz x nz products.
// Each eliminated block is inverted by Gauss-Jordan elimination without pivoting (the same pivots, in the
// same order, as the CPU's LU without pivoting, hence the same zero-pivot test): nz steps of fully
// parallel O(nz^2) updates, where triangular solves would take 2 nz dependent steps per right-hand side.
// The results agree with the LU solves of the CPU to rounding, not bit for bit.

constexpr int kEliminateThreads = 512;  // the shared-memory Gauss-Jordan block: 16 warps over the rows
constexpr int kMaxSlots = 5;            // the register tiles: 32 kCols columns, nz <= 160
constexpr int kBackThreads = 1024;
constexpr int kResolveThreads = 512;  // the re-solve's reduction: 16 warps over a column's rows

// For the rows j = warp, warp + warps, ... of the row-major n x n matrices a and b: a_j . u and b_j . v (a or b
// null: that product skipped, 0), by one warp per row (lanes over the row: coalesced; partial sums over the lanes,
// then xor shuffles, the same on every lane); kRowGroup rows of a warp at a time, so that their loads are in flight
// together (one row at a time, each waited for its loads and its shuffles).
// done(j, a_j . u, b_j . v) runs on every lane.
constexpr int kRowGroup = 4;
template <class Done>
__device__ void warp_dot_rows(const double* __restrict__ a, const double* u, const double* __restrict__ b, const double* v, int n, int warp,
                              int warps, int lane, Done&& done) {
  for (int j0 = warp; j0 < n; j0 += kRowGroup * warps) {
    double sa[kRowGroup], sb[kRowGroup];
#pragma unroll
    for (int q = 0; q < kRowGroup; ++q) sa[q] = sb[q] = 0.0;
    for (int c = lane; c < n; c += kWarp) {
      const double uc = a ? u[c] : 0.0, vc = b ? v[c] : 0.0;
#pragma unroll
      for (int q = 0; q < kRowGroup; ++q) {
        const std::size_t j = j0 + q * warps;
        if (j >= static_cast<std::size_t>(n)) break;
        if (a) sa[q] += a[j * n + c] * uc;
        if (b) sb[q] += b[j * n + c] * vc;
      }
    }
#pragma unroll
    for (int q = 0; q < kRowGroup; ++q) {
      for (int offset = kWarp / 2; offset > 0; offset /= 2) {
        sa[q] += __shfl_xor_sync(kFullMask, sa[q], offset);
        sb[q] += __shfl_xor_sync(kFullMask, sb[q], offset);
      }
      if (j0 + q * warps < n) done(j0 + q * warps, sa[q], sb[q]);
    }
  }
}

// One thread per entry (i, j, c): grid ceil(nx nz^2 / 256) x 256.
__global__ void reduction_load_kernel(LinearSystem s, CyclicReduction w) {
  const std::size_t t = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  const std::size_t block = w.block();
  if (t >= static_cast<std::size_t>(s.nx) * block) return;
  const int i = static_cast<int>(t / block), j = static_cast<int>(t % block / s.nz), c = static_cast<int>(t % s.nz);
  reduction_load(s, w, i, j, c);
}

// Inverts the n x n row-major matrix S in place by Gauss-Jordan elimination without pivoting, with the
// whole thread block (a warp per row, its lanes along the row). Step k updates every entry from the old
// row k and column k, which the threads computing them published in the previous step into double
// buffers rowk, colk ([2][n] shared each), so one barrier per step suffices: step k writes the buffers of
// step k+1 while other threads may still read those of step k. Returns -1, or the step whose pivot is
// zero (every thread alike; S is then left half-inverted), with that pivot in *pivot.
__device__ int gauss_jordan_invert(double* S, int n, double* rowk, double* colk, double* pivot) {
  const int lane = threadIdx.x % kWarp, warp = threadIdx.x / kWarp, warps = blockDim.x / kWarp;
  for (int t = threadIdx.x; t < n; t += blockDim.x) {
    rowk[t] = S[t];
    colk[t] = S[t * n];
  }
  __syncthreads();
  for (int k = 0; k < n; ++k) {
    const double* row = rowk + (k & 1) * n;  // old S(k, :)
    const double* col = colk + (k & 1) * n;  // old S(:, k)
    double* next_row = rowk + ((k + 1) & 1) * n;
    double* next_col = colk + ((k + 1) & 1) * n;
    const double p = row[k];  // every thread reads the same value: the return below is uniform
    if (!(fabs(p) > 1e-300)) {
      *pivot = p;
      return k;
    }
    const double inv_p = 1.0 / p;
    for (int r = warp; r < n; r += warps) {
      const double f = col[r];
      double* Sr = S + r * n;
      for (int c = lane; c < n; c += kWarp) {
        const double scaled = (c == k ? 1.0 : row[c]) * inv_p;  // the new row k
        const double v = r == k ? scaled : (c == k ? 0.0 : Sr[c]) - f * scaled;
        Sr[c] = v;
        if (r == k + 1) next_row[c] = v;
        if (c == k + 1) next_col[r] = v;
      }
    }
    __syncthreads();
  }
  return -1;
}

// The same inversion with the matrix in registers, for n <= 32 kCols: thread (warp, lane) of the kWarps
// warps holds the entries (warp + kWarps a, lane + 32 b), a < kRows, b < kCols (zero outside n), so an
// update step is a few register operations per entry instead of shared-memory traffic (the step is bound
// by instruction issue: rows past n are skipped by whole warps, and the pivot's reciprocal is computed
// once, by the thread that holds the next pivot). Step k reads the old row k and column k from the double
// buffers rowbuf, colbuf ([2][32 kCols] shared each) and 1/pivot from inv ([2] shared), where the threads
// holding them put them while computing them: one barrier per step. Reads src [n][n] row-major at the
// start and writes the inverse to dst [n][n] at the end (src == dst allowed). Returns as
// gauss_jordan_invert.
template <int kCols, int kWarps>
__device__ int gauss_jordan_registers(const double* src, int n, double* dst, double* rowbuf, double* colbuf, double* inv,
                                      double* pivot) {
  constexpr int kRows = kCols * kWarp / kWarps;
  constexpr int kSpan = kCols * kWarp;  // the tile's extent in rows and in columns, >= n
  const int lane = threadIdx.x % kWarp, warp = threadIdx.x / kWarp;
  double a[kRows][kCols];
#pragma unroll
  for (int ra = 0; ra < kRows; ++ra) {
    const int r = warp + kWarps * ra;
#pragma unroll
    for (int cb = 0; cb < kCols; ++cb) {
      const int c = lane + kWarp * cb;
      const double v = (r < n && c < n) ? src[r * n + c] : 0.0;
      a[ra][cb] = v;
      if (r == 0) rowbuf[c] = v;
      if (c == 0) colbuf[r] = v;
      if (r == 0 && c == 0) inv[0] = 1.0 / v;
    }
  }
  for (int k = 0; k < n; ++k) {
    const int buf = k & 1;
    __syncthreads();
    const double* row = rowbuf + buf * kSpan;  // old S(k, :)
    const double* col = colbuf + buf * kSpan;  // old S(:, k)
    double* next_row = rowbuf + (buf ^ 1) * kSpan;
    double* next_col = colbuf + (buf ^ 1) * kSpan;
    const double p = row[k];  // every thread reads the same value: the return below is uniform
    if (!(fabs(p) > 1e-300)) {
      *pivot = p;
      return k;
    }
    const double inv_p = inv[buf];
    double scaled[kCols];  // the new row k
    bool pivot_column[kCols];
#pragma unroll
    for (int cb = 0; cb < kCols; ++cb) {
      const int c = lane + kWarp * cb;
      pivot_column[cb] = c == k;
      scaled[cb] = (c == k ? 1.0 : row[c]) * inv_p;
    }
#pragma unroll
    for (int ra = 0; ra < kRows; ++ra) {
      const int r = warp + kWarps * ra;
      if (r >= n) break;  // rows and their branches are the same for the whole warp
      if (r == k) {
#pragma unroll
        for (int cb = 0; cb < kCols; ++cb) a[ra][cb] = scaled[cb];
      } else {
        const double f = col[r];
#pragma unroll
        for (int cb = 0; cb < kCols; ++cb) a[ra][cb] = (pivot_column[cb] ? 0.0 : a[ra][cb]) - f * scaled[cb];
      }
      if (r == k + 1) {  // publish row k+1 (and its pivot's reciprocal) for the next step
#pragma unroll
        for (int cb = 0; cb < kCols; ++cb) {
          const int c = lane + kWarp * cb;
          next_row[c] = a[ra][cb];
          if (c == k + 1) inv[buf ^ 1] = 1.0 / a[ra][cb];
        }
      }
    }
#pragma unroll
    for (int cb = 0; cb < kCols; ++cb) {  // publish column k+1
      if (lane + kWarp * cb != k + 1) continue;
#pragma unroll
      for (int ra = 0; ra < kRows; ++ra) next_col[warp + kWarps * ra] = a[ra][cb];
    }
  }
#pragma unroll
  for (int ra = 0; ra < kRows; ++ra) {
    const int r = warp + kWarps * ra;
#pragma unroll
    for (int cb = 0; cb < kCols; ++cb) {
      const int c = lane + kWarp * cb;
      if (r < n && c < n) dst[r * n + c] = a[ra][cb];
    }
  }
  __syncthreads();
  return -1;
}

// One mma.m8n8k4 step on the FP64 tensor cores (sm_80 and newer): (c0, c1) += a b for the fragments of
// lane = 4 g + t (PTX ISA, mma.m8n8k4 .f64): a = A(g, t), b = B(t, g), c = C(g, 2t), C(g, 2t + 1).
__device__ void mma_step(double& c0, double& c1, double a, double b) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
#error "the mosfet direct solver needs sm_80 or newer (FP64 tensor cores)"
#endif
  asm("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%0, %1};" : "+d"(c0), "+d"(c1) : "d"(a), "d"(b));
}

// out = A B for A, B [n][n] (shared memory, or global) and out [n][n] in global memory, on the FP64 tensor
// cores: a warp per 8 x 8 tile of out, accumulating mma.m8n8k4 over k (entries past n read as zero). Each
// instruction does 256 multiply-adds, so the product costs a few hundred instructions a warp where scalar
// FMAs with their operand loads cost thousands (the eliminations are bound by instruction issue).
__device__ void multiply_block(const double* A, const double* B, int n, double* __restrict__ out) {
  const int lane = threadIdx.x % kWarp, warp = threadIdx.x / kWarp, warps = blockDim.x / kWarp;
  const int g = lane / 4, t = lane % 4;
  const int tiles = (n + 7) / 8, steps = (n + 3) / 4;
  for (int tile = warp; tile < tiles * tiles; tile += warps) {
    const int row = tile / tiles * 8 + g, col = tile % tiles * 8;
    double c0 = 0.0, c1 = 0.0;
    for (int s = 0; s < steps; ++s) {
      const int k = 4 * s + t;
      const double a = (row < n && k < n) ? A[row * n + k] : 0.0;
      const double b = (k < n && col + g < n) ? B[k * n + col + g] : 0.0;
      mma_step(c0, c1, a, b);
    }
    const int c = col + 2 * t;
    if (row < n && c < n) out[static_cast<std::size_t>(row) * n + c] = c0;
    if (row < n && c + 1 < n) out[static_cast<std::size_t>(row) * n + c + 1] = c1;
  }
}

// Records a zero pivot for the host: the first block to meet one writes column + 1, row and pivot.
__device__ void report_zero_pivot(const DirectWork& work, int column, int k, double p) {
  auto* first = reinterpret_cast<unsigned long long*>(work.status);
  const auto mark = static_cast<unsigned long long>(__double_as_longlong(column + 1.0));
  if (threadIdx.x == 0 && atomicCAS(first, 0ull, mark) == 0ull) {
    work.status[1] = k;
    work.status[2] = p;
  }
}

// After D_j^-1 (Dinv, shared or global): XL_j = Dinv L_j, XU_j = Dinv U_j (where the neighbour exists; L_j
// and U_j read from L, U: shared or global) and Xb_j.
__device__ void finish_elimination(const CyclicReduction& w, const ReductionLevel& lv, int j, const double* Dinv,
                                   const double* L, const double* U) {
  const int nx = w.nx, nz = w.nz;
  const std::size_t at = static_cast<std::size_t>(j) * w.block();
  if (j >= lv.stride) multiply_block(Dinv, L, nz, w.XL + at);
  if (j + lv.stride < nx) multiply_block(Dinv, U, nz, w.XU + at);
  const int lane = threadIdx.x % kWarp, warp = threadIdx.x / kWarp, warps = blockDim.x / kWarp;
  const double* bj = w.b + static_cast<std::size_t>(j) * nz;
  warp_dot_rows(Dinv, bj, nullptr, bj, nz, warp, warps, lane, [&](int r, double x, double) {
    if (lane == 0) w.Xb[static_cast<std::size_t>(j) * nz + r] = x;
  });
}

// Keeps D_j^-1 (from shared memory) in D_j's global block for later re-solves (direct_resolve_cuda).
__device__ void keep_inverse(const double* Dinv, int nz, double* D) {
  for (int t = threadIdx.x; t < nz * nz; t += blockDim.x) D[t] = Dinv[t];
}

// Starts copying count doubles from global src to shared dst without waiting (cp.async, 8 bytes per
// copy: the blocks are not 16-byte aligned for odd nz); wait_copies() completes them for the whole block.
__device__ void copy_async(double* dst, const double* src, int count) {
  for (int t = threadIdx.x; t < count; t += blockDim.x) {
    const unsigned address = static_cast<unsigned>(__cvta_generic_to_shared(dst + t));
    asm volatile("cp.async.ca.shared.global [%0], [%1], 8;" ::"r"(address), "l"(src + t));
  }
  asm volatile("cp.async.commit_group;");
}
__device__ void wait_copies() {
  asm volatile("cp.async.wait_all;");
  __syncthreads();
}

// Eliminates the level's columns j = lv.first + blockIdx.x lv.step with D_j^-1 from
// gauss_jordan_registers. Blocks of kWarps warps; dynamic shared memory: [4][32 kCols] the published rows
// and columns, [2] the pivots' reciprocals, then [nz][nz] D_j^-1 unless Global, then [2][nz][nz] L_j and
// U_j with Couplings.
template <int kCols, int kWarps>
__global__ void __launch_bounds__(kWarps* kWarp) reduction_eliminate_registers(DirectWork work, ReductionLevel lv, DirectStaging staging) {
  extern __shared__ double shared[];
  constexpr int kSpan = kCols * kWarp;
  const CyclicReduction& w = work.reduction;
  const int nz = w.nz, j = lv.first + blockIdx.x * lv.step;
  const std::size_t at = static_cast<std::size_t>(j) * w.block(), coupling = w.coupling(lv.stride, j);
  double* D = w.D + at;
  double* Dinv = staging == DirectStaging::Global ? D : shared + 4 * kSpan + 2;
  const double* L = w.L + coupling;
  const double* U = w.U + coupling;
  if (staging == DirectStaging::Couplings) {
    double* Ls = Dinv + nz * nz;
    double* Us = Ls + nz * nz;
    if (j >= lv.stride) copy_async(Ls, L, nz * nz);
    if (j + lv.stride < w.nx) copy_async(Us, U, nz * nz);
    L = Ls;
    U = Us;
  }
  double p = 0.0;
  const int k = gauss_jordan_registers<kCols, kWarps>(D, nz, Dinv, shared, shared + 2 * kSpan, shared + 4 * kSpan, &p);
  if (staging == DirectStaging::Couplings) wait_copies();
  if (k >= 0) {
    report_zero_pivot(work, j, k, p);
    return;
  }
  finish_elimination(w, lv, j, Dinv, L, U);
  if (staging != DirectStaging::Global) keep_inverse(Dinv, nz, D);
}

// The same for blocks beyond the register tiles (nz > 32 kMaxSlots): gauss_jordan_invert in shared memory
// unless Global (plan_direct_solve never picks Couplings here), else in place in w.D. Blocks of 512
// threads; dynamic shared memory: [4][nz] the published rows and columns, then [nz][nz] unless Global.
__global__ void __launch_bounds__(kEliminateThreads) reduction_eliminate_kernel(DirectWork work, ReductionLevel lv, DirectStaging staging) {
  extern __shared__ double shared[];
  const CyclicReduction& w = work.reduction;
  const int nz = w.nz, j = lv.first + blockIdx.x * lv.step;
  const std::size_t at = static_cast<std::size_t>(j) * w.block();
  const bool staged = staging != DirectStaging::Global;
  double* S = staged ? shared + 4 * nz : w.D + at;
  if (staged)
    for (int t = threadIdx.x; t < nz * nz; t += blockDim.x) S[t] = w.D[at + t];
  __syncthreads();
  double p = 0.0;
  const int k = gauss_jordan_invert(S, nz, shared, shared + 2 * nz, &p);
  if (k >= 0) {
    report_zero_pivot(work, j, k, p);
    return;
  }
  const std::size_t coupling = w.coupling(lv.stride, j);
  finish_elimination(w, lv, j, S, w.L + coupling, w.U + coupling);
  if (staged) keep_inverse(S, nz, w.D + at);
}

// Updates the columns k = 2 s blockIdx.x that stay at stride s, rows r0 = 8 blockIdx.y .. r0 + 7:
//   D_k -= L_k XU_l + U_k XL_r,  L_k <- -L_k XL_l,  U_k <- -U_k XU_r,  b_k -= L_k Xb_l + U_k Xb_r
// (l = k - s, r = k + s where they exist), on the FP64 tensor cores like multiply_block: warp w takes the
// 8 x 8 tiles of columns 8 (w + warps q), q < kMaxTiles, and warp 0 also the right-hand side. The new L_k
// and U_k go to the next level's slots (this level's stay for re-solves). Blocks of
// 32 min(kUpdateWarps, ceil(nz / 8)) threads; nz <= 8 kUpdateWarps kMaxTiles.
constexpr int kUpdateWarps = 16;
constexpr int kMaxTiles = 8;

__global__ void __launch_bounds__(kUpdateWarps* kWarp) reduction_update_kernel(CyclicReduction w, int s) {
  const int nx = w.nx, n = w.nz, k = 2 * s * blockIdx.x, r0 = 8 * blockIdx.y;
  const bool left = k >= s, right = k + s < nx;
  const int lane = threadIdx.x % kWarp, warp = threadIdx.x / kWarp, warps = blockDim.x / kWarp;
  const int g = lane / 4, t = lane % 4, row = r0 + g, tiles = (n + 7) / 8, steps = (n + 3) / 4;
  const std::size_t block = w.block(), at = static_cast<std::size_t>(k) * block;
  const std::size_t l = left ? static_cast<std::size_t>(k - s) * block : 0, r = right ? static_cast<std::size_t>(k + s) * block : 0;
  const double* Lk = w.L + w.coupling(s, k);  // this level's couplings; the next level's go to their own slots
  const double* Uk = w.U + w.coupling(s, k);
  double* L_next = w.L + w.coupling(2 * s, k);
  double* U_next = w.U + w.coupling(2 * s, k);
  double dD[kMaxTiles][2] = {}, nL[kMaxTiles][2] = {}, nU[kMaxTiles][2] = {};
#pragma unroll
  for (int q = 0; q < kMaxTiles; ++q) {
    const int col = 8 * (warp + warps * q);
    if (col >= 8 * tiles) break;  // the same for the whole warp
    for (int st = 0; st < steps; ++st) {
      const int m = 4 * st + t;
      const bool a_in = row < n && m < n, b_in = m < n && col + g < n;
      const double al = a_in ? Lk[row * n + m] : 0.0, au = a_in ? Uk[row * n + m] : 0.0;
      const std::size_t bi = static_cast<std::size_t>(m) * n + col + g;
      if (left) {
        mma_step(dD[q][0], dD[q][1], al, b_in ? w.XU[l + bi] : 0.0);
        mma_step(nL[q][0], nL[q][1], al, b_in ? w.XL[l + bi] : 0.0);
      }
      if (right) {
        mma_step(dD[q][0], dD[q][1], au, b_in ? w.XL[r + bi] : 0.0);
        mma_step(nU[q][0], nU[q][1], au, b_in ? w.XU[r + bi] : 0.0);
      }
    }
  }
  double db = 0.0;  // warp 0, lane g < 8: the change of b at row r0 + lane
  if (warp == 0) {
    const double* bl = w.Xb + static_cast<std::size_t>(k - s) * n;
    const double* br = w.Xb + static_cast<std::size_t>(k + s) * n;
    for (int q = 0; q < 8 && r0 + q < n; ++q) {
      double sum = 0.0;
      for (int m = lane; m < n; m += kWarp) {
        if (left) sum += Lk[(r0 + q) * n + m] * bl[m];
        if (right) sum += Uk[(r0 + q) * n + m] * br[m];
      }
      for (int offset = kWarp / 2; offset > 0; offset /= 2) sum += __shfl_xor_sync(kFullMask, sum, offset);
      if (lane == q) db = sum;
    }
  }
#pragma unroll
  for (int q = 0; q < kMaxTiles; ++q) {
    const int col = 8 * (warp + warps * q);
    if (col >= 8 * tiles) break;
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int c = col + 2 * t + h;
      if (row >= n || c >= n) continue;
      const std::size_t e = static_cast<std::size_t>(row) * n + c;
      w.D[at + e] -= dD[q][h];
      L_next[e] = -nL[q][h];
      U_next[e] = -nU[q][h];
    }
  }
  if (warp == 0 && lane < 8 && r0 + lane < n) w.b[static_cast<std::size_t>(k) * n + r0 + lane] -= db;
}

// Back substitution at one level: u_j = Xb_j - XL_j u_{j-s} - XU_j u_{j+s} for its columns (a block each,
// a warp per row). u [nx*nz].
__global__ void __launch_bounds__(kBackThreads) reduction_back_kernel(DirectWork work, ReductionLevel lv, double* u) {
  if (work.status[0] != 0.0) return;  // an elimination met a zero pivot; the host reports it
  const CyclicReduction& w = work.reduction;
  const int nx = w.nx, nz = w.nz, j = lv.first + blockIdx.x * lv.step;
  const bool left = j >= lv.stride, right = j + lv.stride < nx;
  const std::size_t at = static_cast<std::size_t>(j) * w.block();
  const int lane = threadIdx.x % kWarp, warp = threadIdx.x / kWarp, warps = blockDim.x / kWarp;
  warp_dot_rows(left ? w.XL + at : nullptr, u + static_cast<std::size_t>(left ? j - lv.stride : j) * nz, right ? w.XU + at : nullptr,
                u + static_cast<std::size_t>(right ? j + lv.stride : j) * nz, nz, warp, warps, lane, [&](int row, double xl, double xu) {
                  double x = w.Xb[static_cast<std::size_t>(j) * nz + row];
                  if (left) x -= xl;
                  if (right) x -= xu;
                  if (lane == 0) u[static_cast<std::size_t>(j) * nz + row] = x;
                });
}

// A re-solve's reduction of b at stride s (direct_resolve_cuda): block m takes the kept column k = 2 s m,
// computes the eliminated neighbours' Xb = D^-1 b (their inverses kept by the elimination) into shared
// memory, writes the right one's (every eliminated column is some kept column's right neighbour), and
// updates b_k -= L_k Xb_{k-s} + U_k Xb_{k+s} with this level's couplings. At the root (s >= nx) the one
// block computes Xb_0 = D_0^-1 b_0. A warp per row; dynamic shared memory [2][nz].
__global__ void __launch_bounds__(kResolveThreads) resolve_reduce_kernel(CyclicReduction w, int s) {
  extern __shared__ double neighbour[];
  const int nx = w.nx, nz = w.nz, k = 2 * s * blockIdx.x;
  const int lane = threadIdx.x % kWarp, warp = threadIdx.x / kWarp, warps = blockDim.x / kWarp;
  const std::size_t block = w.block();
  if (s >= nx) {
    warp_dot_rows(w.D, w.b, nullptr, w.b, nz, warp, warps, lane, [&](int row, double x, double) {
      if (lane == 0) w.Xb[row] = x;
    });
    return;
  }
  const bool left = k >= s, right = k + s < nx;
  double* xl = neighbour;
  double* xr = neighbour + nz;
  const std::size_t kl = left ? k - s : k, kr = right ? k + s : k;
  warp_dot_rows(left ? w.D + kl * block : nullptr, w.b + kl * nz, right ? w.D + kr * block : nullptr, w.b + kr * nz, nz, warp, warps, lane,
                [&](int row, double x_left, double x_right) {
                  if (lane != 0) return;
                  if (left) xl[row] = x_left;
                  if (right) {
                    xr[row] = x_right;
                    w.Xb[kr * nz + row] = x_right;
                  }
                });
  __syncthreads();
  warp_dot_rows(left ? w.L + w.coupling(s, k) : nullptr, xl, right ? w.U + w.coupling(s, k) : nullptr, xr, nz, warp, warps, lane,
                [&](int row, double from_left, double from_right) {
                  double db = 0.0;
                  if (left) db += from_left;
                  if (right) db += from_right;
                  if (lane == 0) w.b[static_cast<std::size_t>(k) * nz + row] -= db;
                });
}

// The chord step's right-hand side (chord_row) and |P[V]|_inf: one thread per row, grid-stride, block
// partial maxima partial [gridDim.x].
__global__ void chord_rhs_kernel(SystemBuild b, double* __restrict__ partial) {
  const std::size_t n = static_cast<std::size_t>(b.nx) * b.nz;
  double m = 0.0;
  for (std::size_t r = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; r < n;
       r += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    m = fmax(m, chord_row(b, static_cast<int>(r / b.nz), static_cast<int>(r % b.nz)));
  m = block_max(m);
  if (threadIdx.x == 0) partial[blockIdx.x] = m;
}

// u += du: one thread per node.
__global__ void add_kernel(std::size_t n, const double* __restrict__ du, double* __restrict__ u) {
  const std::size_t k = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (k < n) u[k] += du[k];
}

}  // namespace

void chord_rhs_cuda(const SystemBuild& b, double* scratch) {
  const unsigned nb = reduce_blocks(static_cast<std::size_t>(b.nx) * b.nz, kBlock);
  chord_rhs_kernel<<<nb, kBlock>>>(b, scratch);
  QUANTA_CUDA_LAUNCH_CHECK("mosfet chord right-hand side");
  finish_max(scratch, nb, 1, 0, 0, nullptr);
}

void add_cuda(std::size_t n, const double* du, double* u) {
  if (n == 0) return;
  add_kernel<<<blocks(n, kBlock), kBlock>>>(n, du, u);
  QUANTA_CUDA_LAUNCH_CHECK("mosfet potential update");
}

void direct_resolve_cuda(const double* rhs, double* u, const DirectWork& work, const DirectPlan& plan) {
  const CyclicReduction& w = work.reduction;
  if (w.nx == 0 || w.nz == 0) return;
  QUANTA_REQUIRE(plan.nx == w.nx && plan.nz == w.nz, "mosfet direct solver: a plan for another grid");
  QUANTA_CUDA_CHECK(cudaMemcpyAsync(w.b, rhs, static_cast<std::size_t>(w.nx) * w.nz * sizeof(double), cudaMemcpyDeviceToDevice));
  const std::size_t shared = 2 * static_cast<std::size_t>(w.nz) * sizeof(double);
  for (int st : plan.strides) {
    const unsigned kept = st >= w.nx ? 1u : static_cast<unsigned>((w.nx - 1) / (2 * st) + 1);
    resolve_reduce_kernel<<<kept, kResolveThreads, shared>>>(w, st);
    QUANTA_CUDA_LAUNCH_CHECK("mosfet direct re-solve (reduction)");
  }
  for (auto it = plan.strides.rbegin(); it != plan.strides.rend(); ++it) {
    const ReductionLevel lv = reduction_level(w.nx, *it);
    reduction_back_kernel<<<lv.count, kBackThreads>>>(work, lv, u);
    QUANTA_CUDA_LAUNCH_CHECK("mosfet direct re-solve (back substitution)");
  }
}

std::size_t reduction_scratch() { return 2 * static_cast<std::size_t>(kReduceBlocks) + kStepResults; }

void construct_system_cuda(const SystemBuild& b) {
  const std::size_t n = static_cast<std::size_t>(b.nx) * b.nz;
  if (n == 0) return;
  construct_system_kernel<<<blocks(n, kBlock), kBlock>>>(b);
  QUANTA_CUDA_LAUNCH_CHECK("mosfet constr_linsys");
}

void newton_residual_cuda(const LinearSystem& s, const double* u, double* scratch) {
  const unsigned nb = reduce_blocks(s.size(), kRowsPerBlock);
  newton_residual_kernel<<<nb, kBlock>>>(s, u, scratch);
  QUANTA_CUDA_LAUNCH_CHECK("mosfet newton_residual");
  finish_max(scratch, nb, 1, 0, 0, nullptr);
}

void step_norms_cuda(std::size_t n, const double* a, const double* b, double* scratch, StepResults* out) {
  const unsigned nb = reduce_blocks(n, kBlock);
  difference_max_kernel<<<nb, kBlock>>>(n, a, b, scratch);
  QUANTA_CUDA_LAUNCH_CHECK("mosfet potential change");
  double results[kStepResults] = {};
  finish_max(scratch, nb, 1, 1, kStepResults, results);
  out->residual = results[0];
  out->change = results[1];
  for (int k = 0; k < 3; ++k) out->status[k] = results[2 + k];
}

double* direct_status(double* scratch) { return scratch + 2 * kReduceBlocks + 2; }

void check_direct_status(const double status[3]) {
  if (status[0] == 0.0) return;
  throw Error("mosfet direct solver: zero pivot in a column block at row " + std::to_string(static_cast<int>(status[1])) +
              ": " + std::to_string(status[2]) + " (x column " + std::to_string(static_cast<int>(status[0]) - 1) + ")");
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
    st.residual = srj_relative_residual(r_max, u_max);
    if (st.residual <= tol) {
      st.converged = true;
      break;
    }
    if (!std::isfinite(st.residual)) break;
  }
  if (parity == 1) QUANTA_CUDA_CHECK(cudaMemcpy(u, work.other, n * sizeof(double), cudaMemcpyDeviceToDevice));
  return st;
}

std::size_t shared_memory_optin() {
  int device = 0, optin = 0;
  QUANTA_CUDA_CHECK(cudaGetDevice(&device));
  QUANTA_CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  return static_cast<std::size_t>(optin);
}

namespace {
// The elimination kernel for `slots` column slots and its threads: register tiles of 32 warps up to
// nz = 96 (3 x 3 entries per thread), of 16 warps for 97..160 (up to 10 x 5: 1024 threads would run out of
// registers), else the shared-memory inversion.
struct Eliminate {
  void (*kernel)(DirectWork, ReductionLevel, DirectStaging);
  int threads;
};
Eliminate eliminate_kernel(int slots) {
  switch (slots) {
    case 1: return {reduction_eliminate_registers<1, 32>, 1024};
    case 2: return {reduction_eliminate_registers<2, 32>, 1024};
    case 3: return {reduction_eliminate_registers<3, 32>, 1024};
    case 4: return {reduction_eliminate_registers<4, 16>, 512};
    case kMaxSlots: return {reduction_eliminate_registers<kMaxSlots, 16>, 512};
    default: return {reduction_eliminate_kernel, kEliminateThreads};
  }
}
}  // namespace

DirectPlan plan_direct_solve(int nx, int nz_) {
  const std::size_t nz = static_cast<std::size_t>(nz_), limit = shared_memory_optin();
  QUANTA_REQUIRE(nz_ <= 8 * kUpdateWarps * kMaxTiles && 4 * nz * sizeof(double) <= limit,
                 "mosfet direct solver: nz = " + std::to_string(nz_) + " is beyond its blocks (nz <= " +
                     std::to_string(8 * kUpdateWarps * kMaxTiles) + "); use the SRJ solver");
  DirectPlan plan;
  plan.nx = nx;
  plan.nz = nz_;
  plan.slots = (nz_ + kWarp - 1) / kWarp;
  // D_j^-1 kept in shared memory where it fits (nz <= ~165 on an H100), with L_j and U_j where they fit
  // too (nz <= ~97), else in global memory.
  const bool registers = plan.slots <= kMaxSlots;
  const std::size_t published = registers ? 4 * kWarp * static_cast<std::size_t>(plan.slots) + 2 : 4 * nz;
  if ((published + nz * nz) * sizeof(double) <= limit) plan.staging = DirectStaging::Inverse;
  if (registers && (published + 3 * nz * nz) * sizeof(double) <= limit) plan.staging = DirectStaging::Couplings;
  const std::size_t blocks_held = plan.staging == DirectStaging::Couplings ? 3 : plan.staging == DirectStaging::Inverse ? 1 : 0;
  plan.eliminate_bytes = (published + blocks_held * nz * nz) * sizeof(double);
  // Above 48 KiB a kernel must opt in to its dynamic shared memory. The limit is the kernel's, not the plan's: raised,
  // never lowered, so that the plans of other grids (a block's and surface roughness's) keep working.
  cudaFuncAttributes attributes{};
  QUANTA_CUDA_CHECK(cudaFuncGetAttributes(&attributes, eliminate_kernel(plan.slots).kernel));
  if (static_cast<std::size_t>(attributes.maxDynamicSharedSizeBytes) < plan.eliminate_bytes)
    QUANTA_CUDA_CHECK(cudaFuncSetAttribute(eliminate_kernel(plan.slots).kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                           static_cast<int>(plan.eliminate_bytes)));
  plan.strides = reduction_strides(nx);
  return plan;
}

void direct_solve_cuda(const LinearSystem& s, double* u, const DirectWork& work, const DirectPlan& plan) {
  if (s.nx == 0 || s.nz == 0) return;
  const CyclicReduction& w = work.reduction;
  QUANTA_REQUIRE(w.nx == s.nx && w.nz == s.nz && plan.nx == s.nx && plan.nz == s.nz,
                 "mosfet direct solver: work arrays or plan for another grid");
  const std::size_t nz = static_cast<std::size_t>(s.nz);
  const Eliminate eliminate = eliminate_kernel(plan.slots);
  const int update_threads = kWarp * std::min(kUpdateWarps, static_cast<int>((nz + 7) / 8));  // a warp per column tile
  const unsigned row_tiles = static_cast<unsigned>((nz + 7) / 8);

  device::fill_zero(work.status, 3 * sizeof(double));
  reduction_load_kernel<<<blocks(static_cast<std::size_t>(s.nx) * nz * nz, kBlock), kBlock>>>(s, w);
  QUANTA_CUDA_LAUNCH_CHECK("mosfet direct solve (load)");
  for (int st : plan.strides) {
    const ReductionLevel lv = reduction_level(s.nx, st);
    eliminate.kernel<<<lv.count, eliminate.threads, plan.eliminate_bytes>>>(work, lv, plan.staging);
    QUANTA_CUDA_LAUNCH_CHECK("mosfet direct solve (eliminate)");
    if (st >= s.nx) break;  // the root
    const unsigned kept = static_cast<unsigned>((s.nx - 1) / (2 * st) + 1);
    reduction_update_kernel<<<dim3(kept, row_tiles), update_threads>>>(w, st);
    QUANTA_CUDA_LAUNCH_CHECK("mosfet direct solve (update)");
  }
  for (auto it = plan.strides.rbegin(); it != plan.strides.rend(); ++it) {
    const ReductionLevel lv = reduction_level(s.nx, *it);
    reduction_back_kernel<<<lv.count, kBackThreads>>>(work, lv, u);
    QUANTA_CUDA_LAUNCH_CHECK("mosfet direct solve (back substitution)");
  }
}

}  // namespace quanta::mosfet::kernels
