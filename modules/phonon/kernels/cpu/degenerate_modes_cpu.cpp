// Degenerate perturbation theory for the modes of a degenerate set. Inside a set of degenerate modes at q
// every unitary combination of the eigenvectors is an equally valid eigensolver output, and the
// Hellmann-Feynman velocities Re(e^+ dD/dq e) / (2 omega) of the single modes depend on the combination:
// silicon's pairs at X move at +-5.2 km/s along Gamma-X in one basis and at anything between in another
// (FourPhonon's and quanta's OpenBLAS calls returned +-1.5 and 0). So do the adaptive widths, the rates of
// the single modes and kappa.
// The modes that continue the bands from q along a direction d are fixed, order by order, by
//   1. the eigenvectors of d.dD/dq projected onto the set (first order; phonopy's group velocities take
//      them, along its direction (1,2,3)/sqrt(14)), and
//   2. inside a sub-set that 1. leaves degenerate (its velocities are then equal), the eigenvectors of
//      D(q + h d) projected onto it (second order: the curvature of the bands along d).
// The eigenvectors are rotated to them, which fixes each mode up to a phase that no result depends on
// (velocities, |V|^2, widths and rates are phase-invariant per mode). d is phonopy's generic direction, on no
// mirror plane or rotation axis of the cubic point groups, so that it splits what symmetry lets split.
// h = 1e-2 of the shortest reciprocal vector: any fixed h gives a canonical basis; this one splits silicon's
// second-order sets (Gamma's optical triplet, the pairs at L, the transverse pairs at X) by 4e-5..6e-4 of
// ||D||, which fixes their vectors to ~1e-12 (with 1e-3 the splittings are 100 times smaller and the rates of
// Gamma's optical modes repeat only to 1e-10), while the third-order terms it takes along are smaller by
// about h times the range of the force constants (~0.1). A sub-set left degenerate by both steps (bands
// degenerate along d to second order) keeps the eigensolver's basis.
//
// Tolerances, all relative: modes are degenerate when consecutive frequencies differ by at most 1e-9 of the
// largest |omega| at q; eigenvalues of a projected operator are equal within 1e-9 of its Frobenius norm.
// Eigenvalues of a backward-stable solver are exact to about 1e-16 ||D||: the exact degeneracies of the
// silicon meshes come out split by at most 1e-13 relative. Degeneracies broken by the force constants
// themselves (finite-difference noise, 1e-7; the non-analytic term on the zone boundary, 5e-5) lie far above
// and keep the eigensolver's vectors, which D itself then fixes (to ~1e-16 / 1e-7).
#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include "../harmonic_spectrum.hpp"
#include "../hermitian_eigensolver.hpp"

