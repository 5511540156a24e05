// The full-frequency CHI_SUM on the device: chi0 at every frequency ([nf][ng][ng], each matrix contiguous) lives on
// the device for the whole q; each chunk of pairs forms S(f ng + G, p) = w_pf M_p(G) from M (on the device, or
// uploaded) and the uploaded weights, and a cuBLAS ZGEMM (3M) per frequency adds S_f M^H to its chi0 (the CPU's
// stacked zgemm computes the same products, so the two differ by summation order and the 3M form's rounding). epsilon_inverse
// turns each chi0 into eps and inverts it there, so that only eps^-1 comes back.
#include <cublas_v2.h>

#include <algorithm>
#include <string>

#include "../chi_freq.hpp"
#include "../invert.hpp"
#include "quanta/core/buffer.hpp"
#include "quanta/core/cuda/check.cuh"
#include "quanta/core/device_exchange.hpp"
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
  Cuda(int ng_, int n_, int nf_, const std::vector<cplx>& p, std::size_t budget) : ng(ng_), n(n_), nf(nf_) {
    QUANTA_CUDA_LIB_CHECK("cuBLAS", cublasCreate(&handle));
    stack = DeviceBuffer<cplx>(static_cast<std::size_t>(nf) * n * n, "full-frequency chi0");
    QUANTA_CUDA_CHECK(cudaMemset(stack.data(), 0, stack.bytes()));
    if (!p.empty()) basis = DeviceBuffer<cplx>(std::span<const cplx>(p.data(), p.size()), "static subspace basis");
    // Per pair: its column of S, its M (when uploaded), its projection and its weights.
    const std::size_t per_pair = (static_cast<std::size_t>(nf) + 1) * n * sizeof(cplx) + ng * sizeof(cplx) + nf * sizeof(cplx);
    const std::size_t held = stack.bytes() + basis.bytes();
    const std::size_t rest = budget > held ? budget - held : 0;
    max_pairs = static_cast<int>(std::min<std::size_t>(rest / per_pair, 1 << 16));
    if (max_pairs < 1)
      throw OutOfDeviceMemory("chi_freq: a device budget of " + std::to_string(budget >> 20) + " MiB cannot hold chi0 at " + std::to_string(nf) +
                              " frequencies (" + std::to_string(stack.bytes() >> 20) + " MiB) and one pair's products");
  }
  ~Cuda() { cublasDestroy(handle); }

  int ng, n, nf;
  int max_pairs = 0;
  cublasHandle_t handle = nullptr;
  DeviceBuffer<cplx> stack, basis, s, m, w, projected;
};

void ChiFreqEngine::CudaDeleter::operator()(Cuda* p) const { delete p; }

ChiFreqEngine::Cuda* make_chi_freq_cuda(int ng, int n, int nf, const std::vector<cplx>& basis, std::size_t device_budget) {
  return new ChiFreqEngine::Cuda(ng, n, nf, basis, device_budget ? device_budget : GpuMemoryBudget{}.usable_bytes());
}

// Synchronous on return, so that the callers' stage timings are the device's (and M may be reused).
void chi_freq_cuda(ChiFreqEngine::Cuda& ws, const ChiFreqJob& job, const std::vector<cplx>& w) {
  const std::size_t ng = ws.ng, n = ws.n, nf = ws.nf, rows = nf * n;
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
  if (ws.basis.size()) grow(ws.projected, n * chunk, "full-frequency chi0 projected matrix elements");
  const cuDoubleComplex one = make_cuDoubleComplex(1, 0), zero = make_cuDoubleComplex(0, 0);
  for (int p0 = 0; p0 < job.npairs; p0 += chunk) {
    const int np = std::min(chunk, job.npairs - p0);
    const cplx* m = job.m_device ? job.m_device + p0 * ng : ws.m.data();  // then, with a basis, its projection
    if (!job.m_device) QUANTA_CUDA_CHECK(cudaMemcpy(ws.m.data(), job.m + p0 * ng, np * ng * sizeof(cplx), cudaMemcpyHostToDevice));
    QUANTA_CUDA_CHECK(cudaMemcpy(ws.w.data(), w.data() + p0 * nf, np * nf * sizeof(cplx), cudaMemcpyHostToDevice));
    if (ws.basis.size()) {  // M~ = P^H M (n x np)
      QUANTA_CUDA_LIB_CHECK("cuBLAS", cublasZgemm(ws.handle, CUBLAS_OP_C, CUBLAS_OP_N, ws.n, np, ws.ng, &one,
                                                  reinterpret_cast<const cuDoubleComplex*>(ws.basis.data()), ws.ng,
                                                  reinterpret_cast<const cuDoubleComplex*>(m), ws.ng, &zero,
                                                  reinterpret_cast<cuDoubleComplex*>(ws.projected.data()), ws.n));
      m = ws.projected.data();
    }
    const std::size_t total = rows * np;
    stack_kernel<<<static_cast<unsigned>((total + kThreads - 1) / kThreads), kThreads>>>(ws.s.data(), m, ws.w.data(), ws.n, ws.nf, total);
    QUANTA_CUDA_LAUNCH_CHECK("chi_freq stack_kernel");
    // Per frequency f: chi_f (n x n, contiguous) += S_f M^H, S_f = the rows f n .. f n + n - 1 of S (leading dimension
    // nf n), by cuBLAS's 3M ZGEMM (3 real products instead of 4). One call per frequency: on Si64 (n 2109, 40
    // frequencies) these ran 1.8x faster than one strided-batched ZGEMM, for which cuBLAS chose 16 x 32 tiles
    // (docs/performance.md).
    for (int f = 0; f < ws.nf; ++f)
      QUANTA_CUDA_LIB_CHECK("cuBLAS", cublasZgemm3m(ws.handle, CUBLAS_OP_N, CUBLAS_OP_C, ws.n, ws.n, np, &one,
                                                  reinterpret_cast<const cuDoubleComplex*>(ws.s.data()) + f * n, static_cast<int>(rows),
                                                  reinterpret_cast<const cuDoubleComplex*>(m), ws.n, &one,
                                                  reinterpret_cast<cuDoubleComplex*>(ws.stack.data()) + f * n * n, ws.n));
  }
  QUANTA_CUDA_CHECK(cudaDeviceSynchronize());
}

HostVector<cplx> chi_freq_cuda_epsilon_inverse(ChiFreqEngine::Cuda& ws, const std::vector<double>& v, const std::string& what, double* heads) {
  return epsilon_inverse_cuda_many(ws.stack.data(), ws.nf, v, ws.ng, what, heads);
}

void chi_freq_cuda_sum_on_devices(ChiFreqEngine::Cuda& ws, DeviceExchange& exchange) {
  exchange.sum(reinterpret_cast<double*>(ws.stack.data()), 2 * ws.stack.size());
}

std::vector<cplx> chi_freq_cuda_result(const ChiFreqEngine::Cuda& ws) {
  std::vector<cplx> out(ws.stack.size());
  QUANTA_CUDA_CHECK(cudaMemcpy(out.data(), ws.stack.data(), ws.stack.bytes(), cudaMemcpyDeviceToHost));
  return out;
}

}  // namespace quanta::gw::kernels
