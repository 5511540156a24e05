// quanta phonon against FourPhonon (three-phonon only) on silicon: process counts, per-mode rates, weighted
// phase spaces, phase spaces, RTA and converged conductivity, cumulative conductivity. The 8x8x8 cases run
// in CI; the 16x16x16 case carries the label `long`.
#include <cmath>
#include <fstream>
#include <regex>

#include "quanta/phonon/run.hpp"
#include "test_support.hpp"

namespace quanta::phonon::test {
namespace {

// FourPhonon's input folder with the CONTROL of one reference run.
void stage_inputs(const std::filesystem::path& dir, const std::string& run) {
  std::filesystem::copy_file(reference_3ph(run) / "CONTROL", dir / "CONTROL");
  for (const char* f : {"espresso.ifc2", "FORCE_CONSTANTS_3RD"})
    std::filesystem::copy_file(si_reference() / "input" / f, dir / f);
}

long log_count(const std::string& run, const std::string& key) {
  const std::string text = read_text(reference_3ph(run) / "log.out");
  std::smatch m;
  EXPECT_TRUE(std::regex_search(text, m, std::regex(key + R"(\s*=\s*(\d+))"))) << key;
  return std::stol(m[1]);
}

double last_scalar(const std::filesystem::path& p) { return read_table(p).back().back(); }

// Per-point files (Nlist rows x Nbands, e.g. BTE.gruneisen): sums over each degenerate group of BTE.omega
// (frequencies equal to 1e-6), within `abs_tol` (the mode Grueneisen parameters inside a group depend on
// the eigenvectors each code picked: FourPhonon's -0.93, -0.82 against a group sum that both codes share).
void expect_groups_match(const std::filesystem::path& ref_dir, const std::filesystem::path& out_dir, const std::string& f,
                         double abs_tol) {
  const auto omega = read_table(ref_dir / "BTE.omega");
  const auto a = read_table(ref_dir / f), b = read_table(out_dir / f);
  ASSERT_EQ(a.size(), b.size()) << f;
  ASSERT_EQ(a.size(), omega.size()) << f;
  for (std::size_t l = 0; l < a.size(); ++l) {
    const std::size_t nb = omega[l].size();
    for (std::size_t n0 = 0; n0 < nb;) {
      std::size_t n1 = n0 + 1;
      while (n1 < nb && std::abs(omega[l][n1] - omega[l][n0]) < 1e-6 * std::max(1.0, std::abs(omega[l][n0]))) ++n1;
      double sa = 0, sb = 0;
      for (std::size_t n = n0; n < n1; ++n) sa += a[l][n], sb += b[l][n];
      EXPECT_NEAR(sb, sa, abs_tol) << f << " q " << l << " modes " << n0 << ".." << n1 - 1;
      n0 = n1;
    }
  }
}

void compare_run(const std::string& name, bool iterative) {
  TempDir dir;
  stage_inputs(dir.path, name);
  RunOptions o;
  o.input_dir = dir.path;
  o.output_dir = dir.path;
  o.backend = Backend::Cpu;
  o.quiet = true;
  // FourPhonon keeps the eigensolver's basis inside degenerate sets, and on these even meshes (X, W, L) its
  // kappa depends on that basis: random bases give an 8^3 RTA kappa of 92.9232..92.9281 W/mK. quanta makes
  // the same choice (the same LAPACK routine on nearly the same matrices) and agrees to 1e-8; its canonical
  // modes (DegenerateBasis::Canonical) give 92.92277 W/mK.
  o.degenerate_basis = DegenerateBasis::Solver;
  const auto s = phonon::run(o);
  const int nb = 6;
  // Enumeration: the same allowed processes, exactly.
  EXPECT_EQ(s.nplus, log_count(name, "Ntotal_plus"));
  EXPECT_EQ(s.nminus, log_count(name, "Ntotal_minus"));
  const auto ref = reference_3ph(name);
  const auto T = std::filesystem::path("T300K");
  // Rates and weighted phase spaces: the issue's criterion is 1e-3; observed agreement is 1e-6 (the
  // printed digits of the reference), so 1e-5 is asserted to keep regressions visible.
  for (const char* f : {"BTE.w_3ph", "BTE.w_3ph_plus", "BTE.w_3ph_minus", "BTE.w", "BTE.WP3", "BTE.WP3_plus", "BTE.WP3_minus"})
    expect_rates_match(ref / T / f, dir.path / T / f, nb, 1e-5);
  // Phase spaces (Nlist rows x Nbands): per point, summed over bands (degenerate splits again).
  for (const char* f : {"BTE.P3", "BTE.P3_plus", "BTE.P3_minus"}) {
    const auto a = read_table(ref / f), b = read_table(dir.path / f);
    ASSERT_EQ(a.size(), b.size());
    for (std::size_t l = 0; l < a.size(); ++l) {
      double sa = 0, sb = 0;
      for (int n = 0; n < nb; ++n) sa += a[l][n], sb += b[l][n];
      EXPECT_NEAR(sb, sa, 1e-5 * sa) << f << " point " << l;
    }
  }
  for (const char* f : {"BTE.P3_total", "BTE.P3_plus_total", "BTE.P3_minus_total"})
    EXPECT_NEAR(last_scalar(dir.path / f), last_scalar(ref / f), 1e-6 * last_scalar(ref / f)) << f;
  EXPECT_EQ(read_text(dir.path / "BTE.w_isotopic"), read_text(ref / "BTE.w_isotopic"));
  // Mode Grueneisen parameters (|gamma| up to 3.4, printed to 1e-10): group sums agree to 1e-9 at 8^3,
  // asserted at 1e-8; the weighted average (17 digits printed) agrees to 1e-14, asserted at 1e-12.
  expect_groups_match(ref, dir.path, "BTE.gruneisen", 1e-8);
  const double grun_ref = last_scalar(ref / T / "BTE.gruneisen_total");
  EXPECT_NEAR(last_scalar(dir.path / T / "BTE.gruneisen_total"), grun_ref, 1e-12 * grun_ref);
  EXPECT_EQ(read_text(dir.path / "BTE.gruneisenVsT_total"), read_text(ref / "BTE.gruneisenVsT_total"));

  // Conductivity: the issue's criterion is 0.5%; RTA agrees to 1e-8 and the iterative fixed point to 1e-6
  // (FourPhonon stops its in-place sweeps at eps = 1e-5 on a different path), asserted at 1e-5.
  const double rta_ref = read_table(ref / T / "BTE.kappa_scalar").front().back();
  EXPECT_NEAR(s.kappa_rta.at(0), rta_ref, 1e-7 * rta_ref);
  EXPECT_NEAR(read_table(dir.path / "BTE.KappaTensorVsT_RTA").at(0).at(1), read_table(ref / "BTE.KappaTensorVsT_RTA").at(0).at(1), 1e-4);
  const double final_ref = last_scalar(ref / T / "BTE.kappa_scalar");
  EXPECT_NEAR(s.kappa_converged.at(0), final_ref, (iterative ? 1e-5 : 1e-7) * final_ref);
  EXPECT_NEAR(last_scalar(dir.path / T / "BTE.cumulative_kappa_scalar"), last_scalar(ref / T / "BTE.cumulative_kappa_scalar"),
              (iterative ? 1e-5 : 1e-7) * final_ref);
  // The mean-free-path axis is ShengBTE's, to the printed digit.
  const auto ca = read_table(ref / T / "BTE.cumulative_kappa_scalar"), cb = read_table(dir.path / T / "BTE.cumulative_kappa_scalar");
  ASSERT_EQ(ca.size(), cb.size());
  for (std::size_t i = 0; i < ca.size(); ++i) EXPECT_NEAR(cb[i][0], ca[i][0], 1e-9 * ca[i][0]);
  if (iterative) {
    const auto conv = read_table(dir.path / "BTE.KappaTensorVsT_CONV");
    ASSERT_EQ(conv.size(), 1u);
    EXPECT_NEAR(conv[0][1], final_ref, 5e-5 * final_ref);  // the file prints 5 significant digits (E14.5)
  }
}

// omega_max: modes above it get no three-phonon processes (rates, WP3 and P3 exactly zero); the modes below
// keep FourPhonon's rates, since the enumeration of each mode does not depend on the others.
TEST(ThreePhononSi, OmegaMaxLeavesModesAboveUnscattered) {
  TempDir dir;
  stage_inputs(dir.path, "8x8x8-rta");
  const double omega_max = 60;  // rad/ps: the acoustic branches reach 50 and the optical ones start near 70
  std::string control = read_text(dir.path / "CONTROL");
  control.replace(control.find("&parameters"), 11, "&parameters\n\tomega_max=60.0");
  write_text(dir.path / "CONTROL", control);
  RunOptions o;
  o.input_dir = dir.path;
  o.output_dir = dir.path;
  o.backend = Backend::Cpu;
  o.quiet = true;
  o.degenerate_basis = DegenerateBasis::Solver;  // as compare_run
  phonon::run(o);
  const auto ref = reference_3ph("8x8x8-rta") / "T300K/BTE.w_3ph";
  const auto a = read_table(ref), b = read_table(dir.path / "T300K/BTE.w_3ph");
  ASSERT_EQ(a.size(), b.size());
  const int nb = 6;
  const std::size_t nl = a.size() / nb;
  int above = 0, below = 0;
  for (std::size_t l = 0; l < nl; ++l)
    for (int n0 = 0; n0 < nb;) {  // degenerate groups, compared by their sums as in compare_run
      auto row = [&](int n) { return n * nl + l; };
      int n1 = n0 + 1;
      while (n1 < nb && std::abs(a[row(n1)][0] - a[row(n0)][0]) < 1e-6 * std::max(1.0, a[row(n0)][0])) ++n1;
      double sa = 0, sb = 0;
      for (int n = n0; n < n1; ++n) {
        ASSERT_NEAR(b[row(n)][0], a[row(n)][0], 1e-6 * a[row(n)][0] + 1e-9);
        sa += a[row(n)][1];
        sb += b[row(n)][1];
        if (a[row(n)][0] > omega_max) {
          EXPECT_EQ(b[row(n)][1], 0.0) << "q " << l << " band " << n;
          ++above;
        }
      }
      if (a[row(n0)][0] <= omega_max && sa > 1e-3) {
        EXPECT_NEAR(sb, sa, 1e-5 * sa) << "q " << l << " bands " << n0 << ".." << n1 - 1;
        ++below;
      }
      n0 = n1;
    }
  EXPECT_GT(above, 50);
  EXPECT_GT(below, 50);
  const auto p3 = read_table(dir.path / "BTE.P3"), om = read_table(reference_3ph("8x8x8-rta") / "BTE.omega");
  for (std::size_t l = 0; l < p3.size(); ++l)
    for (std::size_t n = 0; n < p3[l].size(); ++n)
      if (om[l][n] > omega_max) EXPECT_EQ(p3[l][n], 0.0);
}

TEST(ThreePhononSi, Rta8) { compare_run("8x8x8-rta", false); }
TEST(ThreePhononSi, Iterative8) { compare_run("8x8x8-iterative", true); }
TEST(ThreePhononSiLong, Iterative16) { compare_run("16x16x16-iterative", true); }

}  // namespace
}  // namespace quanta::phonon::test
