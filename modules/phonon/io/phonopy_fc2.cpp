// FORCE_CONSTANTS_2ND: phonopy's full force-constant file (eV/A^2) on the scell(1) x scell(2) x scell(3)
// supercell, read as ShengBTE reads it.
#include <cmath>
#include <string>

#include "../src/harmonic_model.hpp"
#include "quanta/core/error.hpp"
#include "quanta/core/io/text_reader.hpp"
#include "quanta/core/units.hpp"
#include "quanta/phonon/force_constants.hpp"

namespace quanta::phonon {

HarmonicModel read_phonopy_fc2(const std::filesystem::path& file, const Control& control) {
  if (!std::filesystem::exists(file))
    throw InputError(file.string(), "file not found (espresso=.false. in CONTROL asks for phonopy's FORCE_CONSTANTS_2ND)");
  const Crystal& c = control.crystal;
  const int nat = c.natoms;
  const auto& s = control.scell;
  const int ncell = s[0] * s[1] * s[2];
  const long ntot = static_cast<long>(ncell) * nat;

  io::TextReader in(file.string());
  const long n_file = in.read_int("number of supercell atoms");
  if (n_file != ntot)
    in.fail("number of supercell atoms", std::to_string(n_file),
            std::to_string(ntot) + " = scell(1)*scell(2)*scell(3)*natoms from CONTROL");
  in.read_rest_of_line();  // newer phonopy writes "N N"; only the full (square) form is read
  // The ntot^2 blocks each take at least "i j" and nine values (11 tokens, 22 bytes). Checked against the file's
  // size before the table is allocated from CONTROL's sizes, so a file too short for them is refused as such.
  const double min_bytes = 22.0 * static_cast<double>(ntot) * static_cast<double>(ntot);
  std::error_code ec;
  const auto file_bytes = std::filesystem::file_size(file, ec);
  if (ec || static_cast<double>(file_bytes) < min_bytes)
    in.fail("force-constant blocks", "a file of " + std::to_string(ec ? 0 : file_bytes) + " bytes",
            std::to_string(ntot * ntot) + " blocks (" + std::to_string(ntot) + " supercell atoms squared), at least " +
                std::to_string(static_cast<long>(min_bytes)) + " bytes");

  // fc[a_first][j][cell][a_second][i]: atom a_first in cell 0, atom a_second in `cell`; phonopy numbers the
  // supercell atoms with the cell index running fastest (x, then y, then z) and the primitive atom slowest.
  std::vector<double> fc(static_cast<std::size_t>(nat) * 3 * ncell * nat * 3, 0.0);
  auto at = [&](int af, int j, int cell, int as, int i) -> double& {
    return fc[(((static_cast<std::size_t>(af) * 3 + j) * ncell + cell) * nat + as) * 3 + i];
  };
  for (long b = 0; b < ntot * ntot; ++b) {
    if (in.at_end())
      in.fail("force-constant block", "end of file after " + std::to_string(b) + " blocks", std::to_string(ntot * ntot) + " blocks");
    const long i1 = in.read_int("atom 1"), i2 = in.read_int("atom 2");
    if (i1 < 1 || i1 > ntot || i2 < 1 || i2 > ntot)
      in.fail("atom indices", std::to_string(i1) + " " + std::to_string(i2), "1.." + std::to_string(ntot));
    double block[3][3];
    for (auto& row : block)
      for (double& v : row) v = in.read_real("force constant");
    const long k1 = i1 - 1, k2 = i2 - 1;
    if (k1 % ncell != 0) continue;  // keep the rows whose first atom sits in cell (0,0,0)
    for (int j = 0; j < 3; ++j)
      for (int i = 0; i < 3; ++i) at(static_cast<int>(k1 / ncell), j, static_cast<int>(k2 % ncell), static_cast<int>(k2 / ncell), i) = block[j][i];
  }

  HarmonicModel m;
  const double unit = units::shengbte::eV_per_A2_amu;
  const double tol = double(1e-5f);  // nm, ShengBTE's tie tolerance for equidistant images
  for (int a1 = 0; a1 < nat; ++a1)
    for (int a2 = 0; a2 < nat; ++a2) {
      const double mm = std::sqrt(c.masses[a1] * c.masses[a2]);
      for (int cell = 0; cell < ncell; ++cell) {
        const int ix = cell % s[0], iy = (cell / s[0]) % s[1], iz = cell / (s[0] * s[1]);
        double R[3], r[3];
        for (int k = 0; k < 3; ++k) {
          R[k] = ix * c.lattice[0][k] + iy * c.lattice[1][k] + iz * c.lattice[2][k];
          r[k] = c.cartesian[a1][k] - c.cartesian[a2][k] + R[k];
        }
        // Minimum-image set of r among the supercell translations, with ShengBTE's sequential tie rule.
        std::vector<std::array<double, 3>> images;
        double dmin = 1e300;
        for (int n1 = -2; n1 <= 2; ++n1)
          for (int n2 = -2; n2 <= 2; ++n2)
            for (int n3 = -2; n3 <= 2; ++n3) {
              double rl[3], d2 = 0;
              for (int k = 0; k < 3; ++k) {
                rl[k] = n1 * s[0] * c.lattice[0][k] + n2 * s[1] * c.lattice[1][k] + n3 * s[2] * c.lattice[2][k];
                d2 += (rl[k] + r[k]) * (rl[k] + r[k]);
              }
              const double d = std::sqrt(d2);
              if (std::abs(d - dmin) > tol) {
                if (d < dmin) {
                  images.clear();
                  images.push_back({rl[0] + R[0], rl[1] + R[1], rl[2] + R[2]});
                  dmin = d;
                }
              } else {
                images.push_back({rl[0] + R[0], rl[1] + R[1], rl[2] + R[2]});
              }
            }
        const double w = 1.0 / images.size();
        for (const auto& img : images) {
          FcTerm term;
          term.a1 = a1, term.a2 = a2, term.weight = w;
          for (int k = 0; k < 3; ++k) term.r[k] = img[k];
          for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) term.block[i][j] = at(a2, j, cell, a1, i) * unit / mm * w;
          m.terms.push_back(term);
        }
      }
    }

  if (control.nonanalytic) {
    m.nac = NacKind::MixedSpace;
    m.ncell = ncell;
    m.nac_prefactor = units::shengbte::e2_over_eps0 / c.volume / ncell;
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) m.epsilon[i][j] = c.epsilon[i][j];
    m.zeff.resize(9 * nat);  // phonopy path: q is contracted with the first index of born(:,:,atom)
    for (int a = 0; a < nat; ++a)
      for (int x = 0; x < 3; ++x)
        for (int p = 0; p < 3; ++p) m.zeff[9 * a + 3 * x + p] = c.born[a][x][p];
    m.inv_sqrt_mass.resize(nat);
    for (int a = 0; a < nat; ++a) m.inv_sqrt_mass[a] = 1.0 / std::sqrt(c.masses[a]);
  }
  finish_model(m, c);
  return m;
}

}  // namespace quanta::phonon
