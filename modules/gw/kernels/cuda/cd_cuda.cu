// The full-frequency contraction on the device: the matrices and the rows' M go up in chunks that fit the budget,
// Y^T = [I_1 ... I_nmat]^T M in one cuBLAS ZGEMM per chunk (the CPU's product), then one block per (row, matrix)
// sums Y^T's column against conj(M(G')) v(G') in a fixed order (deterministic; no atomics). The rotation of eps^-1 to
// q, and the static subspace's form of the same values (cuBLAS products and a row dot).
#include <cublas_v2.h>

#include <algorithm>
#include <span>
#include <string>
#include <vector>

#include "../cd.hpp"
#include "quanta/core/buffer.hpp"
#include "quanta/core/cuda/check.cuh"
#include "quanta/core/error.hpp"

namespace quanta::gw::kernels {
namespace {

constexpr int kReduceThreads = 128;

// s[(r0 + r) nmat_all + f0 + f] = sum_c y[(f ngp + c) + cols r] conj(m[r][gp[c]]) v[gp[c]], one block per (r, f).
__global__ void row_dot_kernel(const cplx* __restrict__ y, const cplx* __restrict__ m, const int* __restrict__ gp, const double* __restrict__ v,
                               int ng, int ngp, std::size_t cols, cplx* __restrict__ s) {
  const int r = blockIdx.x, f = blockIdx.y;
  const cplx* yr = y + r * cols + static_cast<std::size_t>(f) * ngp;
  const cplx* mr = m + static_cast<std::size_t>(r) * ng;
  cplx acc;
  for (int c = threadIdx.x; c < ngp; c += kReduceThreads) acc += yr[c] * (conj(mr[gp[c]]) * v[gp[c]]);
  __shared__ cplx part[kReduceThreads];
  part[threadIdx.x] = acc;
  __syncthreads();
  for (int h = kReduceThreads / 2; h > 0; h /= 2) {
    if (threadIdx.x < h) part[threadIdx.x] += part[threadIdx.x + h];
    __syncthreads();
  }
  if (threadIdx.x == 0) s[static_cast<std::size_t>(r) * gridDim.y + f] = part[0];
}

// s[r nf + f] = sum_b t[f][b][r] conj(beta[b][r]) + head[f] |m[r][g0]|^2, one thread per (r, f): consecutive
// threads read consecutive rows of t and beta.
__global__ void subspace_dot_kernel(const cplx* __restrict__ t, const cplx* __restrict__ beta, const cplx* __restrict__ m, const cplx* __restrict__ head,
                                    int g0, int ng, int nr, int nb, int nf, cplx* __restrict__ s) {
  const int r = blockIdx.x * blockDim.x + threadIdx.x, f = blockIdx.y;
  if (r >= nr) return;
  const cplx* tf = t + static_cast<std::size_t>(f) * nr * nb;
  cplx acc;
  for (int b = 0; b < nb; ++b) acc += tf[r + static_cast<std::size_t>(nr) * b] * conj(beta[r + static_cast<std::size_t>(nr) * b]);
  if (head) acc += head[f] * norm2(m[static_cast<std::size_t>(r) * ng + g0]);
  s[static_cast<std::size_t>(r) * nf + f] = acc;
}

__global__ void rotate_kernel(CdRotateJob j, const cplx* __restrict__ raw, cplx* __restrict__ out) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i >= static_cast<std::size_t>(j.ngs) * j.ncol) return;
  const int a = static_cast<int>(i % j.ngs), c = static_cast<int>(i / j.ngs);
  out[i] = cd_rotated(j, raw, a, j.col_lo + c);
}

}  // namespace

void cd_rotate_cuda(const CdRotateJob& j, const cplx* raw, cplx* out) {
  const std::size_t n = static_cast<std::size_t>(j.ngs) * j.ncol;
  if (n == 0) return;
  rotate_kernel<<<static_cast<unsigned>((n + 255) / 256), 256>>>(j, raw, out);
  QUANTA_CUDA_LAUNCH_CHECK("cd rotate_kernel");
}

