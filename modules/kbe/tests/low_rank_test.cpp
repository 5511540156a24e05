// The compressed history's block kernel (kernels/low_rank.hpp): one-sided Jacobi against known singular values,
// truncation errors against the first dropped singular value, blocks recompressed from their factors against the
// stacked dense block, and a block of a real two-time history.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

#include "../kernels/compressed_history.hpp"
#include "../kernels/layout.hpp"
#include "../kernels/low_rank.hpp"
#include "quanta/core/error.hpp"
#include "quanta/kbe/propagator.hpp"
#include "test_support.hpp"

namespace {

using quanta::cplx;
using quanta::kbe::kernels::LowRank;

// len x n with orthonormal columns (Gram-Schmidt, twice, on random complex vectors).
std::vector<cplx> orthonormal(int len, int n, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> g;
  std::vector<cplx> q(static_cast<std::size_t>(len) * n);
  for (auto& x : q) x = cplx(g(rng), g(rng));
  for (int c = 0; c < n; ++c) {
    cplx* qc = q.data() + static_cast<std::size_t>(len) * c;
    for (int pass = 0; pass < 2; ++pass)
      for (int b = 0; b < c; ++b) {
        const cplx* qb = q.data() + static_cast<std::size_t>(len) * b;
        cplx d;
        for (int i = 0; i < len; ++i) d += conj(qb[i]) * qc[i];
        for (int i = 0; i < len; ++i) qc[i] -= d * qb[i];
      }
    double nn = 0;
    for (int i = 0; i < len; ++i) nn += quanta::norm2(qc[i]);
    for (int i = 0; i < len; ++i) qc[i] = qc[i] / std::sqrt(nn);
  }
  return q;
}

// Q1 diag(sigma) Q2^H, rows x cols.
std::vector<cplx> with_singular_values(int rows, int cols, const std::vector<double>& sigma, unsigned seed) {
  const int n = static_cast<int>(sigma.size());
  const auto q1 = orthonormal(rows, n, seed), q2 = orthonormal(cols, n, seed + 1);
  std::vector<cplx> a(static_cast<std::size_t>(rows) * cols);
  for (int j = 0; j < cols; ++j)
    for (int i = 0; i < rows; ++i)
      for (int p = 0; p < n; ++p) a[i + static_cast<std::size_t>(rows) * j] += q1[i + static_cast<std::size_t>(rows) * p] * sigma[p] * conj(q2[j + static_cast<std::size_t>(cols) * p]);
  return a;
}

double max_difference(const LowRank& x, const std::vector<cplx>& a) {
  std::vector<cplx> e(a.size());
  quanta::kbe::kernels::expand(x, e.data(), x.rows);
  double d = 0;
  for (std::size_t i = 0; i < a.size(); ++i) d = std::max(d, quanta::abs(e[i] - a[i]));
  return d;
}

double orthonormality_error(const std::vector<cplx>& q, int len, int n) {
  double worst = 0;
  for (int a = 0; a < n; ++a)
    for (int b = 0; b < n; ++b) {
      cplx d;
      for (int i = 0; i < len; ++i) d += conj(q[i + static_cast<std::size_t>(len) * a]) * q[i + static_cast<std::size_t>(len) * b];
      worst = std::max(worst, quanta::abs(d - cplx(a == b ? 1.0 : 0.0)));
    }
  return worst;
}

// Singular values 1, 0.1, ..., 1e-11 recovered to 1e-14 each (the block as built carries rounding of 1e-16 |A| per
// entry, so its own small singular values are known only to that absolute size), orthonormal factors, and the block
// rebuilt to 1e-14; wide and tall blocks (the tall one through its adjoint).
TEST(KbeLowRank, RecoversKnownSingularValues) {
  std::vector<double> sigma;
  for (int i = 0; i < 12; ++i) sigma.push_back(std::pow(10.0, -i));
  for (const auto& [rows, cols] : {std::pair{32, 200}, std::pair{200, 32}, std::pair{12, 12}}) {
    SCOPED_TRACE(std::to_string(rows) + " x " + std::to_string(cols));
    const auto a = with_singular_values(rows, cols, sigma, 7);
    const LowRank x = quanta::kbe::kernels::compress(a.data(), rows, cols, rows, 0.0);
    ASSERT_GE(x.rank, 12);
    for (int p = 0; p < 12; ++p) EXPECT_NEAR(x.s[p], sigma[p], 1e-14) << "singular value " << p;
    for (int p = 12; p < x.rank; ++p) EXPECT_LT(x.s[p], 1e-14) << "a 13th singular value";
    EXPECT_LT(orthonormality_error(x.u, rows, x.rank), 1e-13);  // every column kept, the 12 and any above the rounding level
    EXPECT_LT(orthonormality_error(x.v, cols, x.rank), 1e-13);
    EXPECT_LT(max_difference(x, a), 1e-14);
  }
}

// The cut: singular values above it kept (7 of them here), and the block's error bounded by the first one dropped.
TEST(KbeLowRank, TruncationErrorIsTheFirstDroppedSingularValue) {
  std::vector<double> sigma;
  for (int i = 0; i < 12; ++i) sigma.push_back(std::pow(10.0, -i));
  const auto a = with_singular_values(32, 300, sigma, 11);
  const LowRank x = quanta::kbe::kernels::compress(a.data(), 32, 300, 32, 5e-7);
  EXPECT_EQ(x.rank, 7);
  EXPECT_LT(max_difference(x, a), 1.2e-7);  // entries of the dropped part: at most its spectral norm, 1.1e-7
  EXPECT_EQ(x.numbers(), static_cast<std::size_t>(7 * (32 + 300 + 1)));
}

// A non-finite entry is refused, not compressed into a block of rank 0.
TEST(KbeLowRank, NonFiniteBlockIsRefused) {
  std::vector<cplx> a(8 * 8, cplx(1.0));
  a[9] = cplx(std::nan(""), 0.0);
  EXPECT_THROW(quanta::kbe::kernels::compress(a.data(), 8, 8, 8, 1e-8), quanta::Error);
}

// A block that grows by rows: two 32-row pieces compressed apart and stacked equal the stacked dense block within
// the cuts' sum; the rank is that of the dense block at the same cut.
TEST(KbeLowRank, StackedFactorsEqualTheStackedBlock) {
  std::vector<double> sigma;
  for (int i = 0; i < 20; ++i) sigma.push_back(std::exp(-1.2 * i));
  const auto a = with_singular_values(64, 256, sigma, 3);
  const double cut = 1e-8;
  std::vector<cplx> top(32 * 256), bottom(32 * 256);
  for (int j = 0; j < 256; ++j)
    for (int i = 0; i < 32; ++i) {
      top[i + 32 * j] = a[i + 64 * j];
      bottom[i + 32 * j] = a[32 + i + 64 * j];
    }
  const LowRank t = quanta::kbe::kernels::compress(top.data(), 32, 256, 32, cut), b = quanta::kbe::kernels::compress(bottom.data(), 32, 256, 32, cut);
  const LowRank s = quanta::kbe::kernels::stack_rows(t, b, cut);
  const LowRank dense = quanta::kbe::kernels::compress(a.data(), 64, 256, 64, cut);
  EXPECT_EQ(s.rows, 64);
  EXPECT_NEAR(s.rank, dense.rank, 1);
  EXPECT_LT(max_difference(s, a), 3 * cut);
  EXPECT_LT(orthonormality_error(s.u, 64, s.rank), 1e-13);
  for (int p = 0; p < std::min(s.rank, dense.rank); ++p) EXPECT_NEAR(s.s[p], dense.s[p], 3 * cut) << p;
}

// A block of a real history: G<(k; t, t') of the second-Born propagation, rows t = 64..95 and columns t' = 0..31
// (32 steps of 0.05 apart), one k and band pair, at 1e-8 of the block's largest value: low rank (the
// history_ranks measurements give 4-18 at such sides), rebuilt within the cut.
TEST(KbeLowRank, TwoTimeHistoryBlockIsLowRank) {
  const auto c = kbe_test::small_config(8, 0.6, 0.05, 96);
  quanta::kbe::Propagator p(c, 1);
  while (p.step() < 96) p.advance();
  const auto& g = p.g_less();
  const int nk = 8, k = 3;
  for (int pair = 0; pair < 4; ++pair) {
    std::vector<cplx> a(32 * 32);
    double big = 0;
    for (int j = 0; j < 32; ++j)
      for (int i = 0; i < 32; ++i) {
        a[i + 32 * j] = g[quanta::kbe::kernels::tri(64 + i, j) * quanta::kbe::kernels::block_size(nk) + quanta::kbe::kernels::in_block(pair, k, nk)];
        big = std::max(big, quanta::abs(a[i + 32 * j]));
      }
    const LowRank x = quanta::kbe::kernels::compress(a.data(), 32, 32, 32, 1e-8 * big);
    std::printf("  G<(k = %d), band pair %d, rows 64-95 x columns 0-31: rank %d at 1e-8 of max |G| = %.3g\n", k, pair, x.rank, big);
    EXPECT_GT(x.rank, 0);
    EXPECT_LE(x.rank, 20);
    EXPECT_LT(max_difference(x, a), 32 * 1e-8 * big);
  }
}

// The compressed history against the dense half-plane of a real second-Born run (nk = 8, 133 times, leaf 16: eight
// closed strips in 7 blocks of 3 levels, and a filling strip of 5 rows): every element back, and the collision row of
// the last step from the store against collision_integral_cpu on the dense half-plane, with random Sigma rows (the
// row is linear in Sigma). Cut 0 (only rounding-level singular values dropped): the same sums to 1e-12 of the row's
// largest value. Cut 1e-8 max|G|: within 1e-8 max|G| times the sum of the weights |Sigma| dt (the truncation
// changes each entry by at most the cut), measured far below.
TEST(KbeCompressedHistory, CollisionRowFromTheStoreMatchesTheDenseOne) {
  namespace k = quanta::kbe::kernels;
  const int nk = 8, steps = 132, leaf = 16;
  const auto c = kbe_test::small_config(nk, 0.6, 0.05, steps);
  quanta::kbe::Propagator p(c, 1);
  while (p.step() < steps) p.advance();
  const auto& gl = p.g_less();
  const auto& gg = p.g_greater();
  const std::size_t bs = k::block_size(nk);
  double big = 0;
  for (const auto& x : gl) big = std::max(big, quanta::abs(x));
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<cplx> sl((steps + 1) * bs), sg((steps + 1) * bs);
  for (auto& x : sl) x = cplx(u(rng), u(rng));
  for (auto& x : sg) x = cplx(u(rng), u(rng));
  std::vector<cplx> dl((steps + 1) * bs), dg((steps + 1) * bs);
  k::CollisionRow dense{.nk = nk, .n = steps, .dt = c.time.dt, .g_less = gl.data(), .g_greater = gg.data(), .sigma_less = sl.data(),
                        .sigma_greater = sg.data(), .i_less = dl.data(), .i_greater = dg.data()};
  k::collision_integral_cpu(dense);
  double scale = 0;
  for (const auto& x : dl) scale = std::max(scale, quanta::abs(x));
  for (const double tol : {0.0, 1e-8}) {
    SCOPED_TRACE(tol == 0 ? "cut 0" : "cut 1e-8 max|G|");
    k::CompressedHistory h(nk, leaf, tol * big, tol * big);
    for (int n = 0; n <= steps; ++n) h.set_row(n, gl.data() + k::tri(n, 0) * bs, gg.data() + k::tri(n, 0) * bs);
    EXPECT_EQ(h.rows(), steps + 1);
    h.set_row(steps, gl.data() + k::tri(steps, 0) * bs, gg.data() + k::tri(steps, 0) * bs);  // a corrector pass: set again
    EXPECT_EQ(h.rows(), steps + 1);
    EXPECT_THROW(h.set_row(steps - 1, gl.data(), gg.data()), quanta::Error);  // an older row: refused
    EXPECT_EQ(h.blocks(), 7);  // closed strips 0-7 of 16 rows: 4 + 2 + 1 blocks of sides 16, 32, 64 (strip 8 fills)
    double worst_g = 0;
    for (int l = 0; l <= steps; ++l)
      for (int j = 0; j <= l; ++j)
        for (int kk = 0; kk < nk; ++kk) {
          const auto a = h.load(false, l, j, kk), b = h.load(true, l, j, kk);
          for (int q = 0; q < 4; ++q) {
            worst_g = std::max(worst_g, quanta::abs(a.m[q] - gl[k::tri(l, j) * bs + k::in_block(q, kk, nk)]));
            worst_g = std::max(worst_g, quanta::abs(b.m[q] - gg[k::tri(l, j) * bs + k::in_block(q, kk, nk)]));
          }
        }
    std::vector<cplx> cl((steps + 1) * bs), cg((steps + 1) * bs);
    k::CollisionRow from_store{.nk = nk, .n = steps, .dt = c.time.dt, .sigma_less = sl.data(), .sigma_greater = sg.data(), .i_less = cl.data(),
                               .i_greater = cg.data()};
    h.collision_row(from_store);
    double worst = 0;
    for (std::size_t i = 0; i < cl.size(); ++i) worst = std::max({worst, quanta::abs(cl[i] - dl[i]), quanta::abs(cg[i] - dg[i])});
    std::printf("  cut %.0e max|G|: %d blocks, %zu numbers stored against %zu dense; max |G - stored| = %.2e; collision row: max |I - dense| = %.2e of %.3g\n",
                tol, h.blocks(), h.stored_numbers(), 2 * gl.size(), worst_g, worst, scale);
    if (tol == 0.0) {
      EXPECT_LT(worst_g, 1e-13 * big);
      EXPECT_LT(worst, 1e-12 * scale);
    } else {
      EXPECT_LT(worst_g, 2 * tol * big);
      // Each entry off by at most the cut; the row sums (n + 1) of them with weights dt |Sigma| <= 2 dt: (n + 1) 2 dt cut,
      // times 4 (the band sums and both terms).
      EXPECT_LT(worst, 8 * (steps + 1) * c.time.dt * tol * big);
    }
  }
}

// One tolerance controls the error: the propagation on the compressed history (solver.history = "compressed": no dense
// half-plane; nk = 8, 200 steps, leaf 16, second Born with the pulse) against the dense one, observables at every step:
// N(t), E(t) and n_c(k, t). The largest difference falls with every tightening, 1e-2 down to 1e-6 (measured 1.4e-7,
// 1.0e-8, 2.3e-10, 4.6e-12, 2.4e-13), and stays below 1e-3 tol: a truncated entry is off by at most tol, and enters the
// observables through dt-weighted collision sums times U^2. At tolerance 0 only rounding separates the two (4e-15).
quanta::kbe::Config compressed(quanta::kbe::Config c, double tol, int leaf) {
  c.solver.history = quanta::kbe::HistoryStorage::Compressed;
  c.solver.history_tolerance = tol;
  c.solver.history_leaf = leaf;
  return c;
}

std::vector<quanta::kbe::Observables> propagate(quanta::kbe::Propagator& p, int steps) {
  std::vector<quanta::kbe::Observables> o{p.observe()};
  while (p.step() < steps) {
    p.advance();
    o.push_back(p.observe());
  }
  return o;
}

double largest_difference(const std::vector<quanta::kbe::Observables>& x, const std::vector<quanta::kbe::Observables>& y) {
  double worst = 0;
  for (std::size_t t = 0; t < y.size(); ++t) {
    worst = std::max({worst, std::abs(x[t].particles - y[t].particles), std::abs(x[t].energy_total - y[t].energy_total)});
    for (std::size_t k = 0; k < y[t].n_conduction.size(); ++k) worst = std::max(worst, std::abs(x[t].n_conduction[k] - y[t].n_conduction[k]));
  }
  return worst;
}

TEST(KbeCompressedHistory, ObservablesConvergeToTheDenseRunAsTheToleranceTightens) {
  const auto c = kbe_test::small_config(8, 0.6, 0.05, 200);
  quanta::kbe::Propagator dense_run(c, 1);
  const auto dense = propagate(dense_run, c.time.steps);
  double last = 1e300;
  for (const double tol : {1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 0.0}) {
    quanta::kbe::Propagator p(compressed(c, tol, 16), 1);
    const double worst = largest_difference(propagate(p, c.time.steps), dense);
    const auto f = p.history_figures();
    std::printf("  tolerance %.0e: max |observable - dense| over 200 steps = %.2e; %zu numbers held against %zu dense (%.3f), %d blocks, "
                "largest rank %d\n", tol, worst, f.numbers, f.dense_numbers, static_cast<double>(f.numbers) / f.dense_numbers, f.blocks, f.max_rank);
    EXPECT_EQ(f.dense_numbers, static_cast<std::size_t>(2 * 201 * 202 / 2 * 4 * 8));
    EXPECT_LT(f.numbers, f.dense_numbers);
    if (tol > 0) {
      EXPECT_LT(worst, 1e3 * tol);
      EXPECT_LT(worst, last);
    } else {
      EXPECT_LT(worst, 1e-13);  // rounding: the same sums in another order
    }
    last = worst;
  }
}

// A compressed run saved and restored continues bit for bit: the store's state (leaves, filling strip, factors) and the
// collision row are all it needs; row `step` is rebuilt from the store. Saved mid-strip (step 77, leaf 8), restored into
// a fresh propagator, both advanced across several strip closings and block recompressions to step 150.
TEST(KbeCompressedHistory, SavedAndRestoredContinuesBitForBit) {
  const auto c = compressed(kbe_test::small_config(6, 0.6, 0.05, 150), 1e-6, 8);
  quanta::kbe::Propagator p(c, 1);
  propagate(p, 77);
  const auto saved = p.save();
  EXPECT_TRUE(saved.g_less.empty());
  EXPECT_FALSE(saved.history.empty());
  quanta::kbe::Propagator q(c, 1);
  q.restore(saved);
  ASSERT_EQ(q.step(), 77);
  const auto a = propagate(p, c.time.steps), b = propagate(q, c.time.steps);
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t t = 0; t < a.size(); ++t) {
    EXPECT_EQ(0, std::memcmp(&a[t].energy_total, &b[t].energy_total, sizeof(double))) << "step " << 77 + t;
    EXPECT_EQ(0, std::memcmp(a[t].n_conduction.data(), b[t].n_conduction.data(), a[t].n_conduction.size() * sizeof(double))) << "step " << 77 + t;
  }
  const auto sp = p.save().history, sq = q.save().history;
  ASSERT_EQ(sp.size(), sq.size());
  EXPECT_EQ(0, std::memcmp(sp.data(), sq.data(), sp.size() * sizeof(double)));
  // A state of another shape is refused, not half restored.
  auto bad = saved;
  bad.history.pop_back();
  quanta::kbe::Propagator r(c, 1);
  EXPECT_THROW(r.restore(bad), quanta::Error);
  quanta::kbe::Propagator other(compressed(kbe_test::small_config(6, 0.6, 0.05, 150), 1e-6, 16), 1);
  EXPECT_THROW(other.restore(saved), quanta::Error);
}

