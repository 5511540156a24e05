#pragma once
// The 1-D Schroedinger eigenproblems of the Schroedinger-Poisson block (seed sec. 2.1 and 4): for every
// x node i and valley v, the symmetric tridiagonal matrix of order n = N_z - 2 (seed eq. 6),
//   d_j = hbar^2/m_e (1/4 /m_{j-1} + 1/2 /m_j + 1/4 /m_{j+1}) / dz^2 + V_c(z_j) - V_{i,j},
//   e_j = -hbar^2/m_e (1/4 /m_j + 1/4 /m_{j+1}) / dz^2,
// (the electron's potential energy is V_c - V in eV for V in volts; j = 1..N_z-2 are the interior nodes,
// psi = 0 on the gate-side boundary nodes), its lowest eigenvalues eps_{v,p,i} and eigenvectors psi_{v,p,i}
// normalised as dz sum_j psi_j^2 = 1.
//
// Layouts: matrices d, e [nx][3][n] (e[n-1] unused); eigenvalues [nx][3][ns]; eigenvectors
// [nx][3][ns][nz] including the zero boundary nodes.
#include <cmath>
#include <cstddef>

#include "quanta/core/hd.hpp"
#include "quanta/mosfet/device.hpp"

namespace quanta::mosfet::kernels {

inline constexpr int valleys = 3;

// Number of eigenvalues of the tridiagonal (d, e) below x: the sign changes of the Sturm sequence (seed
// eq. 17-18), counted through the ratios q_j = p_j / p_{j-1} = d_j - x - e_{j-1}^2 / q_{j-1}, which never
// overflow as the polynomials p_j do; a zero ratio is nudged to a tiny negative number (LAPACK's pivmin).
QUANTA_HD int sturm_count(const double* d, const double* e, int n, double x) {
  const double tiny = 1e-300;
  int count = 0;
  double q = d[0] - x;
  for (int j = 0;;) {
    if (q == 0.0) q = -tiny;
    count += q < 0.0;
    if (++j == n) break;
    q = d[j] - x - e[j - 1] * e[j - 1] / q;
  }
  return count;
}

// One pass for Newton-Raphson on the characteristic polynomial p_n (seed sec. 4.2): returns
// p_n(x) / p_n'(x) (the Newton correction is x -= it) and the Sturm count at x.
QUANTA_HD double newton_correction(const double* d, const double* e, int n, double x, int* count) {
  const double tiny = 1e-300;
  double q = d[0] - x, dq = -1.0;  // q_j and dq_j/dx
  double log_derivative = 0.0;     // sum_j dq_j / q_j = p_n' / p_n
  int c = 0;
  for (int j = 0;;) {
    if (q == 0.0) q = -tiny;
    c += q < 0.0;
    const double r = 1.0 / q;  // one division per step: the recurrence's critical path
    log_derivative += dq * r;
    if (++j == n) break;
    const double e2 = e[j - 1] * e[j - 1];
    const double qn = d[j] - x - e2 * r;
    dq = -1.0 + e2 * dq * r * r;
    q = qn;
  }
  *count = c;
  return 1.0 / log_derivative;
}

// Gershgorin interval [lo, hi] holding every eigenvalue; both NaN when an entry is not finite (fmin and
// fmax would drop a NaN and give a finite interval for a matrix that has no eigenvalues to find).
QUANTA_HD void gershgorin(const double* d, const double* e, int n, double* lo, double* hi) {
  double a = 1e300, b = -1e300;
  bool finite = true;
  for (int j = 0; j < n; ++j) {
    const double r = (j > 0 ? std::fabs(e[j - 1]) : 0.0) + (j + 1 < n ? std::fabs(e[j]) : 0.0);
    finite = finite && std::isfinite(d[j]) && std::isfinite(r);
    a = std::fmin(a, d[j] - r);
    b = std::fmax(b, d[j] + r);
  }
  *lo = finite ? a : NAN;
  *hi = finite ? b : NAN;
}

// The width below which a bracket [lo, hi] counts as collapsed: the tolerance, but never finer than a
// few spacings of the doubles at its ends (a bracket of one or two ulps cannot shrink further, and a loop
// waiting for it to reach a finer tol would never end).
QUANTA_HD double bracket_tolerance(double lo, double hi, double tol) {
  return std::fmax(tol, 4.0 * 2.220446049250313e-16 * std::fmax(std::fabs(lo), std::fabs(hi)));
}

// Iteration limits of the eigenvalue refinement: bisection on doubles needs at most about 2100 halvings
// to shrink any finite bracket to one ulp; Newton inside a bracket, falling back to bisection, converges
// far sooner. A refinement that reaches its limit returns NaN (not a result), which the block reports.
inline constexpr int max_bisection_steps = 2200;
inline constexpr int max_newton_steps = 200;

// Refines eigenvalue p of (d, e) from the guess x0 (the eigenvalue of an earlier potential):
// 1. a bracket [lo, hi] around x0 widened until count(lo) <= p < count(hi), then bisected until it holds
//    eigenvalue p alone (count(lo) = p, count(hi) = p + 1): a guess that has moved past a neighbouring
//    level still finds level p, not the nearest one;
// 2. Newton-Raphson inside the bracket (seed sec. 4.2), a step leaving it replaced by bisection.
// tol: absolute, eV (no finer than bracket_tolerance). Returns NaN when the matrix or the guess is not
// finite, or when either loop reaches its limit.
QUANTA_HD double eigenvalue_newton(const double* d, const double* e, int n, int p, double x0, double tol) {
  double glo, ghi;
  gershgorin(d, e, n, &glo, &ghi);
  if (!(std::isfinite(glo) && std::isfinite(ghi) && std::isfinite(x0))) return NAN;
  x0 = std::fmin(std::fmax(x0, glo), ghi);
  const double step = 1e-3 * std::fmax(1.0, std::fabs(x0));
  double lo = x0, hi = x0;
  int cl = sturm_count(d, e, n, lo), ch = cl;
  for (double w = step; cl > p && lo > glo; w *= 4.0) cl = sturm_count(d, e, n, lo = std::fmax(glo, x0 - w));
  for (double w = step; ch <= p && hi < ghi; w *= 4.0) ch = sturm_count(d, e, n, hi = std::fmin(ghi, x0 + w));
  if (cl > p) cl = 0;  // lo reached the Gershgorin bound, below every eigenvalue
  if (ch <= p) ch = n;
  int bisections = 0;
  while ((cl != p || ch != p + 1) && hi - lo > bracket_tolerance(lo, hi, tol)) {
    if (++bisections > max_bisection_steps) return NAN;
    const double mid = 0.5 * (lo + hi);
    const int c = sturm_count(d, e, n, mid);
    if (c <= p) {
      lo = mid;
      cl = c;
    } else {
      hi = mid;
      ch = c;
    }
  }
  // The guess itself is the best start even when it is an end of the bracket (a level that moved by less
  // than the first widening step).
  double x = (x0 >= lo && x0 <= hi) ? x0 : 0.5 * (lo + hi);
  for (int it = 0; hi - lo > bracket_tolerance(lo, hi, tol); ++it) {
    if (it == max_newton_steps) return NAN;
    const double tol_x = bracket_tolerance(lo, hi, tol);
    int c;
    const double corr = newton_correction(d, e, n, x, &c);
    // Only a point strictly inside the bracket can be taken as converged: an end may be another level.
    const bool inside = x > lo && x < hi;
    if (c <= p) lo = x;
    else hi = x;
    // Converged: x is an eigenvalue to working precision (a zero Sturm ratio: p_n'/p_n overflows and the
    // correction is not finite), or the step is below tol. Tested before the bracket, since x has just
    // become one of its ends and a last step of rounding size may fall outside it.
    if (inside && !std::isfinite(corr)) return x;
    if (inside && std::fabs(corr) <= tol_x) return std::fmin(std::fmax(x - corr, lo), hi);
    double next = x - corr;
    if (!(next > lo && next < hi)) next = 0.5 * (lo + hi);
    x = next;
  }
  return x;
}

// Solves (T - lambda I) y = r by the Thomas algorithm (no pivoting). A pivot smaller than pivmin is
// replaced by pivmin (LAPACK's treatment in inverse iteration: lambda is an eigenvalue to working
// precision, so some pivot is nearly zero, and the huge solution is what inverse iteration wants).
// y may alias r; c: scratch of n doubles.
QUANTA_HD void thomas_shifted(const double* d, const double* e, int n, double lambda, double pivmin, const double* r,
                              double* y, double* c) {
  auto guard = [pivmin](double p) { return std::fabs(p) < pivmin ? (p < 0.0 ? -pivmin : pivmin) : p; };
  double inv = 1.0 / guard(d[0] - lambda);  // one division per row: it is the sweep's critical path
  c[0] = n > 1 ? e[0] * inv : 0.0;
  y[0] = r[0] * inv;
  for (int j = 1; j < n; ++j) {
    inv = 1.0 / guard(d[j] - lambda - e[j - 1] * c[j - 1]);
    c[j] = j + 1 < n ? e[j] * inv : 0.0;
    y[j] = (r[j] - e[j - 1] * y[j - 1]) * inv;
  }
  for (int j = n - 2; j >= 0; --j) y[j] -= c[j] * y[j + 1];
}

// |T q - lambda q|_inf for the tridiagonal T = (d, e).
QUANTA_HD double eigen_residual(const double* d, const double* e, int n, double lambda, const double* q) {
  double r = 0.0;
  for (int j = 0; j < n; ++j) {
    double t = (d[j] - lambda) * q[j];
    if (j > 0) t += e[j - 1] * q[j - 1];
    if (j + 1 < n) t += e[j] * q[j + 1];
    r = std::fmax(r, std::isfinite(t) ? std::fabs(t) : INFINITY);
  }
  return r;
}

// Inverse power iteration (seed Algorithm 2) for the eigenvector of (d, e) at eigenvalue lambda:
// q <- (T - lambda I)^-1 q / |.| until |q_k - q_{k-1}|_inf < tol (signs aligned), at most max_iter times.
// q: [n] the start vector on entry (any vector not orthogonal to the eigenvector), the unit eigenvector
// on exit; y, c: scratch of n doubles. From a converged eigenvalue it takes 2 iterations. Within a
// cluster of levels equal to working precision (the mirror-image states of the two oxide layers, high
// above the Fermi level) the iterate drifts inside the cluster's span and the change test never holds;
// at max_iter it is accepted when it is an eigenvector to working precision, |T q - lambda q|_inf <=
// 1000 n eps |T| (Gershgorin scale). Returns the iterations used, or -1 when the iterate is not finite or
// the limit was reached without that.
QUANTA_HD int inverse_iteration(const double* d, const double* e, int n, double lambda, double tol, int max_iter,
                                double* q, double* y, double* c) {
  double lo, hi;
  gershgorin(d, e, n, &lo, &hi);
  const double pivmin = 1e-15 * std::fmax(std::fabs(lo), std::fabs(hi));
  int it = 0;
  while (it < max_iter) {
    ++it;
    thomas_shifted(d, e, n, lambda, pivmin, q, y, c);
    double big = 0.0;  // scale before squaring: |y| reaches 1/pivmin
    for (int j = 0; j < n; ++j) big = std::fmax(big, std::fabs(y[j]));
    const double inv_big = 1.0 / big;
    double norm = 0.0, dot = 0.0;
    for (int j = 0; j < n; ++j) {
      norm += (y[j] * inv_big) * (y[j] * inv_big);
      dot += y[j] * q[j];
    }
    const double s = (dot < 0.0 ? -1.0 : 1.0) / (big * std::sqrt(norm));
    if (!std::isfinite(s) || s == 0.0) return -1;
    double change = 0.0;
    for (int j = 0; j < n; ++j) {
      const double v = y[j] * s;
      change = std::fmax(change, std::isfinite(v) ? std::fabs(v - q[j]) : INFINITY);
      q[j] = v;
    }
    if (change < tol) return it;
  }
  const double scale = std::fmax(std::fabs(lo), std::fabs(hi));
  return eigen_residual(d, e, n, lambda, q) <= 1e3 * n * 2.220446049250313e-16 * scale ? it : -1;
}

// The start vector of inverse iteration: a ramp, not orthogonal to the states of a z-symmetric well.
QUANTA_HD double start_vector(int j, int n) { return 1.0 + static_cast<double>(j) / n; }

// Final scaling of an eigenvector: dz sum psi^2 = 1, and the first component above a tenth of the
// largest is positive (a fixed sign, so that both backends return the same vectors).
QUANTA_HD void normalise_eigenvector(double* psi, int n, double dz) {
  double norm = 0.0, big = 0.0;
  for (int j = 0; j < n; ++j) {
    norm += psi[j] * psi[j];
    big = std::fmax(big, std::fabs(psi[j]));
  }
  double s = 1.0 / std::sqrt(norm * dz);
  for (int j = 0; j < n; ++j)
    if (std::fabs(psi[j]) > 0.1 * big) {
      if (psi[j] < 0.0) s = -s;
      break;
    }
  for (int j = 0; j < n; ++j) psi[j] *= s;
}

// The matrices at node i for potential V (row i of [nx][nz]): seed eq. 6-7.
struct SchrodingerBuild {
  int nx = 0, nz = 0;
  double dz = 0;
  const double* potential = nullptr;   // [nx][nz] V, volts
  const double* barrier = nullptr;     // [nz] V_c, eV
  const double* inv_mass_z = nullptr;  // [3][nz]
  double* d = nullptr;                 // [nx][3][nz-2]
  double* e = nullptr;                 // [nx][3][nz-2]
};

QUANTA_HD void schrodinger_entries(const SchrodingerBuild& b, int i, int v, int jj) {
  const int n = b.nz - 2, j = jj + 1;  // jj: matrix row, j: grid node
  const double h = 1.0 / (b.dz * b.dz);
  const double* im = b.inv_mass_z + v * b.nz;
  const double k = constants::hbar2_over_me;
  const std::size_t at = (static_cast<std::size_t>(i) * valleys + v) * n + jj;
  b.d[at] = k * h * (0.25 * im[j - 1] + 0.5 * im[j] + 0.25 * im[j + 1]) + b.barrier[j] - b.potential[i * b.nz + j];
  b.e[at] = jj + 1 < n ? -k * h * 0.25 * (im[j] + im[j + 1]) : 0.0;
}

// Multi-section (seed sec. 4.1, eq. 19-20) for eigenvalue p: the bracket [x, x + h] shrinks by
// n_multi per step; the n_multi - 1 interior points are counted independently (a warp's lanes on the GPU).
// The step count is bounded: none for a width that is not finite (the eigenvalue x + h/2 is then not
// finite, which the block reports), at most the ~1100 halvings that span the doubles.
QUANTA_HD int multisection_steps(double width, double tol, int n_multi) {
  if (!std::isfinite(width)) return 0;
  const double steps = std::floor(std::log(width / tol) / std::log(static_cast<double>(n_multi))) + 1.0;
  return steps < 1.0 ? 1 : (steps > 1100.0 ? 1100 : static_cast<int>(steps));
}

// The eigenproblems of all (i, v) and their lowest ns eigenpairs.
struct EigenProblem {
  int nx = 0, nz = 0, ns = 0;
  double dz = 0;
  const double* d = nullptr;     // [nx][3][nz-2]
  const double* e = nullptr;     // [nx][3][nz-2]
  double* eigenvalues = nullptr; // [nx][3][ns] eV; the previous ones on entry to the Newton refinement
  double* eigenvectors = nullptr;// [nx][3][ns][nz]; the previous ones on entry when warm
  double* scratch = nullptr;     // [nx][3][ns][2 (nz-2)]
  double tol = 1e-13;            // eigenvalues: absolute, eV
  double vector_tol = 1e-12;     // eigenvectors: |q_k - q_{k-1}|_inf of the unit vectors
  int max_vector_iter = 50;
  int n_multi = 33;              // multi-section sub-intervals (32 points: one warp)
  bool warm = false;             // start inverse iteration from the previous eigenvectors
  int n() const { return nz - 2; }
};

// The eigenproblems of `nx` x-nodes held in the given arrays (shapes as in EigenProblem), default tolerances.
inline EigenProblem eigen_problem(int nx, int nz, int ns, double dz, const double* d, const double* e, double* eigenvalues,
                                  double* eigenvectors, double* scratch) {
  EigenProblem p;
  p.nx = nx;
  p.nz = nz;
  p.ns = ns;
  p.dz = dz;
  p.d = d;
  p.e = e;
  p.eigenvalues = eigenvalues;
  p.eigenvectors = eigenvectors;
  p.scratch = scratch;
  return p;
}

// The overlaps of the first `subbands` eigenvectors of each valley at one x node, the form factors of the
// phonon rates (docs/mosfet-transport-model.md, section 3.2): entry (a, b) of node i, a = v subbands + p,
//   out[(i * 3 subbands + a) * 3 subbands + b] = scale * dz * sum_j psi_a(z_j)^2 psi_b(z_j)^2,
// from eigenvectors [nx][3][ns][nz] (ns >= subbands states per valley).
struct Overlaps {
  int nx, nz, ns, subbands;
  double dz, scale;
  const double* eigenvectors;
  double* out;  // [nx][3 subbands][3 subbands]
};
QUANTA_HD void overlap_entry(const Overlaps& o, int i, int a, int b) {
  const int nvp = valleys * o.subbands;
  const auto vector = [&](int k) {
    return o.eigenvectors + ((static_cast<std::size_t>(i) * valleys + k / o.subbands) * o.ns + k % o.subbands) * o.nz;
  };
  const double *pa = vector(a), *pb = vector(b);
  double s = 0;
  for (int j = 0; j < o.nz; ++j) s += pa[j] * pa[j] * pb[j] * pb[j];
  o.out[(static_cast<std::size_t>(i) * nvp + a) * nvp + b] = s * o.dz * o.scale;
}

// CPU (OpenMP) kernels; the CUDA twins are declared in cuda/launch.cuh.
void overlaps_cpu(const Overlaps& o);
void build_schrodinger_cpu(const SchrodingerBuild& b);
void eigenvalues_multisection_cpu(const EigenProblem& p);
void eigenvalues_newton_cpu(const EigenProblem& p);
// Returns the largest number of inverse iterations any eigenvector needed. An eigenvector that did not
// converge (or is not finite) gets max_vector_iter there and a NaN eigenvalue, which the block reports.
int eigenvectors_cpu(const EigenProblem& p);

}  // namespace quanta::mosfet::kernels