void cd_contract_cuda(const CdContractJob& j, std::size_t device_budget) {
  if (j.nrows == 0 || j.nmat == 0) return;
  const std::size_t ng = j.ng, ngp = j.ngp, mat_bytes = ng * ngp * sizeof(cplx);
  if (ngp == 0) {
    std::fill(j.s, j.s + static_cast<std::size_t>(j.nrows) * j.nmat, cplx());
    return;
  }
  const std::size_t budget = device_budget ? device_budget : GpuMemoryBudget{}.usable_bytes();
  // Half the budget for the matrices, half for the rows (M, Y^T and s per row).
  const int fchunk = j.mats_on_device ? j.nmat : static_cast<int>(std::clamp<std::size_t>(budget / 2 / mat_bytes, 0, j.nmat));
  if (fchunk < 1)
    throw OutOfDeviceMemory("cd_contract: one screened-interaction matrix (" + std::to_string(mat_bytes >> 20) + " MiB) exceeds half the device budget of " +
                            std::to_string(budget >> 20) + " MiB");
  const std::size_t per_row = (ng + ngp * fchunk + fchunk) * sizeof(cplx);
  const int rchunk = static_cast<int>(std::clamp<std::size_t>(budget / 2 / per_row, 0, j.nrows));
  if (rchunk < 1) throw OutOfDeviceMemory("cd_contract: one row's products exceed half the device budget of " + std::to_string(budget >> 20) + " MiB");

  std::vector<int> gp(ngp);
  for (std::size_t c = 0; c < ngp; ++c) gp[c] = j.gp_index ? j.gp_index[c] : static_cast<int>(c);
  DeviceBuffer<cplx> mats(j.mats_on_device ? 0 : ng * ngp * fchunk, "full-frequency screened interaction"), m(ng * rchunk, "full-frequency matrix elements"),
      y(ngp * fchunk * rchunk, "full-frequency products"), s(static_cast<std::size_t>(fchunk) * rchunk, "full-frequency band sums");
  DeviceBuffer<int> gpd(ngp, "full-frequency columns");
  DeviceBuffer<double> vd(ng, "full-frequency Coulomb");
  QUANTA_CUDA_CHECK(cudaMemcpy(gpd.data(), gp.data(), ngp * sizeof(int), cudaMemcpyHostToDevice));
  QUANTA_CUDA_CHECK(cudaMemcpy(vd.data(), j.v, ng * sizeof(double), cudaMemcpyHostToDevice));
  cublasHandle_t handle;
  QUANTA_CUDA_LIB_CHECK("cuBLAS", cublasCreate(&handle));
  cudaEvent_t t0, t1;
  QUANTA_CUDA_CHECK(cudaEventCreate(&t0));
  QUANTA_CUDA_CHECK(cudaEventCreate(&t1));
  float ms_total = 0;
  std::vector<cplx> part(static_cast<std::size_t>(fchunk) * rchunk);
  const cuDoubleComplex one = make_cuDoubleComplex(1, 0), zero = make_cuDoubleComplex(0, 0);
  for (int f0 = 0; f0 < j.nmat; f0 += fchunk) {
    const int nf = std::min(fchunk, j.nmat - f0);
    const std::size_t cols = ngp * nf;
    if (!j.mats_on_device) QUANTA_CUDA_CHECK(cudaMemcpy(mats.data(), j.mats + f0 * ng * ngp, nf * mat_bytes, cudaMemcpyHostToDevice));
    const cplx* mp = j.mats_on_device ? j.mats + f0 * ng * ngp : mats.data();
    for (int r0 = 0; r0 < j.nrows; r0 += rchunk) {
      const int nr = std::min(rchunk, j.nrows - r0);
      QUANTA_CUDA_CHECK(cudaMemcpy(m.data(), j.m + r0 * ng, nr * ng * sizeof(cplx), cudaMemcpyHostToDevice));
      QUANTA_CUDA_CHECK(cudaEventRecord(t0));
      QUANTA_CUDA_LIB_CHECK("cuBLAS", cublasZgemm(handle, CUBLAS_OP_T, CUBLAS_OP_N, static_cast<int>(cols), nr, j.ng, &one,
                                                  reinterpret_cast<const cuDoubleComplex*>(mp), j.ng,
                                                  reinterpret_cast<const cuDoubleComplex*>(m.data()), j.ng, &zero,
                                                  reinterpret_cast<cuDoubleComplex*>(y.data()), static_cast<int>(cols)));
      row_dot_kernel<<<dim3(nr, nf), kReduceThreads>>>(y.data(), m.data(), gpd.data(), vd.data(), j.ng, j.ngp, cols, s.data());
      QUANTA_CUDA_LAUNCH_CHECK("cd_contract row_dot_kernel");
      QUANTA_CUDA_CHECK(cudaEventRecord(t1));
      QUANTA_CUDA_CHECK(cudaMemcpy(part.data(), s.data(), static_cast<std::size_t>(nr) * nf * sizeof(cplx), cudaMemcpyDeviceToHost));
      float ms = 0;
      QUANTA_CUDA_CHECK(cudaEventElapsedTime(&ms, t0, t1));
      ms_total += ms;
      for (int r = 0; r < nr; ++r)
        for (int f = 0; f < nf; ++f) j.s[static_cast<std::size_t>(r0 + r) * j.nmat + f0 + f] = part[static_cast<std::size_t>(r) * nf + f];
    }
  }
  cudaEventDestroy(t0);
  cudaEventDestroy(t1);
  cublasDestroy(handle);
  if (j.kernel_seconds) *j.kernel_seconds += ms_total * 1e-3;
}

