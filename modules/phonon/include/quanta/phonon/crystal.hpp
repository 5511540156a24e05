#pragma once
#include <array>
#include <string>
#include <vector>

namespace quanta::phonon {

using Vec3 = std::array<double, 3>;
using Mat3 = std::array<std::array<double, 3>, 3>;  // Mat3[i] is row i

// The unit cell as ShengBTE describes it, in nm (lattice vectors are lfactor * lattvec).
struct Crystal {
  Mat3 lattice{};      // lattice[i] = a_i, Cartesian, nm
  Mat3 reciprocal{};   // reciprocal[i] = b_i with a_i . b_j = 2 pi delta_ij, nm^-1
  double volume = 0;   // nm^3
  int natoms = 0;
  std::vector<std::string> elements;  // [nelements]
  std::vector<int> types;              // [natoms], 0-based index into elements
  std::vector<Vec3> fractional;        // [natoms] positions in lattice coordinates
  std::vector<Vec3> cartesian;         // [natoms] positions, nm
  std::vector<double> masses;          // [natoms] amu
  // Non-analytic correction data (zero when absent).
  Mat3 epsilon{};                      // high-frequency dielectric tensor
  std::vector<Mat3> born;              // [natoms] Born effective charges Z*_{alpha beta}(atom)

  int nbands() const { return 3 * natoms; }
};

// Fills reciprocal, volume and cartesian from lattice and fractional; throws Error on a singular cell.
void complete_crystal(Crystal& c);

Mat3 inverse(const Mat3& m);
double determinant(const Mat3& m);
Vec3 matvec(const Mat3& m, const Vec3& v);
Vec3 frac_to_cart(const Crystal& c, const Vec3& frac);           // sum_i frac_i a_i
Vec3 qfrac_to_cart(const Crystal& c, const Vec3& qfrac);         // sum_i q_i b_i

}  // namespace quanta::phonon
