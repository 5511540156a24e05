#include "quanta/core/complex.hpp"

#include <gtest/gtest.h>

#include <complex>

using quanta::cplx;

// std::complex is the independent reference for every operation.
TEST(Complex, AgreesWithStdComplex) {
  const cplx a(1.5, -2.0), b(-0.25, 3.0);
  const std::complex<double> sa(1.5, -2.0), sb(-0.25, 3.0);
  const auto same = [](cplx x, std::complex<double> y) {
    EXPECT_DOUBLE_EQ(x.re, y.real());
    EXPECT_DOUBLE_EQ(x.im, y.imag());
  };
  same(a + b, sa + sb);
  same(a - b, sa - sb);
  same(a * b, sa * sb);
  same(-a, -sa);
  same(2.5 * a, 2.5 * sa);
  same(a * 2.5, sa * 2.5);
  same(a / 4.0, sa / 4.0);
  same(conj(a), std::conj(sa));
  same(quanta::expi(0.7), std::polar(1.0, 0.7));
  EXPECT_DOUBLE_EQ(norm2(a), std::norm(sa));
  EXPECT_DOUBLE_EQ(quanta::abs(a), std::abs(sa));
  cplx c = a;
  c *= b;
  c += a;
  c -= b;
  c *= 0.5;
  same(c, (sa * sb + sa - sb) * 0.5);
  static_assert(sizeof(cplx) == sizeof(std::complex<double>));
}
