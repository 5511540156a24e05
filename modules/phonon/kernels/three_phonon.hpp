#pragma once
// Three-phonon processes on the q-mesh, one function per step, shared by the CPU and CUDA backends:
//   allowed(...)  the energy-conservation test of an absorption (+) or emission (-) process under the
//                 adaptive Gaussian broadening,
//   vertex2(...)  |V+-|^2 of one process from the third-order force constants,
// as ShengBTE/FourPhonon define them (Li et al., CPC 185, 1747 (2014)):
//   V+(q i, q' j, q'' k) = sum_t e^{ i q'.R_j(t)} e^{-i q''.R_k(t)} sum_abc Phi_t^abc / sqrt(m m' m'')
//                                       e_i(q)_{A a} e_j(q')_{B b} conj(e_k(q''))_{C c},  q'' = q + q'
//   V-(q i, q' j, q'' k) = sum_t e^{-i q'.R_j(t)} e^{-i q''.R_k(t)} sum_abc Phi_t^abc / sqrt(m m' m'')
//                                       e_i(q)_{A a} conj(e_j(q'))_{B b} conj(e_k(q''))_{C c},  q'' = q - q'
// The triplets are grouped by their atoms (A, B, C) so that the 27 eigenvector products of a process are
// formed once per group, and the phases are exact roots of unity: q' and q'' are mesh points and R_j, R_k
// lattice vectors, so q'.R = 2 pi sum_d m_d n_d / N_d, looked up in a table of e^{2 pi i k / L},
// L = lcm(N_1, N_2, N_3).
#include <cmath>

#include "quanta/core/complex.hpp"
#include "quanta/core/hd.hpp"
#include "sampling.hpp"

