#include "quanta/phonon/crystal.hpp"

#include <cmath>

#include "quanta/core/error.hpp"
#include "quanta/core/units.hpp"

namespace quanta::phonon {

double determinant(const Mat3& m) {
  return m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
         m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
}

Mat3 inverse(const Mat3& m) {
  const double det = determinant(m);
  QUANTA_REQUIRE(std::abs(det) > 1e-300, "singular 3x3 matrix");
  Mat3 r{};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      const int i1 = (j + 1) % 3, i2 = (j + 2) % 3, j1 = (i + 1) % 3, j2 = (i + 2) % 3;
      r[i][j] = (m[i1][j1] * m[i2][j2] - m[i1][j2] * m[i2][j1]) / det;
    }
  return r;
}

Vec3 matvec(const Mat3& m, const Vec3& v) {
  Vec3 r{};
  for (int i = 0; i < 3; ++i) r[i] = m[i][0] * v[0] + m[i][1] * v[1] + m[i][2] * v[2];
  return r;
}

Vec3 frac_to_cart(const Crystal& c, const Vec3& f) {
  Vec3 r{};
  for (int i = 0; i < 3; ++i)
    for (int a = 0; a < 3; ++a) r[a] += f[i] * c.lattice[i][a];
  return r;
}

Vec3 qfrac_to_cart(const Crystal& c, const Vec3& q) {
  Vec3 r{};
  for (int i = 0; i < 3; ++i)
    for (int a = 0; a < 3; ++a) r[a] += q[i] * c.reciprocal[i][a];
  return r;
}

void complete_crystal(Crystal& c) {
  c.volume = std::abs(determinant(c.lattice));
  if (!(c.volume > 0)) throw Error("the lattice vectors are linearly dependent (cell volume is zero)");
  // b_j = 2 pi (A^-1)_{:, j} with A[i] = a_i as rows: a_i . b_j = 2 pi delta_ij.
  const Mat3 inv = inverse(c.lattice);
  for (int j = 0; j < 3; ++j)
    for (int a = 0; a < 3; ++a) c.reciprocal[j][a] = 2.0 * units::pi * inv[a][j];
  c.cartesian.resize(c.fractional.size());
  for (std::size_t i = 0; i < c.fractional.size(); ++i) c.cartesian[i] = frac_to_cart(c, c.fractional[i]);
  if (c.born.empty()) c.born.assign(c.natoms, Mat3{});
}

}  // namespace quanta::phonon
