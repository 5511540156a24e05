// The full-frequency CHI_SUM on the device: chi_stack ((nf ng) x ng) lives on the device for the whole q; each
// chunk of pairs forms S(f ng + G, p) = w_pf M_p(G) from M (on the device, or uploaded) and the uploaded weights,
// and one cuBLAS ZGEMM adds S M^H (the same product as the CPU's zgemm, so the two differ by summation order).
#include <cublas_v2.h>

#include <algorithm>
#include <string>

#include "../chi_freq.hpp"
#include "quanta/core/buffer.hpp"
#include "quanta/core/cuda/check.cuh"
#include "quanta/core/error.hpp"

namespace quanta::gw::kernels {
namespace {

constexpr int kThreads = 256;

// s[p][f][g] = w[p][f] m[p][g] for np pairs.
__global__ void stack_kernel(cplx* __restrict__ s, const cplx* __restrict__ m, const cplx* __restrict__ w, int ng, int nf, std::size_t total) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i >= total) return;
  const std::size_t g = i % ng, pf = i / ng, p = pf / nf;
  s[i] = w[pf] * m[p * ng + g];
}

}  // namespace

struct ChiFreqEngine::Cuda {
  Cuda(int ng_, int nf_, std::size_t budget) : ng(ng_), nf(nf_) {
    QUANTA_CUDA_LIB_CHECK("cuBLAS", cublasCreate(&handle));
    stack = DeviceBuffer<cplx>(static_cast<std::size_t>(nf) * ng * ng, "full-frequency chi0");
    QUANTA_CUDA_CHECK(cudaMemset(stack.data(), 0, stack.bytes()));
    // Per pair: its column of S, its M (when uploaded) and its weights.
    const std::size_t per_pair = (static_cast<std::size_t>(nf) + 1) * ng * sizeof(cplx) + nf * sizeof(cplx);
    const std::size_t rest = budget > stack.bytes() ? budget - stack.bytes() : 0;
    max_pairs = static_cast<int>(std::min<std::size_t>(rest / per_pair, 1 << 16));
    if (max_pairs < 1)
      throw OutOfDeviceMemory("chi_freq: a device budget of " + std::to_string(budget >> 20) + " MiB cannot hold chi0 at " + std::to_string(nf) +
                              " frequencies (" + std::to_string(stack.bytes() >> 20) + " MiB) and one pair's products");
  }
  ~Cuda() { cublasDestroy(handle); }

  int ng, nf;
  int max_pairs = 0;
  cublasHandle_t handle = nullptr;
  DeviceBuffer<cplx> stack, s, m, w;
};

void ChiFreqEngine::CudaDeleter::operator()(Cuda* p) const { delete p; }

ChiFreqEngine::Cuda* make_chi_freq_cuda(int ng, int nf, std::size_t device_budget) {
  return new ChiFreqEngine::Cuda(ng, nf, device_budget ? device_budget : GpuMemoryBudget{}.usable_bytes());
}

// Synchronous on return, so that the callers' stage timings are the device's (and M may be reused).
void chi_freq_cuda(ChiFreqEngine::Cuda& ws, const ChiFreqJob& job, const std::vector<cplx>& w) {
  const std::size_t ng = ws.ng, nf = ws.nf, rows = nf * ng;
  const int chunk = std::min(job.npairs, ws.max_pairs);
  auto grow = [](DeviceBuffer<cplx>& b, std::size_t n, const char* what) {
    if (b.size() < n) {
      b = DeviceBuffer<cplx>();
      b = DeviceBuffer<cplx>(n, what);
    }
  };
  grow(ws.s, rows * chunk, "full-frequency chi0 stacked products");
  grow(ws.w, nf * chunk, "full-frequency chi0 weights");
  if (!job.m_device) grow(ws.m, ng * chunk, "full-frequency chi0 matrix elements");
  const cuDoubleComplex one = make_cuDoubleComplex(1, 0);
  for (int p0 = 0; p0 < job.npairs; p0 += chunk) {
    const int np = std::min(chunk, job.npairs - p0);
    const cplx* m = job.m_device ? job.m_device + p0 * ng : ws.m.data();
    if (!job.m_device) QUANTA_CUDA_CHECK(cudaMemcpy(ws.m.data(), job.m + p0 * ng, np * ng * sizeof(cplx), cudaMemcpyHostToDevice));
    QUANTA_CUDA_CHECK(cudaMemcpy(ws.w.data(), w.data() + p0 * nf, np * nf * sizeof(cplx), cudaMemcpyHostToDevice));
    const std::size_t total = rows * np;
    stack_kernel<<<static_cast<unsigned>((total + kThreads - 1) / kThreads), kThreads>>>(ws.s.data(), m, ws.w.data(), ws.ng, ws.nf, total);
    QUANTA_CUDA_LAUNCH_CHECK("chi_freq stack_kernel");
    QUANTA_CUDA_LIB_CHECK("cuBLAS", cublasZgemm(ws.handle, CUBLAS_OP_N, CUBLAS_OP_C, static_cast<int>(rows), ws.ng, np, &one,
                                                reinterpret_cast<const cuDoubleComplex*>(ws.s.data()), static_cast<int>(rows),
                                                reinterpret_cast<const cuDoubleComplex*>(m), ws.ng, &one,
                                                reinterpret_cast<cuDoubleComplex*>(ws.stack.data()), static_cast<int>(rows)));
  }
  QUANTA_CUDA_CHECK(cudaDeviceSynchronize());
}

std::vector<cplx> chi_freq_cuda_result(const ChiFreqEngine::Cuda& ws) {
  std::vector<cplx> out(ws.stack.size());
  QUANTA_CUDA_CHECK(cudaMemcpy(out.data(), ws.stack.data(), ws.stack.bytes(), cudaMemcpyDeviceToHost));
  return out;
}

}  // namespace quanta::gw::kernels
