// quanta linelist against TROVE's own SiH2 line list (J = 0..2, C2v(M), 153,368 transitions), on the
// CPU: the same transitions with the same IDs, wavenumbers to 1e-6 cm^-1, and S, A, I to 1e-7 relative
// (trove_reference.hpp). The GPU's runs are in trove_reference_cuda_test.cpp.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>
#include <vector>

#include "quanta/core/backend.hpp"
#include "quanta/linelist/run.hpp"
#include "trove_files.hpp"
#include "trove_reference.hpp"

using namespace quanta::linelist;
using namespace linelist_test;

TEST(LinelistTrove, CpuGemmReproducesTrovesTable) { expect_matches_trove(compute(quanta::Backend::Cpu, Method::Gemm)); }

TEST(LinelistTrove, CpuCacheReduceReproducesTrovesTable) { expect_matches_trove(compute(quanta::Backend::Cpu, Method::CacheReduce)); }

TEST(LinelistTrove, CpuStreamedGroupsReproduceTrovesTable) {
  expect_matches_trove(compute(quanta::Backend::Cpu, Method::Gemm, 0, {7, 5, false}));
}

namespace {

// The SiH2 reference (153,368 transitions), and the results file beside the ExoMol ones.
void expect_trove_exomol_files(const std::filesystem::path& out, const std::string& stem = "step4_std_0_2") {
  expect_same_exomol_files(out, stem, trove_output(""), "SiH2_J0-2_0_2", 153368, "SiH2, C2v(M)");
  EXPECT_TRUE(std::filesystem::exists(out / "quanta-linelist.h5"));
}

// The GAIN table as numpy.loadtxt reads it: '#' lines are comments, every other line is a row of numbers,
// all rows of one width. Returns the rows.
std::vector<std::vector<double>> loadtxt(const std::filesystem::path& file) {
  std::istringstream in(text_of(file));
  std::vector<std::vector<double>> rows;
  int number = 0;
  for (std::string line; std::getline(in, line);) {
    ++number;
    if (line.empty() || line[0] == '#') continue;
    std::istringstream s(line);
    std::vector<double> row;
    for (std::string w; s >> w;) {
      char* end = nullptr;
      row.push_back(std::strtod(w.c_str(), &end));
      EXPECT_EQ(*end, '\0') << file << ":" << number << ": '" << w << "' is not a number";
    }
    if (!rows.empty()) EXPECT_EQ(row.size(), rows[0].size()) << file << ":" << number;
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace

// The command on TROVE's input with `exomol` and `linelist SiH2_J0-2` (the input TROVE wrote its ExoMol files
// from): the files under TROVE's names, and the GAIN table read as numpy reads it, one row per line of .trans.
TEST(LinelistTrove, CommandWritesTrovesExomolFiles) {
  const auto out = fresh_dir("cmd");
  const std::string cmd = std::string(QUANTA_BINARY) + " linelist '" + quanta::test::data_path("linelist/sih2-trove/step4_exomol_files.inp").string() +
                          "' --checkpoints '" + checkpoints().string() + "' -o '" + out.string() + "' --backend cpu --gain-table -q";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  expect_trove_exomol_files(out, "SiH2_J0-2_0_2");
  const auto rows = loadtxt(out / "SiH2_J0-2_0_2.gain.txt");
  ASSERT_EQ(rows.size(), 153368u);
  EXPECT_EQ(rows[0].size(), 10u);  // nu, upper (level, J, Gamma), lower (level, J, Gamma), A, I, S
  std::istringstream trans(text_of(out / "SiH2_J0-2_0_2.trans"));
  long up, lo;
  double a, nu;
  for (const auto& row : rows) {
    ASSERT_TRUE(static_cast<bool>(trans >> up >> lo >> a >> nu));
    ASSERT_EQ(row[7], a);
    ASSERT_NEAR(row[0], nu, 1e-6);
  }
  std::filesystem::remove_all(out);
}

// TROVE's `mem`: the host memory of the run, half of which may hold expanded upper vectors; with a small
// budget the upper vectors are read again for each group, and the line list is the same.
TEST(LinelistTrove, MemBoundsTheUpperVectorsKeptOnTheHost) {
  const auto out = fresh_dir("mem");
  std::string text = text_of(input_file());
  text.replace(text.find("mem 8 gb"), 8, "mem 64 kb");
  std::ofstream(out / "small-mem.inp") << text;
  quanta::linelist::RunOptions o;
  o.checkpoint_dir = checkpoints();
  o.output_dir = out;
  o.backend = quanta::Backend::Cpu;
  o.quiet = true;
  o.input = input_file();
  const auto large = quanta::linelist::run(o);
  o.input = out / "small-mem.inp";
  const auto small = quanta::linelist::run(o);
  EXPECT_GT(large.upper_cached_bytes, std::size_t(1) << 20);  // 8 GB: every upper vector kept (several MB)
  EXPECT_LE(small.upper_cached_bytes, std::size_t(32) << 10);
  EXPECT_EQ(small.transitions, 153368u);
  EXPECT_EQ(text_of(out / "small-mem_0_2.trans"), text_of(out / "step4_std_0_2.trans"));
  std::filesystem::remove_all(out);
}

// TROVE's checkpoints converted to a levels file, and the line list from that file alone: the same
// files (the levels file holds the vectors in the product basis, so this also checks the converter's
// expansion and every dataset the reader takes).
TEST(LinelistTrove, LevelsFileGivesTrovesExomolFiles) {
  const auto out = fresh_dir("levels");
  const auto levels = out / "sih2-levels.h5";
  const std::string convert = std::string(QUANTA_BINARY) + " linelist-convert '" + input_file().string() + "' --checkpoints '" + checkpoints().string() +
                              "' -o '" + levels.string() + "' -q";
  ASSERT_EQ(std::system(convert.c_str()), 0) << convert;
  const std::string cmd = std::string(QUANTA_BINARY) + " linelist '" + input_file().string() + "' --levels '" + levels.string() + "' -o '" + out.string() +
                          "' --backend cpu -q";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  expect_trove_exomol_files(out);
  // The library path on the same file, on every backend present.
  const IntensityInput input = read_trove_input(input_file().string());
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

// TROVE's H2O2 line list (tests/data/hooh-trove: D2h(M), J = 0..3; its README says how TROVE made it): the 1214 states
// with their D2h labels and 50,290 lines. TROVE's full table also holds a 0.27 cm^-1 line with A = 1.9e-16 1/s, below
// the A its ExoMol writer keeps, which quanta's .trans leaves out the same way.
TEST(LinelistTrove, HydrogenPeroxideInD2hGivesTrovesExomolFiles) {
  expect_command_gives_troves_files("hooh-trove", "HOOH_J0-3_0_3", 50290, "H2O2, D2h(M)");
}

// --lifetimes on TROVE's H2O2 list: the .states gets ExoMol's lifetime column after J (1 / sum of A of the state's lines,
// seconds, "%12.4E"; Inf without lines down), and the rest of each line is TROVE's. Against ExoCross's lifetimes of
// TROVE's own .states/.trans (hooh-trove/exocross-lifetimes, README there): the same printed value for every state
// (both round 1 / sum A to 5 digits of sums that agree to 1e-8, the A's agreement with TROVE: a different 5th digit
// would need a sum within 1e-8 of a rounding edge, which none is). Against the sums of quanta's own .trans lines:
// within the 5-digit rounding. The range-split writer (--trans-split) gives the same .states.
TEST(LinelistLifetimes, MatchExoCrossOnTrovesList) {
  const auto out = fresh_dir("lifetimes");
  const auto dir = quanta::test::data_path("linelist/hooh-trove");
  const std::string base = std::string(QUANTA_BINARY) + " linelist '" + (dir / "step4_exomol_files.inp").string() + "' --checkpoints '" +
                           (dir / "checkpoints").string() + "' --backend cpu -q --lifetimes --def -o '";
  ASSERT_EQ(std::system((base + (out / "a").string() + "'").c_str()), 0);
  ASSERT_EQ(std::system((base + (out / "b").string() + "' --trans-split 1000").c_str()), 0);
  const std::string stem = "HOOH_J0-3_0_3";
  EXPECT_EQ(text_of(out / "a" / (stem + ".states")), text_of(out / "b" / (stem + ".states")));
  EXPECT_NE(text_of(out / "a" / (stem + ".def")).find("1                                        # Lifetime availability"), std::string::npos);

  std::map<long, double> decay;  // the sums of A of quanta's own lines
  {
    std::istringstream trans(text_of(out / "a" / (stem + ".trans")));
    long f = 0, i = 0;
    double a = 0, nu = 0;
    while (trans >> f >> i >> a >> nu) decay[f] += a;
  }
  std::map<long, std::string> exocross;  // ExoCross: the lifetime is its 6th column
  {
    std::istringstream life(text_of(dir / "exocross-lifetimes" / (stem + ".life")));
    std::string line;
    while (std::getline(life, line)) {
      std::istringstream l(line);
      std::vector<std::string> f{std::istream_iterator<std::string>(l), std::istream_iterator<std::string>()};
      if (f.size() > 5) exocross[std::stol(f[0])] = f[5];
    }
  }
  std::istringstream states(text_of(out / "a" / (stem + ".states")));
  std::istringstream troves(text_of(dir / "trove-output" / (stem + ".states")));
  std::string line, trove_line;
  int finite = 0, infinite = 0, same = 0;
  double worst = 0;
  while (std::getline(states, line)) {
    ASSERT_TRUE(std::getline(troves, trove_line));
    // TROVE's line with the 13 characters of the lifetime column taken out after J (48 characters in).
    EXPECT_EQ(line.substr(0, 40) + line.substr(53), trove_line) << line;
    std::istringstream l(line);
    long id = 0;
    std::string e, g, j, tau;
    l >> id >> e >> g >> j >> tau;
    ASSERT_TRUE(exocross.count(id)) << "state " << id << " not in ExoCross's file";
    if (tau == "Inf") {
      ++infinite;
      EXPECT_EQ(decay.count(id), 0u) << "state " << id << " has lines down";
      EXPECT_TRUE(exocross[id] == "NaN" || exocross[id] == "Infinity") << exocross[id];
      continue;
    }
    ++finite;
    same += tau == exocross[id];
    worst = std::max(worst, std::abs(std::stod(tau) * decay[id] - 1));
  }
  EXPECT_FALSE(std::getline(troves, trove_line)) << "TROVE's .states has more lines";
  std::printf("  lifetimes of %d states, %d of them equal to ExoCross's printed values; %d Inf; largest |tau sum A - 1| = %.1e\n", finite,
              same, infinite, worst);
  EXPECT_EQ(finite + infinite, 1214);
  EXPECT_EQ(same, finite);
  EXPECT_EQ(infinite, 9);
  EXPECT_LT(worst, 5.0001e-5);  // %12.4E: 5 significant digits
  std::filesystem::remove_all(out);
}

// TROVE's STATES-ONLY: the .states file alone (TROVE returns before the intensities); its GAIN: GAIN's table besides,
// as --gain-table writes it.
TEST(LinelistTrove, StatesOnlyAndGainKeywordsDoWhatTroveDoes) {
  const auto out = fresh_dir("states-only");
  const std::string inp = text_of(quanta::test::data_path("linelist/sih2-trove/step4_exomol_files.inp"));
  auto run_with = [&](const std::string& keyword, const std::filesystem::path& dir) {
    std::string text = inp;
    text.insert(text.find("exomol"), keyword + "\n  ");  // inside the INTENSITY block
    std::filesystem::create_directories(dir);
    std::ofstream(dir / "step4.inp") << text;
    const std::string cmd = std::string(QUANTA_BINARY) + " linelist '" + (dir / "step4.inp").string() + "' --checkpoints '" + checkpoints().string() +
                            "' -o '" + dir.string() + "' --backend cpu -q";
    return std::system(cmd.c_str());
  };
  ASSERT_EQ(run_with("states-only", out / "a"), 0);
  EXPECT_EQ(text_of(out / "a" / "SiH2_J0-2_0_2.states"), text_of(trove_output("SiH2_J0-2_0_2.states")));
  EXPECT_FALSE(std::filesystem::exists(out / "a" / "SiH2_J0-2_0_2.trans"));
  EXPECT_FALSE(std::filesystem::exists(out / "a" / "quanta-linelist.h5"));
  ASSERT_EQ(run_with("GAIN", out / "b"), 0);
  EXPECT_TRUE(std::filesystem::exists(out / "b" / "SiH2_J0-2_0_2.gain.txt"));
  EXPECT_TRUE(std::filesystem::exists(out / "b" / "SiH2_J0-2_0_2.trans"));
  std::filesystem::remove_all(out);
}

// TROVE's NH3 line list (tests/data/nh3-trove: C3v(M) with its doubly degenerate E, J = 0..3; its README says how TROVE
// made it, and why GNS 12 12 12): the 353 states and the 4,286 lines TROVE's ExoMol writer keeps of its 8,560 (the
// others are the D3h(M)-forbidden lines C3v(M) allows, A <= 1.8e-16 1/s).
TEST(LinelistTrove, AmmoniaInC3vWithDegenerateStatesGivesTrovesExomolFiles) {
  expect_command_gives_troves_files("nh3-trove", "NH3_J0-3_0_3", 4286, "NH3, C3v(M)");
}

// TROVE's NH3 line list in D3h(M) (tests/data/nh3-d3h-trove: two degenerate irreps E' and E", 14NH3's spin weights
// GNS 0 12 6 0 12 6 with TROVE's `selection 1 2 3 1 2 3`, J = 0..3; its README says how TROVE made it): the 271
// states, among them the seven J = 0 A1' levels TROVE reads for the ZPE and lists with g_tot 0, and the 3,576 lines
// its ExoMol writer keeps of its 3,582 (the others have A <= 1.8e-16 1/s). Also through a levels file, which must
// carry those J = 0 A1' levels too.
TEST(LinelistTrove, AmmoniaInD3hWithSpinStatisticsGivesTrovesExomolFiles) {
  expect_troves_files_both_ways("nh3-d3h-trove", "NH3_J0-3_0_3", 3576, "NH3, D3h(M)");
}

// TROVE's 28SiHD line list (tests/data/sihd-trove: Cs(M), irreps A' A", the SiH2 model of TROVE's docs with one proton
// replaced by a deuteron, frame R-RHO-Z-M2-M3, J = 0..3; its README says how TROVE made it and why not one of TROVE's
// own Cs(M) inputs, which are all linear triatomics): the 240 states (no J = 0 A" level) with g_ns 6 = 1 x 2 x 3 for
// both irreps, `selection 1 1`, and all 9,072 lines of TROVE's table (A' <-> A"). Also through a levels file.
TEST(LinelistTrove, SilyleneHdInCsGivesTrovesExomolFiles) {
  expect_troves_files_both_ways("sihd-trove", "SiHD_J0-3_0_3", 9072, "SiHD, Cs(M)");
  // The dipole divided as TROVE writes it for large molecules (step2_split.inp: `extmatelem convert split` wrote
  // j0_extmatelem1..3.chk; step4_exomol_files_split.inp reads them with `extmatelem read split`, and TROVE's own
  // files from that run were byte for byte those of trove-output/).
  expect_troves_files_both_ways("sihd-trove", "SiHD_J0-3_0_3", 9072, "SiHD, Cs(M), the dipole divided", "step4_exomol_files_split.inp");
}

// TROVE's 14N2-16O line list (tests/data/n2o-trove: a linear triatomic in TROVE's group "Csn 4", 16 irreps A', A", e1,
// f1, ..., e7, f7, from TROVE's own N2O input with a reduced basis, laguerre-k bending basis with K = l, J = 0..4; its
// README says how TROVE made it): GNS 9 for A' and A" and 0 for the l > 0 irreps, `selection 1 1 2 2 ... 8 8`; the
// 254 states with TROVE's IDs of a linear molecule's basis (N_vib J Nirreps + ...) and its 6,311 lines (TROVE's
// table has 6,338; its writer drops 27 with A <= 2.2e-16 1/s). Also through a levels file.
TEST(LinelistTrove, NitrousOxideLinearInCsnGivesTrovesExomolFiles) {
  expect_troves_files_both_ways("n2o-trove", "N2O_J0-4_0_4", 6311, "N2O, Csn 4");
}

// TROVE's trans-HPPH line list (tests/data/hpph-trove: C2h(M), irreps Ag Au Bg Bu, TROVE's own trans-31P2-1H2 input
// with a reduced basis, J = 0..3; its README says how TROVE made it): the 942 states, TROVE's `GNS 1 1 3 3` and
// `selection 1 1 2 2` (Ag <-> Au, Bg <-> Bu; Gamma* = Au), and the 7,603 lines its ExoMol writer keeps of its 7,604 (the
// other has A <= 2.2e-16 1/s). Also through a levels file.
TEST(LinelistTrove, TransHpphInC2hGivesTrovesExomolFiles) {
  expect_troves_files_both_ways("hpph-trove", "HPPH_J0-3_0_3", 7603, "trans-HPPH, C2h(M)");
}