// The static subspace's values: L, Rv and the frequencies' D (in chunks that fit a quarter of the budget) go up once,
// the rows in chunks; per row chunk alpha = M^T L and beta = M^T Rv (two ZGEMMs), per frequency chunk T_j = alpha D'_j
// (one strided-batched ZGEMM) and the row dots.
void cd_subspace_cuda(const CdSubspaceJob& j, std::size_t device_budget) {
  std::fill(j.s, j.s + static_cast<std::size_t>(j.nrows) * j.nmat, cplx());
  if (j.nrows == 0 || j.nmat == 0 || j.nb == 0) return;
  const std::size_t ng = j.ng, nb = j.nb, b2 = nb * nb, z = sizeof(cplx);
  const std::size_t budget = device_budget ? device_budget : GpuMemoryBudget{}.usable_bytes();
  const std::size_t fixed_basis = 2 * ng * nb * z;
  const int fchunk = static_cast<int>(std::clamp<std::size_t>(budget / 4 / (b2 * z), 0, j.nmat));
  if (fixed_basis > budget / 2 || fchunk < 1)
    throw OutOfDeviceMemory("cd_subspace: the basis (" + std::to_string(fixed_basis >> 20) + " MiB) or one frequency's " + std::to_string(nb) + "^2 matrix exceeds the device budget of " +
                            std::to_string(budget >> 20) + " MiB");
  const std::size_t left = budget - fixed_basis - fchunk * b2 * z;
  const std::size_t per_row = (ng + 2 * nb + nb * fchunk + fchunk) * z;
  const int rchunk = static_cast<int>(std::clamp<std::size_t>(left / per_row, 0, j.nrows));
  if (rchunk < 1) throw OutOfDeviceMemory("cd_subspace: one row's products exceed what the basis leaves of the device budget of " + std::to_string(budget >> 20) + " MiB");

  const DeviceBuffer<cplx> L(std::span<const cplx>(j.L, ng * nb), "subspace L"), Rv(std::span<const cplx>(j.Rv, ng * nb), "subspace Rv");
  DeviceBuffer<cplx> d(fchunk * b2, "subspace D"), m(ng * rchunk, "subspace matrix elements"), alpha(nb * rchunk, "subspace alpha"),
      beta(nb * rchunk, "subspace beta"), t(nb * rchunk * fchunk, "subspace products"), s(static_cast<std::size_t>(fchunk) * rchunk, "subspace band sums");
  const bool with_head = j.head && j.g0 >= 0;
  DeviceBuffer<cplx> head(with_head ? j.nmat : 0, "subspace head");
  if (with_head) QUANTA_CUDA_CHECK(cudaMemcpy(head.data(), j.head, j.nmat * z, cudaMemcpyHostToDevice));
  cublasHandle_t handle;
  QUANTA_CUDA_LIB_CHECK("cuBLAS", cublasCreate(&handle));
  cudaEvent_t t0, t1;
  QUANTA_CUDA_CHECK(cudaEventCreate(&t0));
  QUANTA_CUDA_CHECK(cudaEventCreate(&t1));
  float ms_total = 0;
  std::vector<cplx> part(static_cast<std::size_t>(fchunk) * rchunk);
  const cuDoubleComplex one = make_cuDoubleComplex(1, 0), zero = make_cuDoubleComplex(0, 0);
  auto z_ = [](const cplx* p) { return reinterpret_cast<const cuDoubleComplex*>(p); };
  auto zw = [](cplx* p) { return reinterpret_cast<cuDoubleComplex*>(p); };
  const int ngi = j.ng, nbi = j.nb;
  int d_loaded = -1;  // the first frequency of the chunk d holds
  for (int r0 = 0; r0 < j.nrows; r0 += rchunk) {
    const int nr = std::min(rchunk, j.nrows - r0);
    QUANTA_CUDA_CHECK(cudaMemcpy(m.data(), j.m + r0 * ng, nr * ng * z, cudaMemcpyHostToDevice));
    QUANTA_CUDA_CHECK(cudaEventRecord(t0));
    QUANTA_CUDA_LIB_CHECK("cuBLAS", cublasZgemm(handle, CUBLAS_OP_T, CUBLAS_OP_N, nr, nbi, ngi, &one, z_(m.data()), ngi, z_(L.data()), ngi, &zero, zw(alpha.data()), nr));
    QUANTA_CUDA_LIB_CHECK("cuBLAS", cublasZgemm(handle, CUBLAS_OP_T, CUBLAS_OP_N, nr, nbi, ngi, &one, z_(m.data()), ngi, z_(Rv.data()), ngi, &zero, zw(beta.data()), nr));
    QUANTA_CUDA_CHECK(cudaEventRecord(t1));
    QUANTA_CUDA_CHECK(cudaEventSynchronize(t1));
    float ms = 0;
    QUANTA_CUDA_CHECK(cudaEventElapsedTime(&ms, t0, t1));
    ms_total += ms;
    for (int f0 = 0; f0 < j.nmat; f0 += fchunk) {
      const int nf = std::min(fchunk, j.nmat - f0);
      if (d_loaded != f0) {
        QUANTA_CUDA_CHECK(cudaMemcpy(d.data(), j.d + f0 * b2, nf * b2 * z, cudaMemcpyHostToDevice));
        d_loaded = f0;
      }
      QUANTA_CUDA_CHECK(cudaEventRecord(t0));
      QUANTA_CUDA_LIB_CHECK("cuBLAS", cublasZgemmStridedBatched(handle, CUBLAS_OP_N, j.transposed ? CUBLAS_OP_T : CUBLAS_OP_N, nr, nbi, nbi, &one, z_(alpha.data()), nr, 0,
                                                                z_(d.data()), nbi, static_cast<long long>(b2), &zero, zw(t.data()), nr,
                                                                static_cast<long long>(nr) * nbi, nf));
      subspace_dot_kernel<<<dim3((nr + 127) / 128, nf), 128>>>(t.data(), beta.data(), m.data(), with_head ? head.data() + f0 : nullptr, j.g0, j.ng, nr, nbi, nf,
                                                              s.data());
      QUANTA_CUDA_LAUNCH_CHECK("cd_subspace subspace_dot_kernel");
      QUANTA_CUDA_CHECK(cudaEventRecord(t1));
      QUANTA_CUDA_CHECK(cudaMemcpy(part.data(), s.data(), static_cast<std::size_t>(nr) * nf * z, cudaMemcpyDeviceToHost));
      QUANTA_CUDA_CHECK(cudaEventElapsedTime(&ms, t0, t1));
      ms_total += ms;
      for (int r = 0; r < nr; ++r)
        for (int f = 0; f < nf; ++f) j.s[static_cast<std::size_t>(r0 + r) * j.nmat + f0 + f] = part[static_cast<std::size_t>(r) * nf + f];
    }
  }
  cudaEventDestroy(t0);
  cudaEventDestroy(t1);
  cublasDestroy(handle);
  if (j.kernel_seconds) *j.kernel_seconds += ms_total * 1e-3;
}

}  // namespace quanta::gw::kernels
