// quanta gw under the MPI launcher: Epsilon shares out each q's (k, valence block) items and adds chi0 over
// the processes; Sigma shares out the (k, q) pairs or, with number_sigma_pools, the bands n over pools and
// the columns G' within a pool (SigmaShare), and adds its sums per k. `mpirun -np P quanta gw` against one
// process on a reduced silicon example (10 q, epsilon_cutoff 4 Ry, 12 bands; Sigma at 2 k-points, bands
// 1-6): P = 2 and 3 by pairs, 3 processes in one pool (columns split three ways), 2 pools of 1 (bands split)
// and 2 pools of 2; on the CPU and, with a GPU, on the CUDA backend. Only the first process writes. With a GPU for each
// process and NCCL (2 processes on a host of 2 GPUs), chi0's parts are added between the devices (DeviceExchange::sum)
// and eps is inverted there; otherwise through the host.
//
// Tolerance: splitting the work changes only the order of the sums over k (chi0) and over q (X, SX-X,
// CH); each term is computed as by one process. Round-off of 1e-16 per sum, carried through the inversion
// of well-conditioned eps (heads 3-14), stays near 1e-14; 1e-12 relative to each column's largest entry is
// asserted. A lost or doubled share shows at order 1.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <sstream>
#include <string>

#include "quanta/core/backend.hpp"
#include "quanta/core/io/hdf5.hpp"
#include "quanta/test/data.hpp"
#include "quanta/test/mpi.hpp"

namespace fs = std::filesystem;

