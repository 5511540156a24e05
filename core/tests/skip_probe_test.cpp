// Probe for the test main's exit codes (see CMakeLists.txt): one test that skips, one that passes.
#include <gtest/gtest.h>

TEST(SkipProbe, Skips) { GTEST_SKIP() << "probe: skipped on purpose"; }
TEST(SkipProbe, Passes) { EXPECT_EQ(1 + 1, 2); }