namespace quanta::phonon::kernels {

// The mesh, the harmonic data on it (full mesh, mode index = q * nb + band) and the broadening.
struct MeshView {
  int n[3];
  int nptk, nb;
  const double* omega;       // [nptk][nb] rad/ps
  const double* velocity;    // [nptk][nb][3] km/s
  const cplx* eigenvectors;  // [nptk][nb][nb]
  double reciprocal[3][3];   // b_i, nm^-1
  double scalebroad;
  double omega_max;          // rad/ps: irreducible modes above it get no processes (FourPhonon's omega_max)
  const double* width_terms; // [nptk][nb][4] (four-phonon selection only; kernels/four_phonon.hpp width_terms)
  const int* ws_image;       // [nptk][3] first-zone images, units of 1/N_d (four-phonon Normal/Umklapp only)
};

// Third-order force constants, grouped by atom triple, masses divided in (eV/A^3/amu^1.5).
struct Fc3View {
  int ngroups;
  const int* group_offset;   // [ngroups + 1] triplets of group g are [group_offset[g], group_offset[g+1])
  const int* group_atoms;    // [ngroups][3]
  const double* phi;         // [ntri][27] ([a][b][c])
  const int* cells;          // [ntri][6] lattice coordinates of R_j (3) then R_k (3)
  int roots_n;               // L
  int stride[3];             // L / N_d
  const cplx* roots;         // [L] e^{2 pi i k / L}
};

QUANTA_HD int wrap(int i, int n) {
  const int r = i % n;
  return r < 0 ? r + n : r;
}

QUANTA_HD int mesh_index(const int m[3], const int n[3]) { return m[0] + n[0] * (m[1] + n[1] * m[2]); }

QUANTA_HD void mesh_coords(int id, const int n[3], int m[3]) {
  m[0] = id % n[0];
  m[1] = (id / n[0]) % n[1];
  m[2] = id / (n[0] * n[1]);
}

// FourPhonon's adaptive width for a velocity (difference) v: sqrt(max_d ((b_d . v) / N_d)^2 / 2), rad/ps.
// `reciprocal` holds b_1, b_2, b_3 (nm^-1) one after the other.
QUANTA_HD double base_sigma(const double* reciprocal, const int* n, const double* v) {
  double mx = 0;
  for (int d = 0; d < 3; ++d) {
    const double* b = reciprocal + 3 * d;
    const double p = (b[0] * v[0] + b[1] * v[1] + b[2] * v[2]) / n[d];
    mx = p * p > mx ? p * p : mx;
  }
  return sqrt(mx / 2);
}

// Width of a process from the velocities of its second and third phonons.
QUANTA_HD double process_sigma(const MeshView& m, int mode2, int mode3) {
  const double* v2 = m.velocity + 3 * static_cast<long>(mode2);
  const double* v3 = m.velocity + 3 * static_cast<long>(mode3);
  const double dv[3] = {v2[0] - v3[0], v2[1] - v3[1], v2[2] - v3[2]};
  return m.scalebroad * base_sigma(&m.reciprocal[0][0], m.n, dv);
}

// The third q-point of a process: q'' = q + q' (plus) or q - q' (minus), wrapped onto the mesh.
QUANTA_HD int third_q(const int n[3], int q, int q2, bool plus) {
  int a[3], b[3], c[3];
  mesh_coords(q, n, a);
  mesh_coords(q2, n, b);
  for (int d = 0; d < 3; ++d) c[d] = wrap(plus ? a[d] + b[d] : a[d] - b[d], n[d]);
  return mesh_index(c, n);
}

// Does an irreducible mode of frequency omega scatter at all: the zero-frequency acoustic modes at Gamma and
// the modes above omega_max get no processes, as in FourPhonon.
QUANTA_HD bool scatters(const MeshView& m, double omega) { return omega != 0 && omega <= m.omega_max; }

// Is the process (omega, mode2, mode3) allowed: all three frequencies nonzero and
// |omega +- omega' - omega''| <= 2 sigma.
QUANTA_HD bool allowed(const MeshView& m, double omega, int mode2, int mode3, bool plus) {
  const double w2 = m.omega[mode2], w3 = m.omega[mode3];
  if (w2 == 0 || w3 == 0) return false;
  const double sigma = process_sigma(m, mode2, mode3);
  const double mismatch = plus ? omega + w2 - w3 : omega - w2 - w3;
  return fabs(mismatch) <= 2 * sigma;
}

// exp(-Delta^2 / sigma^2) / (sigma sqrt(pi)) of an allowed process, with ShengBTE's evaluation order;
// `sigma_out` receives sigma.
QUANTA_HD double process_gaussian(const MeshView& m, double omega, int mode2, int mode3, bool plus) {
  const double w2 = m.omega[mode2], w3 = m.omega[mode3];
  const double sigma = process_sigma(m, mode2, mode3);
  const double mismatch = plus ? omega + w2 - w3 : omega - w2 - w3;
  return exp(-(mismatch * mismatch) / (sigma * sigma)) / sigma / 1.772453850905516027298;  // sqrt(pi)
}

// The process's share of the weighted phase space, (n' - n'') G / (omega omega' omega'') for absorption and
// (n' + n'' + 1) G / (omega omega' omega'') for emission; its rate is this times |V|^2 and a constant.
// `bose` holds the occupations of the full mesh ([nptk][nb]).
QUANTA_HD double process_weight(const MeshView& m, const double* bose, double omega, int mode2, int mode3, bool plus) {
  const double pop = plus ? bose[mode2] - bose[mode3] : bose[mode2] + bose[mode3] + 1;
  return pop * process_gaussian(m, omega, mode2, mode3, plus) / (omega * m.omega[mode2] * m.omega[mode3]);
}

// |V|^2 of the process (mode1 -> irreducible phonon, mode2 = q' j, mode3 = q'' k), (eV/A^3/amu^1.5)^2.
QUANTA_HD double vertex2(const MeshView& m, const Fc3View& f, int mode1, int mode2, int mode3, bool plus) {
  const int nb = m.nb;
  const int q2 = mode2 / nb, q3 = mode3 / nb;
  int m2[3], m3[3];
  mesh_coords(q2, m.n, m2);
  mesh_coords(q3, m.n, m3);
  // Phase index of triplet t: sign * sum_d m2_d R_j,d stride_d - sum_d m3_d R_k,d stride_d (mod L).
  int s2[3], s3[3];
  for (int d = 0; d < 3; ++d) {
    s2[d] = (plus ? 1 : -1) * m2[d] * f.stride[d];
    s3[d] = m3[d] * f.stride[d];
  }
  const cplx* e1 = m.eigenvectors + static_cast<long>(mode1) * nb;
  const cplx* e2 = m.eigenvectors + static_cast<long>(mode2) * nb;
  const cplx* e3 = m.eigenvectors + static_cast<long>(mode3) * nb;
  double vre = 0, vim = 0;
  for (int g = 0; g < f.ngroups; ++g) {
    const int A = f.group_atoms[3 * g], B = f.group_atoms[3 * g + 1], C = f.group_atoms[3 * g + 2];
    cplx x2[3], x3[3];
    for (int b = 0; b < 3; ++b) x2[b] = plus ? e2[3 * B + b] : conj(e2[3 * B + b]);
    for (int c = 0; c < 3; ++c) x3[c] = conj(e3[3 * C + c]);
    cplx p[27];
    for (int a = 0; a < 3; ++a) {
      const cplx ea = e1[3 * A + a];
      for (int b = 0; b < 3; ++b) {
        const cplx ab = ea * x2[b];
        for (int c = 0; c < 3; ++c) p[9 * a + 3 * b + c] = ab * x3[c];
      }
    }
    for (int t = f.group_offset[g]; t < f.group_offset[g + 1]; ++t) {
      const double* phi = f.phi + 27 * static_cast<long>(t);
      double re = 0, im = 0;
      for (int e = 0; e < 27; ++e) {
        re += phi[e] * p[e].re;
        im += phi[e] * p[e].im;
      }
      const int* r = f.cells + 6 * static_cast<long>(t);
      const int k = wrap(s2[0] * r[0] + s2[1] * r[1] + s2[2] * r[2] - s3[0] * r[3] - s3[1] * r[4] - s3[2] * r[5], f.roots_n);
      const cplx ph = f.roots[k];
      vre += ph.re * re - ph.im * im;
      vim += ph.re * im + ph.im * re;
    }
  }
  return vre * vre + vim * vim;
}

// The candidates of an irreducible mode (q-point q, frequency omega) come in work items. Exact: item i is
// every (j, k) at q' = i (Nq items). Sampled (FourPhonon's num_sample_process_3ph and its phase-space twin,
// kernels/sampling.hpp): item i is draw i of the mode's stream, one candidate (q', j, k) drawn uniformly from
// the Nq nb^2 (Ns items). visit_item3 calls emit(mode2, mode3) for each allowed candidate of the item, in
// ShengBTE's (q', j, k) order, so that a mode's list is its items' lists one after the other.
QUANTA_HD bool sampled(const ProcessSample& s) { return s.draws > 0; }
QUANTA_HD long long items3(const MeshView& m, const ProcessSample& s) { return sampled(s) ? s.draws : m.nptk; }
// The stream of irreducible mode `mode` and a sign: class 3 of sample_stream, the purpose doubled for the sign.
QUANTA_HD unsigned long long stream3(const ProcessSample& s, int mode, bool plus) {
  return sample_stream(s.seed, 2 * s.purpose + (plus ? 0 : 1), mode, 3);
}
template <class Emit>
QUANTA_HD void visit_item3(const MeshView& m, int q, double omega, bool plus, const ProcessSample& s, unsigned long long stream,
                           long long item, Emit&& emit) {
  const int nb = m.nb;
  if (sampled(s)) {
    unsigned long long state = draw_state(stream, item);
    const int q2 = draw_below(state, m.nptk), j = draw_below(state, nb), k = draw_below(state, nb);
    const int mode2 = q2 * nb + j, mode3 = third_q(m.n, q, q2, plus) * nb + k;
    if (allowed(m, omega, mode2, mode3, plus)) emit(mode2, mode3);
    return;
  }
  const int q2 = static_cast<int>(item), q3 = third_q(m.n, q, q2, plus);
  for (int j = 0; j < nb; ++j)
    for (int k = 0; k < nb; ++k)
      if (allowed(m, omega, q2 * nb + j, q3 * nb + k, plus)) emit(q2 * nb + j, q3 * nb + k);
}

}  // namespace quanta::phonon::kernels
