// CPU twins of the linear-system kernels, the SRJ driver and the block cyclic reduction direct solver.
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
    a = std::max(a, norm_term(r[k]));
    b = std::max(b, norm_term(u[k]));
  }
  *r_max = a;
  *u_max = b;
}

double newton_residual_cpu(const LinearSystem& s, const double* u) {
  double m = 0.0;
#pragma omp parallel for reduction(max : m)
  for (std::ptrdiff_t k = 0; k < static_cast<std::ptrdiff_t>(s.size()); ++k)
    m = std::max(m, norm_term(s.diag[k] * (s.rhs[k] - row_product(s, static_cast<std::size_t>(k), u))));
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
    st.residual = srj_relative_residual(r_max, u_max);
    if (st.residual <= tol) {
      st.converged = true;
      break;
    }
    if (!std::isfinite(st.residual)) break;
  }
  if (cur != u) std::copy(cur, cur + n, u);
  return st;
}

std::vector<int> reduction_strides(int nx) {
  std::vector<int> strides;
  int s = 1;
  for (; s < nx; s *= 2) strides.push_back(s);
  strides.push_back(s);  // the root
  return strides;
}

namespace {
// In-place LU of column i's dense n x n block (row-major), no pivoting.
void lu_factor(double* a, int n, int column) {
  for (int k = 0; k < n; ++k) {
    const double piv = a[k * n + k];
    if (!(std::fabs(piv) > 1e-300))
      throw Error("mosfet direct solver: zero pivot in a column block at row " + std::to_string(k) + ": " +
                  std::to_string(piv) + " (x column " + std::to_string(column) + ")");
    for (int i = k + 1; i < n; ++i) {
      const double l = a[i * n + k] /= piv;
      if (l == 0.0) continue;
      for (int j = k + 1; j < n; ++j) a[i * n + j] -= l * a[k * n + j];
    }
  }
}
// Solves (LU) X = B in place for B [n][m] row-major (m right-hand sides side by side).
void lu_solve(const double* a, int n, double* x, int m) {
  for (int i = 1; i < n; ++i)
    for (int k = 0; k < i; ++k) {
      const double l = a[i * n + k];
      if (l != 0.0)
        for (int c = 0; c < m; ++c) x[i * m + c] -= l * x[k * m + c];
    }
  for (int i = n - 1; i >= 0; --i) {
    for (int k = i + 1; k < n; ++k) {
      const double l = a[i * n + k];
      if (l != 0.0)
        for (int c = 0; c < m; ++c) x[i * m + c] -= l * x[k * m + c];
    }
    const double inv = 1.0 / a[i * n + i];
    for (int c = 0; c < m; ++c) x[i * m + c] *= inv;
  }
}
// out[n] (+)= sign A[n][n] x[n], or out[n][n] (+)= sign A B for B [n][n] (row r of A at a time, its zero
// entries skipped: the first level's couplings are diagonal).
void multiply_add(const double* a, const double* b, int n, int m, double sign, double* out) {
  for (int r = 0; r < n; ++r)
    for (int k = 0; k < n; ++k) {
      const double f = sign * a[r * n + k];
      if (f != 0.0)
        for (int c = 0; c < m; ++c) out[r * m + c] += f * b[k * m + c];
    }
}
}  // namespace

namespace {
// u_j = Xb_j - XL_j u_{j-s} - XU_j u_{j+s}, from the root down the levels.
void back_substitute(const CyclicReduction& w, const std::vector<int>& strides, double* u) {
  const int nx = w.nx, nz = w.nz;
  for (auto it = strides.rbegin(); it != strides.rend(); ++it) {
    const ReductionLevel lv = reduction_level(nx, *it);
#pragma omp parallel for schedule(static)
    for (int m = 0; m < lv.count; ++m) {
      const int j = lv.first + m * lv.step;
      double* uj = u + static_cast<std::size_t>(j) * nz;
      std::copy_n(w.Xb + static_cast<std::size_t>(j) * nz, nz, uj);
      const std::size_t at = static_cast<std::size_t>(j) * w.block();
      if (j >= lv.stride) multiply_add(w.XL + at, u + static_cast<std::size_t>(j - lv.stride) * nz, nz, 1, -1.0, uj);
      if (j + lv.stride < nx) multiply_add(w.XU + at, u + static_cast<std::size_t>(j + lv.stride) * nz, nz, 1, -1.0, uj);
    }
  }
}
}  // namespace

