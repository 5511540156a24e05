// MPI over k (src/distribution.hpp): `mpirun -np P quanta kbe` for P = 2 and 3 (uneven splits of the
// k-points and of the time pairs) against one process on the same config, on the CPU and, with a GPU,
// on the CUDA backend; and a checkpointed 2-process run stopped and resumed.
//
// Tolerance: the k-split changes only the order of the sums over k (mean field, observables: partial
// sums per rank, then an all-reduce); everything else is computed per element exactly as by one process.
// Round-off of 1e-16 per step, carried through 40 steps of a stable propagation, stays below 1e-13;
// 1e-12 relative to each dataset's largest entry is asserted.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "quanta/core/backend.hpp"
#include "quanta/core/io/hdf5.hpp"
#include "quanta/test/mpi.hpp"
#include "test_support.hpp"

namespace fs = std::filesystem;

namespace {

const char* kDatasets[] = {"occupations/valence", "occupations/conduction", "observables/particles",
                           "observables/polarization", "observables/energy_kinetic", "observables/energy_interaction",
                           "observables/energy_correlation", "observables/energy_total", "green/lesser", "green/greater"};

fs::path make_case(const std::string& name, const char* method, int every, bool compressed_history = false) {
  return kbe_test::make_run_case("mpi-" + name + "-" + std::to_string(getpid()), 14, 40, method, every, compressed_history);
}

// Runs quanta kbe on `ranks` processes (1: without the launcher); returns the exit status.
int run_quanta(const fs::path& dir, int ranks, const std::string& backend, const std::string& extra = "") {
  quanta::test::allow_mpirun_here();
  const std::string cmd = quanta::test::mpi_launcher(ranks) + QUANTA_BINARY + " kbe " + (dir / "config.toml").string() + " -o " + dir.string() +
                          " --quiet --threads 1 --backend " + backend + " " + extra + " > " + (dir / "log.txt").string() + " 2>&1";
  const int rc = std::system(cmd.c_str());
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

std::string log_of(const fs::path& dir) {
  std::ifstream in(dir / "log.txt");
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void expect_close(const fs::path& a, const fs::path& b, double tol, bool green = true) {
  quanta::io::H5File fa(a / "quanta-kbe.h5", quanta::io::H5File::Mode::Read), fb(b / "quanta-kbe.h5", quanta::io::H5File::Mode::Read);
  for (const char* name : kDatasets) {
    if (!green && std::string(name).rfind("green/", 0) == 0) continue;
    const auto x = fa.read_doubles(name), y = fb.read_doubles(name);
    ASSERT_EQ(x.size(), y.size()) << name;
    double scale = 0, diff = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
      scale = std::max(scale, std::abs(x[i]));
      diff = std::max(diff, std::abs(x[i] - y[i]));
    }
    EXPECT_LE(diff, tol * std::max(scale, 1e-300)) << name << ": max difference " << diff << " (largest entry " << scale << ")";
  }
  EXPECT_EQ(fa.read_ints("solver/corrector_passes"), fb.read_ints("solver/corrector_passes"));
}

// The launcher itself must work here (a container without the shared-memory or network set-up it needs
// cannot start two processes at all); that is checked once, apart from quanta.
bool launcher_works() { return quanta::test::mpi_launcher_problem().empty(); }

#define REQUIRE_LAUNCHER() \
  if (!launcher_works()) GTEST_SKIP() << QUANTA_MPIEXEC << " cannot start 2 processes of /bin/true on this machine"

void compare_ranks(const char* method, const std::string& backend) {
  const fs::path one = make_case(std::string(method) + "-" + backend + "-1", method, 0);
  ASSERT_EQ(run_quanta(one, 1, backend), 0) << log_of(one);
  for (int ranks : {2, 3}) {
    const fs::path many = make_case(std::string(method) + "-" + backend + "-" + std::to_string(ranks), method, 0);
    ASSERT_EQ(run_quanta(many, ranks, backend), 0) << log_of(many);
    quanta::io::H5File f(many / "quanta-kbe.h5", quanta::io::H5File::Mode::Read);
    EXPECT_EQ(f.read_doubles("metadata/processes").at(0), ranks);
    expect_close(one, many, 1e-12);
    fs::remove_all(many);
  }
  fs::remove_all(one);
}

}  // namespace

// One binary's cases all need a GPU or none: this file builds test_kbe_mpi (CPU) and, with
// QUANTA_KBE_MPI_CUDA defined, test_kbe_mpi_cuda.
#ifndef QUANTA_KBE_MPI_CUDA
TEST(KbeMpi, FftSelfEnergyCpuMatchesOneProcess) {
  REQUIRE_LAUNCHER();
  compare_ranks("fft", "cpu");
}
TEST(KbeMpi, DirectSelfEnergyCpuMatchesOneProcess) {
  REQUIRE_LAUNCHER();
  compare_ranks("direct", "cpu");
}

// Two ranks checkpoint every 10 steps into one file each; a run stopped after step 25 and resumed from
// step 20 writes the numbers of an uninterrupted 2-rank run, bit for bit. A resume on 3 ranks finds no
// checkpoint of its own and says so.
TEST(KbeMpi, CheckpointAndResumeOnTwoRanks) {
  REQUIRE_LAUNCHER();
  const fs::path full = make_case("resume-full", "fft", 10), cut = make_case("resume-cut", "fft", 10);
  ASSERT_EQ(run_quanta(full, 2, "cpu"), 0) << log_of(full);
  ASSERT_EQ(run_quanta(cut, 2, "cpu", "--stop-after 25"), 0) << log_of(cut);
  EXPECT_TRUE(fs::exists(cut / "quanta-kbe.checkpoint.rank0-of-2.h5"));
  EXPECT_TRUE(fs::exists(cut / "quanta-kbe.checkpoint.rank1-of-2.h5"));
  EXPECT_FALSE(fs::exists(cut / "quanta-kbe.h5"));

  EXPECT_NE(run_quanta(cut, 3, "cpu", "--resume"), 0);
  EXPECT_NE(log_of(cut).find("quanta-kbe.checkpoint.rank"), std::string::npos) << log_of(cut);

  ASSERT_EQ(run_quanta(cut, 2, "cpu", "--resume"), 0) << log_of(cut);
  expect_close(full, cut, 0.0);
  EXPECT_FALSE(fs::exists(cut / "quanta-kbe.checkpoint.rank0-of-2.h5"));
  fs::remove_all(full);
  fs::remove_all(cut);
}

// A compressed history (tolerance 1e-6, leaf 8) is held per k, so each rank compresses its own k-points: 2 and 3
// ranks give one process's observables (1e-12, as above), and a 2-rank run stopped after step 25 and resumed from its
// checkpoints (their side files of the store included) gives the uninterrupted 2-rank run's bytes.
TEST(KbeMpi, CompressedHistoryMatchesOneProcessAndResumes) {
  REQUIRE_LAUNCHER();
  const fs::path one = make_case("compressed-1", "fft", 0, true);
  ASSERT_EQ(run_quanta(one, 1, "cpu"), 0) << log_of(one);
  for (int ranks : {2, 3}) {
    const fs::path many = make_case("compressed-" + std::to_string(ranks), "fft", 0, true);
    ASSERT_EQ(run_quanta(many, ranks, "cpu"), 0) << log_of(many);
    expect_close(one, many, 1e-12, false);
    fs::remove_all(many);
  }
  fs::remove_all(one);

  const fs::path full = make_case("compressed-full", "fft", 10, true), cut = make_case("compressed-cut", "fft", 10, true);
  ASSERT_EQ(run_quanta(full, 2, "cpu"), 0) << log_of(full);
  ASSERT_EQ(run_quanta(cut, 2, "cpu", "--stop-after 25"), 0) << log_of(cut);
  EXPECT_TRUE(fs::exists(cut / "quanta-kbe.checkpoint.rank1-of-2.h5"));
  ASSERT_EQ(run_quanta(cut, 2, "cpu", "--resume"), 0) << log_of(cut);
  expect_close(full, cut, 0.0, false);
  fs::remove_all(full);
  fs::remove_all(cut);
}

#else
// With NCCL the rows travel between devices; QUANTA_DEVICE_EXCHANGE=0 sends them through the host.
TEST(KbeMpi, CudaMatchesOneProcess) {
  if (quanta::cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  REQUIRE_LAUNCHER();
  compare_ranks("fft", "cuda");
  compare_ranks("direct", "cuda");
  setenv("QUANTA_DEVICE_EXCHANGE", "0", 1);
  compare_ranks("fft", "cuda");
  unsetenv("QUANTA_DEVICE_EXCHANGE");
}
#endif
