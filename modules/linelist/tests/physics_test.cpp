// Independent physics checks of the linestrength machinery: 3j symbols against Racah's formula, a rigid
// symmetric top against the Honl-London factors, the sum rule over a complete set of final states, and
// the symmetry groups' character tables.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "../kernels/linestrength.hpp"
#include "../src/transitions.hpp"
#include "quanta/core/error.hpp"
#include "quanta/linelist/linelist.hpp"
#include "test_support.hpp"

using namespace quanta::linelist;

namespace {

double log_factorial(int n) { return std::lgamma(n + 1.0); }

// Racah's formula for (j1 j2 j3; m1 m2 m3), an implementation independent of three_j_rank1.
double racah_3j(int j1, int j2, int j3, int m1, int m2, int m3) {
  if (m1 + m2 + m3 != 0 || j3 < std::abs(j1 - j2) || j3 > j1 + j2 || std::abs(m1) > j1 || std::abs(m2) > j2 || std::abs(m3) > j3) return 0;
  const double pre = 0.5 * (log_factorial(j1 + j2 - j3) + log_factorial(j1 - j2 + j3) + log_factorial(-j1 + j2 + j3) - log_factorial(j1 + j2 + j3 + 1) +
                            log_factorial(j1 + m1) + log_factorial(j1 - m1) + log_factorial(j2 + m2) + log_factorial(j2 - m2) +
                            log_factorial(j3 + m3) + log_factorial(j3 - m3));
  double sum = 0;
  for (int k = 0; k <= j1 + j2 + j3; ++k) {
    const int a = j1 + j2 - j3 - k, b = j1 - m1 - k, c = j2 + m2 - k, d = j3 - j2 + m1 + k, e = j3 - j1 - m2 + k;
    if (a < 0 || b < 0 || c < 0 || d < 0 || e < 0) continue;
    const double term = std::exp(pre - log_factorial(k) - log_factorial(a) - log_factorial(b) - log_factorial(c) - log_factorial(d) - log_factorial(e));
    sum += (k % 2 ? -term : term);
  }
  return ((j1 - j2 - m3) % 2 != 0 ? -sum : sum);
}

// The rigid symmetric top: all (k, tau) of J, one vibrational function.
RotVibBasis top(int J) { return symmetric_top_basis(J, 1); }

// S(J' r' <- J r) / (2J+1)(2J'+1) = s^2 for every pair of rotational functions: [r][r'].
std::vector<double> rigid_top_strengths(int J, int Jp, int axis, double mu0) {
  DipoleMatrices d;
  d.n = 1;
  d.mu = {0, 0, 0};
  d.mu[axis] = mu0;
  auto engine = make_cpu_engine(d, EngineOptions{});
  const RotVibBasis lo = top(J), up = top(Jp);
  std::vector<double> identity_lo(lo.size() * lo.size(), 0.0), identity_up(up.size() * up.size(), 0.0);
  for (std::size_t r = 0; r < lo.size(); ++r) identity_lo[r * lo.size() + r] = 1;
  for (std::size_t r = 0; r < up.size(); ++r) identity_up[r * up.size() + r] = 1;
  engine->set_lower(identity_lo, lo.nrot(), lo.nrot());
  engine->half_linestrengths(rotational_coupling(lo, up, -1));
  std::vector<double> amp(lo.size() * up.size());
  engine->completions(identity_up.data(), up.nrot(), amp.data());
  for (double& a : amp) a *= a;
  return amp;
}

}  // namespace

TEST(LinelistPhysics, ThreeJMatchesRacahFormula) {
  double worst = 0;
  for (int J = 0; J <= 40; ++J)
    for (int Jp = std::max(0, J - 1); Jp <= J + 1; ++Jp)
      for (int k = -J; k <= J; ++k)
        for (int kp = k - 1; kp <= k + 1; ++kp) {
          if (std::abs(kp) > Jp) continue;
          const double a = three_j_rank1(J, k, Jp, kp), b = racah_3j(J, 1, Jp, k, kp - k, -kp);
          worst = std::max(worst, std::abs(a - b));
        }
  EXPECT_LT(worst, 1e-12);  // lgamma-based reference: ~1e-14 at J = 40
  EXPECT_EQ(three_j_rank1(0, 0, 0, 0), 0.0);
}

