#include <algorithm>
#include <cmath>

#include "quanta/phonon/harmonic.hpp"

namespace quanta::phonon {

std::vector<MeshOp> mesh_operations(const Crystal& c, const SymmetryInfo& sym) {
  // Cartesian rotation C = A^T W A^{-T} for lattice rows A (x_cart = A^T x_frac), and the rotation of
  // q in lattice coordinates, Q = W^{-T}. Time reversal adds -C and -Q.
  Mat3 at{}, at_inv{};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) at[i][j] = c.lattice[j][i];
  at_inv = inverse(at);
  std::vector<MeshOp> ops;
  for (const auto& op : sym.operations) {
    Mat3 w{}, cart{};
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) w[i][j] = op.rotation[i][j];
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j)
        for (int k = 0; k < 3; ++k)
          for (int l = 0; l < 3; ++l) cart[i][j] += at[i][k] * w[k][l] * at_inv[l][j];
    const Mat3 winv = inverse(w);
    Mat3 q{};
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) q[i][j] = winv[j][i];
    ops.push_back({cart, q});
  }
  const std::size_t nsymm = ops.size();
  for (std::size_t k = 0; k < nsymm; ++k) {
    MeshOp neg = ops[k];
    for (auto& row : neg.cart)
      for (double& x : row) x = -x;
    for (auto& row : neg.q)
      for (double& x : row) x = -x;
    ops.push_back(neg);
  }
  return ops;
}

std::vector<Mat3> point_symmetrizers(const Crystal& c, const SymmetryInfo& sym, const QGrid& grid) {
  const auto ops = mesh_operations(c, sym);
  std::vector<Mat3> out(grid.nptk);
#pragma omp parallel for schedule(static)
  for (int iq = 0; iq < grid.nptk; ++iq) {
    const int ind[3] = {iq % grid.n[0], (iq / grid.n[0]) % grid.n[1], iq / (grid.n[0] * grid.n[1])};
    Mat3 sum{};
    int count = 0;
    for (const auto& op : ops) {
      double d2 = 0;  // |ind - n o (Q (ind / n))|, in mesh units, no wrapping: the op must fix q itself
      for (int i = 0; i < 3; ++i) {
        double v = 0;
        for (int j = 0; j < 3; ++j) v += op.q[i][j] * ind[j] / grid.n[j];
        v *= grid.n[i];
        d2 += (ind[i] - v) * (ind[i] - v);
      }
      if (std::sqrt(d2) > double(1e-5f)) continue;
      ++count;
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) sum[i][j] += op.cart[i][j];
    }
    for (auto& row : sum)
      for (double& x : row) x /= count;
    out[iq] = sum;
  }
  return out;
}

void symmetrize_and_fix_gamma(const Crystal& c, const SymmetryInfo& sym, const QGrid& grid, Spectrum& s) {
  const std::vector<Mat3> symmetrizer = point_symmetrizers(c, sym, grid);
  const int nb = s.nb;
#pragma omp parallel for schedule(static)
  for (int iq = 0; iq < grid.nptk; ++iq) {
    const Mat3& sum = symmetrizer[iq];
    for (int n = 0; n < nb; ++n) {
      double* v = &s.velocity[(static_cast<std::size_t>(iq) * nb + n) * 3];
      const Vec3 old{v[0], v[1], v[2]};
      for (int i = 0; i < 3; ++i) v[i] = sum[i][0] * old[0] + sum[i][1] * old[1] + sum[i][2] * old[2];
    }
  }
  const int g = std::min(3, nb);
  for (int n = 0; n < g; ++n) {
    s.omega[n] = 0;
    for (int k = 0; k < 3; ++k) s.velocity[3 * n + k] = 0;
  }
}

}  // namespace quanta::phonon
