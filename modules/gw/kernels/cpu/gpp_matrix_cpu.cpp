// The GPP self-energy matrices on the host: threads over the bands m, each forming W_m of every frequency and
// contracting it with the matrix elements by two ZGEMMs (BLAS on the calling thread), as the device does per
// band. Each thread adds into its own sums; the threads' sums are added at the end. As many threads as
// have room for their W matrices in half of the available host memory (at least one).
#include <omp.h>

#include <algorithm>
#include <vector>

#include "../../src/blas.hpp"
#include "../gpp_matrix.hpp"
#include "quanta/core/error.hpp"
#include "quanta/core/host_memory.hpp"
#include "quanta/core/threads.hpp"


namespace quanta::gw::kernels {
namespace {

// One thread's buffers: W^sch and W^ssx of one frequency, C, B, one product and its sums over its bands.
struct Work {
  std::vector<cplx> w_ch, w_sx, c, b, s, sx, ch;
  Work(std::size_t entries, std::size_t c_size, std::size_t b_size, std::size_t nn2, std::size_t outputs)
      : w_ch(entries), w_sx(entries), c(c_size), b(b_size), s(nn2), sx(outputs), ch(outputs) {}
};

// Band m into the thread's sums: for each frequency W_m, then S^T = (W C)^T M_m^T, i.e. S^T(n', n) = sum_G B(G, n')
// M_nm(G), stored [n][n'].
void add_band(const GppMatrixJob& j, int m, Work& t) {
  const int ng = j.ng, ncol = j.columns(), nn = j.nn;
  const bool occupied = m < j.nocc;
  const cplx one(1.0), zero;
  const int ldm = j.nm * ng;
  for (int n = 0; n < nn; ++n)
    for (int col = 0; col < ncol; ++col) t.c[col + static_cast<std::size_t>(ncol) * n] = conj(j.m[(static_cast<std::size_t>(n) * j.nm + m) * ng + j.column_g(col)]);
  for (int iw = 0; iw < j.nw; ++iw) {
    const double w = gpp_frequency(j.omega[iw], j.e_m[m]);
    for (int col = 0; col < ncol; ++col) {
      const double vg = j.v[j.column_g(col)];
      for (int g = 0; g < ng; ++g) {
        const std::size_t at = static_cast<std::size_t>(col) * ng + g;
        const GppMode<double> q(j.i_eps[at], j.wt[at]);
        double cf, sf;
        gpp_entry_factors(q, w, occupied, cf, sf);
        t.w_ch[at] = q.I * (cf * vg);
        if (occupied) t.w_sx[at] = q.I * (sf * vg);
      }
    }
    for (int part = 0; part < (occupied ? 2 : 1); ++part) {
      zgemm_("N", "N", &ng, &nn, &ncol, &one, (part == 0 ? t.w_ch : t.w_sx).data(), &ng, t.c.data(), &ncol, &zero, t.b.data(), &ng);
      zgemm_("T", "N", &nn, &nn, &ng, &one, t.b.data(), &ng, j.m + static_cast<std::size_t>(m) * ng, &ldm, &zero, t.s.data(), &nn);
      cplx* out = (part == 0 ? t.ch : t.sx).data() + static_cast<std::size_t>(iw) * nn * nn;
      for (std::size_t i = 0; i < t.s.size(); ++i) out[i] += t.s[i];
    }
  }
}

}  // namespace

void gpp_matrix_cpu(const GppMatrixJob& j) {
  if (j.modes_on_device) throw Error("gpp_matrix: the CPU backend needs the modes on the host, not on the device");
  const int ng = j.ng, ncol = j.columns(), nn = j.nn, nw = j.nw;
  if (ng <= 0 || ncol <= 0 || nn <= 0 || nw <= 0 || j.nm <= 0) return;
  const std::size_t entries = static_cast<std::size_t>(ng) * ncol, nn2 = static_cast<std::size_t>(nn) * nn, outputs = nw * nn2;
  const std::size_t per_thread = bytes_of(sizeof(cplx), 2 * entries + static_cast<std::size_t>(ncol + ng) * nn + nn2 + 2 * outputs);
  const std::size_t room = host_memory_available() / 2;
  const int threads = static_cast<int>(std::clamp<std::size_t>(room / std::max<std::size_t>(per_thread, 1), 1, std::min(max_threads(), j.nm)));
  require_host_memory(per_thread * threads, "gpp_matrix (the W matrices of " + std::to_string(ng) + " x " + std::to_string(ncol) + " G-vectors)");
  std::vector<Work> work;
  work.reserve(threads);
  for (int t = 0; t < threads; ++t) work.emplace_back(entries, static_cast<std::size_t>(ncol) * nn, static_cast<std::size_t>(ng) * nn, nn2, outputs);
  {
    SerialBlas serial_blas;  // the ZGEMMs run inside the threads
    // Arithmetic and BLAS on memory already held: nothing in the region throws.
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1)
    for (int m = 0; m < j.nm; ++m) add_band(j, m, work[omp_get_thread_num()]);
  }
  for (const auto& t : work)
    for (std::size_t i = 0; i < outputs; ++i) {
      j.ch[i] += 0.5 * j.weight * t.ch[i];
      j.sx[i] -= j.weight * t.sx[i];
    }
}

void gpp_matrix(Backend backend, const GppMatrixJob& job, std::size_t device_budget) {
#if QUANTA_GW_CUDA
  if (backend == Backend::Cuda) return gpp_matrix_cuda(job, device_budget);
#else
  (void)device_budget;
#endif
  if (backend == Backend::Cuda) throw Error("gpp_matrix: this build has no CUDA backend");
  gpp_matrix_cpu(job);
}

}  // namespace quanta::gw::kernels