// Parallel band (dipole along the symmetry axis, Delta k = 0): sum over the final tau of
// S(J' k <- J k) = mu0^2 x Honl-London factor: R (J+1-k)(J+1+k)/(J+1), Q (2J+1) k^2/(J(J+1)), P (J-k)(J+k)/J.
TEST(LinelistPhysics, RigidSymmetricTopParallelBandFollowsHonlLondon) {
  const double mu0 = 1.7;
  for (int J = 0; J <= 12; ++J)
    for (int Jp = std::max(0, J - 1); Jp <= J + 1; ++Jp) {
      if (J + Jp < 1) continue;
      const auto s2 = rigid_top_strengths(J, Jp, 2, mu0);
      const RotVibBasis lo = top(J), up = top(Jp);
      for (int r = 0; r < lo.nrot(); ++r) {
        const int k = lo.k[r];
        double S = 0;
        for (int rp = 0; rp < up.nrot(); ++rp) {
          if (up.k[rp] != k) {
            EXPECT_EQ(s2[r * up.nrot() + rp], 0.0) << "Delta k != 0 in a parallel band";
            continue;
          }
          S += (2 * J + 1) * (2 * Jp + 1) * s2[r * up.nrot() + rp];
        }
        double hl = 0;
        if (Jp == J + 1) hl = double(J + 1 - k) * (J + 1 + k) / (J + 1);
        if (Jp == J && J > 0) hl = (2.0 * J + 1) * k * k / (J * (J + 1.0));
        if (Jp == J - 1) hl = double(J - k) * (J + k) / J;
        EXPECT_NEAR(S, mu0 * mu0 * hl, 1e-12 * (1 + hl)) << "J " << J << " k " << k << " -> J' " << Jp;
      }
    }
}

// Perpendicular dipole (x or y, Delta k = +-1) and the parallel one: for each initial function the
// strengths to all final J' = J-1, J, J+1 sum to (2J+1) mu0^2 (the rotational sum rule).
TEST(LinelistPhysics, RigidSymmetricTopSumRuleEachAxis) {
  const double mu0 = 0.8;
  for (int axis = 0; axis < 3; ++axis)
    for (int J = 1; J <= 10; ++J) {
      const RotVibBasis lo = top(J);
      std::vector<double> total(lo.nrot(), 0.0);
      for (int Jp = J - 1; Jp <= J + 1; ++Jp) {
        const auto s2 = rigid_top_strengths(J, Jp, axis, mu0);
        const int nup = top(Jp).nrot();
        for (int r = 0; r < lo.nrot(); ++r)
          for (int rp = 0; rp < nup; ++rp) total[r] += (2 * J + 1) * (2 * Jp + 1) * s2[r * nup + rp];
      }
      for (int r = 0; r < lo.nrot(); ++r) EXPECT_NEAR(total[r], (2 * J + 1) * mu0 * mu0, 1e-12) << "axis " << axis << " J " << J << " r " << r;
    }
}

