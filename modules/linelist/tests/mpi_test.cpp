// Lower levels split over 2 processes (seed eq. 20: level i to process i mod P) give the same files as
// one process: .states and .trans byte-identical, and the 2-process run records that 2 processes
// computed it (so 2 independent single-process runs writing the same files cannot pass); a warning about the input
// is printed once, not once per process.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <fstream>
#include <sstream>

#include "mpi_support.hpp"

namespace fs = std::filesystem;
using namespace linelist_test;

TEST(LinelistMpi, TwoProcessesWriteTheSameLineList) {
  if (const std::string why = launcher_problem(); !why.empty()) GTEST_SKIP() << why;
  const fs::path base = fs::temp_directory_path() / ("quanta-linelist-mpi-" + std::to_string(::getpid()));
  fs::remove_all(base);
  ASSERT_EQ(run_linelist(base / "one", 1, "cpu"), 0) << text_of(base / "one/log.txt");
  ASSERT_EQ(run_linelist(base / "two", 2, "cpu"), 0) << text_of(base / "two/log.txt");
  EXPECT_EQ(processes_of(base / "one"), 1);
  EXPECT_EQ(processes_of(base / "two"), 2) << text_of(base / "two/log.txt");
  for (const char* f : {"step4_std_0_2.states", "step4_std_0_2.trans"}) {
    const std::string a = text_of(base / "one" / f), b = text_of(base / "two" / f);
    EXPECT_FALSE(a.empty()) << f;
    EXPECT_TRUE(a == b) << f << " differs between 1 and 2 processes";
  }
  fs::remove_all(base);
}

// A warning about the input (here a repeated TEMPERATURE) is printed once by a run over 2 processes, as by one:
// every rank reads the same input, and only rank 0 speaks.
TEST(LinelistMpi, InputWarningsArePrintedOnce) {
  if (const std::string why = launcher_problem(); !why.empty()) GTEST_SKIP() << why;
  const fs::path base = fs::temp_directory_path() / ("quanta-linelist-mpi-warn-" + std::to_string(::getpid()));
  fs::remove_all(base);
  fs::create_directories(base);
  std::string text = text_of(input_file());
  const std::string line = "  TEMPERATURE   500.0\n";
  const auto at = text.find(line);
  ASSERT_NE(at, std::string::npos);
  text.insert(at, line);
  const fs::path input = base / "step4_std.inp";
  std::ofstream(input) << text;
  auto count = [](const std::string& log) {
    int n = 0;
    for (std::size_t at = log.find("TEMPERATURE is given on line"); at != std::string::npos; at = log.find("TEMPERATURE is given on line", at + 1)) ++n;
    return n;
  };
  ASSERT_EQ(run_linelist(base / "one", 1, "cpu", input), 0) << text_of(base / "one/log.txt");
  ASSERT_EQ(run_linelist(base / "two", 2, "cpu", input), 0) << text_of(base / "two/log.txt");
  EXPECT_EQ(count(text_of(base / "one/log.txt")), 1) << text_of(base / "one/log.txt");
  EXPECT_EQ(count(text_of(base / "two/log.txt")), 1) << text_of(base / "two/log.txt");
  fs::remove_all(base);
}

// The streamed outputs over 2 processes (each streams its own lower levels; the first joins them): the range-split
// .trans files and the .states with lifetimes byte-identical to one process's, and the cross sections (every process's grid added) equal to one
// process's to the last printed digit but for the order of the sums (1e-12 relative asserted).
TEST(LinelistMpi, TwoProcessesStreamTheSameSplitTransAndCrossSections) {
  if (const std::string why = launcher_problem(); !why.empty()) GTEST_SKIP() << why;
  const fs::path base = fs::temp_directory_path() / ("quanta-linelist-mpi-split-" + std::to_string(::getpid()));
  fs::remove_all(base);
  const fs::path xsec = quanta::test::data_path("linelist/exocross-ref/SiH2_Voigt_P1bar_T296_fine.inp");
  const std::string extra = " --trans-split 500 --lifetimes --cross-sections '" + xsec.string() + "'";
  ASSERT_EQ(run_linelist(base / "one", 1, "cpu", input_file(), extra), 0) << text_of(base / "one/log.txt");
  ASSERT_EQ(run_linelist(base / "two", 2, "cpu", input_file(), extra), 0) << text_of(base / "two/log.txt");
  int files = 0;
  for (const auto& e : fs::directory_iterator(base / "one")) {
    const std::string name = e.path().filename().string();
    if (name.find(".spill") != std::string::npos) ADD_FAILURE() << "spill file left: " << name;
    if (name.size() < 6 || name.substr(name.size() - 6) != ".trans") continue;
    ++files;
    EXPECT_TRUE(text_of(e.path()) == text_of(base / "two" / name)) << name << " differs between 1 and 2 processes";
  }
  EXPECT_GT(files, 3);
  // --lifetimes: each process's sums of A added; the same printed lifetimes.
  int states = 0;
  for (const auto& e : fs::directory_iterator(base / "one")) {
    if (e.path().extension() != ".states") continue;
    ++states;
    const std::string name = e.path().filename().string(), one = text_of(e.path());
    EXPECT_TRUE(one == text_of(base / "two" / name)) << name << " (with lifetimes) differs between 1 and 2 processes";
    EXPECT_NE(one.find("E-0"), std::string::npos) << name << ": no lifetime column";
  }
  EXPECT_EQ(states, 1);
  for (const auto& e : fs::directory_iterator(base / "two"))
    EXPECT_EQ(e.path().filename().string().find(".spill"), std::string::npos) << e.path();
  std::istringstream a(text_of(base / "one/SiH2_Voigt_P1bar_T296_fine.xsec")), b(text_of(base / "two/SiH2_Voigt_P1bar_T296_fine.xsec"));
  double nu1, s1, nu2, s2, peak = 0, diff = 0;
  int points = 0;
  while (a >> nu1 >> s1) {
    ASSERT_TRUE(static_cast<bool>(b >> nu2 >> s2));
    EXPECT_EQ(nu1, nu2);
    peak = std::max(peak, s1);
    diff = std::max(diff, std::abs(s1 - s2));
    ++points;
  }
  EXPECT_EQ(points, 4001);
  EXPECT_LE(diff, 1e-12 * peak);
  EXPECT_EQ(processes_of(base / "two"), 2);
  fs::remove_all(base);
}
