// The whole Schroedinger-Poisson block: solvers agree, Newton converges quadratically, entry (a) and
// entry (b) are consistent, and the equilibrium device is physical (neutral contacts, z symmetry,
// subbands rising as the gate depletes the channel).
#include <gtest/gtest.h>

#include <cmath>

#include "test_support.hpp"

using namespace quanta::mosfet;
using mosfet_test::max_diff;

namespace {
BlockResult equilibrium(const DeviceGrid& g, BlockOptions o, std::unique_ptr<SchrodingerPoisson>& block) {
  block = std::make_unique<SchrodingerPoisson>(g, o, quanta::Backend::Cpu);
  return block->solve_equilibrium();
}
}  // namespace

// SRJ and the direct solver give the same equilibrium (to the Newton tolerance 1e-10 V and SRJ's 1e-12
// relative residual), with the same Newton history.
TEST(MosfetBlock, SrjAndDirectAgree) {
  const DeviceGrid g = mosfet_test::seed_device(33, 33);
  BlockOptions o;
  o.newton_tol = 1e-10;
  std::unique_ptr<SchrodingerPoisson> a, b;
  const BlockResult ra = equilibrium(g, o, a);
  o.linear_solver = LinearSolver::Srj;
  const BlockResult rb = equilibrium(g, o, b);
  ASSERT_TRUE(ra.converged);
  ASSERT_TRUE(rb.converged);
  EXPECT_EQ(ra.history.size(), rb.history.size());
  EXPECT_LT(max_diff(a->potential(), b->potential()), 1e-9);
  EXPECT_LT(max_diff(a->eigenvalues(), b->eigenvalues()), 1e-9);
  for (const auto& s : rb.history) EXPECT_GT(s.linear_steps, 0);
}

// Near the solution each Newton step squares the previous one's change: |dV_{k+1}| <= C |dV_k|^2 with
// a modest C (V^-1), once |dV_k| < 1e-2 V and above the round-off floor. With every eigenpair in the
// derivative (frechet_states = nz - 2) the derivative is exact; the seed's six give nearly the same.
TEST(MosfetBlock, NewtonConvergesQuadratically) {
  const DeviceGrid g = mosfet_test::seed_device(33, 33);
  for (int states : {0, 31}) {
    BlockOptions o;
    o.frechet_states = states;
    o.newton_tol = 1e-12;
    std::unique_ptr<SchrodingerPoisson> block;
    const BlockResult r = equilibrium(g, o, block);
    ASSERT_TRUE(r.converged);
    int checked = 0;
    for (std::size_t k = 0; k + 1 < r.history.size(); ++k) {
      const double a = r.history[k].change, b = r.history[k + 1].change;
      std::printf("states %d: step %zu residual %.3e change %.3e\n", states, k, r.history[k].residual, a);
      if (a < 1e-2 && a > 1e-6) {
        EXPECT_LT(b, 20.0 * a * a) << "step " << k;
        ++checked;
      }
    }
    EXPECT_GE(checked, 2);
  }
}

// Entry (a) with the equilibrium populations, started from the Laplace potential, lands on the
// equilibrium potential: the two entries solve the same block.
TEST(MosfetBlock, GivenDensitiesReproduceEquilibrium) {
  const DeviceGrid g = mosfet_test::seed_device(33, 33);
  BlockOptions o;
  o.newton_tol = 1e-11;
  std::unique_ptr<SchrodingerPoisson> eq;
  ASSERT_TRUE(equilibrium(g, o, eq).converged);
  SchrodingerPoisson given(g, o, quanta::Backend::Cpu);
  const BlockResult r = given.solve(eq->populations());
  ASSERT_TRUE(r.converged);
  EXPECT_LT(max_diff(given.potential(), eq->potential()), 1e-9);
  EXPECT_LT(max_diff(given.eigenvalues(), eq->eigenvalues()), 1e-9);
  // A second call (the transport phase's next stage) refines by Newton-Raphson from the last state.
  const BlockResult again = given.solve(eq->populations());
  ASSERT_TRUE(again.converged);
  EXPECT_LE(again.history.size(), 2u);
}

