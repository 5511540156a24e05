// The printf-equivalent formatters against std::snprintf itself, on the values the line-list writers print and on
// the cases where a formatter most easily differs: rounding that carries into a new digit or exponent, ties of the
// decimal representation, zeros of either sign, subnormals, the largest doubles, non-finite values, fields narrower
// than the text and integers at their limits.
#include <gtest/gtest.h>

#include <bit>
#include <cfloat>
#include <climits>
#include <cmath>
#include <cstdio>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "quanta/core/io/printf_format.hpp"

using namespace quanta::io;

namespace {

std::string printf_of(const char* fmt, double v) {
  char buf[512];
  std::snprintf(buf, sizeof buf, fmt, v);
  return buf;
}

std::string ours_E(double v, int w, int p) {
  std::string s;
  append_printf_E(s, v, w, p);
  return s;
}

std::string ours_f(double v, int w, int p) {
  std::string s;
  append_printf_f(s, v, w, p);
  return s;
}

std::vector<double> edge_values() {
  std::vector<double> v = {0.0, -0.0, 1.0, -1.0, 9.999999995, 9.9999999949999, 99999.9999995, 0.5, 1.5, 2.5, 0.125, 1e-300,
                           DBL_MIN, DBL_TRUE_MIN, DBL_MAX, -DBL_MAX, 1e22, 1e23, 123456.1234565, 0.0000005, 0.0000015, 2.2e-16,
                           std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity(),
                           std::numeric_limits<double>::quiet_NaN(), -std::numeric_limits<double>::quiet_NaN()};
  for (int e = -320; e <= 308; e += 7) v.push_back(std::pow(10.0, e)), v.push_back(-9.5 * std::pow(10.0, e));
  return v;
}

}  // namespace

TEST(PrintfFormat, ScientificMatchesSnprintf) {
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> mant(-10.0, 10.0);
  std::uniform_int_distribution<int> expo(-310, 300);
  auto values = edge_values();
  for (int i = 0; i < 200000; ++i) values.push_back(mant(rng) * std::pow(10.0, expo(rng)));
  for (int i = 0; i < 100000; ++i) values.push_back(std::bit_cast<double>(rng()));  // every bit pattern, NaNs included
  int differ = 0;
  for (const double v : values)
    for (const auto& [w, p] : std::vector<std::pair<int, int>>{{16, 8}, {12, 4}, {5, 2}, {0, 0}, {30, 17}}) {
      char fmt[32];
      std::snprintf(fmt, sizeof fmt, "%%%d.%dE", w, p);
      const std::string a = printf_of(fmt, v), b = ours_E(v, w, p);
      if (a != b && ++differ <= 10) ADD_FAILURE() << fmt << " of " << v << ": snprintf '" << a << "', ours '" << b << "'";
    }
  EXPECT_EQ(differ, 0);
}

TEST(PrintfFormat, FixedMatchesSnprintf) {
  std::mt19937_64 rng(12);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  auto values = edge_values();
  for (int i = 0; i < 200000; ++i) values.push_back(u(rng) * 40000.0);  // wavenumbers
  for (int i = 0; i < 50000; ++i) values.push_back((u(rng) - 0.5) * std::pow(10.0, 40.0 * u(rng) - 20.0));
  // Values a hair from a rounding boundary of the sixth decimal.
  for (int i = 0; i < 50000; ++i) {
    const double b = (std::floor(u(rng) * 4e10) + 0.5) * 1e-6;
    values.push_back(b), values.push_back(std::nextafter(b, 0.0)), values.push_back(std::nextafter(b, 1e9));
  }
  int differ = 0;
  for (const double v : values)
    for (const auto& [w, p] : std::vector<std::pair<int, int>>{{16, 6}, {12, 6}, {8, 1}, {15, 4}, {0, 0}, {3, 2}, {0, 120}}) {
      char fmt[32];
      std::snprintf(fmt, sizeof fmt, "%%%d.%df", w, p);
      const std::string a = printf_of(fmt, v), b = ours_f(v, w, p);
      if (a != b && ++differ <= 10) ADD_FAILURE() << fmt << " of " << v << ": snprintf '" << a << "', ours '" << b << "'";
    }
  EXPECT_EQ(differ, 0);
}

TEST(PrintfFormat, IntegersMatchSnprintf) {
  std::mt19937_64 rng(13);
  std::vector<long long> values = {0, 1, -1, 9, 10, 99, 100, -100, 123456789012, LLONG_MAX, LLONG_MIN, INT_MAX, INT_MIN};
  for (int i = 0; i < 100000; ++i) values.push_back(static_cast<long long>(rng()) >> (rng() % 64));
  for (const long long v : values)
    for (const int w : {12, 6, 1, 0, 25}) {
      char fmt[32], buf[64];
      std::snprintf(fmt, sizeof fmt, "%%%dlld", w);
      std::snprintf(buf, sizeof buf, fmt, v);
      std::string s;
      append_printf_d(s, v, w);
      ASSERT_EQ(s, buf) << fmt << " of " << v;
    }
}
