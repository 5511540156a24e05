// CUDA vs CPU: the same spectrum on the whole 16x16x16 silicon mesh, with and without the non-analytic
// corrections. Skips without a GPU.
#include <cmath>

#include "fc_conversion.hpp"
#include "quanta/core/backend.hpp"
#include "quanta/phonon/control.hpp"
#include "quanta/phonon/qgrid.hpp"
#include "quanta/phonon/spectrum.hpp"
#include "test_support.hpp"

namespace quanta::phonon::test {
namespace {

// Eigenvalues omega^2 to 1e-10 of the largest at that q: a backward-stable solver is exact to about
// 1e-16 ||D||, so the acoustic modes at Gamma (omega^2 ~ 1e-11 ||D||, pure rounding) can differ in omega
// itself by 1e-7 while agreeing in omega^2. Velocities summed over each degenerate group (the sum does not
// depend on the basis the eigensolver picks inside the group) to 1e-8 of the largest velocity.
void expect_same(const Spectrum& a, const Spectrum& b) {
  ASSERT_EQ(a.omega.size(), b.omega.size());
  double vmax = 0;
  for (double v : a.velocity) vmax = std::max(vmax, std::abs(v));
  for (int q = 0; q < a.nq; ++q) {
    const double* oa = &a.omega[static_cast<std::size_t>(q) * a.nb];
    const double* ob = &b.omega[static_cast<std::size_t>(q) * a.nb];
    const double scale = ob[a.nb - 1] * ob[a.nb - 1];
    for (int n = 0; n < a.nb; ++n)
      ASSERT_NEAR(oa[n] * std::abs(oa[n]), ob[n] * std::abs(ob[n]), 1e-10 * scale) << "q " << q << " mode " << n;
    for (int n0 = 0; n0 < a.nb;) {
      if (ob[n0] * ob[n0] < 1e-10 * scale) {  // omega at rounding level: v = 0/0, zeroed by the Gamma fix
        ++n0;
        continue;
      }
      int n1 = n0 + 1;
      while (n1 < a.nb && std::abs(ob[n1] - ob[n0]) < 1e-6 * std::max(1.0, std::abs(ob[n0]))) ++n1;
      for (int c = 0; c < 3; ++c) {
        double sa = 0, sb = 0;
        for (int n = n0; n < n1; ++n) {
          sa += a.velocity[(static_cast<std::size_t>(q) * a.nb + n) * 3 + c];
          sb += b.velocity[(static_cast<std::size_t>(q) * a.nb + n) * 3 + c];
        }
        ASSERT_NEAR(sa, sb, 1e-8 * vmax) << "q " << q << " modes " << n0 << ".." << n1 - 1;
      }
      n0 = n1;
    }
  }
}

void compare_backends(const HarmonicModel& model, const Control& ctl) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device: GPU parity not tested here";
  QGrid g = build_qgrid(ctl.ngrid, find_symmetry(ctl.crystal));
  std::vector<Vec3> q;
  for (const auto& f : g.qfrac) q.push_back(qfrac_to_cart(ctl.crystal, f));
  SpectrumOptions cpu, gpu;
  gpu.backend = Backend::Cuda;
  const Spectrum a = compute_spectrum(model, q, cpu);
  expect_same(compute_spectrum(model, q, gpu), a);
  gpu.max_batch = 333;  // the batched strategy, with a ragged last batch
  expect_same(compute_spectrum(model, q, gpu), a);
}

const std::string kPolar = "\tborn(:,:,1)= 2 0.1 0 0 2 0 0 0 2\n\tborn(:,:,2)= -2 0 0 0 -2 0 0.1 0 -2\n\tepsilon(:,:)= 12 0 0 0 12 0 0 0 12\n";

TEST(BackendParity, EspressoSilicon) {
  const Control ctl = si_control();
  compare_backends(read_espresso_ifc2(si_reference() / "input/espresso.ifc2", ctl), ctl);
}

TEST(BackendParity, EwaldCorrection) {
  TempDir d;
  std::string t = si_control_text();
  t.replace(t.find("\tscell"), 0, kPolar);
  write_text(d.path / "CONTROL", t);
  const Control ctl = read_control(d.path / "CONTROL");
  compare_backends(read_espresso_ifc2(si_reference() / "input/espresso.ifc2", ctl), ctl);
}

TEST(BackendParity, MixedSpaceCorrection) {
  TempDir d;
  std::string t = si_control_text();
  t.replace(t.find("espresso=.TRUE."), 15, "espresso=.FALSE.");
  t.replace(t.find("\tscell"), 0, kPolar);
  write_text(d.path / "CONTROL", t);
  const Control ctl = read_control(d.path / "CONTROL");
  write_phonopy_from_espresso(si_reference() / "input/espresso.ifc2", ctl, d.path / "FORCE_CONSTANTS_2ND");
  compare_backends(read_phonopy_fc2(d.path / "FORCE_CONSTANTS_2ND", ctl), ctl);
}

}  // namespace
}  // namespace quanta::phonon::test
