#pragma once
// Four-phonon processes on the q-mesh, one function per step, for the CPU (and later the CUDA) backend,
// as FourPhonon defines them (Feng & Ruan, PRB 93, 045202 (2016); Han et al., CPC 270, 108179 (2022)).
// Mode 1 is the irreducible phonon scattered; modes 2, 3, 4 run over the full mesh. Three classes:
//   ++  1 + 2 + 3 -> 4,  q4 = q1 + q2 + q3
//   +-  1 + 2 -> 3 + 4,  q4 = q1 + q2 - q3
//   --  1 -> 2 + 3 + 4,  q4 = q1 - q2 - q3
// The matrix element sums the quadruplets t of FORCE_CONSTANTS_4TH (atoms A, B, C, D; cells R_j, R_k, R_l):
//   V = sum_t e^{i s2 q2.R_j} e^{i s3 q3.R_k} e^{-i q4.R_l} sum_abcd Phi_t^abcd / sqrt(mA mB mC mD)
//             e1_{A a} x2_{B b} x3_{C c} conj(e4)_{D d},
// with (s2, s3) = (+, +), (+, -), (-, -) and x = e for a + sign, conj(e) for a - sign. As for three phonons,
// the phases are roots of unity of the mesh (kernels/three_phonon.hpp) and the 81 eigenvector products of
// an atom quadruple are formed once per process.
#include <cmath>

#include "three_phonon.hpp"

