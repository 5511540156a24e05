#pragma once
// The dynamical matrix D(q) and its gradient dD/dq, one 3x3 atom-pair block at a time, in (rad/ps)^2 and
// (rad/ps)^2 nm:
//   D_{(a1 i),(a2 j)}(q) = sum_p block_p[i][j] e^{-i q.r_p}  +  non-analytic part,
//   dD/dq_c                 = sum_p -i r_pc block_p[i][j] e^{-i q.r_p}  +  its gradient,
// the non-analytic part being the Ewald dipole-dipole sum (Gonze & Lee, PRB 55, 10355 (1997), as QE's
// rgd_blk) or the mixed-space term (Wang et al., JPCM 22, 202201 (2010)), as ShengBTE builds them.
// One function serves the CPU and CUDA backends (QUANTA_HD), so the two cannot drift apart.
//
// Preconditions: terms sorted by atom pair with pair_offset[natoms^2 + 1]; matrices column-major with
// leading dimension nb = 3 natoms.
#include "quanta/core/complex.hpp"
#include "quanta/core/hd.hpp"
#include "quanta/phonon/force_constants.hpp"

namespace quanta::phonon::kernels {

// Raw view of a HarmonicModel (host or device pointers).
struct ModelView {
  int natoms;
  int nterms;
  const FcTerm* terms;      // [nterms]
  const int* pair_offset;   // [natoms*natoms + 1]
  NacKind nac;
  double reciprocal[3][3];
  double epsilon[3][3];
  const double* zeff;           // [natoms][3][3]
  const double* inv_sqrt_mass;  // [natoms]
  const double* tau;            // [natoms][3]
  double nac_prefactor;
  const double* gvectors;       // [ng][3]
  int ng;
  double alpha, q_to_bohr;
  int ncell;
};

// The view of `h` whose arrays live at the given pointers (h's own for the CPU, device copies for CUDA).
inline ModelView make_view(const HarmonicModel& h, const FcTerm* terms, const int* pair_offset, const double* zeff,
                           const double* inv_sqrt_mass, const double* tau, const double* gvectors) {
  ModelView v{};
  v.natoms = h.natoms;
  v.nterms = static_cast<int>(h.terms.size());
  v.terms = terms;
  v.pair_offset = pair_offset;
  v.nac = h.nac;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) v.reciprocal[i][j] = h.reciprocal[i][j], v.epsilon[i][j] = h.epsilon[i][j];
  v.zeff = zeff;
  v.inv_sqrt_mass = inv_sqrt_mass;
  v.tau = tau;
  v.nac_prefactor = h.nac_prefactor;
  v.gvectors = gvectors;
  v.ng = static_cast<int>(h.gvectors.size() / 3);
  v.alpha = h.alpha;
  v.q_to_bohr = h.q_to_bohr;
  v.ncell = h.ncell;
  return v;
}

