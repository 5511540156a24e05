// The phonopy path (FORCE_CONSTANTS_2ND) and the QE path (espresso.ifc2) give the same spectrum for the
// same force constants, and the non-analytic corrections give the analytic LO-TO splitting.
#include <cmath>

#include "fc_conversion.hpp"
#include "quanta/core/units.hpp"
#include "quanta/phonon/control.hpp"
#include "quanta/phonon/spectrum.hpp"
#include "test_support.hpp"

namespace quanta::phonon::test {
namespace {

std::string control_text(bool espresso, const std::string& extra_crystal = "") {
  std::string t = si_control_text();
  if (!espresso) t.replace(t.find("espresso=.TRUE."), 15, "espresso=.FALSE.");
  if (!extra_crystal.empty()) t.replace(t.find("\tscell"), 0, extra_crystal + "\n");
  return t;
}

std::vector<Vec3> some_q(const Crystal& c) {
  std::vector<Vec3> q;
  for (int i = 0; i < 40; ++i) q.push_back(qfrac_to_cart(c, {0.037 * i, 0.5 - 0.011 * i, 0.023 * i * i / 40.0}));
  return q;
}

TEST(PhonopyReader, SameSpectrumAsEspressoReader) {
  TempDir d;
  write_text(d.path / "CONTROL", control_text(false));
  const Control ctl = read_control(d.path / "CONTROL");
  write_phonopy_from_espresso(si_reference() / "input/espresso.ifc2", ctl, d.path / "FORCE_CONSTANTS_2ND");
  const Control ctl_qe = si_control();
  const auto q = some_q(ctl.crystal);
  const Spectrum a = compute_spectrum(read_phonopy_fc2(d.path / "FORCE_CONSTANTS_2ND", ctl), q, {});
  const Spectrum b = compute_spectrum(read_espresso_ifc2(si_reference() / "input/espresso.ifc2", ctl_qe), q, {});
  for (std::size_t m = 0; m < a.omega.size(); ++m) {
    if (b.omega[m] < 0.5) continue;
    EXPECT_NEAR(a.omega[m] / b.omega[m], 1.0, 1e-9) << "mode " << m;
  }
}

// omega_LO^2 - omega_TO^2 -> e^2 Z^2 / (eps0 eps V) (1/m1 + 1/m2) as q -> 0 for Born charges +Z, -Z.
void expect_lo_to_splitting(const Control& ctl, const HarmonicModel& model) {
  const double Z = 2.0, eps = 12.0, m = ctl.crystal.masses[0];
  const double expected = units::shengbte::e2_over_eps0 * Z * Z / (eps * ctl.crystal.volume) * (2.0 / m);
  for (const Vec3 dir : {Vec3{1, 0, 0}, Vec3{1, 1, 0}, Vec3{1, 1, 1}}) {
    const double len = std::sqrt(dir[0] * dir[0] + dir[1] * dir[1] + dir[2] * dir[2]);
    const Vec3 q{1e-3 * dir[0] / len, 1e-3 * dir[1] / len, 1e-3 * dir[2] / len};  // nm^-1, |b| ~ 20 nm^-1
    const Spectrum s = compute_spectrum(model, {q}, {});
    const double to = s.omega[3], lo = s.omega[5];
    EXPECT_NEAR(s.omega[4], to, 1e-6 * to);  // two degenerate TO modes
    EXPECT_NEAR((lo * lo - to * to) / expected, 1.0, 2e-3);
  }
}

const std::string kPolar = "\tborn(:,:,1)= 2 0 0 0 2 0 0 0 2\n\tborn(:,:,2)= -2 0 0 0 -2 0 0 0 -2\n\tepsilon(:,:)= 12 0 0 0 12 0 0 0 12";

TEST(NonAnalytic, EwaldSumGivesLoToSplitting) {
  TempDir d;
  write_text(d.path / "CONTROL", control_text(true, kPolar));
  const Control ctl = read_control(d.path / "CONTROL");
  expect_lo_to_splitting(ctl, read_espresso_ifc2(si_reference() / "input/espresso.ifc2", ctl));
}

TEST(NonAnalytic, MixedSpaceGivesLoToSplitting) {
  TempDir d;
  write_text(d.path / "CONTROL", control_text(false, kPolar));
  const Control ctl = read_control(d.path / "CONTROL");
  write_phonopy_from_espresso(si_reference() / "input/espresso.ifc2", ctl, d.path / "FORCE_CONSTANTS_2ND");
  expect_lo_to_splitting(ctl, read_phonopy_fc2(d.path / "FORCE_CONSTANTS_2ND", ctl));
}

}  // namespace
}  // namespace quanta::phonon::test
