#pragma once
#include <array>
#include <vector>

#include "quanta/phonon/crystal.hpp"
#include "quanta/phonon/symmetry.hpp"

namespace quanta::phonon {

// The full Gamma-centred q-mesh and its irreducible wedge, with ShengBTE's conventions: point ll has
// grid coordinates (i, j, k), ll = i + n1 (j + n2 k) (first index fastest), q = (i/n1, j/n2, k/n3) in
// reciprocal-lattice coordinates. Two points are equivalent when a point-group rotation, possibly combined
// with time reversal (q -> -q), maps one onto the other. Classes are numbered in the order of their
// first (lowest-index) member, which is the class representative.
struct QGrid {
  std::array<int, 3> n{};
  int nptk = 0;
  std::vector<Vec3> qfrac;          // [nptk] fractional coordinates in [0,1)
  std::vector<int> irreducible;     // [nlist] index of each class representative in the full grid
  std::vector<int> multiplicity;    // [nlist] number of grid points in the class (ShengBTE's nequi)
  std::vector<int> class_of;        // [nptk] class of each grid point

  int nlist() const { return static_cast<int>(irreducible.size()); }
  int index(int i, int j, int k) const;  // wraps each coordinate into [0, n)
};

// Rotations that do not map the mesh onto itself (a mesh that breaks the crystal's symmetry) are left
// out of the equivalence; the number left out is reported through `dropped` when given.
QGrid build_qgrid(const std::array<int, 3>& n, const SymmetryInfo& sym, int* dropped = nullptr);

}  // namespace quanta::phonon
