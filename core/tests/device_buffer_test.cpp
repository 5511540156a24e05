#include "quanta/core/buffer.hpp"

#include <gtest/gtest.h>

#include <numeric>

#include "quanta/core/backend.hpp"
#include "quanta/core/complex.hpp"
#include "test_support.hpp"

using quanta::DeviceBuffer;

#define QUANTA_REQUIRE_GPU()                                                        \
  if (quanta::cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device: GPU test skipped"

TEST(DeviceBuffer, WithoutCudaTheBackendExplainsItself) {
  if (quanta::cuda_built()) GTEST_SKIP() << "CUDA backend built: this checks the CPU-only build";
  quanta::test::expect_error([] { DeviceBuffer<double> b(16, "rates"); }, {"without the CUDA backend"});
  DeviceBuffer<double> empty;  // owning nothing needs no device
  EXPECT_EQ(empty.size(), 0u);
}

TEST(DeviceBuffer, RoundTripZeroAndMove) {
  QUANTA_REQUIRE_GPU();
  std::vector<double> host(1000);
  std::iota(host.begin(), host.end(), -3.5);
  DeviceBuffer<double> d{std::span<const double>(host), "test data"};
  EXPECT_EQ(d.size(), 1000u);
  EXPECT_EQ(d.bytes(), 8000u);
  EXPECT_EQ(d.to_host(), host);

  DeviceBuffer<double> moved = std::move(d);
  EXPECT_EQ(d.data(), nullptr);
  EXPECT_EQ(moved.to_host(), host);
  moved.zero();
  EXPECT_EQ(moved.to_host(), std::vector<double>(1000, 0.0));

  const std::vector<quanta::cplx> zs{{1, 2}, {3, -4}};
  DeviceBuffer<quanta::cplx> dz{std::span<const quanta::cplx>(zs)};
  const auto back = dz.to_host();
  EXPECT_EQ(back[1].re, 3.0);
  EXPECT_EQ(back[1].im, -4.0);
}

TEST(DeviceBuffer, TooLargeAnAllocationIsOutOfDeviceMemory) {
  QUANTA_REQUIRE_GPU();
  const auto info = quanta::device_info(0);
  ASSERT_TRUE(info);
  const std::size_t n = info->total_bytes / sizeof(double) * 2;
  quanta::test::expect_error<quanta::OutOfDeviceMemory>(
      [&] { DeviceBuffer<double> b(n, "collision matrix"); },
      {"collision matrix", std::to_string(n * sizeof(double)) + " bytes", "free"});
  // The failure must not linger: the next allocation and copy succeed.
  const std::vector<double> two{1.0, 2.0};
  DeviceBuffer<double> small{std::span<const double>(two)};
  EXPECT_EQ(small.to_host(), (std::vector<double>{1.0, 2.0}));
}
