// Cross-section kernels (kernels/xsec.hpp) against closed forms and an independent Faddeeva function.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "../kernels/xsec.hpp"

namespace k = quanta::linelist::kernels;

namespace {

// Re w(x + i y) from SciPy 1.10's scipy.special.wofz (S. G. Johnson's Faddeeva package), printed to 17 digits.
struct WofzPoint {
  double x, y, re;
};
const WofzPoint kWofz[] = {
    {0, 1e-08, 0.99999998871620832},
    {0, 0.5, 0.61569034419292579},
    {0.5, 0.5, 0.53315670791217484},
    {1, 0.10000000000000001, 0.37317014831126744},
    {3, 0.01, 0.0009088307067415815},
    {0.01, 2, 0.25539149608965228},
    {5, 5, 0.056965439888177372},
    {0.10000000000000001, 0.001, 0.98894484184179499},
    {10, 0.10000000000000001, 0.00057281236496106995},
    {2, 1.0000000000000001e-05, 0.018317956132924924},
    {0.001, 0.001, 0.9988716223354106},
    {30, 9.9999999999999995e-07, 6.2792502413109266e-10},
    {200, 3, 4.230628590123976e-05},
    {0.69999999999999996, 40, 0.014096025803452239},
    {4.9000000000000004, 0.02, 0.00050292587207433949},
    {1000, 0.01, 5.6419042977782808e-09},
    {6.2000000000000002, 1.0000000000000001e-09, 1.5291003748650735e-11},
    {1.5, 100, 0.0056403450224544252},
};

// One line of strength 1 at nu0 on a grid, CPU backend.
std::vector<double> one_line(const k::XsecGrid& g, k::LineShape shape, k::Binning binning, double cutoff, double nu0, double alpha, double gamma) {
  k::XsecParams p;
  p.shape = shape;
  p.binning = binning;
  p.cutoff = cutoff;
  const double s = 1;
  k::XsecLines l;
  l.count = 1;
  l.nu = &nu0;
  l.strength = &s;
  l.alpha = &alpha;
  l.gamma = &gamma;
  std::vector<double> sigma(g.points, 0.0);
  k::add_cross_sections_cpu(g, p, l, sigma.data());
  return sigma;
}

double area(const std::vector<double>& sigma, double step) {
  double a = 0;
  for (double x : sigma) a += x * step;
  return a;
}

}  // namespace

// Weideman's N = 32 expansion against the independent function. Bound: 3e-13 of w's scale at that y (|w(i y)|, the
// Voigt profile's peak, <= 1), the expansion's accuracy over the plane (xsec.hpp); far below any line's own value
// except in wings 1e-12 of a peak down, where absolute errors of 1e-13 of the peak are immaterial.
TEST(Xsec, FaddeevaMatchesAnIndependentImplementation) {
  for (const auto& p : kWofz) {
    const double peak = k::faddeeva_re(0, p.y);
    EXPECT_NEAR(k::faddeeva_re(p.x, p.y), p.re, 3e-13 * peak) << "x " << p.x << " y " << p.y;
    // Near the real axis the expansion's absolute error (about 2e-14 at x 3-5) is 1e-11 of values 1e-3 of the peak.
    if (p.re > 1e-6 * peak) EXPECT_NEAR(k::faddeeva_re(p.x, p.y), p.re, 1e-10 * p.re) << "x " << p.x << " y " << p.y;
  }
}

// Integrated bins hold a line's area exactly: the bins' sum is the profile's fraction within the cut-off of the bin
// centres (closed forms for Gauss and Lorentz), even with bins 50 times wider than the line. Bound 1e-13: rounding.
TEST(Xsec, IntegratedBinsKeepTheAreaOfNarrowLines) {
  const k::XsecGrid g{1000.0, 0.5, 201};  // 1000 .. 1100
  for (const double alpha : {0.01, 0.3, 2.0}) {
    const auto s = one_line(g, k::LineShape::Gauss, k::Binning::Integrated, 20.0, 1050.13, alpha, 0);
    // The line reaches the bin centres nearest 1030.13 and 1070.13, 1030.0 .. 1070.0: the bins cover 1029.75 .. 1070.25.
    const double expected = k::gauss_fraction(1029.75 - 1050.13, 1070.25 - 1050.13, alpha);
    EXPECT_NEAR(area(s, g.step), expected, 1e-13) << "alpha " << alpha;
  }
  for (const double gamma : {0.01, 0.3, 2.0}) {
    const auto s = one_line(g, k::LineShape::Lorentz, k::Binning::Integrated, 20.0, 1050.13, 0, gamma);
    const double expected = (std::atan((1070.25 - 1050.13) / gamma) - std::atan((1029.75 - 1050.13) / gamma)) / M_PI;
    EXPECT_NEAR(area(s, g.step), expected, 1e-13) << "gamma " << gamma;
  }
}

