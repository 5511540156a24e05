// CPU twins of the linear-system kernels, the SRJ driver and the block-Thomas direct solver.
#include <algorithm>
#include <array>
#include <cmath>
#include <string>
#include <utility>

#include "../linear_system.hpp"
#include "quanta/core/error.hpp"

namespace quanta::mosfet::kernels {

std::vector<double> srj_schedule() {
  // (omega_i, q_i) of the seed, sec. 3.1.
  constexpr std::array<std::pair<double, int>, 7> levels{{{370.035, 1}, {167.331, 2}, {51.1952, 3}, {13.9321, 7},
                                                          {3.80777, 13}, {1.18727, 26}, {0.556551, 41}}};
  struct Slot {
    double position, omega;
  };
  std::vector<Slot> slots;
  for (const auto& [omega, q] : levels)
    for (int k = 0; k < q; ++k) slots.push_back({(k + 0.5) / q, omega});
  std::stable_sort(slots.begin(), slots.end(), [](const Slot& a, const Slot& b) {
    return a.position != b.position ? a.position < b.position : a.omega > b.omega;
  });
  std::vector<double> omegas;
  for (const auto& s : slots) omegas.push_back(s.omega);
  return omegas;  // 93 factors
}

void construct_system_cpu(const SystemBuild& b) {
#pragma omp parallel for collapse(2)
  for (int i = 0; i < b.nx; ++i)
    for (int j = 0; j < b.nz; ++j) system_row(b, i, j);
}

void srj_step_cpu(const LinearSystem& s, const double* u, double omega, double* u_next, double* r) {
  const std::ptrdiff_t n = static_cast<std::ptrdiff_t>(s.size());
#pragma omp parallel for schedule(static)
  for (std::ptrdiff_t k = 0; k < n; ++k) {
    const double res = s.rhs[k] - row_product(s, static_cast<std::size_t>(k), u);
    r[k] = res;
    u_next[k] = u[k] + omega * res;
  }
}

void joint_max_norm_cpu(std::size_t n, const double* r, const double* u, double* r_max, double* u_max) {
  double a = 0.0, b = 0.0;
#pragma omp parallel for reduction(max : a, b)
  for (std::ptrdiff_t k = 0; k < static_cast<std::ptrdiff_t>(n); ++k) {
    a = std::max(a, std::fabs(r[k]));
    b = std::max(b, std::fabs(u[k]));
  }
  *r_max = a;
  *u_max = b;
}

double newton_residual_cpu(const LinearSystem& s, const double* u) {
  double m = 0.0;
#pragma omp parallel for reduction(max : m)
  for (std::ptrdiff_t k = 0; k < static_cast<std::ptrdiff_t>(s.size()); ++k)
    m = std::max(m, std::fabs(s.diag[k] * (s.rhs[k] - row_product(s, static_cast<std::size_t>(k), u))));
  return m;
}

SrjStats srj_solve_cpu(const LinearSystem& s, double* u, double tol, int max_cycles, std::vector<double>& scratch) {
  static const std::vector<double> omegas = srj_schedule();
  const std::size_t n = s.size();
  scratch.resize(2 * n);
  double* other = scratch.data();
  double* r = scratch.data() + n;
  double* cur = u;
  SrjStats st;
  while (st.cycles < max_cycles) {
    for (double omega : omegas) {
      srj_step_cpu(s, cur, omega, other, r);
      std::swap(cur, other);
      ++st.steps;
    }
    ++st.cycles;
    double r_max, u_max;
    joint_max_norm_cpu(n, r, cur, &r_max, &u_max);
    st.residual = r_max / std::max(u_max, 1e-300);
    if (st.residual <= tol) {
      st.converged = true;
      break;
    }
  }
  if (cur != u) std::copy(cur, cur + n, u);
  return st;
}

namespace {
// In-place LU of a dense n x n block (row-major), no pivoting.
void lu_factor(double* a, int n) {
  for (int k = 0; k < n; ++k) {
    const double piv = a[k * n + k];
    if (!(std::fabs(piv) > 1e-300)) throw Error("mosfet direct solver: zero pivot in a column block at row " + std::to_string(k) + ": " + std::to_string(piv));
    for (int i = k + 1; i < n; ++i) {
      const double l = a[i * n + k] /= piv;
      if (l == 0.0) continue;
      for (int j = k + 1; j < n; ++j) a[i * n + j] -= l * a[k * n + j];
    }
  }
}
// Solves (LU) x = b in place.
void lu_solve(const double* a, int n, double* b) {
  for (int i = 1; i < n; ++i) {
    double s = b[i];
    for (int k = 0; k < i; ++k) s -= a[i * n + k] * b[k];
    b[i] = s;
  }
  for (int i = n - 1; i >= 0; --i) {
    double s = b[i];
    for (int k = i + 1; k < n; ++k) s -= a[i * n + k] * b[k];
    b[i] = s / a[i * n + i];
  }
}
}  // namespace

void direct_solve_cpu(const LinearSystem& s, double* u, std::vector<double>& lu, std::vector<double>& y) {
  const int nx = s.nx, nz = s.nz, w = s.width();
  const std::size_t block = static_cast<std::size_t>(nz) * nz;
  lu.resize(static_cast<std::size_t>(nx) * block);
  y.resize(static_cast<std::size_t>(nx) * nz);
  std::vector<double> inv(block), t(nz);  // S_{i-1}^-1 with columns scaled by E_{i-1}; S_{i-1}^-1 y_{i-1}
  for (int i = 0; i < nx; ++i) {
    double* S = lu.data() + i * block;
    double* yi = y.data() + static_cast<std::size_t>(i) * nz;
    for (int j = 0; j < nz; ++j) {
      const double* row = s.rows + (static_cast<std::size_t>(i) * nz + j) * w;
      std::copy(row, row + nz, S + j * nz);
      yi[j] = s.rhs[static_cast<std::size_t>(i) * nz + j];
    }
    if (i > 0) {
      // S_i = M_i - W_i S_{i-1}^-1 E_{i-1},  y_i = b_i - W_i S_{i-1}^-1 y_{i-1}  (W, E diagonal).
      const double* Sp = lu.data() + (i - 1) * block;
      const double* yp = y.data() + static_cast<std::size_t>(i - 1) * nz;
      std::copy(yp, yp + nz, t.begin());
      lu_solve(Sp, nz, t.data());
#pragma omp parallel
      {
        std::vector<double> col(nz);
#pragma omp for schedule(static)
        for (int c = 0; c < nz; ++c) {  // column c of S_{i-1}^-1 E_{i-1}
          std::fill(col.begin(), col.end(), 0.0);
          col[c] = s.rows[(static_cast<std::size_t>(i - 1) * nz + c) * w + nz + 1];
          if (col[c] != 0.0) lu_solve(Sp, nz, col.data());
          for (int k = 0; k < nz; ++k) inv[k * nz + c] = col[k];
        }
      }
      for (int j = 0; j < nz; ++j) {
        const double wj = s.rows[(static_cast<std::size_t>(i) * nz + j) * w + nz];
        if (wj == 0.0) continue;
        for (int c = 0; c < nz; ++c) S[j * nz + c] -= wj * inv[j * nz + c];
        yi[j] -= wj * t[j];
      }
    }
    lu_factor(S, nz);
  }
  // Back substitution: u_i = S_i^-1 (y_i - E_i u_{i+1}).
  for (int i = nx - 1; i >= 0; --i) {
    double* ui = u + static_cast<std::size_t>(i) * nz;
    const double* yi = y.data() + static_cast<std::size_t>(i) * nz;
    for (int j = 0; j < nz; ++j) {
      const double ej = i + 1 < nx ? s.rows[(static_cast<std::size_t>(i) * nz + j) * w + nz + 1] : 0.0;
      ui[j] = yi[j] - (ej != 0.0 ? ej * u[static_cast<std::size_t>(i + 1) * nz + j] : 0.0);
    }
    lu_solve(lu.data() + i * block, nz, ui);
  }
}

}  // namespace quanta::mosfet::kernels
