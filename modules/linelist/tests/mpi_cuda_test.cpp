// With GPUs: each of 2 processes takes the GPU of its local rank (two GPUs on a 2-GPU host, the same one
// otherwise); the files are those of one CPU process.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>

#include "mpi_support.hpp"
#include "quanta/core/backend.hpp"

namespace fs = std::filesystem;
using namespace linelist_test;

TEST(LinelistMpi, TwoProcessesOnGpusWriteTheSameLineList) {
  if (quanta::cuda_device_count() == 0) GTEST_SKIP() << "no GPU";
  if (const std::string why = launcher_problem(); !why.empty()) GTEST_SKIP() << why;
  const fs::path base = fs::temp_directory_path() / ("quanta-linelist-mpi-gpu-" + std::to_string(::getpid()));
  fs::remove_all(base);
  ASSERT_EQ(run_linelist(base / "one", 1, "cpu"), 0) << text_of(base / "one/log.txt");
  ASSERT_EQ(run_linelist(base / "two", 2, "cuda"), 0) << text_of(base / "two/log.txt");
  EXPECT_EQ(processes_of(base / "two"), 2) << text_of(base / "two/log.txt");
  for (const char* f : {"step4_std_0_2.states", "step4_std_0_2.trans"}) {
    const std::string a = text_of(base / "one" / f), b = text_of(base / "two" / f);
    EXPECT_FALSE(a.empty()) << f;
    EXPECT_TRUE(a == b) << f << " differs between 1 CPU process and 2 GPU processes";
  }
  std::printf("GPUs on this host: %d\n", quanta::cuda_device_count());
  fs::remove_all(base);
}
