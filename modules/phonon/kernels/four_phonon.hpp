#pragma once
// Four-phonon processes on the q-mesh, one function per step, shared by the CPU and CUDA backends,
// as FourPhonon defines them (Feng & Ruan, PRB 93, 045202 (2016); Han et al., CPC 270, 108179 (2022)).
// Mode 1 is the irreducible phonon scattered; modes 2, 3, 4 run over the full mesh. Three classes:
//   ++  1 + 2 + 3 -> 4,  q4 = q1 + q2 + q3
//   +-  1 + 2 -> 3 + 4,  q4 = q1 + q2 - q3
//   --  1 -> 2 + 3 + 4,  q4 = q1 - q2 - q3
// The matrix element sums the quadruplets t of FORCE_CONSTANTS_4TH (atoms A, B, C, D; cells R_j, R_k, R_l):
//   V = sum_t e^{i s2 q2.R_j} e^{i s3 q3.R_k} e^{-i q4.R_l} sum_abcd Phi_t^abcd / sqrt(mA mB mC mD)
//             e1_{A a} x2_{B b} x3_{C c} conj(e4)_{D d},
// with (s2, s3) = (+, +), (+, -), (-, -) and x = e for a + sign, conj(e) for a - sign. As for three phonons,
// the phases are roots of unity of the mesh (kernels/three_phonon.hpp). The sum is evaluated in two stages
// (contract12, vertex4 below): the constants are contracted with the eigenvectors of modes 1 and 2 once for
// all processes sharing them.
#include <cmath>
#include <vector>

#include "sampling.hpp"
#include "three_phonon.hpp"

