// eps^-1 on the device: cuSOLVER LU (zgetrf) of eps, then zgetrs against the identity; eps either uploaded
// (invert_cuda) or formed on the device from chi0 (epsilon_inverse_cuda).
#include <cusolverDn.h>

#include "../invert.hpp"
#include "quanta/core/buffer.hpp"
#include "quanta/core/cuda/check.cuh"
#include "quanta/core/error.hpp"

namespace quanta::gw::kernels {
namespace {

__global__ void identity_kernel(cplx* __restrict__ m, int n) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  const std::size_t nn = static_cast<std::size_t>(n) * n;
  if (i < nn) m[i] = (i % (n + 1) == 0) ? cplx(1.0) : cplx();
}

// a(i, j) = delta_ij - v_i a(i, j): eps from chi0 in place (the host twin is the loop in compute_epsilon).
__global__ void form_eps_kernel(cplx* __restrict__ a, const double* __restrict__ v, int n) {
  const std::size_t k = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  const std::size_t nn = static_cast<std::size_t>(n) * n;
  if (k >= nn) return;
  const std::size_t i = k % n;
  const cplx x = a[k];
  a[k] = cplx((i == k / n ? 1.0 : 0.0) - v[i] * x.re, -v[i] * x.im);
}

struct Solver {
  cusolverDnHandle_t h = nullptr;
  Solver() { QUANTA_CUDA_LIB_CHECK("cuSOLVER", cusolverDnCreate(&h)); }
  ~Solver() { cusolverDnDestroy(h); }
};

// The buffers of n x n inversions, allocated together (an OutOfDeviceMemory here changes nothing) and reused, and
// the inversion of a matrix already on the device (overwritten by its LU factors), eps^-1 written to host memory.
class Inversion {
 public:
  Inversion(cplx* a, int n)
      : n_(n), a_(reinterpret_cast<cuDoubleComplex*>(a)), inv_(static_cast<std::size_t>(n) * n, "eps^-1"),
        piv_(static_cast<std::size_t>(n), "LU pivots"), info_(1, "cuSOLVER info") {
    int lwork = 0;
    QUANTA_CUDA_LIB_CHECK("cuSOLVER", cusolverDnZgetrf_bufferSize(s_.h, n, n, a_, n, &lwork));
    work_ = DeviceBuffer<cplx>(static_cast<std::size_t>(lwork), "cuSOLVER work area");
  }
  // The next matrix (same n) to invert in the same buffers.
  void set_matrix(cplx* a) { a_ = reinterpret_cast<cuDoubleComplex*>(a); }
  std::vector<cplx> run(const std::string& what) {
    std::vector<cplx> out(static_cast<std::size_t>(n_) * n_);
    run(what, out.data());
    return out;
  }
  void run(const std::string& what, cplx* out) {
    QUANTA_CUDA_LIB_CHECK("cuSOLVER", cusolverDnZgetrf(s_.h, n_, n_, a_, n_, reinterpret_cast<cuDoubleComplex*>(work_.data()), piv_.data(),
                                                         info_.data()));
    int h_info = 0;
    QUANTA_CUDA_CHECK(cudaMemcpy(&h_info, info_.data(), sizeof(int), cudaMemcpyDeviceToHost));
    if (h_info != 0) throw Error(what + ": the dielectric matrix is singular (cuSOLVER getrf info " + std::to_string(h_info) + ")");
    const std::size_t nn = static_cast<std::size_t>(n_) * n_;
    identity_kernel<<<static_cast<unsigned>((nn + 255) / 256), 256>>>(inv_.data(), n_);
    QUANTA_CUDA_LAUNCH_CHECK("invert identity_kernel");
    QUANTA_CUDA_LIB_CHECK("cuSOLVER", cusolverDnZgetrs(s_.h, CUBLAS_OP_N, n_, n_, a_, n_, piv_.data(),
                                                         reinterpret_cast<cuDoubleComplex*>(inv_.data()), n_, info_.data()));
    QUANTA_CUDA_CHECK(cudaMemcpy(out, inv_.data(), nn * sizeof(cplx), cudaMemcpyDeviceToHost));
  }

 private:
  Solver s_;
  int n_;
  cuDoubleComplex* a_;
  DeviceBuffer<cplx> inv_;
  DeviceBuffer<int> piv_, info_;
  DeviceBuffer<cplx> work_;
};

}  // namespace

HostVector<cplx> epsilon_inverse_cuda_many(cplx* chis, int nf, const std::vector<double>& v, int n, const std::string& what, double* heads) {
  DeviceBuffer<double> vd(std::span<const double>(v.data(), v.size()), "8 pi / |q+G|^2");
  Inversion inv(chis, n);
  const std::size_t nn = static_cast<std::size_t>(n) * n;
  auto out = host_vector_zeroed<cplx>(nn * nf);  // the pages touched by all threads: their faults were most of the time
  for (int f = 0; f < nf; ++f) {
    const std::string at = nf > 1 ? what + ", frequency " + std::to_string(f + 1) + " of " + std::to_string(nf) : what;
    cplx* chi = chis + f * nn;
    try {
      form_eps_kernel<<<static_cast<unsigned>((nn + 255) / 256), 256>>>(chi, vd.data(), n);
      QUANTA_CUDA_LAUNCH_CHECK("invert form_eps_kernel");
      cplx head;
      QUANTA_CUDA_CHECK(cudaMemcpy(&head, chi, sizeof(cplx), cudaMemcpyDeviceToHost));
      heads[f] = head.re;
      inv.set_matrix(chi);
      inv.run(at, out.data() + f * nn);
    } catch (const OutOfDeviceMemory& e) {
      throw Error(at + ": the device ran out of memory while inverting eps, after eps had replaced chi0 there (" + std::string(e.what()) +
                  "); run with a smaller --gpu-mem-limit or on the CPU");
    }
  }
  return out;
}

std::vector<cplx> invert_cuda(const std::vector<cplx>& a, int n, const std::string& what) {
  DeviceBuffer<cplx> lu(std::span<const cplx>(a.data(), static_cast<std::size_t>(n) * n), "eps (LU)");
  Inversion inv(lu.data(), n);
  return inv.run(what);
}

HostVector<cplx> epsilon_inverse_cuda(cplx* chi, const std::vector<double>& v, int n, const std::string& what, cplx* eps_head) {
  double head = 0;
  auto inv = epsilon_inverse_cuda_many(chi, 1, v, n, what, &head);
  *eps_head = cplx(head);
  return inv;
}

}  // namespace quanta::gw::kernels
