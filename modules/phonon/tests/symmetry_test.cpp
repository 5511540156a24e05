// The built-in space-group finder agrees with spglib, and the mesh reduction is consistent.
#include <algorithm>
#include <set>

#include "quanta/phonon/control.hpp"
#include "quanta/phonon/qgrid.hpp"
#include "quanta/phonon/symmetry.hpp"
#include "test_support.hpp"

namespace quanta::phonon::test {
namespace {

TEST(Symmetry, BuiltInFinderMatchesSpglibOnSilicon) {
  const Control ctl = si_control();
  const SymmetryInfo builtin = find_symmetry_builtin(ctl.crystal);
  EXPECT_EQ(builtin.operations.size(), 48u);  // Fd-3m, primitive cell
  EXPECT_EQ(builtin.rotations.size(), 48u);
  if (!spglib_available()) GTEST_SKIP() << "built without spglib";
  const SymmetryInfo spg = find_symmetry(ctl.crystal);
  std::set<std::array<std::array<int, 3>, 3>> a(builtin.rotations.begin(), builtin.rotations.end()),
      b(spg.rotations.begin(), spg.rotations.end());
  EXPECT_EQ(a, b);
}

TEST(Symmetry, MeshClassesPartitionTheMesh) {
  const Control ctl = si_control();
  const QGrid g = build_qgrid({6, 6, 6}, find_symmetry_builtin(ctl.crystal));
  int total = 0;
  for (int m : g.multiplicity) total += m;
  EXPECT_EQ(total, g.nptk);
  EXPECT_TRUE(std::is_sorted(g.irreducible.begin(), g.irreducible.end()));
  for (int c = 0; c < g.nlist(); ++c) EXPECT_EQ(g.class_of[g.irreducible[c]], c);
}

}  // namespace
}  // namespace quanta::phonon::test
