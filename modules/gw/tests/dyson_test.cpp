// The self-consistent solution of an energy-dependent eigenvalue problem (src/dyson.hpp) against a closed form:
// H(E) = diag(a1, a2) + E diag(b1, b2) + c (off the diagonal) is linear in E, so its linear interpolation on any
// grid is exact, and E = lambda_i(H(E)) means det(H(E) - E) = 0, a quadratic in E.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "../src/dyson.hpp"

using namespace quanta;
using namespace quanta::gw;

namespace {

struct Linear2 {
  double a1 = -1.3, a2 = 2.1, b1 = -0.25, b2 = -0.4, c = 0.35;
  // Grid tables: h0 = diag(a1, a2) + c off the diagonal; s(w) = w diag(b1, b2).
  void tables(const std::vector<double>& omega, std::vector<cplx>& h0, std::vector<cplx>& s) const {
    h0 = {cplx(a1), cplx(c), cplx(c), cplx(a2)};
    s.clear();
    for (double w : omega) s.insert(s.end(), {cplx(b1 * w), cplx(), cplx(), cplx(b2 * w)});
  }
  std::vector<double> roots() const {  // (a1 + (b1 - 1) E)(a2 + (b2 - 1) E) - c^2 = 0, increasing
    const double qa = (b1 - 1) * (b2 - 1), qb = a1 * (b2 - 1) + a2 * (b1 - 1), qc = a1 * a2 - c * c;
    const double d = std::sqrt(qb * qb - 4 * qa * qc);
    const double r1 = (-qb - d) / (2 * qa), r2 = (-qb + d) / (2 * qa);
    return {std::min(r1, r2), std::max(r1, r2)};
  }
};

std::vector<double> uniform(double lo, double hi, int n) {
  std::vector<double> w(n);
  for (int j = 0; j < n; ++j) w[j] = lo + (hi - lo) * j / (n - 1);
  return w;
}

}  // namespace

TEST(GwDyson, LinearTwoLevelProblemHasItsClosedFormRoots) {
  const Linear2 p;
  const auto exact = p.roots();
  for (int nw : {2, 7, 40}) {
    const auto omega = uniform(-4.0, 5.0, nw);
    std::vector<cplx> h0, s;
    p.tables(omega, h0, s);
    const auto r = dyson_self_consistent(2, h0, omega, s, 1e-10);
    ASSERT_TRUE(r.failure.empty()) << r.failure;
    for (int i = 0; i < 2; ++i) {
      EXPECT_NEAR(r.energies[i].re, exact[i], 1e-9) << "nw " << nw << ", root " << i;
      EXPECT_NEAR(r.energies[i].im, 0.0, 1e-12);
      EXPECT_LE(r.iterations[i], 100);
    }
  }
}

TEST(GwDyson, ASolutionOutsideTheGridIsReported) {
  const Linear2 p;
  const auto omega = uniform(-0.5, 0.5, 5);  // both roots lie outside (about -1.1 and 1.4)
  std::vector<cplx> h0, s;
  p.tables(omega, h0, s);
  const auto r = dyson_self_consistent(2, h0, omega, s);
  EXPECT_NE(r.failure.find("no solution within the grid"), std::string::npos) << r.failure;
}
