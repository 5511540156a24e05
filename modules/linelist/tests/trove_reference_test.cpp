// quanta linelist against TROVE's own SiH2 line list (J = 0..2, C2v(M), 153,368 transitions): the same
// transitions with the same IDs, wavenumbers to 1e-6 cm^-1, and S, A, I to 1e-7 relative.
//
// Tolerances: TROVE prints 9 significant digits (5e-9 relative) and uses the constants of its
// accuracy.f90 rounded to single precision; quanta uses the same rounded values (units::trove), so the
// remaining difference is print rounding plus the order of summation (~1e-12). 1e-7 is the bound.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>

#include "../kernels/linestrength.hpp"
#include "quanta/core/backend.hpp"
#include "quanta/linelist/linelist.hpp"
#include "test_support.hpp"

using namespace quanta::linelist;
using namespace linelist_test;

namespace {

struct Computed {
  IntensityInput input;
  Levels levels;
  LineList list;
};

// Small groups: at most `group` lower states and `chunk` upper vectors at a time, no upper vectors
// cached on the host (all re-read from the checkpoints): the streamed path of a large calculation.
struct Streaming {
  int group = 0, chunk = 0;
  bool cache_uppers = true;
};

Computed compute(quanta::Backend backend, Method method, int dipole_blocks = 0, Streaming streaming = {}) {
  Computed c;
  c.input = read_trove_input(reference_dir() / "step4_std.inp");
  c.levels = read_levels(checkpoints(), c.input);
  const DipoleMatrices dipole = read_dipole_matrices(checkpoints() / "j0_extfield.chk");
  LineListOptions o;
  o.backend = backend;
  o.quiet = true;
  if (!streaming.cache_uppers) o.upper_cache_bytes = 0;
  EngineOptions eo;
  eo.method = method;
  eo.dipole_blocks = dipole_blocks;
  eo.max_lower_states = streaming.group;
  eo.max_upper_chunk = streaming.chunk;
  c.list = compute_linelist(c.levels, c.input, dipole, o, eo);
  return c;
}

void expect_matches_trove(const Computed& c) {
  const auto table = trove_table();
  ASSERT_EQ(table.size(), 153368u);
  ASSERT_EQ(c.list.transitions.size(), table.size());
  double worst_nu = 0, worst_S = 0, worst_A = 0, worst_I = 0, worst_amp = 0;
  for (const Transition& t : c.list.transitions) {
    const Level& u = c.levels.levels[t.upper];
    const Level& l = c.levels.levels[t.lower];
    const auto it = table.find({u.J, u.gamma, u.root.level, l.J, l.gamma, l.root.level});
    ASSERT_NE(it, table.end()) << "transition not in TROVE's table: J " << u.J << " G " << u.gamma << " n " << u.root.level << " <- J "
                               << l.J << " G " << l.gamma << " n " << l.root.level;
    const TroveLine& r = it->second;
    worst_nu = std::max(worst_nu, std::abs(t.wavenumber - r.wavenumber));  // printed with 4 decimals in the table
    worst_S = std::max(worst_S, std::abs(t.linestrength / r.S - 1));
    worst_A = std::max(worst_A, std::abs(t.einstein_a / r.A - 1));
    worst_I = std::max(worst_I, std::abs(t.intensity / r.I - 1));
    worst_amp = std::max(worst_amp, std::abs(t.amplitude / r.amplitude - 1));  // the sign too
  }
  EXPECT_LT(worst_nu, 0.5e-4 + 1e-9);  // the table's f11.4
  EXPECT_LT(worst_S, 1e-7);
  EXPECT_LT(worst_A, 1e-7);
  EXPECT_LT(worst_I, 1e-7);
  EXPECT_LT(worst_amp, 1e-7);
  std::printf("worst relative differences from TROVE's table: S %.2e, A %.2e, I %.2e, amplitude %.2e; |dnu| %.2e cm-1\n", worst_S,
              worst_A, worst_I, worst_amp, worst_nu);
}

}  // namespace

TEST(LinelistTrove, CpuGemmReproducesTrovesTable) { expect_matches_trove(compute(quanta::Backend::Cpu, Method::Gemm)); }

TEST(LinelistTrove, CpuCacheReduceReproducesTrovesTable) { expect_matches_trove(compute(quanta::Backend::Cpu, Method::CacheReduce)); }

TEST(LinelistTrove, CpuStreamedGroupsReproduceTrovesTable) {
  expect_matches_trove(compute(quanta::Backend::Cpu, Method::Gemm, 0, {7, 5, false}));
}

