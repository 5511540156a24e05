#include "quanta/phonon/qgrid.hpp"

#include <limits>

#include "quanta/core/error.hpp"

namespace quanta::phonon {

int QGrid::index(int i, int j, int k) const {
  i = ((i % n[0]) + n[0]) % n[0];
  j = ((j % n[1]) + n[1]) % n[1];
  k = ((k % n[2]) + n[2]) % n[2];
  return i + n[0] * (j + n[1] * k);
}

QGrid build_qgrid(const std::array<int, 3>& n, const SymmetryInfo& sym, int* dropped) {
  for (int d = 0; d < 3; ++d)
    if (n[d] <= 0) throw Error("q-mesh: ngrid(" + std::to_string(d + 1) + ") = " + std::to_string(n[d]) + ", expected a positive integer");
  if (static_cast<long long>(n[0]) * n[1] * n[2] > std::numeric_limits<int>::max())
    throw Error("q-mesh: " + std::to_string(n[0]) + "x" + std::to_string(n[1]) + "x" + std::to_string(n[2]) +
                " holds more than " + std::to_string(std::numeric_limits<int>::max()) + " points (32-bit q-point indices)");
  QGrid g;
  g.n = n;
  g.nptk = n[0] * n[1] * n[2];
  g.qfrac.resize(g.nptk);
  for (int k = 0; k < n[2]; ++k)
    for (int j = 0; j < n[1]; ++j)
      for (int i = 0; i < n[0]; ++i) g.qfrac[g.index(i, j, k)] = {double(i) / n[0], double(j) / n[1], double(k) / n[2]};

  // q in lattice coordinates transforms with W^{-T}; over a group the set {W^{-T}} equals {W^T}. On the
  // mesh, q_i = m_i / n_i, so W^T maps it onto the mesh iff sum_j W_ji m_j n_i / n_j is an integer for
  // every m: W_ji n_i / n_j must be an integer whenever W_ji != 0.
  std::vector<std::array<std::array<int, 3>, 3>> usable;
  for (const auto& w : sym.rotations) {
    bool ok = true;
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j)
        if (w[j][i] != 0 && (w[j][i] * n[i]) % n[j] != 0) ok = false;
    if (ok) usable.push_back(w);
  }
  if (dropped) *dropped = static_cast<int>(sym.rotations.size() - usable.size());

  g.class_of.assign(g.nptk, -1);
  for (int ll = 0; ll < g.nptk; ++ll) {
    if (g.class_of[ll] >= 0) continue;
    const int cls = g.nlist();
    g.irreducible.push_back(ll);
    int count = 0;
    const int m[3] = {ll % n[0], (ll / n[0]) % n[1], ll / (n[0] * n[1])};
    for (const auto& w : usable) {
      int img[3];
      for (int i = 0; i < 3; ++i) {
        long s = 0;  // (W^T q)_i in units of 1/n_i
        for (int j = 0; j < 3; ++j) s += static_cast<long>(w[j][i]) * m[j] * n[i] / n[j];
        img[i] = static_cast<int>(s);
      }
      for (int sign : {1, -1}) {
        const int idx = g.index(sign * img[0], sign * img[1], sign * img[2]);
        if (g.class_of[idx] < 0) {
          g.class_of[idx] = cls;
          ++count;
        } else if (g.class_of[idx] != cls) {
          throw Error("q-mesh: symmetry orbits overlap (inconsistent symmetry operations)");
        }
      }
    }
    g.multiplicity.push_back(count);
  }
  return g;
}

}  // namespace quanta::phonon
