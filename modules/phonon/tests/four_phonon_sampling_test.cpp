// FourPhonon's sampling estimator (num_sample_process_4ph, num_sample_process_4ph_phase_space) on the CPU,
// against the exact sums on FourPhonon's Stillinger-Weber silicon at 3x3x3: unbiased (the mean over seeds
// within 4 standard errors of the exact totals), with the spread the estimator states (binomial for the
// counts, 1/sqrt(Ns)), reproducible from its seed. The GPU's sample is the CPU's (test_phonon_four_phonon_parity).
#include <cmath>
#include <cstdio>
#include <numeric>
#include <tuple>

#include "quanta/phonon/scattering.hpp"
#include "test_support.hpp"

namespace quanta::phonon::test {
namespace {

struct Si3Four {
  TempDir dir;
  Harmonic h;
  FourthOrderFc fc4;
  Si3Four() {
    std::filesystem::copy_file(quanta::test::data_path("phonon/si-sw-4ph/CONTROL-3x3x3"), dir.path / "CONTROL");
    for (const char* f : {"FORCE_CONSTANTS_2ND", "FORCE_CONSTANTS_4TH"})
      std::filesystem::copy_file(quanta::test::data_path(std::string("phonon/si-sw-4ph/") + f), dir.path / f);
    h = harmonic_stage(dir.path);
    fc4 = read_fc4(dir.path / "FORCE_CONSTANTS_4TH", h.control);
  }
  FourPhononScattering run(const FourPhononSampling& sampling) const {
    ScatteringOptions so;
    so.quiet = true;
    return four_phonon_scattering(h.control.crystal, h.grid, h.spectrum, fc4, h.control.scalebroad, {300.0}, so, false, sampling);
  }
};
const Si3Four& si3() {
  static const Si3Four s;
  return s;
}

// Per class: the totals over the irreducible modes of the count, P4 and the rate.
struct Totals {
  double count[3], p4[3], gamma[3];
};
Totals totals(const FourPhononScattering& r) {
  Totals t{};
  for (int c = 0; c < 3; ++c) {
    t.count[c] = static_cast<double>(std::accumulate(r.count[c].begin(), r.count[c].end(), std::int64_t{0}));
    t.p4[c] = std::accumulate(r.phase_space[c].begin(), r.phase_space[c].end(), 0.0);
    t.gamma[c] = std::accumulate(r.per_t[0].gamma[c].begin(), r.per_t[0].gamma[c].end(), 0.0);
  }
  return t;
}

constexpr int kSeeds = 6;

TEST(FourPhononSampling, EstimatesAreUnbiasedWithTheStatedSpread) {
  const auto exact = si3().run({});
  const Totals ex = totals(exact);
  const long long ns_rates = 3000, ns_space = 30000;
  std::vector<Totals> runs;
  for (int seed = 1; seed <= kSeeds; ++seed) runs.push_back(totals(si3().run({ns_rates, ns_space, static_cast<unsigned long long>(seed)})));
  const double candidates = 27.0 * 27 * 6 * 6 * 6;  // Nq^2 nb^3 per mode and class
  for (int c = 0; c < 3; ++c) {
    std::vector<double> count, p4, gamma;
    for (const auto& t : runs) {
      count.push_back(t.count[c]);
      p4.push_back(t.p4[c]);
      gamma.push_back(t.gamma[c]);
    }
    // Unbiased: the mean of kSeeds independent estimates within 4 of its standard errors of the exact total
    // (Student's t with 5 degrees of freedom exceeds 4 with probability 1%; the seeds are fixed, so the test
    // cannot flake, and a bias of a few standard errors would show). Counts are truncated per mode, as in
    // FourPhonon, which biases them by about -0.5 per mode: far below the tolerance here.
    for (const auto& [name, x, exact_total] : std::vector<std::tuple<const char*, std::vector<double>, double>>{
             {"count", count, ex.count[c]}, {"P4", p4, ex.p4[c]}, {"rate", gamma, ex.gamma[c]}}) {
      const Spread s = spread(x);
      EXPECT_GT(s.sd, 0.0) << name << " class " << c;
      EXPECT_LE(std::abs(s.mean - exact_total), 4 * s.sd / std::sqrt(double(kSeeds))) << name << " class " << c;
      std::printf("class %d %-5s: exact %.6e, mean of %d estimates %.6e (%+.2e), one estimate's spread %.2e\n", c, name,
                  exact_total, kSeeds, s.mean, s.mean / exact_total - 1, s.sd / exact_total);
    }
    // The counts' spread is the estimator's: per mode, hits ~ Binomial(Ns, p) with p = count / candidates, so
    // the total's variance is sum_m (candidates / Ns)^2 Ns p (1 - p). The sample standard deviation of 6
    // estimates lies within [0.35, 1.6] of the true one with 95% probability; [0.3, 2] is asked.
    double variance = 0;
    for (std::int64_t n : exact.count[c]) {
      const double p = double(n) / candidates;
      variance += candidates * candidates / double(ns_space) * p * (1 - p);
    }
    const double ratio = spread(count).sd / std::sqrt(variance);
    std::printf("class %d counts: spread %.3e against the binomial %.3e\n", c, spread(count).sd, std::sqrt(variance));
    EXPECT_GT(ratio, 0.3) << "class " << c;
    EXPECT_LT(ratio, 2.0) << "class " << c;
  }
}

// Four times the draws, half the spread (1/sqrt(Ns)); the phase-space sample alone, which needs no matrix
// elements. The ratio of two sample deviations of 6 estimates each lies within [0.45, 2.2] of the true ratio
// with 95% probability; [1.0, 4.0] around the expected 2 is asked.
TEST(FourPhononSampling, SpreadFallsAsOneOverTheRootOfTheSample) {
  std::vector<double> small, large;
  for (int seed = 1; seed <= kSeeds; ++seed) {
    const auto a = totals(si3().run({-1, 10000, static_cast<unsigned long long>(seed)}));
    const auto b = totals(si3().run({-1, 40000, static_cast<unsigned long long>(100 + seed)}));
    small.push_back(a.count[1]);
    large.push_back(b.count[1]);
  }
  const double ratio = spread(small).sd / spread(large).sd;
  std::printf("+- counts: spread at 10000 draws / at 40000 draws = %.2f (1/sqrt(Ns): 2)\n", ratio);
  EXPECT_GT(ratio, 1.0);
  EXPECT_LT(ratio, 4.0);
}

// The same seed gives the same sample; another seed another; exact quantities stay exact.
TEST(FourPhononSampling, ReproducibleFromItsSeed) {
  const auto a = si3().run({2000, -1, 7}), b = si3().run({2000, -1, 7}), c = si3().run({2000, -1, 8});
  const auto exact = si3().run({});
  EXPECT_EQ(a.per_t[0].gamma, b.per_t[0].gamma);
  EXPECT_NE(a.per_t[0].gamma, c.per_t[0].gamma);
  EXPECT_EQ(a.count, exact.count);  // the phase space was not sampled
  EXPECT_EQ(a.phase_space, exact.phase_space);
}

}  // namespace
}  // namespace quanta::phonon::test
