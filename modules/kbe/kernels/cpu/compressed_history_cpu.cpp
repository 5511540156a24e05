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

const cplx* CompressedHistory::dense_block(int f, int l, int j) const {
  if (l / leaf_ == j / leaf_) {
    const int s = l / leaf_, start = s * leaf_;
    return leaves_[f][s].data() + tri(l - start, j - start) * block_size(nk_);
  }
  const int filling_start = (rows_ - 1) / leaf_ * leaf_;
  if (l >= filling_start) return filling_[f][l - filling_start].data() + static_cast<std::size_t>(j) * block_size(nk_);
  return nullptr;
}

M2 CompressedHistory::load(bool greater, int l, int j, int k) const {
  if (l < j || l >= rows_) throw Error("compressed history: load(" + std::to_string(l) + ", " + std::to_string(j) + ") outside the lower triangle held");
  if (const cplx* d = dense_block(greater ? 1 : 0, l, j)) return load_block(d, k, nk_);
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
  // 1. The pairs held densely, by the element formula of collision_accumulate: for a column j in the filling strip
  // every l; else those in j's diagonal leaf and those of the filling strip (l >= its start), in increasing l. One
  // column per thread, k innermost (each block read contiguously), as collision_integral_cpu.
  const int filling_start = (rows_ - 1) / leaf_ * leaf_;
#pragma omp parallel for schedule(dynamic, 1)
  for (int j = 0; j <= n; ++j) {
    cplx* il_out = r.i_less + static_cast<std::size_t>(j) * bs;
    cplx* ig_out = r.i_greater + static_cast<std::size_t>(j) * bs;
    std::fill_n(il_out, bs, cplx());
    std::fill_n(ig_out, bs, cplx());
    const int leaf_lo = j / leaf_ * leaf_, leaf_hi = std::min(n, leaf_lo + leaf_ - 1);
    for (int l = j >= filling_start ? 0 : leaf_lo; l <= n; ++l) {
      if (j < filling_start && l > leaf_hi && l < filling_start) l = filling_start;  // skip the compressed columns
      const bool mirror = l < j;  // G(l, j) = -G(j, l)^dagger
      const cplx* bl = mirror ? dense_block(0, j, l) : dense_block(0, l, j);
      const cplx* bg = mirror ? dense_block(1, j, l) : dense_block(1, l, j);
      const cplx* sl_row = r.sigma_less + static_cast<std::size_t>(l) * bs;
      const cplx* sg_row = r.sigma_greater + static_cast<std::size_t>(l) * bs;
      const double w = quadrature_weight(l, n, r.dt, r.times), wa = l <= j ? quadrature_weight(l, j, r.dt, r.times) : 0.0;
      for (int k = 0; k < nk; ++k) {
        const M2 gl = mirror ? -1.0 * dagger(load_block(bl, k, nk)) : load_block(bl, k, nk);
        const M2 gg = mirror ? -1.0 * dagger(load_block(bg, k, nk)) : load_block(bg, k, nk);
        const M2 sl = load_block(sl_row, k, nk), sg = load_block(sg_row, k, nk);
        const M2 ret = sg - sl;
        M2 il = load_block(il_out, k, nk), ig = load_block(ig_out, k, nk);
        il = il + w * (ret * gl);
        ig = ig + w * (ret * gg);
        if (l <= j) {
          const M2 spec = gg - gl;
          il = il - wa * (sl * spec);
          ig = ig - wa * (sg * spec);
        }
        store_block(il_out, k, nk, il);
        store_block(ig_out, k, nk, ig);
      }
    }
  }
#pragma omp parallel for schedule(dynamic, 1)
  for (int k = 0; k < nk; ++k) {
    auto sigma = [&](const cplx* rows, int l, int pair) { return element(rows, static_cast<std::size_t>(l), pair, k, nk); };
    // 2. Each block and its mirror from the factors. (X Y)_cb = sum_a X_ca Y_ab, pair index 2 a + b.
    std::vector<cplx> y, ret_rows, ret_cols, adv[2];
    for (const Block& b : blocks_) {
      const int rows = b.rows_in, cols = b.side;
      if (rows == 0) continue;
      for (int c = 0; c < 2; ++c)
        for (int a = 0; a < 2; ++a) {
          const int ca = 2 * c + a;
          // The weights of the row vectors: the retarded term's w_l R_ca(l) over the block's rows and columns, the
          // advanced term's w'_l Sigma<>_ca(l) over its columns (l < j there: the weight of an inner point, or of l = 0,
          // whatever j; quadrature_weight(l, l + 1)).
          auto retarded = [&](int l) { return quadrature_weight(l, n, r.dt, r.times) * (sigma(r.sigma_greater, l, ca) - sigma(r.sigma_less, l, ca)); };
          ret_rows.resize(rows);
          for (int i = 0; i < rows; ++i) ret_rows[i] = retarded(b.r0 + i);
          ret_cols.resize(cols);
          for (int cc = 0; cc < cols; ++cc) ret_cols[cc] = retarded(b.c0 + cc);
          for (int f = 0; f < 2; ++f) {
            adv[f].resize(cols);
            for (int cc = 0; cc < cols; ++cc) {
              const int l = b.c0 + cc;
              adv[f][cc] = quadrature_weight(l, l + 1, r.dt, r.times) * sigma(f == 1 ? r.sigma_greater : r.sigma_less, l, ca);
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

std::size_t CompressedHistory::planned_numbers(int nk, int rows, int leaf, int rank) {
  const std::size_t bs = block_size(nk), strips = (static_cast<std::size_t>(rows) + leaf - 1) / leaf;
  // The leaves, and the filling strip when full (leaf rows of the columns before it).
  std::size_t n = 2 * (strips * tri_count(leaf) * bs + static_cast<std::size_t>(leaf) * (strips > 0 ? strips - 1 : 0) * leaf * bs);
  // The blocks as close_strip builds them: strips 1 .. strips - 2 are closed (the last one is filling).
  std::vector<std::pair<int, int>> blocks;  // (level, rows stacked), in the order they appear
  std::vector<std::vector<int>> index_of;   // [level][r0 / side] -> index into blocks
  for (std::size_t s = 1; s + 1 < strips; ++s) {
    const int start = static_cast<int>(s) * leaf;
    for (int m = 0; (leaf << m) <= start; ++m) {
      const int side = leaf << m, u = start / side;
      if (u % 2 == 0) continue;
      if (static_cast<int>(index_of.size()) <= m) index_of.resize(m + 1);
      if (static_cast<int>(index_of[m].size()) <= u) index_of[m].resize(u + 1, -1);
      if (index_of[m][u] < 0) {
        index_of[m][u] = static_cast<int>(blocks.size());
        blocks.emplace_back(m, 0);
      }
      blocks[index_of[m][u]].second += leaf;
    }
  }
  for (const auto& [m, stacked] : blocks) {
    const std::size_t side = static_cast<std::size_t>(leaf) << m;
    const std::size_t r = std::min<std::size_t>({static_cast<std::size_t>(rank), static_cast<std::size_t>(stacked), side});
    n += 2 * 4 * static_cast<std::size_t>(nk) * r * (stacked + side + 1);
  }
  return n;
}

int CompressedHistory::max_rank() const {
  int r = 0;
  for (const Block& b : blocks_)
    for (const LowRank& x : b.f) r = std::max(r, x.rank);
  return r;
}

namespace {
// The flat state of save() and restore(): integers as doubles, complex numbers as [re, im].
void put(std::vector<double>& out, const std::vector<cplx>& v) {
  out.push_back(static_cast<double>(v.size()));
  for (const cplx& z : v) {
    out.push_back(z.re);
    out.push_back(z.im);
  }
}

struct StateReader {
  const std::vector<double>& v;
  const std::string& where;
  std::size_t at = 0;
  [[noreturn]] void bad(const std::string& what) const {
    throw Error(where + ": not a compressed history of this run (" + what + " at value " + std::to_string(at) + ")");
  }
  double number() {
    if (at >= v.size()) bad("it ends early");
    return v[at++];
  }
  long long integer(long long lo, long long hi, const char* what) {
    const double x = number();
    if (!(x >= static_cast<double>(lo) && x <= static_cast<double>(hi)) || x != static_cast<double>(static_cast<long long>(x)))
      bad(std::string(what) + " " + std::to_string(x) + " outside [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
    return static_cast<long long>(x);
  }
  std::vector<cplx> complexes(std::size_t expected_size) {
    const auto n = static_cast<std::size_t>(integer(0, static_cast<long long>(expected_size), "an array size"));
    if (n != expected_size) bad("an array of " + std::to_string(n) + " numbers where " + std::to_string(expected_size) + " were expected");
    if (v.size() - at < 2 * n) bad("it ends early");
    std::vector<cplx> out(n);
    for (std::size_t i = 0; i < n; ++i) out[i] = cplx(v[at + 2 * i], v[at + 2 * i + 1]);
    at += 2 * n;
    return out;
  }
};
}  // namespace

std::vector<double> CompressedHistory::save() const {
  std::vector<double> out = {static_cast<double>(nk_), static_cast<double>(leaf_), cut_[0], cut_[1], static_cast<double>(rows_),
                             static_cast<double>(leaves_[0].size()), static_cast<double>(blocks_.size())};
  for (int f = 0; f < 2; ++f) {
    for (const auto& x : leaves_[f]) put(out, x);
    for (const auto& x : filling_[f]) put(out, x);
  }
  for (const Block& b : blocks_) {
    for (int x : {b.level, b.r0, b.c0, b.side, b.rows_in}) out.push_back(x);
    for (const LowRank& x : b.f) {
      for (int y : {x.rows, x.cols, x.rank}) out.push_back(y);
      put(out, x.u);
      out.insert(out.end(), x.s.begin(), x.s.end());
      put(out, x.v);
    }
  }
  return out;
}

void CompressedHistory::restore(const std::vector<double>& state, const std::string& where) {
  StateReader in{state, where};
  if (in.integer(1, 1LL << 40, "nk") != nk_ || in.integer(1, 1LL << 40, "the leaf size") != leaf_ || in.number() != cut_[0] ||
      in.number() != cut_[1])
    in.bad("another nk, leaf size or tolerance");
  const long long rows = in.integer(0, 1LL << 40, "the rows");
  const long long strips = in.integer(0, 1LL << 40, "the strips");
  const long long nblocks = in.integer(0, 1LL << 40, "the blocks");
  if (strips != (rows + leaf_ - 1) / leaf_) in.bad(std::to_string(strips) + " strips for " + std::to_string(rows) + " rows");
  const std::size_t bs = block_size(nk_);
  const int filling_start = rows > 0 ? static_cast<int>((rows - 1) / leaf_ * leaf_) : 0;
  CompressedHistory h(nk_, leaf_, cut_[0], cut_[1]);
  h.rows_ = static_cast<int>(rows);
  for (int f = 0; f < 2; ++f) {
    for (long long s = 0; s < strips; ++s) h.leaves_[f].push_back(in.complexes(tri_count(leaf_) * bs));
    if (rows == 0) continue;  // no strip begun: no filling rows either
    h.filling_[f].assign(leaf_, std::vector<cplx>());
    for (int i = 0; i < leaf_; ++i)
      h.filling_[f][i] = in.complexes(filling_start + i < rows ? static_cast<std::size_t>(filling_start) * bs : 0);
  }
  for (long long i = 0; i < nblocks; ++i) {
    Block b;
    b.level = static_cast<int>(in.integer(0, 62, "a block's level"));
    b.side = leaf_ << b.level;
    b.r0 = static_cast<int>(in.integer(0, rows, "a block's first row"));
    b.c0 = static_cast<int>(in.integer(0, rows, "a block's first column"));
    if (in.integer(0, 1LL << 40, "a block's side") != b.side) in.bad("a block's side that is not leaf 2^level");
    b.rows_in = static_cast<int>(in.integer(0, b.side, "a block's rows"));
    b.f.resize(static_cast<std::size_t>(2) * nk_ * 4);
    for (LowRank& x : b.f) {
      x.rows = static_cast<int>(in.integer(0, b.side, "a factor's rows"));
      x.cols = static_cast<int>(in.integer(0, b.side, "a factor's columns"));
      x.rank = static_cast<int>(in.integer(0, b.side, "a factor's rank"));
      x.u = in.complexes(static_cast<std::size_t>(x.rows) * x.rank);
      for (int q = 0; q < x.rank; ++q) x.s.push_back(in.number());
      x.v = in.complexes(static_cast<std::size_t>(x.cols) * x.rank);
    }
    h.blocks_.push_back(std::move(b));
  }
  if (in.at != state.size()) in.bad(std::to_string(state.size() - in.at) + " values left over");
  *this = std::move(h);
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
