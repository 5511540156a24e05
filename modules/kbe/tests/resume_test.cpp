// Checkpoint and --resume: a run stopped after a checkpoint (in-process, and a real SIGKILL of the CLI)
// and then resumed writes exactly the bytes of the numbers an uninterrupted run writes.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <thread>

#include "quanta/core/error.hpp"
#include "quanta/core/io/hdf5.hpp"
#include "quanta/kbe/run.hpp"
#include "test_support.hpp"

namespace fs = std::filesystem;

namespace {

fs::path make_case(const std::string& name, int steps, int every) {
  return kbe_test::make_run_case("resume-" + name + "-" + std::to_string(getpid()), 12, steps, "fft", every);
}

quanta::kbe::RunOptions options(const fs::path& dir) {
  quanta::kbe::RunOptions o;
  o.config = dir / "config.toml";
  o.output_dir = dir;
  o.backend = quanta::Backend::Cpu;
  o.quiet = true;
  return o;
}

// Every numeric dataset but the timings, compared bit for bit.
void expect_identical_results(const fs::path& a, const fs::path& b) {
  quanta::io::H5File fa(a, quanta::io::H5File::Mode::Read), fb(b, quanta::io::H5File::Mode::Read);
  int compared = 0;
  for (const char* name : {"time", "field", "interaction_u", "occupations/valence", "occupations/conduction",
                           "observables/particles", "observables/polarization", "observables/energy_kinetic",
                           "observables/energy_interaction", "observables/energy_correlation", "observables/energy_total",
                           "green/lesser", "green/greater"}) {
    const auto x = fa.read_doubles(name), y = fb.read_doubles(name);
    ASSERT_EQ(x.size(), y.size()) << name;
    EXPECT_EQ(0, std::memcmp(x.data(), y.data(), x.size() * sizeof(double))) << name << " differs";
    ++compared;
  }
  EXPECT_EQ(fa.read_ints("solver/corrector_passes"), fb.read_ints("solver/corrector_passes"));
  EXPECT_EQ(compared, 13);
}

TEST(KbeResume, StoppedRunResumesBitForBit) {
  const fs::path full = make_case("full", 23, 5), cut = make_case("cut", 23, 5);
  quanta::kbe::run(options(full));

  auto o = options(cut);
  o.stop_after = 13;  // the last checkpoint is at step 10: steps 11-13 are lost, as in a kill
  const auto stopped = quanta::kbe::run(o);
  ASSERT_TRUE(stopped.stopped);
  ASSERT_FALSE(fs::exists(cut / "quanta-kbe.h5"));
  ASSERT_TRUE(fs::exists(cut / "quanta-kbe.checkpoint.h5"));

  o.stop_after = -1;
  o.resume = true;
  const auto resumed = quanta::kbe::run(o);
  EXPECT_EQ(resumed.resumed_from, 10);
  expect_identical_results(full / "quanta-kbe.h5", cut / "quanta-kbe.h5");
  EXPECT_FALSE(fs::exists(cut / "quanta-kbe.checkpoint.h5"));  // done with once the results are written
  fs::remove_all(full);
  fs::remove_all(cut);
}

TEST(KbeResume, KilledCliRunResumesBitForBit) {
  const fs::path full = make_case("cli-full", 160, 20), cut = make_case("cli-cut", 160, 20);
  quanta::kbe::run(options(full));

  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    const std::string cfg = (cut / "config.toml").string();
    // The CPU backend, as the in-process runs it is compared with (on a GPU host "auto" would pick CUDA,
    // whose FFTs round differently: same trajectory to 1e-15, not bit for bit).
    execl(QUANTA_BINARY, QUANTA_BINARY, "kbe", cfg.c_str(), "--quiet", "--threads", "1", "--backend", "cpu",
          static_cast<char*>(nullptr));
    _exit(127);
  }
  // Kill it as soon as the first checkpoint is in place (it appears by rename, complete).
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (!fs::exists(cut / "quanta-kbe.checkpoint.h5") && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  kill(child, SIGKILL);
  int status = 0;
  waitpid(child, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status)) << "the run ended before it could be killed";
  ASSERT_FALSE(fs::exists(cut / "quanta-kbe.h5"));

  auto o = options(cut);
  o.resume = true;
  const auto resumed = quanta::kbe::run(o);
  EXPECT_GE(resumed.resumed_from, 20);
  expect_identical_results(full / "quanta-kbe.h5", cut / "quanta-kbe.h5");
  fs::remove_all(full);
  fs::remove_all(cut);
}

TEST(KbeResume, CheckpointOfAnotherConfigIsRejected) {
  const fs::path dir = make_case("other", 12, 5);
  auto o = options(dir);
  o.stop_after = 6;
  quanta::kbe::run(o);
  std::string text;
  {
    std::ifstream in(dir / "config.toml");
    text.assign(std::istreambuf_iterator<char>(in), {});
  }
  text.replace(text.find("u = 0.6"), 7, "u = 0.7");
  std::ofstream(dir / "config.toml") << text;
  o.stop_after = -1;
  o.resume = true;
  try {
    quanta::kbe::run(o);
    FAIL() << "resumed a checkpoint of another config";
  } catch (const quanta::Error& e) {
    EXPECT_NE(std::string(e.what()).find("another config"), std::string::npos) << e.what();
  }
  fs::remove_all(dir);
}

}  // namespace
