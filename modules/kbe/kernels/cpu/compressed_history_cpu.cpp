// The compressed two-time history and the collision row from it (kernels/compressed_history.hpp), CPU twin.
#include <algorithm>
#include <string>

#include "../compressed_history.hpp"
#include "quanta/core/error.hpp"

namespace quanta::kbe::kernels {
namespace {

cplx element(const cplx* blocks, std::size_t block, int pair, int k, int nk) {
  return blocks[block * block_size(nk) + in_block(pair, k, nk)];
}

// A weighted row through one factor pair of a block: out[(j0 + t) bs + offset] += sign sum_q (sum_i x_i left[i, q]) s_q
// conj(right[t, q]), t < right_rows (left, right = U, V for the block's own pairs; V, U for its mirror). y: scratch.
void through_factors(const std::vector<cplx>& x, const std::vector<cplx>& left, const std::vector<cplx>& right, int right_rows,
                     const std::vector<double>& s, double sign, cplx* out, int j0, std::size_t bs, std::size_t offset, std::vector<cplx>& y) {
  const int rank = static_cast<int>(s.size()), left_rows = static_cast<int>(x.size());
  y.assign(rank, cplx());
  for (int i = 0; i < left_rows; ++i)
    for (int q = 0; q < rank; ++q) y[q] += x[i] * left[i + static_cast<std::size_t>(left_rows) * q];
  for (int t = 0; t < right_rows; ++t) {
    cplx v;
    for (int q = 0; q < rank; ++q) v += y[q] * s[q] * conj(right[t + static_cast<std::size_t>(right_rows) * q]);
    out[static_cast<std::size_t>(j0 + t) * bs + offset] += sign * v;
  }
}

}  // namespace

CompressedHistory::CompressedHistory(int nk, int leaf, double cut_less, double cut_greater) : nk_(nk), leaf_(leaf) {
  if (nk < 1 || leaf < 1) throw Error("compressed history: nk and the leaf size must be positive");
  cut_[0] = cut_less;
  cut_[1] = cut_greater;
}

void CompressedHistory::set_row(int n, const cplx* less, const cplx* greater) {
  const bool again = n == rows_ - 1;
  if (n != rows_ && !again)
    throw Error("compressed history: row " + std::to_string(n) + " set after " + std::to_string(rows_) + " rows (rows come in order)");
  const int s = n / leaf_, start = s * leaf_;
  const std::size_t bs = block_size(nk_);
  if (!again && n % leaf_ == 0) {
    if (s > 0) close_strip(s - 1);
    for (int f = 0; f < 2; ++f) {
      leaves_[f].emplace_back(tri_count(leaf_) * bs);
      filling_[f].assign(leaf_, std::vector<cplx>());
    }
  }
  const cplx* row[2] = {less, greater};
  for (int f = 0; f < 2; ++f) {
    filling_[f][n - start].assign(row[f], row[f] + static_cast<std::size_t>(start) * bs);
    for (int j = start; j <= n; ++j)
      std::copy(row[f] + static_cast<std::size_t>(j) * bs, row[f] + static_cast<std::size_t>(j + 1) * bs,
                leaves_[f][s].begin() + static_cast<std::ptrdiff_t>(tri(n - start, j - start) * bs));
  }
  if (!again) rows_ = n + 1;
}

void CompressedHistory::close_strip(int s) {
  const int start = s * leaf_;
  const std::size_t bs = block_size(nk_);
  for (int m = 0; (leaf_ << m) <= start; ++m) {
    const int side = leaf_ << m, u = start / side;
    if (u % 2 == 0) continue;  // this level's block over these rows is a diagonal one: finer levels cover it
    const int r0 = u * side, c0 = (u - 1) * side;
    auto it = std::find_if(blocks_.begin(), blocks_.end(), [&](const Block& b) { return b.level == m && b.r0 == r0; });
    if (it == blocks_.end()) {
      Block b;
      b.level = m, b.r0 = r0, b.c0 = c0, b.side = side;
      b.f.resize(static_cast<std::size_t>(2) * nk_ * 4);
      blocks_.push_back(std::move(b));
      it = blocks_.end() - 1;
    }
    Block& b = *it;
    std::vector<cplx> piece(static_cast<std::size_t>(leaf_) * side);
    for (int f = 0; f < 2; ++f)
      for (int k = 0; k < nk_; ++k)
        for (int pair = 0; pair < 4; ++pair) {
          for (int c = 0; c < side; ++c)
            for (int i = 0; i < leaf_; ++i)
              piece[i + static_cast<std::size_t>(leaf_) * c] = filling_[f][i][(c0 + c) * bs + in_block(pair, k, nk_)];
          LowRank strip = compress(piece.data(), leaf_, side, leaf_, cut_[f], "compressed history");
          LowRank& to = b.f[(static_cast<std::size_t>(f) * nk_ + k) * 4 + pair];
          to = b.rows_in == 0 ? std::move(strip) : stack_rows(to, strip, cut_[f], "compressed history");
        }
    b.rows_in += leaf_;
  }
  for (int f = 0; f < 2; ++f) filling_[f].assign(leaf_, std::vector<cplx>());
}

M2 CompressedHistory::load(bool greater, int l, int j, int k) const {
  if (l < j || l >= rows_) throw Error("compressed history: load(" + std::to_string(l) + ", " + std::to_string(j) + ") outside the lower triangle held");
  const int f = greater ? 1 : 0, filling_start = (rows_ - 1) / leaf_ * leaf_;
  if (l / leaf_ == j / leaf_) {
    const int s = l / leaf_, start = s * leaf_;
    return load_block(leaves_[f][s].data() + tri(l - start, j - start) * block_size(nk_), k, nk_);
  }
  if (l >= filling_start) return load_block(filling_[f][l - filling_start].data() + static_cast<std::size_t>(j) * block_size(nk_), k, nk_);
  for (const Block& b : blocks_) {
    if (l < b.r0 || l >= b.r0 + b.rows_in || j < b.c0 || j >= b.c0 + b.side) continue;
    M2 g;
    for (int pair = 0; pair < 4; ++pair) {
      const LowRank& x = factor(b, greater, k, pair);
      cplx v;
      for (int r = 0; r < x.rank; ++r)
        v += x.u[(l - b.r0) + static_cast<std::size_t>(x.rows) * r] * x.s[r] * conj(x.v[(j - b.c0) + static_cast<std::size_t>(x.cols) * r]);
      g.m[pair] = v;
    }
    return g;
  }
  throw Error("compressed history: no block holds (" + std::to_string(l) + ", " + std::to_string(j) + ")");
}

void CompressedHistory::collision_row(const CollisionRow& r) const {
  const int n = r.n, nk = nk_;
  if (n != rows_ - 1) throw Error("compressed history: the collision row of step " + std::to_string(n) + " with " + std::to_string(rows_) + " rows held");
  const std::size_t bs = block_size(nk);
  std::fill(r.i_less, r.i_less + static_cast<std::size_t>(n + 1) * bs, cplx());
  std::fill(r.i_greater, r.i_greater + static_cast<std::size_t>(n + 1) * bs, cplx());
#pragma omp parallel for schedule(dynamic, 1)
  for (int k = 0; k < nk; ++k) {
    auto sigma = [&](const cplx* rows, int l, int pair) { return element(rows, static_cast<std::size_t>(l), pair, k, nk); };
    auto add = [&](cplx* out, int j, int pair, cplx v) { out[static_cast<std::size_t>(j) * bs + in_block(pair, k, nk)] += v; };
    // 1. The pairs held densely, by the element formula of collision_accumulate: for a column j in the filling strip
    // every l; else those in j's diagonal leaf and those of the filling strip (l >= its start), in increasing l.
    const int filling_start = (rows_ - 1) / leaf_ * leaf_;
    for (int j = 0; j <= n; ++j) {
      M2 il, ig;
      const int leaf_lo = j / leaf_ * leaf_, leaf_hi = std::min(n, leaf_lo + leaf_ - 1);
      for (int l = j >= filling_start ? 0 : leaf_lo; l <= n; ++l) {
        if (j < filling_start && l > leaf_hi && l < filling_start) l = filling_start;  // skip the compressed columns
        const M2 gl = l >= j ? load(false, l, j, k) : -1.0 * dagger(load(false, j, l, k));
        const M2 gg = l >= j ? load(true, l, j, k) : -1.0 * dagger(load(true, j, l, k));
        const M2 sl = load_block(r.sigma_less + l * bs, k, nk), sg = load_block(r.sigma_greater + l * bs, k, nk);
        const M2 ret = sg - sl;
        const double w = trapezoid_weight(l, n, r.dt);
        il = il + w * (ret * gl);
        ig = ig + w * (ret * gg);
        if (l <= j) {
          const double wa = trapezoid_weight(l, j, r.dt);
          const M2 spec = gg - gl;
          il = il - wa * (sl * spec);
          ig = ig - wa * (sg * spec);
        }
      }
      for (int pair = 0; pair < 4; ++pair) {
        add(r.i_less, j, pair, il.m[pair]);
        add(r.i_greater, j, pair, ig.m[pair]);
      }
    }
    // 2. Each block and its mirror from the factors. (X Y)_cb = sum_a X_ca Y_ab, pair index 2 a + b.
    std::vector<cplx> y, ret_rows, ret_cols, adv[2];
    for (const Block& b : blocks_) {
      const int rows = b.rows_in, cols = b.side;
      if (rows == 0) continue;
      for (int c = 0; c < 2; ++c)
        for (int a = 0; a < 2; ++a) {
          const int ca = 2 * c + a;
          // The weights of the row vectors: the retarded term's w_l R_ca(l) over the block's rows and columns, the
          // advanced term's w'_l Sigma<>_ca(l) over its columns (w'_l = dt/2 at l = 0, else dt: l < j there).
          auto retarded = [&](int l) { return trapezoid_weight(l, n, r.dt) * (sigma(r.sigma_greater, l, ca) - sigma(r.sigma_less, l, ca)); };
          ret_rows.resize(rows);
          for (int i = 0; i < rows; ++i) ret_rows[i] = retarded(b.r0 + i);
          ret_cols.resize(cols);
          for (int cc = 0; cc < cols; ++cc) ret_cols[cc] = retarded(b.c0 + cc);
          for (int f = 0; f < 2; ++f) {
            adv[f].resize(cols);
            for (int cc = 0; cc < cols; ++cc) {
              const int l = b.c0 + cc;
              adv[f][cc] = (l == 0 ? 0.5 * r.dt : r.dt) * sigma(f == 1 ? r.sigma_greater : r.sigma_less, l, ca);
            }
          }
          for (int bb = 0; bb < 2; ++bb) {
            const int ab = 2 * a + bb, ba = 2 * bb + a;
            const std::size_t cb = in_block(2 * c + bb, k, nk);
            for (int f = 0; f < 2; ++f) {  // I< (f = 0) with G<, I> (f = 1) with G>
              cplx* out = f == 1 ? r.i_greater : r.i_less;
              // Retarded term, the block's own pairs (l in its rows, j in its columns): (x^T U_ab) S V_ab^H.
              const LowRank& g_ab = factor(b, f == 1, k, ab);
              through_factors(ret_rows, g_ab.u, g_ab.v, cols, g_ab.s, 1.0, out, b.c0, bs, cb, y);
              // Retarded term, the mirror (l in the block's columns, j in its rows): G_ab(l, j) = -conj(G_ba(j, l)).
              const LowRank& g_ba = factor(b, f == 1, k, ba);
              through_factors(ret_cols, g_ba.v, g_ba.u, rows, g_ba.s, -1.0, out, b.r0, bs, cb, y);
              // Advanced term, the mirror only (l < j): -sum_l w'_l Sigma_ca(l) (G>_ab - G<_ab)(l, j), with
              // (G>_ab - G<_ab)(l, j) = -conj(G>_ba(j, l)) + conj(G<_ba(j, l)): +G> (g = 1) and -G< (g = 0).
              for (int g = 0; g < 2; ++g) {
                const LowRank& x = factor(b, g == 1, k, ba);
                through_factors(adv[f], x.v, x.u, rows, x.s, g == 1 ? 1.0 : -1.0, out, b.r0, bs, cb, y);
              }
            }
          }
        }
    }
  }
}

std::size_t CompressedHistory::stored_numbers() const {
  std::size_t n = 0;
  for (int f = 0; f < 2; ++f) {
    for (const auto& x : leaves_[f]) n += x.size();
    for (const auto& x : filling_[f]) n += x.size();
  }
  for (const Block& b : blocks_)
    for (const LowRank& x : b.f) n += x.numbers();
  return n;
}

}  // namespace quanta::kbe::kernels
