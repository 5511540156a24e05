// The GPP self-energy matrices on the device (the seed's off-diagonal kernel). For a chunk of bands m whose
// matrix elements are resident, and for each m a chunk of frequencies: a prep kernel forms the W_m(w) of the
// chunk, stacked as one tall matrix [W^sch(w_1); ...; W^sch(w_J); W^ssx(w_1); ...] (the SX-X blocks for
// occupied m only), one ZGEMM (cuBLAS's 3M form) contracts the stack with C_m = conj(M_m)^T of the columns held, and a strided
// batched ZGEMM per part contracts each block with M_m and adds it, scaled (1/2 weight for CH, -weight for
// SX-X), into the sums that stay on the device until the end.
#include <cublas_v2.h>

#include <algorithm>
#include <string>
#include <vector>

#include "../gpp_matrix.hpp"
#include "quanta/core/buffer.hpp"
#include "quanta/core/cuda/check.cuh"
#include "quanta/core/cuda/event_timer.cuh"
#include "quanta/core/error.hpp"

namespace quanta::gw::kernels {
namespace {

constexpr int kThreads = 256;

// C(c, n') = conj(M_n'm(G'_c)) for the band m of the resident chunk: [nn][ncol], column-major ncol x nn.
__global__ void gather_columns(const cplx* __restrict__ m, int nmc, int ng, int mi, const int* __restrict__ gp, int ncol, int nn,
                               cplx* __restrict__ c) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i >= static_cast<std::size_t>(ncol) * nn) return;
  const int col = static_cast<int>(i % ncol), n = static_cast<int>(i / ncol);
  c[i] = conj(m[(static_cast<std::size_t>(n) * nmc + mi) * ng + gp[col]]);
}

// One thread per entry (G, c): its mode once, then W^sch and (occupied) W^ssx for each frequency of the chunk,
// at rows j ng + G and (nw + j) ng + G of the stack (leading dimension ld).
__global__ void form_w(int ng, int ncol, const int* __restrict__ gp, const cplx* __restrict__ i_eps, const double* __restrict__ wt,
                       const double* __restrict__ v, const double* __restrict__ omega, int nw, double e_m, bool occupied,
                       std::size_t ld, cplx* __restrict__ w_stack) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i >= static_cast<std::size_t>(ncol) * ng) return;
  const int g = static_cast<int>(i % ng), col = static_cast<int>(i / ng);
  const GppMode<double> q(i_eps[i], wt[i]);
  const double vg = v[gp[col]];
  cplx* out = w_stack + static_cast<std::size_t>(col) * ld + g;
  for (int j = 0; j < nw; ++j) {
    double cf, sf;
    gpp_entry_factors(q, gpp_frequency(omega[j], e_m), occupied, cf, sf);
    out[static_cast<std::size_t>(j) * ng] = q.I * (cf * vg);
    if (occupied) out[static_cast<std::size_t>(nw + j) * ng] = q.I * (sf * vg);
  }
}

cuDoubleComplex z(cplx x) { return make_cuDoubleComplex(x.re, x.im); }
const cuDoubleComplex* z(const cplx* p) { return reinterpret_cast<const cuDoubleComplex*>(p); }
cuDoubleComplex* z(cplx* p) { return reinterpret_cast<cuDoubleComplex*>(p); }

struct Cublas {
  Cublas() { QUANTA_CUDA_LIB_CHECK("cuBLAS", cublasCreate(&handle)); }
  ~Cublas() { cublasDestroy(handle); }
  cublasHandle_t handle = nullptr;
};

}  // namespace

