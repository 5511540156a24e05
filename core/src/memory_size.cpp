#include <cctype>
#include <cmath>
#include <string>

#include "quanta/core/backend.hpp"
#include "quanta/core/error.hpp"

namespace quanta {

std::size_t parse_memory_size(std::string_view text, std::string_view option) {
  const auto fail = [&]() -> std::size_t {
    throw Error(std::string(option) + ": found '" + std::string(text) +
                "', expected a positive size such as 512M, 8G, 1.5GiB or a number of bytes");
  };
  std::size_t pos = 0;
  const auto skip_blanks = [&] {
    while (pos < text.size() && std::isspace(static_cast<unsigned char>(text[pos]))) ++pos;
  };
  skip_blanks();
  // The number: digits with at most one decimal point; no sign, no exponent.
  const std::size_t start = pos;
  bool point = false, digit = false;
  for (; pos < text.size(); ++pos) {
    const char c = text[pos];
    if (std::isdigit(static_cast<unsigned char>(c))) digit = true;
    else if (c == '.' && !point) point = true;
    else break;
  }
  if (!digit) return fail();
  const double number = std::stod(std::string(text.substr(start, pos - start)));
  skip_blanks();

  // The unit: K, M, G or T, optionally followed by "B" or "iB"; all binary multiples of 1024.
  std::string unit;
  for (; pos < text.size() && !std::isspace(static_cast<unsigned char>(text[pos])); ++pos)
    unit += static_cast<char>(std::toupper(static_cast<unsigned char>(text[pos])));
  skip_blanks();
  if (pos != text.size()) return fail();
  double multiple = 1.0;
  if (!unit.empty() && unit != "B") {
    const std::string prefixes = "KMGT";
    const auto p = prefixes.find(unit[0]);
    const std::string rest = unit.substr(1);
    if (p == std::string::npos || !(rest.empty() || rest == "B" || rest == "IB")) return fail();
    multiple = std::pow(1024.0, static_cast<double>(p + 1));
  }
  // A fraction of a byte given as a plain count, zero, or more than 2^63 bytes is not what was meant.
  if (multiple == 1.0 && number != std::floor(number)) return fail();
  const double bytes = std::floor(number * multiple);
  if (bytes < 1.0 || bytes >= 9.2e18) return fail();
  return static_cast<std::size_t>(bytes);
}

}  // namespace quanta
