#pragma once
// Random inputs for the engine parity tests: symmetric dipole matrices, and the relative difference of two
// results measured against the largest element of the reference.
#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "../kernels/linestrength.hpp"

namespace linelist_test {

using namespace quanta::linelist;

inline RotVibBasis top(int J, int nvib) { return symmetric_top_basis(J, nvib); }

// Three random symmetric n x n matrices.
inline DipoleMatrices random_dipole(int n, std::mt19937_64& rng) {
  std::normal_distribution<double> g;
  DipoleMatrices d;
  d.n = n;
  d.mu.resize(3 * std::size_t(n) * n);
  for (int a = 0; a < 3; ++a)
    for (int i = 0; i < n; ++i)
      for (int j = 0; j <= i; ++j) d.mu[(std::size_t(a) * n + i) * n + j] = d.mu[(std::size_t(a) * n + j) * n + i] = g(rng);
  return d;
}

inline double rel_diff(const std::vector<double>& a, const std::vector<double>& b) {
  double m = 0, s = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    m = std::max(m, std::abs(a[i] - b[i]));
    s = std::max(s, std::abs(b[i]));
  }
  return m / s;
}

}  // namespace linelist_test
