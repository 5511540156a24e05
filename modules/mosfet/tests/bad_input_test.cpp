// Bad configs: each error names the file, the line and key, what was found and what was expected; the
// command exits non-zero and writes nothing.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "quanta/core/error.hpp"
#include "quanta/mosfet/config.hpp"

using namespace quanta::mosfet;

namespace {
std::string error_of(const std::string& text) {
  try {
    parse_config(text, "bad.toml");
  } catch (const quanta::InputError& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST(MosfetBadInput, MessagesNameLineKeyAndExpectation) {
  const std::string unknown = error_of("[grid]\nnx = 33\nnzz = 33\n");
  EXPECT_NE(unknown.find("bad.toml"), std::string::npos) << unknown;
  EXPECT_NE(unknown.find("3"), std::string::npos) << unknown;
  EXPECT_NE(unknown.find("grid.nzz"), std::string::npos) << unknown;
  const std::string type = error_of("[grid]\nnx = \"65\"\n");
  EXPECT_NE(type.find("grid.nx"), std::string::npos) << type;
  EXPECT_NE(type.find("the string \"65\""), std::string::npos) << type;
  const std::string range = error_of("[grid]\nnz = 4\n");
  EXPECT_NE(range.find("9 <= nz"), std::string::npos) << range;
  const std::string bias = error_of("[bias]\ndrain_voltage = 0.1\n");
  EXPECT_NE(bias.find("transport phase"), std::string::npos) << bias;
  const std::string gate = error_of("[device.geometry]\ngate_start = 20\ngate_end = 45\n");
  EXPECT_NE(gate.find("gate_end"), std::string::npos) << gate;
  const std::string valleys = error_of("[device.valleys]\nmz = [0.19, 0.98]\n");
  EXPECT_NE(valleys.find("3 positive numbers"), std::string::npos) << valleys;
  const std::string solver = error_of("[solver]\nlinear_solver = \"cg\"\n");
  EXPECT_NE(solver.find("\"direct\" or \"srj\""), std::string::npos) << solver;
  const std::string syntax = error_of("[grid\nnx = 3\n");
  EXPECT_NE(syntax.find("TOML"), std::string::npos) << syntax;
  EXPECT_TRUE(error_of("[grid]\nnx = 33\nnz = 33\n").empty());
}

TEST(MosfetBadInput, CommandFailsAndWritesNothing) {
  const auto dir = std::filesystem::temp_directory_path() / "quanta-mosfet-bad-input";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "mosfet.toml") << "[grid]\nnx = 33\nnz = two\n";
  const std::string cmd = std::string(QUANTA_BINARY) + " mosfet " + (dir / "mosfet.toml").string() + " --backend cpu 2> " +
                          (dir / "err.txt").string();
  EXPECT_NE(std::system(cmd.c_str()), 0);
  std::ifstream err(dir / "err.txt");
  const std::string text((std::istreambuf_iterator<char>(err)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("mosfet.toml"), std::string::npos) << text;
  EXPECT_FALSE(std::filesystem::exists(dir / "quanta-mosfet.h5"));
  std::filesystem::remove_all(dir);
}
