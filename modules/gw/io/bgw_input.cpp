// BerkeleyGW's keyword inputs, epsilon.inp and sigma.inp. The policy, the same for both files:
// - a keyword quanta does not implement is refused naming the file, line and keyword, with the list of
//   those it implements (a feature quanta lacks is never silently ignored);
// - a repeated keyword: the last one wins, as in BerkeleyGW, with a warning naming both lines;
// - values are checked here against their valid range, before any file is read.
#include <cmath>
#include <functional>
#include <map>
#include <sstream>

#include "quanta/core/error.hpp"
#include "quanta/core/io/input_file.hpp"
#include "quanta/core/progress.hpp"
#include "quanta/gw/inputs.hpp"

namespace quanta::gw {
namespace {

struct Line {
  int number;
  std::string keyword;
  std::vector<std::string> values;
};

std::vector<Line> read_lines(const std::filesystem::path& file, const std::string& what) {
  auto in = io::open_input_file(file, what);
  std::vector<Line> out;
  std::string text;
  for (int n = 1; std::getline(in, text); ++n) {
    if (auto h = text.find('#'); h != std::string::npos) text.resize(h);
    std::istringstream s(text);
    Line l{n, {}, {}};
    if (!(s >> l.keyword)) continue;
    for (std::string w; s >> w;) l.values.push_back(w);
    out.push_back(std::move(l));
  }
  return out;
}

double number(const std::filesystem::path& f, const Line& l, std::size_t i, const std::string& field) {
  if (i >= l.values.size()) throw InputError(f.string(), l.number, field, "nothing", "a number");
  try {
    std::size_t used = 0;
    std::string v = l.values[i];
    for (auto& ch : v)
      if (ch == 'd' || ch == 'D') ch = 'e';
    const double x = std::stod(v, &used);
    if (used != v.size() || !std::isfinite(x)) throw std::invalid_argument("");
    return x;
  } catch (const std::exception&) {
    throw InputError(f.string(), l.number, field, "'" + l.values[i] + "'", "a number");
  }
}

int integer(const std::filesystem::path& f, const Line& l, std::size_t i, const std::string& field) {
  const double x = number(f, l, i, field);
  if (std::abs(x) > 2e9 || x != std::floor(x)) throw InputError(f.string(), l.number, field, "'" + l.values[i] + "'", "an integer");
  return static_cast<int>(x);
}

// How a keyword line is read: its values and their range.
enum class Kind { Flag, Integer, Real };

struct Keyword {
  Kind kind;
  double min, max;        // the valid range (inclusive); Flag: unused
  std::string range;      // the range in words, for the message
};

struct Refused {
  std::string why;        // what quanta does instead
};

// Keywords of features quanta does not implement, refused by name with the reason. Both files.
const std::map<std::string, Refused>& refused_keywords() {
  static const std::map<std::string, Refused> m = [] {
    std::map<std::string, Refused> r;
    const std::string screening = "quanta implements screening_semiconductor only (insulators and semiconductors)";
    r["screening_metal"] = {screening};
    r["screening_graphene"] = {screening};
    const std::string trunc = "quanta implements bulk systems without Coulomb truncation";
    for (const char* k : {"spherical_truncation", "cell_wire_truncation", "cell_box_truncation", "cell_slab_truncation",
                          "supercell_box_truncation", "coulomb_truncation_x", "coulomb_truncation_radius"})
      r[k] = {trunc};
    return r;
  }();
  return m;
}

std::string list_of(const std::map<std::string, Keyword>& known, const std::string& block) {
  std::string s;
  for (const auto& [name, k] : known) s += name + ", ";
  return s + "begin " + block + " ... end";
}

// Reads a keyword file: blocks go to `block(name line, rows)`, keywords (checked against `known`, the
// last of repeated ones) to `keyword(line)`.
void walk(const std::filesystem::path& f, const std::string& what, const std::map<std::string, Keyword>& known, const std::string& block_name,
          const std::function<void(const Line&)>& keyword, const std::function<void(const Line&, const std::vector<Line>&)>& block) {
  const auto lines = read_lines(f, what);
  std::map<std::string, int> seen;  // keyword -> line of its last occurrence
  std::vector<const Line*> last;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const Line& l = lines[i];
    if (l.keyword == "begin") {
      if (l.values.size() != 1 || l.values[0] != block_name)
        throw InputError(f.string(), l.number, "begin", l.values.empty() ? "nothing" : "'" + l.values[0] + "'", "'begin " + block_name + "'");
      std::vector<Line> rows;
      std::size_t j = i + 1;
      for (; j < lines.size() && lines[j].keyword != "end"; ++j) rows.push_back(lines[j]);
      if (j == lines.size()) throw InputError(f.string(), l.number, "begin " + block_name, "no 'end'", "an 'end' line closing the block");
      if (auto s = seen.find("begin " + block_name); s != seen.end())
        throw InputError(f.string(), l.number, "begin " + block_name, "a second block (the first at line " + std::to_string(s->second) + ")",
                         "one block");
      seen["begin " + block_name] = l.number;
      block(l, rows);
      i = j;
      continue;
    }
    if (auto r = refused_keywords().find(l.keyword); r != refused_keywords().end())
      throw InputError(f.string(), l.number, l.keyword, "'" + l.keyword + "', not implemented", r->second.why);
    const auto k = known.find(l.keyword);
    if (k == known.end())
      throw InputError(f.string(), l.number, l.keyword, "'" + l.keyword + "', a keyword quanta does not implement",
                       "one of " + list_of(known, block_name) + " (docs/gw.md)");
    const Keyword& spec = k->second;
    if (spec.kind == Kind::Flag) {
      if (!l.values.empty()) throw InputError(f.string(), l.number, l.keyword, "'" + l.values[0] + "'", "nothing after the flag");
    } else {
      if (l.values.size() != 1)
        throw InputError(f.string(), l.number, l.keyword, std::to_string(l.values.size()) + " values", "one value, " + spec.range);
      const double x = spec.kind == Kind::Integer ? integer(f, l, 0, l.keyword) : number(f, l, 0, l.keyword);
      if (!(x >= spec.min && x <= spec.max)) throw InputError(f.string(), l.number, l.keyword, l.values[0], spec.range);
    }
    if (auto s = seen.find(l.keyword); s != seen.end())
      warn("gw", f.string() + ": " + l.keyword + " is given at lines " + std::to_string(s->second) + " and " + std::to_string(l.number) +
                     "; the last one (line " + std::to_string(l.number) + ") is used, as BerkeleyGW does");
    seen[l.keyword] = l.number;
    last.push_back(&l);
  }
  // Applied in order, so that the last of repeated keywords wins.
  for (const Line* l : last) keyword(*l);
}

// Keywords that mean the same in both files.
void add_common(std::map<std::string, Keyword>& k) {
  k["degeneracy_check_override"] = {Kind::Flag, 0, 0, ""};
  // BerkeleyGW's log volume, 1 (default) to 6 (max). quanta's output does not depend on it.
  k["verbosity"] = {Kind::Integer, 1, 6, "an integer 1..6"};
  // The only screening quanta implements, which is also BerkeleyGW's default.
  k["screening_semiconductor"] = {Kind::Flag, 0, 0, ""};
}

constexpr double kHuge = 1e300;

}  // namespace

