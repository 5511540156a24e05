// The electron density and its Frechet derivative on the GPU (seed eq. 10; the seed's
// cuda_compute_frechet): the density one thread per node, the derivative one block per row. Formulas:
// kernels/frechet.hpp, shared with the CPU.
#include <string>

#include "launch.cuh"
#include "quanta/core/cuda/check.cuh"
#include "quanta/core/error.hpp"

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

// One block per row (i, j) of A: per valley, the pair weights of the row into shared memory (one thread per
// pair), then one thread per entry j' (coalesced reads of psi(j') and writes of A). in.frechet [nx][nz][nz].
__global__ void frechet_kernel(DensityInput in) {
  extern __shared__ double b[];  // [ns][ns], the upper triangle
  const int ns = in.ns, nz = in.nz, i = blockIdx.x / nz, j = blockIdx.x % nz;
  double* row = in.frechet + static_cast<std::size_t>(blockIdx.x) * nz;
  for (int v = 0; v < 3; ++v) {
    __syncthreads();
    for (int k = threadIdx.x; k < ns * ns; k += blockDim.x) {
      const int p = k / ns, q = k % ns;
      if (q >= p) b[k] = frechet_weight(in, i, j, v, p, q);
    }
    __syncthreads();
    for (int jp = threadIdx.x; jp < nz; jp += blockDim.x) {
      const double s = frechet_row_sum(in, i, v, jp, b);
      row[jp] = v == 0 ? s : row[jp] + s;
    }
  }
  for (int jp = threadIdx.x; jp < nz; jp += blockDim.x) row[jp] *= in.degeneracy;
}

}  // namespace

void electron_density_cuda(const DensityInput& in) {
  const std::size_t total = static_cast<std::size_t>(in.nx) * in.nz;
  if (total == 0) return;
  density_kernel<<<blocks(total), kBlock>>>(in);
  QUANTA_CUDA_LAUNCH_CHECK("mosfet density");
}

void frechet_derivative_cuda(const DensityInput& in) {
  const std::size_t rows = static_cast<std::size_t>(in.nx) * in.nz, weights = static_cast<std::size_t>(in.ns) * in.ns * sizeof(double);
  if (rows == 0) return;
  if (weights > 48 * 1024)
    throw Error("mosfet: " + std::to_string(in.ns) + " eigenpairs in the Frechet derivative need " + std::to_string(weights / 1024) +
                " KiB of shared memory per block on the GPU; at most 48 KiB (frechet_states <= 78)");
  frechet_kernel<<<static_cast<unsigned>(rows), 128, weights>>>(in);
  QUANTA_CUDA_LAUNCH_CHECK("mosfet compute_frechet");
}

}  // namespace quanta::mosfet::kernels