TEST(MosfetBlock, EquilibriumIsPhysical) {
  const int nx = 65, nz = 65;
  std::vector<double> channel_level;
  for (double vg : {0.5, 0.2, -0.1}) {
    const DeviceGrid g = mosfet_test::seed_device(nx, nz, vg);
    std::unique_ptr<SchrodingerPoisson> block;
    ASSERT_TRUE(equilibrium(g, BlockOptions{}, block).converged);
    const auto v = block->potential(), n = block->density(), eps = block->eigenvalues();
    // Symmetric gates: V(x, z) = V(x, Lz - z) to round-off.
    double asym = 0;
    for (int i = 0; i < nx; ++i)
      for (int j = 0; j < nz; ++j) asym = std::max(asym, std::fabs(v[i * nz + j] - v[i * nz + nz - 1 - j]));
    EXPECT_LT(asym, 1e-10) << "gate " << vg;
    // Neutral deep in source and drain (the columns 4.7 nm from the contacts, mid-way between contact and
    // gate): electrons per area equal donors per area within 0.5%. (Next to the contacts a boundary layer
    // of -4% forms: the contact's Dirichlet potential is flat in z, the self-consistent one is not.)
    for (int i : {10 * (nx - 1) / 64, nx - 1 - 10 * (nx - 1) / 64}) {
      double electrons = 0, donors = 0;
      for (int j = 0; j < nz; ++j) {
        electrons += n[i * nz + j] * g.dz;
        donors += g.doping[i * nz + j] * g.dz;
      }
      EXPECT_NEAR(electrons / donors, 1.0, 0.005) << "gate " << vg << ", column " << i;
    }
    channel_level.push_back(eps[(nx / 2 * 3 + 2) * 6]);  // valley 3, ground subband, mid-channel
  }
  // Lowering the gate depletes the channel: its subbands rise.
  EXPECT_LT(channel_level[0], channel_level[1]);
  EXPECT_LT(channel_level[1], channel_level[2]);
  std::printf("mid-channel ground level (valley 3): %.4f, %.4f, %.4f eV at gates 0.5, 0.2, -0.1 V\n", channel_level[0],
              channel_level[1], channel_level[2]);
}


// Chord steps (BlockOptions::reuse_jacobian): across calls the factored matrix of an earlier full Newton step
// is re-used; the iteration then converges linearly, to the same solution as full Newton steps (both to the
// Newton tolerance 1e-11 V, so the solutions agree to a few times that). Populations changed by 1% and 10%
// along x (a Runge-Kutta stage changes them by far less): the matrix of the first call's potential still
// contracts every step by 0.03-0.06 (measured), so the whole second call is chord steps.
TEST(MosfetBlock, ChordStepsReachTheNewtonSolution) {
  const DeviceGrid g = mosfet_test::seed_device(33, 33);
  BlockOptions o;
  o.newton_tol = 1e-11;
  std::unique_ptr<SchrodingerPoisson> eq;
  ASSERT_TRUE(equilibrium(g, o, eq).converged);
  const std::vector<double> rho = eq->populations();
  for (double amplitude : {0.01, 0.1}) {
    const std::vector<double> next = mosfet_test::perturbed(rho, g.nx, amplitude);
    BlockOptions chord_options = o;
    chord_options.reuse_jacobian = true;
    SchrodingerPoisson newton(g, o, quanta::Backend::Cpu), chord(g, chord_options, quanta::Backend::Cpu);
    ASSERT_TRUE(newton.solve(rho).converged);
    const BlockResult first = chord.solve(rho);
    ASSERT_TRUE(first.converged);
    EXPECT_FALSE(first.history[0].chord);  // nothing factored yet
    const BlockResult rn = newton.solve(next), rc = chord.solve(next);
    ASSERT_TRUE(rn.converged);
    ASSERT_TRUE(rc.converged);
    int chords = 0;
    for (std::size_t k = 0; k < rc.history.size(); ++k) {
      std::printf("amplitude %.2f: step %zu %s change %.3e\n", amplitude, k, rc.history[k].chord ? "chord" : "full ",
                  rc.history[k].change);
      chords += rc.history[k].chord;
      // After a chord step that contracted by less than kChordContraction, a full step.
      const bool slow = k > 0 && rc.history[k].chord && rc.history[k].change > BlockOptions::kChordContraction * rc.history[k - 1].change;
      if (slow && k + 1 < rc.history.size()) EXPECT_FALSE(rc.history[k + 1].chord) << "step " << k + 1;
    }
    EXPECT_TRUE(rc.history[0].chord);  // the matrix of the first call
    EXPECT_GE(chords, 1);
    EXPECT_LT(max_diff(chord.potential(), newton.potential()), 5e-11) << amplitude;
    EXPECT_LT(max_diff(chord.eigenvalues(), newton.eigenvalues()), 5e-11) << amplitude;
  }
}