// Voigt bins by quadrature: their sum against the trapezoid rule over the same range on a grid 140 times finer than
// the line (its error there is far below 1e-10 of the area: the profile is smooth and flat at the range's ends), for
// bins from 1/7 to 70 times the line's HWHM (0.07).
TEST(Xsec, IntegratedVoigtBinsMatchAFineSampledProfile) {
  const double alpha = 0.05, gamma = 0.03, nu0 = 1050.013;
  const k::XsecGrid fine{1037.5, 0.0005, 50001};  // 1037.5 .. 1062.5
  const auto f = one_line(fine, k::LineShape::Voigt, k::Binning::Sampled, 1e9, nu0, alpha, gamma);
  for (const double step : {0.01, 0.2, 5.0}) {
    const long long n = static_cast<long long>(std::llround(20.0 / step)) + 1;
    const k::XsecGrid g{1040.0, step, n};
    const auto s = one_line(g, k::LineShape::Voigt, k::Binning::Integrated, 1e9, nu0, alpha, gamma);
    // The bins cover 1040 - step/2 .. 1060 + step/2: fine points i0 .. i1.
    const long long i0 = std::llround((1040.0 - step / 2 - fine.start) / fine.step), i1 = std::llround((1060.0 + step / 2 - fine.start) / fine.step);
    double trap = 0;
    for (long long i = i0; i <= i1; ++i) trap += f[i] * fine.step * (i == i0 || i == i1 ? 0.5 : 1.0);
    EXPECT_NEAR(area(s, step), trap, 1e-10) << "step " << step;
  }
}

// The Voigt profile's limits: a vanishing Lorentz width leaves the Gaussian, a vanishing Gauss width the Lorentzian
// (to first order in the small width: relative 1e-9 and (alpha / gamma)^2 ~ 1e-6 at these widths).
TEST(Xsec, VoigtReducesToItsLimits) {
  for (double x : {0.0, 0.01, 0.05, 0.1, 0.2}) {
    EXPECT_NEAR(k::voigt_value(x, 0.07, 1e-12), k::gauss_value(x, 0.07), 1e-9 * k::gauss_value(0, 0.07)) << x;
    EXPECT_NEAR(k::voigt_value(x, 1e-3, 1.0), k::lorentz_value(x, 1.0), 2e-6 * k::lorentz_value(x, 1.0)) << x;
  }
}

// Sampled profiles against their closed forms at the grid points, and the cut-off: the line reaches the points nearest
// nu0 - cut and nu0 + cut and every one between (ExoCross's rule), no other.
TEST(Xsec, SampledProfilesAndTheCutoff) {
  const k::XsecGrid g{0.0, 0.1, 1001};  // 0 .. 100
  const double nu0 = 50.04, cut = 3.0;
  const auto s = one_line(g, k::LineShape::Gauss, k::Binning::Sampled, cut, nu0, 0.4, 0);
  const auto l = one_line(g, k::LineShape::Lorentz, k::Binning::Sampled, cut, nu0, 0, 0.4);
  const long long first = std::llround((nu0 - cut - g.start) / g.step), last = std::llround((nu0 + cut - g.start) / g.step);
  EXPECT_EQ(first, 470);  // 47.0, 3.04 from the centre: the nearest point to nu0 - cut
  for (long long i = 0; i < g.points; ++i) {
    const double x = g.start + i * g.step - nu0;
    if (i >= first && i <= last) {
      const double gauss = std::sqrt(std::log(2.0) / M_PI) / 0.4 * std::exp(-std::log(2.0) * x * x / 0.16), lorentz = 0.4 / M_PI / (x * x + 0.16);
      EXPECT_NEAR(s[i], gauss, 1e-13 * gauss) << i;  // the same formula arranged differently: exp(-t) with t up to 40
                                                     // carries t times the rounding of t
      EXPECT_NEAR(l[i], lorentz, 1e-14 * lorentz) << i;
    } else {
      EXPECT_EQ(s[i], 0.0) << i;
      EXPECT_EQ(l[i], 0.0) << i;
    }
  }
  // A line whose reach lies outside the grid touches nothing.
  const auto far = one_line(g, k::LineShape::Voigt, k::Binning::Sampled, cut, 200.0, 0.4, 0.1);
  for (double x : far) EXPECT_EQ(x, 0.0);
}

// Many lines through the engine (threads, private grids) equal the lines added one at a time.
TEST(Xsec, EngineSumsEveryLine) {
  const k::XsecGrid g{500.0, 0.01, 20001};
  k::XsecParams p;
  p.cutoff = 5.0;
  std::vector<double> nu, s, a, gm;
  for (int j = 0; j < 1000; ++j) {
    nu.push_back(490.0 + 220.0 * ((j * 7919) % 1000) / 1000.0);
    s.push_back(1e-20 * (1 + j % 13));
    a.push_back(0.002 + 0.001 * (j % 5));
    gm.push_back(0.05 + 0.01 * (j % 7));
  }
  for (const auto binning : {k::Binning::Sampled, k::Binning::Integrated}) {
    p.binning = binning;
    k::XsecEngine e(quanta::Backend::Cpu, g, p);
    k::XsecLines l{nu.size(), nu.data(), s.data(), a.data(), gm.data()};
    e.add(l);
    const auto got = e.result();
    std::vector<double> want(g.points, 0.0);
    for (std::size_t j = 0; j < nu.size(); ++j) {
      k::XsecLines one{1, &nu[j], &s[j], &a[j], &gm[j]};
      k::add_cross_sections_cpu(g, p, one, want.data());
    }
    double peak = 0, diff = 0;
    for (long long i = 0; i < g.points; ++i) {
      peak = std::max(peak, want[i]);
      diff = std::max(diff, std::abs(got[i] - want[i]));
    }
    EXPECT_LE(diff, 1e-13 * peak);  // the order of the additions only
    EXPECT_GT(peak, 0.0);
  }
}
