// Numerical ranks of the two-time history G<>(k; t, t'), t' <= t, for the design of a compressed history
// (Kaye & Golez, SciPost Phys. 10, 091 (2021)): the lower triangle of the (t, t') plane is cut into a
// hierarchical (HODLR) partition whose off-diagonal blocks would be stored as truncated SVDs and whose
// diagonal leaves stay dense. The program propagates CONFIG (the `quanta kbe` format) on the CPU, keeps
// the half-plane, and for the first nt steps of it (every --nt value) reports per block side the maximum
// and mean numerical rank (LAPACK zgesdd, singular values only) and, per leaf size, the compressed storage
// against the dense triangle. Two layouts: each k and band pair (a, b) alone (an m x m block), and the four
// band pairs of one k stacked (a 2m x 2m block, rows (t, a), columns (t', b)). Two rank criteria:
// sigma_i > tol * max|G| (the largest |G| of the whole history of that function, all k: an absolute bound
// on every dropped entry) and sigma_i > tol * sigma_1 (relative to the block's own norm). Then the time of
// the SVDs with singular vectors (zgesdd 'S', what compressing a block takes), one thread, on --timing-k
// k-points.
//   history_ranks CONFIG.toml [--nt 200,400,800] [--leaf 16,32,64,128] [--tol 1e-4,1e-6,1e-8,1e-10]
//                 [--timing-k 2] [--threads 0]
// --nt defaults to the config's time.steps and must not exceed it; leaf sizes are the smallest one times powers of 2.
// With Debian's OpenBLAS 0.3.21 on an AVX-512 machine, zgesdd of complex matrices from about 300 x 300 on
// crashes in the Haswell zgemv kernel; run with OPENBLAS_CORETYPE=Nehalem there (docs/kbe.md).
#include <lapacke.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "bench_options.hpp"
#include "../kernels/layout.hpp"
#include "quanta/core/threads.hpp"
#include "quanta/core/timer.hpp"
#include "quanta/kbe/config.hpp"
#include "quanta/kbe/propagator.hpp"

using namespace quanta;
using namespace quanta::kbe::kernels;
using quanta::kbe::bench::parse_list;

