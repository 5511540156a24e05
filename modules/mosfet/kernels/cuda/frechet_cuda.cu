// The electron density and its Frechet derivative on the GPU (seed eq. 10; the seed's
// cuda_compute_frechet): one thread per output entry. Formulas: kernels/frechet.hpp, shared with the CPU.
#include "launch.cuh"
#include "quanta/core/cuda/check.cuh"

namespace quanta::mosfet::kernels {
namespace {

constexpr int kBlock = 256;

unsigned blocks(std::size_t n) { return static_cast<unsigned>((n + kBlock - 1) / kBlock); }

// One thread per node (i, j): grid ceil(nx*nz / 256) x 256. in.density [nx][nz].
__global__ void density_kernel(DensityInput in) {
  const std::size_t t = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (t >= static_cast<std::size_t>(in.nx) * in.nz) return;
  in.density[t] = density_entry(in, static_cast<int>(t / in.nz), static_cast<int>(t % in.nz));
}

// One thread per entry (i, j, j'): grid ceil(nx*nz*nz / 256) x 256. in.frechet [nx][nz][nz].
// Consecutive threads take consecutive j', so the reads of psi(j') and the writes of A are coalesced and
// psi(j) is a broadcast.
__global__ void frechet_kernel(DensityInput in) {
  const std::size_t nz = in.nz;
  const std::size_t t = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (t >= in.nx * nz * nz) return;
  const int jp = static_cast<int>(t % nz), j = static_cast<int>((t / nz) % nz), i = static_cast<int>(t / (nz * nz));
  in.frechet[t] = frechet_entry(in, i, j, jp);
}

}  // namespace

void electron_density_cuda(const DensityInput& in) {
  const std::size_t total = static_cast<std::size_t>(in.nx) * in.nz;
  if (total == 0) return;
  density_kernel<<<blocks(total), kBlock>>>(in);
  QUANTA_CUDA_LAUNCH_CHECK("mosfet density");
}

void frechet_derivative_cuda(const DensityInput& in) {
  const std::size_t total = static_cast<std::size_t>(in.nx) * in.nz * in.nz;
  if (total == 0) return;
  frechet_kernel<<<blocks(total), kBlock>>>(in);
  QUANTA_CUDA_LAUNCH_CHECK("mosfet compute_frechet");
}

}  // namespace quanta::mosfet::kernels