namespace detail {

// Ewald dipole-dipole contribution of pair (a1, a2) at q (nm^-1), added to d[3][3] and dd[3][3][3].
QUANTA_HD void ewald_block(const ModelView& m, const double q[3], int a1, int a2, cplx d[3][3], cplx dd[3][3][3]) {
  const double* z1 = m.zeff + 9 * a1;  // z1[a*3 + p]: q contracted with a
  const double* z2 = m.zeff + 9 * a2;
  double rr[3];  // tau_a1 - tau_a2, bohr
  for (int c = 0; c < 3; ++c) rr[c] = (m.tau[3 * a1 + c] - m.tau[3 * a2 + c]) / m.q_to_bohr;
  const double scale = m.nac_prefactor * m.inv_sqrt_mass[a1] * m.inv_sqrt_mass[a2];
  for (int g = 0; g < m.ng; ++g) {
    double k[3];
    for (int c = 0; c < 3; ++c) k[c] = m.gvectors[3 * g + c] + q[c] * m.q_to_bohr;
    double ek[3], geg = 0;
    for (int a = 0; a < 3; ++a) {
      ek[a] = m.epsilon[a][0] * k[0] + m.epsilon[a][1] * k[1] + m.epsilon[a][2] * k[2];
      geg += k[a] * ek[a];
    }
    if (!(geg > 0) || geg / (4 * m.alpha) >= 14.0) continue;
    const double f = exp(-geg / (4 * m.alpha)) / geg;
    double zig[3], zjg[3], dgeg[3];
    for (int p = 0; p < 3; ++p) {
      zig[p] = k[0] * z1[p] + k[1] * z1[3 + p] + k[2] * z1[6 + p];
      zjg[p] = k[0] * z2[p] + k[1] * z2[3 + p] + k[2] * z2[6 + p];
      dgeg[p] = (m.epsilon[p][0] + m.epsilon[0][p]) * k[0] + (m.epsilon[p][1] + m.epsilon[1][p]) * k[1] +
                (m.epsilon[p][2] + m.epsilon[2][p]) * k[2];
    }
    const cplx ph = expi(k[0] * rr[0] + k[1] * rr[1] + k[2] * rr[2]) * (f * scale);
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) {
        d[i][j] += ph * (zig[i] * zjg[j]);
        for (int c = 0; c < 3; ++c) {
          const double re = zjg[j] * z1[3 * c + i] + zig[i] * z2[3 * c + j] -
                            zig[i] * zjg[j] * (dgeg[c] / (4 * m.alpha) + dgeg[c] / geg);
          dd[c][i][j] += ph * cplx(re, rr[c] * zig[i] * zjg[j]) * m.q_to_bohr;
        }
      }
  }
}

// The shortest image of q among q + n.b, n in [-2,2]^3, as ShengBTE's phonopy path. On the zone boundary
// several images are equally short and the correction depends on which is taken: the first one found
// wins, with ties decided to a relative 1e-12 so that the CPU and the GPU (whose fused multiply-adds round
// differently) take the same image.
QUANTA_HD void shortest_image(const ModelView& m, const double q[3], double qs[3]) {
  double best = q[0] * q[0] + q[1] * q[1] + q[2] * q[2];
  qs[0] = q[0], qs[1] = q[1], qs[2] = q[2];
  for (int n1 = -2; n1 <= 2; ++n1)
    for (int n2 = -2; n2 <= 2; ++n2)
      for (int n3 = -2; n3 <= 2; ++n3) {
        double t[3], l = 0;
        for (int c = 0; c < 3; ++c) {
          t[c] = q[c] + n1 * m.reciprocal[0][c] + n2 * m.reciprocal[1][c] + n3 * m.reciprocal[2][c];
          l += t[c] * t[c];
        }
        if (l < best * (1 - 1e-12)) best = l, qs[0] = t[0], qs[1] = t[1], qs[2] = t[2];
      }
}

}  // namespace detail

