// The second-Born approximation is conserving: N(t) is constant to round-off (every corrector pass
// preserves it exactly, see kernels/time_step.hpp), and with the pulse off the total energy
// (Galitskii-Migdal) is constant up to the O(dt^2) error of the time step.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "test_support.hpp"

namespace {

// Excited carriers near k = 0 on top of a partly filled valence band: not an eigenstate, so
// correlations build up and energy flows between the kinetic and interaction parts.
quanta::kbe::Config excited(double dt, int steps, bool pulse) {
  auto c = kbe_test::small_config(8, 0.6, dt, steps);
  if (!pulse) c.model.pulse.amplitude = 0.0;
  for (int i = 0; i < 8; ++i) {
    const double k = 2 * M_PI * (i - 4) / 8, x = 0.45 * std::exp(-k * k);
    c.model.n_valence[i] = 1.0 - x;
    c.model.n_conduction[i] = x;
  }
  return c;
}

struct Trace {
  double n_drift = 0, n0 = 0, e_drift = 0, e_corr_end = 0, kinetic_change = 0;
};

Trace run(const quanta::kbe::Config& c) {
  quanta::kbe::Propagator p(c, 2);
  const auto o0 = p.observe();
  Trace t;
  t.n0 = o0.particles;
  quanta::kbe::Observables o = o0;
  while (p.step() < c.time.steps) {
    p.advance();
    o = p.observe();
    t.n_drift = std::max(t.n_drift, std::abs(o.particles - o0.particles));
  }
  t.e_drift = std::abs(o.energy_total - o0.energy_total);
  t.e_corr_end = o.energy_correlation;
  t.kinetic_change = std::abs(o.energy_kinetic - o0.energy_kinetic);
  return t;
}

TEST(KbeConservation, ParticleNumberAndEnergyWithoutPulse) {
  const double t_end = 3.0;
  std::vector<double> drift;
  for (int steps : {30, 60, 120}) {
    const Trace t = run(excited(t_end / steps, steps, false));
    std::printf("dt = %.4f: max |N - N0| = %.2e (N0 = %.1f), |E(T) - E(0)| = %.3e, E_corr(T) = %.4f, |dE_kin| = %.4f\n",
                t_end / steps, t.n_drift, t.n0, t.e_drift, t.e_corr_end, t.kinetic_change);
    // Round-off: each step adds a few ulps of N (~1e-15 each) over at most 120 steps.
    EXPECT_LT(t.n_drift, 1e-12 * t.n0);
    // The conservation must be a statement about real dynamics: correlation energy built up, kinetic
    // energy changed, both by far more than the drift.
    EXPECT_GT(std::abs(t.e_corr_end), 1e-2);
    EXPECT_GT(t.kinetic_change, 1e-2);
    drift.push_back(t.e_drift);
  }
  for (std::size_t i = 1; i < drift.size(); ++i) {
    const double order = std::log2(drift[i - 1] / drift[i]);
    std::printf("energy drift order %.3f\n", order);
    // Second-order time step: halving dt divides the drift by about 4 (order 2 within 0.25, the spread
    // of pre-asymptotic terms at these step sizes).
    EXPECT_NEAR(order, 2.0, 0.25);
  }
}

TEST(KbeConservation, ParticleNumberWithPulse) {
  const Trace t = run(excited(0.05, 60, true));
  std::printf("pulse on: max |N - N0| = %.2e (N0 = %.1f)\n", t.n_drift, t.n0);
  EXPECT_LT(t.n_drift, 1e-12 * t.n0);  // round-off, as above
}

}  // namespace
