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

bool CompressedHistory::dense_pair(int l, int j) const {
  const int filling_start = (rows_ - 1) / leaf_ * leaf_;
  return l / leaf_ == j / leaf_ || l >= filling_start;
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
        if (!dense_pair(std::max(l, j), std::min(l, j))) continue;
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
    std::vector<cplx> y;
    for (const Block& b : blocks_) {
      const int rows = b.rows_in, cols = b.side;
      if (rows == 0) continue;
      for (int c = 0; c < 2; ++c)
        for (int a = 0; a < 2; ++a)
          for (int bb = 0; bb < 2; ++bb) {
            const int ca = 2 * c + a, ab = 2 * a + bb, ba = 2 * bb + a, cb = 2 * c + bb;
            for (int f = 0; f < 2; ++f) {
              const LowRank& g_ab = factor(b, f == 1, k, ab);
              const LowRank& g_ba = factor(b, f == 1, k, ba);
              cplx* out = f == 1 ? r.i_greater : r.i_less;
              // Retarded term, the block's own pairs (l in its rows, j in its columns): (sum_l w_l R_ca(l) U_ab(l, .)) S V_ab^H.
              y.assign(g_ab.rank, cplx());
              for (int i = 0; i < rows; ++i) {
                const int l = b.r0 + i;
                const cplx x = trapezoid_weight(l, n, r.dt) * (sigma(r.sigma_greater, l, ca) - sigma(r.sigma_less, l, ca));
                for (int q = 0; q < g_ab.rank; ++q) y[q] += x * g_ab.u[i + static_cast<std::size_t>(g_ab.rows) * q];
              }
              for (int cc = 0; cc < cols; ++cc) {
                cplx v;
                for (int q = 0; q < g_ab.rank; ++q) v += y[q] * g_ab.s[q] * conj(g_ab.v[cc + static_cast<std::size_t>(g_ab.cols) * q]);
                add(out, b.c0 + cc, cb, v);
              }
              // Retarded term, the mirror (l in the block's columns, j in its rows): G_ab(l, j) = -conj(G_ba(j, l)).
              y.assign(g_ba.rank, cplx());
              for (int cc = 0; cc < cols; ++cc) {
                const int l = b.c0 + cc;
                const cplx x = trapezoid_weight(l, n, r.dt) * (sigma(r.sigma_greater, l, ca) - sigma(r.sigma_less, l, ca));
                for (int q = 0; q < g_ba.rank; ++q) y[q] += x * g_ba.v[cc + static_cast<std::size_t>(g_ba.cols) * q];
              }
              for (int i = 0; i < rows; ++i) {
                cplx v;
                for (int q = 0; q < g_ba.rank; ++q) v += y[q] * g_ba.s[q] * conj(g_ba.u[i + static_cast<std::size_t>(g_ba.rows) * q]);
                add(out, b.r0 + i, cb, -1.0 * v);
              }
            }
            // Advanced term, the mirror only (l < j): -sum_l w'_l Sigma_ca(l) (G>_ab - G<_ab)(l, j), with
            // (G>_ab - G<_ab)(l, j) = -conj(G>_ba(j, l)) + conj(G<_ba(j, l)); w'_l = dt/2 at l = 0, else dt (j > l).
            for (int f = 0; f < 2; ++f) {       // which I: f = 0 with Sigma<, f = 1 with Sigma>
              cplx* out = f == 1 ? r.i_greater : r.i_less;
              const cplx* srow = f == 1 ? r.sigma_greater : r.sigma_less;
              for (int g = 0; g < 2; ++g) {     // which G in the spectral difference: +G> (g = 1), -G< (g = 0)
                const LowRank& x = factor(b, g == 1, k, ba);
                y.assign(x.rank, cplx());
                for (int cc = 0; cc < cols; ++cc) {
                  const int l = b.c0 + cc;
                  const cplx w = (l == 0 ? 0.5 * r.dt : r.dt) * sigma(srow, l, ca);
                  for (int q = 0; q < x.rank; ++q) y[q] += w * x.v[cc + static_cast<std::size_t>(x.cols) * q];
                }
                const double sign = g == 1 ? 1.0 : -1.0;
                for (int i = 0; i < rows; ++i) {
                  cplx v;
                  for (int q = 0; q < x.rank; ++q) v += y[q] * x.s[q] * conj(x.u[i + static_cast<std::size_t>(x.rows) * q]);
                  add(out, b.r0 + i, cb, sign * v);
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
