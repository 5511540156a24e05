#pragma once
// 2x2 complex band matrices and functions of a Hermitian 2x2 matrix (through its spectral projectors),
// shared by the CPU kernels and their future CUDA twins.
#include "layout.hpp"
#include "quanta/core/complex.hpp"
#include "quanta/core/hd.hpp"

namespace quanta::kbe::kernels {

// Row-major: m[2 j + m] = X_{jm}, the same band-pair order as the [4][nk] blocks (layout.hpp).
struct M2 {
  cplx m[4];
};

QUANTA_HD M2 operator+(const M2& a, const M2& b) { return {{a.m[0] + b.m[0], a.m[1] + b.m[1], a.m[2] + b.m[2], a.m[3] + b.m[3]}}; }
QUANTA_HD M2 operator-(const M2& a, const M2& b) { return {{a.m[0] - b.m[0], a.m[1] - b.m[1], a.m[2] - b.m[2], a.m[3] - b.m[3]}}; }
QUANTA_HD M2 operator*(cplx s, const M2& a) { return {{s * a.m[0], s * a.m[1], s * a.m[2], s * a.m[3]}}; }
QUANTA_HD M2 operator*(double s, const M2& a) { return {{s * a.m[0], s * a.m[1], s * a.m[2], s * a.m[3]}}; }
QUANTA_HD M2 operator*(const M2& a, const M2& b) {
  return {{a.m[0] * b.m[0] + a.m[1] * b.m[2], a.m[0] * b.m[1] + a.m[1] * b.m[3],
           a.m[2] * b.m[0] + a.m[3] * b.m[2], a.m[2] * b.m[1] + a.m[3] * b.m[3]}};
}
QUANTA_HD M2 dagger(const M2& a) { return {{conj(a.m[0]), conj(a.m[2]), conj(a.m[1]), conj(a.m[3])}}; }
QUANTA_HD M2 identity2() { return {{cplx(1.0), cplx(0.0), cplx(0.0), cplx(1.0)}}; }
QUANTA_HD cplx trace(const M2& a) { return a.m[0] + a.m[3]; }
QUANTA_HD double max_abs_diff(const M2& a, const M2& b) {
  double d = 0.0;
  for (int i = 0; i < 4; ++i) {
    const double x = abs(a.m[i] - b.m[i]);
    d = x > d ? x : d;
  }
  return d;
}

// The 2x2 band matrix at one k of a [4][nk] block (layout.hpp).
QUANTA_HD M2 load_block(const cplx* block, int k, int nk) {
  return {{block[in_block(0, k, nk)], block[in_block(1, k, nk)], block[in_block(2, k, nk)], block[in_block(3, k, nk)]}};
}
QUANTA_HD void store_block(cplx* block, int k, int nk, const M2& x) {
  for (int p = 0; p < 4; ++p) block[in_block(p, k, nk)] = x.m[p];
}

// h = sum_s lambda[s] P[s] for a Hermitian h (s = 0: upper, 1: lower eigenvalue). For a degenerate h
// the whole space is P[0] and P[1] = 0, so f(h) = sum_s f(lambda[s]) P[s] holds for any f.
struct Spectral2 {
  double lambda[2];
  M2 P[2];
};

QUANTA_HD Spectral2 spectral(const M2& h) {
  const double a = 0.5 * (h.m[0].re + h.m[3].re);
  const double dz = 0.5 * (h.m[0].re - h.m[3].re);
  const double r = sqrt(dz * dz + norm2(h.m[1]));
  Spectral2 s;
  s.lambda[0] = a + r;
  s.lambda[1] = a - r;
  if (r == 0.0) {
    s.P[0] = identity2();
    s.P[1] = M2{};
    return s;
  }
  // (h - a) / r has eigenvalues +-1; P_+- = (1 +- (h - a) / r) / 2.
  const M2 n = {{cplx(dz / r), h.m[1] / r, conj(h.m[1]) / r, cplx(-dz / r)}};
  s.P[0] = 0.5 * (identity2() + n);
  s.P[1] = 0.5 * (identity2() - n);
  return s;
}

// phi1(z) = (e^z - 1) / z, with its Taylor series near 0 (|z| < 1e-2: the first neglected term is below
// 1e-18), so that a zero eigenvalue needs no special case.
QUANTA_HD cplx phi1(cplx z) {
  if (abs(z) < 1e-2) {
    cplx term(1.0), sum(1.0);
    for (int n = 2; n <= 7; ++n) {
      term = term * z / static_cast<double>(n);
      sum += term;
    }
    return sum;
  }
  const cplx ez = exp(z.re) * expi(z.im);
  const cplx num = ez - cplx(1.0);
  const double d = norm2(z);
  return num * conj(z) / d;
}

}  // namespace quanta::kbe::kernels
