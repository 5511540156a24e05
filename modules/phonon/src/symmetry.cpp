#include "quanta/phonon/symmetry.hpp"

#include <algorithm>
#include <cmath>
#include <set>

#include "quanta/core/error.hpp"

#ifdef QUANTA_HAVE_SPGLIB
#include <spglib.h>
#endif

namespace quanta::phonon {
namespace {

using IMat3 = std::array<std::array<int, 3>, 3>;

// Cartesian length of a fractional displacement after wrapping each component into [-0.5, 0.5).
double wrapped_distance(const Crystal& c, Vec3 d) {
  for (double& x : d) x -= std::floor(x + 0.5);
  const Vec3 r = frac_to_cart(c, d);
  return std::sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2]);
}

// Point-group rotations of the lattice: integer W with W^T G W = G for the metric G = A A^T.
std::vector<IMat3> lattice_point_group(const Crystal& c, double symprec) {
  Mat3 g{};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      for (int a = 0; a < 3; ++a) g[i][j] += c.lattice[i][a] * c.lattice[j][a];
  const double scale = std::max({g[0][0], g[1][1], g[2][2]});
  // Entries of W in {-2..2} cover every reduced and mildly non-reduced cell.
  std::vector<IMat3> out;
  IMat3 w{};
  for (int code = 0; code < 1953125; ++code) {  // 5^9
    int x = code;
    for (int k = 0; k < 9; ++k) {
      w[k / 3][k % 3] = x % 5 - 2;
      x /= 5;
    }
    const int det = w[0][0] * (w[1][1] * w[2][2] - w[1][2] * w[2][1]) - w[0][1] * (w[1][0] * w[2][2] - w[1][2] * w[2][0]) +
                    w[0][2] * (w[1][0] * w[2][1] - w[1][1] * w[2][0]);
    if (det != 1 && det != -1) continue;
    bool ok = true;
    for (int i = 0; i < 3 && ok; ++i)
      for (int j = 0; j < 3 && ok; ++j) {
        double s = 0;  // (W^T G W)_ij
        for (int k = 0; k < 3; ++k)
          for (int l = 0; l < 3; ++l) s += w[k][i] * g[k][l] * w[l][j];
        ok = std::abs(s - g[i][j]) <= 1e-6 * scale + 2 * symprec * std::sqrt(scale);
      }
    if (ok) out.push_back(w);
  }
  return out;
}

SymmetryInfo with_rotations(std::vector<SymmetryOp> ops, std::string finder) {
  SymmetryInfo info;
  std::set<IMat3> seen;
  for (const auto& op : ops)
    if (seen.insert(op.rotation).second) info.rotations.push_back(op.rotation);
  info.operations = std::move(ops);
  info.finder = std::move(finder);
  return info;
}

}  // namespace

SymmetryInfo find_symmetry_builtin(const Crystal& c, double symprec) {
  std::vector<SymmetryOp> ops;
  for (const IMat3& w : lattice_point_group(c, symprec)) {
    auto apply = [&](const Vec3& x) {
      Vec3 r{};
      for (int i = 0; i < 3; ++i) r[i] = w[i][0] * x[0] + w[i][1] * x[1] + w[i][2] * x[2];
      return r;
    };
    const Vec3 w0 = apply(c.fractional[0]);
    // Candidate translations: the image of atom 0 must land on an atom of the same type.
    for (int j = 0; j < c.natoms; ++j) {
      if (c.types[j] != c.types[0]) continue;
      Vec3 t{};
      for (int i = 0; i < 3; ++i) {
        t[i] = c.fractional[j][i] - w0[i];
        t[i] -= std::floor(t[i]);
      }
      bool maps = true;
      for (int a = 0; a < c.natoms && maps; ++a) {
        const Vec3 wa = apply(c.fractional[a]);
        bool found = false;
        for (int b = 0; b < c.natoms && !found; ++b) {
          if (c.types[b] != c.types[a]) continue;
          const Vec3 d{wa[0] + t[0] - c.fractional[b][0], wa[1] + t[1] - c.fractional[b][1], wa[2] + t[2] - c.fractional[b][2]};
          found = wrapped_distance(c, d) < symprec;
        }
        maps = found;
      }
      if (maps) ops.push_back({w, t});
    }
  }
  if (ops.empty()) throw Error("symmetry: not even the identity maps the crystal onto itself (overlapping atoms?)");
  return with_rotations(std::move(ops), "built-in");
}

bool spglib_available() {
#ifdef QUANTA_HAVE_SPGLIB
  return true;
#else
  return false;
#endif
}

SymmetryInfo find_symmetry(const Crystal& c, double symprec) {
#ifdef QUANTA_HAVE_SPGLIB
  double lattice[3][3];  // spglib: basis vectors in columns
  for (int i = 0; i < 3; ++i)
    for (int a = 0; a < 3; ++a) lattice[a][i] = c.lattice[i][a];
  std::vector<double> pos(3 * c.natoms);
  for (int i = 0; i < c.natoms; ++i)
    for (int k = 0; k < 3; ++k) pos[3 * i + k] = c.fractional[i][k];
  std::vector<int> types(c.types.begin(), c.types.end());
  const int max_ops = 192 * std::max(1, c.natoms);
  std::vector<int> rot(9 * max_ops);
  std::vector<double> trans(3 * max_ops);
  const int n = spg_get_symmetry(reinterpret_cast<int(*)[3][3]>(rot.data()), reinterpret_cast<double(*)[3]>(trans.data()),
                                 max_ops, lattice, reinterpret_cast<double(*)[3]>(pos.data()), types.data(), c.natoms, symprec);
  if (n <= 0) throw Error("spglib could not determine the space group (spg_get_symmetry returned " + std::to_string(n) + ")");
  std::vector<SymmetryOp> ops(n);
  for (int k = 0; k < n; ++k) {
    for (int i = 0; i < 3; ++i) {
      for (int j = 0; j < 3; ++j) ops[k].rotation[i][j] = rot[9 * k + 3 * i + j];
      ops[k].translation[i] = trans[3 * k + i];
    }
  }
  return with_rotations(std::move(ops), "spglib " + std::to_string(spg_get_major_version()) + "." +
                                             std::to_string(spg_get_minor_version()) + "." +
                                             std::to_string(spg_get_micro_version()));
#else
  return find_symmetry_builtin(c, symprec);
#endif
}

}  // namespace quanta::phonon