namespace quanta::phonon::kernels {

enum class FourClass : int { PlusPlus = 0, PlusMinus = 1, MinusMinus = 2 };

// Fourth-order force constants, grouped by atom quadruple, masses divided in (eV/A^4/amu^2).
struct Fc4View {
  int ngroups;
  const int* group_offset;   // [ngroups + 1]
  const int* group_atoms;    // [ngroups][4]
  const double* phi;         // [nquad][81] ([a][b][c][d])
  const int* cells;          // [nquad][9] lattice coordinates of R_j, R_k, R_l
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

// |V|^2 of a process, (eV/A^4/amu^2)^2.
QUANTA_HD double vertex4(const MeshView& m, const Fc4View& f, int mode1, int mode2, int mode3, int mode4, FourClass c) {
  const int nb = m.nb;
  const bool conj2 = c == FourClass::MinusMinus, conj3 = c != FourClass::PlusPlus;
  int m2[3], m3[3], m4[3];
  mesh_coords(mode2 / nb, m.n, m2);
  mesh_coords(mode3 / nb, m.n, m3);
  mesh_coords(mode4 / nb, m.n, m4);
  // Phase index of quadruplet t: s2 q2.R_j + s3 q3.R_k - q4.R_l in units of 2 pi / L.
  int s2[3], s3[3], s4[3];
  for (int d = 0; d < 3; ++d) {
    s2[d] = (conj2 ? -1 : 1) * m2[d] * f.stride[d];
    s3[d] = (conj3 ? -1 : 1) * m3[d] * f.stride[d];
    s4[d] = -m4[d] * f.stride[d];
  }
  const cplx* e1 = m.eigenvectors + static_cast<long>(mode1) * nb;
  const cplx* e2 = m.eigenvectors + static_cast<long>(mode2) * nb;
  const cplx* e3 = m.eigenvectors + static_cast<long>(mode3) * nb;
  const cplx* e4 = m.eigenvectors + static_cast<long>(mode4) * nb;
  double vre = 0, vim = 0;
  for (int g = 0; g < f.ngroups; ++g) {
    const int* atoms = f.group_atoms + 4 * g;
    cplx x2[3], x3[3], x4[3];
    for (int k = 0; k < 3; ++k) {
      x2[k] = conj2 ? conj(e2[3 * atoms[1] + k]) : e2[3 * atoms[1] + k];
      x3[k] = conj3 ? conj(e3[3 * atoms[2] + k]) : e3[3 * atoms[2] + k];
      x4[k] = conj(e4[3 * atoms[3] + k]);
    }
    cplx p[81];
    for (int a = 0; a < 3; ++a) {
      const cplx ea = e1[3 * atoms[0] + a];
      for (int b = 0; b < 3; ++b) {
        const cplx ab = ea * x2[b];
        for (int cc = 0; cc < 3; ++cc) {
          const cplx abc = ab * x3[cc];
          for (int d = 0; d < 3; ++d) p[27 * a + 9 * b + 3 * cc + d] = abc * x4[d];
        }
      }
    }
    for (int t = f.group_offset[g]; t < f.group_offset[g + 1]; ++t) {
      const double* phi = f.phi + 81 * static_cast<long>(t);
      double re = 0, im = 0;
      for (int e = 0; e < 81; ++e) {
        re += phi[e] * p[e].re;
        im += phi[e] * p[e].im;
      }
      const int* r = f.cells + 9 * static_cast<long>(t);
      const int k = wrap(s2[0] * r[0] + s2[1] * r[1] + s2[2] * r[2] + s3[0] * r[3] + s3[1] * r[4] + s3[2] * r[5] +
                             s4[0] * r[6] + s4[1] * r[7] + s4[2] * r[8],
                         f.roots_n);
      const cplx ph = f.roots[k];
      vre += ph.re * re - ph.im * im;
      vim += ph.re * im + ph.im * re;
    }
  }
  return vre * vre + vim * vim;
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
};

// Calls allowed(mode2, mode3, mode4, delta, sigma) for each allowed process of class c of mode1 (full-mesh
// mode index) whose second and third phonons sit at q2 and q3, in FourPhonon's band order. Each unordered
// set of partners is visited once over all (q2, q3): ++ and -- take q3 >= q2 (k >= j when q3 = q2), +- and
// -- take q4 >= q3 (l >= k when equal). A process is allowed when modes 2-4 have nonzero frequencies and
// |delta| <= sigma, sigma from the velocities of modes 3 and 4; where sigma <= 0.001 rad/ps it then becomes
// 1/sqrt(pi), as in FourPhonon. +- also excludes processes where mode 3 or 4 is mode 1 or 2.
template <class Allowed>
QUANTA_HD void visit_pair4(const MeshView& m, int mode1, int q2, int q3, FourClass c, Allowed&& allowed) {
  const bool pm = c == FourClass::PlusMinus;
  if (!pm && q3 < q2) return;
  const int nb = m.nb;
  const int q4 = fourth_q(m.n, mode1 / nb, q2, q3, c);
  if (c != FourClass::PlusPlus && q4 < q3) return;
  const double w1 = m.omega[mode1];
  for (int j = 0; j < nb; ++j) {
    const int mode2 = q2 * nb + j;
    const double w2 = m.omega[mode2];
    for (int k = (!pm && q3 == q2) ? j : 0; k < nb; ++k) {
      const int mode3 = q3 * nb + k;
      const double w3 = m.omega[mode3];
      for (int l = (c != FourClass::PlusPlus && q4 == q3) ? k : 0; l < nb; ++l) {
        const int mode4 = q4 * nb + l;
        if (pm && (mode3 == mode1 || mode4 == mode1 || mode3 == mode2 || mode4 == mode2)) continue;
        const double w4 = m.omega[mode4];
        if (w2 == 0 || w3 == 0 || w4 == 0) continue;
        double sigma = process_sigma4(m, mode3, mode4);
        const double delta = mismatch4(w1, w2, w3, w4, c);
        if (!(fabs(delta) <= sigma)) continue;
        if (sigma <= double(0.001f)) sigma = 1 / 1.772453850905516027298;  // 1 / sqrt(pi)
        allowed(mode2, mode3, mode4, delta, sigma);
      }
    }
  }
}

// The process's count and phase space; returns whether it carries a rate (FourPhonon gives none to a
// process with a partner at or below 1.25 rad/ps, which still counts).
QUANTA_HD bool count_process4(const MeshView& m, const FourRateInputs& in, int mode2, int mode3, int mode4, double delta,
                              double sigma, FourSums& acc) {
  acc.count += 1;
  acc.p4 += exp(-delta * delta / (sigma * sigma)) / (sigma * in.p4_norm);
  return !(m.omega[mode2] <= 1.25 || m.omega[mode3] <= 1.25 || m.omega[mode4] <= 1.25);
}

// The process's rate and weighted phase space at each temperature, added to `acc`; `rates` receives its
// rates (before FourPhonon's final factor).
QUANTA_HD void rate_process4(const MeshView& m, const Fc4View& f, const FourRateInputs& in, int mode1, int mode2, int mode3,
                             int mode4, FourClass c, FourSums& acc, double* rates) {
  const double w1 = m.omega[mode1], w2 = m.omega[mode2], w3 = m.omega[mode3], w4 = m.omega[mode4];
  double sigma = process_sigma4(m, mode3, mode4);
  if (sigma <= double(0.001f)) sigma = 1 / 1.772453850905516027298;
  const double delta = mismatch4(w1, w2, w3, w4, c);
  const double g = exp(-delta * delta / (sigma * sigma)) / (sigma * 1.772453850905516027298);
  const double v2 = in.with_rates ? vertex4(m, f, mode1, mode2, mode3, mode4, c) : 0.0;
  for (int it = 0; it < in.nT; ++it) {
    const double* n = in.bose + it * in.bose_stride;
    const double weight = occupation4(n[mode2], n[mode3], n[mode4], c) * g / (w1 * w2 * w3 * w4);
    acc.wp4[it] += weight;
    rates[it] = in.prefactor * weight * v2;
    acc.gamma[it] += rates[it];
  }
}

// Everything of the pair (q2, q3) in one call: the CPU's loop. `keep`, when it is not NoProcessSink, receives
// each process that carries a rate: keep(mode2, mode3, mode4, rates), for the iterative BTE.
struct NoProcessSink {
  QUANTA_HD void operator()(int, int, int, const double*) const {}
};
template <class Sink = NoProcessSink>
QUANTA_HD void pair_processes4(const MeshView& m, const Fc4View& f, const FourRateInputs& in, int mode1, int q2, int q3,
                               FourClass c, FourSums& acc, Sink&& keep = Sink{}) {
  visit_pair4(m, mode1, q2, q3, c, [&](int mode2, int mode3, int mode4, double delta, double sigma) {
    if (!count_process4(m, in, mode2, mode3, mode4, delta, sigma, acc)) return;
    double rates[kMaxTemperatures4];
    rate_process4(m, f, in, mode1, mode2, mode3, mode4, c, acc, rates);
    keep(mode2, mode3, mode4, rates);
  });
}

}  // namespace quanta::phonon::kernels
