// FORCE_CONSTANTS_3RD: the anharmonic force constants written by thirdorder.py, read as ShengBTE reads them.
#include <cmath>
#include <string>

#include "quanta/core/error.hpp"
#include "quanta/core/io/text_reader.hpp"
#include "quanta/phonon/force_constants.hpp"

namespace quanta::phonon {

ThirdOrderFc read_fc3(const std::filesystem::path& file, const Control& control) {
  if (!std::filesystem::exists(file))
    throw InputError(file.string(), "file not found (three-phonon scattering needs thirdorder.py's FORCE_CONSTANTS_3RD)");
  const Crystal& c = control.crystal;
  // Angstrom -> lattice coordinates: x = A^{-T} r with the rows of A the lattice vectors in nm.
  Mat3 at{};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) at[i][j] = c.lattice[j][i];
  const Mat3 at_inv = inverse(at);

  io::TextReader in(file.string());
  const long ntri = in.read_int("number of triplets");
  if (ntri < 1) in.fail("number of triplets", std::to_string(ntri), "a positive count");
  ThirdOrderFc fc;
  fc.triplets.resize(ntri);
  for (long t = 0; t < ntri; ++t) {
    auto& tr = fc.triplets[t];
    if (in.at_end()) in.fail("triplet " + std::to_string(t + 1), "end of file", std::to_string(ntri) + " triplets as the header says");
    const long index = in.read_int("triplet index");
    if (index != t + 1) in.fail("triplet index", std::to_string(index), std::to_string(t + 1) + " (triplets numbered in order)");
    for (int which = 0; which < 2; ++which) {
      const std::string field = which == 0 ? "cell vector of the second atom (A)" : "cell vector of the third atom (A)";
      Vec3 r{};
      for (double& x : r) x = 0.1 * in.read_real(field);  // A -> nm
      const Vec3 f = matvec(at_inv, r);
      int* cell = which == 0 ? tr.cell_j : tr.cell_k;
      for (int d = 0; d < 3; ++d) {
        const double n = std::nearbyint(f[d]);
        if (std::abs(f[d] - n) > 1e-3)
          in.fail(field, "fractional coordinates (" + std::to_string(f[0]) + ", " + std::to_string(f[1]) + ", " + std::to_string(f[2]) + ")",
                  "a lattice vector of CONTROL's lattvec*lfactor");
        cell[d] = static_cast<int>(n);
      }
    }
    for (int a = 0; a < 3; ++a) {
      const long atom = in.read_int("atom index");
      if (atom < 1 || atom > c.natoms) in.fail("atom index", std::to_string(atom), "1.." + std::to_string(c.natoms) + " (natoms in CONTROL)");
      tr.atom[a] = static_cast<int>(atom - 1);
    }
    for (int e = 0; e < 27; ++e) {
      long idx[3];
      for (long& x : idx) {
        x = in.read_int("Cartesian index");
        if (x < 1 || x > 3) in.fail("Cartesian index", std::to_string(x), "1, 2 or 3");
      }
      tr.phi[(idx[0] - 1) * 9 + (idx[1] - 1) * 3 + (idx[2] - 1)] = in.read_real("force constant (eV/A^3)");
    }
  }
  if (!in.at_end()) in.fail("end of file", "more data after " + std::to_string(ntri) + " triplets", "the end of the file");
  return fc;
}

}  // namespace quanta::phonon
