// What a run refuses or reports instead of passing off a non-result: a diverged propagation stops at the
// step where it turns non-finite, a corrector that stops at its pass limit is counted (and a run where no
// step converged fails), and a run larger than the host's memory is refused before anything is taken.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <string>

#include "quanta/core/backend.hpp"
#include "quanta/core/error.hpp"
#include "quanta/kbe/propagator.hpp"
#include "quanta/kbe/run.hpp"
#include "test_support.hpp"

namespace fs = std::filesystem;

namespace {

std::string error_of_steps(const quanta::kbe::Config& c, int steps) {
  quanta::kbe::Propagator p(c, 1);
  try {
    for (int n = 0; n < steps; ++n) p.advance();
  } catch (const quanta::Error& e) {
    return e.what();
  }
  return "";
}

// Values the config reader refuses (bad_input_test), given to the propagator directly: the time-diagonal
// is NaN after the first step, and the step and the quantity are named.
TEST(KbeRunChecks, DivergedPropagationStopsAtTheStep) {
  auto c = kbe_test::small_config(4, 1e100, 0.05, 5);
  std::string msg = error_of_steps(c, 5);
  ASSERT_FALSE(msg.empty()) << "a NaN propagation went on";
  EXPECT_NE(msg.find("step 1 "), std::string::npos) << msg;
  EXPECT_NE(msg.find("G<(t, t)"), std::string::npos) << msg;
  EXPECT_NE(msg.find("diverged"), std::string::npos) << msg;

  c = kbe_test::small_config(4, 0.5, 0.05, 5);
  c.model.pulse.amplitude = 1e300;
  c.model.pulse.center = 0.05;
  msg = error_of_steps(c, 5);
  ASSERT_FALSE(msg.empty()) << "a NaN propagation went on";
  EXPECT_NE(msg.find("step 1 "), std::string::npos) << msg;

  // A sane run is untouched.
  EXPECT_EQ(error_of_steps(kbe_test::small_config(4, 0.5, 0.05, 5), 5), "");
}

fs::path case_with(const std::string& name, const std::string& solver_lines, int nk = 8, int steps = 6, const char* u = "0.6") {
  const fs::path dir = kbe_test::make_run_case("checks-" + name + "-" + std::to_string(getpid()), nk, steps, "fft", 0);
  std::ifstream in(dir / "config.toml");
  std::string text((std::istreambuf_iterator<char>(in)), {});
  text = std::regex_replace(text, std::regex("write_green = true"), "write_green = false");
  text = std::regex_replace(text, std::regex("u = 0.6"), std::string("u = ") + u);
  text = std::regex_replace(text, std::regex("self_energy = \"fft\""), "self_energy = \"fft\"\n" + solver_lines);
  std::ofstream(dir / "config.toml") << text;
  return dir;
}

quanta::kbe::RunOptions options(const fs::path& dir) {
  quanta::kbe::RunOptions o;
  o.config = dir / "config.toml";
  o.output_dir = dir;
  o.backend = quanta::Backend::Cpu;
  o.quiet = true;
  return o;
}

// The message of the Error a run stops with; empty when it completes.
std::string run_error(const quanta::kbe::RunOptions& o) {
  try {
    quanta::kbe::run(o);
  } catch (const quanta::Error& e) {
    return e.what();
  }
  return "";
}

// U = 20 at dt = 0.05 with three passes: no step meets the tolerance. The run fails, naming the count and
// the remaining change; with enough passes the same run converges at every step and passes.
TEST(KbeRunChecks, CorrectorAtItsLimitEveryStepFails) {
  const fs::path dir = case_with("limit", "corrector_iterations = 3", 8, 6, "20");
  const std::string msg = run_error(options(dir));
  ASSERT_FALSE(msg.empty()) << "a run in which no step converged passed";
  EXPECT_NE(msg.find("limit of 3 passes"), std::string::npos) << msg;
  EXPECT_NE(msg.find("at 6 of 6 steps"), std::string::npos) << msg;
  EXPECT_NE(msg.find("not a converged result"), std::string::npos) << msg;
  fs::remove_all(dir);
}

// U = 20 with 25 passes: the first steps converge (23 to 25 passes), the later ones stop at the limit. The run completes and
// reports how many did not (the warning prints the same numbers); at U = 0.6 none.
TEST(KbeRunChecks, CorrectorLimitIsCounted) {
  const fs::path dir = case_with("some", "corrector_iterations = 25", 8, 30, "20");
  const auto s = quanta::kbe::run(options(dir));
  EXPECT_GT(s.corrector_limit_steps, 0);
  EXPECT_LT(s.corrector_limit_steps, 30);
  EXPECT_GT(s.max_corrector_change, 1e-11);
  fs::remove_all(dir);

  const fs::path ok = case_with("ok", "corrector_iterations = 50", 8, 30);
  const auto t = quanta::kbe::run(options(ok));
  EXPECT_EQ(t.corrector_limit_steps, 0);
  fs::remove_all(ok);
}

// A compressed history never holds the half-plane write_green would write: refused by name before anything runs. A
// compressed run too large for the host is refused with the plan's numbers (rank 32 per block), before any allocation.
TEST(KbeRunChecks, CompressedHistoryRefusesWriteGreenAndPlansItsMemory) {
  const fs::path dir = case_with("compressed-green", "history = \"compressed\"", 8, 6);
  auto o = options(dir);
  o.write_green = true;
  std::string msg = run_error(o);
  ASSERT_FALSE(msg.empty()) << "write_green was accepted with a compressed history";
  EXPECT_NE(msg.find("write_green"), std::string::npos) << msg;
  EXPECT_NE(msg.find("compressed"), std::string::npos) << msg;
  EXPECT_FALSE(fs::exists(dir / "quanta-kbe.h5"));
  fs::remove_all(dir);

  const fs::path big = case_with("compressed-memory", "history = \"compressed\"", 1 << 20, 100000);
  msg = run_error(options(big));
  ASSERT_FALSE(msg.empty()) << "accepted a compressed run of terabytes";
  EXPECT_NE(msg.find("GiB of host memory"), std::string::npos) << msg;
  EXPECT_NE(msg.find("compressed history at rank 32"), std::string::npos) << msg;
  EXPECT_FALSE(fs::exists(big / "quanta-kbe.h5"));
  fs::remove_all(big);
}

// nk = 2^24 over 1000 steps needs petabytes: refused with both numbers before any allocation.
TEST(KbeRunChecks, RunLargerThanHostMemoryIsRefused) {
  const fs::path dir = kbe_test::make_run_case("checks-memory-" + std::to_string(getpid()), 16777216, 1000, "fft", 0);
  const std::string msg = run_error(options(dir));
  ASSERT_FALSE(msg.empty()) << "accepted a run of petabytes";
  EXPECT_NE(msg.find("needs"), std::string::npos) << msg;
  EXPECT_NE(msg.find("GiB of host memory"), std::string::npos) << msg;
  EXPECT_NE(msg.find("are available"), std::string::npos) << msg;
  EXPECT_NE(msg.find("nk = 16777216"), std::string::npos) << msg;
  EXPECT_FALSE(fs::exists(dir / "quanta-kbe.h5"));
  fs::remove_all(dir);
}

// The device plan made before a CUDA run (kernels/cuda_propagation.hpp): the steps that fit are its inverse, the
// half-plane of both G dominates it, and it agrees with what an 80 GB H100 did (docs/kbe.md): nk = 1024 ran 1000
// steps on the device, and 1250 steps did not fit.
TEST(KbeRunChecks, DevicePlanAndTheStepsThatFit) {
  using quanta::kbe::Propagator;
  auto c = kbe_test::small_config(1024, 0.5, 0.05, 1000);
  const std::size_t need = Propagator::device_bytes(c);
  EXPECT_EQ(Propagator::device_steps_within(c, need), 1000);
  EXPECT_EQ(Propagator::device_steps_within(c, need - 1), 999);
  EXPECT_EQ(Propagator::device_steps_within(c, 0), 0);
  const double half_planes = 2.0 * 16 * (1001.0 * 1002 / 2) * 4 * 1024;
  EXPECT_GT(need, half_planes);
  EXPECT_LT(need, 1.02 * half_planes);  // the rows and scratch add O(nt) arrays: 1.1% here
  const double h100 = 80e9;
  EXPECT_LT(need, h100);
  c.time.steps = 1250;
  EXPECT_GT(Propagator::device_bytes(c), h100);
  EXPECT_LT(Propagator::device_steps_within(c, static_cast<std::size_t>(h100)), 1250);
  EXPECT_GE(Propagator::device_steps_within(c, static_cast<std::size_t>(h100)), 1000);
}

// An explicit --backend cuda that does not fit the device (here made small by --gpu-mem-limit) is refused before
// anything is allocated, with the memory needed and there, the steps that would fit, and the CPU path's memory and
// estimated time; it never becomes a CPU run. (A GPU host only: without a device --backend cuda is refused earlier.)
TEST(KbeRunChecks, ExplicitCudaThatDoesNotFitIsRefusedWithTheNumbers) {
  if (quanta::cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  const fs::path dir = kbe_test::make_run_case("cuda-too-small-" + std::to_string(getpid()), 1024, 100, "fft", 0);
  quanta::kbe::RunOptions o;
  o.config = dir / "config.toml";
  o.output_dir = dir;
  o.backend = quanta::Backend::Cuda;
  o.gpu_mem_limit = std::size_t{256} << 20;  // the half-planes alone take 675 MB
  o.quiet = true;
  std::string message;
  try {
    quanta::kbe::run(o);
  } catch (const quanta::Error& e) {
    message = e.what();
  }
  for (const char* part : {"needs", "GiB of device memory", "(--gpu-mem-limit)", "steps would fit", "GiB of host memory", "on this host's",
                           "--backend cuda was asked"})
    EXPECT_NE(message.find(part), std::string::npos) << "missing '" << part << "' in: " << message;
  EXPECT_FALSE(fs::exists(dir / "quanta-kbe.h5"));
  fs::remove_all(dir);
}

}  // namespace
