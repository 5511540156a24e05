#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <sstream>

#include "quanta/core/error.hpp"
#include "quanta/gw/inputs.hpp"

namespace quanta::gw {
namespace {

struct Line {
  int number;
  std::string keyword;
  std::vector<std::string> values;
};

std::vector<Line> read_lines(const std::filesystem::path& file) {
  std::ifstream in(file);
  if (!in) throw InputError(file.string(), "cannot open the input file");
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
    if (used != v.size()) throw std::invalid_argument("");
    return x;
  } catch (const std::exception&) {
    throw InputError(f.string(), l.number, field, "'" + l.values[i] + "'", "a number");
  }
}

int integer(const std::filesystem::path& f, const Line& l, std::size_t i, const std::string& field) {
  const double x = number(f, l, i, field);
  if (x != static_cast<int>(x)) throw InputError(f.string(), l.number, field, "'" + l.values[i] + "'", "an integer");
  return static_cast<int>(x);
}

// Walks the lines: blocks go to `block(name, rows)`, keywords to `keyword(line)`; returns false when unknown.
void walk(const std::filesystem::path& f, const std::vector<Line>& lines, const std::function<bool(const Line&)>& keyword,
          const std::function<void(const Line&, const std::vector<Line>&)>& block) {
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const Line& l = lines[i];
    if (l.keyword == "begin") {
      if (l.values.empty()) throw InputError(f.string(), l.number, "begin", "nothing", "a block name (qpoints, kpoints)");
      std::vector<Line> rows;
      std::size_t j = i + 1;
      for (; j < lines.size() && lines[j].keyword != "end"; ++j) rows.push_back(lines[j]);
      if (j == lines.size()) throw InputError(f.string(), l.number, "begin " + l.values[0], "no 'end'", "an 'end' line closing the block");
      block(l, rows);
      i = j;
    } else if (!keyword(l)) {
      throw InputError(f.string(), l.number, l.keyword, "'" + l.keyword + "'", "a keyword quanta implements (see docs/gw.md)");
    }
  }
}


}  // namespace

EpsilonParams read_epsilon_inp(const std::filesystem::path& f) {
  EpsilonParams p;
  const auto lines = read_lines(f);
  int nq0 = 0;
  walk(
      f, lines,
      [&](const Line& l) {
        if (l.keyword == "epsilon_cutoff") p.ecut = number(f, l, 0, l.keyword);
        else if (l.keyword == "number_bands") p.nbands = integer(f, l, 0, l.keyword);
        else if (l.keyword == "frequency_dependence") {
          if (integer(f, l, 0, l.keyword) != 0) throw InputError(f.string(), l.number, l.keyword, l.values[0], "0 (static screening)");
        } else if (l.keyword == "degeneracy_check_override" || l.keyword == "verbosity") {
        } else return false;
        return true;
      },
      [&](const Line& b, const std::vector<Line>& rows) {
        if (b.values[0] != "qpoints") throw InputError(f.string(), b.number, "begin", b.values[0], "qpoints");
        for (const auto& r : rows) {
          QPoint q;
          std::vector<double> v;
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
  if (!(p.ecut > 0)) throw InputError(f.string(), "epsilon_cutoff: missing or not positive (expected the cutoff in Ry)");
  if (p.nbands < 1) throw InputError(f.string(), "number_bands: missing (expected the bands of the sum)");
  if (p.qpoints.empty()) throw InputError(f.string(), "no 'begin qpoints' block (expected the q-points)");
  if (nq0 > 1) throw InputError(f.string(), "qpoints: " + std::to_string(nq0) + " points flagged as q0, expected one");
  return p;
}

SigmaParams read_sigma_inp(const std::filesystem::path& f) {
  SigmaParams p;
  bool has_min = false, has_max = false;
  const auto lines = read_lines(f);
  walk(
      f, lines,
      [&](const Line& l) {
        if (l.keyword == "number_bands") p.nbands = integer(f, l, 0, l.keyword);
        else if (l.keyword == "band_index_min") { p.band_min = integer(f, l, 0, l.keyword); has_min = true; }
        else if (l.keyword == "band_index_max") { p.band_max = integer(f, l, 0, l.keyword); has_max = true; }
        else if (l.keyword == "screened_coulomb_cutoff") p.ecut_screened = number(f, l, 0, l.keyword);
        else if (l.keyword == "bare_coulomb_cutoff") p.ecut_bare = number(f, l, 0, l.keyword);
        else if (l.keyword == "finite_difference_spacing") p.fd_spacing = number(f, l, 0, l.keyword);
        else if (l.keyword == "finite_difference_form") {
          if (integer(f, l, 0, l.keyword) != 2) throw InputError(f.string(), l.number, l.keyword, l.values[0], "2 (forward difference)");
        } else if (l.keyword == "frequency_dependence") {
          if (integer(f, l, 0, l.keyword) != 1) throw InputError(f.string(), l.number, l.keyword, l.values[0], "1 (generalized plasmon pole)");
        } else if (l.keyword == "no_symmetries_q_grid") p.q_symmetry = false;
        else if (l.keyword == "use_symmetries_q_grid") p.q_symmetry = true;
        else if (l.keyword == "screening_semiconductor" || l.keyword == "degeneracy_check_override" || l.keyword == "verbosity") {
        } else if (l.keyword == "screening_metal" || l.keyword == "screening_graphene" || l.keyword.rfind("cell_", 0) == 0) {
          throw InputError(f.string(), l.number, l.keyword, "'" + l.keyword + "'", "screening_semiconductor without truncation (the only case implemented)");
        } else return false;
        return true;
      },
      [&](const Line& b, const std::vector<Line>& rows) {
        if (b.values[0] != "kpoints") throw InputError(f.string(), b.number, "begin", b.values[0], "kpoints");
        for (const auto& r : rows) {
          Line row = r;
          row.values.insert(row.values.begin(), r.keyword);
          if (row.values.size() < 4) throw InputError(f.string(), r.number, "kpoints", std::to_string(row.values.size()) + " columns", "kx ky kz divisor");
          const double div = number(f, row, 3, "kpoints divisor");
          if (div == 0) throw InputError(f.string(), r.number, "kpoints divisor", "0", "a non-zero divisor");
          Vec3 k;
          for (int i = 0; i < 3; ++i) k[i] = number(f, row, i, "kpoints") / div;
          p.kpoints.push_back(k);
        }
      });
  if (p.nbands < 1) throw InputError(f.string(), "number_bands: missing (expected the bands of the sum over states)");
  if (!has_min || !has_max) throw InputError(f.string(), "band_index_min/band_index_max: missing (expected the bands to compute)");
  if (p.kpoints.empty()) throw InputError(f.string(), "no 'begin kpoints' block (expected the k-points of Sigma)");
  if (!(p.fd_spacing > 0)) throw InputError(f.string(), "finite_difference_spacing: expected a positive spacing in eV");
  return p;
}

}  // namespace quanta::gw