// The memory plan counts what the store builds: at full rank, it equals a store whose every block is kept at full rank
// (cut 0 on random rows) and whose last strip is full; at a rank r it is the sum of r (rows + cols + 1) over the
// blocks plus the dense parts.
TEST(KbeCompressedHistory, PlanCountsTheStoreItBuilds) {
  const int nk = 2, leaf = 4, rows = 44;
  quanta::kbe::kernels::CompressedHistory h(nk, leaf, 0.0, 0.0);
  std::mt19937 rng(3);
  std::normal_distribution<double> g;
  const std::size_t bs = quanta::kbe::kernels::block_size(nk);
  for (int n = 0; n < rows; ++n) {
    std::vector<quanta::cplx> less((n + 1) * bs), greater((n + 1) * bs);
    for (auto& z : less) z = quanta::cplx(g(rng), g(rng));
    for (auto& z : greater) z = quanta::cplx(g(rng), g(rng));
    h.set_row(n, less.data(), greater.data());
  }
  EXPECT_EQ(quanta::kbe::kernels::CompressedHistory::planned_numbers(nk, rows, leaf, 1 << 30), h.stored_numbers());
  EXPECT_LT(quanta::kbe::kernels::CompressedHistory::planned_numbers(nk, rows, leaf, 2), h.stored_numbers());
}

}  // namespace

