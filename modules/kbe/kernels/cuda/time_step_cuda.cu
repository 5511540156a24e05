// One half-plane time step on the GPU: a thread per (t_j, k) for the off-diagonal entries (both G< and G>),
// a thread per k for the time diagonal; each block reduces its largest change, and one block reduces the
// block maxima (no atomics). Formulas: kernels/time_step.hpp.
#include <cub/block/block_reduce.cuh>

#include "launch.cuh"
#include "quanta/core/buffer.hpp"
#include "quanta/core/cuda/check.cuh"

namespace quanta::kbe::kernels {
namespace {

constexpr int kBlock = 256;
using Reduce = cub::BlockReduce<double, kBlock>;

struct MaxOp {
  __device__ double operator()(double a, double b) const { return fmax(a, b); }
};

unsigned blocks(long n) { return static_cast<unsigned>((n + kBlock - 1) / kBlock); }

__device__ void write_block_max(double change, double* block_max) {
  __shared__ typename Reduce::TempStorage tmp;
  const double m = Reduce(tmp).Reduce(change, MaxOp());
  if (threadIdx.x == 0) block_max[blockIdx.x] = m;
}

__global__ void off_diagonal_kernel(StepRow r, double* __restrict__ block_max) {
  const long i = blockIdx.x * static_cast<long>(blockDim.x) + threadIdx.x;
  const int nk = r.nk, n = r.n;
  double change = 0.0;
  if (i < static_cast<long>(n) * nk) {
    const int j = static_cast<int>(i / nk), k = static_cast<int>(i % nk);
    const std::size_t bs = block_size(nk);
    const StepOperators o = step_operators(r.h_mid[k], r.dt);
    for (int which = 0; which < 2; ++which) {
      cplx* g = which == 0 ? r.g_less : r.g_greater;
      const cplx* ip = which == 0 ? r.i_prev_less : r.i_prev_greater;
      const cplx* ic = r.predictor ? ip : (which == 0 ? r.i_cur_less : r.i_cur_greater);
      const M2 avg = 0.5 * (load_block(ip + j * bs, k, nk) + load_block(ic + j * bs, k, nk));
      const M2 next = step_entry(o, load_block(g + tri(n - 1, j) * bs, k, nk), avg, r.dt);
      cplx* dst = g + tri(n, j) * bs;
      change = fmax(change, max_abs_diff(next, load_block(dst, k, nk)));
      store_block(dst, k, nk, next);
    }
  }
  write_block_max(change, block_max);
}

__global__ void diagonal_kernel(StepRow r, double* __restrict__ block_max) {
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  const int nk = r.nk, n = r.n;
  double change = 0.0;
  if (k < nk) {
    const std::size_t bs = block_size(nk);
    const StepOperators o = step_operators(r.h_mid[k], r.dt);
    const M2 ip = load_block(r.i_prev_less + (n - 1) * bs, k, nk);
    const M2 ic = r.predictor ? ip : load_block(r.i_cur_less + n * bs, k, nk);
    const M2 c_avg = 0.5 * ((ip + dagger(ip)) + (ic + dagger(ic)));
    const M2 gl = step_diagonal(o, load_block(r.g_less + tri(n - 1, n - 1) * bs, k, nk), c_avg, r.dt);
    M2 gg = gl;
    gg.m[0] -= cplx(0.0, 1.0);
    gg.m[3] -= cplx(0.0, 1.0);
    cplx* dl = r.g_less + tri(n, n) * bs;
    change = max_abs_diff(gl, load_block(dl, k, nk));
    store_block(dl, k, nk, gl);
    store_block(r.g_greater + tri(n, n) * bs, k, nk, gg);
  }
  write_block_max(change, block_max);
}

__global__ void max_kernel(const double* __restrict__ v, int n, double* __restrict__ out) {
  double m = 0.0;
  for (int i = threadIdx.x; i < n; i += kBlock) m = fmax(m, v[i]);
  __shared__ typename Reduce::TempStorage tmp;
  m = Reduce(tmp).Reduce(m, MaxOp());
  if (threadIdx.x == 0) *out = m;
}

}  // namespace

std::size_t time_step_scratch(int nk, int n) { return blocks(static_cast<long>(n) * nk) + blocks(nk); }

double time_step_cuda(const StepRow& r, double* block_max, double* change) {
  const unsigned b_off = blocks(static_cast<long>(r.n) * r.nk), b_diag = blocks(r.nk);
  if (b_off > 0) {
    off_diagonal_kernel<<<b_off, kBlock>>>(r, block_max);
    QUANTA_CUDA_LAUNCH_CHECK("kbe time step (off-diagonal)");
  }
  diagonal_kernel<<<b_diag, kBlock>>>(r, block_max + b_off);
  QUANTA_CUDA_LAUNCH_CHECK("kbe time step (diagonal)");
  max_kernel<<<1, kBlock>>>(block_max, static_cast<int>(b_off + b_diag), change);
  QUANTA_CUDA_LAUNCH_CHECK("kbe time step (largest change)");
  double h = 0;
  device::copy_to_host(&h, change, sizeof(double));
  return h;
}

}  // namespace quanta::kbe::kernels