namespace {

// One off-diagonal block of the partition: rows [row0, row0 + rows) (times t), columns [col0, col0 + cols)
// (times t'), side `side` before the cut at the last time.
struct Block {
  int side, row0, rows, col0, cols;
};

// The dyadic partition of the lower triangle of `ntimes` times, anchored at t = 0 so that no block moves
// as the history grows: at side s = smallest * 2^j, the blocks are rows [(2i+1)s, (2i+2)s) (cut at ntimes)
// x columns [2is, (2i+1)s). With leaf size m, the blocks of side >= m are compressed and the triangles
// [jm, (j+1)m) of the diagonal are the dense leaves.
std::vector<Block> hodlr_blocks(int ntimes, int smallest) {
  std::vector<Block> blocks;
  for (int s = smallest; s < ntimes; s *= 2)
    for (int r0 = s; r0 < ntimes; r0 += 2 * s) blocks.push_back({s, r0, std::min(s, ntimes - r0), r0 - s, s});
  return blocks;
}

// Dense storage (complex numbers, one band pair) of the diagonal leaves of size `leaf`.
double leaf_storage(int ntimes, int leaf) {
  double n = 0;
  for (int j0 = 0; j0 < ntimes; j0 += leaf) {
    const double l = std::min(leaf, ntimes - j0);
    n += l * (l + 1) / 2;
  }
  return n;
}

// Singular values of the column-major rows x cols matrix a (overwritten), largest first; with vectors,
// the thin U and V^H are computed too (into u, vt), as compressing the block would.
void svd(std::vector<cplx>& a, int rows, int cols, std::vector<double>& sigma, bool vectors, std::vector<cplx>& u,
         std::vector<cplx>& vt) {
  const int r = std::min(rows, cols);
  sigma.resize(r);
  auto z = [](std::vector<cplx>& v) { return reinterpret_cast<lapack_complex_double*>(v.data()); };
  if (vectors) {
    u.resize(static_cast<std::size_t>(rows) * r);
    vt.resize(static_cast<std::size_t>(r) * cols);
  }
  const lapack_int info = LAPACKE_zgesdd(LAPACK_COL_MAJOR, vectors ? 'S' : 'N', rows, cols, z(a), rows, sigma.data(),
                                         vectors ? z(u) : nullptr, vectors ? rows : 1, vectors ? z(vt) : nullptr,
                                         vectors ? r : 1);
  if (info != 0) {
    std::fprintf(stderr, "history_ranks: zgesdd failed (info %d) on a %d x %d block\n", static_cast<int>(info), rows, cols);
    std::exit(1);
  }
}

enum Layout { kPerPair, kStacked, kLayouts };
enum Criterion { kGlobal, kBlockNorm, kCriteria };
const char* const kLayoutName[] = {"per band pair, m x m", "band pairs stacked, 2m x 2m"};
const char* const kCriterionName[] = {"sigma > tol * max|G| (whole history)", "sigma > tol * sigma_1 (block)"};
const char* const kFunctionName[] = {"G<", "G>"};

// Matrices of one block for one k: the four band pairs alone ([4] of rows x cols) or stacked (one
// 2 rows x 2 cols). Column-major.
void extract(const cplx* g, int nk, int k, const Block& b, Layout layout, std::vector<std::vector<cplx>>& out) {
  const std::size_t bs = block_size(nk);
  if (layout == kPerPair) {
    out.resize(4);
    for (int p = 0; p < 4; ++p) {
      out[p].resize(static_cast<std::size_t>(b.rows) * b.cols);
      for (int c = 0; c < b.cols; ++c)
        for (int r = 0; r < b.rows; ++r)
          out[p][r + static_cast<std::size_t>(c) * b.rows] = g[tri(b.row0 + r, b.col0 + c) * bs + in_block(p, k, nk)];
    }
    return;
  }
  out.resize(1);
  const int rows = 2 * b.rows;
  out[0].resize(static_cast<std::size_t>(rows) * 2 * b.cols);
  for (int c = 0; c < b.cols; ++c)
    for (int r = 0; r < b.rows; ++r)
      for (int a = 0; a < 2; ++a)
        for (int bb = 0; bb < 2; ++bb)
          out[0][(2 * r + a) + static_cast<std::size_t>(2 * c + bb) * rows] =
              g[tri(b.row0 + r, b.col0 + c) * bs + in_block(band_pair(a, bb), k, nk)];
}

// Sums over blocks, k-points and band pairs for one (layout, function, criterion, tolerance, block side).
struct Tally {
  int max_rank = 0;
  double rank_sum = 0, matrices = 0;
  double storage = 0;  // complex numbers: min(rank (rows + cols), rows cols) per matrix
  void add(int rank, int rows, int cols) {
    max_rank = std::max(max_rank, rank);
    rank_sum += rank;
    matrices += 1;
    storage += std::min(static_cast<double>(rank) * (rows + cols), static_cast<double>(rows) * cols);
  }
  void merge(const Tally& o) {
    max_rank = std::max(max_rank, o.max_rank);
    rank_sum += o.rank_sum;
    matrices += o.matrices;
    storage += o.storage;
  }
};

struct Tallies {
  int ntol = 0, nlevels = 0;
  std::vector<Tally> t;
  Tallies(int ntol_, int nlevels_) : ntol(ntol_), nlevels(nlevels_), t(static_cast<std::size_t>(kLayouts) * 2 * kCriteria * ntol_ * nlevels_) {}
  Tally& at(int layout, int fn, int crit, int tol, int level) {
    return t[(((static_cast<std::size_t>(layout) * 2 + fn) * kCriteria + crit) * ntol + tol) * nlevels + level];
  }
};

int level_of(int side, int smallest) {
  int l = 0;
  while ((smallest << l) < side) ++l;
  return l;
}

double max_abs(const std::vector<cplx>& g, std::size_t count) {
  double m = 0;
  for (std::size_t i = 0; i < count; ++i) m = std::max(m, abs(g[i]));
  return m;
}

// Ranks of every block of the first `ntimes` times, all k, both layouts, both functions.
Tallies rank_tallies(const kbe::Propagator& p, int ntimes, int smallest, const std::vector<double>& tols,
                     const double gmax[2]) {
  const std::vector<Block> blocks = hodlr_blocks(ntimes, smallest);
  const int nlevels = blocks.empty() ? 0 : level_of(blocks.back().side, smallest) + 1;
  const int ntol = static_cast<int>(tols.size()), nk = p.nk();
  const std::vector<cplx>* g[2] = {&p.g_less(), &p.g_greater()};
  Tallies total(ntol, nlevels);
  SerialBlas serial;
#pragma omp parallel
  {
    Tallies mine(ntol, nlevels);
    std::vector<std::vector<cplx>> mats;
    std::vector<cplx> unused_u, unused_vt;
    std::vector<double> sigma;
#pragma omp for schedule(dynamic)
    for (int k = 0; k < nk; ++k)
      for (const Block& b : blocks)
        for (int layout = 0; layout < kLayouts; ++layout)
          for (int fn = 0; fn < 2; ++fn) {
            extract(g[fn]->data(), nk, k, b, static_cast<Layout>(layout), mats);
            const int scale = layout == kStacked ? 2 : 1;
            for (auto& a : mats) {
              svd(a, scale * b.rows, scale * b.cols, sigma, false, unused_u, unused_vt);
              for (int it = 0; it < ntol; ++it) {
                const double cut[kCriteria] = {tols[it] * gmax[fn], tols[it] * sigma[0]};
                for (int crit = 0; crit < kCriteria; ++crit) {
                  const int rank = static_cast<int>(std::count_if(sigma.begin(), sigma.end(), [&](double s) { return s > cut[crit]; }));
                  mine.at(layout, fn, crit, it, level_of(b.side, smallest)).add(rank, scale * b.rows, scale * b.cols);
                }
              }
            }
          }
#pragma omp critical
    for (std::size_t i = 0; i < total.t.size(); ++i) total.t[i].merge(mine.t[i]);
  }
  return total;
}

void print_rank_table(Tallies& t, int layout, int crit, int smallest, const std::vector<double>& tols, int nk) {
  std::printf("\nranks, %s, %s: max / mean per block side\n", kLayoutName[layout], kCriterionName[crit]);
  std::printf("| side | blocks |");
  for (int fn = 0; fn < 2; ++fn)
    for (double tol : tols) std::printf(" %s %.0e |", kFunctionName[fn], tol);
  std::printf("\n|---|---|");
  for (std::size_t i = 0; i < 2 * tols.size(); ++i) std::printf("---|");
  std::printf("\n");
  for (int l = 0; l < t.nlevels; ++l) {
    const Tally& any = t.at(layout, 0, crit, 0, l);
    const int per_block = nk * (layout == kPerPair ? 4 : 1);
    std::printf("| %d | %.0f |", smallest << l, any.matrices / per_block);
    for (int fn = 0; fn < 2; ++fn)
      for (std::size_t it = 0; it < tols.size(); ++it) {
        const Tally& x = t.at(layout, fn, crit, static_cast<int>(it), l);
        std::printf(" %d / %.1f |", x.max_rank, x.rank_sum / x.matrices);
      }
    std::printf("\n");
  }
}

// Storage of G< + G> per k: compressed (blocks of side >= leaf as truncated SVDs, dense leaves) against
// the dense triangle, 4 band pairs each.
void print_storage_table(Tallies& t, int layout, int crit, int ntimes, int smallest, const std::vector<int>& leaves,
                         const std::vector<double>& tols, int nk) {
  const double dense = 2 * 4 * static_cast<double>(ntimes) * (ntimes + 1) / 2;
  std::printf("\nstorage of G< + G> per k, %s, %s: compressed / dense (compressed in complex numbers); dense = %.0f\n",
              kLayoutName[layout], kCriterionName[crit], dense);
  std::printf("| leaf |");
  for (double tol : tols) std::printf(" tol %.0e |", tol);
  std::printf("\n|---|");
  for (std::size_t i = 0; i < tols.size(); ++i) std::printf("---|");
  std::printf("\n");
  for (int leaf : leaves) {
    std::printf("| %d |", leaf);
    for (std::size_t it = 0; it < tols.size(); ++it) {
      double stored = 2 * 4 * leaf_storage(ntimes, leaf) * nk;
      for (int fn = 0; fn < 2; ++fn)
        for (int l = level_of(leaf, smallest); l < t.nlevels; ++l) stored += t.at(layout, fn, crit, static_cast<int>(it), l).storage;
      stored /= nk;
      std::printf(" %.4f (%.0f) |", stored / dense, stored);
    }
    std::printf("\n");
  }
}

// Seconds of zgesdd with singular vectors for every block of `ntimes` times, one thread, over the k-points
// `ks` (G< and G>), per block side and layout.
void print_svd_timing(const kbe::Propagator& p, int ntimes, int smallest, const std::vector<int>& ks) {
  const std::vector<Block> blocks = hodlr_blocks(ntimes, smallest);
  if (blocks.empty() || ks.empty()) return;
  const int nlevels = level_of(blocks.back().side, smallest) + 1;
  std::vector<double> seconds(static_cast<std::size_t>(kLayouts) * nlevels, 0.0), count(seconds.size(), 0.0);
  const std::vector<cplx>* g[2] = {&p.g_less(), &p.g_greater()};
  std::vector<std::vector<cplx>> mats;
  std::vector<cplx> u, vt;
  std::vector<double> sigma;
  SerialBlas serial;
  for (int k : ks)
    for (const Block& b : blocks)
      for (int layout = 0; layout < kLayouts; ++layout)
        for (int fn = 0; fn < 2; ++fn) {
          extract(g[fn]->data(), p.nk(), k, b, static_cast<Layout>(layout), mats);
          const int scale = layout == kStacked ? 2 : 1;
          WallTimer w;
          for (auto& a : mats) svd(a, scale * b.rows, scale * b.cols, sigma, true, u, vt);
          const std::size_t i = static_cast<std::size_t>(layout) * nlevels + level_of(b.side, smallest);
          seconds[i] += w.seconds();
          count[i] += static_cast<double>(mats.size());
        }
  std::printf("\nzgesdd with vectors ('S'), one thread, mean over %zu k-points: seconds per matrix and per k (G< + G>)\n", ks.size());
  std::printf("| side | per band pair: s / matrix | stacked: s / matrix | per band pair: s per k, all blocks | stacked: s per k |\n");
  std::printf("|---|---|---|---|---|\n");
  double total[kLayouts] = {};
  for (int l = 0; l < nlevels; ++l) {
    std::printf("| %d |", smallest << l);
    for (int layout = 0; layout < kLayouts; ++layout) std::printf(" %.3e |", seconds[layout * nlevels + l] / count[layout * nlevels + l]);
    for (int layout = 0; layout < kLayouts; ++layout) {
      const double per_k = seconds[layout * nlevels + l] / ks.size();
      total[layout] += per_k;
      std::printf(" %.3e |", per_k);
    }
    std::printf("\n");
  }
  std::printf("| all | | | %.3e | %.3e |\n", total[kPerPair], total[kStacked]);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: history_ranks CONFIG.toml [--nt 200,400] [--leaf 16,32,64,128] [--tol 1e-4,...] [--timing-k 2] [--threads 0]\n");
    return 2;
  }
  std::vector<int> nts, leaves = {16, 32, 64, 128};
  std::vector<double> tols = {1e-4, 1e-6, 1e-8, 1e-10};
  int timing_k = 2, threads = 0;
  for (int i = 2; i + 1 < argc; i += 2) {
    const std::string a = argv[i], v = argv[i + 1];
    if (a == "--nt") nts = parse_list(v);
    else if (a == "--leaf") leaves = parse_list(v);
    else if (a == "--tol") tols = parse_list<double>(v);
    else if (a == "--timing-k") timing_k = std::stoi(v);
    else if (a == "--threads") threads = std::stoi(v);
    else {
      std::fprintf(stderr, "history_ranks: unknown option %s\n", a.c_str());
      return 2;
    }
  }
  const kbe::Config config = kbe::read_config(argv[1]);
  if (nts.empty()) nts = {config.time.steps};
  std::sort(leaves.begin(), leaves.end());
  const int smallest = leaves.front();
  for (int leaf : leaves)
    if (leaf != smallest << level_of(leaf, smallest)) {
      std::fprintf(stderr, "history_ranks: leaf sizes must be %d times powers of 2\n", smallest);
      return 2;
    }
  for (int nt : nts)
    if (nt < 1 || nt > config.time.steps) {
      std::fprintf(stderr, "history_ranks: --nt %d is outside 1..time.steps = %d\n", nt, config.time.steps);
      return 2;
    }
  set_threads(threads);

