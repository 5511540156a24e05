// The main() of every quanta test executable. CTest reads its exit code: 0 when the tests that ran
// passed, 1 on a failure, and 77 (the SKIP_RETURN_CODE quanta_add_test sets) when every selected test
// skipped itself (no GPU, no MPI launcher), so that CTest reports the executable as skipped, not passed.
#include <gtest/gtest.h>

#include <cstdio>

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  if (RUN_ALL_TESTS() != 0) return 1;
  const auto* u = ::testing::UnitTest::GetInstance();
  const int run = u->test_to_run_count(), skipped = u->skipped_test_count();
  if (run > 0 && skipped == run) {
    std::printf("quanta tests: all %d selected tests skipped themselves (see the reasons above)\n", run);
    return 77;
  }
  if (skipped > 0) std::printf("quanta tests: %d of %d selected tests skipped themselves (see the reasons above)\n", skipped, run);
  return 0;
}
