// Surface roughness's per-stage kernels on the block's side (kernels/roughness.hpp): the twins of the loops in
// src/engine_cpu.cpp, one thread per entry.
#include "launch.cuh"
#include "quanta/core/cuda/check.cuh"

namespace quanta::mosfet::kernels {
namespace {

constexpr int kBlock = 128;

__global__ void extended_rhs_kernel(ExtendedRhs b) {
  const long t = blockIdx.x * static_cast<long>(blockDim.x) + threadIdx.x;
  if (t >= static_cast<long>(b.maps.nx) * b.maps.n) return;
  extended_rhs_entry(b, static_cast<int>(t / b.maps.n), static_cast<int>(t % b.maps.n));
}

__global__ void form_factors_kernel(FormFactors f) {
  const long t = blockIdx.x * static_cast<long>(blockDim.x) + threadIdx.x, nvp = 3L * f.subbands;
  if (t >= f.displaced.nx * nvp) return;
  form_factor_entry(f, static_cast<int>(t / nvp), static_cast<int>(t % nvp));
}

}  // namespace

void extended_rhs_cuda(const ExtendedRhs& b) {
  const long n = static_cast<long>(b.maps.nx) * b.maps.n;
  if (n == 0) return;
  extended_rhs_kernel<<<static_cast<unsigned>((n + kBlock - 1) / kBlock), kBlock>>>(b);
  QUANTA_CUDA_LAUNCH_CHECK("mosfet roughness (extended right-hand side)");
}

void form_factors_cuda(const FormFactors& f) {
  const long n = static_cast<long>(f.displaced.nx) * 3 * f.subbands;
  if (n == 0) return;
  form_factors_kernel<<<static_cast<unsigned>((n + kBlock - 1) / kBlock), kBlock>>>(f);
  QUANTA_CUDA_LAUNCH_CHECK("mosfet roughness (form factors)");
}

}  // namespace quanta::mosfet::kernels
