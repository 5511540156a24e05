// The quasiparticle Hamiltonian of each k-point in the basis of the mean-field states (Rohlfing and Louie,
// PRB 62, 4927, eq. 6), H_nm = E_n delta_nm + <n|Sigma(E0)|m> - <n|Vxc|m> over band_index_min..max, and its
// eigenvalues: the full solution of Dyson's equation that BerkeleyGW's offdiag.x makes from sigma_hp.log.
// With sigma_matrix t = -1 (+1) only the lower (upper) triangle was computed; the other is its conjugate.
// The matrix is not Hermitian unless every element is taken at the same energy (l > 0), so it is treated as
// general (LAPACK zgeev), and the eigenvalues are sorted by their real parts.
#include <algorithm>
#include <string>

#include "quanta/core/error.hpp"
#include "quanta/gw/sigma.hpp"

extern "C" void zgeev_(const char* jobvl, const char* jobvr, const int* n, void* a, const int* lda, void* w, void* vl, const int* ldvl, void* vr,
                       const int* ldvr, void* work, const int* lwork, double* rwork, int* info);

namespace quanta::gw {

void solve_dyson_matrix(std::vector<SigmaK>& sigma, const SigmaParams& p) {
  if (p.sigma_matrix_l == 0) return;
  const int nb = p.band_max - p.band_min + 1;
  for (auto& k : sigma) {
    std::vector<cplx> h(static_cast<std::size_t>(nb) * nb);  // column-major: h[i + nb j] = H_ij
    std::vector<bool> given(h.size(), false);
    for (const auto& e : k.offdiag) {
      const int i = e.n - p.band_min, j = e.m - p.band_min;
      h[i + static_cast<std::size_t>(nb) * j] += e.sig - e.vxc;
      given[i + static_cast<std::size_t>(nb) * j] = true;
    }
    for (const auto& b : k.bands) h[(b.n - p.band_min) * (static_cast<std::size_t>(nb) + 1)] += b.emf;
    for (int i = 0; i < nb; ++i)
      for (int j = 0; j < nb; ++j)
        if (!given[i + static_cast<std::size_t>(nb) * j]) h[i + static_cast<std::size_t>(nb) * j] = conj(h[j + static_cast<std::size_t>(nb) * i]);
    std::vector<cplx> w(nb), work(4 * nb);
    std::vector<double> rwork(2 * nb);
    const int lwork = static_cast<int>(work.size()), one = 1;
    int info = 0;
    zgeev_("N", "N", &nb, h.data(), &nb, w.data(), nullptr, &one, nullptr, &one, work.data(), &lwork, rwork.data(), &info);
    if (info != 0)
      throw Error("sigma, k-point (" + std::to_string(k.k[0]) + ", " + std::to_string(k.k[1]) + ", " + std::to_string(k.k[2]) +
                  "): the quasiparticle Hamiltonian could not be diagonalized (LAPACK zgeev info " + std::to_string(info) + ")");
    std::stable_sort(w.begin(), w.end(), [](const cplx& a, const cplx& b) { return a.re < b.re; });
    k.qp_matrix_energies = w;
  }
}

}  // namespace quanta::gw