// SiH2, real wavefunctions: for each J = 1 level i, sum over all final levels f of J' = 0, 1, 2 and
// every symmetry of (2J'+1) s(f <- i)^2 equals <i| mu_x^2 + mu_y^2 + mu_z^2 |i> (the eigenvectors of
// each J' span its product basis). Final symmetries the selection rules forbid contribute zero.
TEST(LinelistPhysics, SumRuleOverCompleteFinalStatesSiH2) {
  using namespace linelist_test;
  IntensityInput in = read_trove_input(input_file());
  in.gns = {1, 1, 1, 1};
  const Levels L = read_levels(checkpoints(), in);
  const DipoleMatrices d = read_dipole_matrices(checkpoints() / "j0_extfield.chk");
  auto engine = make_cpu_engine(d, EngineOptions{});
  const int n = d.n;
  for (const LevelBlock& lb : L.blocks) {
    if (lb.J != 1 || lb.levels.empty()) continue;
    std::vector<int> records;
    for (int li : lb.levels) records.push_back(L.levels[li].root.record);
    const std::vector<double> C = expanded_vectors(L, lb, records, -1);
    const int nrot = L.basis(1).nrot(), ns = static_cast<int>(records.size());
    engine->set_lower(C, ns, nrot);
    std::vector<double> total(ns, 0.0), forbidden(ns, 0.0);
    for (int Jp = 0; Jp <= 2; ++Jp) {
      engine->half_linestrengths(rotational_coupling(L.basis(1), L.basis(Jp), -1));
      for (std::size_t ub = 0; ub < L.blocks.size(); ++ub) {
        const LevelBlock& fb = L.blocks[ub];
        if (fb.J != Jp || fb.levels.empty()) continue;
        std::vector<int> rec;
        for (int li : fb.levels) rec.push_back(L.levels[li].root.record);
        const std::vector<double> U = expanded_vectors(L, fb, rec, -1);
        std::vector<double> amp(std::size_t(ns) * rec.size());
        engine->completions(U.data(), static_cast<int>(rec.size()), amp.data());
        const bool allowed = L.group->dipole_allowed(lb.gamma - 1, fb.gamma - 1);
        for (int i = 0; i < ns; ++i)
          for (std::size_t f = 0; f < rec.size(); ++f) (allowed ? total : forbidden)[i] += (2 * Jp + 1) * amp[i * rec.size() + f] * amp[i * rec.size() + f];
      }
    }
    for (int i = 0; i < ns; ++i) {
      double mu2 = 0;
      for (int a = 0; a < 3; ++a)
        for (int r = 0; r < nrot; ++r)
          for (int v = 0; v < n; ++v) {
            double x = 0;
            for (int w = 0; w < n; ++w) x += d.mu[(std::size_t(a) * n + v) * n + w] * C[(std::size_t(i) * nrot + r) * n + w];
            mu2 += x * x;
          }
      EXPECT_NEAR(total[i], mu2, 1e-10 * mu2) << "J = 1, Gamma " << lb.gamma << ", level " << i + 1;
      EXPECT_LT(forbidden[i], 1e-20 * mu2) << "symmetry-forbidden strength, Gamma " << lb.gamma;
    }
  }
}