  const auto& m = config.model;
  std::printf("config %s: nk = %d, dt = %g, steps = %d, U = %g (ramp %g), pulse amplitude %g centre %g width %g carrier %g, %s\n",
              argv[1], m.nk, config.time.dt, config.time.steps, m.interaction.u, m.interaction.ramp, m.pulse.amplitude,
              m.pulse.center, m.pulse.width, m.pulse.frequency, config.solver.second_born ? "second Born" : "Hartree-Fock");
  kbe::Propagator p(config, max_threads(), Backend::Cpu);
  WallTimer w;
  int passes = 0;
  while (p.step() < config.time.steps) {
    passes += p.advance().corrector_passes;
    if (p.step() % 100 == 0) std::fprintf(stderr, "step %d of %d, %.0f s\n", p.step(), config.time.steps, w.seconds());
  }
  std::printf("propagation: %.1f s on %d threads, %.2f corrector passes per step\n", w.seconds(), max_threads(),
              static_cast<double>(passes) / config.time.steps);

  std::vector<int> ks;
  for (int i = 0; i < std::min(timing_k, p.nk()); ++i) ks.push_back(i * p.nk() / std::min(timing_k, p.nk()));
  for (int nt : nts) {
    const int ntimes = nt + 1;
    const std::size_t stored = tri_count(ntimes) * block_size(p.nk());
    const double gmax[2] = {max_abs(p.g_less(), stored), max_abs(p.g_greater(), stored)};
    std::printf("\n## nt = %d (%d times, t_max = %g): max|G<| = %.6f, max|G>| = %.6f\n", nt, ntimes, nt * config.time.dt,
                gmax[0], gmax[1]);
    w.reset();
    Tallies t = rank_tallies(p, ntimes, smallest, tols, gmax);
    std::printf("singular values of every block (zgesdd 'N', %d threads): %.1f s\n", max_threads(), w.seconds());
    for (int crit = 0; crit < kCriteria; ++crit)
      for (int layout = 0; layout < kLayouts; ++layout) {
        print_rank_table(t, layout, crit, smallest, tols, p.nk());
        print_storage_table(t, layout, crit, ntimes, smallest, leaves, tols, p.nk());
      }
    print_svd_timing(p, ntimes, smallest, ks);
  }
  return 0;
}
