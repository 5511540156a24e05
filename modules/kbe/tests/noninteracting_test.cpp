// U = 0: every k is a driven two-level system, i d rho/dt = [h(k,t), rho]. The equal-time G< of the
// Kadanoff-Baym propagation is compared with an independent RK4 solution of that 2x2 equation.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdio>

#include "test_support.hpp"

namespace {

using kbe_test::Z;
using M = std::array<Z, 4>;

M mul(const M& a, const M& b) {
  return {a[0] * b[0] + a[1] * b[2], a[0] * b[1] + a[1] * b[3], a[2] * b[0] + a[3] * b[2], a[2] * b[1] + a[3] * b[3]};
}

// The model written out again from its definition (seed eqs. (3)-(4) at U = 0), not from the solver's code.
struct TwoLevel {
  double eps_v, eps_c, d, e0, tc, w, omega;
  M h(double t) const {
    const double x = t - tc;
    const double e = e0 * std::exp(-x * x / (2 * w * w)) * std::cos(omega * x);
    return {eps_v, e * d, e * d, eps_c};
  }
  M rhs(double t, const M& r) const {  // -i [h, r]
    const M hr = mul(h(t), r), rh = mul(r, h(t));
    M out;
    for (int i = 0; i < 4; ++i) out[i] = Z(0, -1) * (hr[i] - rh[i]);
    return out;
  }
  M solve(double t_end, int steps) const {
    M r = {1.0, 0.0, 0.0, 0.0};
    const double h_ = t_end / steps;
    auto axpy = [](const M& a, double s, const M& b) {
      M o;
      for (int i = 0; i < 4; ++i) o[i] = a[i] + s * b[i];
      return o;
    };
    for (int n = 0; n < steps; ++n) {
      const double t = n * h_;
      const M k1 = rhs(t, r), k2 = rhs(t + h_ / 2, axpy(r, h_ / 2, k1)), k3 = rhs(t + h_ / 2, axpy(r, h_ / 2, k2)),
              k4 = rhs(t + h_, axpy(r, h_, k3));
      for (int i = 0; i < 4; ++i) r[i] += h_ / 6 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]);
    }
    return r;
  }
};

std::vector<Z> reference(const quanta::kbe::Config& c, double t_end, int rk_steps) {
  std::vector<Z> out;
  const int nk = c.model.nk;
  for (int i = 0; i < nk; ++i) {
    const double k = 2 * M_PI * (i - nk / 2) / nk;
    const TwoLevel tl{-1.0 - 0.5 * std::cos(k), 1.0 + 0.5 * std::cos(k), 1.0, c.model.pulse.amplitude,
                      c.model.pulse.center, c.model.pulse.width, c.model.pulse.frequency};
    const M r = tl.solve(t_end, rk_steps);
    out.insert(out.end(), r.begin(), r.end());
  }
  return out;
}

constexpr double kTEnd = 2.4;  // past the pulse (centre 1, width 0.3): Rabi rotation and free precession

TEST(KbeNonInteracting, EqualTimeGreenFunctionMatchesTwoLevelOde) {
  const int nk = 6;
  // The RK4 reference: 24000 steps against 48000 steps differ by < 1e-13, so it is exact at the 1e-8 scale.
  const auto ref = reference(kbe_test::small_config(nk, 0.0, 0.1, 1), kTEnd, 48000);
  ASSERT_LT(kbe_test::max_abs_diff(ref, reference(kbe_test::small_config(nk, 0.0, 0.1, 1), kTEnd, 24000)), 1e-13);

  std::vector<double> err;
  std::vector<std::vector<Z>> rho;
  for (int steps : {60, 120, 240, 480}) {
    const auto c = kbe_test::small_config(nk, 0.0, kTEnd / steps, steps);
    rho.push_back(kbe_test::propagate_to_end(c));
    err.push_back(kbe_test::max_abs_diff(rho.back(), ref));
  }
  for (std::size_t i = 1; i < err.size(); ++i) {
    const double order = std::log2(err[i - 1] / err[i]);
    std::printf("dt = %.5f: max |rho_KBE - rho_ODE| = %.3e, order %.3f\n", kTEnd / (60 << i), err[i], order);
    // The exponential-midpoint step is second order; the error is in its asymptotic range here.
    EXPECT_NEAR(order, 2.0, 0.05);
  }
  // The step's error expands in even powers of dt (it is symmetric), so two Richardson levels over
  // dt, dt/2, dt/4 leave an O(dt^6) error: this must reach the reference to 1e-8.
  std::vector<Z> r1(ref.size()), r2(ref.size()), rr(ref.size());
  for (std::size_t i = 0; i < ref.size(); ++i) {
    r1[i] = (4.0 * rho[2][i] - rho[1][i]) / 3.0;
    r2[i] = (4.0 * rho[3][i] - rho[2][i]) / 3.0;
    rr[i] = (16.0 * r2[i] - r1[i]) / 15.0;
  }
  const double rich = kbe_test::max_abs_diff(rr, ref);
  std::printf("Richardson-extrapolated (dt = %.4f, %.4f, %.4f): max error %.3e\n", kTEnd / 120, kTEnd / 240, kTEnd / 480, rich);
  EXPECT_LT(rich, 1e-8);
  // The pulse must have done something measurable, or the comparison would be empty.
  double nc = 0;
  for (int k = 0; k < nk; ++k) nc = std::max(nc, ref[4 * k + 3].real());
  EXPECT_GT(nc, 0.05);
}

}  // namespace
