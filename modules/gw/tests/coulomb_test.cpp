// The Wigner-Seitz folding of the mini-zone averages (src/coulomb.hpp): shortest_image skips the images that
// cannot win, and must pick exactly the image the full loop over n in [-2, 3]^3 picks, tie order included.
// Checked on silicon's reciprocal metric (from the example's WFN), a strongly sheared triclinic one and a
// long orthorhombic one, on random points of the cell and on its corners and face centres (ties).
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "../src/coulomb.hpp"
#include "quanta/gw/mean_field.hpp"
#include "quanta/test/data.hpp"

using namespace quanta;
using namespace quanta::gw;

namespace {

Vec3 full_loop(const Crystal& c, const Vec3& r) {
  Vec3 best = r;
  double lbest = c.norm2(r);
  for (int i1 = -2; i1 <= 3; ++i1)
    for (int i2 = -2; i2 <= 3; ++i2)
      for (int i3 = -2; i3 <= 3; ++i3) {
        const Vec3 t{r[0] - i1, r[1] - i2, r[2] - i3};
        if (c.norm2(t) < lbest) lbest = c.norm2(t), best = t;
      }
  return best;
}

Crystal with_metric(const std::array<double, 9>& bdot) {
  Crystal c;
  c.bdot = bdot;
  return c;
}

}  // namespace

TEST(GwCoulomb, ShortestImageIsTheFullLoopsChoice) {
  const auto si = read_wfn_header(quanta::test::data_path("gw/si-bgw/mean-field/04-wfn_co/WFN_co"));
  std::vector<Crystal> crystals = {si.crystal, with_metric({1.0, 0.9, 0.5, 0.9, 1.0, 0.7, 0.5, 0.7, 1.0}),
                                   with_metric({0.04, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 9.0})};
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> u(0, 1);
  for (std::size_t ic = 0; ic < crystals.size(); ++ic) {
    std::vector<Vec3> points;
    for (int i = 0; i < 200000; ++i) points.push_back({u(rng), u(rng), u(rng)});
    for (double a : {0.0, 0.5})
      for (double b : {0.0, 0.5})
        for (double c : {0.0, 0.5}) points.push_back({a, b, c});
    int differ = 0;
    for (const auto& r : points) {
      const Vec3 x = shortest_image(crystals[ic], r), y = full_loop(crystals[ic], r);
      differ += x != y;
    }
    EXPECT_EQ(differ, 0) << "crystal " << ic;
  }
}
