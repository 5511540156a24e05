// Pieces of HarmonicModel shared by the two force-constant readers.
#include "harmonic_model.hpp"

#include <algorithm>

namespace quanta::phonon {

void finish_model(HarmonicModel& m, const Crystal& c) {
  m.natoms = c.natoms;
  std::stable_sort(m.terms.begin(), m.terms.end(), [](const FcTerm& x, const FcTerm& y) {
    return x.a1 != y.a1 ? x.a1 < y.a1 : x.a2 < y.a2;
  });
  const int n = c.natoms;
  m.pair_offset.assign(n * n + 1, 0);
  for (const auto& t : m.terms) ++m.pair_offset[t.a1 * n + t.a2 + 1];
  for (int p = 0; p < n * n; ++p) m.pair_offset[p + 1] += m.pair_offset[p];
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) m.reciprocal[i][j] = c.reciprocal[i][j];
  m.tau.resize(3 * n);
  for (int a = 0; a < n; ++a)
    for (int k = 0; k < 3; ++k) m.tau[3 * a + k] = c.cartesian[a][k];
}

}  // namespace quanta::phonon
