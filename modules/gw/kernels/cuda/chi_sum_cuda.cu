// CHI_SUM on the device: chi0 lives on the device for the whole q; each call's matrix elements go up in
// chunks of pairs, are scaled by sqrt(w) in place and enter chi0 -= X X^H through cuBLAS ZHERK on the lower
// triangle (the same update as the CPU's zherk, so the two differ only by summation order).
#include <cublas_v2.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "../chi_sum.hpp"
#include "quanta/core/buffer.hpp"
#include "quanta/core/cuda/check.cuh"
#include "quanta/core/device_exchange.hpp"
#include "quanta/core/error.hpp"

namespace quanta::gw::kernels {
namespace {

constexpr int kThreads = 256;

// x[p][g] *= sqrt(w[p]) for the np pairs (a 1D grid: np may exceed a grid's y limit).
__global__ void scale_kernel(cplx* __restrict__ x, const double* __restrict__ w, int ng, std::size_t total) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i < total) x[i] *= sqrt(w[i / ng]);
}

// chi(G, G') = conj(chi(G', G)) for G < G' (the upper triangle from the lower one; fill_upper_triangle's twin).
__global__ void fill_upper_kernel(cplx* __restrict__ chi, int ng) {
  const int i = blockIdx.x * 32 + threadIdx.x, j = blockIdx.y * 8 + threadIdx.y;  // element (i, j), i the row
  if (i < j && j < ng) chi[i + static_cast<std::size_t>(ng) * j] = conj(chi[j + static_cast<std::size_t>(ng) * i]);
}

void scale(cplx* x, const double* w, int ng, int np) {
  const std::size_t total = static_cast<std::size_t>(np) * ng;
  scale_kernel<<<static_cast<unsigned>((total + kThreads - 1) / kThreads), kThreads>>>(x, w, ng, total);
  QUANTA_CUDA_LAUNCH_CHECK("chi_sum scale_kernel");
}

}  // namespace

struct ChiSumEngine::Cuda {
  Cuda(int ng_, std::size_t budget) : ng(ng_) {
    QUANTA_CUDA_LIB_CHECK("cuBLAS", cublasCreate(&handle));
    chi = DeviceBuffer<cplx>(static_cast<std::size_t>(ng) * ng, "chi0");
    QUANTA_CUDA_CHECK(cudaMemset(chi.data(), 0, chi.bytes()));
    const std::size_t per_pair = static_cast<std::size_t>(ng) * sizeof(cplx) + sizeof(double);
    const std::size_t rest = budget > chi.bytes() ? budget - chi.bytes() : 0;
    max_pairs = static_cast<int>(std::min<std::size_t>(rest / per_pair, 1 << 20));
    if (max_pairs < 1)
      throw OutOfDeviceMemory("chi_sum: a device budget of " + std::to_string(budget >> 20) + " MiB cannot hold chi0 (" +
                              std::to_string(chi.bytes() >> 20) + " MiB) and one pair of matrix elements");
  }
  ~Cuda() { cublasDestroy(handle); }

  int ng;
  int max_pairs = 0;
  cublasHandle_t handle = nullptr;
  DeviceBuffer<cplx> chi, x;
  DeviceBuffer<double> w;
};

void ChiSumEngine::CudaDeleter::operator()(Cuda* p) const { delete p; }

ChiSumEngine::Cuda* make_chi_sum_cuda(int ng, std::size_t device_budget) {
  return new ChiSumEngine::Cuda(ng, device_budget ? device_budget : GpuMemoryBudget{}.usable_bytes());
}

namespace {

// chi0 -= X X^H for np pairs whose M is at x on the device: the weights go up, X = M sqrt(w) in place,
// one ZHERK (column-major X is ng x np; lower triangle).
void accumulate(ChiSumEngine::Cuda& ws, cplx* x, const double* w, int np) {
  const int ng = ws.ng;
  if (ws.w.size() < static_cast<std::size_t>(np)) ws.w = DeviceBuffer<double>(np, "chi_sum weights");
  QUANTA_CUDA_CHECK(cudaMemcpy(ws.w.data(), w, np * sizeof(double), cudaMemcpyHostToDevice));
  scale(x, ws.w.data(), ng, np);
  const double alpha = -1.0, beta = 1.0;
  auto* xd = reinterpret_cast<cuDoubleComplex*>(x);
  auto* chi = reinterpret_cast<cuDoubleComplex*>(ws.chi.data());
  QUANTA_CUDA_LIB_CHECK("cuBLAS", cublasZherk(ws.handle, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, ng, np, &alpha, xd, ng, &beta, chi, ng));
}

}  // namespace

// Synchronous on return, so that the callers' stage timings are the device's (and M may be reused).
void chi_sum_cuda(ChiSumEngine::Cuda& ws, const ChiSumJob& job) {
  if (job.npairs == 0) return;
  if (job.m_device) {
    accumulate(ws, job.m_device, job.w, job.npairs);
  } else {
    // M from the host in chunks of pairs, through a buffer grown to the largest chunk seen.
    const std::size_t ng = ws.ng;
    const int chunk = std::min(job.npairs, ws.max_pairs);
    if (ws.x.size() < chunk * ng) {
      ws.x = DeviceBuffer<cplx>();
      ws.x = DeviceBuffer<cplx>(chunk * ng, "chi_sum matrix elements");
    }
    for (int p0 = 0; p0 < job.npairs; p0 += chunk) {
      const int np = std::min(chunk, job.npairs - p0);
      QUANTA_CUDA_CHECK(cudaMemcpy(ws.x.data(), job.m + p0 * ng, np * ng * sizeof(cplx), cudaMemcpyHostToDevice));
      accumulate(ws, ws.x.data(), job.w + p0, np);
    }
  }
  QUANTA_CUDA_CHECK(cudaDeviceSynchronize());
}

cplx* chi_sum_cuda_complete(ChiSumEngine::Cuda& ws) {
  const int ng = ws.ng;
  // The updates write the lower triangle only and never read the upper, so filling it keeps the engine's state.
  fill_upper_kernel<<<dim3((ng + 31) / 32, (ng + 7) / 8), dim3(32, 8)>>>(ws.chi.data(), ng);
  QUANTA_CUDA_LAUNCH_CHECK("chi_sum fill_upper_kernel");
  return ws.chi.data();
}

// The whole buffer is summed (the upper triangle holds zeros or an earlier fill of the lower one, which the fill at the
// end overwrites either way).
void chi_sum_cuda_sum_on_devices(ChiSumEngine::Cuda& ws, DeviceExchange& exchange) {
  exchange.sum(reinterpret_cast<double*>(ws.chi.data()), 2 * ws.chi.size());
}

std::vector<cplx> chi_sum_cuda_result(const ChiSumEngine::Cuda& ws) {
  auto& w = const_cast<ChiSumEngine::Cuda&>(ws);  // the fill leaves the accumulated state as it was
  const cplx* chi = chi_sum_cuda_complete(w);
  std::vector<cplx> out(ws.chi.size());
  QUANTA_CUDA_CHECK(cudaMemcpy(out.data(), chi, ws.chi.bytes(), cudaMemcpyDeviceToHost));
  return out;
}

}  // namespace quanta::gw::kernels
