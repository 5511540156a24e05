// TROVE's input format (Stone's input parser): one keyword and its values per line, values separated
// by blanks or commas, text in parentheses is a comment, keywords are case-insensitive.
#include <cctype>
#include <fstream>
#include <sstream>

#include "quanta/core/error.hpp"
#include "quanta/linelist/input.hpp"

namespace quanta::linelist {
namespace {

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
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
  double real(std::size_t i, const std::string& what) const {
    if (i >= tokens_.size()) fail(what, "end of line", "a number");
    std::string t = tokens_[i];
    for (char& c : t)
      if (c == 'd' || c == 'D') c = 'e';
    try {
      std::size_t used = 0;
      const double v = std::stod(t, &used);
      if (used == t.size()) return v;
    } catch (const std::exception&) {
    }
    fail(what, "'" + tokens_[i] + "'", "a number");
  }
  int integer(std::size_t i, const std::string& what) const {
    const double v = real(i, what);
    if (v != static_cast<int>(v)) fail(what, "'" + tokens_[i] + "'", "an integer");
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

// `energy low a, b, upper c, d` (either part may be given alone).
void read_energy_windows(const Line& l, IntensityInput& in) {
  std::size_t i = 1;
  while (i < l.count() + 1) {
    const std::string part = lower(l.word(i));
    Window* w = part == "low" || part == "lower" ? &in.lower : part == "upper" || part == "up" ? &in.upper : nullptr;
    if (!w) l.fail("energy", "'" + l.word(i) + "'", "'low a, b' and/or 'upper c, d'");
    w->min = l.real(i + 1, "energy " + part + " (minimum)");
    w->max = l.real(i + 2, "energy " + part + " (maximum)");
    i += 3;
  }
}

void read_intensity_line(const Line& l, IntensityInput& in) {
  const std::string k = lower(l.keyword());
  auto values = [&](const std::string& what) {
    std::vector<double> v;
    for (std::size_t i = 1; i <= l.count(); ++i) v.push_back(l.real(i, what));
    if (v.empty()) l.fail(what, "no values", "one value per irreducible representation");
    return v;
  };
  if (k == "absorption") in.absorption = true;
  else if (k == "emission") in.absorption = false;
  else if (k == "thresh_intes" || k == "thresh_intens" || k == "threshintens") in.thresh_intens = l.real(1, l.keyword());
  else if (k == "thresh_line" || k == "threshline") in.thresh_line = l.real(1, l.keyword());
  else if (k == "thresh_coeff" || k == "threshcoeff") in.thresh_coeff = l.real(1, l.keyword());
  else if (k == "temperature") in.temperature = l.real(1, l.keyword());
  else if (k == "qstat") in.qstat = l.real(1, l.keyword());
  else if (k == "zpe") { in.zpe = l.real(1, l.keyword()); in.have_zpe = true; }
  else if (k == "gns") in.gns = values("GNS");
  else if (k == "selection") {
    for (double v : values("selection")) in.selection.push_back(static_cast<int>(v));
  } else if (k == "j") {
    in.jmin = l.integer(1, "J (lowest)");
    in.jmax = l.integer(2, "J (highest)");
    if (in.jmin < 0 || in.jmax < in.jmin) l.fail("J", std::to_string(in.jmin) + ", " + std::to_string(in.jmax), "0 <= Jmin <= Jmax");
  } else if (k == "freq-window" || k == "freq_window") {
    in.freq = {l.real(1, "freq-window (minimum)"), l.real(2, "freq-window (maximum)")};
  } else if (k == "energy") read_energy_windows(l, in);
  else if (k == "exomol") in.exomol = true;
  else if (k == "linelist") {
    if (l.count() < 1) l.fail("linelist", "no name", "the stem of the ExoMol file names");
    in.linelist_name = l.word(1);
  } else
    l.fail("INTENSITY block", "keyword '" + l.keyword() + "'",
           "one of absorption, emission, THRESH_INTES, THRESH_LINE, THRESH_COEFF, TEMPERATURE, QSTAT, ZPE, GNS, "
           "selection, J, freq-window, energy, exomol, linelist, END");
}

}  // namespace

IntensityInput read_trove_input(const std::filesystem::path& path) {
  std::ifstream f(path);
  if (!f) throw InputError(path.string(), "cannot open the TROVE input file");
  IntensityInput in;
  in.file = path;
  bool in_block = false, have_block = false;
  int block_line = 0;
  std::string raw;
  for (int number = 1; std::getline(f, raw); ++number) {
    auto t = tokens_of(raw);
    if (t.empty()) continue;
    const Line l(path, number, t);
    const std::string k = lower(l.keyword());
    if (in_block) {
      if (k == "end") in_block = false;
      else read_intensity_line(l, in);
      continue;
    }
    if (k == "mem" || k == "memory") {
      in.mem_gb = l.real(1, "mem");
      if (l.count() >= 2) {
        const std::string unit = lower(l.word(2));
        if (unit == "mb") in.mem_gb /= 1024;
        else if (unit == "tb") in.mem_gb *= 1024;
        else if (unit != "gb") l.fail("mem", "unit '" + l.word(2) + "'", "gb, mb or tb");
      }
    } else if (k == "symgroup") {
      if (l.count() < 1) l.fail("SYMGROUP", "no group", "a molecular symmetry group, e.g. C2v(M)");
      std::istringstream words(raw);
      std::string keyword;
      words >> keyword >> in.symgroup;
    } else if (k == "intensity") {
      in_block = have_block = true;
      block_line = number;
    }
  }
  const std::string file = path.string();
  if (!have_block) throw InputError(file, "no INTENSITY block (the keywords of TROVE's intensity step)");
  if (in_block) throw InputError(file, block_line, "INTENSITY", "no END before the end of the file", "END closing the block");
  if (in.symgroup.empty()) throw InputError(file, "no SYMGROUP keyword (the molecular symmetry group)");
  if (in.gns.empty()) throw InputError(file, block_line, "GNS", "nothing", "the nuclear-spin weight of each irreducible representation");
  if (in.temperature <= 0) throw InputError(file, block_line, "TEMPERATURE", "nothing or <= 0", "a temperature in K");
  return in;
}

}  // namespace quanta::linelist
