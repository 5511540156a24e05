// Checkpoint and --resume: a run stopped after a checkpoint (in-process, and a real SIGKILL of the CLI)
// and then resumed writes exactly the bytes of the numbers an uninterrupted run writes.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <thread>

#include "../io/checkpoint.hpp"
#include "quanta/core/error.hpp"
#include "quanta/core/io/hdf5.hpp"
#include "quanta/kbe/run.hpp"
#include "test_support.hpp"

namespace fs = std::filesystem;

namespace {

fs::path make_case(const std::string& name, int steps, int every, bool compressed_history = false) {
  return kbe_test::make_run_case("resume-" + name + "-" + std::to_string(getpid()), 12, steps, "fft", every, compressed_history);
}

quanta::kbe::RunOptions options(const fs::path& dir) {
  quanta::kbe::RunOptions o;
  o.config = dir / "config.toml";
  o.output_dir = dir;
  o.backend = quanta::Backend::Cpu;
  o.quiet = true;
  return o;
}

// `quanta kbe` on a case folder in a child process, CPU backend and one thread, as the in-process runs it is compared
// with (on a GPU host "auto" would pick CUDA, whose FFTs round differently: same trajectory to 1e-15, not bit for bit).
pid_t start_cli_run(const fs::path& dir) {
  const pid_t child = fork();
  if (child == 0) {
    const std::string cfg = (dir / "config.toml").string(), out = dir.string();
    execl(QUANTA_BINARY, QUANTA_BINARY, "kbe", cfg.c_str(), "-o", out.c_str(), "--quiet", "--threads", "1", "--backend", "cpu",
          static_cast<char*>(nullptr));
    _exit(127);
  }
  return child;
}

// SIGKILL to the child, reaped; whether the signal ended it (false: it had ended by itself).
bool kill_and_reap(pid_t child) {
  kill(child, SIGKILL);
  int status = 0;
  waitpid(child, &status, 0);
  return WIFSIGNALED(status);
}

// Every numeric dataset but the timings, compared bit for bit (the Green's functions where written).
void expect_identical_results(const fs::path& a, const fs::path& b, bool green = true) {
  quanta::io::H5File fa(a, quanta::io::H5File::Mode::Read), fb(b, quanta::io::H5File::Mode::Read);
  int compared = 0;
  for (const char* name : {"time", "field", "interaction_u", "occupations/valence", "occupations/conduction",
                           "observables/particles", "observables/polarization", "observables/energy_kinetic",
                           "observables/energy_interaction", "observables/energy_correlation", "observables/energy_total",
                           "green/lesser", "green/greater"}) {
    if (!green && std::string(name).rfind("green/", 0) == 0) continue;
    const auto x = fa.read_doubles(name), y = fb.read_doubles(name);
    ASSERT_EQ(x.size(), y.size()) << name;
    EXPECT_EQ(0, std::memcmp(x.data(), y.data(), x.size() * sizeof(double))) << name << " differs";
    ++compared;
  }
  EXPECT_EQ(fa.read_ints("solver/corrector_passes"), fb.read_ints("solver/corrector_passes"));
  EXPECT_EQ(compared, green ? 13 : 11);
}

// Runs of the case `make(trial)` killed at spread moments after their first checkpoint (`spacing_us` x trial later),
// each resumed and compared with the uninterrupted run in `full` (the Green's functions when `green`); `each` checks the
// resumed folder further. Returns how many were killed before they ended.
template <class Make, class Each>
int kill_and_resume(const fs::path& full, int trials, int spacing_us, bool green, Make make, Each each) {
  int killed = 0;
  for (int trial = 0; trial < trials; ++trial) {
    SCOPED_TRACE("trial " + std::to_string(trial));
    const fs::path cut = make(trial);
    const fs::path checkpoint = cut / "quanta-kbe.checkpoint.h5";
    const pid_t child = start_cli_run(cut);
    if (child < 0) {
      ADD_FAILURE() << "fork failed";
      return killed;
    }
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (!fs::exists(checkpoint) && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    std::this_thread::sleep_for(std::chrono::microseconds(1 + spacing_us * trial));
    // The run ended first, or was killed after its outputs were written and its checkpoint removed: nothing to resume.
    if (!kill_and_reap(child) || fs::exists(cut / "quanta-kbe.h5") || !fs::exists(checkpoint)) {
      fs::remove_all(cut);
      continue;
    }
    ++killed;
    auto o = options(cut);
    o.resume = true;
    const auto resumed = quanta::kbe::run(o);
    EXPECT_GE(resumed.resumed_from, 4);
    expect_identical_results(full / "quanta-kbe.h5", cut / "quanta-kbe.h5", green);
    each(checkpoint);
    fs::remove_all(cut);
  }
  return killed;
}

TEST(KbeResume, StoppedRunResumesBitForBit) {
  const fs::path full = make_case("full", 23, 5), cut = make_case("cut", 23, 5);
  quanta::kbe::run(options(full));

  auto o = options(cut);
  // Stopped after step 13, as in a kill. Checkpoints are due at 5 and 10; the one due at 10 starts only once
  // the one of step 5 is written (checkpoints never stall the propagation), at step 10 to 13 or not before the
  // stop: the run resumes from 5 or from 10-13, and either way gives the same bytes.
  o.stop_after = 13;
  const auto stopped = quanta::kbe::run(o);
  ASSERT_TRUE(stopped.stopped);
  ASSERT_FALSE(fs::exists(cut / "quanta-kbe.h5"));
  ASSERT_TRUE(fs::exists(cut / "quanta-kbe.checkpoint.h5"));

  o.stop_after = -1;
  o.resume = true;
  const auto resumed = quanta::kbe::run(o);
  EXPECT_TRUE(resumed.resumed_from == 5 || (resumed.resumed_from >= 10 && resumed.resumed_from <= 13)) << resumed.resumed_from;
  expect_identical_results(full / "quanta-kbe.h5", cut / "quanta-kbe.h5");
  EXPECT_FALSE(fs::exists(cut / "quanta-kbe.checkpoint.h5"));  // done with once the results are written
  fs::remove_all(full);
  fs::remove_all(cut);
}

TEST(KbeResume, KilledCliRunResumesBitForBit) {
  const fs::path full = make_case("cli-full", 160, 20), cut = make_case("cli-cut", 160, 20);
  quanta::kbe::run(options(full));

  const pid_t child = start_cli_run(cut);
  ASSERT_GE(child, 0);
  // Kill it as soon as the first checkpoint is in place (it appears by rename, complete).
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (!fs::exists(cut / "quanta-kbe.checkpoint.h5") && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  ASSERT_TRUE(kill_and_reap(child)) << "the run ended before it could be killed";
  ASSERT_FALSE(fs::exists(cut / "quanta-kbe.h5"));

  auto o = options(cut);
  o.resume = true;
  const auto resumed = quanta::kbe::run(o);
  EXPECT_GE(resumed.resumed_from, 20);
  expect_identical_results(full / "quanta-kbe.h5", cut / "quanta-kbe.h5");
  fs::remove_all(full);
  fs::remove_all(cut);
}

// Killed while (or just after) the second checkpoint writes its rows: the file's attributes still describe
// a complete state (step 20, or that of the second checkpoint: due at 40, started at 40 or, when the first was
// still being written, at a later step), and the resumed run is bit for bit the uninterrupted one.
TEST(KbeResume, KilledWhileAppendingResumesBitForBit) {
  const fs::path full = make_case("append-full", 100, 20), cut = make_case("append-cut", 100, 20);
  quanta::kbe::run(options(full));

  const fs::path checkpoint = cut / "quanta-kbe.checkpoint.h5";
  const pid_t child = start_cli_run(cut);
  ASSERT_GE(child, 0);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (!fs::exists(checkpoint) && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  // The file keeps its size (its space is allocated when it is made): the second checkpoint shows as a new
  // modification time.
  std::error_code ec;
  const auto first_written = fs::last_write_time(checkpoint, ec);
  while (!ec && fs::last_write_time(checkpoint, ec) == first_written && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  ASSERT_TRUE(kill_and_reap(child)) << "the run ended before it could be killed";
  ASSERT_FALSE(fs::exists(cut / "quanta-kbe.h5"));

  auto o = options(cut);
  o.resume = true;
  const auto resumed = quanta::kbe::run(o);
  EXPECT_TRUE(resumed.resumed_from == 20 || (resumed.resumed_from >= 40 && resumed.resumed_from < 100)) << resumed.resumed_from;
  expect_identical_results(full / "quanta-kbe.h5", cut / "quanta-kbe.h5");
  fs::remove_all(full);
  fs::remove_all(cut);
}

// Killed at many moments of a run that checkpoints every 4 steps (kill times spread over the run, so that
// some land inside a checkpoint's writes or flushes): every killed run resumes and gives the uninterrupted
// run's bytes. A checkpoint whose structure could be torn by a kill (an extendable dataset's B-tree
// half-written) made --resume fail here once in a few tries.
TEST(KbeResume, KilledAtManyMomentsResumesBitForBit) {
  const fs::path full = make_case("many-full", 120, 4);
  quanta::kbe::run(options(full));
  const int killed = kill_and_resume(
      full, 12, 1500, true, [](int trial) { return make_case("many-cut-" + std::to_string(trial), 120, 4); },  // 0 to 16.5 ms
      [](const fs::path&) {});
  EXPECT_GE(killed, 6) << "too few runs were killed before they ended";
  fs::remove_all(full);
}

// Adaptive steps (time.adaptive): the checkpoint carries the grid (the history's times), the proposed step and the
// values the error estimate extrapolates from; a run stopped after step 13 and resumed writes the uninterrupted bytes.
TEST(KbeResume, StoppedAdaptiveRunResumesBitForBit) {
  auto make = [](const std::string& name) {
    const fs::path dir = make_case(name, 200, 5);
    std::ifstream in(dir / "config.toml");
    std::string text((std::istreambuf_iterator<char>(in)), {});
    const std::string from = "steps = 200";
    text.replace(text.find(from), from.size(), "steps = 200\nadaptive = true\nend = 1.5\ntolerance = 1e-6\ndt_max = 0.2");
    std::ofstream(dir / "config.toml") << text;
    return dir;
  };
  const fs::path full = make("adaptive-full"), cut = make("adaptive-cut");
  const auto done = quanta::kbe::run(options(full));
  EXPECT_DOUBLE_EQ(done.end_time, 1.5);
  auto o = options(cut);
  o.stop_after = 13;
  ASSERT_TRUE(quanta::kbe::run(o).stopped);
  o.stop_after = -1;
  o.resume = true;
  const auto resumed = quanta::kbe::run(o);
  EXPECT_GE(resumed.resumed_from, 5);
  EXPECT_EQ(resumed.steps, done.steps);
  expect_identical_results(full / "quanta-kbe.h5", cut / "quanta-kbe.h5");
  fs::remove_all(full);
  fs::remove_all(cut);
}

// The same with a compressed history (solver.history = "compressed", leaf 8: strips close and blocks are recompressed
// between checkpoints): its checkpoints write the whole store to the slot's side file before `position` names the
// slot, so a kill at any moment leaves a state to resume, and the resumed run gives the uninterrupted one's bytes.
TEST(KbeResume, KilledCompressedRunResumesBitForBit) {
  const fs::path full = make_case("compressed-full", 120, 4, true);
  quanta::kbe::run(options(full));
  {
    quanta::io::H5File f(full / "quanta-kbe.h5", quanta::io::H5File::Mode::Read);
    EXPECT_EQ(f.read_string("metadata/history/storage"), "compressed");
  }
  const int killed = kill_and_resume(
      full, 8, 2500, false, [](int trial) { return make_case("compressed-cut-" + std::to_string(trial), 120, 4, true); },
      [](const fs::path& checkpoint) {
        for (int slot = 0; slot < 2; ++slot) EXPECT_FALSE(fs::exists(quanta::kbe::checkpoint_history_path(checkpoint, slot)));
      });
  EXPECT_GE(killed, 4) << "too few runs were killed before they ended";
  fs::remove_all(full);
}

// A checkpoint costs only the rows computed since the last one: over checkpoints at steps 4, 8 and 12
// every block of the half-plane is read for writing exactly once, and the file restores the state.
TEST(KbeResume, CheckpointsAppendEachRowOnce) {
  struct CountingReader final : quanta::kbe::HalfPlaneReader {
    std::unique_ptr<quanta::kbe::HalfPlaneReader> inner;
    std::vector<int>* reads;
    std::size_t max_blocks() const override { return 3; }  // pieces smaller than a checkpoint's rows
    std::pair<const quanta::cplx*, const quanta::cplx*> blocks(std::size_t first, std::size_t count) override {
      for (std::size_t b = first; b < first + count; ++b) ++(*reads)[b];
      return inner->blocks(first, count);
    }
  };
  const auto c = kbe_test::small_config(5, 0.6, 0.05, 12);
  quanta::kbe::Propagator p(c, 1);
  quanta::kbe::History h;
  h.append(p.observe(), {});
  std::vector<int> reads(13 * 14 / 2, 0);
  const fs::path dir = fs::temp_directory_path() / ("quanta-kbe-append-" + std::to_string(getpid()));
  fs::create_directories(dir);
  const fs::path file = dir / "checkpoint.h5";
  {
    auto reader = std::make_unique<CountingReader>();
    reader->inner = p.half_plane_reader();
    reader->reads = &reads;
    quanta::kbe::CheckpointWriter w(file, 42, p.nk(), 12, std::move(reader), nullptr);
    while (p.step() < 12) {
      const auto st = p.advance();
      h.append(p.observe(), st);
      if (p.step() % 4 == 0) {
        std::vector<quanta::cplx> il, ig;
        p.collision_row_copy(il, ig);
        w.begin(p.step(), il, ig, h);
      }
    }
    w.wait();
  }
  for (std::size_t b = 0; b < reads.size(); ++b) EXPECT_EQ(reads[b], 1) << "block " << b;

  const auto at = quanta::kbe::read_checkpoint_position(file, 42);
  EXPECT_EQ(at.step, 12);
  quanta::kbe::Propagator q(c, 1);
  quanta::kbe::History hq;
  quanta::kbe::restore_checkpoint(file, at, q, hq);
  EXPECT_EQ(q.step(), 12);
  EXPECT_EQ(hq.energy_total, h.energy_total);
  EXPECT_EQ(hq.corrector_passes, h.corrector_passes);
  const auto a = p.save(), b = q.save();
  EXPECT_EQ(0, std::memcmp(a.g_less.data(), b.g_less.data(), a.g_less.size() * sizeof(quanta::cplx)));
  EXPECT_EQ(0, std::memcmp(a.g_greater.data(), b.g_greater.data(), a.g_greater.size() * sizeof(quanta::cplx)));
  EXPECT_EQ(0, std::memcmp(a.i_less.data(), b.i_less.data(), a.i_less.size() * sizeof(quanta::cplx)));
  EXPECT_THROW(quanta::kbe::read_checkpoint_position(file, 43), quanta::InputError);
  fs::remove_all(dir);
}

// A run whose propagation is complete abandons the checkpoint still being written: the file stays at the
// last complete checkpoint (as after a kill), and an abandoned first checkpoint leaves no file at all.
TEST(KbeResume, AbandonedCheckpointLeavesTheLastCompleteOne) {
  struct HeldReader final : quanta::kbe::HalfPlaneReader {
    std::unique_ptr<quanta::kbe::HalfPlaneReader> inner;
    std::atomic<int>* hold_from_step;  // pieces of checkpoints at this step or later wait for `release`
    std::atomic<bool>* release;
    int* step;
    std::size_t max_blocks() const override { return 1; }
    std::pair<const quanta::cplx*, const quanta::cplx*> blocks(std::size_t first, std::size_t count) override {
      if (*step >= *hold_from_step) {
        while (!*release) std::this_thread::sleep_for(std::chrono::milliseconds(1));
        std::this_thread::sleep_for(std::chrono::milliseconds(50));  // abandon() has set its flag by now
      }
      return inner->blocks(first, count);
    }
  };
  const auto c = kbe_test::small_config(5, 0.6, 0.05, 12);
  const fs::path dir = fs::temp_directory_path() / ("quanta-kbe-abandon-" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const fs::path file = dir / "checkpoint.h5";
  for (const int hold_from : {8, 4}) {  // the second checkpoint abandoned, then the first
    SCOPED_TRACE("abandoned the checkpoint at step " + std::to_string(hold_from));
    quanta::kbe::Propagator p(c, 1);
    quanta::kbe::History h;
    h.append(p.observe(), {});
    std::atomic<int> hold{hold_from};
    std::atomic<bool> release{false};
    int step = 0;
    auto reader = std::make_unique<HeldReader>();
    reader->inner = p.half_plane_reader();
    reader->hold_from_step = &hold;
    reader->release = &release;
    reader->step = &step;
    {
      quanta::kbe::CheckpointWriter w(file, 42, p.nk(), 12, std::move(reader), nullptr);
      while (p.step() < hold_from) {
        const auto st = p.advance();
        h.append(p.observe(), st);
        if (p.step() % 4 == 0) {
          std::vector<quanta::cplx> il, ig;
          p.collision_row_copy(il, ig);
          w.wait();
          step = p.step();
          w.begin(p.step(), il, ig, h);
        }
      }
      release = true;
      w.abandon();
    }
    if (hold_from == 4) {
      EXPECT_FALSE(fs::exists(file));
      EXPECT_TRUE(fs::is_empty(dir)) << "a temporary file was left behind";
    } else {
      const auto at = quanta::kbe::read_checkpoint_position(file, 42);
      EXPECT_EQ(at.step, 4);
      quanta::kbe::Propagator q(c, 1);
      quanta::kbe::History hq;
      quanta::kbe::restore_checkpoint(file, at, q, hq);
      EXPECT_EQ(q.step(), 4);
      EXPECT_EQ(hq.size(), 5u);
    }
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  fs::remove_all(dir);
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
