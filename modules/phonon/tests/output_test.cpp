// quanta phonon's outputs under adverse conditions, through the command line: a mesh too large for the memory, a full
// disk, an output folder that cannot be written, temporaries of a killed run, and earlier results in the output folder.
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>

#include "quanta/core/timer.hpp"
#include "quanta/test/sanitizer.hpp"
#include "test_support.hpp"

namespace quanta::phonon::test {
namespace {

struct Outcome {
  int status = -1;  // waitpid status
  std::string stderr_text;
  bool exited_with(int code) const { return WIFEXITED(status) && WEXITSTATUS(status) == code; }
  std::string describe() const {
    return WIFSIGNALED(status) ? "killed by signal " + std::to_string(WTERMSIG(status))
                               : "exit " + std::to_string(WEXITSTATUS(status)) + ": " + stderr_text;
  }
};

// Runs `quanta phonon --backend cpu INPUT --output-dir OUT [-q]` in a child process under the given limits (0: none).
// SIGXFSZ is ignored, so that a write past RLIMIT_FSIZE fails with EFBIG, as one on a full disk does.
Outcome run_quanta(const std::filesystem::path& input, const std::filesystem::path& out, rlim_t fsize = 0,
                   rlim_t as = 0, bool quiet = false) {
  const auto log = input.parent_path() / ("stderr-" + std::to_string(::getpid()) + ".txt");
  const pid_t child = ::fork();
  if (child == 0) {
    ::signal(SIGXFSZ, SIG_IGN);
    if (fsize) {
      const rlimit l{fsize, fsize};
      ::setrlimit(RLIMIT_FSIZE, &l);
    }
    if (as) {
      const rlimit l{as, as};
      ::setrlimit(RLIMIT_AS, &l);
    }
    const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(fd, 2);
    ::execl(QUANTA_BINARY, QUANTA_BINARY, "phonon", "--backend", "cpu", input.c_str(), "--output-dir", out.c_str(),
            quiet ? "-q" : static_cast<char*>(nullptr), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  Outcome o;
  ::waitpid(child, &o.status, 0);
  o.stderr_text = read_text(log);
  std::filesystem::remove(log);
  return o;
}

// The example's inputs with a 4x4x4 mesh: a complete run in about a second.
void stage_small_inputs(const std::filesystem::path& in, const std::string& ngrid = "4 4 4") {
  std::filesystem::create_directories(in);
  std::string t = si_control_text();
  t.replace(t.find("16 16 16"), 8, ngrid);
  write_text(in / "CONTROL", t);
  for (const char* f : {"espresso.ifc2", "FORCE_CONSTANTS_3RD"})
    std::filesystem::copy_file(si_reference() / "input" / f, in / f);
}

std::vector<std::string> temporaries_in(const std::filesystem::path& dir) {
  std::vector<std::string> out;
  if (!std::filesystem::exists(dir)) return out;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir))
    if (e.path().filename().string().find(".tmp.") != std::string::npos) out.push_back(e.path().string());
  return out;
}

// A process id that no process holds now: a child that has exited and been reaped.
pid_t dead_pid() {
  const pid_t p = ::fork();
  if (p == 0) ::_exit(0);
  ::waitpid(p, nullptr, 0);
  return p;
}

// 200^3 points need about 10 GiB for the mesh, spectrum and symmetry tables; under a 4 GiB address-space limit the run
// must stop before allocating them, with both numbers, instead of std::bad_alloc or a kill.
TEST(Outputs, MeshTooLargeForTheMemoryIsRefusedWithTheNumbers) {
  QUANTA_SKIP_UNDER_ASAN();
  TempDir d;
  stage_small_inputs(d.path / "in", "200 200 200");
  const Outcome o = run_quanta(d.path / "in", d.path / "out", 0, rlim_t{4} << 30);
  EXPECT_TRUE(o.exited_with(1)) << o.describe();
  for (const char* w : {"200x200x200 q-mesh", "8000000 points", "GiB of host memory", "available"})
    EXPECT_NE(o.stderr_text.find(w), std::string::npos) << w << " missing: " << o.stderr_text;
  EXPECT_EQ(o.stderr_text.find("bad_alloc"), std::string::npos) << o.stderr_text;
}

// A full disk while quanta-phonon.h5 is written (text outputs fit, the HDF5 file does not): exit 1 with the file named,
// no crash (HDF5 used to crash at exit), no temporary file left, no quanta-phonon.h5. A limit below the text outputs
// fails in their writer instead: the same guarantees.
TEST(Outputs, FullDiskExitsCleanlyAndLeavesNoTemporaries) {
  TempDir d;
  stage_small_inputs(d.path / "in");
  const Outcome full = run_quanta(d.path / "in", d.path / "reference");
  ASSERT_TRUE(full.exited_with(0)) << full.describe();
  std::uintmax_t largest_text = 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(d.path / "reference"))
    if (e.is_regular_file() && e.path().filename() != "quanta-phonon.h5")
      largest_text = std::max(largest_text, e.file_size());
  const std::uintmax_t h5 = std::filesystem::file_size(d.path / "reference/quanta-phonon.h5");
  ASSERT_GT(h5, 2 * largest_text + 4096) << "the HDF5 file must be the largest output for this test";

