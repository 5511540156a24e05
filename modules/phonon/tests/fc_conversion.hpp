#pragma once
// Writes phonopy's FORCE_CONSTANTS_2ND for a crystal whose force constants come from espresso.ifc2, so the
// two readers can be compared on the same physics.
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "quanta/core/units.hpp"
#include "quanta/phonon/force_constants.hpp"

namespace quanta::phonon::test {

inline void write_phonopy_from_espresso(const std::filesystem::path& ifc2, const Control& control, const std::filesystem::path& out) {
  namespace su = units::shengbte;
  const std::vector<double> fc = read_espresso_supercell_fc(ifc2, control);  // Ry/bohr^2, sum rule applied
  const int nat = control.crystal.natoms;
  const auto s = control.scell;
  const int ncell = s[0] * s[1] * s[2];
  // Ry/bohr^2 -> eV/A^2 with ShengBTE's constants, so both paths give the same (rad/ps)^2.
  const double conv = su::rydberg_to_rad_per_ps * su::rydberg_to_rad_per_ps / su::amu_to_ry_mass / su::eV_per_A2_amu;
  auto at = [&](int i, int j, int a1, int a2, int t1, int t2, int t3) {
    return fc[(((((i * 3 + j) * nat + a1) * nat + a2) * s[0] + t1) * s[1] + t2) * s[2] + t3];
  };
  FILE* f = std::fopen(out.c_str(), "w");
  const int ntot = ncell * nat;
  std::fprintf(f, "%d %d\n", ntot, ntot);
  for (int k1 = 0; k1 < ntot; ++k1)
    for (int k2 = 0; k2 < ntot; ++k2) {
      const int jat = k1 / ncell, c1 = k1 % ncell, iat = k2 / ncell, c2 = k2 % ncell;
      const int x1 = c1 % s[0], y1 = (c1 / s[0]) % s[1], z1 = c1 / (s[0] * s[1]);
      const int x2 = c2 % s[0], y2 = (c2 / s[0]) % s[1], z2 = c2 / (s[0] * s[1]);
      const int t1 = ((x2 - x1) % s[0] + s[0]) % s[0], t2 = ((y2 - y1) % s[1] + s[1]) % s[1], t3 = ((z2 - z1) % s[2] + s[2]) % s[2];
      std::fprintf(f, "%d %d\n", k1 + 1, k2 + 1);
      for (int jp = 0; jp < 3; ++jp)
        std::fprintf(f, "%.16e %.16e %.16e\n", at(0, jp, iat, jat, t1, t2, t3) * conv, at(1, jp, iat, jat, t1, t2, t3) * conv,
                     at(2, jp, iat, jat, t1, t2, t3) * conv);
    }
  std::fclose(f);
}

}  // namespace quanta::phonon::test
