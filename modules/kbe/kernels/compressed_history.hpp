#pragma once
// The two-time history G<>(k; t_l, t_j), l >= j, in compressed form (docs/kbe.md, "Compressed history"), CPU twin:
// rows arrive in order; the rows of the strip being filled (`leaf` rows) stay dense; once a strip is complete its
// part left of the diagonal is cut at the dyadic blocks anchored at t = 0 (side S = leaf 2^m: rows
// [(2i+1)S, (2i+2)S) x columns [2iS, (2i+1)S)), each piece compressed (kernels/low_rank.hpp) and stacked onto its
// block, one matrix per k, band pair and function; the diagonal leaves (triangles of `leaf` times) stay dense.
//
// The collision integral of a row (kernels/collision_integral.hpp: the same sums, the same weights) is evaluated from
// it without expanding a block: over a block's rows, the retarded term's row vector meets U first, (x^T U) diag(s) V^H;
// over its mirror (G(t, t') = -G(t', t)^dagger above the diagonal) V first; the advanced term only meets mirrors.
// Pairs in the dense parts (a diagonal leaf, the filling strip, their mirrors) go through the dense element formula.
#include <cstddef>
#include <string>
#include <vector>

#include "collision_integral.hpp"
#include "low_rank.hpp"

namespace quanta::kbe::kernels {

class CompressedHistory {
 public:
  // cut_less, cut_greater: the absolute cuts of G< and G> (tol max|G| for each).
  CompressedHistory(int nk, int leaf, double cut_less, double cut_greater);

  // Row n (times t_n, t_j, j = 0..n; layout [n+1][4][nk] as a half-plane row) of G< and G>. Rows come in order,
  // n = rows(); the last row may be set again (a corrector pass) while its strip is not complete.
  void set_row(int n, const cplx* less, const cplx* greater);
  int rows() const { return rows_; }

  // G<(k; t_l, t_j) (or G> when `greater`) for l >= j, l < rows(): from a leaf, the filling strip or a block.
  M2 load(bool greater, int l, int j, int k) const;

  // I<>(t_n, t_j), j = 0..n, for n = rows() - 1: as collision_integral_cpu with r.n = n (r.g_less and r.g_greater are
  // not read), the sums over the history taken from the store.
  void collision_row(const CollisionRow& r) const;

  // Complex and real numbers held (factors, leaves, the filling strip), for the memory figures.
  std::size_t stored_numbers() const;
  int blocks() const { return static_cast<int>(blocks_.size()); }
  int max_rank() const;  // the largest rank of any block's factor (0 without blocks)

  // The numbers (complex or real) a store of `rows` rows holds, its last strip full, when each block factor has rank
  // min(rank, its sides): the plan of a run before it starts, at a stated rank.
  static std::size_t planned_numbers(int nk, int rows, int leaf, int rank);

  // The whole store as a flat array of doubles (integers exact; complex numbers as [re, im]), for checkpoints, and
  // back: restore() replaces this store's contents by a saved one of the same nk, leaf and cuts, bit for bit. Throws
  // Error naming `where` when the array is not such a state.
  std::vector<double> save() const;
  void restore(const std::vector<double>& state, const std::string& where);

 private:
  struct Block {
    int level = 0, r0 = 0, c0 = 0, side = 0;  // rows [r0, r0 + side) x columns [c0, c0 + side)
    int rows_in = 0;                          // rows stacked so far
    std::vector<LowRank> f;                   // [function][k][pair]: 2 x nk x 4 matrices
  };
  const LowRank& factor(const Block& b, bool greater, int k, int pair) const {
    return b.f[(static_cast<std::size_t>(greater) * nk_ + k) * 4 + pair];
  }
  void close_strip(int s);  // strip s complete: its dense rows into the blocks
  // The [4][nk] block of (l, j), l >= j, of function f when a leaf or the filling strip holds it; else null.
  const cplx* dense_block(int f, int l, int j) const;
  int nk_, leaf_;
  double cut_[2];
  int rows_ = 0;
  std::vector<std::vector<cplx>> leaves_[2];   // [function][strip]: the diagonal leaf, tri(leaf) blocks of [4][nk]
  std::vector<std::vector<cplx>> filling_[2];  // [function][row - strip start]: columns 0..start-1, [start][4][nk]
  std::vector<Block> blocks_;
};

}  // namespace quanta::kbe::kernels