void direct_solve_cpu(const LinearSystem& s, double* u, std::vector<double>& work) {
  const int nx = s.nx, nz = s.nz;
  if (nx == 0 || nz == 0) return;
  work.resize(CyclicReduction::doubles(nx, nz));
  const CyclicReduction w = CyclicReduction::carve(nx, nz, work.data());
  const std::size_t block = w.block();
  auto mat = [&](double* a, int i) { return a + static_cast<std::size_t>(i) * block; };
  auto vec = [&](double* a, int i) { return a + static_cast<std::size_t>(i) * nz; };
#pragma omp parallel for collapse(2)
  for (int i = 0; i < nx; ++i)
    for (int j = 0; j < nz; ++j)
      for (int c = 0; c < nz; ++c) reduction_load(s, w, i, j, c);
  const std::vector<int> strides = reduction_strides(nx);
  for (int st : strides) {
    const ReductionLevel lv = reduction_level(nx, st);
    // Eliminate the columns of this level: X = D_j^-1 [L_j, U_j, b_j] (a missing neighbour's X is not needed).
    std::string failure;  // an exception may not leave an OpenMP region: the first one is kept for after it
#pragma omp parallel for schedule(dynamic)
    for (int m = 0; m < lv.count; ++m) {
      const int j = lv.first + m * lv.step;
      try {
        lu_factor(mat(w.D, j), nz, j);
      } catch (const Error& e) {
#pragma omp critical(mosfet_direct_failure)
        if (failure.empty()) failure = e.what();
        continue;
      }
      std::copy_n(vec(w.b, j), nz, vec(w.Xb, j));
      lu_solve(mat(w.D, j), nz, vec(w.Xb, j), 1);
      if (j >= st) {
        std::copy_n(w.L + w.coupling(st, j), block, mat(w.XL, j));
        lu_solve(mat(w.D, j), nz, mat(w.XL, j), nz);
      }
      if (j + st < nx) {
        std::copy_n(w.U + w.coupling(st, j), block, mat(w.XU, j));
        lu_solve(mat(w.D, j), nz, mat(w.XU, j), nz);
      }
    }
    if (!failure.empty()) throw Error(failure);
    if (st >= nx) break;  // the root
    // Update the columns that stay; their couplings at the next level go to its slots.
    const int kept = (nx - 1) / (2 * st) + 1;
#pragma omp parallel for schedule(dynamic)
    for (int m = 0; m < kept; ++m) {
      const int k = m * 2 * st, l = k - st, r = k + st;
      const bool left = k >= st, right = r < nx;
      const double* Lk = w.L + w.coupling(st, k);
      const double* Uk = w.U + w.coupling(st, k);
      double* L_next = w.L + w.coupling(2 * st, k);
      double* U_next = w.U + w.coupling(2 * st, k);
      std::fill_n(L_next, block, 0.0);
      std::fill_n(U_next, block, 0.0);
      if (left) {
        multiply_add(Lk, mat(w.XU, l), nz, nz, -1.0, mat(w.D, k));
        multiply_add(Lk, vec(w.Xb, l), nz, 1, -1.0, vec(w.b, k));
        multiply_add(Lk, mat(w.XL, l), nz, nz, -1.0, L_next);
      }
      if (right) {
        multiply_add(Uk, mat(w.XL, r), nz, nz, -1.0, mat(w.D, k));
        multiply_add(Uk, vec(w.Xb, r), nz, 1, -1.0, vec(w.b, k));
        multiply_add(Uk, mat(w.XU, r), nz, nz, -1.0, U_next);
      }
    }
  }
  back_substitute(w, strides, u);
}

void direct_resolve_cpu(int nx, int nz, const double* rhs, double* u, std::vector<double>& work) {
  if (nx == 0 || nz == 0) return;
  if (work.size() != CyclicReduction::doubles(nx, nz)) throw Error("mosfet direct solver: a re-solve without a factored matrix");
  const CyclicReduction w = CyclicReduction::carve(nx, nz, work.data());
  const std::size_t block = w.block();
  std::copy_n(rhs, static_cast<std::size_t>(nx) * nz, w.b);
  const std::vector<int> strides = reduction_strides(nx);
  for (int st : strides) {
    const ReductionLevel lv = reduction_level(nx, st);
#pragma omp parallel for schedule(static)
    for (int m = 0; m < lv.count; ++m) {
      const int j = lv.first + m * lv.step;
      double* xb = w.Xb + static_cast<std::size_t>(j) * nz;
      std::copy_n(w.b + static_cast<std::size_t>(j) * nz, nz, xb);
      lu_solve(w.D + static_cast<std::size_t>(j) * block, nz, xb, 1);
    }
    if (st >= nx) break;
    const int kept = (nx - 1) / (2 * st) + 1;
#pragma omp parallel for schedule(static)
    for (int m = 0; m < kept; ++m) {
      const int k = m * 2 * st;
      double* bk = w.b + static_cast<std::size_t>(k) * nz;
      if (k >= st) multiply_add(w.L + w.coupling(st, k), w.Xb + static_cast<std::size_t>(k - st) * nz, nz, 1, -1.0, bk);
      if (k + st < nx) multiply_add(w.U + w.coupling(st, k), w.Xb + static_cast<std::size_t>(k + st) * nz, nz, 1, -1.0, bk);
    }
  }
  back_substitute(w, strides, u);
}

double chord_rhs_cpu(const SystemBuild& b) {
  double m = 0.0;
#pragma omp parallel for collapse(2) reduction(max : m)
  for (int i = 0; i < b.nx; ++i)
    for (int j = 0; j < b.nz; ++j) m = std::max(m, chord_row(b, i, j));
  return m;
}

}  // namespace quanta::mosfet::kernels
