// The row transposition of a k-split kbe run (distribution.hpp).
#include "distribution.hpp"

#include <algorithm>

#include "../kernels/layout.hpp"

namespace quanta::kbe {

RowTranspose::RowTranspose(const Comm& comm, int nk, int ntimes, bool host_stage)
    : comm_(comm), k_{nk, comm.size()}, nk_(nk), max_pairs_((ntimes + comm.size() - 1) / comm.size()) {
  if (host_stage) stage_.resize(static_cast<std::size_t>(max_pairs_) * kernels::block_size(nk));
  const auto p = static_cast<std::size_t>(comm.size());
  for (auto* v : {&plan_.row_counts, &plan_.row_displs, &plan_.pair_counts, &plan_.pair_displs}) v->resize(p);
  plan_.k_begin.resize(p);
  plan_.k_count.resize(p);
  for (int r = 0; r < comm.size(); ++r) {
    plan_.k_begin[r] = k_.begin(r);
    plan_.k_count[r] = k_.count(r);
  }
}

const TransposePlan& RowTranspose::plan(int count) {
  TransposePlan& p = plan_;
  const int me = comm_.rank(), nkl = k_.count(me);
  const Split pairs{count, comm_.size()};
  p.count = count;
  p.first = pairs.begin(me);
  p.mine = pairs.count(me);
  for (int r = 0; r < comm_.size(); ++r) {
    p.row_counts[r] = static_cast<std::size_t>(pairs.count(r)) * 4 * nkl;
    p.row_displs[r] = static_cast<std::size_t>(pairs.begin(r)) * 4 * nkl;
    p.pair_counts[r] = static_cast<std::size_t>(p.mine) * 4 * k_.count(r);
    p.pair_displs[r] = static_cast<std::size_t>(p.mine) * 4 * k_.begin(r);
  }
  return p;
}

void RowTranspose::to_pairs(const cplx* row, int count, cplx* pairs) {
  const TransposePlan& p = plan(count);
  comm_.alltoallv(row, p.row_counts, p.row_displs, stage_.data(), p.pair_counts, p.pair_displs);
#pragma omp parallel for collapse(2) schedule(static)
  for (int r = 0; r < comm_.size(); ++r)
    for (int b = 0; b < 4 * p.mine; ++b) {  // b = 4 l + band pair: one plane of one time pair
      const int nkr = p.k_count[r];
      std::copy_n(stage_.data() + p.pair_displs[r] + static_cast<std::size_t>(b) * nkr, nkr,
                  pairs + static_cast<std::size_t>(b) * nk_ + p.k_begin[r]);
    }
}

void RowTranspose::to_k(const cplx* pairs, int count, cplx* row) {
  const TransposePlan& p = plan(count);
#pragma omp parallel for collapse(2) schedule(static)
  for (int r = 0; r < comm_.size(); ++r)
    for (int b = 0; b < 4 * p.mine; ++b) {
      const int nkr = p.k_count[r];
      std::copy_n(pairs + static_cast<std::size_t>(b) * nk_ + p.k_begin[r], nkr,
                  stage_.data() + p.pair_displs[r] + static_cast<std::size_t>(b) * nkr);
    }
  comm_.alltoallv(stage_.data(), p.pair_counts, p.pair_displs, row, p.row_counts, p.row_displs);
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
