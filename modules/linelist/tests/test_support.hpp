#pragma once
// Shared by the linelist tests: TROVE's SiH2 reference (checkpoints and outputs), staged from
// modules/linelist/tests/data/sih2-trove/ (README.md there says where it comes from).
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "quanta/core/error.hpp"
#include "quanta/linelist/input.hpp"
#include "quanta/linelist/levels.hpp"
#include "quanta/test/data.hpp"

namespace linelist_test {

inline std::filesystem::path reference_dir() { return quanta::test::data_path("linelist/sih2-trove"); }
inline std::filesystem::path checkpoints() { return quanta::test::data_path("linelist/sih2-trove/checkpoints"); }
inline std::filesystem::path input_file() { return quanta::test::data_path("linelist/sih2-trove/step4_std.inp"); }
inline std::filesystem::path trove_output(const std::string& name) { return quanta::test::data_path("linelist/sih2-trove/trove-output/" + name); }

inline std::string text_of(const std::filesystem::path& file) {
  std::ifstream f(file, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), {});
}

// TROVE's full transition table (step4_std.out), keyed by (J', Gamma', level', J, Gamma, level).
struct TroveLine {
  double upper_energy, lower_energy, wavenumber, S, A, I, amplitude;
};
using LineKey = std::tuple<int, int, int, int, int, int>;
inline std::map<LineKey, TroveLine> trove_table() {
  std::istringstream in(text_of(trove_output("step4_std.out")));
  const std::map<std::string, int> gamma{{"A1", 1}, {"A2", 2}, {"B1", 3}, {"B2", 4}};
  std::map<LineKey, TroveLine> out;
  bool table = false;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("   J Gamma <-", 0) == 0) {
      table = true;
      continue;
    }
    if (!table || line.size() < 200 || line.find("<-") == std::string::npos) continue;
    std::istringstream s(line);
    std::vector<std::string> t;
    for (std::string w; s >> w;) t.push_back(w);
    if (t.size() < 30 || t[2] != "<-" || !gamma.count(t[1]) || !gamma.count(t[4])) continue;
    // S, A, I are the three numbers before "Nf <- Ni": find them from the end.
    const std::size_t n = t.size();
    // ... S A I Nf <- Ni itransit istored ( q q q ) <- ( q q q ) amplitude
    const std::size_t iS = n - 20;
    TroveLine l{std::stod(t[6]), std::stod(t[8]), std::stod(t[9]), std::stod(t[iS]), std::stod(t[iS + 1]), std::stod(t[iS + 2]), std::stod(t[n - 1])};
    out[{std::stoi(t[0]), gamma.at(t[1]), std::stoi(t[iS + 3]), std::stoi(t[3]), gamma.at(t[4]), std::stoi(t[iS + 5])}] = l;
  }
  return out;
}

}  // namespace linelist_test
