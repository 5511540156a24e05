#include "quanta/core/backend.hpp"

#include <gtest/gtest.h>

#include "test_support.hpp"

using namespace quanta;
using quanta::test::expect_error;

TEST(Backend, ParsesTheThreeNamesInAnyCase) {
  EXPECT_EQ(parse_backend("cpu"), Backend::Cpu);
  EXPECT_EQ(parse_backend("CUDA"), Backend::Cuda);
  EXPECT_EQ(parse_backend("Auto"), Backend::Auto);
  for (Backend b : {Backend::Cpu, Backend::Cuda, Backend::Auto}) EXPECT_EQ(parse_backend(to_string(b)), b);
  expect_error([] { parse_backend("gpu"); }, {"--backend", "'gpu'", "cpu, cuda, auto"});
  expect_error([] { parse_backend(""); }, {"--backend", "''"});
}

TEST(Backend, ResolutionFollowsTheDevicesPresent) {
  EXPECT_EQ(resolve_backend(Backend::Cpu), Backend::Cpu);
  const bool gpu = cuda_device_count() > 0;
  EXPECT_EQ(resolve_backend(Backend::Auto), gpu ? Backend::Cuda : Backend::Cpu);
  if (gpu) {
    EXPECT_EQ(resolve_backend(Backend::Cuda), Backend::Cuda);
  } else {
    expect_error([] { resolve_backend(Backend::Cuda); }, {"--backend cuda", cuda_built() ? "no CUDA device" : "without the CUDA backend"});
  }
}

TEST(Backend, DeviceQueriesAgreeWithEachOther) {
  const int n = cuda_device_count();
  EXPECT_GE(n, 0);
  if (!cuda_built()) EXPECT_EQ(n, 0);
  EXPECT_FALSE(device_info(n).has_value());
  EXPECT_FALSE(device_info(-1).has_value());
  if (n == 0) {
    EXPECT_FALSE(device_info(0).has_value());
    EXPECT_EQ(GpuMemoryBudget{}.usable_bytes(), 0u);
    EXPECT_EQ(GpuMemoryBudget{1 << 30}.usable_bytes(), 0u);
    return;
  }
  const auto info = device_info(0);
  ASSERT_TRUE(info.has_value());
  EXPECT_FALSE(info->name.empty());
  EXPECT_GE(info->compute_major, 3);
  EXPECT_GT(info->multiprocessors, 0);
  EXPECT_GT(info->total_bytes, info->free_bytes);
  EXPECT_GT(info->runtime_version, 0);
  EXPECT_GE(info->driver_version, info->runtime_version / 1000 * 1000);
  // The budget keeps back at least 256 MiB and 5% of the device, and honours a user limit below that.
  const std::size_t usable = GpuMemoryBudget{}.usable_bytes();
  EXPECT_LE(usable + (std::size_t{256} << 20), info->free_bytes + (std::size_t{64} << 20));
  EXPECT_EQ(GpuMemoryBudget{std::size_t{1} << 20}.usable_bytes(), std::size_t{1} << 20);
}

TEST(MemorySize, AcceptsBytesAndBinaryMultiples) {
  EXPECT_EQ(parse_memory_size("1000000"), 1000000u);
  EXPECT_EQ(parse_memory_size("512M"), 512ull << 20);
  EXPECT_EQ(parse_memory_size("8G"), 8ull << 30);
  EXPECT_EQ(parse_memory_size("8g"), 8ull << 30);
  EXPECT_EQ(parse_memory_size("1.5GiB"), 3ull << 29);
  EXPECT_EQ(parse_memory_size("1.5 GB"), 3ull << 29);
  EXPECT_EQ(parse_memory_size("64KiB"), 65536u);
  EXPECT_EQ(parse_memory_size("2T"), 2ull << 40);
  EXPECT_EQ(parse_memory_size(" 100B "), 100u);
  EXPECT_EQ(parse_memory_size("0.5K"), 512u);
}

TEST(MemorySize, RejectsEverythingElseNamingTheOption) {
  for (const char* bad : {"", "0", "0G", "-1G", "abc", "1.5", "8X", "8GG", "8 G B", "1e9", "1..5G", ".", "G", "8iB",
                          "100000000000T"})
    expect_error([&] { parse_memory_size(bad); }, {"--gpu-mem-limit", "'" + std::string(bad) + "'"});
  expect_error([] { parse_memory_size("lots", "--host-mem"); }, {"--host-mem", "'lots'", "512M"});
}
