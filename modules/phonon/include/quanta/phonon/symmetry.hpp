#pragma once
#include <array>
#include <string>
#include <vector>

#include "quanta/phonon/crystal.hpp"

namespace quanta::phonon {

// A space-group operation in lattice coordinates: x' = rotation x + translation (spglib's convention).
struct SymmetryOp {
  std::array<std::array<int, 3>, 3> rotation{};
  Vec3 translation{};
};

struct SymmetryInfo {
  std::vector<SymmetryOp> operations;                        // space-group operations
  std::vector<std::array<std::array<int, 3>, 3>> rotations;  // distinct point-group rotations
  std::string finder;                                        // "spglib x.y.z" or "built-in"
};

// Space-group operations of the crystal. Uses spglib when quanta was built with it, else the built-in
// finder (lattice point group by metric invariance, then the translations that map the atoms onto
// themselves). `symprec` is a Cartesian distance in nm. Both give the same set (tested).
SymmetryInfo find_symmetry(const Crystal& c, double symprec = 1e-5);
SymmetryInfo find_symmetry_builtin(const Crystal& c, double symprec = 1e-5);
bool spglib_available();

}  // namespace quanta::phonon
