#pragma once
#include <string>

namespace quanta::io {

// printf's "%<width>lld", "%<width>.<precision>E" and "%<width>.<precision>f" appended to `out`, byte for byte as
// std::snprintf writes them in the C locale, without printf's parsing of the format on every call: the writers of
// files of 10^9 lines use them. (std::to_chars with a precision is specified to format as printf does; the test
// compares the two on random and edge values.)
void append_printf_d(std::string& out, long long v, int width);
void append_printf_E(std::string& out, double v, int width, int precision);
void append_printf_f(std::string& out, double v, int width, int precision);

}  // namespace quanta::io