// Block (a1, a2) of D(q) into d[i][j] and of dD/dq_c into dd[c][i][j].
QUANTA_HD void dynamical_matrix_block(const ModelView& m, const double q[3], int a1, int a2, cplx d[3][3],
                                      cplx dd[3][3][3]) {
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      d[i][j] = cplx();
      for (int c = 0; c < 3; ++c) dd[c][i][j] = cplx();
    }
  const int pair = a1 * m.natoms + a2;
  cplx star;           // sum_p w_p e^{-i q.r_p}
  cplx star_grad[3];   // sum_p -i r_p w_p e^{-i q.r_p}
  for (int t = m.pair_offset[pair]; t < m.pair_offset[pair + 1]; ++t) {
    const FcTerm& term = m.terms[t];
    const cplx z = expi(-(q[0] * term.r[0] + q[1] * term.r[1] + q[2] * term.r[2]));
    star += z * term.weight;
    for (int c = 0; c < 3; ++c) star_grad[c] += cplx(0, -term.r[c]) * z * term.weight;
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) {
        const cplx v = z * term.block[i][j];
        d[i][j] += v;
        for (int c = 0; c < 3; ++c) dd[c][i][j] += cplx(0, -term.r[c]) * v;
      }
  }
  if (m.nac == NacKind::Ewald) {
    detail::ewald_block(m, q, a1, a2, d, dd);
  } else if (m.nac == NacKind::MixedSpace) {
    double qs[3];
    detail::shortest_image(m, q, qs);
    if (qs[0] == 0 && qs[1] == 0 && qs[2] == 0) return;  // Gamma: no correction
    double eq[3], qeq = 0;
    for (int a = 0; a < 3; ++a) {
      eq[a] = m.epsilon[a][0] * qs[0] + m.epsilon[a][1] * qs[1] + m.epsilon[a][2] * qs[2];
      qeq += qs[a] * eq[a];
    }
    const double* z1 = m.zeff + 9 * a1;
    const double* z2 = m.zeff + 9 * a2;
    double t1[3], t2[3];
    for (int i = 0; i < 3; ++i) {
      t1[i] = qs[0] * z1[i] + qs[1] * z1[3 + i] + qs[2] * z1[6 + i];
      t2[i] = qs[0] * z2[i] + qs[1] * z2[3 + i] + qs[2] * z2[6 + i];
    }
    const double s = m.nac_prefactor * m.inv_sqrt_mass[a1] * m.inv_sqrt_mass[a2] / qeq;
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) {
        const double nac = s * t1[i] * t2[j];
        d[i][j] += star * nac;
        for (int c = 0; c < 3; ++c) {
          const double dnac = s * (t1[i] * z2[3 * c + j] + t2[j] * z1[3 * c + i] - 2 * t1[i] * t2[j] * eq[c] / qeq);
          dd[c][i][j] += star_grad[c] * nac + star * dnac;
        }
      }
  }
}

// The full matrices, block by block: D(q) into d (skipped when d is null) and dD/dq_c into dd + c nb^2,
// column-major with leading dimension nb = 3 natoms.
QUANTA_HD void assemble_dynamical_matrix(const ModelView& m, const double q[3], cplx* d /*[nb][nb] or null*/,
                                         cplx* dd /*[3][nb][nb]*/) {
  const int nb = 3 * m.natoms;
  const long nb2 = static_cast<long>(nb) * nb;
  cplx blk[3][3], dblk[3][3][3];
  for (int a1 = 0; a1 < m.natoms; ++a1)
    for (int a2 = 0; a2 < m.natoms; ++a2) {
      dynamical_matrix_block(m, q, a1, a2, blk, dblk);
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
          const long at = (3 * a1 + i) + static_cast<long>(3 * a2 + j) * nb;
          if (d) d[at] = blk[i][j];
          for (int c = 0; c < 3; ++c) dd[c * nb2 + at] = dblk[c][i][j];
        }
    }
}

// Group velocity of one mode by the Hellmann-Feynman theorem: v_c = Re(e^+ dD/dq_c e) / (2 omega), nm/ps.
QUANTA_HD void group_velocity(int nb, const cplx* e /*[nb]*/, const cplx* dd /*[3][nb][nb] col-major*/, double omega,
                              double v[3]) {
  for (int c = 0; c < 3; ++c) {
    const cplx* m = dd + static_cast<long>(c) * nb * nb;
    double acc = 0;  // Re(e^+ M e) = Re sum_{row,col} conj(e_row) M_{row,col} e_col
    for (int row = 0; row < nb; ++row) {
      cplx s;
      for (int col = 0; col < nb; ++col) s += m[row + static_cast<long>(col) * nb] * e[col];
      acc += (conj(e[row]) * s).re;
    }
    v[c] = acc / (2 * omega);
  }
}

// Frequency from an eigenvalue of D: sign(lambda) sqrt(|lambda|) (unstable modes come out negative).
QUANTA_HD double signed_frequency(double lambda) { return lambda < 0 ? -sqrt(-lambda) : sqrt(lambda); }

}  // namespace quanta::phonon::kernels