TEST(LinelistPhysics, CharacterTablesAreOrthonormalAndPairTheRightIrreps) {
  for (const auto& name : symmetry_group_names()) {
    const SymmetryGroup& g = symmetry_group(name);
    for (int a = 0; a < g.nirreps(); ++a)
      for (int b = 0; b < g.nirreps(); ++b) {
        double s = 0;
        for (std::size_t c = 0; c < g.class_size.size(); ++c) s += g.class_size[c] * g.characters[a][c] * g.characters[b][c];
        EXPECT_DOUBLE_EQ(s, a == b ? g.order() : 0.0) << name << " irreps " << a << ", " << b;
      }
  }
  const SymmetryGroup& c2v = symmetry_group("C2V(M)");
  EXPECT_TRUE(c2v.dipole_allowed(0, 1));   // A1 <-> A2
  EXPECT_TRUE(c2v.dipole_allowed(2, 3));   // B1 <-> B2
  EXPECT_FALSE(c2v.dipole_allowed(0, 2));  // A1 <-> B1
  EXPECT_FALSE(c2v.dipole_allowed(0, 0));
  const SymmetryGroup& td = symmetry_group("Td(M)");
  EXPECT_TRUE(td.dipole_allowed(2, 2));    // E <-> E
  EXPECT_TRUE(td.dipole_allowed(3, 4));    // F1 <-> F2
  EXPECT_FALSE(td.dipole_allowed(3, 3));
  const SymmetryGroup& d3h = symmetry_group("D3h");
  EXPECT_TRUE(d3h.dipole_allowed(0, 3));   // A1' <-> A1"
  EXPECT_TRUE(d3h.dipole_allowed(2, 5));   // E' <-> E"
  EXPECT_FALSE(d3h.dipole_allowed(2, 2));
  const SymmetryGroup& d2h = symmetry_group("D2h(M)");
  EXPECT_EQ(d2h.irreps[d2h.dipole_irrep], "Au");
  EXPECT_TRUE(d2h.dipole_allowed(0, 1));   // Ag <-> Au
  EXPECT_TRUE(d2h.dipole_allowed(6, 7));   // B3g <-> B3u
  EXPECT_FALSE(d2h.dipole_allowed(0, 2));  // Ag <-> B1g
  EXPECT_FALSE(d2h.dipole_allowed(1, 3));  // Au <-> B1u
  // TROVE's "selection 1 1 2 2 3 3 4 4" (g with u of the same label) is the product table's pairing.
  EXPECT_EQ(selection_pairs(d2h, {1, 1, 2, 2, 3, 3, 4, 4}, "in"), (std::vector<int>{1, 0, 3, 2, 5, 4, 7, 6}));
  EXPECT_EQ(selection_pairs(d2h, {}, "in"), (std::vector<int>{1, 0, 3, 2, 5, 4, 7, 6}));
  // TROVE's "selection 1 1 2 2" and the product table pair C2v(M) the same way.
  EXPECT_EQ(selection_pairs(c2v, {1, 1, 2, 2}, "in"), selection_pairs(c2v, {}, "in"));
  EXPECT_EQ(selection_pairs(c2v, {}, "in"), (std::vector<int>{1, 0, 3, 2}));
  EXPECT_EQ(selection_pairs(symmetry_group("C3v(M)"), {1, 1, 2}, "in"), (std::vector<int>{1, 0, 2}));
  // Cs(M): A' <-> A" (Gamma* = A"). C2h(M), TROVE's trans-HPPH input: "selection 1 1 2 2" pairs Ag with Au and Bg with
  // Bu (Gamma* = Au), as the product table does.
  const SymmetryGroup& cs = symmetry_group("Cs(M)");
  EXPECT_EQ(cs.irreps[cs.dipole_irrep], "A\"");
  EXPECT_EQ(selection_pairs(cs, {1, 1}, "in"), (std::vector<int>{1, 0}));
  const SymmetryGroup& c2h = symmetry_group("C2h(M)");
  EXPECT_EQ(c2h.irreps[c2h.dipole_irrep], "Au");
  EXPECT_EQ(selection_pairs(c2h, {1, 1, 2, 2}, "in"), (std::vector<int>{1, 0, 3, 2}));
  EXPECT_EQ(selection_pairs(c2h, {}, "in"), (std::vector<int>{1, 0, 3, 2}));
  EXPECT_FALSE(c2h.dipole_allowed(0, 3));  // Ag <-> Bu
  // TROVE's 14NH3 input in D3h(M) (docs/source/input/14N-1H3__BYTe__TROVE__step1.inp): "selection 1 2 3 1 2 3" pairs
  // A1' with A1", A2' with A2", E' with E" (Gamma* = A1"), as the product table does.
  EXPECT_EQ(d3h.irreps[d3h.dipole_irrep], "A1\"");
  EXPECT_EQ(selection_pairs(d3h, {1, 2, 3, 1, 2, 3}, "in"), (std::vector<int>{3, 4, 5, 0, 1, 2}));
  EXPECT_EQ(selection_pairs(d3h, {}, "in"), (std::vector<int>{3, 4, 5, 0, 1, 2}));
  // Its GNS 0 12 6 0 12 6 agree within each pair; TROVE stops when they do not, and so does quanta.
  check_gns_of_pairs(d3h, selection_pairs(d3h, {}, "in"), {0, 12, 6, 0, 12, 6}, "in");
  try {
    check_gns_of_pairs(d3h, selection_pairs(d3h, {}, "in"), {0, 12, 6, 12, 0, 6}, "my.inp");
    ADD_FAILURE() << "A1' with GNS 0 paired with A1\" with GNS 12 accepted";
  } catch (const quanta::InputError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("my.inp"), std::string::npos) << m;
    EXPECT_NE(m.find("A1' has 0 and its selection partner A1\" has 12"), std::string::npos) << m;
  }
  try {
    selection_pairs(c2v, {1, 2, 1, 2}, "my.inp");
    ADD_FAILURE() << "A1 paired with B1 accepted";
  } catch (const quanta::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("does not contain A2"), std::string::npos) << e.what();
  }
}

