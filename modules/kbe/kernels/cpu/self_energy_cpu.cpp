// Second-Born self-energy of a time slice on the CPU: the seed's direct contraction and the FFT form.
#include <fftw3.h>
#include <omp.h>

#include <mutex>
#include <vector>

#include "../self_energy.hpp"
#include "quanta/core/error.hpp"

namespace quanta::kbe::kernels {

struct SelfEnergyWorkspace::Impl {
  int threads = 1;
  // Direct: per-thread polarization P_{ab}(q), [threads][4][nk].
  std::vector<cplx> pol;
  // Fft: per-thread [8][nk] buffers (4 planes of G< then 4 of G>, and likewise Sigma), FFTW-aligned.
  std::vector<fftw_complex*> g_buf, s_buf;
  fftw_plan to_sites = nullptr, to_k = nullptr;

  ~Impl() {
    if (to_sites) fftw_destroy_plan(to_sites);
    if (to_k) fftw_destroy_plan(to_k);
    for (auto* p : g_buf) fftw_free(p);
    for (auto* p : s_buf) fftw_free(p);
  }
};

namespace {

// The FFTW planner is not thread-safe; plans are made once per workspace, under this lock.
std::mutex& planner_mutex() {
  static std::mutex m;
  return m;
}

void direct_slice(const SelfEnergySlice& s, SelfEnergyWorkspace::Impl& w) {
  const int nk = s.nk;
  const std::size_t bs = block_size(nk);
#pragma omp parallel for schedule(dynamic) num_threads(w.threads)
  for (int l = 0; l < s.count; ++l) {
    cplx* pol = w.pol.data() + static_cast<std::size_t>(omp_get_thread_num()) * bs;
    const double pref = s.u_t * s.u_tp[l] / (static_cast<double>(nk) * nk);
    const cplx* gl = s.g_less + l * bs;
    const cplx* gg = s.g_greater + l * bs;
    // Sigma< from (x, y) = (<, >), Sigma> from (>, <).
    for (int which = 0; which < 2; ++which) {
      const cplx* x = which == 0 ? gl : gg;
      const cplx* ybar = which == 0 ? gg : gl;
      cplx* out = (which == 0 ? s.sigma_less : s.sigma_greater) + l * bs;
      for (int a = 0; a < 2; ++a)
        for (int b = 0; b < 2; ++b)
          for (int q = 0; q < nk; ++q) pol[in_block(band_pair(a, b), q, nk)] = polarization_element(x, ybar, a, b, q, nk);
      for (int j = 0; j < 2; ++j)
        for (int m = 0; m < 2; ++m)
          for (int k = 0; k < nk; ++k)
            out[in_block(band_pair(j, m), k, nk)] =
                pref * (sigma1_element(pol, x, j, m, k, nk) - sigma2_element(x, ybar, j, m, k, nk));
    }
  }
}

void fft_slice(const SelfEnergySlice& s, SelfEnergyWorkspace::Impl& w) {
  const int nk = s.nk;
  const std::size_t bs = block_size(nk);
#pragma omp parallel for schedule(static) num_threads(w.threads)
  for (int l = 0; l < s.count; ++l) {
    const int t = omp_get_thread_num();
    auto* g = reinterpret_cast<cplx*>(w.g_buf[t]);
    auto* sg = reinterpret_cast<cplx*>(w.s_buf[t]);
    for (std::size_t i = 0; i < bs; ++i) {
      g[i] = s.g_less[l * bs + i];
      g[bs + i] = s.g_greater[l * bs + i];
    }
    fftw_execute_dft(w.to_sites, w.g_buf[t], w.g_buf[t]);  // G~(R) = sum_k e^{+2 pi i k R/nk} G(k)
    for (int r = 0; r < nk; ++r) {
      const M2 xl = load_block(g, r, nk), xg = load_block(g + bs, r, nk);
      store_block(sg, r, nk, second_born_pointwise(xl, xg));
      store_block(sg + bs, r, nk, second_born_pointwise(xg, xl));
    }
    fftw_execute_dft(w.to_k, w.s_buf[t], w.s_buf[t]);  // Sigma(k) = sum_R e^{-2 pi i k R/nk} Sigma(R)
    const double pref = s.u_t * s.u_tp[l] / (static_cast<double>(nk) * nk * nk);
    for (std::size_t i = 0; i < bs; ++i) {
      s.sigma_less[l * bs + i] = pref * sg[i];
      s.sigma_greater[l * bs + i] = pref * sg[bs + i];
    }
  }
}

}  // namespace

SelfEnergyWorkspace::SelfEnergyWorkspace(SelfEnergyMethod method, int nk, int threads)
    : method_(method), nk_(nk), impl_(std::make_unique<Impl>()) {
  QUANTA_REQUIRE(nk >= 1, "kbe self-energy: nk must be >= 1");
  impl_->threads = threads > 0 ? threads : 1;
  const std::size_t bs = block_size(nk);
  if (method == SelfEnergyMethod::Direct) {
    impl_->pol.assign(bs * impl_->threads, cplx());
    return;
  }
  for (int t = 0; t < impl_->threads; ++t) {
    impl_->g_buf.push_back(fftw_alloc_complex(2 * bs));
    impl_->s_buf.push_back(fftw_alloc_complex(2 * bs));
    if (!impl_->g_buf.back() || !impl_->s_buf.back()) throw Error("kbe self-energy: FFTW buffer allocation failed");
  }
  // FFTW_ESTIMATE: the plan (hence the rounding) is the same in every process, which checkpoint/resume
  // relies on for bit-identical results; MEASURE could pick a different algorithm after a restart.
  std::lock_guard<std::mutex> lock(planner_mutex());
  int n[1] = {nk};
  impl_->to_sites = fftw_plan_many_dft(1, n, 8, impl_->g_buf[0], nullptr, 1, nk, impl_->g_buf[0], nullptr, 1, nk,
                                       FFTW_BACKWARD, FFTW_ESTIMATE);
  impl_->to_k = fftw_plan_many_dft(1, n, 8, impl_->s_buf[0], nullptr, 1, nk, impl_->s_buf[0], nullptr, 1, nk,
                                   FFTW_FORWARD, FFTW_ESTIMATE);
  if (!impl_->to_sites || !impl_->to_k) throw Error("kbe self-energy: FFTW planning failed for nk = " + std::to_string(nk));
}

SelfEnergyWorkspace::~SelfEnergyWorkspace() = default;

void self_energy_slice_cpu(const SelfEnergySlice& slice, SelfEnergyWorkspace& ws) {
  QUANTA_REQUIRE(slice.nk == ws.nk(), "kbe self-energy: slice and workspace disagree on nk");
  if (ws.method() == SelfEnergyMethod::Direct)
    direct_slice(slice, ws.impl());
  else
    fft_slice(slice, ws.impl());
}

}  // namespace quanta::kbe::kernels
