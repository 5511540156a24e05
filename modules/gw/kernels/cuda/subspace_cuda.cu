// The static subspace on the device: cuSOLVER zheevd for the basis; the expansion of eps^-1 with B and every C_f
// uploaded once, two cuBLAS ZGEMMs and one element-wise kernel per frequency, each frequency's eps^-1 downloaded.
#include <cublas_v2.h>
#include <cusolverDn.h>

#include <string>

#include "../subspace.hpp"
#include "quanta/core/buffer.hpp"
#include "quanta/core/cuda/check.cuh"
#include "quanta/core/error.hpp"

namespace quanta::gw::kernels {
namespace {

// o(r, c) = base(r, c) + e(r, c) sv_r / sv_c, base = einv0 or the identity.
__global__ void finish_kernel(cplx* __restrict__ o, const cplx* __restrict__ e, const cplx* __restrict__ einv0, const double* __restrict__ sv, int ng) {
  const std::size_t k = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  const std::size_t n2 = static_cast<std::size_t>(ng) * ng;
  if (k >= n2) return;
  const std::size_t r = k % ng, c = k / ng;
  const cplx base = einv0 ? einv0[k] : (r == c ? cplx(1.0) : cplx());
  o[k] = base + e[k] * (sv[r] / sv[c]);
}

}  // namespace

void hermitian_eigen_cuda(std::vector<cplx>& a, int n, std::vector<double>& w, const std::string& what) {
  cusolverDnHandle_t h;
  QUANTA_CUDA_LIB_CHECK("cuSOLVER", cusolverDnCreate(&h));
  struct Guard {
    cusolverDnHandle_t h;
    ~Guard() { cusolverDnDestroy(h); }
  } guard{h};
  DeviceBuffer<cplx> ad(std::span<const cplx>(a.data(), a.size()), "chi0 for its eigenvectors");
  DeviceBuffer<double> wd(static_cast<std::size_t>(n), "eigenvalues");
  DeviceBuffer<int> info(1, "cuSOLVER info");
  int lwork = 0;
  QUANTA_CUDA_LIB_CHECK("cuSOLVER", cusolverDnZheevd_bufferSize(h, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_LOWER, n,
                                                                 reinterpret_cast<cuDoubleComplex*>(ad.data()), n, wd.data(), &lwork));
  DeviceBuffer<cplx> work(static_cast<std::size_t>(std::max(lwork, 1)), "cuSOLVER zheevd work area");
  QUANTA_CUDA_LIB_CHECK("cuSOLVER", cusolverDnZheevd(h, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_LOWER, n, reinterpret_cast<cuDoubleComplex*>(ad.data()), n,
                                                      wd.data(), reinterpret_cast<cuDoubleComplex*>(work.data()), lwork, info.data()));
  int h_info = 0;
  QUANTA_CUDA_CHECK(cudaMemcpy(&h_info, info.data(), sizeof(int), cudaMemcpyDeviceToHost));
  if (h_info != 0) throw Error(what + ": the eigen decomposition failed (cuSOLVER zheevd info " + std::to_string(h_info) + ")");
  w.resize(n);
  QUANTA_CUDA_CHECK(cudaMemcpy(a.data(), ad.data(), ad.bytes(), cudaMemcpyDeviceToHost));
  QUANTA_CUDA_CHECK(cudaMemcpy(w.data(), wd.data(), wd.bytes(), cudaMemcpyDeviceToHost));
}

HostVector<cplx> subspace_expand_cuda(const SubspaceExpansion& j) {
  const std::size_t ng = j.ng, nb = j.nb, n2 = ng * ng, b2 = nb * nb;
  DeviceBuffer<cplx> basis(std::span<const cplx>(j.basis, ng * nb), "subspace basis"), c(std::span<const cplx>(j.c, b2 * j.nf), "subspace C");
  DeviceBuffer<cplx> t(ng * nb, "subspace B D"), e(n2, "subspace B D B^H"), o(n2, "eps^-1 expanded");
  DeviceBuffer<cplx> einv0;
  if (j.keep) einv0 = DeviceBuffer<cplx>(std::span<const cplx>(j.einv0, n2), "static eps^-1");
  DeviceBuffer<double> sv(std::span<const double>(j.sv, ng), "v^1/2");
  cublasHandle_t h;
  QUANTA_CUDA_LIB_CHECK("cuBLAS", cublasCreate(&h));
  struct Guard {
    cublasHandle_t h;
    ~Guard() { cublasDestroy(h); }
  } guard{h};
  const cuDoubleComplex one = make_cuDoubleComplex(1, 0), zero = make_cuDoubleComplex(0, 0), minus = make_cuDoubleComplex(-1, 0);
  auto z = [](const cplx* p) { return reinterpret_cast<const cuDoubleComplex*>(p); };
  auto zm = [](cplx* p) { return reinterpret_cast<cuDoubleComplex*>(p); };
  auto out = host_vector_zeroed<cplx>(n2 * j.nf);
  DeviceBuffer<cplx> d(b2, "subspace D");
  for (int f = 0; f < j.nf; ++f) {
    // D = C_f - C_f0 (keep) or C_f.
    QUANTA_CUDA_CHECK(cudaMemcpy(d.data(), c.data() + f * b2, b2 * sizeof(cplx), cudaMemcpyDeviceToDevice));
    if (j.keep) QUANTA_CUDA_LIB_CHECK("cuBLAS", cublasZaxpy(h, static_cast<int>(b2), &minus, z(c.data() + j.f0 * b2), 1, zm(d.data()), 1));
    QUANTA_CUDA_LIB_CHECK("cuBLAS", cublasZgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, j.ng, j.nb, j.nb, &one, z(basis.data()), j.ng, z(d.data()), j.nb, &zero, zm(t.data()), j.ng));
    QUANTA_CUDA_LIB_CHECK("cuBLAS", cublasZgemm(h, CUBLAS_OP_N, CUBLAS_OP_C, j.ng, j.ng, j.nb, &one, z(t.data()), j.ng, z(basis.data()), j.ng, &zero, zm(e.data()), j.ng));
    finish_kernel<<<static_cast<unsigned>((n2 + 255) / 256), 256>>>(o.data(), e.data(), j.keep ? einv0.data() : nullptr, sv.data(), j.ng);
    QUANTA_CUDA_LAUNCH_CHECK("subspace finish_kernel");
    QUANTA_CUDA_CHECK(cudaMemcpy(out.data() + f * n2, o.data(), n2 * sizeof(cplx), cudaMemcpyDeviceToHost));
  }
  return out;
}

}  // namespace quanta::gw::kernels
