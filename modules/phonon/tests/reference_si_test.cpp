// quanta phonon on FourPhonon's silicon example (16x16x16, espresso.ifc2, nonanalytic=.true.) against
// FourPhonon's own outputs.
#include <cmath>

#include "quanta/phonon/run.hpp"
#include "test_support.hpp"

namespace quanta::phonon::test {
namespace {

class SiReference : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    out_ = new TempDir;
    // The harmonic stage only (onlyharmonic): the 16x16x16 scattering has its own, longer test.
    const auto in = out_->path / "in";
    std::filesystem::create_directories(in);
    std::string control = si_control_text();
    control.replace(control.find("&flags"), 6, "&flags\n\tonlyharmonic=.TRUE.");
    write_text(in / "CONTROL", control);
    std::filesystem::copy_file(si_reference() / "input/espresso.ifc2", in / "espresso.ifc2");
    RunOptions o;
    o.input_dir = in;
    o.output_dir = out_->path;
    o.backend = Backend::Cpu;
    o.quiet = true;
    // FourPhonon's choice inside degenerate sets, which its WP3 at the zone-boundary points depends on.
    o.degenerate_basis = DegenerateBasis::Solver;
    run(o);
  }
  static void TearDownTestSuite() { delete out_; }
  static std::filesystem::path ours(const std::string& f) { return out_->path / f; }
  static std::filesystem::path theirs(const std::string& f) { return si_reference() / "output" / f; }
  static TempDir* out_;
};
TempDir* SiReference::out_ = nullptr;

TEST_F(SiReference, QPointListsAreIdentical) {
  // Same irreducible points, same order, same multiplicities and the same class of every mesh point.
  EXPECT_EQ(read_table(ours("BTE.qpoints")), read_table(theirs("BTE.qpoints")));
  EXPECT_EQ(read_table(ours("BTE.qpoints_full")), read_table(theirs("BTE.qpoints_full")));
  EXPECT_EQ(read_text(ours("BTE.qpoints")), read_text(theirs("BTE.qpoints")));  // byte for byte
}

TEST_F(SiReference, FrequenciesWithin1e6) {
  const auto a = read_table(ours("BTE.omega")), b = read_table(theirs("BTE.omega"));
  ASSERT_EQ(a.size(), b.size());
  int compared = 0;
  for (std::size_t l = 0; l < a.size(); ++l)
    for (std::size_t n = 0; n < b[l].size(); ++n) {
      if (b[l][n] <= 0.5) continue;  // acoustic modes near Gamma: relative error meaningless
      EXPECT_NEAR(a[l][n] / b[l][n], 1.0, 1e-6) << "q " << l + 1 << " mode " << n + 1;
      ++compared;
    }
  EXPECT_GT(compared, 850);
}

TEST_F(SiReference, GroupVelocitiesWithin1e4InNorm) {
  const auto om = read_table(theirs("BTE.omega"));
  for (const char* f : {"BTE.v", "BTE.v_full"}) {
    const auto a = read_table(ours(f)), b = read_table(theirs(f));
    ASSERT_EQ(a.size(), b.size()) << f;
    const std::size_t nq = a.size() / 6;
    double worst = 0;
    for (std::size_t n = 0; n < 6; ++n)
      for (std::size_t l = 0; l < nq; ++l) {
        const auto& va = a[n * nq + l];
        const auto& vb = b[n * nq + l];
        const double nb = std::hypot(vb[0], vb[1], vb[2]);
        if (std::string(f) == "BTE.v" && om[l][n] <= 0.5) continue;
        if (nb < 1e-3) continue;  // zero by symmetry in both: compared absolutely below
        worst = std::max(worst, std::hypot(va[0] - vb[0], va[1] - vb[1], va[2] - vb[2]) / nb);
      }
    EXPECT_LT(worst, 1e-4) << f;
  }
}

