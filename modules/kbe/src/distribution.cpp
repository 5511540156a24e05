// The row transposition of a k-split kbe run (distribution.hpp).
#include "distribution.hpp"

#include <algorithm>

#include "../kernels/layout.hpp"

namespace quanta::kbe {

RowTranspose::RowTranspose(const Comm& comm, int nk, int ntimes)
    : comm_(comm), k_{nk, comm.size()}, nk_(nk), max_pairs_((ntimes + comm.size() - 1) / comm.size()) {
  stage_.resize(static_cast<std::size_t>(max_pairs_) * kernels::block_size(nk));
  const auto p = static_cast<std::size_t>(comm.size());
  row_counts_.resize(p);
  row_displs_.resize(p);
  pair_counts_.resize(p);
  pair_displs_.resize(p);
}

// Row side: the pairs of rank s are the contiguous blocks [pairs_begin_s, +pairs_count_s) of [count][4][nk_local].
// Pairs side: rank r's k-points for my pairs arrive as one [my_pairs][4][nk_r] piece, pieces in rank order.
void RowTranspose::plan(int count) {
  const int me = comm_.rank(), nkl = k_.count(me), mine = pairs_count(count);
  const Split pairs{count, comm_.size()};
  for (int r = 0; r < comm_.size(); ++r) {
    row_counts_[r] = static_cast<std::size_t>(pairs.count(r)) * 4 * nkl;
    row_displs_[r] = static_cast<std::size_t>(pairs.begin(r)) * 4 * nkl;
    pair_counts_[r] = static_cast<std::size_t>(mine) * 4 * k_.count(r);
    pair_displs_[r] = static_cast<std::size_t>(mine) * 4 * k_.begin(r);
  }
}

void RowTranspose::to_pairs(const cplx* row, int count, cplx* pairs) {
  plan(count);
  comm_.alltoallv(row, row_counts_, row_displs_, stage_.data(), pair_counts_, pair_displs_);
  const int mine = pairs_count(count);
#pragma omp parallel for collapse(2) schedule(static)
  for (int r = 0; r < comm_.size(); ++r)
    for (int b = 0; b < 4 * mine; ++b) {  // b = 4 l + p: one band-pair plane of one time pair
      const int nkr = k_.count(r);
      std::copy_n(stage_.data() + pair_displs_[r] + static_cast<std::size_t>(b) * nkr, nkr,
                  pairs + static_cast<std::size_t>(b) * nk_ + k_.begin(r));
    }
}

void RowTranspose::to_k(const cplx* pairs, int count, cplx* row) {
  plan(count);
  const int mine = pairs_count(count);
#pragma omp parallel for collapse(2) schedule(static)
  for (int r = 0; r < comm_.size(); ++r)
    for (int b = 0; b < 4 * mine; ++b) {
      const int nkr = k_.count(r);
      std::copy_n(pairs + static_cast<std::size_t>(b) * nk_ + k_.begin(r), nkr,
                  stage_.data() + pair_displs_[r] + static_cast<std::size_t>(b) * nkr);
    }
  comm_.alltoallv(stage_.data(), pair_counts_, pair_displs_, row, row_counts_, row_displs_);
}

void gather_half_plane(const Comm& comm, int nk, int ntimes, const cplx* local, std::vector<cplx>& full) {
  const Split ks{nk, comm.size()};
  const int nkl = ks.count(comm.rank());
  const auto ranks = static_cast<std::size_t>(comm.size());
  std::vector<std::size_t> counts(ranks), displs(ranks);
  std::vector<cplx> stage;
  if (comm.root()) {
    full.assign(kernels::tri_count(ntimes) * kernels::block_size(nk), cplx());
    stage.resize(static_cast<std::size_t>(ntimes) * kernels::block_size(nk));
  }
  for (int n = 0; n < ntimes; ++n) {
    const int blocks = 4 * (n + 1);  // band-pair planes of row n
    for (std::size_t r = 0; r < ranks; ++r) {
      counts[r] = static_cast<std::size_t>(blocks) * ks.count(static_cast<int>(r));
      displs[r] = static_cast<std::size_t>(blocks) * ks.begin(static_cast<int>(r));
    }
    comm.gatherv(local + kernels::tri(n, 0) * kernels::block_size(nkl), stage.data(), counts, displs);
    if (!comm.root()) continue;
    cplx* row = full.data() + kernels::tri(n, 0) * kernels::block_size(nk);
    for (std::size_t r = 0; r < ranks; ++r)
      for (int b = 0; b < blocks; ++b) {
        const int nkr = ks.count(static_cast<int>(r));
        std::copy_n(stage.data() + displs[r] + static_cast<std::size_t>(b) * nkr, nkr,
                    row + static_cast<std::size_t>(b) * nk + ks.begin(static_cast<int>(r)));
      }
  }
}

}  // namespace quanta::kbe