EpsilonParams read_epsilon_inp(const std::filesystem::path& f) {
  std::map<std::string, Keyword> known;
  add_common(known);
  known["epsilon_cutoff"] = {Kind::Real, 1e-12, kHuge, "a positive cutoff in Ry (at most the density's cutoff of WFN)"};
  known["number_bands"] = {Kind::Integer, 2, 2e9, "an integer >= 2 (valence and conduction bands)"};
  known["frequency_dependence"] = {Kind::Integer, 0, 0, "0 (static screening; the only one implemented)"};
  EpsilonParams p;
  int nq0 = 0;
  walk(
      f, "BerkeleyGW's epsilon.inp", known, "qpoints",
      [&](const Line& l) {
        if (l.keyword == "epsilon_cutoff") p.ecut = number(f, l, 0, l.keyword);
        else if (l.keyword == "number_bands") p.nbands = integer(f, l, 0, l.keyword);
        else if (l.keyword == "degeneracy_check_override") p.degeneracy_check_override = true;
      },
      [&](const Line&, const std::vector<Line>& rows) {
        for (const auto& r : rows) {
          QPoint q;
          Line row = r;
          row.values.insert(row.values.begin(), r.keyword);
          if (row.values.size() != 5) throw InputError(f.string(), r.number, "qpoints", std::to_string(row.values.size()) + " columns", "qx qy qz divisor flag");
          const double div = number(f, row, 3, "qpoints divisor");
          if (div == 0) throw InputError(f.string(), r.number, "qpoints divisor", "0", "a non-zero divisor");
          for (int i = 0; i < 3; ++i) q.q[i] = number(f, row, i, "qpoints") / div;
          const int flag = integer(f, row, 4, "qpoints flag");
          if (flag != 0 && flag != 1) throw InputError(f.string(), r.number, "qpoints flag", std::to_string(flag), "0 (regular q) or 1 (the q0 point of a semiconductor)");
          q.q0 = flag == 1;
          nq0 += q.q0;
          p.qpoints.push_back(q);
        }
      });
  if (!(p.ecut > 0)) throw InputError(f.string(), "epsilon_cutoff: missing (expected the cutoff in Ry)");
  if (p.nbands < 1) throw InputError(f.string(), "number_bands: missing (expected the bands of the sum)");
  if (p.qpoints.empty()) throw InputError(f.string(), "no 'begin qpoints' block (expected the q-points)");
  if (nq0 > 1) throw InputError(f.string(), "qpoints: " + std::to_string(nq0) + " points flagged as q0, expected one");
  return p;
}

