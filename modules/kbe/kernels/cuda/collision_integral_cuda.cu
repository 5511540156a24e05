// Collision integrals of one time row on the GPU: one thread per (t_j, k), the sum over t_l in the same
// order as the CPU (kernels/collision_integral.hpp). Consecutive threads take consecutive k, so every load
// of a G or Sigma block is coalesced.
#include "launch.cuh"
#include "quanta/core/cuda/check.cuh"

namespace quanta::kbe::kernels {
namespace {

constexpr int kBlock = 256;

__global__ void collision_kernel(CollisionRow r) {
  const long i = blockIdx.x * static_cast<long>(blockDim.x) + threadIdx.x;
  if (i >= static_cast<long>(r.n + 1) * r.nk) return;
  const int j = static_cast<int>(i / r.nk), k = static_cast<int>(i % r.nk);
  M2 il, ig;
  collision_element(r, j, k, il, ig);
  store_block(r.i_less + j * block_size(r.nk), k, r.nk, il);
  store_block(r.i_greater + j * block_size(r.nk), k, r.nk, ig);
}

}  // namespace

void collision_integral_cuda(const CollisionRow& row) {
  const long n = static_cast<long>(row.n + 1) * row.nk;
  collision_kernel<<<static_cast<unsigned>((n + kBlock - 1) / kBlock), kBlock>>>(row);
  QUANTA_CUDA_LAUNCH_CHECK("kbe collision integral");
}

}  // namespace quanta::kbe::kernels