  for (const rlim_t limit : {static_cast<rlim_t>((largest_text + h5) / 2), rlim_t{1000}}) {
    const auto out = d.path / ("out-" + std::to_string(limit));
    const Outcome o = run_quanta(d.path / "in", out, limit);
    EXPECT_TRUE(o.exited_with(1)) << "limit " << limit << ": " << o.describe();
    EXPECT_EQ(temporaries_in(out), std::vector<std::string>{}) << "limit " << limit;
    EXPECT_FALSE(std::filesystem::exists(out / "quanta-phonon.h5")) << "limit " << limit;
    if (limit > largest_text)
      EXPECT_NE(o.stderr_text.find("cannot write '" + (out / "quanta-phonon.h5").string() + "'"), std::string::npos)
          << o.stderr_text;
    else
      EXPECT_NE(o.stderr_text.find("disk full or I/O error"), std::string::npos) << o.stderr_text;
  }
}

// An output folder that cannot be written is found when the run starts, not after the scattering stage (the full
// 16x16x16 run takes minutes; this one must stop within seconds).
TEST(Outputs, UnwritableOutputFolderFailsBeforeTheLongStages) {
  TempDir d;
  std::filesystem::create_directories(d.path / "in");
  write_text(d.path / "in/CONTROL", si_control_text());
  for (const char* f : {"espresso.ifc2", "FORCE_CONSTANTS_3RD"})
    std::filesystem::copy_file(si_reference() / "input" / f, d.path / "in" / f);
  write_text(d.path / "a-file", "");
  WallTimer t;
  const Outcome o = run_quanta(d.path / "in", d.path / "a-file/out");
  EXPECT_TRUE(o.exited_with(1)) << o.describe();
  EXPECT_NE(o.stderr_text.find("cannot create '" + (d.path / "a-file/out").string() + "' (the output folder"),
            std::string::npos)
      << o.stderr_text;
  EXPECT_LT(t.seconds(), 30.0);
  if (::geteuid() != 0) {  // permission bits do not stop root
    std::filesystem::create_directories(d.path / "read-only");
    std::filesystem::permissions(d.path / "read-only",
                                 std::filesystem::perms::owner_read | std::filesystem::perms::owner_exec);
    const Outcome r = run_quanta(d.path / "in", d.path / "read-only");
    EXPECT_TRUE(r.exited_with(1)) << r.describe();
    EXPECT_NE(r.stderr_text.find("(the output folder, --output-dir): Permission denied"), std::string::npos) << r.stderr_text;
    std::filesystem::permissions(d.path / "read-only", std::filesystem::perms::owner_all);
  }
}

// Temporaries of these outputs left by a killed run are removed when the next run starts, each named; a rerun into a
// folder holding results says what it replaces, and a first run says nothing of the kind.
TEST(Outputs, StaleTemporariesRemovedAndReplacedResultsNamed) {
  TempDir d;
  stage_small_inputs(d.path / "in");
  const auto out = d.path / "out";
  std::filesystem::create_directories(out / "T300K");
  const std::string pid = std::to_string(dead_pid());
  for (const char* f : {"BTE.omega", "quanta-phonon.h5", "T300K/BTE.w_3ph"})
    write_text(out / (std::string(f) + ".tmp." + pid), "partial");
  write_text(out / ("notes.txt.tmp." + pid),
             "not ours");  // not an output of quanta phonon: kept
  const Outcome first = run_quanta(d.path / "in", out);
  ASSERT_TRUE(first.exited_with(0)) << first.describe();
  EXPECT_EQ(temporaries_in(out), std::vector<std::string>{(out / ("notes.txt.tmp." + pid)).string()});
  EXPECT_NE(first.stderr_text.find("removed '" + (out / ("BTE.omega.tmp." + pid)).string() + "'"), std::string::npos)
      << first.stderr_text;
  EXPECT_NE(first.stderr_text.find("T300K/BTE.w_3ph.tmp." + pid), std::string::npos) << first.stderr_text;
  EXPECT_EQ(first.stderr_text.find("results of an earlier run"), std::string::npos) << first.stderr_text;

  const Outcome second = run_quanta(d.path / "in", out);
  ASSERT_TRUE(second.exited_with(0)) << second.describe();
  EXPECT_NE(second.stderr_text.find("warning: '" + out.string() + "' holds"), std::string::npos) << second.stderr_text;
  for (const char* w : {"results of an earlier run (quanta-phonon.h5, BTE.", "replaces"})
    EXPECT_NE(second.stderr_text.find(w), std::string::npos) << w << ": " << second.stderr_text;
}

// The long stages report their progress (stage, done/total, rate; the iterative BTE its iteration and change), and
// -q silences it. Each stage printed nothing for minutes at 16x16x16 before.
TEST(Outputs, LongStagesReportProgressUnlessQuiet) {
  TempDir d;
  stage_small_inputs(d.path / "in");
  const Outcome o = run_quanta(d.path / "in", d.path / "out");
  ASSERT_TRUE(o.exited_with(0)) << o.describe();
  for (const char* w : {"[three-phonon processes (enumeration)] 192/192 (100.0%)", "[three-phonon matrix elements] 96/96",
                        "[three-phonon rates at 300 K] 48/48", "iterative BTE at 300 K: iteration ",
                        "(stops below 1.0e-05)"})
    EXPECT_NE(o.stderr_text.find(w), std::string::npos) << w << " missing: " << o.stderr_text;
  const Outcome q = run_quanta(d.path / "in", d.path / "out-quiet", 0, 0, true);
  ASSERT_TRUE(q.exited_with(0)) << q.describe();
  EXPECT_EQ(q.stderr_text.find("three-phonon"), std::string::npos) << q.stderr_text;
  EXPECT_EQ(q.stderr_text.find("iteration"), std::string::npos) << q.stderr_text;
}

}  // namespace
}  // namespace quanta::phonon::test
