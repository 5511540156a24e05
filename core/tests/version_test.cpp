#include "quanta/core/version.hpp"

#include <gtest/gtest.h>

#include <regex>

#include "quanta/core/backend.hpp"
#include "quanta/core/io/hdf5.hpp"

TEST(Version, IsSemantic) { EXPECT_TRUE(std::regex_match(quanta::version(), std::regex(R"(\d+\.\d+\.\d+.*)"))); }

TEST(Version, DescriptionListsWhatWasCompiledIn) {
  const std::string d = quanta::build_description();
  EXPECT_EQ(d.rfind("quanta " + quanta::version() + "\n", 0), 0u) << d;
  EXPECT_NE(d.find(quanta::cuda_built() ? "CUDA backend: on (CUDA runtime " : "CUDA backend: off"), std::string::npos)
      << d;
  EXPECT_NE(d.find("spglib: "), std::string::npos) << d;
  // The HDF5 found at configure time is the one linked.
  EXPECT_NE(d.find("HDF5: " + quanta::io::hdf5_library_version()), std::string::npos) << d;
  EXPECT_TRUE(std::regex_search(d, std::regex(R"(OpenMP: \d+\.\d+)"))) << d;
}
