// The quasiparticle Hamiltonian of each k-point in the basis of the mean-field states (Rohlfing and Louie,
// PRB 62, 4927, eq. 6), H_nm = E_n delta_nm + <n|Sigma(E0)|m> - <n|Vxc|m> over band_index_min..max, and its
// eigenvalues: the full solution of Dyson's equation that BerkeleyGW's offdiag.x makes from sigma_hp.log.
// With sigma_matrix t = -1 (+1) only the lower (upper) triangle was computed; the other is its conjugate.
// The matrix is not Hermitian unless every element is taken at the same energy (l > 0), so it is treated as
// general (LAPACK zgeev), and the eigenvalues are sorted by their real parts. With a frequency grid, the
// same Hamiltonian with Sigma(E) interpolated on the grid and each eigenvalue solved self-consistently.
#include <algorithm>
#include <cmath>
#include <string>

#include "quanta/core/error.hpp"
#include "dyson.hpp"
#include "quanta/gw/sigma.hpp"

extern "C" void zgeev_(const char* jobvl, const char* jobvr, const int* n, void* a, const int* lda, void* w, void* vl, const int* ldvl, void* vr,
                       const int* ldvr, void* work, const int* lwork, double* rwork, int* info);

namespace quanta::gw {
namespace {

// The eigenvalues of a general nb x nb matrix (row-major), sorted by real part; empty if LAPACK fails.
std::vector<cplx> eigenvalues(int nb, std::vector<cplx> a) {
  std::vector<cplx> w(nb), work(4 * static_cast<std::size_t>(nb));
  std::vector<double> rwork(2 * static_cast<std::size_t>(nb));
  const int lwork = static_cast<int>(work.size()), one = 1;
  int info = 0;
  // Row-major A is column-major A^T: the same eigenvalues.
  zgeev_("N", "N", &nb, a.data(), &nb, w.data(), nullptr, &one, nullptr, &one, work.data(), &lwork, rwork.data(), &info);
  if (info != 0) return {};
  std::stable_sort(w.begin(), w.end(), [](const cplx& x, const cplx& y) { return x.re < y.re; });
  return w;
}

// E_mf delta_nm + <n|S|m> - <n|Vxc|m> over band_index_min..max, row-major, S the elements' Sigma(E0) (with_sigma)
// or nothing; where sigma_matrix computed one triangle, the other is its conjugate.
std::vector<cplx> quasiparticle_matrix(const SigmaK& k, const SigmaParams& p, bool with_sigma) {
  const int nb = p.band_max - p.band_min + 1;
  std::vector<cplx> h(static_cast<std::size_t>(nb) * nb);
  std::vector<bool> given(h.size(), false);
  for (const auto& e : k.offdiag) {
    const std::size_t at = static_cast<std::size_t>(e.n - p.band_min) * nb + (e.m - p.band_min);
    h[at] = (with_sigma ? e.sig : cplx()) - e.vxc;
    given[at] = true;
  }
  for (int i = 0; i < nb; ++i)
    for (int j = 0; j < nb; ++j)
      if (!given[static_cast<std::size_t>(i) * nb + j]) h[static_cast<std::size_t>(i) * nb + j] = conj(h[static_cast<std::size_t>(j) * nb + i]);
  for (const auto& b : k.bands) h[(b.n - p.band_min) * (static_cast<std::size_t>(nb) + 1)] += b.emf;
  return h;
}

}  // namespace

void solve_dyson_matrix(std::vector<SigmaK>& sigma, const SigmaParams& p) {
  if (p.sigma_matrix_l == 0) return;
  const int nb = p.band_max - p.band_min + 1;
  for (auto& k : sigma) {
    const auto h = quasiparticle_matrix(k, p, true);
    const auto w = eigenvalues(nb, h);
    if (w.empty())
      throw Error("sigma, k-point (" + std::to_string(k.k[0]) + ", " + std::to_string(k.k[1]) + ", " + std::to_string(k.k[2]) +
                  "): the quasiparticle Hamiltonian could not be diagonalized (LAPACK zgeev)");
    k.qp_matrix_energies = w;
  }
}

DysonRoots dyson_self_consistent(int nb, const std::vector<cplx>& h0, const std::vector<double>& omega, const std::vector<cplx>& s, double tol,
                                 int max_iter) {
  DysonRoots r;
  const std::size_t nb2 = static_cast<std::size_t>(nb) * nb;
  const int nw = static_cast<int>(omega.size());
  // H(E) with S interpolated by a Catmull-Rom cubic on the uniform grid (exact for S linear in E; the points
  // beyond the ends are the linear extrapolations of the last two).
  auto h_at = [&](double e) {
    int j = static_cast<int>(std::upper_bound(omega.begin(), omega.end(), e) - omega.begin()) - 1;
    j = std::clamp(j, 0, nw - 2);
    const double t = (e - omega[j]) / (omega[j + 1] - omega[j]), t2 = t * t, t3 = t2 * t;
    const double wm = 0.5 * (-t3 + 2 * t2 - t), w0 = 0.5 * (3 * t3 - 5 * t2 + 2), w1 = 0.5 * (-3 * t3 + 4 * t2 + t), w2 = 0.5 * (t3 - t2);
    std::vector<cplx> h(h0);
    for (std::size_t i = 0; i < nb2; ++i) {
      const cplx p0 = s[j * nb2 + i], p1 = s[(j + 1) * nb2 + i];
      const cplx pm = j > 0 ? s[(j - 1) * nb2 + i] : 2.0 * p0 - p1;
      const cplx p2 = j + 2 < nw ? s[(j + 2) * nb2 + i] : 2.0 * p1 - p0;
      h[i] += wm * pm + w0 * p0 + w1 * p1 + w2 * p2;
    }
    return h;
  };
  // lambda_i on the grid.
  std::vector<std::vector<cplx>> on_grid(nw);
  for (int j = 0; j < nw; ++j) {
    std::vector<cplx> h(h0);
    for (std::size_t i = 0; i < nb2; ++i) h[i] += s[j * nb2 + i];
    on_grid[j] = eigenvalues(nb, h);
    if (on_grid[j].empty()) {
      r.failure = "the matrix at " + std::to_string(omega[j]) + " eV could not be diagonalized (LAPACK zgeev)";
      return r;
    }
  }
  r.energies.resize(nb);
  r.iterations.resize(nb);
  for (int i = 0; i < nb; ++i) {
    int j = 0;
    while (j + 1 < nw && !(on_grid[j][i].re - omega[j] >= 0 && on_grid[j + 1][i].re - omega[j + 1] < 0)) ++j;
    if (j + 1 >= nw) {
      r.failure = "eigenvalue " + std::to_string(i + 1) + ": no solution within the grid " + std::to_string(omega.front()) + " .. " +
                  std::to_string(omega.back()) + " eV (Re lambda - E does not change sign; widen the margin of sigma_matrix_frequency_grid)";
      return r;
    }
    // Illinois regula falsi on [a, b], f(a) >= 0 > f(b).
    double a = omega[j], b = omega[j + 1], fa = on_grid[j][i].re - a, fb = on_grid[j + 1][i].re - b;
    cplx lambda = std::abs(fa) < std::abs(fb) ? on_grid[j][i] : on_grid[j + 1][i];
    double e = std::abs(fa) < std::abs(fb) ? a : b, fe = std::min(std::abs(fa), std::abs(fb));
    int it = 0, side = 0;
    while (fe > tol) {
      if (++it > max_iter) {
        r.failure = "eigenvalue " + std::to_string(i + 1) + ": not converged after " + std::to_string(max_iter) + " steps (|Re lambda - E| = " +
                    std::to_string(fe) + " eV)";
        return r;
      }
      e = (a * fb - b * fa) / (fb - fa);
      const auto w = eigenvalues(nb, h_at(e));
      if (w.empty()) {
        r.failure = "the matrix at " + std::to_string(e) + " eV could not be diagonalized (LAPACK zgeev)";
        return r;
      }
      lambda = w[i];
      const double f = lambda.re - e;
      fe = std::abs(f);
      if (f >= 0) {
        a = e, fa = f;
        if (side == -1) fb *= 0.5;
        side = -1;
      } else {
        b = e, fb = f;
        if (side == 1) fa *= 0.5;
        side = 1;
      }
      if (b - a < 1e-12) break;
    }
    r.energies[i] = lambda;
    r.iterations[i] = it;
  }
  return r;
}

void solve_dyson_grid(std::vector<SigmaK>& sigma, const SigmaParams& p) {
  if (p.grid_nw < 2) return;
  const int nb = p.band_max - p.band_min + 1;
  for (auto& k : sigma) {
    // H0 = E_mf - Vxc; Sigma(E) comes from the grid.
    const auto h0 = quasiparticle_matrix(k, p, false);
    const auto roots = dyson_self_consistent(nb, h0, k.grid_omega, k.grid_sigma);
    if (!roots.failure.empty())
      throw Error("sigma, k-point (" + std::to_string(k.k[0]) + ", " + std::to_string(k.k[1]) + ", " + std::to_string(k.k[2]) +
                  "), Dyson's equation on the frequency grid: " + roots.failure);
    k.dyson_energies = roots.energies;
    k.dyson_iterations = roots.iterations;
  }
}

}  // namespace quanta::gw
