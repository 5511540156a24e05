#include "quanta/core/threads.hpp"

#include <gtest/gtest.h>
#include <omp.h>

#include "quanta/core/error.hpp"

TEST(Threads, SetThreadsControlsOpenMP) {
  const int before = quanta::max_threads();
  EXPECT_GE(before, 1);
  quanta::set_threads(0);  // leaves the default
  EXPECT_EQ(quanta::max_threads(), before);
  quanta::set_threads(3);
  EXPECT_EQ(quanta::max_threads(), 3);
  int seen = 0;
#pragma omp parallel
#pragma omp single
  seen = omp_get_num_threads();
  EXPECT_EQ(seen, 3);
  EXPECT_THROW(quanta::set_threads(-2), quanta::Error);
  quanta::set_threads(before);
}
