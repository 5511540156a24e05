#pragma once
// Shared by the tests against TROVE's SiH2 line list: the line list computed on one backend and its
// comparison with TROVE's full transition table (153,368 lines).
//
// Tolerances: TROVE prints 9 significant digits (5e-9 relative) and uses the constants of its
// accuracy.f90 rounded to single precision; quanta uses the same rounded values (units::trove), so the
// remaining difference is print rounding plus the order of summation (~1e-12). 1e-7 is the bound.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "../kernels/linestrength.hpp"
#include "quanta/linelist/linelist.hpp"
#include "test_support.hpp"

namespace linelist_test {

using namespace quanta::linelist;

struct Computed {
  IntensityInput input;
  Levels levels;
  LineList list;
};

// Small groups: at most `group` lower states and `chunk` upper vectors at a time, no upper vectors
// cached on the host (all re-read from the checkpoints): the streamed path of a large calculation.
struct Streaming {
  int group = 0, chunk = 0;
  bool cache_uppers = true;
};

inline Computed compute(quanta::Backend backend, Method method, int dipole_blocks = 0, Streaming streaming = {}) {
  Computed c;
  c.input = read_trove_input(input_file());
  c.levels = read_levels(checkpoints(), c.input);
  const DipoleMatrices dipole = read_dipole_matrices(checkpoints() / "j0_extfield.chk");
  LineListOptions o;
  o.backend = backend;
  o.quiet = true;
  if (!streaming.cache_uppers) o.upper_cache_bytes = 0;
  EngineOptions eo;
  eo.method = method;
  eo.dipole_blocks = dipole_blocks;
  eo.max_lower_states = streaming.group;
  eo.max_upper_chunk = streaming.chunk;
  c.list = compute_linelist(c.levels, c.input, dipole, o, eo);
  return c;
}

inline void expect_matches_trove(const Computed& c) {
  const auto table = trove_table();
  ASSERT_EQ(table.size(), 153368u);
  ASSERT_EQ(c.list.transitions.size(), table.size());
  double worst_nu = 0, worst_S = 0, worst_A = 0, worst_I = 0, worst_amp = 0;
  for (const Transition& t : c.list.transitions) {
    const Level& u = c.levels.levels[t.upper];
    const Level& l = c.levels.levels[t.lower];
    const auto it = table.find({u.J, u.gamma, u.root.level, l.J, l.gamma, l.root.level});
    ASSERT_NE(it, table.end()) << "transition not in TROVE's table: J " << u.J << " G " << u.gamma << " n " << u.root.level << " <- J "
                               << l.J << " G " << l.gamma << " n " << l.root.level;
    const TroveLine& r = it->second;
    worst_nu = std::max(worst_nu, std::abs(t.wavenumber - r.wavenumber));  // printed with 4 decimals in the table
    worst_S = std::max(worst_S, std::abs(t.linestrength / r.S - 1));
    worst_A = std::max(worst_A, std::abs(t.einstein_a / r.A - 1));
    worst_I = std::max(worst_I, std::abs(t.intensity / r.I - 1));
    worst_amp = std::max(worst_amp, std::abs(t.amplitude / r.amplitude - 1));  // the sign too
  }
  EXPECT_LT(worst_nu, 0.5e-4 + 1e-9);  // the table's f11.4
  EXPECT_LT(worst_S, 1e-7);
  EXPECT_LT(worst_A, 1e-7);
  EXPECT_LT(worst_I, 1e-7);
  EXPECT_LT(worst_amp, 1e-7);
  std::printf("worst relative differences from TROVE's table: S %.2e, A %.2e, I %.2e, amplitude %.2e; |dnu| %.2e cm-1\n", worst_S,
              worst_A, worst_I, worst_amp, worst_nu);
}

}  // namespace linelist_test