namespace quanta::phonon::kernels {

enum class FourClass : int { PlusPlus = 0, PlusMinus = 1, MinusMinus = 2 };

// Fourth-order force constants, masses divided in (eV/A^4/amu^2), grouped for the two-stage matrix element
// below: group g holds the quadruplets whose third and fourth atoms (C, D) and cell difference R_k - R_l are
// the same; groups are sorted by (C, D), quadruplets keep their file order within a group.
struct Fc4View {
  int ngroups;
  const int* group_offset;   // [ngroups + 1] quadruplets of group g are [group_offset[g], group_offset[g+1])
  const int* group_atoms;    // [ngroups][2] C, D
  const int* group_cell;     // [ngroups][3] lattice coordinates of R_k - R_l
  const int* quad_atoms;     // [nquad][2] A, B
  const int* quad_cells;     // [nquad][6] lattice coordinates of R_l, then R_j - R_l
  const double* phi;         // [nquad][81] ([a][b][c][d])
  int roots_n;               // L = lcm(N_1, N_2, N_3)
  int stride[3];             // L / N_d
  const cplx* roots;         // [L] e^{2 pi i k / L}
};

// The fourth q-point of a process of class c (q1, q2, q3 full-mesh indices).
QUANTA_HD int fourth_q(const int n[3], int q1, int q2, int q3, FourClass c) {
  int a[3], b[3], d[3], e[3];
  mesh_coords(q1, n, a);
  mesh_coords(q2, n, b);
  mesh_coords(q3, n, d);
  const int s2 = c == FourClass::MinusMinus ? -1 : 1, s3 = c == FourClass::PlusPlus ? 1 : -1;
  for (int k = 0; k < 3; ++k) e[k] = wrap(a[k] + s2 * b[k] + s3 * d[k], n[k]);
  return mesh_index(e, n);
}

// The width of a four-phonon process: FourPhonon takes the velocities of its third and fourth phonons.
QUANTA_HD double process_sigma4(const MeshView& m, int mode3, int mode4) { return process_sigma(m, mode3, mode4); }

// The terms of one mode's width, for a cheap necessary test before the exact one: (b_d . v) / N_d for d = 0, 1,
// 2 and max_d sum_i |b_di v_i| / N_d, the size of the rounding of the former (`out` [4]; v in km/s).
QUANTA_HD void width_terms(const MeshView& m, int mode, double* out) {
  const double* v = m.velocity + 3 * static_cast<long>(mode);
  out[3] = 0;
  for (int d = 0; d < 3; ++d) {
    const double* b = &m.reciprocal[d][0];
    out[d] = (b[0] * v[0] + b[1] * v[1] + b[2] * v[2]) / m.n[d];
    const double size = (fabs(b[0] * v[0]) + fabs(b[1] * v[1]) + fabs(b[2] * v[2])) / m.n[d];
    out[3] = size > out[3] ? size : out[3];
  }
}

// An upper bound of process_sigma4(mode3, mode4) from the width terms: sigma = scalebroad max_d |p_d| / sqrt(2)
// with p_d = b_d . (v3 - v4) / N_d = u3_d - u4_d up to rounding, which the margin of 1e-12 (a3 + a4) covers
// (1e3 times the rounding of either form), so that a candidate beyond it fails the exact test as well.
QUANTA_HD double sigma_bound4(const MeshView& m, int mode3, int mode4) {
  const double* u3 = m.width_terms + 4 * static_cast<long>(mode3);
  const double* u4 = m.width_terms + 4 * static_cast<long>(mode4);
  const double p = fmax(fabs(u3[0] - u4[0]), fmax(fabs(u3[1] - u4[1]), fabs(u3[2] - u4[2])));
  return m.scalebroad * (p + 1e-12 * (u3[3] + u4[3])) * (0.70710678118654757 * (1 + 1e-12));
}

// omega1 + s2 omega2 + s3 omega3 - omega4, in FourPhonon's order of evaluation.
QUANTA_HD double mismatch4(double w1, double w2, double w3, double w4, FourClass c) {
  switch (c) {
    case FourClass::PlusPlus: return w1 + w2 + w3 - w4;
    case FourClass::PlusMinus: return w1 + w2 - w3 - w4;
    default: return w1 - w2 - w3 - w4;
  }
}

// Occupation factor of a process at one temperature (n: Bose-Einstein occupations of modes 2, 3, 4).
QUANTA_HD double occupation4(double n2, double n3, double n4, FourClass c) {
  switch (c) {
    case FourClass::PlusPlus: return n2 * n3 * (1 + n4) - (1 + n2) * (1 + n3) * n4;
    case FourClass::PlusMinus: return n2 * (1 + n3) * (1 + n4) - (1 + n2) * n3 * n4;
    default: return (1 + n2) * (1 + n3) * (1 + n4) - n2 * n3 * n4;
  }
}

// The matrix element in two stages. With q4 = q1 + s2 q2 + s3 q3 on the mesh, the phase of quadruplet t is
//   e^{i s2 q2.R_j} e^{i s3 q3.R_k} e^{-i q4.R_l} = e^{-i q1.R_l} e^{i s2 q2.(R_j - R_l)} e^{i s3 q3.(R_k - R_l)}
// (exactly, in the integer arithmetic of the roots of unity), so
//   V = sum_g e^{i s3 q3.(R_k - R_l)_g} sum_cd W_g^cd x3_{C c} conj(e4)_{D d},
//   W_g^cd = sum_{t in g} e^{-i q1.R_l} e^{i s2 q2.(R_j - R_l)} sum_ab Phi_t^abcd e1_{A a} x2_{B b}.
// Stage 1 forms W (ngroups x 9 numbers) once for a mode 1 and a mode 2; stage 2 evaluates each process of that
// pair of modes from W: per process ngroups x 9 products instead of every quadruplet's 81.

// Phase index k of e^{2 pi i k / L} for lattice coordinates r and per-dimension factors s (already times the
// stride), wrapped onto [0, L).
QUANTA_HD int phase_index(const int s[3], const int* r, int L) { return wrap(s[0] * r[0] + s[1] * r[1] + s[2] * r[2], L); }

// The mesh-coordinate factors of a q-point for phase_index: sign * m_d * stride_d.
QUANTA_HD void phase_factors(const MeshView& m, const Fc4View& f, int q, int sign, int s[3]) {
  int c[3];
  mesh_coords(q, m.n, c);
  for (int d = 0; d < 3; ++d) s[d] = sign * c[d] * f.stride[d];
}

// Stage 1, one entry: W_g^cd (cd = 3 c + d) for mode 1 (eigenvector e1) and mode 2 (x2 = e2, or conj(e2) for
// the -- class) at q1, q2; k1, k2 from phase_factors(q1, -1) and phase_factors(q2, s2).
QUANTA_HD cplx contract12(const Fc4View& f, const cplx* e1, const cplx* x2, const int k1[3], const int k2[3], int g, int cd) {
  cplx w(0, 0);
  for (int t = f.group_offset[g]; t < f.group_offset[g + 1]; ++t) {
    const double* phi = f.phi + 81 * static_cast<long>(t) + cd;
    const int A = f.quad_atoms[2 * t], B = f.quad_atoms[2 * t + 1];
    cplx s(0, 0);
    for (int a = 0; a < 3; ++a) {
      cplx sb(0, 0);
      for (int b = 0; b < 3; ++b) sb += phi[27 * a + 9 * b] * x2[3 * B + b];
      s += e1[3 * A + a] * sb;
    }
    const int* r = f.quad_cells + 6 * static_cast<long>(t);
    const int k = wrap(k1[0] * r[0] + k1[1] * r[1] + k1[2] * r[2] + k2[0] * r[3] + k2[1] * r[4] + k2[2] * r[5], f.roots_n);
    w += f.roots[k] * s;
  }
  return w;
}

// Stage 2: the part of V from groups first, first + stride, ... for the process with modes 3 and 4, from W
// ([ngroups][9]) of its modes 1 and 2. `roots` is f.roots or a copy of it.
QUANTA_HD cplx vertex4_part(const MeshView& m, const Fc4View& f, const cplx* W, const cplx* roots, int mode3, int mode4, FourClass c,
                            int first, int stride) {
  const int nb = m.nb;
  const bool conj3 = c != FourClass::PlusPlus;
  int k3[3];
  phase_factors(m, f, mode3 / nb, conj3 ? -1 : 1, k3);
  const cplx* e3 = m.eigenvectors + static_cast<long>(mode3) * nb;
  const cplx* e4 = m.eigenvectors + static_cast<long>(mode4) * nb;
  cplx p[9];
  int C = -1, D = -1;
  double vre = 0, vim = 0;
  for (int g = first; g < f.ngroups; g += stride) {
    if (f.group_atoms[2 * g] != C || f.group_atoms[2 * g + 1] != D) {  // groups are sorted by (C, D)
      C = f.group_atoms[2 * g];
      D = f.group_atoms[2 * g + 1];
      for (int cc = 0; cc < 3; ++cc) {
        const cplx x3 = conj3 ? conj(e3[3 * C + cc]) : e3[3 * C + cc];
        for (int d = 0; d < 3; ++d) p[3 * cc + d] = x3 * conj(e4[3 * D + d]);
      }
    }
    const cplx* w = W + 9 * static_cast<long>(g);
    double re = 0, im = 0;
    for (int e = 0; e < 9; ++e) {
      re += w[e].re * p[e].re - w[e].im * p[e].im;
      im += w[e].re * p[e].im + w[e].im * p[e].re;
    }
    const cplx ph = roots[phase_index(k3, f.group_cell + 3 * g, f.roots_n)];
    vre += ph.re * re - ph.im * im;
    vim += ph.re * im + ph.im * re;
  }
  return {vre, vim};
}

// |V|^2 of the process, (eV/A^4/amu^2)^2.
QUANTA_HD double vertex4(const MeshView& m, const Fc4View& f, const cplx* W, const cplx* roots, int mode3, int mode4, FourClass c) {
  return norm2(vertex4_part(m, f, W, roots, mode3, mode4, c, 0, 1));
}

// What the rates need besides the mesh and the constants: the occupations at up to kMaxTemperatures4
// temperatures and FourPhonon's normalizations.
constexpr int kMaxTemperatures4 = 8;
struct FourRateInputs {
  const double* bose;        // [nT][nptk * nb]
  long bose_stride;          // nptk * nb
  int nT;                    // 1 .. kMaxTemperatures4
  double p4_norm;            // sqrt(pi) N^3 nb^4
  double prefactor;          // hbar_p^2 pi / 8
  bool with_rates;           // false: no force constants (onlyharmonic), |V|^2 = 0
};

// Sums over the processes of one irreducible mode and class, before FourPhonon's final factors.
struct FourSums {
  double count;              // exact up to 2^53
  double p4;
  double gamma[kMaxTemperatures4];
  double wp4[kMaxTemperatures4];
  double gamma_umklapp[kMaxTemperatures4];  // the part of gamma from Umklapp processes
};

// Calls allowed(mode3, mode4, delta, sigma) for each allowed process of class c of mode1 (full-mesh mode
// index) whose second phonon is mode2 (at q2, branch j) and third phonon sits at q3, in FourPhonon's band
// order. Each unordered set of partners is visited once over all (q2, j, q3): ++ and -- take q3 >= q2 (k >= j
// when q3 = q2), +- and -- take q4 >= q3 (l >= k when equal). A process is allowed when modes 2-4 have nonzero
// frequencies and |delta| <= sigma, sigma from the velocities of modes 3 and 4; where sigma <= 0.001 rad/ps it
// then becomes 1/sqrt(pi), as in FourPhonon. +- also excludes processes where mode 3 or 4 is mode 1 or 2.
// The fourth q-point of the candidates (mode2, q3 k, q4 l) of class c, or -1 when the order rules exclude
// all of them.
QUANTA_HD int candidate_q4(const MeshView& m, int mode1, int mode2, int q3, FourClass c) {
  const int q2 = mode2 / m.nb;
  if (c != FourClass::PlusMinus && q3 < q2) return -1;
  const int q4 = fourth_q(m.n, mode1 / m.nb, q2, q3, c);
  if (c != FourClass::PlusPlus && q4 < q3) return -1;
  return q4;
}

// One candidate: mode 2, q3 branch k, q4 (from candidate_q4) branch l; the rules above.
template <class Allowed>
QUANTA_HD void visit_candidate4(const MeshView& m, int mode1, int mode2, int q3, int q4, int k, int l, FourClass c,
                                Allowed&& allowed) {
  const bool pm = c == FourClass::PlusMinus;
  const int nb = m.nb;
  if (!pm && q3 == mode2 / nb && k < mode2 % nb) return;
  if (c != FourClass::PlusPlus && q4 == q3 && l < k) return;
  const int mode3 = q3 * nb + k, mode4 = q4 * nb + l;
  if (pm && (mode3 == mode1 || mode4 == mode1 || mode3 == mode2 || mode4 == mode2)) return;
  const double w2 = m.omega[mode2], w3 = m.omega[mode3], w4 = m.omega[mode4];
  if (w2 == 0 || w3 == 0 || w4 == 0) return;
  const double delta = mismatch4(m.omega[mode1], w2, w3, w4, c);
  if (!(fabs(delta) <= sigma_bound4(m, mode3, mode4))) return;  // the cheap test first
  double sigma = process_sigma4(m, mode3, mode4);
  if (!(fabs(delta) <= sigma)) return;
  if (sigma <= double(0.001f)) sigma = 1 / 1.772453850905516027298;  // 1 / sqrt(pi)
  allowed(mode3, mode4, delta, sigma);
}

// A necessary test for a whole row of candidates (q3 branch k, every branch l at q4), and the same for one
// candidate (fewer loads than sigma_bound4's, and looser). A candidate passes only
// if |delta| <= sigma_bound4, which is at most scalebroad (a3 + a4) / sqrt(2) (1 + 3e-12), a being a mode's
// width size (width_terms[3] >= |u_d|). delta = target - omega4 with target = omega1 + s2 omega2 + s3 omega3
// evaluated as mismatch4 does, so no l passes when the target lies further than scalebroad (a3 + max_l a4) /
// sqrt(2) from the range of q4's frequencies; the margin (1e-9, relative) is far above any rounding.
struct Q4Window {
  double lo, hi, a;  // the smallest and largest frequency at q4, the largest width size
};
QUANTA_HD Q4Window q4_window(const MeshView& m, int q4) {
  Q4Window w{1e300, -1e300, 0};
  for (int l = 0; l < m.nb; ++l) {
    const long mode4 = static_cast<long>(q4) * m.nb + l;
    w.lo = fmin(w.lo, m.omega[mode4]);
    w.hi = fmax(w.hi, m.omega[mode4]);
    w.a = fmax(w.a, m.width_terms[4 * mode4 + 3]);
  }
  return w;
}
QUANTA_HD double reach4(const MeshView& m, double target, double a3, double a4, double w4) {
  return m.scalebroad * (a3 + a4) * (0.70710678118654757 * (1 + 1e-9)) + 1e-9 * (fabs(target) + fabs(w4));
}
QUANTA_HD bool row_may_pass(const MeshView& m, double target, double a3, const Q4Window& w) {
  const double reach = reach4(m, target, a3, w.a, w.hi);
  return target >= w.lo - reach && target <= w.hi + reach;
}

// Every candidate of mode 2 at q3, in FourPhonon's band order.
template <class Allowed>
QUANTA_HD void visit_branch4(const MeshView& m, int mode1, int mode2, int q3, FourClass c, Allowed&& allowed) {
  const int q4 = candidate_q4(m, mode1, mode2, q3, c);
  if (q4 < 0 || m.omega[mode2] == 0) return;
  const Q4Window window = q4_window(m, q4);
  const double w1 = m.omega[mode1], w2 = m.omega[mode2];
  for (int k = 0; k < m.nb; ++k) {
    const int mode3 = q3 * m.nb + k;
    const double target = mismatch4(w1, w2, m.omega[mode3], 0.0, c), a3 = m.width_terms[4 * static_cast<long>(mode3) + 3];
    if (!row_may_pass(m, target, a3, window)) continue;
    for (int l = 0; l < m.nb; ++l) {  // the same bound for one candidate (two loads), then the exact rules
      const long mode4 = static_cast<long>(q4) * m.nb + l;
      const double w4 = m.omega[mode4];
      if (fabs(target - w4) > reach4(m, target, a3, m.width_terms[4 * mode4 + 3], w4)) continue;
      visit_candidate4(m, mode1, mode2, q3, q4, k, l, c, allowed);
    }
  }
}

// FourPhonon's sampling estimator (kernels/sampling.hpp) for four phonons: one draw is a candidate
// (q2, j, q3, k, l) of Nq^2 nb^3.
// Draw n of a stream: calls allowed(mode2, mode3, mode4, delta, sigma) if the candidate passes.
template <class Allowed>
QUANTA_HD void visit_draw4(const MeshView& m, int mode1, FourClass c, unsigned long long stream, long long n, Allowed&& allowed) {
  unsigned long long state = draw_state(stream, n);
  const int q2 = draw_below(state, m.nptk), j = draw_below(state, m.nb), q3 = draw_below(state, m.nptk);
  const int k = draw_below(state, m.nb), l = draw_below(state, m.nb);
  const int mode2 = q2 * m.nb + j;
  const int q4 = candidate_q4(m, mode1, mode2, q3, c);
  if (q4 < 0) return;
  visit_candidate4(m, mode1, mode2, q3, q4, k, l, c,
                   [&](int mode3, int mode4, double delta, double sigma) { allowed(mode2, mode3, mode4, delta, sigma); });
}

// The process's count and phase space; returns whether it carries a rate (FourPhonon gives none to a
// process with a partner at or below 1.25 rad/ps, which still counts).
QUANTA_HD bool count_process4(const MeshView& m, const FourRateInputs& in, int mode2, int mode3, int mode4, double delta,
                              double sigma, FourSums& acc) {
  acc.count += 1;
  acc.p4 += exp(-delta * delta / (sigma * sigma)) / (sigma * in.p4_norm);
  return !(m.omega[mode2] <= 1.25 || m.omega[mode3] <= 1.25 || m.omega[mode4] <= 1.25);
}

// Is the process Umklapp: q1 + s2 q2 + s3 q3 - q4 != 0 between the first-Brillouin-zone images of the four
// q-points (MeshView::ws_image, integer coordinates in units of 1/N_d: exact). FourPhonon 1ac176a holds the
// routine for these images (ws_cell) but writes no Normal/Umklapp split; quanta's follows its definition.
QUANTA_HD bool umklapp4(const MeshView& m, int mode1, int mode2, int mode3, int mode4, FourClass c) {
  const int s2 = c == FourClass::MinusMinus ? -1 : 1, s3 = c == FourClass::PlusPlus ? 1 : -1;
  const int *a = m.ws_image + 3 * (mode1 / m.nb), *b = m.ws_image + 3 * (mode2 / m.nb), *d = m.ws_image + 3 * (mode3 / m.nb),
            *e = m.ws_image + 3 * (mode4 / m.nb);
  for (int k = 0; k < 3; ++k)
    if (a[k] + s2 * b[k] + s3 * d[k] - e[k] != 0) return true;
  return false;
}

// The process's rate and weighted phase space at each temperature, added to `acc`, from its |V|^2 (vertex4;
// 0 without force constants); `rates` receives its rates (before FourPhonon's final factor).
QUANTA_HD void rate_process4(const MeshView& m, const FourRateInputs& in, int mode1, int mode2, int mode3, int mode4, FourClass c,
                             double v2, FourSums& acc, double* rates) {
  const bool umklapp = umklapp4(m, mode1, mode2, mode3, mode4, c);
  const double w1 = m.omega[mode1], w2 = m.omega[mode2], w3 = m.omega[mode3], w4 = m.omega[mode4];
  double sigma = process_sigma4(m, mode3, mode4);
  if (sigma <= double(0.001f)) sigma = 1 / 1.772453850905516027298;
  const double delta = mismatch4(w1, w2, w3, w4, c);
  const double g = exp(-delta * delta / (sigma * sigma)) / (sigma * 1.772453850905516027298);
  for (int it = 0; it < in.nT; ++it) {
    const double* n = in.bose + it * in.bose_stride;
    const double weight = occupation4(n[mode2], n[mode3], n[mode4], c) * g / (w1 * w2 * w3 * w4);
    acc.wp4[it] += weight;
    rates[it] = in.prefactor * weight * v2;
    acc.gamma[it] += rates[it];
    if (umklapp) acc.gamma_umklapp[it] += rates[it];
  }
}

// Stage 1 for the CPU: all of W ([ngroups][9]) for mode 1 and mode 2 of class c.
inline void contract12_all(const MeshView& m, const Fc4View& f, int mode1, int mode2, FourClass c, cplx* W) {
  const int nb = m.nb;
  const cplx* e1 = m.eigenvectors + static_cast<long>(mode1) * nb;
  const cplx* e2 = m.eigenvectors + static_cast<long>(mode2) * nb;
  const bool conj2 = c == FourClass::MinusMinus;
  std::vector<cplx> x2(e2, e2 + nb);
  if (conj2)
    for (cplx& x : x2) x = conj(x);
  int k1[3], k2[3];
  phase_factors(m, f, mode1 / nb, -1, k1);
  phase_factors(m, f, mode2 / nb, conj2 ? -1 : 1, k2);
  for (int g = 0; g < f.ngroups; ++g)
    for (int cd = 0; cd < 9; ++cd) W[9 * g + cd] = contract12(f, e1, x2.data(), k1, k2, g, cd);
}

// The signs of modes 2 and 3 in the BTE's collision sum (mode 4's is +): ++ G (F4 - F2 - F3),
// +- G (F4 - F2 + F3), -- G (F4 + F2 + F3) (FourPhonon's iteration_4ph).
QUANTA_HD double collision_sign2(FourClass c) { return c == FourClass::MinusMinus ? 1.0 : -1.0; }
QUANTA_HD double collision_sign3(FourClass c) { return c == FourClass::PlusPlus ? -1.0 : 1.0; }

// What the iterative BTE takes of each process that carries a rate: keep(mode2, mode3, mode4, rates).
struct NoProcessSink {
  QUANTA_HD void operator()(int, int, int, const double*) const {}
};

}  // namespace quanta::phonon::kernels
