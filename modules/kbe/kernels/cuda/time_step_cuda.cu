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
  double change = 0.0;
  if (i < static_cast<long>(r.n) * r.nk) {
    const int j = static_cast<int>(i / r.nk), k = static_cast<int>(i % r.nk);
    const StepOperators o = step_operators(r.h_mid[k], r.dt);
    for (int which = 0; which < 2; ++which) change = fmax(change, step_row_entry(r, o, which, j, k));
  }
  write_block_max(change, block_max);
}

__global__ void diagonal_kernel(StepRow r, double* __restrict__ block_max) {
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  const double change = k < r.nk ? step_row_diagonal(r, step_operators(r.h_mid[k], r.dt), k) : 0.0;
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
