#include "quanta/core/host_memory.hpp"

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <limits>
#include <string>

#include "quanta/core/error.hpp"
#include "quanta/core/complex.hpp"
#include "quanta/core/host_vector.hpp"
#include "quanta/test/sanitizer.hpp"

using quanta::bytes_of;
using quanta::host_memory_available;
using quanta::require_host_memory;

TEST(HostMemory, BytesOfMultipliesAndSaturatesInsteadOfWrapping) {
  EXPECT_EQ(bytes_of(8, 10, 20, 30), 8u * 10 * 20 * 30);
  EXPECT_EQ(bytes_of(16, 0, 1u << 20), 0u);
  // 65536^3 * 8 bytes overflows 64 bits; a wrapped product would be small and get allocated.
  EXPECT_EQ(bytes_of(8, 65536, 65536, 65536, 65536), std::numeric_limits<std::size_t>::max());
}

TEST(HostMemory, AvailableIsReadFromTheSystem) {
  const std::size_t a = host_memory_available();
  EXPECT_GT(a, std::size_t{1} << 20);  // this process runs, so more than a MiB is free
}

TEST(HostMemory, RefusesWithBothNumbers) {
  try {
    require_host_memory(bytes_of(8, 1u << 20, 1u << 20, 1u << 20), "the test's array");
    FAIL() << "8 EiB accepted";
  } catch (const quanta::Error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("the test's array needs"), std::string::npos) << m;
    EXPECT_NE(m.find("GiB are available"), std::string::npos) << m;
  }
  EXPECT_NO_THROW(require_host_memory(1024, "a small array"));
}

// Under an address-space limit (ulimit -v) the limit is what counts, as a user running under a batch
// system's memory cap sees it: checked in a child so the limit does not touch the other tests.
TEST(HostMemory, HonoursTheAddressSpaceLimit) {
  QUANTA_SKIP_UNDER_ASAN();
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    rlimit r{};
    getrlimit(RLIMIT_AS, &r);
    r.rlim_cur = std::size_t{4} << 30;  // 4 GiB
    if (setrlimit(RLIMIT_AS, &r) != 0) _exit(3);
    const std::size_t a = host_memory_available();
    if (a == 0 || a > (std::size_t{4} << 30)) _exit(1);
    try {
      require_host_memory(std::size_t{6} << 30, "six GiB");
      _exit(2);
    } catch (const quanta::Error&) {
      _exit(0);
    }
  }
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "1: available not capped by RLIMIT_AS, 2: 6 GiB accepted under 4 GiB";
}

// HostVector: zeroed by host_vector_zeroed over every thread's share (an odd byte count, so the last share is uneven),
// values kept through copies, growth and assignment from iterators like a std::vector.
TEST(HostVector, ZeroedInParallelAndCopiedLikeAVector) {
  const std::size_t n = 1000003;
  auto v = quanta::host_vector_zeroed<quanta::cplx>(n);
  ASSERT_EQ(v.size(), n);
  std::size_t nonzero = 0;
  for (const auto& x : v) nonzero += x.re != 0 || x.im != 0;
  EXPECT_EQ(nonzero, 0u);
  v[n - 1] = quanta::cplx(1.5, -2.0);
  const auto w = v;
  EXPECT_EQ(w[n - 1].re, 1.5);
  EXPECT_EQ(w[n - 1].im, -2.0);
  v.insert(v.end(), w.begin(), w.begin() + 2);
  EXPECT_EQ(v.size(), n + 2);
  quanta::HostVector<double> d;
  const double src[3] = {1, 2, 3};
  d.assign(src, src + 3);
  EXPECT_EQ(d[2], 3.0);
  std::vector<char> bytes(7, 'x');
  quanta::parallel_zero(bytes.data(), bytes.size());
  for (char c : bytes) EXPECT_EQ(c, 0);
}
