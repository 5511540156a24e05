// Low-rank blocks by one-sided Jacobi (kernels/low_rank.hpp).
#include <algorithm>
#include <cmath>
#include <numeric>

#include "../low_rank.hpp"
#include "quanta/core/error.hpp"

namespace quanta::kbe::kernels {
namespace {

constexpr int kMaxSweeps = 60;
constexpr double kEpsilon = 2.220446049250313e-16;

// The conjugate transpose of a rows x cols block (column-major, leading dimension lda): cols x rows.
std::vector<cplx> adjoint_of(const cplx* a, int rows, int cols, int lda) {
  std::vector<cplx> m(static_cast<std::size_t>(rows) * cols);
  for (int j = 0; j < cols; ++j)
    for (int i = 0; i < rows; ++i) m[j + static_cast<std::size_t>(cols) * i] = conj(a[i + static_cast<std::size_t>(lda) * j]);
  return m;
}

// Columns p and q of a len x n matrix (column-major) replaced by (c x_p - s y, s x_p + c y), y = x_q conj(e).
void rotate(cplx* x, int len, int p, int q, double c, double s, cplx e) {
  cplx* xp = x + static_cast<std::size_t>(len) * p;
  cplx* xq = x + static_cast<std::size_t>(len) * q;
  const cplx ce = conj(e);
  for (int i = 0; i < len; ++i) {
    const cplx a = xp[i], b = xq[i] * ce;
    xp[i] = c * a - s * b;
    xq[i] = s * a + c * b;
  }
}

}  // namespace

LowRank compress(const cplx* a, int rows, int cols, int lda, double cut, const std::string& what) {
  LowRank out;
  out.rows = rows, out.cols = cols;
  if (rows == 0 || cols == 0) return out;
  if (rows > cols) {  // Jacobi works on the short side: A^H's factors, swapped
    const std::vector<cplx> ah = adjoint_of(a, rows, cols, lda);
    return adjoint(compress(ah.data(), cols, rows, cols, cut, what));
  }
  // M = A^H (cols x rows); its rows columns are rotated until orthogonal, M W = M', W accumulating the rotations.
  const int n = rows, len = cols;
  std::vector<cplx> m = adjoint_of(a, rows, cols, lda);
  std::vector<cplx> w(static_cast<std::size_t>(n) * n);
  for (int i = 0; i < n; ++i) w[i + static_cast<std::size_t>(n) * i] = cplx(1.0);
  std::vector<double> sq(n);  // |m_p|^2
  auto column_norm2 = [&](int p) {
    double x = 0;
    const cplx* mp = m.data() + static_cast<std::size_t>(len) * p;
    for (int i = 0; i < len; ++i) x += norm2(mp[i]);
    return x;
  };
  // A pair is done when |m_p^H m_q| <= sqrt(len) eps |m_p| |m_q| (as LAPACK's zgesvj), and a column below eps |A|_F
  // is rounding noise: rotating it against another changes nothing the block keeps, and its pairs may never meet
  // the relative test.
  const double orthogonal = std::sqrt(static_cast<double>(len)) * kEpsilon;
  double frobenius2 = 0;
  for (int p = 0; p < n; ++p) frobenius2 += column_norm2(p);
  if (!std::isfinite(frobenius2))
    throw Error(what + ": a " + std::to_string(rows) + " x " + std::to_string(cols) + " block with non-finite values");
  const double noise2 = kEpsilon * kEpsilon * frobenius2;
  // Columns at the noise level are left unrotated: they are not orthogonal to the rest, so they are never kept.
  cut = std::max(cut, 2 * std::sqrt(noise2));
  bool converged = false;
  for (int sweep = 0; sweep < kMaxSweeps && !converged; ++sweep) {
    converged = true;
    for (int p = 0; p < n; ++p) sq[p] = column_norm2(p);
    for (int p = 0; p < n - 1; ++p)
      for (int q = p + 1; q < n; ++q) {
        const double alpha = sq[p], beta = sq[q];
        if (alpha <= noise2 || beta <= noise2) continue;
        cplx g;
        const cplx* mp = m.data() + static_cast<std::size_t>(len) * p;
        const cplx* mq = m.data() + static_cast<std::size_t>(len) * q;
        for (int i = 0; i < len; ++i) g += conj(mp[i]) * mq[i];
        const double ag = abs(g);
        if (!(ag > orthogonal * std::sqrt(alpha * beta))) continue;
        converged = false;
        const cplx e = g / ag;
        const double zeta = (beta - alpha) / (2 * ag);
        const double t = (zeta >= 0 ? 1.0 : -1.0) / (std::abs(zeta) + std::sqrt(1 + zeta * zeta));
        const double c = 1 / std::sqrt(1 + t * t), s = c * t;
        rotate(m.data(), len, p, q, c, s, e);
        rotate(w.data(), n, p, q, c, s, e);
        // The new squared norms (exact for the rotation): alpha - t |g|, beta + t |g|.
        sq[p] = alpha - t * ag;
        sq[q] = beta + t * ag;
      }
  }
  if (!converged)
    throw Error(what + ": the Jacobi SVD of a " + std::to_string(rows) + " x " + std::to_string(cols) + " block did not converge in " +
                std::to_string(kMaxSweeps) + " sweeps");
  // A = W M'^H: singular values |m'_p|, U = W's columns, V = m'_p / |m'_p|; descending, above the cut.
  std::vector<double> sigma(n);
  for (int p = 0; p < n; ++p) sigma[p] = std::sqrt(column_norm2(p));
  std::vector<int> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int x, int y) { return sigma[x] > sigma[y]; });
  for (const int p : order) {
    if (!(sigma[p] > cut) || sigma[p] == 0) break;
    const cplx* wp = w.data() + static_cast<std::size_t>(n) * p;
    const cplx* mp = m.data() + static_cast<std::size_t>(len) * p;
    out.u.insert(out.u.end(), wp, wp + n);
    for (int i = 0; i < len; ++i) out.v.push_back(mp[i] / sigma[p]);
    out.s.push_back(sigma[p]);
    ++out.rank;
  }
  return out;
}

