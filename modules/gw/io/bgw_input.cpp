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
enum class Kind { Flag, Integer, Real, Pair };

struct Keyword {
  Kind kind;
  double min, max;        // the valid range (inclusive); Flag: unused; Pair (two numbers): checked by its reader
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
    r["subspace_use_elpa"] = {"quanta diagonalizes the static chi0 with LAPACK (zheev) on the host; ELPA is not used"};
    const std::string eval_grid = "quanta implements frequency_grid_shift 2: Sigma on delta_frequency_eval steps within max_frequency_eval of each E_mf";
    r["init_frequency_eval"] = {eval_grid};
    r["number_frequency_eval"] = {eval_grid};
    return r;
  }();
  return m;
}

using BlockReader = std::function<void(const Line&, const std::vector<Line>&)>;

std::string list_of(const std::map<std::string, Keyword>& known, const std::map<std::string, BlockReader>& blocks) {
  std::string s;
  for (const auto& [name, k] : known) s += name + ", ";
  std::string b;
  for (const auto& [name, r] : blocks) b += std::string(b.empty() ? "" : ", ") + "begin " + name + " ... end";
  return s + b;
}

// Reads a keyword file: each block goes to the reader of its name (name line, rows), keywords (checked
// against `known`, the last of repeated ones) to `keyword(line)`.
void walk(const std::filesystem::path& f, const std::string& what, const std::map<std::string, Keyword>& known,
          const std::map<std::string, BlockReader>& blocks, const std::function<void(const Line&)>& keyword) {
  const auto lines = read_lines(f, what);
  std::map<std::string, int> seen;  // keyword -> line of its last occurrence
  std::vector<const Line*> last;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const Line& l = lines[i];
    if (l.keyword == "begin") {
      const auto reader = l.values.size() == 1 ? blocks.find(l.values[0]) : blocks.end();
      if (reader == blocks.end()) {
        std::string names;
        for (const auto& [name, r] : blocks) names += std::string(names.empty() ? "" : " or ") + "'begin " + name + "'";
        throw InputError(f.string(), l.number, "begin", l.values.empty() ? "nothing" : "'" + l.values[0] + "'", names);
      }
      const std::string block_name = l.values[0];
      std::vector<Line> rows;
      std::size_t j = i + 1;
      for (; j < lines.size() && lines[j].keyword != "end"; ++j) rows.push_back(lines[j]);
      if (j == lines.size()) throw InputError(f.string(), l.number, "begin " + block_name, "no 'end'", "an 'end' line closing the block");
      if (auto s = seen.find("begin " + block_name); s != seen.end())
        throw InputError(f.string(), l.number, "begin " + block_name, "a second block (the first at line " + std::to_string(s->second) + ")",
                         "one block");
      seen["begin " + block_name] = l.number;
      reader->second(l, rows);
      i = j;
      continue;
    }
    if (auto r = refused_keywords().find(l.keyword); r != refused_keywords().end())
      throw InputError(f.string(), l.number, l.keyword, "'" + l.keyword + "', not implemented", r->second.why);
    const auto k = known.find(l.keyword);
    if (k == known.end())
      throw InputError(f.string(), l.number, l.keyword, "'" + l.keyword + "', a keyword quanta does not implement",
                       "one of " + list_of(known, blocks) + " (docs/gw.md)");
    const Keyword& spec = k->second;
    if (spec.kind == Kind::Flag) {
      if (!l.values.empty()) throw InputError(f.string(), l.number, l.keyword, "'" + l.values[0] + "'", "nothing after the flag");
    } else if (spec.kind == Kind::Pair) {
      if (l.values.size() != 2)
        throw InputError(f.string(), l.number, l.keyword, std::to_string(l.values.size()) + " values", "two values, " + spec.range);
      number(f, l, 0, l.keyword);
      number(f, l, 1, l.keyword);
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
  // The wavefunctions' orthonormality is not checked (stochastic pseudobands are not normalized).
  k["dont_check_norms"] = {Kind::Flag, 0, 0, ""};
  // BerkeleyGW's log volume, 1 (default) to 6 (max). quanta's output does not depend on it.
  k["verbosity"] = {Kind::Integer, 1, 6, "an integer 1..6"};
  // The only screening quanta implements, which is also BerkeleyGW's default.
  k["screening_semiconductor"] = {Kind::Flag, 0, 0, ""};
}

constexpr double kHuge = 1e300;

// The off-diagonal elements <n|Sigma(E_l)|m> a sigma.inp asks for, as BerkeleyGW's inread sets them up:
// sigma_matrix l t spans band_index_min..max (overriding an offdiag block, with a warning); else the first
// number_offdiag rows of the offdiag block. Every band must lie in band_index_min..max.
void read_offdiag_elements(const std::filesystem::path& f, SigmaParams& p, int matrix_line, int number_offdiag, int offdiag_line,
                           const std::vector<SigmaParams::OffdiagElement>& rows, const std::vector<int>& row_lines) {
  const std::string window = std::to_string(p.band_min) + ".." + std::to_string(p.band_max) + " (band_index_min..max)";
  if (matrix_line > 0) {
    const int l = p.sigma_matrix_l, t = p.sigma_matrix_t;
    if (l < -2 || (l > 0 && (l < p.band_min || l > p.band_max)))
      throw InputError(f.string(), matrix_line, "sigma_matrix l", std::to_string(l), "0, -1, -2 or a band of " + window);
    if (t < -1 || t > 1) throw InputError(f.string(), matrix_line, "sigma_matrix t", std::to_string(t), "0 (full matrix), -1 (lower) or 1 (upper triangle)");
  }
  if (p.sigma_matrix_l != 0) {
    if (offdiag_line > 0 || number_offdiag > 0)
      warn("gw", f.string() + ": both an offdiag block and sigma_matrix (line " + std::to_string(matrix_line) +
                     ") are given; sigma_matrix is used, as BerkeleyGW does");
    for (int n = p.band_min; n <= p.band_max; ++n)
      for (int m = p.band_min; m <= p.band_max; ++m) {
        if ((p.sigma_matrix_t == -1 && n < m) || (p.sigma_matrix_t == 1 && n > m)) continue;
        p.offdiag.push_back({n, m, p.sigma_matrix_l == -1 ? n : p.sigma_matrix_l == -2 ? m : p.sigma_matrix_l});
      }
    return;
  }
  if (offdiag_line == 0 && number_offdiag <= 0) return;
  if (offdiag_line == 0)
    throw InputError(f.string(), "number_offdiag " + std::to_string(number_offdiag) + ": no 'begin offdiag' block (expected " +
                                     std::to_string(number_offdiag) + " rows n m l)");
  if (number_offdiag < 0 || (number_offdiag == 0 && !rows.empty()))
    throw InputError(f.string(), offdiag_line, "number_offdiag", number_offdiag < 0 ? "missing" : "0",
                     "the number of rows of the offdiag block to use (" + std::to_string(rows.size()) + " rows given)");
  if (static_cast<int>(rows.size()) < number_offdiag)
    throw InputError(f.string(), offdiag_line, "begin offdiag", std::to_string(rows.size()) + " rows",
                     "at least number_offdiag = " + std::to_string(number_offdiag));
  if (static_cast<int>(rows.size()) > number_offdiag)
    warn("gw", f.string() + ": the offdiag block has " + std::to_string(rows.size()) + " rows; the first number_offdiag = " +
                   std::to_string(number_offdiag) + " are used, as BerkeleyGW does");
  for (int i = 0; i < number_offdiag; ++i) {
    const auto& e = rows[i];
    for (const int b : {e.n, e.m, e.l})
      if (b < p.band_min || b > p.band_max)
        throw InputError(f.string(), row_lines[i], "offdiag", std::to_string(e.n) + " " + std::to_string(e.m) + " " + std::to_string(e.l),
                         "three bands of " + window);
    p.offdiag.push_back(e);
  }
}

}  // namespace

