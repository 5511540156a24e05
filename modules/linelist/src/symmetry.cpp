#include "quanta/linelist/symmetry.hpp"

#include <algorithm>
#include <bit>
#include <cctype>
#include <cmath>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>

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
  // C2h(M) (TROVE's table, e.g. trans-HPPH, irreps in TROVE's order Ag, Au, Bg, Bu): the operations E, (12)(34),
  // E*, (12)(34)* as TROVE's mol_abcd.f90 numbers them (atoms P1 P2 H3 H4); each element its own class.
  // Gamma* (+1 on the permutation, -1 on E* and the permutation-inversion) = Au, so TROVE's pairs Ag<->Au and
  // Bg<->Bu ("selection 1 1 2 2" in its HPPH input) are the dipole-allowed ones.
  g.push_back({"C2h(M)", {"Ag", "Au", "Bg", "Bu"}, {1, 1, 1, 1},
               {{1, 1, 1, 1}, {1, 1, -1, -1}, {1, -1, -1, 1}, {1, -1, 1, -1}}, 1});
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

// TROVE's artificial group for linear triatomic molecules, "SYMGROUP Csn N" (TROVE's docs: C_ns(AEM); symmetry.f90,
// group CSN), N the largest vibrational angular momentum l (= k) of the basis. Its 2^n one-dimensional irreps,
// n = ceil(log2(2 (N + 1))), are in TROVE's order A', A", e1, f1, e2, f2, ... (A'_l and A"_l of its docs: Gamma =
// 2l + 1 and 2l + 2); each of its 2^n elements is its own class, and the character table is the Sylvester-Hadamard
// matrix, chi(Gamma, c) = (-1)^popcount((Gamma - 1) & (c - 1)). So irreps multiply as their 0-based numbers XOR:
// A'_l x A"_l' = the irrep 2 (l xor l') + 1 (0-based), and Gamma* = A" (the operations E^a leave the dipole
// unchanged, sigma^a act on it as sigma^0 = E*) lies in the product only when l = l': TROVE's pairs e_l <-> f_l
// ("selection 1 1 2 2 3 3 ..."). The rotational function (K, tau) is A'_K or A"_K (by tau when the end atoms
// differ, by K + tau when they are equal; mol_xy2.f90), so a product with a vibrational function of l = K is A' or
// A": only A' and A" are physical. TROVE's J > 0 basis keeps only the products with K = l, so there the l > 0 irreps
// are empty; at J = 0 they hold the vibrational functions of l > 0 (the basis of K = l), which are no physical states
// and get GNS 0.
constexpr int kCsnMaxN = 511;  // TROVE's labels have 4 characters: up to e511/f511

SymmetryGroup make_csn(int n_max) {
  int n = 1;
  while ((1 << n) < 2 * (n_max + 1)) ++n;
  const int size = 1 << n;
  SymmetryGroup g;
  g.name = "Csn ";
  g.name += std::to_string(n_max);
  g.class_size.assign(size, 1);
  g.characters.assign(size, std::vector<double>(size, 1.0));
  for (int a = 0; a < size; ++a) {
    std::string label = a == 0 ? "A'" : a == 1 ? "A\"" : a % 2 == 0 ? "e" : "f";
    if (a > 1) label += std::to_string(a / 2);
    g.irreps.push_back(label);
    for (int c = 0; c < size; ++c)
      if (std::popcount(static_cast<unsigned>(a & c)) % 2) g.characters[a][c] = -1.0;
  }
  g.dipole_irrep = 1;
  return g;
}

// "Csn N", "Cs(N) N", "Csn(M) N" (case-insensitive; without N, TROVE's default N = 1). Returns nullptr for other
// names.
const SymmetryGroup* csn_group(std::string_view name) {
  std::istringstream in{std::string(name)};
  std::string word, rest;
  in >> word;
  std::string w;
  for (char c : word) w += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (w != "csn" && w != "cs(n)" && w != "csn(m)") return nullptr;
  int n_max = 1;
  if (in >> rest) {
    std::size_t used = 0;
    try {
      n_max = std::stoi(rest, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    std::string extra;
    if (used != rest.size() || (in >> extra))
      throw Error("SYMGROUP: found '" + std::string(name) + "', expected Csn N with N an integer (the largest vibrational angular momentum)");
  }
  if (n_max < 0 || n_max > kCsnMaxN)
    throw Error("SYMGROUP: Csn " + std::to_string(n_max) + ": N must be 0.." + std::to_string(kCsnMaxN) +
                " (the largest vibrational angular momentum l = k of the basis)");
  static std::mutex mutex;
  static std::map<int, std::unique_ptr<SymmetryGroup>> made;
  const std::lock_guard<std::mutex> lock(mutex);
  auto& g = made[n_max];
  if (!g) g = std::make_unique<SymmetryGroup>(make_csn(n_max));
  return g.get();
}

// TROVE's other groups (symmetry.f90), refused by name: those of linear molecules first.
void refuse_other_trove_group(std::string_view name) {
  std::istringstream in{std::string(name)};
  std::string w;
  in >> w;
  w = canonical(w);
  const std::string what =
      w == "c2vn" || w == "c2v(n)" ? "C2vn, TROVE's group of symmetric linear triatomics (XY2 with K = l, e.g. CO2; SYMGROUP C2vn N)"
      : w == "dnh" || w == "dinftyh" ? "Dnh(M) / D-infinity-h(M), TROVE's groups of linear molecules with a centre of symmetry (e.g. HCCH)"
      : w == "cnv" ? "Cnv(M), TROVE's group of linear molecules without a centre of symmetry (C-infinity-v(M))"
      : w == "c" || w == "cs(em)" || w == "g4" || w == "g4(em)" || w == "g36" || w == "d3d" ? "TROVE's group " + std::string(name)
      : "";
  if (!what.empty())
    throw Error("SYMGROUP " + std::string(name) + ": " + what +
                " is not implemented in quanta linelist; implemented: Cs(M), C2v(M), C3v(M), D3h(M), D2h(M), C2h(M), Td(M) and "
                "Csn N (TROVE's group of linear triatomics with unequal ends, e.g. N2O)");
}

}  // namespace

const SymmetryGroup& symmetry_group(std::string_view name) {
  const std::string want = canonical(name);
  for (const auto& g : groups())
    if (canonical(g.name) == want) return g;
  if (const SymmetryGroup* g = csn_group(name)) return *g;
  refuse_other_trove_group(name);
  std::string offered;
  for (const auto& n : symmetry_group_names()) offered += (offered.empty() ? "" : ", ") + n;
  throw Error("SYMGROUP: found '" + std::string(name) + "', expected one of " + offered + ", Csn N (TROVE's group of linear triatomics)");
}

std::vector<std::string> symmetry_group_names() {
  std::vector<std::string> names;
  for (const auto& g : groups()) names.push_back(g.name);
  return names;
}

}  // namespace quanta::linelist