TEST_F(SiReference, SpecificHeatWithin1e6) {
  const double ours_cv = read_table(ours("T300K/BTE.cv"))[0][0], theirs_cv = read_table(theirs("T300K/BTE.cv"))[0][0];
  EXPECT_NEAR(ours_cv / theirs_cv, 1.0, 1e-6);
  EXPECT_EQ(read_table(ours("BTE.cvVsT")), read_table(theirs("BTE.cvVsT")));  // printed to 5 digits
  EXPECT_EQ(read_table(ours("BTE.KappaTensorVsT_sg")), read_table(theirs("BTE.KappaTensorVsT_sg")));
}

TEST_F(SiReference, DensityOfStatesToPrintedDigits) {
  for (const char* f : {"BTE.dos", "BTE.pdos"}) {
    const auto a = read_table(ours(f)), b = read_table(theirs(f));
    ASSERT_EQ(a.size(), b.size()) << f;
    for (std::size_t i = 0; i < a.size(); ++i)
      for (std::size_t k = 0; k < a[i].size(); ++k)
        EXPECT_NEAR(a[i][k], b[i][k], 1e-5 * std::abs(b[i][k]) + 1e-12) << f << " line " << i + 1;  // 5 printed digits
  }
  // Sum rule: the DOS integrates to 3 natoms (less the Gaussian tails cut at 2.5 sigma).
  const auto d = read_table(ours("BTE.dos"));
  double integral = 0;
  for (std::size_t i = 1; i < d.size(); ++i) integral += 0.5 * (d[i][1] + d[i - 1][1]) * (d[i][0] - d[i - 1][0]);
  EXPECT_NEAR(integral, 6.0, 0.1);
}

TEST_F(SiReference, ReciprocalVectorsAndHdf5Written) {
  EXPECT_EQ(read_text(ours("BTE.ReciprocalLatticeVectors")), read_text(theirs("BTE.ReciprocalLatticeVectors")));
  EXPECT_TRUE(std::filesystem::exists(ours("quanta-phonon.h5")));
}

// onlyharmonic=.true. still writes the three-phonon phase spaces, which need no FORCE_CONSTANTS_3RD (the
// input folder here has none); FourPhonon's own run (four-phonon on) prints the same three-phonon P3 and
// WP3. Compared per q-point, summed over bands (degenerate groups split by eigenvector choice).
TEST_F(SiReference, OnlyHarmonicWritesThreePhononPhaseSpaces) {
  for (const char* f : {"BTE.P3", "BTE.P3_plus", "BTE.P3_minus"}) {
    const auto a = read_table(theirs(f)), b = read_table(ours(f));
    ASSERT_EQ(a.size(), b.size()) << f;
    for (std::size_t l = 0; l < a.size(); ++l) {
      double sa = 0, sb = 0;
      for (std::size_t n = 0; n < a[l].size(); ++n) sa += a[l][n], sb += b[l][n];
      EXPECT_NEAR(sb, sa, 1e-6 * sa) << f << " point " << l;  // observed 3e-8
    }
  }
  // WP3 (omega, value) per mode, band-major, printed to 5 digits (E14.5): per point over bands to 2e-5.
  for (const char* f : {"T300K/BTE.WP3", "T300K/BTE.WP3_plus", "T300K/BTE.WP3_minus"}) {
    const auto a = read_table(theirs(f)), b = read_table(ours(f));
    ASSERT_EQ(a.size(), b.size()) << f;
    const std::size_t nl = read_table(theirs("BTE.omega")).size(), nb = a.size() / nl;
    for (std::size_t l = 0; l < nl; ++l) {
      double sa = 0, sb = 0;
      for (std::size_t n = 0; n < nb; ++n) sa += a[n * nl + l][1], sb += b[n * nl + l][1];
      EXPECT_NEAR(sb, sa, 2e-5 * sa) << f << " point " << l;
    }
  }
  // ... and stops there, as FourPhonon does: no rates, Grueneisen parameters or conductivities.
  for (const char* f : {"BTE.gruneisen", "BTE.KappaTensorVsT_RTA", "T300K/BTE.w_3ph", "T300K/BTE.kappa", "T300K/BTE.w"})
    EXPECT_FALSE(std::filesystem::exists(ours(f))) << f;
}

}  // namespace
}  // namespace quanta::phonon::test
