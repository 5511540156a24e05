#pragma once
// Shared by the phonon tests: paths to the peer references, whitespace tables, temporary folders.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace quanta::phonon::test {

inline std::filesystem::path si_reference() { return std::filesystem::path(QUANTA_SHARED_DIR) / "reference/phonon/si-fourphonon"; }

// Rows of numbers of a whitespace-separated text file.
inline std::vector<std::vector<double>> read_table(const std::filesystem::path& p) {
  std::ifstream in(p);
  EXPECT_TRUE(in.good()) << "cannot open " << p;
  std::vector<std::vector<double>> rows;
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream s(line);
    std::vector<double> row;
    std::string tok;
    while (s >> tok) {
      if (tok[0] == '#') break;
      row.push_back(std::stod(tok));
    }
    if (!row.empty()) rows.push_back(row);
  }
  return rows;
}

inline std::string read_text(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// A fresh, empty folder under the system temporary directory, removed at destruction.
struct TempDir {
  std::filesystem::path path;
  TempDir() {
    std::random_device rd;
    path = std::filesystem::temp_directory_path() / ("quanta-test-" + std::to_string(rd()) + std::to_string(rd()));
    std::filesystem::create_directories(path);
  }
  ~TempDir() { std::filesystem::remove_all(path); }
};

inline void write_text(const std::filesystem::path& p, const std::string& text) {
  std::ofstream out(p);
  out << text;
}

}  // namespace quanta::phonon::test