TEST(LinelistTrove, CudaReproducesTrovesTable) {
  if (quanta::cuda_device_count() == 0) GTEST_SKIP() << "no GPU";
  expect_matches_trove(compute(quanta::Backend::Cuda, Method::Gemm));
  expect_matches_trove(compute(quanta::Backend::Cuda, Method::CacheReduce, 3));
  expect_matches_trove(compute(quanta::Backend::Cuda, Method::Gemm, 0, {7, 5, false}));
  expect_matches_trove(compute(quanta::Backend::Cuda, Method::CacheReduce, 2, {11, 3, true}));
}

namespace {

// The command's .states must be identical to TROVE's file, its .trans have the same (upper, lower) IDs
// in the same order, wavenumbers to 1e-6 cm^-1 and A to 1e-7 relative (TROVE prints 6 decimals and 9
// significant digits).
void expect_trove_exomol_files(const std::filesystem::path& out) {
  auto slurp = [](const std::filesystem::path& p) {
    std::ifstream f(p);
    return std::string(std::istreambuf_iterator<char>(f), {});
  };
  EXPECT_EQ(slurp(out / "step4_std_0_2.states"), slurp(reference_dir() / "trove-output/SiH2_J0-2_0_2.states"));
  std::istringstream mine(slurp(out / "step4_std_0_2.trans")), ref(xz_text(reference_dir() / "trove-output/SiH2_J0-2_0_2.trans.xz"));
  long n = 0, up, lo, up_r, lo_r;
  double a, nu, a_r, nu_r, worst_a = 0, worst_nu = 0;
  while (ref >> up_r >> lo_r >> a_r >> nu_r) {
    ASSERT_TRUE(static_cast<bool>(mine >> up >> lo >> a >> nu)) << "quanta's .trans ends after " << n << " lines";
    ASSERT_EQ(up, up_r) << "line " << n + 1;
    ASSERT_EQ(lo, lo_r) << "line " << n + 1;
    worst_a = std::max(worst_a, std::abs(a / a_r - 1));
    worst_nu = std::max(worst_nu, std::abs(nu - nu_r));
    ++n;
  }
  EXPECT_FALSE(static_cast<bool>(mine >> up)) << "quanta's .trans has more lines than TROVE's";
  EXPECT_EQ(n, 153368);
  EXPECT_LT(worst_a, 1e-7);
  EXPECT_LE(worst_nu, 1e-6);
  EXPECT_TRUE(std::filesystem::exists(out / "quanta-linelist.h5"));
}

std::filesystem::path fresh_dir(const std::string& name) {
  const auto out = std::filesystem::temp_directory_path() / ("quanta-linelist-" + name + "-" + std::to_string(::getpid()));
  std::filesystem::remove_all(out);
  std::filesystem::create_directories(out);
  return out;
}

const std::string kInput = (reference_dir() / "step4_std.inp").string();

}  // namespace

// The command on TROVE's input and checkpoints.
TEST(LinelistTrove, CommandWritesTrovesExomolFiles) {
  const auto out = fresh_dir("cmd");
  const std::string cmd = std::string(QUANTA_BINARY) + " linelist '" + kInput + "' --checkpoints '" + checkpoints().string() + "' -o '" +
                          out.string() + "' --backend cpu -q";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  expect_trove_exomol_files(out);
  std::filesystem::remove_all(out);
}

// TROVE's checkpoints converted to a levels file, and the line list from that file alone: the same
// files (the levels file holds the vectors in the product basis, so this also checks the converter's
// expansion and every dataset the reader takes).
TEST(LinelistTrove, LevelsFileGivesTrovesExomolFiles) {
  const auto out = fresh_dir("levels");
  const auto levels = out / "sih2-levels.h5";
  const std::string convert = std::string(QUANTA_BINARY) + " linelist-convert '" + kInput + "' --checkpoints '" + checkpoints().string() +
                              "' -o '" + levels.string() + "' -q";
  ASSERT_EQ(std::system(convert.c_str()), 0) << convert;
  const std::string cmd = std::string(QUANTA_BINARY) + " linelist '" + kInput + "' --levels '" + levels.string() + "' -o '" + out.string() +
                          "' --backend cpu -q";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  expect_trove_exomol_files(out);
  // The library path on the same file, on every backend present.
  const IntensityInput input = read_trove_input(kInput);
  Computed c;
  c.input = input;
  c.levels = read_levels_h5(levels, input);
  LineListOptions o;
  o.quiet = true;
  for (quanta::Backend b : {quanta::Backend::Cpu, quanta::Backend::Cuda}) {
    if (b == quanta::Backend::Cuda && quanta::cuda_device_count() == 0) continue;
    o.backend = b;
    EngineOptions eo;
    eo.max_lower_states = 9;  // several groups, upper vectors streamed from the file
    eo.max_upper_chunk = 4;
    o.upper_cache_bytes = 0;
    c.list = compute_linelist(c.levels, input, read_dipole_h5(levels), o, eo);
    expect_matches_trove(c);
  }
  std::filesystem::remove_all(out);
}
