// Fortran edit descriptors as gfortran's runtime writes them. The digits come from printf, whose
// exact-decimal conversion and round-half-even on ties is what libgfortran uses as well; the layout rules
// (optional leading zero, three-digit exponents without the letter, asterisks on overflow, Infinity/NaN)
// follow libgfortran's write_float.
#include "quanta/core/io/fortran_format.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "quanta/core/error.hpp"

namespace quanta::io {

namespace {

std::string printf_double(const char* fmt, int precision, double v) {
  const int n = std::snprintf(nullptr, 0, fmt, precision, v);
  std::string s(static_cast<std::size_t>(n) + 1, '\0');
  std::snprintf(s.data(), s.size(), fmt, precision, v);
  s.resize(static_cast<std::size_t>(n));
  return s;
}

// Right-justified in `width`, or `width` asterisks when it does not fit.
std::string justify(const std::string& s, int width) {
  const auto w = static_cast<std::size_t>(width);
  return s.size() > w ? std::string(w, '*') : std::string(w - s.size(), ' ') + s;
}

// The first choice when it fits, else the second (the same number without its optional leading zero).
std::string fit(const std::string& with_zero, const std::string& without_zero, int width) {
  return with_zero.size() <= static_cast<std::size_t>(width) ? justify(with_zero, width) : justify(without_zero, width);
}

// Infinity and NaN: "Infinity" when it fits (with its sign if negative), else "Inf", else asterisks.
std::string non_finite(double v, int width) {
  if (std::isnan(v)) return justify("NaN", width);
  const bool neg = std::signbit(v);
  if (width > (neg ? 8 : 7)) return justify(neg ? "-Infinity" : "Infinity", width);
  return justify(neg ? "-Inf" : "Inf", width);
}

// The exponent field of Ew.d and ESw.d without an Ee part: E+dd, or +ddd when it needs three digits.
std::string exponent_field(int e) {
  char buf[16];
  if (std::abs(e) <= 99) std::snprintf(buf, sizeof buf, "E%c%02d", e < 0 ? '-' : '+', std::abs(e));
  else std::snprintf(buf, sizeof buf, "%c%03d", e < 0 ? '-' : '+', std::abs(e));
  return buf;
}

void require(bool ok, const char* descriptor, int width, int digits) {
  if (!ok)
    throw Error(std::string("invalid Fortran edit descriptor ") + descriptor + std::to_string(width) + "." +
                std::to_string(digits));
}

}  // namespace

std::string fortran_E(double v, int width, int digits) {
  require(width > 0 && digits > 0, "E", width, digits);
  if (!std::isfinite(v)) return non_finite(v, width);
  // 0.d1d2...dd x 10^e: printf's d.dd...e(x) with `digits` significant digits, shifted by one place.
  const std::string m = printf_double("%.*e", digits - 1, std::fabs(v));
  const std::size_t epos = m.find('e');
  const int e = v == 0.0 ? 0 : std::atoi(m.c_str() + epos + 1) + 1;
  const std::string mantissa = m.substr(0, 1) + (digits > 1 ? m.substr(2, epos - 2) : "");
  const std::string sign = std::signbit(v) ? "-" : "";
  const std::string body = "." + mantissa + exponent_field(e);
  return fit(sign + "0" + body, sign + body, width);
}

std::string fortran_ES(double v, int width, int digits) {
  require(width > 0 && digits > 0, "ES", width, digits);
  if (!std::isfinite(v)) return non_finite(v, width);
  const std::string m = printf_double("%.*e", digits, std::fabs(v));
  const std::size_t epos = m.find('e');
  const std::string sign = std::signbit(v) ? "-" : "";
  return justify(sign + m.substr(0, epos) + exponent_field(std::atoi(m.c_str() + epos + 1)), width);
}

std::string fortran_F(double v, int width, int digits) {
  require(width >= 0 && digits >= 0, "F", width, digits);
  if (!std::isfinite(v) && width == 0) return std::isnan(v) ? "NaN" : std::signbit(v) ? "-Inf" : "Inf";
  if (!std::isfinite(v)) return non_finite(v, width);
  // '#' keeps the decimal point of F w.0 ("2.").
  const std::string num = printf_double("%#.*f", digits, std::fabs(v));
  const std::string sign = std::signbit(v) ? "-" : "";
  // The zero before the point is optional when digits follow it; F0.d (minimal width) leaves it out.
  const bool zero_optional = digits > 0 && num[0] == '0';
  const std::string without = zero_optional ? sign + num.substr(1) : sign + num;
  if (width == 0) return without;
  return fit(sign + num, without, width);
}

std::string fortran_I(long v, int width) {
  if (width < 0) throw Error("invalid Fortran edit descriptor I" + std::to_string(width));
  const std::string s = std::to_string(v);
  return width == 0 ? s : justify(s, width);
}

std::string fortran_list_real(double v) {
  // gfortran writes a REAL(8) list item as a separating blank and then 1PG25.17E3: fixed notation
  // (20 characters and 5 trailing blanks) for 0.1 <= |v| < 1e17, scientific otherwise, 17 significant digits.
  std::string item = " ";
  if (!std::isfinite(v)) return item += non_finite(v, 25);
  const std::string sign = std::signbit(v) ? "-" : "";
  const std::string sci = printf_double("%.*e", 16, std::fabs(v));
  const std::size_t epos = sci.find('e');
  const int e = std::atoi(sci.c_str() + epos + 1);
  if (v != 0.0 && (e < -1 || e >= 17)) {
    char exp[16];
    std::snprintf(exp, sizeof exp, "E%c%03d", e < 0 ? '-' : '+', std::abs(e));
    return item += justify(sign + sci.substr(0, epos) + exp, 25);
  }
  const int decimals = v == 0.0 ? 16 : 16 - e;
  return item += justify(sign + printf_double("%#.*f", decimals, std::fabs(v)), 20) + "     ";
}

}  // namespace quanta::io
