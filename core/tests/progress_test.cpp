#include "quanta/core/progress.hpp"

#include <gtest/gtest.h>

#include <regex>

using quanta::Progress;
using testing::internal::CaptureStderr;
using testing::internal::GetCapturedStderr;

TEST(Progress, PrintsStageCountPercentRateAndEta) {
  CaptureStderr();
  {
    Progress p("harmonic", 4096, false, 0.0);
    p.advance(1200);
    p.finish();
    p.finish();  // a second finish prints nothing more
  }
  const std::string out = GetCapturedStderr();
  EXPECT_TRUE(std::regex_search(out, std::regex(R"(^\[harmonic\] 1200/4096 \(29\.3%\)  [0-9.e+]+/s  ETA [0-9.]+s\n)")))
      << out;
  EXPECT_TRUE(std::regex_search(out, std::regex(R"(\n\[harmonic\] 1200/4096 \(29\.3%\)  [0-9.e+]+/s  in [0-9.]+s\n$)")))
      << out;
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 2);
}

TEST(Progress, ThrottlesLinesAndPrintsTheFinalOneOnDestruction) {
  CaptureStderr();
  {
    Progress p("rates", 100, false, 3600.0);
    for (int i = 0; i < 100; ++i) p.advance();
  }
  const std::string out = GetCapturedStderr();
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 1) << out;
  EXPECT_NE(out.find("[rates] 100/100 (100.0%)"), std::string::npos) << out;
}

TEST(Progress, QuietPrintsNothing) {
  CaptureStderr();
  {
    Progress p("rates", 10, true, 0.0);
    p.advance(5);
    p.finish();
  }
  EXPECT_EQ(GetCapturedStderr(), "");
}

TEST(Progress, CountsAdvancesFromManyThreads) {
  CaptureStderr();
  {
    Progress p("omp", 8000, false, 3600.0);
#pragma omp parallel for
    for (int i = 0; i < 8000; ++i) p.advance();
  }
  EXPECT_NE(GetCapturedStderr().find("[omp] 8000/8000"), std::string::npos);
}

// Items of unequal cost (step n of a two-time propagation costs ~n^2): with the stage's total work
// given, the percentage follows the work, so half the steps of n^2 work are 1/8 of the run, not 1/2.
TEST(Progress, WorkWeightedPercentFollowsTheWork) {
  CaptureStderr();
  {
    Progress p("propagation", 100, false, 0.0);
    double total = 0;
    for (int n = 1; n <= 100; ++n) total += double(n) * n;
    p.set_total_work(total);
    for (int n = 1; n <= 50; ++n) p.advance(1, double(n) * n);
  }
  const std::string out = GetCapturedStderr();
  // sum_{1..50} n^2 / sum_{1..100} n^2 = 42925 / 338350 = 12.7%
  EXPECT_NE(out.find("[propagation] 1/100 (0.0%)"), std::string::npos) << out;
  EXPECT_NE(out.find("[propagation] 50/100 (12.7%)"), std::string::npos) << out;
}

