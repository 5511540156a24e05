#pragma once
// Shared by the tests against TROVE's reference folders (tests/data/*-trove): quanta's ExoMol files against TROVE's,
// and the command run on a folder's own input, on the CPU or the GPU.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <string>

#include "quanta/test/data.hpp"
#include "test_support.hpp"

namespace linelist_test {

// quanta's ExoMol files (out/<stem>.states, .trans) against TROVE's (ref/<ref_stem>.*): the .states identical, the
// .trans the same (upper, lower) IDs in the same order, `lines` of them, wavenumbers to 1e-6 cm^-1 and A to 1e-7
// relative (TROVE prints 6 decimals and 9 significant digits). Prints the largest differences under `what`.
inline void expect_same_exomol_files(const std::filesystem::path& out, const std::string& stem, const std::filesystem::path& ref_dir,
                              const std::string& ref_stem, long lines, const char* what) {
  EXPECT_EQ(text_of(out / (stem + ".states")), text_of(ref_dir / (ref_stem + ".states")));
  std::istringstream mine(text_of(out / (stem + ".trans"))), ref(text_of(ref_dir / (ref_stem + ".trans")));
  long n = 0, up, lo, up_r, lo_r;
  double a, nu, a_r, nu_r, worst_a = 0, worst_nu = 0;
  while (ref >> up_r >> lo_r >> a_r >> nu_r) {
    ASSERT_TRUE(static_cast<bool>(mine >> up >> lo >> a >> nu)) << "quanta's .trans ends after " << n << " lines";
    ASSERT_EQ(up, up_r) << "line " << n + 1;
    ASSERT_EQ(lo, lo_r) << "line " << n + 1;
    worst_a = std::max(worst_a, std::abs(a / a_r - 1));
    worst_nu = std::max(worst_nu, std::abs(nu - nu_r));
    ++n;
  }
  EXPECT_FALSE(static_cast<bool>(mine >> up)) << "quanta's .trans has more lines than TROVE's";
  EXPECT_EQ(n, lines);
  EXPECT_LT(worst_a, 1e-7);
  EXPECT_LE(worst_nu, 1e-6);
  std::printf("  %s: %ld transitions, largest |A / A_TROVE - 1| %.1e, largest |nu - nu_TROVE| %.1e cm^-1\n", what, n, worst_a, worst_nu);
}

inline std::filesystem::path fresh_dir(const std::string& name) {
  const auto out = std::filesystem::temp_directory_path() / ("quanta-linelist-" + name + "-" + std::to_string(::getpid()));
  std::filesystem::remove_all(out);
  std::filesystem::create_directories(out);
  return out;
}


// The command on a TROVE reference folder's own input (`step4_exomol_files.inp`, checkpoints in `checkpoints/`) gives
// TROVE's .states (identical text) and .trans (the same lines in the same order, A to 1e-7 relative, wavenumbers to
// 1e-6 cm^-1). With `via_levels_file` the checkpoints are first converted to a levels file (linelist-convert) and
// the line list is computed from that file alone. `backend`: the --backend the command runs on.
inline void expect_command_gives_troves_files(const std::string& folder, const std::string& stem, long lines, const char* what,
                                              bool via_levels_file = false, const std::string& backend = "cpu",
                                              const std::string& input_file = "step4_exomol_files.inp") {
  const auto out = fresh_dir(folder);
  const auto dir = quanta::test::data_path("linelist/" + folder);
  const std::string input = "'" + (dir / input_file).string() + "'";
  const std::string checkpoints = "'" + (dir / "checkpoints").string() + "'";
  std::string source = " --checkpoints " + checkpoints;
  if (via_levels_file) {
    const std::string levels = "'" + (out / "levels.h5").string() + "'";
    const std::string convert = std::string(QUANTA_BINARY) + " linelist-convert " + input + " --checkpoints " + checkpoints + " -o " + levels + " -q";
    ASSERT_EQ(std::system(convert.c_str()), 0) << convert;
    source = " --levels " + levels;
  }
  const std::string cmd = std::string(QUANTA_BINARY) + " linelist " + input + source + " -o '" + out.string() + "' --backend " + backend + " -q";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  expect_same_exomol_files(out, stem, dir / "trove-output", stem, lines, what);
  std::filesystem::remove_all(out);
}

// Both ways a TROVE user runs it: from the checkpoints, and through a levels file made from them.
inline void expect_troves_files_both_ways(const std::string& folder, const std::string& stem, long lines, const std::string& what,
                                          const std::string& input_file = "step4_exomol_files.inp") {
  expect_command_gives_troves_files(folder, stem, lines, what.c_str(), false, "cpu", input_file);
  expect_command_gives_troves_files(folder, stem, lines, (what + ", through a levels file").c_str(), true, "cpu", input_file);
}

}  // namespace linelist_test
