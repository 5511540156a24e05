// Regression on examples/kbe/small: the example as shipped (checkpoints every 50 steps included) gives the
// time series of examples/kbe/small/expected/quanta-kbe.txt. Tolerances: N, the polarization, the energies
// and n_c_mean to 1e-8 absolute (the file prints 8 to 10 decimals of numbers of order 1 to 32; the CPU
// result does not depend on the thread count, only compiler and FFTW rounding, ~1e-13, can move it), the
// corrector passes exactly (within 1 where the last pass's change sits at the tolerance).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "quanta/kbe/run.hpp"

namespace fs = std::filesystem;

namespace {

std::vector<std::vector<double>> rows_of(const fs::path& file) {
  std::ifstream in(file);
  std::vector<std::vector<double>> rows;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream s(line);
    std::vector<double> row;
    for (double x; s >> x;) row.push_back(x);
    rows.push_back(row);
  }
  return rows;
}

TEST(KbeExample, SmallMatchesExpected) {
  const fs::path example = fs::path(QUANTA_SOURCE_DIR) / "examples/kbe/small";
  const fs::path out = fs::temp_directory_path() / ("quanta-kbe-example-" + std::to_string(getpid()));
  fs::remove_all(out);
  quanta::kbe::RunOptions o;
  o.config = example / "config.toml";
  o.output_dir = out;
  o.backend = quanta::Backend::Cpu;
  o.quiet = true;
  quanta::kbe::run(o);
  const auto got = rows_of(out / "quanta-kbe.txt"), want = rows_of(example / "expected/quanta-kbe.txt");
  ASSERT_EQ(got.size(), want.size());
  ASSERT_EQ(want.size(), 201u);
  const char* names[] = {"t", "E(t)", "N", "polarization", "E_kinetic", "E_interaction", "E_total", "n_c_mean", "passes"};
  for (std::size_t n = 0; n < want.size(); ++n) {
    ASSERT_EQ(got[n].size(), 9u);
    ASSERT_EQ(want[n].size(), 9u);
    for (int c = 0; c < 8; ++c) EXPECT_NEAR(got[n][c], want[n][c], 1e-8) << names[c] << " at row " << n;
    EXPECT_NEAR(got[n][8], want[n][8], 1.0) << "corrector passes at row " << n;
  }
  EXPECT_FALSE(fs::exists(out / "quanta-kbe.checkpoint.h5"));
  fs::remove_all(out);
}

}  // namespace
