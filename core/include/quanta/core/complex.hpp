#pragma once
#include <cmath>

#include "quanta/core/hd.hpp"

namespace quanta {

// A double-precision complex number usable in host and device code. Layout-compatible with
// std::complex<double>, cuDoubleComplex and LAPACK's complex*16 (two doubles, real part first), so arrays
// of it can be handed to those libraries by reinterpret_cast.
struct cplx {
  double re = 0.0;
  double im = 0.0;

  QUANTA_HD constexpr cplx() = default;
  QUANTA_HD constexpr cplx(double r, double i = 0.0) : re(r), im(i) {}

  QUANTA_HD cplx& operator+=(cplx b) { re += b.re; im += b.im; return *this; }
  QUANTA_HD cplx& operator-=(cplx b) { re -= b.re; im -= b.im; return *this; }
  QUANTA_HD cplx& operator*=(double s) { re *= s; im *= s; return *this; }
  QUANTA_HD cplx& operator*=(cplx b) { *this = cplx(re * b.re - im * b.im, re * b.im + im * b.re); return *this; }
};

QUANTA_HD cplx operator+(cplx a, cplx b) { return {a.re + b.re, a.im + b.im}; }
QUANTA_HD cplx operator-(cplx a, cplx b) { return {a.re - b.re, a.im - b.im}; }
QUANTA_HD cplx operator-(cplx a) { return {-a.re, -a.im}; }
QUANTA_HD cplx operator*(cplx a, cplx b) { return {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re}; }
QUANTA_HD cplx operator*(double s, cplx a) { return {s * a.re, s * a.im}; }
QUANTA_HD cplx operator*(cplx a, double s) { return {s * a.re, s * a.im}; }
QUANTA_HD cplx operator/(cplx a, double s) { return {a.re / s, a.im / s}; }
QUANTA_HD cplx conj(cplx a) { return {a.re, -a.im}; }
QUANTA_HD double norm2(cplx a) { return a.re * a.re + a.im * a.im; }
QUANTA_HD double abs(cplx a) { return sqrt(norm2(a)); }
// e^{i phi}
QUANTA_HD cplx expi(double phi) { return {cos(phi), sin(phi)}; }

}  // namespace quanta