LowRank stack_rows(const LowRank& top, const LowRank& bottom, double cut, const std::string& what) {
  if (top.cols != bottom.cols)
    throw Error(what + ": stacking blocks of " + std::to_string(top.cols) + " and " + std::to_string(bottom.cols) + " columns");
  const int k1 = top.rank, k2 = bottom.rank, k = k1 + k2, cols = top.cols;
  // B = [S1 V1^H; S2 V2^H], k x cols.
  std::vector<cplx> b(static_cast<std::size_t>(k) * cols);
  for (int j = 0; j < cols; ++j) {
    for (int i = 0; i < k1; ++i) b[i + static_cast<std::size_t>(k) * j] = top.s[i] * conj(top.v[j + static_cast<std::size_t>(cols) * i]);
    for (int i = 0; i < k2; ++i)
      b[k1 + i + static_cast<std::size_t>(k) * j] = bottom.s[i] * conj(bottom.v[j + static_cast<std::size_t>(cols) * i]);
  }
  const LowRank inner = compress(b.data(), k, cols, std::max(k, 1), cut, what);
  LowRank out;
  out.rows = top.rows + bottom.rows, out.cols = cols, out.rank = inner.rank;
  out.s = inner.s;
  out.v = inner.v;
  out.u.assign(static_cast<std::size_t>(out.rows) * out.rank, cplx());
  for (int r = 0; r < out.rank; ++r) {
    const cplx* x = inner.u.data() + static_cast<std::size_t>(k) * r;  // blockdiag(U1, U2) times this column
    cplx* to = out.u.data() + static_cast<std::size_t>(out.rows) * r;
    for (int i = 0; i < k1; ++i)
      for (int row = 0; row < top.rows; ++row) to[row] += top.u[row + static_cast<std::size_t>(top.rows) * i] * x[i];
    for (int i = 0; i < k2; ++i)
      for (int row = 0; row < bottom.rows; ++row)
        to[top.rows + row] += bottom.u[row + static_cast<std::size_t>(bottom.rows) * i] * x[k1 + i];
  }
  return out;
}

LowRank adjoint(LowRank a) {
  std::swap(a.rows, a.cols);
  std::swap(a.u, a.v);
  return a;
}

void expand(const LowRank& a, cplx* out, int ld) {
  for (int j = 0; j < a.cols; ++j)
    for (int i = 0; i < a.rows; ++i) {
      cplx x;
      for (int p = 0; p < a.rank; ++p)
        x += a.u[i + static_cast<std::size_t>(a.rows) * p] * a.s[p] * conj(a.v[j + static_cast<std::size_t>(a.cols) * p]);
      out[i + static_cast<std::size_t>(ld) * j] = x;
    }
}

}  // namespace quanta::kbe::kernels