namespace quanta::phonon::kernels {
namespace {

constexpr double kSameFrequency = 1e-9;
constexpr double kSameEigenvalue = 1e-9;
constexpr double kDirection[3] = {0.2672612419124244, 0.5345224838248488, 0.8017837257372732};  // (1,2,3)/sqrt(14)
constexpr double kStep = 1e-2;  // h, in units of the shortest reciprocal vector

using Range = std::pair<int, int>;  // modes [first, second)

// Consecutive runs of at least two values (ascending) whose neighbours differ by at most tol, offset by n0.
std::vector<Range> equal_runs(const double* x, int n, double tol, int n0) {
  std::vector<Range> runs;
  for (int i0 = 0; i0 < n;) {
    int i1 = i0 + 1;
    while (i1 < n && x[i1] - x[i1 - 1] <= tol) ++i1;
    if (i1 - i0 > 1) runs.emplace_back(n0 + i0, n0 + i1);
    i0 = i1;
  }
  return runs;
}

// Projects p ([nb][nb], column-major, Hermitian) onto the modes r of e ([nb][nb], one eigenvector per row).
// Where its eigenvalues are not all equal (within kSameEigenvalue of ||p||), rotates the modes to its
// eigenvectors, in ascending order of the eigenvalues. Returns the runs of modes that remain degenerate.
std::vector<Range> split_by(int nb, const cplx* p, Range r, cplx* e) {
  const int m = r.second - r.first;
  const cplx* old = e + static_cast<std::size_t>(r.first) * nb;
  std::vector<cplx> a(static_cast<std::size_t>(m) * m), pe(nb);  // a: e_i^+ p e_j, column-major
  for (int j = 0; j < m; ++j) {
    for (int row = 0; row < nb; ++row) {
      cplx s;
      for (int col = 0; col < nb; ++col) s += p[row + static_cast<std::size_t>(col) * nb] * old[j * nb + col];
      pe[row] = s;
    }
    for (int i = 0; i < m; ++i) {
      cplx s;
      for (int row = 0; row < nb; ++row) s += conj(old[i * nb + row]) * pe[row];
      a[i + j * m] = s;
    }
  }
  double norm = 0;
  for (std::size_t k = 0; k < static_cast<std::size_t>(nb) * nb; ++k) norm += norm2(p[k]);
  std::vector<double> w(m);
  hermitian_eigensolver_cpu(m, 1, a.data(), w.data());  // a <- its eigenvectors (columns)
  const std::vector<Range> runs = equal_runs(w.data(), m, kSameEigenvalue * std::sqrt(norm), r.first);
  if (runs.size() == 1 && runs[0] == r) return runs;  // no split: the basis stays as it was
  const std::vector<cplx> before(old, old + static_cast<std::size_t>(m) * nb);
  for (int k = 0; k < m; ++k)
    for (int c = 0; c < nb; ++c) {
      cplx s;
      for (int i = 0; i < m; ++i) s += a[i + k * m] * before[i * nb + c];
      e[(static_cast<std::size_t>(r.first) + k) * nb + c] = s;
    }
  return runs;
}

}  // namespace

void canonical_degenerate_modes_cpu(const ModelView& m, const SpectrumBatch& b) {
  const int nb = 3 * m.natoms;
  const std::size_t nb2 = static_cast<std::size_t>(nb) * nb;
  double bmin = 1e300;
  for (const auto& v : m.reciprocal) bmin = std::min(bmin, std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]));
  const double h = kStep * bmin;
#pragma omp parallel
  {
    std::vector<cplx> dd(3 * nb2), ddh(3 * nb2), p(nb2);
#pragma omp for schedule(dynamic, 8)
    for (int iq = 0; iq < b.nq; ++iq) {
      const double* omega = b.omega + static_cast<std::size_t>(iq) * nb;
      double scale = 0;
      for (int n = 0; n < nb; ++n) scale = std::max(scale, std::abs(omega[n]));
      const std::vector<Range> sets = equal_runs(omega, nb, kSameFrequency * scale, 0);
      if (sets.empty()) continue;
      const double* q = b.q + 3 * iq;
      cplx* e = b.eigenvectors + iq * nb2;
      assemble_dynamical_matrix(m, q, nullptr, dd.data());
      // 1. d.dD/dq
      for (std::size_t k = 0; k < nb2; ++k) p[k] = kDirection[0] * dd[k] + kDirection[1] * dd[nb2 + k] + kDirection[2] * dd[2 * nb2 + k];
      std::vector<Range> open;  // sub-sets with equal velocities along d
      for (const Range& r : sets)
        for (const Range& sub : split_by(nb, p.data(), r, e)) open.push_back(sub);
      // 2. D(q + h d) inside them
      if (!open.empty()) {
        const double qh[3] = {q[0] + h * kDirection[0], q[1] + h * kDirection[1], q[2] + h * kDirection[2]};
        assemble_dynamical_matrix(m, qh, p.data(), ddh.data());
        for (const Range& r : open) split_by(nb, p.data(), r, e);
      }
      for (const Range& r : sets)
        for (int n = r.first; n < r.second; ++n)
          group_velocity(nb, e + n * nb, dd.data(), omega[n], b.velocity + (static_cast<std::size_t>(iq) * nb + n) * 3);
    }
  }
}

}  // namespace quanta::phonon::kernels
