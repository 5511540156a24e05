// Second-Born self-energy of a time row on the GPU: the FFT form (batched cuFFT over all time pairs of the
// row, one pointwise kernel between the two transforms) and the seed's direct contraction (a thread per
// output element). Formulas: kernels/self_energy.hpp.
#include "launch.cuh"
#include "quanta/core/cuda/check.cuh"
#include "quanta/core/error.hpp"

namespace quanta::kbe::kernels {
namespace {

constexpr int kBlock = 256;

unsigned blocks(long n) { return static_cast<unsigned>((n + kBlock - 1) / kBlock); }

void check_cufft(cufftResult r, const char* what) {
  if (r != CUFFT_SUCCESS) throw Error(std::string("kbe self-energy: ") + what + " failed (cuFFT error " + std::to_string(r) + ")");
}

// Sigma~(R) of every pair l < count, scaled by U(t) U(t'_l) / nk^3.
__global__ void pointwise_kernel(int nk, int count, const cplx* __restrict__ sites_l, const cplx* __restrict__ sites_g,
                                 double u_t, const double* __restrict__ u_tp, cplx* __restrict__ sigma_l,
                                 cplx* __restrict__ sigma_g) {
  const long i = blockIdx.x * static_cast<long>(blockDim.x) + threadIdx.x;
  if (i >= static_cast<long>(count) * nk) return;
  const int l = static_cast<int>(i / nk), r = static_cast<int>(i % nk);
  const std::size_t off = l * block_size(nk);
  const M2 xl = load_block(sites_l + off, r, nk), xg = load_block(sites_g + off, r, nk);
  const double pref = u_t * u_tp[l] / (static_cast<double>(nk) * nk * nk);
  store_block(sigma_l + off, r, nk, pref * second_born_pointwise(xl, xg));
  store_block(sigma_g + off, r, nk, pref * second_born_pointwise(xg, xl));
}

// P_ab(q) for Sigma< (which = 0: x = G<, y = G>) and Sigma> (which = 1), every pair l.
__global__ void polarization_kernel(int nk, int count, const cplx* __restrict__ gl, const cplx* __restrict__ gg,
                                    cplx* __restrict__ pol) {  // [count][2][4][nk]
  const long i = blockIdx.x * static_cast<long>(blockDim.x) + threadIdx.x;
  if (i >= static_cast<long>(count) * 8 * nk) return;
  const int q = static_cast<int>(i % nk), p = static_cast<int>((i / nk) % 4), which = static_cast<int>((i / (4 * nk)) % 2);
  const int l = static_cast<int>(i / (8 * nk));
  const std::size_t off = l * block_size(nk);
  const cplx* x = (which == 0 ? gl : gg) + off;
  const cplx* ybar = (which == 0 ? gg : gl) + off;
  pol[i] = polarization_element(x, ybar, p / 2, p % 2, q, nk);
}

__global__ void direct_sigma_kernel(int nk, int count, const cplx* __restrict__ gl, const cplx* __restrict__ gg,
                                    double u_t, const double* __restrict__ u_tp, const cplx* __restrict__ pol,
                                    cplx* __restrict__ sigma_l, cplx* __restrict__ sigma_g) {
  const long i = blockIdx.x * static_cast<long>(blockDim.x) + threadIdx.x;
  if (i >= static_cast<long>(count) * 8 * nk) return;
  const int k = static_cast<int>(i % nk), p = static_cast<int>((i / nk) % 4), which = static_cast<int>((i / (4 * nk)) % 2);
  const int l = static_cast<int>(i / (8 * nk));
  const std::size_t off = l * block_size(nk);
  const cplx* x = (which == 0 ? gl : gg) + off;
  const cplx* ybar = (which == 0 ? gg : gl) + off;
  const cplx* P = pol + (2 * static_cast<std::size_t>(l) + which) * block_size(nk);
  const double pref = u_t * u_tp[l] / (static_cast<double>(nk) * nk);
  const int j = p / 2, m = p % 2;
  (which == 0 ? sigma_l : sigma_g)[off + in_block(p, k, nk)] =
      pref * (sigma1_element(P, x, j, m, k, nk) - sigma2_element(x, ybar, j, m, k, nk));
}

}  // namespace

void self_energy_fft_cuda(cufftHandle plan, int nk, int count, const cplx* g_less_row, const cplx* g_greater_row,
                          double u_t, const double* u_tp, cplx* sites_l, cplx* sites_g, cplx* sigma_l, cplx* sigma_g) {
  auto z = [](const cplx* p) { return reinterpret_cast<cufftDoubleComplex*>(const_cast<cplx*>(p)); };
  // G~(R) = sum_k e^{+2 pi i k R / nk} G(k): CUFFT_INVERSE, as FFTW_BACKWARD on the CPU.
  check_cufft(cufftExecZ2Z(plan, z(g_less_row), z(sites_l), CUFFT_INVERSE), "G< to lattice sites");
  check_cufft(cufftExecZ2Z(plan, z(g_greater_row), z(sites_g), CUFFT_INVERSE), "G> to lattice sites");
  pointwise_kernel<<<blocks(static_cast<long>(count) * nk), kBlock>>>(nk, count, sites_l, sites_g, u_t, u_tp, sigma_l, sigma_g);
  QUANTA_CUDA_LAUNCH_CHECK("kbe pointwise self-energy");
  check_cufft(cufftExecZ2Z(plan, z(sigma_l), z(sigma_l), CUFFT_FORWARD), "Sigma< to k");
  check_cufft(cufftExecZ2Z(plan, z(sigma_g), z(sigma_g), CUFFT_FORWARD), "Sigma> to k");
}

void self_energy_direct_cuda(int nk, int count, const cplx* g_less_row, const cplx* g_greater_row, double u_t,
                             const double* u_tp, cplx* pol, cplx* sigma_l, cplx* sigma_g) {
  const long n = static_cast<long>(count) * 8 * nk;
  polarization_kernel<<<blocks(n), kBlock>>>(nk, count, g_less_row, g_greater_row, pol);
  QUANTA_CUDA_LAUNCH_CHECK("kbe polarization");
  direct_sigma_kernel<<<blocks(n), kBlock>>>(nk, count, g_less_row, g_greater_row, u_t, u_tp, pol, sigma_l, sigma_g);
  QUANTA_CUDA_LAUNCH_CHECK("kbe direct self-energy");
}

}  // namespace quanta::kbe::kernels