namespace {

const fs::path kSi = quanta::test::data_path("gw/si-bgw");

std::string slurp(const fs::path& f) {
  std::ifstream in(f);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// The example's folder layout, the mean field linked, inputs reduced (degenerate sets split on purpose:
// the override keyword lets the run go on, as in BerkeleyGW).
fs::path make_case(const std::string& name, int pools, const std::string& extra = "", const std::string& eps_extra = "") {
  const fs::path dir = fs::temp_directory_path() / ("quanta-gw-mpi-" + name + "-" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir / "bgw-inputs");
  fs::create_directory_symlink(kSi / "mean-field", dir / "mean-field");
  std::string eps = slurp(kSi / "bgw-inputs/epsilon.inp"), sig = slurp(kSi / "bgw-inputs/sigma.inp");
  auto replace = [](std::string& s, const std::string& a, const std::string& b) {
    const auto at = s.find(a);
    if (at == std::string::npos) throw std::runtime_error("reduced case: '" + a + "' not in the example's input");
    s.replace(at, a.size(), b);
  };
  replace(eps, "epsilon_cutoff 10.0", "epsilon_cutoff 4.0");
  replace(eps, "number_bands 29", "number_bands 12");
  replace(sig, "number_bands 32", "number_bands 12");
  replace(sig, "band_index_max 14", "band_index_max 6");
  // Sigma at the first k-point and (0, 0.2, 0.2) only.
  std::istringstream in(sig);
  std::string line, kept;
  int k = 0;
  bool inside = false;
  while (std::getline(in, line)) {
    if (line.find("begin kpoints") != std::string::npos) inside = true;
    else if (inside && line.find("end") != std::string::npos) inside = false;
    else if (inside && ++k != 1 && k != 4) continue;
    kept += line + "\n";
  }
  std::ofstream(dir / "bgw-inputs/epsilon.inp") << eps << "degeneracy_check_override\n" << eps_extra;
  std::ofstream(dir / "bgw-inputs/sigma.inp") << kept << "degeneracy_check_override\n"
                                              << (pools ? "number_sigma_pools " + std::to_string(pools) + "\n" : "") << extra;
  return dir;
}

int run_quanta(const fs::path& dir, int ranks, const std::string& backend, const std::string& out, bool quiet = true) {
  quanta::test::allow_mpirun_here();
  const std::string cmd = "cd '" + dir.string() + "' && " + quanta::test::mpi_launcher(ranks) + QUANTA_BINARY +
                          " gw bgw-inputs --wfn mean-field/02-wfn/WFN --wfnq mean-field/03-wfnq/WFNq --wfn-inner mean-field/04-wfn_co/WFN_co"
                          " --rho mean-field/04-wfn_co/RHO --vxc mean-field/04-wfn_co/vxc.dat --vxc-potential mean-field/04-wfn_co/VXC"
                          " --threads 1 --backend " +
                          backend + (quiet ? " --quiet" : "") + " -o " + out + " > " + out + ".log 2>&1";
  const int rc = std::system(cmd.c_str());
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

// The datasets `names` of the two runs' quanta-gw.h5: within 1e-12 of each one's largest entry (complex values
// compared as their parts).
void expect_same_datasets(const fs::path& a, const fs::path& b, const std::string& what, std::initializer_list<const char*> names) {
  quanta::io::H5File fa(a / "quanta-gw.h5", quanta::io::H5File::Mode::Read), fb(b / "quanta-gw.h5", quanta::io::H5File::Mode::Read);
  for (const char* name : names) {
    const auto x = fa.read_doubles(name), y = fb.read_doubles(name);
    ASSERT_EQ(x.size(), y.size()) << what << " " << name;
    ASSERT_FALSE(x.empty()) << what << " " << name;
    double scale = 0, diff = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
      scale = std::max(scale, std::abs(x[i]));
      diff = std::max(diff, std::abs(x[i] - y[i]));
    }
    std::printf("%s %s: largest difference %.2e of %.3g\n", what.c_str(), name, diff, scale);
    EXPECT_LE(diff, 1e-12 * scale) << what << " " << name;
  }
}

void expect_same(const fs::path& a, const fs::path& b, const std::string& what) {
  expect_same_datasets(a, b, what, {"sigma/x", "sigma/sx_x", "sigma/ch", "sigma/sig", "sigma/eqp0", "sigma/eqp1", "sigma/znk"});
  quanta::io::H5File fa(a / "quanta-gw.h5", quanta::io::H5File::Mode::Read), fb(b / "quanta-gw.h5", quanta::io::H5File::Mode::Read);
  for (int iq = 1; iq <= 10; ++iq) {
    const std::string name = "epsilon/q" + std::to_string(iq) + "/epsinv_head";
    const double x = fa.read_doubles(name)[0], y = fb.read_doubles(name)[0];
    EXPECT_NEAR(x, y, 1e-12 * std::abs(y)) << what << " " << name;
  }
}

void compare_ranks(const std::string& backend) {
  if (!quanta::test::mpi_launcher_problem().empty()) GTEST_SKIP() << quanta::test::mpi_launcher_problem();
  const fs::path one = make_case(backend + "-one", 0);
  ASSERT_EQ(run_quanta(one, 1, backend, "out"), 0) << slurp(one / "out.log");
  struct Split {
    int ranks, pools;
  };
  for (const Split split : {Split{2, 0}, Split{3, 0}, Split{3, 1}, Split{2, 2}, Split{4, 2}}) {
    const std::string name = backend + "-" + std::to_string(split.ranks) + "-pools" + std::to_string(split.pools);
    const fs::path dir = make_case(name, split.pools);
    ASSERT_EQ(run_quanta(dir, split.ranks, backend, "out"), 0) << slurp(dir / "out.log");
    expect_same(dir / "out", one / "out", name);
    fs::remove_all(dir);
  }
  fs::remove_all(one);
}

// Off-diagonal elements (sigma_matrix over the whole q grid) and the frequency grid: 2 processes by (k, q)
// pairs and 3 in one pool (columns G' split three ways) against one; pools over the bands are refused.
void compare_ranks_offdiag(const std::string& backend) {
  if (!quanta::test::mpi_launcher_problem().empty()) GTEST_SKIP() << quanta::test::mpi_launcher_problem();
  // vxc.dat holds no off-diagonal <n|Vxc|m>: they come from the potential VXC.
  const std::string extra = "sigma_matrix -1 0\nsigma_matrix_frequency_grid 16 2.0\ndont_use_vxcdat\n";
  const fs::path one = make_case(backend + "-offdiag-one", 0, extra);
  ASSERT_EQ(run_quanta(one, 1, backend, "out"), 0) << slurp(one / "out.log");
  for (const auto& [ranks, pools] : {std::pair{2, 0}, std::pair{3, 1}}) {
    const std::string name = backend + "-offdiag-" + std::to_string(ranks) + "-pools" + std::to_string(pools);
    const fs::path dir = make_case(name, pools, extra);
    ASSERT_EQ(run_quanta(dir, ranks, backend, "out"), 0) << slurp(dir / "out.log");
    expect_same(dir / "out", one / "out", name);
    expect_same_datasets(dir / "out", one / "out", name,
                         {"sigma/offdiag/x", "sigma/offdiag/sx_x", "sigma/offdiag/ch", "sigma/offdiag/sig", "sigma/offdiag/qp_energies",
                          "sigma/offdiag/grid_sigma", "sigma/offdiag/dyson_energies"});
    fs::remove_all(dir);
  }
  const fs::path refused = make_case(backend + "-offdiag-pools", 2, extra);
  EXPECT_EQ(run_quanta(refused, 2, backend, "out", false), 1);
  EXPECT_NE(slurp(refused / "out.log").find("number_sigma_pools 2 with off-diagonal elements"), std::string::npos) << slurp(refused / "out.log");
  fs::remove_all(refused);
  fs::remove_all(one);
}

// Full frequency (15 real and 6 imaginary frequencies), in the G basis and with the static subspace (20 eigenvectors):
// 2 processes by (k, q) pairs, 3 in one pool (columns G' split three ways) and 2 pools of 1 (bands split) against one.
void compare_ranks_full_frequency(const std::string& backend, bool subspace) {
  if (!quanta::test::mpi_launcher_problem().empty()) GTEST_SKIP() << quanta::test::mpi_launcher_problem();
  const std::string extra = "frequency_dependence 2\ncd_integration_method 2\n";
  const std::string eps_extra = std::string("frequency_dependence 2\nbroadening 0.25\ndelta_frequency 1.0\nfrequency_low_cutoff 14.0\nnumber_imaginary_freqs 6\n") +
                                (subspace ? "nbasis_subspace 20\n" : "");
  const std::string tag = backend + (subspace ? "-subspace" : "-ff");
  const fs::path one = make_case(tag + "-one", 0, extra, eps_extra);
  ASSERT_EQ(run_quanta(one, 1, backend, "out"), 0) << slurp(one / "out.log");
  for (const auto& [ranks, pools] : {std::pair{2, 0}, std::pair{3, 1}, std::pair{2, 2}}) {
    const std::string name = tag + "-" + std::to_string(ranks) + "-pools" + std::to_string(pools);
    const fs::path dir = make_case(name, pools, extra, eps_extra);
    ASSERT_EQ(run_quanta(dir, ranks, backend, "out"), 0) << slurp(dir / "out.log");
    expect_same(dir / "out", one / "out", name);
    expect_same_datasets(dir / "out", one / "out", name, {"sigma/full_frequency/res", "sigma/full_frequency/int", "sigma/full_frequency/eqp_lin"});
    fs::remove_all(dir);
  }
  fs::remove_all(one);
}

}  // namespace

TEST(GwMpi, ProcessesMatchOneOnTheCpu) { compare_ranks("cpu"); }

TEST(GwMpi, FullFrequencyProcessesMatchOneOnTheCpu) { compare_ranks_full_frequency("cpu", false); }

TEST(GwMpi, SubspaceProcessesMatchOneOnTheCpu) { compare_ranks_full_frequency("cpu", true); }

TEST(GwMpi, OffdiagonalProcessesMatchOneOnTheCpu) { compare_ranks_offdiag("cpu"); }

TEST(GwMpi, OffdiagonalProcessesMatchOneOnTheGpu) {
  if (quanta::cuda_device_count() == 0) GTEST_SKIP() << "no GPU";
  compare_ranks_offdiag("cuda");
}

TEST(GwMpi, ProcessesMatchOneOnTheGpu) {
  if (quanta::cuda_device_count() == 0) GTEST_SKIP() << "no GPU";
  compare_ranks("cuda");
}

TEST(GwMpi, FullFrequencyProcessesMatchOneOnTheGpu) {
  if (quanta::cuda_device_count() == 0) GTEST_SKIP() << "no GPU";
  compare_ranks_full_frequency("cuda", false);
}

TEST(GwMpi, SubspaceProcessesMatchOneOnTheGpu) {
  if (quanta::cuda_device_count() == 0) GTEST_SKIP() << "no GPU";
  compare_ranks_full_frequency("cuda", true);
}

// number_sigma_pools that does not divide the processes: refused naming sigma.inp before Epsilon.
TEST(GwMpi, PoolsThatDoNotDivideTheProcessesAreRefused) {
  if (!quanta::test::mpi_launcher_problem().empty()) GTEST_SKIP() << quanta::test::mpi_launcher_problem();
  const fs::path dir = make_case("refused", 2);
  EXPECT_EQ(run_quanta(dir, 3, "cpu", "out", false), 1) << slurp(dir / "out.log");
  const std::string log = slurp(dir / "out.log");
  EXPECT_NE(log.find("sigma.inp: number_sigma_pools 2: expected a divisor of the 3 processes"), std::string::npos) << log;
  EXPECT_EQ(log.find("quanta gw: epsilon"), std::string::npos) << "refused after Epsilon began:\n" << log;
  fs::remove_all(dir);
}
