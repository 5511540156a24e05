// The static subspace on the device: sym formed and diagonalized (cuSOLVER zheevd) for the basis, eps^-1(0) as the
// G-basis path inverts; the expansion of eps^-1 with B and every C_f
// uploaded once, two cuBLAS ZGEMMs and one element-wise kernel per frequency, each frequency's eps^-1 downloaded.
#include <cublas_v2.h>
#include <cusolverDn.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "../invert.hpp"
#include "../subspace.hpp"
#include "quanta/core/buffer.hpp"
#include "quanta/core/cuda/check.cuh"
#include "quanta/core/error.hpp"
#include "quanta/core/timer.hpp"

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

// sym(i, j) = sv_i chi(i, j) sv_j (chi unchanged; the host twin is the loop in static_subspace).
__global__ void symmetrize_kernel(cplx* __restrict__ sym, const cplx* __restrict__ chi, const double* __restrict__ sv, int n) {
  const std::size_t k = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  const std::size_t nn = static_cast<std::size_t>(n) * n;
  if (k >= nn) return;
  sym[k] = chi[k] * (sv[k % n] * sv[k / n]);
}

// a (n x n on the device, Hermitian, the lower triangle read) replaced by its eigenvectors, w (device, n) by the
// eigenvalues in ascending order: cuSOLVER zheevd.
void eigen_on_device(cplx* a, int n, double* w, const std::string& what) {
  cusolverDnHandle_t h;
  QUANTA_CUDA_LIB_CHECK("cuSOLVER", cusolverDnCreate(&h));
  struct Guard {
    cusolverDnHandle_t h;
    ~Guard() { cusolverDnDestroy(h); }
  } guard{h};
  auto* az = reinterpret_cast<cuDoubleComplex*>(a);
  DeviceBuffer<int> info(1, "cuSOLVER info");
  int lwork = 0;
  QUANTA_CUDA_LIB_CHECK("cuSOLVER", cusolverDnZheevd_bufferSize(h, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_LOWER, n, az, n, w, &lwork));
  DeviceBuffer<cplx> work(static_cast<std::size_t>(std::max(lwork, 1)), "cuSOLVER zheevd work area");
  QUANTA_CUDA_LIB_CHECK("cuSOLVER", cusolverDnZheevd(h, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_LOWER, n, az, n, w,
                                                      reinterpret_cast<cuDoubleComplex*>(work.data()), lwork, info.data()));
  int h_info = 0;
  QUANTA_CUDA_CHECK(cudaMemcpy(&h_info, info.data(), sizeof(int), cudaMemcpyDeviceToHost));
  if (h_info != 0) throw Error(what + ": the eigen decomposition failed (cuSOLVER zheevd info " + std::to_string(h_info) + ")");
}

}  // namespace

void hermitian_eigen_cuda(std::vector<cplx>& a, int n, std::vector<double>& w, const std::string& what) {
  DeviceBuffer<cplx> ad(std::span<const cplx>(a.data(), a.size()), "chi0 for its eigenvectors");
  DeviceBuffer<double> wd(static_cast<std::size_t>(n), "eigenvalues");
  eigen_on_device(ad.data(), n, wd.data(), what);
  w.resize(n);
  QUANTA_CUDA_CHECK(cudaMemcpy(a.data(), ad.data(), ad.bytes(), cudaMemcpyDeviceToHost));
  QUANTA_CUDA_CHECK(cudaMemcpy(w.data(), wd.data(), wd.bytes(), cudaMemcpyDeviceToHost));
}

StaticSubspace static_subspace_cuda(cplx* chi, const std::vector<double>& v, int n, const ChooseBasis& choose, const std::string& what) {
  const std::size_t n2 = static_cast<std::size_t>(n) * n;
  if (v.size() != static_cast<std::size_t>(n)) throw Error(what + ": static_subspace needs n values of v");
  StaticSubspace s;
  {
    // sym and its decomposition (chi0 only read).
    s.sv = sqrt_of(v);
    DeviceBuffer<double> svd(std::span<const double>(s.sv), "v^1/2"), wd(static_cast<std::size_t>(n), "eigenvalues");
    DeviceBuffer<cplx> sym(n2, "v^1/2 chi0 v^1/2");
    WallTimer tf;
    symmetrize_kernel<<<static_cast<unsigned>((n2 + 255) / 256), 256>>>(sym.data(), chi, svd.data(), n);
    QUANTA_CUDA_LAUNCH_CHECK("subspace symmetrize_kernel");
    QUANTA_CUDA_CHECK(cudaDeviceSynchronize());
    s.form = tf.seconds();
    WallTimer te;
    eigen_on_device(sym.data(), n, wd.data(), what + ", the static chi0 v^1/2 chi0 v^1/2");
    std::vector<double> lambda(n);
    QUANTA_CUDA_CHECK(cudaMemcpy(lambda.data(), wd.data(), wd.bytes(), cudaMemcpyDeviceToHost));
    const auto kept = choose(lambda);
    s.nb = static_cast<int>(kept.size());
    s.basis.resize(static_cast<std::size_t>(n) * s.nb);
    for (int c = 0; c < s.nb; ++c) {
      if (kept[c] < 0 || kept[c] >= n) throw Error(what + ": the subspace's basis names eigenvector " + std::to_string(kept[c]) + " of " + std::to_string(n));
      QUANTA_CUDA_CHECK(cudaMemcpy(s.basis.data() + static_cast<std::size_t>(n) * c, sym.data() + static_cast<std::size_t>(n) * kept[c],
                                   static_cast<std::size_t>(n) * sizeof(cplx), cudaMemcpyDeviceToHost));
    }
    s.eigen = te.seconds();
  }
  // eps formed over chi0 and inverted (its buffers allocated before chi0 is changed).
  WallTimer ti;
  cplx head;
  s.einv0 = epsilon_inverse_cuda(chi, v, n, what + ", static", &head);
  s.eps_head = head.re;
  s.invert = ti.seconds();
  return s;
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
