#include "quanta/core/io/printf_format.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <system_error>
#include <vector>

namespace quanta::io {
namespace {

// `text` right-justified in `width` (printf's default for a field width).
void append_padded(std::string& out, const char* text, std::size_t n, int width) {
  if (width > 0 && static_cast<std::size_t>(width) > n) out.append(static_cast<std::size_t>(width) - n, ' ');
  out.append(text, n);
}

// inf and nan as printf writes them under %E (upper case) and %f (lower case), with the sign of the value.
std::size_t non_finite(char* buf, double v, bool upper) {
  const char* word = std::isnan(v) ? (upper ? "NAN" : "nan") : (upper ? "INF" : "inf");
  std::size_t n = 0;
  if (std::signbit(v)) buf[n++] = '-';
  for (const char* c = word; *c; ++c) buf[n++] = *c;
  return n;
}

// %E (scientific, upper case) or %f (fixed, lower case).
void append_float(std::string& out, double v, int width, int precision, std::chars_format how) {
  const bool upper = how == std::chars_format::scientific;
  char buf[400];
  std::size_t n;
  if (!std::isfinite(v)) {
    n = non_finite(buf, v, upper);
  } else {
    const auto r = std::to_chars(buf, buf + sizeof buf, v, how, precision);
    if (r.ec != std::errc()) {  // longer than the buffer (a precision in the hundreds): printf itself
      const std::string fmt = upper ? "%*.*E" : "%*.*f";
      std::vector<char> big(static_cast<std::size_t>(std::snprintf(nullptr, 0, fmt.c_str(), width, precision, v)) + 1);
      std::snprintf(big.data(), big.size(), fmt.c_str(), width, precision, v);
      out.append(big.data(), big.size() - 1);
      return;
    }
    n = static_cast<std::size_t>(r.ptr - buf);
    if (upper) std::replace(buf, buf + n, 'e', 'E');
  }
  append_padded(out, buf, n, width);
}

}  // namespace

void append_printf_d(std::string& out, long long v, int width) {
  char buf[24];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  append_padded(out, buf, static_cast<std::size_t>(r.ptr - buf), width);
}

void append_printf_E(std::string& out, double v, int width, int precision) { append_float(out, v, width, precision, std::chars_format::scientific); }

void append_printf_f(std::string& out, double v, int width, int precision) { append_float(out, v, width, precision, std::chars_format::fixed); }

}  // namespace quanta::io