// TROVE's group of linear triatomics, "SYMGROUP Csn N" (its docs' C_ns(AEM) table and symmetry.f90): 2^n irreps,
// n = ceil(log2(2 (N + 1))), labelled A', A", e1, f1, ...; Gamma* = A"; e_l pairs with f_l.
TEST(LinelistPhysics, TrovesLinearMoleculeGroupCsn) {
  const std::vector<std::pair<int, int>> sizes = {{0, 2}, {1, 4}, {2, 8}, {3, 8}, {4, 16}, {7, 16}, {12, 32}, {15, 32}, {16, 64}};
  for (const auto& [n, size] : sizes) {
    const SymmetryGroup& g = symmetry_group("Csn " + std::to_string(n));
    ASSERT_EQ(g.nirreps(), size) << "Csn " << n;
    EXPECT_EQ(g.order(), size);
    EXPECT_EQ(g.irreps[g.dipole_irrep], "A\"");
    for (int a = 0; a < size; ++a)
      for (int b = 0; b < size; ++b) {
        double s = 0;
        for (int c = 0; c < size; ++c) s += g.characters[a][c] * g.characters[b][c];
        EXPECT_DOUBLE_EQ(s, a == b ? size : 0.0) << "Csn " << n << " irreps " << a << ", " << b;
        EXPECT_EQ(g.dipole_allowed(a, b), (a ^ b) == 1) << "Csn " << n << " irreps " << a << ", " << b;
      }
    std::vector<int> trove_pairs, expect;
    for (int a = 0; a < size; ++a) {
      trove_pairs.push_back(a / 2 + 1);  // TROVE's "selection 1 1 2 2 3 3 ..."
      expect.push_back(a ^ 1);
    }
    EXPECT_EQ(selection_pairs(g, trove_pairs, "in"), expect);
    EXPECT_EQ(selection_pairs(g, {}, "in"), expect);
  }
  // The docs' C_4s table (Csn 3): rows A'_0, A"_0, A'_1, A"_1, A'_2, ...; columns E^0, sigma^0, E^1, sigma^1, ...
  const SymmetryGroup& c4s = symmetry_group("CSN(M) 3");
  EXPECT_EQ(c4s.irreps, (std::vector<std::string>{"A'", "A\"", "e1", "f1", "e2", "f2", "e3", "f3"}));
  EXPECT_EQ(c4s.characters[3], (std::vector<double>{1, -1, -1, 1, 1, -1, -1, 1}));
  EXPECT_EQ(c4s.characters[4], (std::vector<double>{1, 1, 1, 1, -1, -1, -1, -1}));
  EXPECT_EQ(c4s.characters[7], (std::vector<double>{1, -1, -1, 1, -1, 1, 1, -1}));
  EXPECT_EQ(&symmetry_group("cs(n) 3"), &c4s);
  EXPECT_EQ(symmetry_group("Csn").nirreps(), 4);  // TROVE's N = 1 without a number
  EXPECT_EQ(symmetry_group("Csn 12").irreps.back(), "f15");
  EXPECT_THROW(symmetry_group("Csn x"), quanta::Error);
  EXPECT_THROW(symmetry_group("Csn -1"), quanta::Error);
  EXPECT_THROW(symmetry_group("Csn 512"), quanta::Error);
  // TROVE's other groups of linear molecules are refused by name.
  for (const char* other : {"C2vn 4", "C2vn(M) 4", "Dnh(M) 6", "Dinftyh(M)", "Cnv(M)", "G36(M)"}) {
    try {
      symmetry_group(other);
      ADD_FAILURE() << other << " accepted";
    } catch (const quanta::Error& e) {
      EXPECT_NE(std::string(e.what()).find("is not implemented in quanta linelist"), std::string::npos) << e.what();
    }
  }
}

// A non-finite amplitude or energy (a corrupt vector, dipole or level read) stops the digest naming the pair,
// instead of failing every threshold comparison and vanishing from the list; finite ones pass.
TEST(LinelistPhysics, NonFiniteAmplitudeOrEnergyStopsTheDigest) {
  IntensityInput in;
  in.temperature = 296;
  const IntensityConstants k(in, 10.0, 0.0);
  const int lower_level[1] = {7}, upper_level[2] = {11, 12};
  double lower_energy[1] = {100.0}, upper_energy[2] = {150.0, 170.0};
  double amp[2] = {0.1, 0.2};
  const StateSet lower{lower_level, lower_energy, 1, 0, 1, 1.0}, upper{upper_level, upper_energy, 2, 1, 1, 0.0};
  std::vector<Transition> out;
  collect_transitions(in, k, lower, upper, amp, out);
  EXPECT_EQ(out.size(), 2u);
  auto expect_stop = [&](const char* what) {
    try {
      collect_transitions(in, k, lower, upper, amp, out);
      ADD_FAILURE() << "a non-finite " << what << " passed";
    } catch (const quanta::Error& e) {
      const std::string msg = e.what();
      EXPECT_NE(msg.find(std::string("non-finite ") + what), std::string::npos) << msg;
      EXPECT_NE(msg.find("level 7 (J = 0) and level 12 (J = 1)"), std::string::npos) << msg;
    }
  };
  amp[1] = std::nan("");
  expect_stop("line strength");
  amp[1] = 0.2;
  upper_energy[1] = std::numeric_limits<double>::infinity();
  expect_stop("wavenumber");
}
