// Lower levels split over 2 processes (seed eq. 20: level i to process i mod P) give the same files as
// one process: .states and .trans byte-identical.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>

#include "quanta/core/backend.hpp"
#include "test_support.hpp"

namespace fs = std::filesystem;

namespace {

bool launcher_works() {
  static const bool ok = [] {
    const std::string cmd = std::string(QUANTA_MPIEXEC) + " --oversubscribe --bind-to none -np 2 true > /dev/null 2>&1";
    return std::system(cmd.c_str()) == 0;
  }();
  return ok;
}

std::string slurp(const fs::path& p) {
  std::ifstream f(p);
  return std::string(std::istreambuf_iterator<char>(f), {});
}

int run(const fs::path& out, int ranks, const std::string& backend = "cpu") {
  using namespace linelist_test;
  const std::string launcher =
      ranks == 1 ? std::string() : std::string(QUANTA_MPIEXEC) + " --oversubscribe --bind-to none -np " + std::to_string(ranks) + " ";
  const std::string cmd = launcher + QUANTA_BINARY + " linelist '" + (reference_dir() / "step4_std.inp").string() + "' --checkpoints '" +
                          checkpoints().string() + "' -o '" + out.string() + "' --backend " + backend + " --threads 1 -q > /dev/null 2>&1";
  const int rc = std::system(cmd.c_str());
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

}  // namespace

TEST(LinelistMpi, TwoProcessesWriteTheSameLineList) {
  if (!launcher_works()) GTEST_SKIP() << QUANTA_MPIEXEC << " cannot start 2 processes on this machine";
  const fs::path base = fs::temp_directory_path() / ("quanta-linelist-mpi-" + std::to_string(::getpid()));
  fs::remove_all(base);
  ASSERT_EQ(run(base / "one", 1), 0);
  ASSERT_EQ(run(base / "two", 2), 0);
  for (const char* f : {"step4_std_0_2.states", "step4_std_0_2.trans"}) {
    const std::string a = slurp(base / "one" / f), b = slurp(base / "two" / f);
    EXPECT_FALSE(a.empty()) << f;
    EXPECT_TRUE(a == b) << f << " differs between 1 and 2 processes";
  }
  fs::remove_all(base);
}

// With GPUs: each process takes the GPU of its local rank (two GPUs on a 2-GPU host, the same one
// otherwise); the files are those of one CPU process.
TEST(LinelistMpi, TwoProcessesOnGpusWriteTheSameLineList) {
  if (quanta::cuda_device_count() == 0) GTEST_SKIP() << "no GPU";
  if (!launcher_works()) GTEST_SKIP() << QUANTA_MPIEXEC << " cannot start 2 processes on this machine";
  const fs::path base = fs::temp_directory_path() / ("quanta-linelist-mpi-gpu-" + std::to_string(::getpid()));
  fs::remove_all(base);
  ASSERT_EQ(run(base / "one", 1), 0);
  ASSERT_EQ(run(base / "two", 2, "cuda"), 0);
  for (const char* f : {"step4_std_0_2.states", "step4_std_0_2.trans"}) {
    const std::string a = slurp(base / "one" / f), b = slurp(base / "two" / f);
    EXPECT_FALSE(a.empty()) << f;
    EXPECT_TRUE(a == b) << f << " differs between 1 CPU process and 2 GPU processes";
  }
  std::printf("GPUs on this host: %d\n", quanta::cuda_device_count());
  fs::remove_all(base);
}