void gpp_matrix_cuda(const GppMatrixJob& j, std::size_t device_budget) {
  const int ng = j.ng, ncol = j.columns(), nn = j.nn, nw = j.nw;
  if (ng <= 0 || ncol <= 0 || nn <= 0 || nw <= 0 || j.nm <= 0) return;
  const std::size_t budget = device_budget ? device_budget : GpuMemoryBudget{}.usable_bytes();
  const std::size_t entries = static_cast<std::size_t>(ng) * ncol, outputs = static_cast<std::size_t>(nw) * nn * nn;
  // Resident: I, wt, v, the columns, the frequencies, the sums and C; per frequency of a chunk two W blocks and
  // two B blocks; per band m of a chunk its matrix elements. Up to half of what is left for the frequencies
  // (at least one), the rest for the bands.
  const std::size_t fixed = (j.modes_on_device ? 0 : entries * (sizeof(cplx) + sizeof(double))) + ng * sizeof(double) + ncol * sizeof(int) + nw * sizeof(double) +
                            2 * outputs * sizeof(cplx) + static_cast<std::size_t>(ncol) * nn * sizeof(cplx);
  const std::size_t per_w = 2 * (entries + static_cast<std::size_t>(ng) * nn) * sizeof(cplx);
  const std::size_t per_m = static_cast<std::size_t>(nn) * ng * sizeof(cplx);
  const std::size_t rest = budget > fixed ? budget - fixed : 0;
  const int w_chunk = static_cast<int>(std::clamp<std::size_t>(rest / 2 / per_w, 1, nw));
  if (rest < w_chunk * per_w + per_m)
    throw OutOfDeviceMemory("gpp_matrix: a device budget of " + std::to_string(budget >> 20) + " MiB cannot hold the screened interaction of " +
                            std::to_string(ng) + " x " + std::to_string(ncol) + " G-vectors with one frequency's W matrices (" +
                            std::to_string(per_w >> 20) + " MiB) and one band's matrix elements");
  const int m_chunk = static_cast<int>(std::min<std::size_t>((rest - w_chunk * per_w) / per_m, j.nm));

  std::vector<int> columns(ncol);
  for (int c = 0; c < ncol; ++c) columns[c] = j.column_g(c);
  DeviceBuffer<int> gp(std::span<const int>(columns), "gpp_matrix columns");
  DeviceBuffer<cplx> i_eps_up;
  DeviceBuffer<double> wt_up;
  if (!j.modes_on_device) {
    i_eps_up = DeviceBuffer<cplx>(std::span<const cplx>(j.i_eps, entries), "gpp_matrix I");
    wt_up = DeviceBuffer<double>(std::span<const double>(j.wt, entries), "gpp_matrix mode frequencies");
  }
  const cplx* i_eps = j.modes_on_device ? j.i_eps : i_eps_up.data();
  const double* wt = j.modes_on_device ? j.wt : wt_up.data();
  DeviceBuffer<double> v(std::span<const double>(j.v, ng), "gpp_matrix Coulomb");
  DeviceBuffer<double> omega(std::span<const double>(j.omega, nw), "gpp_matrix frequencies");
  DeviceBuffer<cplx> sx(outputs, "gpp_matrix SX-X"), ch(outputs, "gpp_matrix CH");
  QUANTA_CUDA_CHECK(cudaMemset(sx.data(), 0, sx.bytes()));
  QUANTA_CUDA_CHECK(cudaMemset(ch.data(), 0, ch.bytes()));
  DeviceBuffer<cplx> c(static_cast<std::size_t>(ncol) * nn, "gpp_matrix C");
  DeviceBuffer<cplx> w_stack(2 * static_cast<std::size_t>(w_chunk) * entries, "gpp_matrix W");
  DeviceBuffer<cplx> b_stack(2 * static_cast<std::size_t>(w_chunk) * ng * nn, "gpp_matrix B");
  DeviceBuffer<cplx> m(static_cast<std::size_t>(nn) * m_chunk * ng, "gpp_matrix matrix elements");
  Cublas blas;
  cuda::EventTimer timer;
  float kernel_ms = 0;
  const cuDoubleComplex one = z(cplx(1.0)), zero = z(cplx()), f_ch = z(cplx(0.5 * j.weight)), f_sx = z(cplx(-j.weight));
  for (int m0 = 0; m0 < j.nm; m0 += m_chunk) {
    const int nmc = std::min(m_chunk, j.nm - m0);
    QUANTA_CUDA_CHECK(cudaMemcpy2D(m.data(), nmc * ng * sizeof(cplx), j.m + static_cast<std::size_t>(m0) * ng, j.nm * ng * sizeof(cplx),
                                   nmc * ng * sizeof(cplx), nn, cudaMemcpyHostToDevice));
    timer.start();
    for (int mi = 0; mi < nmc; ++mi) {
      const bool occupied = m0 + mi < j.nocc;
      const std::size_t nc = static_cast<std::size_t>(ncol) * nn;
      gather_columns<<<static_cast<unsigned>((nc + kThreads - 1) / kThreads), kThreads>>>(m.data(), nmc, ng, mi, gp.data(), ncol, nn, c.data());
      QUANTA_CUDA_LAUNCH_CHECK("gpp_matrix gather_columns");
      const cplx* mm = m.data() + static_cast<std::size_t>(mi) * ng;  // M_m as ng x nn, leading dimension nmc ng
      for (int w0 = 0; w0 < nw; w0 += w_chunk) {
        const int jw = std::min(w_chunk, nw - w0);
        const int blocks = occupied ? 2 * jw : jw;
        const std::size_t ld = static_cast<std::size_t>(blocks) * ng;
        form_w<<<static_cast<unsigned>((entries + kThreads - 1) / kThreads), kThreads>>>(ng, ncol, gp.data(), i_eps, wt, v.data(),
                                                                                       omega.data() + w0, jw, j.e_m[m0 + mi], occupied, ld,
                                                                                       w_stack.data());
        QUANTA_CUDA_LAUNCH_CHECK("gpp_matrix form_w");
        const int ldi = static_cast<int>(ld);
        // B = [W blocks] C: (blocks ng) x nn, by the 3M product (three real products per complex one instead of four;
        // the same result to rounding, 1e-15 relative in gw_parity_test; on an H100 41.7 -> 52.6 TFLOP/s counted as eq. 8).
        QUANTA_CUDA_LIB_CHECK("cuBLAS", cublasZgemm3m(blas.handle, CUBLAS_OP_N, CUBLAS_OP_N, ldi, nn, ncol, &one, z(w_stack.data()), ldi, z(c.data()),
                                                    ncol, &zero, z(b_stack.data()), ldi));
        // Each block: S^T(n', n) += f sum_G B(G, n') M_nm(G), into the sums at frequency w0 + j.
        for (int part = 0; part < (occupied ? 2 : 1); ++part)
          QUANTA_CUDA_LIB_CHECK("cuBLAS", cublasZgemmStridedBatched(blas.handle, CUBLAS_OP_T, CUBLAS_OP_N, nn, nn, ng, part == 0 ? &f_ch : &f_sx,
                                                                    z(b_stack.data()) + static_cast<std::size_t>(part) * jw * ng, ldi, ng,
                                                                    z(mm), nmc * ng, 0, &one,
                                                                    z((part == 0 ? ch : sx).data()) + static_cast<std::size_t>(w0) * nn * nn, nn,
                                                                    static_cast<long long>(nn) * nn, jw));
      }
    }
    kernel_ms += timer.stop_ms();
  }
  if (j.kernel_seconds) *j.kernel_seconds += 1e-3 * kernel_ms;
  std::vector<cplx> host(outputs);
  for (int part = 0; part < 2; ++part) {
    QUANTA_CUDA_CHECK(cudaMemcpy(host.data(), (part == 0 ? ch : sx).data(), outputs * sizeof(cplx), cudaMemcpyDeviceToHost));
    cplx* out = part == 0 ? j.ch : j.sx;
    for (std::size_t i = 0; i < outputs; ++i) out[i] += host[i];
  }
}

}  // namespace quanta::gw::kernels
