#include "quanta/linelist/symmetry.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>

#include "quanta/core/error.hpp"

namespace quanta::linelist {

int SymmetryGroup::order() const {
  int h = 0;
  for (int s : class_size) h += s;
  return h;
}

int SymmetryGroup::degeneracy(int gamma) const { return static_cast<int>(std::lround(characters.at(gamma).at(0))); }

int SymmetryGroup::product_contains_dipole(int a, int b) const {
  double n = 0;
  for (std::size_t c = 0; c < class_size.size(); ++c)
    n += class_size[c] * characters[a][c] * characters[b][c] * characters[dipole_irrep][c];
  return static_cast<int>(std::lround(n / order()));
}

namespace {

// Character tables (Bunker & Jensen, Molecular Symmetry and Spectroscopy, appendix A); the space-fixed
// dipole transforms as the irrep that is +1 under permutations and -1 under E* (Gamma*).
std::vector<SymmetryGroup> make_groups() {
  std::vector<SymmetryGroup> g;
  // Cs(M): E, E*
  g.push_back({"Cs(M)", {"A'", "A\""}, {1, 1}, {{1, 1}, {1, -1}}, 1});
  // C2v(M): E, (12), E*, (12)*
  g.push_back({"C2v(M)", {"A1", "A2", "B1", "B2"}, {1, 1, 1, 1},
               {{1, 1, 1, 1}, {1, 1, -1, -1}, {1, -1, -1, 1}, {1, -1, 1, -1}}, 1});
  // C3v(M): E, (123), (23)*
  g.push_back({"C3v(M)", {"A1", "A2", "E"}, {1, 2, 3}, {{1, 1, 1}, {1, 1, -1}, {2, -1, 0}}, 1});
  // D3h(M): E, (123), (23), E*, (123)*, (23)*
  g.push_back({"D3h(M)", {"A1'", "A2'", "E'", "A1\"", "A2\"", "E\""}, {1, 2, 3, 1, 2, 3},
               {{1, 1, 1, 1, 1, 1},
                {1, 1, -1, 1, 1, -1},
                {2, -1, 0, 2, -1, 0},
                {1, 1, 1, -1, -1, -1},
                {1, 1, -1, -1, -1, 1},
                {2, -1, 0, -2, 1, 0}},
               3});
  // D2h(M) (TROVE's table for HOOH, irreps in TROVE's order): the rotations E, C2a, C2b, C2c, then E* and the three
  // permutation-inversions; each element its own class. Gamma* = Au.
  g.push_back({"D2h(M)", {"Ag", "Au", "B1g", "B1u", "B2g", "B2u", "B3g", "B3u"}, {1, 1, 1, 1, 1, 1, 1, 1},
               {{1, 1, 1, 1, 1, 1, 1, 1},
                {1, 1, 1, 1, -1, -1, -1, -1},
                {1, 1, -1, -1, -1, -1, 1, 1},
                {1, 1, -1, -1, 1, 1, -1, -1},
                {1, -1, 1, -1, -1, 1, -1, 1},
                {1, -1, 1, -1, 1, -1, 1, -1},
                {1, -1, -1, 1, 1, -1, -1, 1},
                {1, -1, -1, 1, -1, 1, 1, -1}},
               1});
  // Td(M): E, (123), (14)(23), (1423)*, (23)*
  g.push_back({"Td(M)", {"A1", "A2", "E", "F1", "F2"}, {1, 8, 3, 6, 6},
               {{1, 1, 1, 1, 1}, {1, 1, 1, -1, -1}, {2, -1, 2, 0, 0}, {3, 0, -1, 1, -1}, {3, 0, -1, -1, 1}}, 1});
  return g;
}

const std::vector<SymmetryGroup>& groups() {
  static const std::vector<SymmetryGroup> all = make_groups();
  return all;
}

std::string canonical(std::string_view s) {
  std::string out;
  for (char c : s)
    if (!std::isspace(static_cast<unsigned char>(c))) out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (out.size() > 3 && out.substr(out.size() - 3) == "(m)") out.resize(out.size() - 3);
  return out;
}

}  // namespace

const SymmetryGroup& symmetry_group(std::string_view name) {
  const std::string want = canonical(name);
  for (const auto& g : groups())
    if (canonical(g.name) == want) return g;
  std::string offered;
  for (const auto& n : symmetry_group_names()) offered += (offered.empty() ? "" : ", ") + n;
  throw Error("SYMGROUP: found '" + std::string(name) + "', expected one of " + offered);
}

std::vector<std::string> symmetry_group_names() {
  std::vector<std::string> names;
  for (const auto& g : groups()) names.push_back(g.name);
  return names;
}

}  // namespace quanta::linelist
