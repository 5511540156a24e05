#pragma once
// Internal to the namelist reader: the spelling rules shared by the parser and the group accessors.
#include <algorithm>
#include <cctype>
#include <string>
#include <string_view>

namespace quanta::io {

// Namelist names are case-insensitive; they are stored lower-cased.
inline std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

// A Fortran name: a letter, then letters, digits or underscores.
inline bool is_identifier(std::string_view s) {
  return !s.empty() && std::isalpha(static_cast<unsigned char>(s[0])) &&
         std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isalnum(c) || c == '_'; });
}

// The spellings of a logical value that can also look like a name: T, F, TRUE, FALSE (any case).
inline bool is_logical_word(std::string_view s) {
  const std::string l = lower(s);
  return l == "t" || l == "f" || l == "true" || l == "false";
}

}  // namespace quanta::io
