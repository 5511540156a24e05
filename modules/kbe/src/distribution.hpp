#pragma once
// How a kbe run is split over the processes of a Comm (MPI over k).
//
// Each rank owns a contiguous range of k-points for every time pair: its half-plane, Sigma row and
// collision rows are the single-process layouts with nk replaced by its own count (kernels/layout.hpp),
// and the collision integral and the time step need nothing from other ranks. Only three things couple
// the k-points: the mean-field Hamiltonian and the observables (sums over k: an all-reduce of a few
// numbers) and the second-Born self-energy, which for one time pair is a convolution over all k. For it a
// time row is transposed: each rank receives a contiguous range of the row's time pairs with every k,
// computes their Sigma exactly as a single process would, and the Sigma row is transposed back.
// Per corrector pass each rank sends and receives about 2 (P-1)/P^2 of one row of G<> and Sigma<>.
#include <cstddef>
#include <vector>

#include "quanta/core/comm.hpp"
#include "quanta/core/complex.hpp"

namespace quanta::kbe {

// Contiguous ranges of n items over `parts` ranks: rank r owns [begin(r), begin(r + 1)).
struct Split {
  long n = 0;
  int parts = 1;
  int begin(int r) const { return static_cast<int>(n * r / parts); }
  int count(int r) const { return begin(r + 1) - begin(r); }
};

// Who sends what in the transposition of a row of `count` time pairs, in complex elements. Row side:
// rank s's pairs are the contiguous blocks [first_s, +mine_s) of this rank's [count][4][nk_local] row.
// Pair side: rank r's k-points of this rank's pairs arrive as one [mine][4][k_count[r]] piece, in rank order.
struct TransposePlan {
  int count = 0, first = 0, mine = 0;                   // this rank's pairs: [first, first + mine)
  std::vector<int> k_begin, k_count;                    // every rank's k range
  std::vector<std::size_t> row_counts, row_displs;      // row side, per rank s
  std::vector<std::size_t> pair_counts, pair_displs;    // pair side, per rank r
};

// The transposition of one time row between the k-split and the pair-split layouts.
class RowTranspose {
 public:
  // host_stage: take the host buffer that to_pairs/to_k need (not needed when only plan() is used).
  RowTranspose(const Comm& comm, int nk, int ntimes, bool host_stage = true);

  const Split& k_split() const { return k_; }
  // This rank's time pairs of a row with `count` pairs.
  int pairs_begin(int count) const { return Split{count, comm_.size()}.begin(comm_.rank()); }
  int pairs_count(int count) const { return Split{count, comm_.size()}.count(comm_.rank()); }
  int max_pairs() const { return max_pairs_; }  // over every row and rank

  const TransposePlan& plan(int count);  // for a row of `count` pairs

  // In host memory, through Comm (the device path is DevicePropagation::self_energy_row_exchanged):
  // row: [count][4][nk_local] of this rank -> pairs: [pairs_count(count)][4][nk], every k.
  void to_pairs(const cplx* row, int count, cplx* pairs);
  // pairs: [pairs_count(count)][4][nk] -> row: [count][4][nk_local].
  void to_k(const cplx* pairs, int count, cplx* row);

 private:
  const Comm& comm_;
  Split k_;
  int nk_, max_pairs_;
  TransposePlan plan_;
  std::vector<cplx> stage_;  // [max_pairs][4][nk], ordered by k owner
};

// The whole half-plane [tri_count(ntimes)][4][nk] on the root from every rank's k-range of it
// ([tri_count(ntimes)][4][nk_local]), gathered one time row at a time; `full` is resized on the root only.
void gather_half_plane(const Comm& comm, int nk, int ntimes, const cplx* local, std::vector<cplx>& full);

}  // namespace quanta::kbe
