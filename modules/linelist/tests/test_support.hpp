#pragma once
// Shared by the linelist tests: TROVE's SiH2 reference (checkpoints and outputs), decompressed .xz text.
#include <cstdio>
#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <tuple>

#include "quanta/core/error.hpp"
#include "quanta/linelist/input.hpp"
#include "quanta/linelist/levels.hpp"

namespace linelist_test {

inline std::filesystem::path reference_dir() { return std::filesystem::path(QUANTA_SHARED_DIR) / "reference/linelist/sih2-trove"; }
inline std::filesystem::path checkpoints() { return reference_dir() / "checkpoints"; }

// The text of an .xz file (through the xz tool).
inline std::string xz_text(const std::filesystem::path& file) {
  const std::string cmd = "xz -dc '" + file.string() + "'";
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) throw quanta::Error("cannot run " + cmd);
  std::string out;
  char buf[1 << 16];
  for (std::size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
  if (pclose(p) != 0) throw quanta::Error(cmd + " failed");
  return out;
}

// TROVE's full transition table (step4_std.out), keyed by (J', Gamma', level', J, Gamma, level).
struct TroveLine {
  double upper_energy, lower_energy, wavenumber, S, A, I, amplitude;
};
using LineKey = std::tuple<int, int, int, int, int, int>;
inline std::map<LineKey, TroveLine> trove_table() {
  std::istringstream in(xz_text(reference_dir() / "trove-output/step4_std.out.xz"));
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