SigmaParams read_sigma_inp(const std::filesystem::path& f) {
  std::map<std::string, Keyword> known;
  add_common(known);
  known["number_bands"] = {Kind::Integer, 1, 2e9, "a positive integer"};
  known["band_index_min"] = {Kind::Integer, 1, 2e9, "a band >= 1"};
  known["band_index_max"] = {Kind::Integer, 1, 2e9, "a band >= 1"};
  known["screened_coulomb_cutoff"] = {Kind::Real, 0, kHuge, "a cutoff >= 0 in Ry (0: the dielectric matrix's)"};
  known["bare_coulomb_cutoff"] = {Kind::Real, 0, kHuge, "a cutoff >= 0 in Ry (0: the wavefunctions')"};
  known["finite_difference_spacing"] = {Kind::Real, 1e-12, kHuge, "a positive spacing in eV"};
  known["finite_difference_form"] = {Kind::Integer, 2, 2, "2 (forward difference; the only one implemented)"};
  known["frequency_dependence"] = {Kind::Integer, 1, 1, "1 (generalized plasmon pole; the only one implemented)"};
  known["no_symmetries_q_grid"] = {Kind::Flag, 0, 0, ""};
  known["use_symmetries_q_grid"] = {Kind::Flag, 0, 0, ""};
  known["number_sigma_pools"] = {Kind::Integer, 1, 2e9, "a positive integer (pools of processes over the bands n; a divisor of the processes)"};
  SigmaParams p;
  bool has_min = false, has_max = false;
  walk(
      f, "BerkeleyGW's sigma.inp", known, "kpoints",
      [&](const Line& l) {
        if (l.keyword == "number_bands") p.nbands = integer(f, l, 0, l.keyword);
        else if (l.keyword == "band_index_min") { p.band_min = integer(f, l, 0, l.keyword); has_min = true; }
        else if (l.keyword == "band_index_max") { p.band_max = integer(f, l, 0, l.keyword); has_max = true; }
        else if (l.keyword == "screened_coulomb_cutoff") p.ecut_screened = number(f, l, 0, l.keyword);
        else if (l.keyword == "bare_coulomb_cutoff") p.ecut_bare = number(f, l, 0, l.keyword);
        else if (l.keyword == "finite_difference_spacing") p.fd_spacing = number(f, l, 0, l.keyword);
        else if (l.keyword == "no_symmetries_q_grid") p.q_symmetry = false;
        else if (l.keyword == "use_symmetries_q_grid") p.q_symmetry = true;
        else if (l.keyword == "number_sigma_pools") p.pools = integer(f, l, 0, l.keyword);
        else if (l.keyword == "degeneracy_check_override") p.degeneracy_check_override = true;
      },
      [&](const Line&, const std::vector<Line>& rows) {
        for (const auto& r : rows) {
          Line row = r;
          row.values.insert(row.values.begin(), r.keyword);
          // BerkeleyGW reads four numbers; older inputs carry a fifth column, which it ignores.
          if (row.values.size() != 4 && row.values.size() != 5)
            throw InputError(f.string(), r.number, "kpoints", std::to_string(row.values.size()) + " columns", "kx ky kz divisor");
          const double div = number(f, row, 3, "kpoints divisor");
          if (div == 0) throw InputError(f.string(), r.number, "kpoints divisor", "0", "a non-zero divisor");
          Vec3 k;
          for (int i = 0; i < 3; ++i) k[i] = number(f, row, i, "kpoints") / div;
          p.kpoints.push_back(k);
        }
      });
  if (p.nbands < 1) throw InputError(f.string(), "number_bands: missing (expected the bands of the sum over states)");
  if (!has_min || !has_max) throw InputError(f.string(), "band_index_min/band_index_max: missing (expected the bands to compute)");
  if (p.band_max < p.band_min)
    throw InputError(f.string(), "band_index_min " + std::to_string(p.band_min) + " > band_index_max " + std::to_string(p.band_max) +
                                     ": expected band_index_min <= band_index_max");
  if (p.band_max > p.nbands)
    throw InputError(f.string(), "band_index_max " + std::to_string(p.band_max) + " exceeds number_bands " + std::to_string(p.nbands) +
                                     ": expected 1 <= band_index_min <= band_index_max <= number_bands");
  if (p.kpoints.empty()) throw InputError(f.string(), "no 'begin kpoints' block (expected the k-points of Sigma)");
  return p;
}

}  // namespace quanta::gw