EpsilonParams read_epsilon_inp(const std::filesystem::path& f) {
  std::map<std::string, Keyword> known;
  add_common(known);
  known["epsilon_cutoff"] = {Kind::Real, 1e-12, kHuge, "a positive cutoff in Ry (at most the density's cutoff of WFN)"};
  known["number_bands"] = {Kind::Integer, 2, 2e9, "an integer >= 2 (valence and conduction bands)"};
  known["frequency_dependence"] = {Kind::Integer, 0, 2, "0 (static screening) or 2 (full frequency; 1 and 3 are not implemented)"};
  known["frequency_dependence_method"] = {Kind::Integer, 0, 2, "0 (real axis) or 2 (contour deformation); the spectral method 1 is not implemented"};
  known["broadening"] = {Kind::Real, 1e-6, kHuge, "a positive broadening in eV"};
  known["init_frequency"] = {Kind::Real, 0, kHuge, "a frequency >= 0 in eV"};
  known["delta_frequency"] = {Kind::Real, 1e-6, kHuge, "a positive step in eV"};
  known["frequency_low_cutoff"] = {Kind::Real, 0, kHuge, "a frequency >= 0 in eV (the end of the real-axis grid)"};
  known["frequency_high_cutoff"] = {Kind::Real, 0, kHuge, "a frequency >= 0 in eV (the end of the real-axis method's grid)"};
  known["delta_frequency_step"] = {Kind::Real, 0, kHuge, "a step >= 0 in eV (the growth of the real-axis method's steps past frequency_low_cutoff)"};
  known["number_imaginary_freqs"] = {Kind::Integer, 2, 100000, "an integer >= 2 (points on the imaginary axis)"};
  known["plasma_freq"] = {Kind::Real, 1e-6, kHuge, "a positive frequency in eV (the scale of the imaginary-axis grid)"};
  known["chi_eigenvalue_cutoff"] = {Kind::Real, 0, 1, "a cutoff 0..1 on |eigenvalue| / the largest |eigenvalue| of the static chi0"};
  known["eps_trunc_eigen"] = known["chi_eigenvalue_cutoff"];
  known["nbasis_subspace"] = {Kind::Integer, -1, 2e9, "the most eigenvectors kept (-1 or 0: no limit but the cutoff)"};
  known["subspace_dont_keep_full_eps_omega0"] = {Kind::Flag, 0, 0, ""};
  known["write_subspace_epsinv"] = {Kind::Flag, 0, 0, ""};
  EpsilonParams p;
  bool has_delta = false, has_broadening = false;
  std::vector<std::string> ff_given;  // full-frequency keywords, which need frequency_dependence 2
  std::vector<Line> real_axis_only, contour_only;  // keywords of one method's grid, warned about under the other
  int method_line = 0;
  int nq0 = 0;
  auto qpoints = [&](const Line&, const std::vector<Line>& rows) {
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
  };
  walk(f, "BerkeleyGW's epsilon.inp", known, {{"qpoints", qpoints}}, [&](const Line& l) {
    if (l.keyword == "epsilon_cutoff") p.ecut = number(f, l, 0, l.keyword);
    else if (l.keyword == "number_bands") p.nbands = integer(f, l, 0, l.keyword);
    else if (l.keyword == "degeneracy_check_override") p.degeneracy_check_override = true;
    else if (l.keyword == "dont_check_norms") p.check_norms = false;
    else if (l.keyword == "frequency_dependence") p.frequency_dependence = integer(f, l, 0, l.keyword);
    else if (l.keyword == "frequency_dependence_method") {
      ff_given.push_back(l.keyword);
      p.frequencies.method = integer(f, l, 0, l.keyword);
      method_line = l.number;
      if (p.frequencies.method == 1)
        throw InputError(f.string(), method_line, "frequency_dependence_method", "1",
                         "0 (real axis, Adler-Wiser) or 2 (contour deformation): BerkeleyGW's spectral method 1 is not implemented");
    }
    else if (l.keyword == "chi_eigenvalue_cutoff" || l.keyword == "eps_trunc_eigen") {
      p.subspace = true;
      p.subspace_cutoff = number(f, l, 0, l.keyword);
      ff_given.push_back(l.keyword);
    } else if (l.keyword == "nbasis_subspace") {
      p.subspace = true;
      p.subspace_nbasis = integer(f, l, 0, l.keyword);
      ff_given.push_back(l.keyword);
    } else if (l.keyword == "subspace_dont_keep_full_eps_omega0") {
      p.subspace_keep_full_static = false;
      ff_given.push_back(l.keyword);
    } else if (l.keyword == "write_subspace_epsinv") {
      ff_given.push_back(l.keyword);
      warn("gw", f.string() + ": line " + std::to_string(l.number) +
                     ": write_subspace_epsinv has no effect: quanta does not write full-frequency eps0mat.h5/epsmat.h5 files (Sigma uses the matrices in memory)");
    }
    else if (l.keyword == "frequency_high_cutoff" || l.keyword == "delta_frequency_step") {
      ff_given.push_back(l.keyword);
      real_axis_only.push_back(l);
      if (l.keyword == "frequency_high_cutoff") p.frequencies.high_cutoff = number(f, l, 0, l.keyword);
      else p.frequencies.step_increase = number(f, l, 0, l.keyword);
    } else if (l.keyword == "broadening" || l.keyword == "init_frequency" || l.keyword == "delta_frequency" || l.keyword == "frequency_low_cutoff" ||
               l.keyword == "number_imaginary_freqs" || l.keyword == "plasma_freq") {
      FrequencyGrid& g = p.frequencies;
      const double x = l.keyword == "number_imaginary_freqs" ? integer(f, l, 0, l.keyword) : number(f, l, 0, l.keyword);
      ff_given.push_back(l.keyword);
      if (l.keyword == "number_imaginary_freqs" || l.keyword == "plasma_freq") contour_only.push_back(l);
      if (l.keyword == "broadening") g.broadening = x, has_broadening = true;
      else if (l.keyword == "init_frequency") g.init = x;
      else if (l.keyword == "delta_frequency") { g.delta = x; has_delta = true; }
      else if (l.keyword == "frequency_low_cutoff") g.low_cutoff = x;
      else if (l.keyword == "number_imaginary_freqs") g.n_imag = static_cast<int>(x);
      else if (l.keyword == "plasma_freq") g.plasma = x;
    }
  });
  if (p.frequency_dependence == 2 && !has_broadening)
    throw InputError(f.string(), "broadening: missing with frequency_dependence 2; BerkeleyGW's default is 0, which leaves the real-axis "
                                 "frequencies undamped (and, without delta_frequency, no grid at all): expected a broadening in eV, e.g. 0.1");
  if (!has_delta) p.frequencies.delta = p.frequencies.broadening;  // BerkeleyGW's default
  for (const auto& l : p.frequencies.method == 2 ? real_axis_only : contour_only)
    warn("gw", f.string() + ": line " + std::to_string(l.number) + ": " + l.keyword + " belongs to the " +
                   (p.frequencies.method == 2 ? "real-axis grid of frequency_dependence_method 0; contour deformation"
                                              : "imaginary axis of contour deformation; the real-axis method 0") +
                   " does not use it, as in BerkeleyGW");
  if (p.frequencies.method == 0) {
    p.frequencies.n_imag = 0;
    if (p.subspace)
      throw InputError(f.string(), "the static subspace (nbasis_subspace, chi_eigenvalue_cutoff) with frequency_dependence_method 0: expected "
                                   "frequency_dependence_method 2 (quanta's subspace is implemented for contour deformation)");
    const double high = p.frequencies.high_cutoff < 0 ? 4 * p.frequencies.low_cutoff : p.frequencies.high_cutoff;
    if (high < p.frequencies.low_cutoff)
      throw InputError(f.string(), "frequency_high_cutoff " + std::to_string(high) + " eV is below frequency_low_cutoff " +
                                       std::to_string(p.frequencies.low_cutoff) + " eV: expected the end of the grid above its fine part");
  }
  if (p.frequency_dependence == 1)
    throw InputError(f.string(), "frequency_dependence 1: expected 0 (static screening) or 2 (full frequency) in epsilon.inp (the plasmon-pole model "
                                 "is Sigma's frequency_dependence 1, built from the static matrices)");
  if (p.frequency_dependence != 2 && !ff_given.empty())
    throw InputError(f.string(), ff_given.front() + " is given but frequency_dependence is " + std::to_string(p.frequency_dependence) +
                                     ": expected frequency_dependence 2 (full frequency) with the full-frequency keywords");
  if (p.frequency_dependence == 2 && p.frequencies.low_cutoff < p.frequencies.init)
    throw InputError(f.string(), "frequency_low_cutoff " + std::to_string(p.frequencies.low_cutoff) + " eV is below init_frequency " +
                                     std::to_string(p.frequencies.init) + " eV: expected the end of the real-axis grid above its start");
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
  known["frequency_dependence"] = {Kind::Integer, 1, 2, "1 (generalized plasmon pole) or 2 (full frequency; 0 and 3 are not implemented)"};
  known["frequency_dependence_method"] = {Kind::Integer, 0, 2, "0 (real-axis integration) or 2 (contour deformation); 1 does not exist"};
  known["cd_integration_method"] = {Kind::Integer, 0, 2, "0 (piecewise constant) or 2 (piecewise quadratic); 1 does not exist and 3 is not implemented"};
  known["frequency_grid_shift"] = {Kind::Integer, 2, 2, "2 (the evaluation grid centred on each E_mf; 0 and 1 are not implemented)"};
  known["delta_frequency_eval"] = {Kind::Real, 1e-6, kHuge, "a positive step in eV"};
  known["max_frequency_eval"] = {Kind::Real, 0, kHuge, "a half-width >= 0 in eV"};
  known["do_sigma_subspace"] = {Kind::Flag, 0, 0, ""};
  known["exact_static_ch"] = {Kind::Integer, 0, 0, "0 (no static remainder, BerkeleyGW's default for frequency_dependence 1 and 2); 1, the "
                                                   "static remainder correction, is not implemented"};
  known["no_symmetries_q_grid"] = {Kind::Flag, 0, 0, ""};
  known["use_symmetries_q_grid"] = {Kind::Flag, 0, 0, ""};
  known["number_sigma_pools"] = {Kind::Integer, 1, 2e9, "a positive integer (pools of processes over the bands n; a divisor of the processes)"};
  known["number_offdiag"] = {Kind::Integer, 0, 2e9, "an integer >= 0 (rows of the offdiag block to use)"};
  known["sigma_matrix"] = {Kind::Pair, 0, 0, "l t: l = 0 (none), -1 (each row n at E_n), -2 (each column at E_m) or a band of "
                                                    "band_index_min..max; t = 0 (full matrix), -1 (lower) or 1 (upper triangle)"};
  known["dont_use_vxcdat"] = {Kind::Flag, 0, 0, ""};
  known["no_symmetries_offdiagonals"] = {Kind::Flag, 0, 0, ""};
  // quanta's: Sigma's matrix on a uniform grid of frequencies and the self-consistent Dyson solution (docs/gw.md).
  known["sigma_matrix_frequency_grid"] = {Kind::Pair, 0, 0, "nw margin: nw >= 2 frequencies spanning each k-point's band_index_min..max "
                                                            "energies widened by margin >= 0 eV on both sides (with sigma_matrix)"};
  SigmaParams p;
  bool has_min = false, has_max = false;
  int number_offdiag = -1, matrix_line = 0, offdiag_line = 0, grid_line = 0, ff_line = 0, method_line = 0;
  std::vector<SigmaParams::OffdiagElement> offdiag_rows;
  std::vector<int> offdiag_row_lines;
  auto kpoints = [&](const Line&, const std::vector<Line>& rows) {
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
  };
  auto offdiag = [&](const Line& begin, const std::vector<Line>& rows) {
    offdiag_line = begin.number;
    for (const auto& r : rows) {
      Line row = r;
      row.values.insert(row.values.begin(), r.keyword);
      if (row.values.size() != 3) throw InputError(f.string(), r.number, "offdiag", std::to_string(row.values.size()) + " columns", "n m l (three bands)");
      offdiag_rows.push_back({integer(f, row, 0, "offdiag n"), integer(f, row, 1, "offdiag m"), integer(f, row, 2, "offdiag l")});
      offdiag_row_lines.push_back(r.number);
    }
  };
  walk(f, "BerkeleyGW's sigma.inp", known, {{"kpoints", kpoints}, {"offdiag", offdiag}}, [&](const Line& l) {
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
    else if (l.keyword == "dont_check_norms") p.check_norms = false;
    else if (l.keyword == "number_offdiag") number_offdiag = integer(f, l, 0, l.keyword);
    else if (l.keyword == "dont_use_vxcdat") p.use_vxc_dat = false;
    else if (l.keyword == "no_symmetries_offdiagonals") p.offdiag_symmetry = false;
    else if (l.keyword == "frequency_dependence") p.frequency_dependence = integer(f, l, 0, l.keyword);
    else if (l.keyword == "frequency_dependence_method") {
      p.ff_method = integer(f, l, 0, l.keyword);
      method_line = l.number;  // BerkeleyGW reads it under any frequency_dependence; only method 0 needs 2 (below)
      if (p.ff_method == 1)
        throw InputError(f.string(), method_line, "frequency_dependence_method", "1", "0 (real-axis integration) or 2 (contour deformation)");
    }
    else if (l.keyword == "do_sigma_subspace") {
      p.subspace = true;
      ff_line = l.number;
    } else if (l.keyword == "cd_integration_method") { p.cd_integration_method = integer(f, l, 0, l.keyword); ff_line = l.number; }
    else if (l.keyword == "delta_frequency_eval") { p.delta_frequency_eval = number(f, l, 0, l.keyword); ff_line = l.number; }
    else if (l.keyword == "max_frequency_eval") { p.max_frequency_eval = number(f, l, 0, l.keyword); ff_line = l.number; }
    else if (l.keyword == "sigma_matrix_frequency_grid") {
      p.grid_nw = integer(f, l, 0, "sigma_matrix_frequency_grid nw");
      p.grid_margin = number(f, l, 1, "sigma_matrix_frequency_grid margin");
      if (p.grid_nw < 2) throw InputError(f.string(), l.number, "sigma_matrix_frequency_grid nw", l.values[0], "at least 2 frequencies");
      if (p.grid_margin < 0) throw InputError(f.string(), l.number, "sigma_matrix_frequency_grid margin", l.values[1], "a margin >= 0 eV");
      grid_line = l.number;
    }
    else if (l.keyword == "sigma_matrix") {
      p.sigma_matrix_l = integer(f, l, 0, l.keyword);
      p.sigma_matrix_t = integer(f, l, 1, l.keyword);
      matrix_line = l.number;
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
  if (p.cd_integration_method == 1) throw InputError(f.string(), ff_line, "cd_integration_method", "1", "0 (piecewise constant) or 2 (piecewise quadratic)");
  if (p.ff_method == 0 && p.frequency_dependence != 2)
    throw InputError(f.string(), method_line, "frequency_dependence", std::to_string(p.frequency_dependence),
                     "2 (full frequency) with frequency_dependence_method 0 (the real-axis method)");
  if (p.ff_method == 0 && p.subspace)
    throw InputError(f.string(), "do_sigma_subspace with frequency_dependence_method 0: expected frequency_dependence_method 2 (quanta's Sigma in the "
                                 "static subspace is implemented for contour deformation)");
  if (ff_line > 0 && p.frequency_dependence != 2)
    throw InputError(f.string(), ff_line, "frequency_dependence", std::to_string(p.frequency_dependence),
                     "2 (full frequency) with cd_integration_method, delta_frequency_eval, max_frequency_eval and do_sigma_subspace");
  if (p.frequency_dependence == 2 && p.eval_points() > 100001)
    throw InputError(f.string(), ff_line, "max_frequency_eval", std::to_string(p.max_frequency_eval),
                     "at most 50000 steps of delta_frequency_eval " + std::to_string(p.delta_frequency_eval) + " eV");
  read_offdiag_elements(f, p, matrix_line, number_offdiag, offdiag_line, offdiag_rows, offdiag_row_lines);
  if (p.frequency_dependence == 2 && (p.sigma_matrix_l != 0 || !p.offdiag.empty()))
    throw InputError(f.string(), matrix_line > 0 ? matrix_line : offdiag_line, matrix_line > 0 ? "sigma_matrix" : "begin offdiag",
                     "off-diagonal elements with frequency_dependence 2", "the diagonal only (off-diagonal full-frequency Sigma is not implemented)");
  if (grid_line > 0 && p.sigma_matrix_l == 0)
    throw InputError(f.string(), grid_line, "sigma_matrix_frequency_grid", "no sigma_matrix", "sigma_matrix l t (the matrix whose Dyson equation is solved)");
  if (!p.offdiag.empty() && p.q_symmetry) {
    warn("gw", f.string() + ": off-diagonal elements need the whole q grid; the q-points are not reduced by k's little group "
                            "(no_symmetries_q_grid), as BerkeleyGW does");
    p.q_symmetry = false;
  }
  return p;
}

}  // namespace quanta::gw
