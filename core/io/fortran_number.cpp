// Conversions of one Fortran value token (namelist values, fixed-layout text inputs) to C++ numbers.
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "quanta/core/error.hpp"
#include "quanta/core/io/namelist.hpp"

namespace quanta::io {

namespace {

bool is_digit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }

// [sign] digits [. digits] [exponent] | [sign] . digits [exponent], exponent = (e|E|d|D) [sign] digits.
// Stricter than strtod, which would also take hex floats, "inf" and "nan".
bool is_fortran_real(const std::string& s) {
  std::size_t i = 0;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
  std::size_t mantissa_digits = 0;
  while (i < s.size() && is_digit(s[i])) ++i, ++mantissa_digits;
  if (i < s.size() && s[i] == '.') {
    ++i;
    while (i < s.size() && is_digit(s[i])) ++i, ++mantissa_digits;
  }
  if (mantissa_digits == 0) return false;
  if (i < s.size() && std::strchr("eEdD", s[i])) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    std::size_t exponent_digits = 0;
    while (i < s.size() && is_digit(s[i])) ++i, ++exponent_digits;
    if (exponent_digits == 0) return false;
  }
  return i == s.size();
}

}  // namespace

long parse_fortran_int(const std::string& token, const std::string& file, int line, const std::string& var) {
  std::size_t i = (!token.empty() && (token[0] == '+' || token[0] == '-')) ? 1 : 0;
  bool ok = i < token.size();
  for (; i < token.size(); ++i) ok = ok && is_digit(token[i]);
  errno = 0;
  const long v = ok ? std::strtol(token.c_str(), nullptr, 10) : 0;
  if (!ok || errno == ERANGE) throw InputError(file, line, var, "'" + token + "'", "an integer");
  return v;
}

double parse_fortran_real(const std::string& token, const std::string& file, int line, const std::string& var) {
  if (!is_fortran_real(token)) throw InputError(file, line, var, "'" + token + "'", "a real number");
  std::string c = token;
  for (char& ch : c)
    if (ch == 'd' || ch == 'D') ch = 'e';
  errno = 0;
  const double v = std::strtod(c.c_str(), nullptr);
  // Underflow to zero or a subnormal is harmless; overflow to infinity is not a number the input meant.
  if (errno == ERANGE && std::abs(v) > 1.0)
    throw InputError(file, line, var, "'" + token + "'", "a real number within the range of double precision");
  return v;
}

bool parse_fortran_bool(const std::string& token, const std::string& file, int line, const std::string& var) {
  // The forms gfortran accepts and people write: T, F, .T., .F., TRUE, FALSE, .TRUE., .FALSE. (any case).
  std::string s;
  for (char ch : token) s += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  if (s.size() >= 2 && s.front() == '.' && s.back() == '.') s = s.substr(1, s.size() - 2);
  if (s == "t" || s == "true") return true;
  if (s == "f" || s == "false") return false;
  throw InputError(file, line, var, "'" + token + "'", "a logical (.true. or .false.)");
}

}  // namespace quanta::io
