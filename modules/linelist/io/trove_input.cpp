// TROVE's input format (Stone's input parser): one keyword and its values per line, values separated
// by blanks or commas, text in parentheses is a comment, keywords are case-insensitive.
//
// Keywords follow TROVE's reader (fields.f90, FLinput): the same spellings, the same defaults, and a
// repeated keyword replaces the earlier value (reported, since a line list computed with a value the
// user did not mean to keep costs hours). Every value is checked against its range here, so that a run
// never spends its time on an input that can only give an empty or wrong line list.
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <map>
#include <sstream>

#include "quanta/core/error.hpp"
#include "quanta/core/io/input_file.hpp"
#include "quanta/core/progress.hpp"
#include "quanta/linelist/input.hpp"

namespace quanta::linelist {
namespace {

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string number_text(double v) {
  std::ostringstream o;
  o << v;
  return o.str();
}

std::vector<std::string> tokens_of(const std::string& raw) {
  std::string line;
  int depth = 0;
  for (char c : raw) {
    if (c == '(') ++depth;
    if (depth == 0) line += (c == ',' ? ' ' : c);
    if (c == ')' && depth > 0) --depth;
  }
  std::istringstream in(line);
  std::vector<std::string> out;
  for (std::string t; in >> t;) out.push_back(t);
  return out;
}

class Line {
 public:
  Line(const std::filesystem::path& file, int number, std::vector<std::string> tokens)
      : file_(file.string()), number_(number), tokens_(std::move(tokens)) {}
  const std::string& keyword() const { return tokens_[0]; }
  std::size_t count() const { return tokens_.size() - 1; }  // values after the keyword
  const std::string& word(std::size_t i) const { return tokens_.at(i); }
  // A finite number (Fortran's 1.0d-3 too): NaN and infinities are refused with the rest.
  double real(std::size_t i, const std::string& what) const {
    if (i >= tokens_.size()) fail(what, "end of line", "a number");
    std::string t = tokens_[i];
    for (char& c : t)
      if (c == 'd' || c == 'D') c = 'e';
    try {
      std::size_t used = 0;
      const double v = std::stod(t, &used);
      if (used == t.size() && std::isfinite(v)) return v;
    } catch (const std::exception&) {
    }
    fail(what, "'" + tokens_[i] + "'", "a finite number");
  }
  // A finite number in [lo, hi] (hi_open: [lo, hi)); `range` says it in words for the message.
  double real_in(std::size_t i, const std::string& what, double lo, double hi, const std::string& range, bool hi_open = false) const {
    const double v = real(i, what);
    if (v < lo || v > hi || (hi_open && v == hi)) fail(what, tokens_[i], range);
    return v;
  }
  int integer(std::size_t i, const std::string& what) const {
    const double v = real(i, what);
    if (std::abs(v) > std::numeric_limits<int>::max() || v != static_cast<int>(v)) fail(what, "'" + tokens_[i] + "'", "an integer");
    return static_cast<int>(v);
  }
  [[noreturn]] void fail(const std::string& what, const std::string& found, const std::string& expected) const {
    throw InputError(file_, number_, what, found, expected);
  }
  int number() const { return number_; }

 private:
  std::string file_;
  int number_;
  std::vector<std::string> tokens_;
};

// The parse state: what was read so far and on which line, for repeated keywords.
struct Reader {
  IntensityInput in;
  std::map<std::string, int> seen;  // keyword (TROVE's first spelling) -> line of its last occurrence
  int control_j_line = 0;           // J of an intensity step given in the CONTROL block
  int intensity_j_line = 0;

