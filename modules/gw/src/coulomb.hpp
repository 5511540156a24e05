#pragma once
// The bare Coulomb interaction of bulk crystals (no truncation), v(q+G) = 8 pi / |q+G|^2 (Ry bohr^3),
// averaged over the mini Brillouin zone around each q of the grid as BerkeleyGW does for semiconductors:
// a fixed Monte-Carlo point set in the Wigner-Seitz cell of the q-grid (MT19937 seeded with 5000,
// 3 N discarded draws, N = 2.5e6 points), <8 pi / |q+G+dq|^2> over the first
// n(q+G) = nint(2.5e5 * 4 q0^2 / |q+G|^2) points (1 <= n <= N); at q+G = 0 the average is the Monte-Carlo
// sum outside the sphere inscribed in the cell plus the exact integral inside it.
#include <vector>

#include "quanta/gw/mean_field.hpp"

namespace quanta::gw {

// The shortest image r - n of a crystal-coordinate point over the integer vectors n in [-2, 3]^3 (BerkeleyGW's
// range for the Wigner-Seitz folding), the first in loop order (n1, then n2, then n3 ascending) on a tie.
Vec3 shortest_image(const Crystal& crystal, const Vec3& r);

// The point set before folding: N = 2.5e6 uniform triples in [0, 1]^3 from MT19937 seeded with 5000 after 3 N discarded
// draws, the same for every crystal. Drawing them is serial (about 0.09 s); they are made once per process, in the
// background from the first call of prefetch_mini_zone_points() (a run starts it before Epsilon), and
// mini_zone_uniform_points() waits for them.
void prefetch_mini_zone_points();
const std::vector<Vec3>& mini_zone_uniform_points();

class MiniBzAverage {
 public:
  MiniBzAverage(const Crystal& crystal, const Vec3i& qgrid, int npoints = 2500000);

  // <8 pi / |q + G + dq|^2>, q + G in crystal coordinates.
  double v(const Vec3& qg) const;
  // The q + G = 0 value.
  double v0() const { return v0_; }
  // 8 pi <1 / |q + dq|> over all points (the wings' factor).
  double one_over_q(const Vec3& q) const;
  double q0_sphere2() const { return q0sph2_; }

 private:
  const Crystal& crystal_;
  std::vector<Vec3> points_;  // [N] crystal coordinates within the q-grid's Wigner-Seitz cell
  double q0sph2_ = 0;         // squared radius of the sphere inscribed in the cell, bohr^-2
  double v0_ = 0;
};

}  // namespace quanta::gw