  // TROVE keeps the last value of a repeated keyword; say which line that is.
  void once(const std::string& name, const Line& l) {
    const auto it = seen.find(name);
    if (it != seen.end())
      warn("linelist", in.file.string() + ": " + name + " is given on line " + std::to_string(it->second) + " and again on line " +
                           std::to_string(l.number()) + "; the value of line " + std::to_string(l.number()) + " is used (as TROVE does)");
    seen[name] = l.number();
  }
};

Window read_window(const Line& l, std::size_t i, const std::string& what) {
  Window w{l.real(i, what + " (lower end)"), l.real(i + 1, what + " (upper end)")};
  if (w.min > w.max)
    l.fail(what, number_text(w.min) + ", " + number_text(w.max), "lower end <= upper end (cm^-1; no line could pass the window)");
  return w;
}

// `energy low a, b, upper c, d` (either part may be given alone; TROVE's spellings low/lower/l, upper/upp/up/u).
void read_energy_windows(const Line& l, Reader& r) {
  std::size_t i = 1;
  if (l.count() == 0) l.fail("energy", "no window", "'low a, b' and/or 'upper c, d' (cm^-1 above the ZPE)");
  while (i < l.count() + 1) {
    const std::string part = lower(l.word(i));
    const bool low = part == "low" || part == "lower" || part == "l";
    const bool up = part == "upper" || part == "upp" || part == "up" || part == "u";
    if (!low && !up) l.fail("energy", "'" + l.word(i) + "'", "'low a, b' and/or 'upper c, d' (cm^-1 above the ZPE)");
    r.once(low ? "energy low" : "energy upper", l);
    (low ? r.in.lower : r.in.upper) = read_window(l, i + 1, low ? "energy low" : "energy upper");
    i += 3;
  }
}

// GNS: one nuclear-spin weight per irrep, each >= 0 (0 leaves the irrep out, as in TROVE), one at least > 0.
std::vector<double> read_gns(const Line& l) {
  if (l.count() == 0) l.fail("GNS", "no values", "one nuclear-spin weight per irreducible representation");
  std::vector<double> g;
  bool any = false;
  for (std::size_t i = 1; i <= l.count(); ++i) {
    g.push_back(l.real_in(i, "GNS (entry " + std::to_string(i) + ")", 0, std::numeric_limits<double>::max(),
                          "a weight >= 0 (0 leaves that symmetry out)"));
    any = any || g.back() > 0;
  }
  if (!any) l.fail("GNS", "only zeros", "at least one weight > 0 (the symmetries with weight 0 are left out)");
  return g;
}

// What the INTENSITY block may hold; an unknown keyword (TROVE's others included) is refused by name.
constexpr const char* kSupported =
    "one of absorption, THRESH_INTES, THRESH_LINE, THRESH_COEFF, TEMPERATURE, QSTAT, ZPE, GNS, selection, J, freq-window, "
    "energy, exomol, linelist, states-only, gain, END (quanta implements these of TROVE's INTENSITY keywords; THRESH_LEADING_COEFF, FACTOR, "
    "NCACHE, INCREMENT and QUANTA, which TROVE's intensity step reads but does not use, are accepted with a warning)";

void read_intensity_line(const Line& l, Reader& r) {
  IntensityInput& in = r.in;
  const std::string k = lower(l.keyword());
  const double inf = std::numeric_limits<double>::max();
  if (k == "absorption") {
    r.once("absorption/emission", l);
    in.absorption = true;
  } else if (k == "emission") {
    l.fail("INTENSITY", "'emission'", "absorption (quanta computes absorption line lists, as TROVE's symmetrized-vector path does)");
  } else if (k == "thresh_intes" || k == "thresh_intens") {
    r.once("THRESH_INTES", l);
    in.thresh_intens = l.real_in(1, l.keyword(), 0, inf, "an intensity >= 0 (cm/molecule)");
  } else if (k == "thresh_line" || k == "thresh_linestrength" || k == "thresh_linestrenght") {
    r.once("THRESH_LINE", l);
    in.thresh_line = l.real_in(1, l.keyword(), 0, inf, "a linestrength >= 0 (Debye^2)");
  } else if (k == "thresh_coeff" || k == "thresh_coefficients") {
    r.once("THRESH_COEFF", l);
    // Eigenvector coefficients and 3j symbols are at most 1 in magnitude: a threshold of 1 or more drops them all.
    in.thresh_coeff = l.real_in(1, l.keyword(), 0, 1, "0 <= THRESH_COEFF < 1 (|c| <= THRESH_COEFF are dropped; |c| <= 1)", true);
  } else if (k == "temperature") {
    r.once("TEMPERATURE", l);
    in.temperature = l.real(1, l.keyword());
    if (in.temperature <= 0) l.fail(l.keyword(), l.word(1), "a temperature > 0 K");
  } else if (k == "qstat" || k == "partition" || k == "part_func") {
    r.once("QSTAT", l);
    in.qstat = l.real(1, l.keyword());
    if (in.qstat <= 0) l.fail(l.keyword(), l.word(1), "a partition function > 0 (leave QSTAT out to have it computed from the levels read)");
  } else if (k == "zpe") {
    r.once("ZPE", l);
    in.zpe = l.real(1, l.keyword());
    in.have_zpe = true;
  } else if (k == "gns") {
    r.once("GNS", l);
    in.gns = read_gns(l);
  } else if (k == "selection" || k == "selection-groups" || k == "select" || k == "pairs") {
    r.once("selection", l);
    if (l.count() == 0) l.fail("selection", "no values", "one number per irreducible representation");
    in.selection.clear();
    for (std::size_t i = 1; i <= l.count(); ++i) in.selection.push_back(l.integer(i, "selection"));
  } else if (k == "j") {
    const int jmin = l.integer(1, "J (lowest)"), jmax = l.integer(2, "J (highest)");
    if (jmin < 0 || jmax < jmin) l.fail("J", std::to_string(jmin) + ", " + std::to_string(jmax), "0 <= Jmin <= Jmax");
    // TROVE reads the INTENSITY block's J only while no J range is set (the CONTROL block's, or an earlier
    // line's other than 0, 0).
    const int earlier = r.control_j_line ? r.control_j_line : r.intensity_j_line;
    if (earlier && (in.jmin != 0 || in.jmax != 0)) {
      warn("linelist", in.file.string() + ": J on line " + std::to_string(l.number()) + " is ignored: line " + std::to_string(earlier) +
                           " already set J = " + std::to_string(in.jmin) + ".." + std::to_string(in.jmax) + " (as TROVE does)");
      return;
    }
    in.jmin = jmin;
    in.jmax = jmax;
    r.intensity_j_line = l.number();
  } else if (k == "freq-window" || k == "freq_window" || k == "freq" || k == "nu" || k == "frequency") {
    r.once("freq-window", l);
    in.freq = read_window(l, 1, "freq-window");
  } else if (k == "energy") {
    read_energy_windows(l, r);
  } else if (k == "exomol") {
    // TROVE's switch to the ExoMol .states/.trans output, which quanta always writes.
  } else if (k == "quanta" || k == "v") {
    // TROVE's filter on the vibrational quanta, `QUANTA mode [lower a b] [upper a b]`: read as TROVE reads it, and, as
    // there, used only by its external-field step (extfield.f90), not by its intensity step.
    (void)l.integer(1, "QUANTA mode");
    for (std::size_t i = 2; i <= l.count(); i += 3) {
      const std::string w = lower(l.word(i));
      if (w != "lower" && w != "low" && w != "l" && w != "upper" && w != "upp" && w != "up" && w != "u")
        l.fail("QUANTA", "'" + l.word(i) + "'", "lower a, b and/or upper a, b after the mode");
      (void)l.integer(i + 1, "QUANTA " + w);
      (void)l.integer(i + 2, "QUANTA " + w);
    }
    warn("linelist", in.file.string() + ": line " + std::to_string(l.number()) + ": " + l.keyword() +
                         " has no effect on TROVE's intensity step, nor on quanta's line list");
  } else if (k == "thresh_leading_coeff" || k == "factor" || k == "ncache" || k == "increment") {
    // TROVE reads these in the INTENSITY block, but its intensity step does not use them: THRESH_LEADING_COEFF acts in its
    // external-field step only, FACTOR is reset to 1 and NCACHE to the number of levels before use, and INCREMENT only
    // spaces the progress lines of TROVE's standard output (dipole.f90, extfield.f90). The value is read as TROVE
    // reads it, and the line list is the same without it.
    if (k == "ncache" || k == "increment") (void)l.integer(1, l.keyword());
    else (void)l.real(1, l.keyword());
    warn("linelist", in.file.string() + ": line " + std::to_string(l.number()) + ": " + l.keyword() +
                         " has no effect on TROVE's intensity step, nor on quanta's line list");
  } else if (k == "states-only" || k == "states_only") {
    in.states_only = true;
  } else if (k == "gain") {
    in.gain = true;
  } else if (k == "linelist") {
    r.once("linelist", l);
    if (l.count() < 1) l.fail("linelist", "no name", "the stem of the ExoMol file names");
    if (l.word(1).find('/') != std::string::npos) l.fail("linelist", "'" + l.word(1) + "'", "a file name stem without '/' (the files go to -o DIR)");
    in.linelist_name = l.word(1);
  } else {
    l.fail("INTENSITY block", "keyword '" + l.keyword() + "'", kSupported);
  }
}

// TROVE's CHECK_POINT block, of which the intensity step uses one thing: whether the dipole's J = 0 matrix elements
// were written divided, one file per component (fields.f90: `EXTMATELEM action [n] SPLIT|DIVIDE|STITCH` and
// `J0_EXTMATELEM`/`J0_EXTERNAL action [SPLIT|DIVIDE]` set IOextF_divide, with which dipole.f90 reads
// j0_extmatelem<imu>.chk). The block's other lines concern TROVE's earlier steps.
void read_check_point_line(const Line& l, Reader& r) {
  const std::string k = lower(l.keyword());
  if (k != "extmatelem" && k != "j0_extmatelem" && k != "j0_external") return;
  for (std::size_t i = 2; i <= l.count(); ++i) {  // after the action (READ, SAVE, ...), as TROVE reads the mode
    const std::string w = lower(l.word(i));
    if (w == "split" || w == "divide" || (w == "stitch" && k == "extmatelem")) r.in.dipole_divided = true;
  }
}

// TROVE's CONTROL block: `step 4` (or `intensity`) makes its `J a, b` the J range of the intensity step.
struct Control {
  bool intensity_step = false;
};

void read_control_line(const Line& l, Reader& r, Control& c) {
  const std::string k = lower(l.keyword());
  if (k == "step" || k == "case") {
    if (l.count() < 1) return;
    const std::string step = lower(l.word(1));
    c.intensity_step = step == "4" || step == "intensity" || step == "intensities";
  } else if ((k == "j" || k == "jrot") && c.intensity_step) {
    r.in.jmin = l.integer(1, "J (lowest)");
    r.in.jmax = l.integer(2, "J (highest)");
    if (r.in.jmin < 0 || r.in.jmax < r.in.jmin)
      l.fail("J", std::to_string(r.in.jmin) + ", " + std::to_string(r.in.jmax), "0 <= Jmin <= Jmax");
    if (r.control_j_line)
      warn("linelist", r.in.file.string() + ": J is given on line " + std::to_string(r.control_j_line) + " and again on line " +
                           std::to_string(l.number()) + " of the CONTROL block; the value of line " + std::to_string(l.number()) + " is used (as TROVE does)");
    r.control_j_line = l.number();
  }
}

// A line of TROVE's BASIS block, "mode, 'type', ...": is its type one of the singular bending bases with which TROVE
// treats a triatomic molecule as linear (fields.f90: triatom_sing_resolve)?
bool is_singular_basis_line(const Line& l) {
  if (l.count() < 1) return false;
  std::string type;
  for (char c : l.word(1))
    if (c != '\'' && c != '"') type += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return type == "LEGENDRE" || type == "SINRHO-LEGENDRE" || type == "LAGUERRE-K" || type == "SINRHO-LAGUERRE-K" ||
         type == "SINRHO-2XLAGUERRE-K" || type == "SINRHO-LEGENDRE-K1";
}

// `mem N unit`, TROVE's units: TB/T, GB/G, MB/M, KB/K, B.
void read_memory(const Line& l, Reader& r) {
  r.once("mem", l);
  const double n = l.real(1, l.keyword());
  if (n <= 0) l.fail(l.keyword(), l.word(1), "a memory size > 0 followed by its unit");
  if (l.count() < 2) l.fail(l.keyword(), "no unit", "TB, GB, MB, KB or B after the size (as TROVE reads it)");
  const std::string unit = lower(l.word(2));
  const std::map<std::string, double> units{{"tb", 0x1p40}, {"t", 0x1p40}, {"gb", 0x1p30}, {"g", 0x1p30}, {"mb", 0x1p20},
                                            {"m", 0x1p20},  {"kb", 0x1p10}, {"k", 0x1p10},  {"b", 1.0}};
  const auto u = units.find(unit);
  if (u == units.end()) l.fail(l.keyword(), "unit '" + l.word(2) + "'", "TB, GB, MB, KB or B");
  const double bytes = n * u->second;
  if (bytes < 1 || bytes > 0x1p62) l.fail(l.keyword(), l.word(1) + " " + l.word(2), "between 1 B and 4 EB");
  r.in.mem_bytes = static_cast<std::size_t>(bytes);
}

}  // namespace

IntensityInput read_trove_input(const std::filesystem::path& path) {
  std::ifstream f = io::open_input_file(path, "a TROVE input file with an INTENSITY block");
  Reader r;
  r.in.file = path;
  enum class Block { None, Intensity, Control, Basis, Zmat, CheckPoint } block = Block::None;
  int natoms = 0, singular_axis = 0;
  bool zmat_unreadable = false;
  bool singular_basis = false;
  Control control;
  bool have_block = false;
  int block_line = 0;
  std::string raw;
  for (int number = 1; std::getline(f, raw); ++number) {
    auto t = tokens_of(raw);
    if (t.empty()) continue;
    const Line l(path, number, t);
    const std::string k = lower(l.keyword());
    if (block != Block::None) {
      if (k == "end") block = Block::None;
      else if (block == Block::Basis) singular_basis = singular_basis || is_singular_basis_line(l);
      else if (block == Block::Zmat) {
        // "label  i  j  k  l  mass": the mass is the line's last number. The atoms serve only the .def file: a line
        // read otherwise leaves them unknown (--def then says so) rather than refusing an input TROVE accepts.
        char* end = nullptr;
        const double mass = l.count() >= 1 ? std::strtod(l.word(l.count()).c_str(), &end) : 0;
        if (!zmat_unreadable && end && *end == '\0' && mass > 0 && std::isfinite(mass)) r.in.atoms.push_back({l.keyword(), mass});
        else zmat_unreadable = true, r.in.atoms.clear();
      }
      else if (block == Block::Intensity) read_intensity_line(l, r);
      else if (block == Block::CheckPoint) read_check_point_line(l, r);
      else read_control_line(l, r, control);
      continue;
    }
    if (k == "mem" || k == "memory") {
      read_memory(l, r);
    } else if (k == "symgroup") {
      if (l.count() < 1) l.fail("SYMGROUP", "no group", "a molecular symmetry group, e.g. C2v(M)");
      r.once("SYMGROUP", l);
      std::istringstream words(raw);
      std::string keyword;
      words >> keyword >> r.in.symgroup;
      // TROVE reads a third item as the group's order N (sym%N), used by its groups of linear molecules: "SYMGROUP
      // Csn N" (N the largest vibrational angular momentum); the other groups ignore it, as TROVE does.
      const std::string g = lower(r.in.symgroup);
      if ((g == "csn" || g == "cs(n)" || g == "csn(m)") && l.count() >= 2) {
        const int n = l.integer(2, "SYMGROUP Csn N (the largest vibrational angular momentum)");
        r.in.symgroup += ' ';
        r.in.symgroup += std::to_string(n);
      }
    } else if (k == "natoms") {
      natoms = l.integer(1, "Natoms");
    } else if (k == "singular-axis") {
      singular_axis = l.integer(1, "SINGULAR-AXIS");
    } else if (k == "basis") {
      block = Block::Basis;
    } else if (k == "zmat") {
      block = Block::Zmat;
      r.in.atoms.clear();
      zmat_unreadable = false;
    } else if (k == "check_point" || k == "checkpoint") {
      block = Block::CheckPoint;
    } else if (k == "control") {
      block = Block::Control;
      control = {};
    } else if (k == "intensity") {
      if (have_block)
        warn("linelist", path.string() + ": a second INTENSITY block on line " + std::to_string(number) + " (the first is on line " +
                             std::to_string(block_line) + "); its keywords replace the first block's");
      block = Block::Intensity;
      have_block = true;
      block_line = number;
    }
  }
  const std::string file = path.string();
  IntensityInput& in = r.in;
  if (!have_block) throw InputError(file, "no INTENSITY block (the keywords of TROVE's intensity step)");
  if (block == Block::Intensity) throw InputError(file, block_line, "INTENSITY", "no END before the end of the file", "END closing the block");
  if (block == Block::Control) throw InputError(file, "the CONTROL block has no END before the end of the file");
  if (block == Block::Basis) throw InputError(file, "the BASIS block has no END before the end of the file");
  if (block == Block::Zmat) throw InputError(file, "the ZMAT block has no END before the end of the file");
  if (block == Block::CheckPoint) throw InputError(file, "the CHECK_POINT block has no END before the end of the file");
  in.linear_basis = singular_axis != 0 || (natoms == 3 && singular_basis);
  if (in.symgroup.empty()) throw InputError(file, "no SYMGROUP keyword (the molecular symmetry group)");
  if (in.gns.empty()) throw InputError(file, block_line, "GNS", "nothing", "the nuclear-spin weight of each irreducible representation");
  if (in.temperature <= 0) throw InputError(file, block_line, "TEMPERATURE", "nothing", "a temperature > 0 K");
  if (!r.control_j_line && !r.intensity_j_line)
    throw InputError(file, block_line, "J", "nothing",
                     "'J, Jmin, Jmax' in the INTENSITY block (or in the CONTROL block of an intensity step), Jmax >= 1");
  if (in.jmax == 0)
    throw InputError(file, r.control_j_line ? r.control_j_line : r.intensity_j_line, "J", "0, 0",
                     "Jmax >= 1 (J = 0 <-> J' = 0 is dipole-forbidden: the line list would be empty)");
  return in;
}

}  // namespace quanta::linelist
