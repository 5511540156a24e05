// Cross sections against ExoCross (tests/data/exocross-ref, README there): ExoCross's own input files run unchanged
// through quanta (run_exocross, CPU backend) on the SiH2 and H2O2 line lists, and every .xsec compared point by point.
//
// Tolerances (relative, at the points above 1e-6 of the case's largest value, as the reference's README measures):
// - 2e-8 for the Gaussian (bin-averaged and sampled) and Lorentzian (sampled and Lorentz0) cases: both codes use the
//   same constants and formulas in double precision; ExoCross prints 9 significant digits (5e-9), and its erf and
//   quanta's differ in the last bits.
// - 1e-4 for Voigt: ExoCross evaluates Humlicek's W4 approximation (largest error 6.9e-5 on these cases against the exact
//   Faddeeva function, README section 3.5), quanta the Faddeeva function to 3e-13 (xsec_test.cpp).
// The sticks: the same .stick text as ExoCross's, and every line's S against ExoCross's 17-digit output within 1e-10 (the
// same formula and constants; the states' energies read from the same text).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#if QUANTA_HAVE_BZIP2
#include <bzlib.h>
#endif

#include "quanta/core/error.hpp"
#include "quanta/linelist/run.hpp"
#include "quanta/linelist/xsec.hpp"
#include "quanta/test/data.hpp"

namespace fs = std::filesystem;
using namespace quanta::linelist;

namespace {

const fs::path kRef = quanta::test::data_path("linelist/exocross-ref");

// A folder with the case's input, the .broad files and the line list it names (the staged TROVE outputs).
fs::path stage(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("quanta-exocross-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  fs::copy_file(kRef / (name + ".inp"), dir / (name + ".inp"), fs::copy_options::overwrite_existing);
  for (const char* b : {"H2_a0.broad", "He_a0_default.broad"}) fs::copy_file(kRef / b, dir / b, fs::copy_options::overwrite_existing);
  for (const char* f : {"sih2-trove/trove-output/SiH2_J0-2_0_2.states", "sih2-trove/trove-output/SiH2_J0-2_0_2.trans",
                        "hooh-trove/trove-output/HOOH_J0-3_0_3.states", "hooh-trove/trove-output/HOOH_J0-3_0_3.trans"}) {
    const fs::path src = quanta::test::data_path(std::string("linelist/") + f);
    if (!fs::exists(dir / src.filename())) fs::create_symlink(src, dir / src.filename());
  }
  return dir;
}

std::vector<std::pair<double, double>> read_columns(const fs::path& f) {
  std::ifstream in(f);
  std::vector<std::pair<double, double>> v;
  double a, b;
  while (in >> a >> b) v.emplace_back(a, b);
  return v;
}

// The largest relative deviation at points above 1e-6 of the largest value; the grids must be the same.
double compare(const fs::path& mine, const fs::path& theirs, const std::string& what) {
  const auto x = read_columns(mine), y = read_columns(theirs);
  EXPECT_EQ(x.size(), y.size()) << what;
  if (x.size() != y.size() || y.empty()) return 1;
  double peak = 0;
  for (const auto& p : y) peak = std::max(peak, p.second);
  double worst = 0;
  for (std::size_t i = 0; i < y.size(); ++i) {
    EXPECT_NEAR(x[i].first, y[i].first, 1e-8 * std::abs(y[i].first) + 1e-12) << what << " point " << i;
    if (y[i].second > 1e-6 * peak) worst = std::max(worst, std::abs(x[i].second - y[i].second) / y[i].second);
    else EXPECT_LE(std::abs(x[i].second - y[i].second), 1e-6 * peak) << what << " point " << i;
  }
  return worst;
}

void expect_case(const std::string& name, double tolerance) {
  const fs::path dir = stage(name);
  const fs::path out = dir / "out";
  fs::create_directories(out);
  const auto r = run_exocross(dir / (name + ".inp"), out, quanta::Backend::Cpu, true);
  ASSERT_EQ(r.files.size(), 1u) << name;
  const double worst = compare(r.files[0], kRef / (name + ".xsec"), name);
  std::printf("%-44s %zu lines used, largest relative deviation from ExoCross %.2e\n", name.c_str(), r.lines_used, worst);
  EXPECT_LE(worst, tolerance) << name;
}

}  // namespace

TEST(ExoCross, DopplerBinAveragedAndSampled) {
  for (const char* c : {"SiH2_Doppler_T296_coarse", "SiH2_Doppler_T1000_coarse", "SiH2_Doppler_T296_fine", "SiH2_Doppler_T1000_fine",
                        "SiH2_DopplerSampling_T296_fine", "SiH2_DopplerSampling_T1000_coarse", "HOOH_Doppler_T296_coarse",
                        "HOOH_Doppler_T1000_coarse", "HOOH_Doppler_T296_fine"})
    expect_case(c, 2e-8);
}

TEST(ExoCross, GaussianAndLorentzianWithAFixedWidth) {
  for (const char* c : {"SiH2_Gauss_HWHM0.5_T296", "SiH2_GaussSampling_HWHM0.5_T296", "SiH2_Lorentz_HWHM0.5_T296", "SiH2_Lorentz0_HWHM0.5_T296",
                        "HOOH_Lorentz_HWHM0.1_T296"})
    expect_case(c, 2e-8);
}

TEST(ExoCross, VoigtWithTwoBroadenersFromBroadFiles) {
  for (const char* c : {"SiH2_Voigt_P1bar_T296_fine", "SiH2_Voigt_P1bar_T1000_fine", "SiH2_Voigt_P1bar_T296_coarse", "HOOH_Voigt_P1bar_T296_fine",
                        "HOOH_Voigt_P1bar_T1000_coarse", "HOOH_Voigt_P1bar_T296_fine_cut2"})
    expect_case(c, 1e-4);
}

TEST(ExoCross, SticksGiveEveryLineIntensity) {
  // The .stick files as ExoCross writes them (nu and S to 9 digits): the same lines, the same text.
  for (const char* c : {"SiH2_stick_T296", "SiH2_stick_T1000", "HOOH_stick_T296"}) {
    const fs::path dir = stage(c);
    fs::create_directories(dir / "out");
    const auto r = run_exocross(dir / (std::string(c) + ".inp"), dir / "out", quanta::Backend::Cpu, true);
    ASSERT_EQ(r.files.size(), 1u);
    std::ifstream a(r.files[0]), b(kRef / (std::string(c) + ".stick"));
    std::stringstream sa, sb;
    sa << a.rdbuf();
    sb << b.rdbuf();
    EXPECT_EQ(sa.str(), sb.str()) << c;
    std::printf("%-44s %zu lines, .stick %s ExoCross's\n", c, r.lines_used, sa.str() == sb.str() ? "identical to" : "differs from");
  }
  // Each line's S against ExoCross's 17-digit output (the _hp build): the intensities themselves, not their print.
  for (const char* c : {"SiH2_stick_T296_hp", "SiH2_stick_T1000_hp", "HOOH_stick_T296_hp"}) {
    const fs::path dir = stage(c);
    ExoCrossInput in = read_exocross_input(dir / (std::string(c) + ".inp"));
    const StateTable states = read_exomol_states(in.states);
    set_conditions(in, &states);
    const auto& cond = in.spec.conditions[0];
    std::vector<std::pair<double, double>> x;
    read_exomol_transitions(in.transitions[0], states, [&](const LineBatch& b) {
      for (std::size_t i = 0; i < b.size(); ++i) {
        const double sv = line_intensity(b.nu[i], b.a[i], b.g_upper[i], b.e_lower[i], cond.temperature, cond.partition_function);
        if (b.nu[i] >= in.spec.nu_min && b.nu[i] <= in.spec.nu_max && sv >= in.spec.threshold) x.emplace_back(b.nu[i], sv);
      }
    });
    const auto y = read_columns(kRef / (std::string(c) + ".stick"));
    ASSERT_EQ(x.size(), y.size()) << c;
    double worst = 0, worst_nu = 0;
    for (std::size_t i = 0; i < y.size(); ++i) {
      worst_nu = std::max(worst_nu, std::abs(x[i].first - y[i].first));
      worst = std::max(worst, std::abs(x[i].second - y[i].second) / y[i].second);
    }
    std::printf("%-44s %zu lines, largest relative deviation of S from ExoCross %.2e, of nu %.2e cm-1\n", c, y.size(), worst, worst_nu);
    EXPECT_LE(worst, 1e-10) << c;
    EXPECT_LE(worst_nu, 1e-9) << c;
  }
}

// Several temperatures and pressures in one pass equal the runs made one condition at a time.
TEST(ExoCross, SeveralConditionsInOnePass) {
  const fs::path dir = stage("SiH2_Voigt_P1bar_T296_fine");
  std::ifstream in(dir / "SiH2_Voigt_P1bar_T296_fine.inp");
  std::stringstream text;
  text << in.rdbuf();
  std::string s = text.str();
  s.replace(s.find("Temperature 296"), 15, "Temperature 296 1000");
  s.replace(s.find("pressure 1.0"), 12, "pressure 1.0 0.1");
  std::ofstream(dir / "multi.inp") << s;
  fs::create_directories(dir / "multi");
  const auto r = run_exocross(dir / "multi.inp", dir / "multi", quanta::Backend::Cpu, true);
  ASSERT_EQ(r.files.size(), 4u);
  EXPECT_EQ(r.files[0].filename(), "SiH2_Voigt_P1bar_T296_fine_T296K_P1bar.xsec");
  EXPECT_LE(compare(r.files[0], kRef / "SiH2_Voigt_P1bar_T296_fine.xsec", "T 296 P 1"), 1e-4);
  EXPECT_LE(compare(r.files[2], kRef / "SiH2_Voigt_P1bar_T1000_fine.xsec", "T 1000 P 1"), 1e-4);
}

// Keywords ExoCross reads but quanta does not implement are refused by name, with the file and line.
TEST(ExoCross, UnimplementedKeywordsAreRefusedByName) {
  const fs::path dir = stage("SiH2_Doppler_T296_coarse");
  for (const auto& [line, word] : std::vector<std::pair<std::string, std::string>>{
           {"emission", "emission"}, {"Voigt quad", "Voigt quad"}, {"cutoff 20 HWHM", "cutoff X HWHM"}, {"partfunc 3", "partfunc"}}) {
    std::ofstream(dir / "bad.inp") << "Temperature 296\nRange 0 100\n" << line << "\nStates SiH2_J0-2_0_2.states\nTransitions SiH2_J0-2_0_2.trans\n";
    try {
      read_exocross_input(dir / "bad.inp");
      ADD_FAILURE() << line << " was accepted";
    } catch (const quanta::InputError& e) {
      EXPECT_NE(std::string(e.what()).find(word), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("bad.inp:3"), std::string::npos) << e.what();
    }
  }
}

// A .states file whose IDs run far beyond the states it holds (a damaged file: the table is indexed by ID) is refused
// with its line before any table is sized by the ID; gaps of a few IDs (TROVE's numbering) are read.
TEST(ExoCross, StatesIdsFarBeyondTheFileAreRefused) {
  const fs::path dir = stage("SiH2_Doppler_T296_coarse");
  std::ofstream(dir / "gaps.states") << "1 0.0 1 0\n4 10.0 3 1\n9 20.0 5 2\n";
  const StateTable s = read_exomol_states(dir / "gaps.states");
  ASSERT_EQ(s.g.size(), 9u);
  EXPECT_EQ(s.g[3], 3.0);
  EXPECT_LT(s.g[1], 0.0);
  std::ofstream(dir / "far.states") << "1 0.0 1 0\n\n10009999990 1 0. 30\n";
  try {
    read_exomol_states(dir / "far.states");
    ADD_FAILURE() << "an ID of 1e10 in a file of two states was accepted";
  } catch (const quanta::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("far.states:3"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("10009999990"), std::string::npos) << e.what();
  }
}

// Cross sections from a line-list run's own transitions (TROVE's SiH2 checkpoints; --cross-sections with the TROVE
// input, --no-trans): the same grid as ExoCross's from the .states/.trans TROVE wrote. Bound 1e-4: Humlicek's W4 in
// ExoCross (as above); the run's energies are not rounded to the .states file's 6 decimals, which moves nothing
// beyond 1e-7 here.
TEST(ExoCross, CrossSectionsFromALineListRun) {
  const fs::path dir = stage("SiH2_Voigt_P1bar_T296_fine");
  fs::create_directories(dir / "run");
  RunOptions o;
  o.input = quanta::test::data_path("linelist/sih2-trove/step4_exomol_files.inp");
  o.checkpoint_dir = quanta::test::data_path("linelist/sih2-trove/checkpoints");
  o.output_dir = dir / "run";
  o.backend = quanta::Backend::Cpu;
  o.cross_sections = dir / "SiH2_Voigt_P1bar_T296_fine.inp";
  o.no_trans = true;
  o.quiet = true;
  const auto r = run(o);
  ASSERT_EQ(r.cross_sections.size(), 1u);
  EXPECT_TRUE(r.trans.empty());
  EXPECT_FALSE(fs::exists(dir / "run" / "SiH2_J0-2_0_2.trans"));
  const double worst = compare(r.cross_sections[0], kRef / "SiH2_Voigt_P1bar_T296_fine.xsec", "from the run");
  std::printf("cross sections from the run's transitions: largest relative deviation from ExoCross %.2e\n", worst);
  EXPECT_LE(worst, 1e-4);
}

#if QUANTA_HAVE_BZIP2
// A file of one or more bzip2 streams, decompressed whole (as bzcat reads it).
std::string bunzip2(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::string packed(std::istreambuf_iterator<char>(in), {}), text;
  std::size_t at = 0;
  while (at < packed.size()) {
    bz_stream s{};
    if (BZ2_bzDecompressInit(&s, 0, 0) != BZ_OK) return "(bzip2 init failed)";
    s.next_in = packed.data() + at;
    s.avail_in = static_cast<unsigned int>(packed.size() - at);
    char buf[1 << 16];
    int rc = BZ_OK;
    while (rc == BZ_OK) {
      s.next_out = buf;
      s.avail_out = sizeof buf;
      rc = BZ2_bzDecompress(&s);
      text.append(buf, sizeof buf - s.avail_out);
    }
    at = packed.size() - s.avail_in;
    BZ2_bzDecompressEnd(&s);
    if (rc != BZ_STREAM_END) return "(bzip2 error " + std::to_string(rc) + ")";
  }
  return text;
}
#endif

// The streamed writer (--trans-split): TROVE's SiH2 list written as computed into 500 cm^-1 ranges, in wavenumber order,
// gives the in-memory .trans's lines byte for byte (the same text lines, compared in one order), each file holding its
// range only, and the transitions are not kept in memory.
TEST(LinelistStreamed, RangeSplitTransEqualsTheInMemoryFileSorted) {
  const fs::path dir = fs::temp_directory_path() / ("quanta-split-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  RunOptions o;
  o.input = quanta::test::data_path("linelist/sih2-trove/step4_exomol_files.inp");
  o.checkpoint_dir = quanta::test::data_path("linelist/sih2-trove/checkpoints");
  o.backend = quanta::Backend::Cpu;
  o.quiet = true;
  o.output_dir = dir / "memory";
  fs::create_directories(o.output_dir);
  const auto whole = run(o);
  o.output_dir = dir / "split";
  fs::create_directories(o.output_dir);
  o.trans_split = 500;
  o.pf_tmax = 1000;
  o.def = true;
  const auto split = run(o);
  // The .def: ExoMol's fields in the standard's order (as the `exomol` package's DefParser reads them), each value with
  // its description, and the values this list implies.
  {
    std::ifstream def(split.def);
    std::vector<std::pair<std::string, std::string>> f;  // value, description
    for (std::string l; std::getline(def, l);) {
      const auto hash = l.find(" # ");
      ASSERT_NE(hash, std::string::npos) << l;
      std::string v = l.substr(0, hash);
      v.erase(v.find_last_not_of(' ') + 1);
      f.emplace_back(v, l.substr(hash + 3));
    }
    std::size_t i = 0;
    auto next = [&](const std::string& description) {
      EXPECT_LT(i, f.size()) << description;
      if (i >= f.size()) return std::string();
      EXPECT_EQ(f[i].second, description) << "field " << i + 1;
      return f[i++].first;
    };
    EXPECT_EQ(next("ID"), "EXOMOL.def");
    EXPECT_EQ(next("IsoFormula"), "(28Si)(1H)2");
    EXPECT_EQ(next("Iso-slug"), "28Si-1H2");
    EXPECT_EQ(next("Isotopologue dataset name"), "SiH2_J0-2_0_2");
    EXPECT_EQ(next("Version number with format YYYYMMDD").size(), 8u);
    next("Inchi key of molecule");
    EXPECT_EQ(next("Number of atoms"), "3");
    int atom = 0;
    for (const auto& [number, symbol] : std::vector<std::pair<std::string, std::string>>{{"28", "Si"}, {"1", "H"}, {"1", "H"}}) {
      const std::string n = std::to_string(++atom);
      EXPECT_EQ(next("Isotope number " + n), number);
      EXPECT_EQ(next("Element symbol " + n), symbol);
    }
    EXPECT_NEAR(std::stod(next("Isotopologue mass (Da) and (kg)")), 27.97692654 + 2 * 1.007825032, 1e-8);
    EXPECT_EQ(next("Symmetry group"), "C2v(M)");
    EXPECT_EQ(next("Number of irreducible representations"), "4");
    for (int g = 1; g <= 4; ++g) {
      EXPECT_EQ(next("Irreducible representation ID"), std::to_string(g));
      next("Irreducible representation label");
      next("Nuclear spin degeneracy");
    }
    EXPECT_EQ(next("Maximum temperature of linelist"), "1000.0");
    for (const char* d : {"No. of pressure broadeners available", "Dipole availability (1=yes, 0=no)", "No. of cross section files available",
                          "No. of k-coefficient files available", "Lifetime availability (1=yes, 0=no)", "Lande g-factor availability (1=yes, 0=no)"})
      EXPECT_EQ(next(d), "0");
    EXPECT_EQ(next("No. of states in .states file"), std::to_string(split.levels));
    EXPECT_EQ(next("No. of quanta cases"), "1");
    next("Quantum case label");
    const int nq = std::stoi(next("No. of quanta defined"));
    for (int k = 1; k <= nq; ++k) {
      next("Quantum label " + std::to_string(k));
      next("Format quantum label " + std::to_string(k));
      next("Description quantum label " + std::to_string(k));
    }
    // Every .states line has 4 + nq columns (DefParser's consistency check).
    std::ifstream st(o.output_dir / "SiH2_J0-2_0_2.states");
    for (std::string l; std::getline(st, l);) {
      std::istringstream ls(l);
      int columns = 0;
      for (std::string w; ls >> w;) ++columns;
      ASSERT_EQ(columns, 4 + nq) << l;
    }
    EXPECT_EQ(next("Total number of transitions"), std::to_string(split.transitions));
    EXPECT_EQ(next("No. of transition files"), std::to_string(split.trans_files.size()));
    next("Maximum wavenumber (in cm-1)");
    next("Higher energy with complete set of transitions (in cm-1)");
    EXPECT_EQ(next("Default value of Lorentzian half-width for all lines"), "0.0700");
    EXPECT_EQ(next("Default value of temperature exponent for all lines"), "0.500");
    EXPECT_EQ(i, f.size());
  }
  // The .pf beside them: Q(T) of the levels read, T = 1 .. 1000 K, with TROVE's constants (those of its intensities);
  // against ExoCross's sums over the same .states file (README of exocross-ref: 58.79265822679311 at 296 K and
  // 95.4811926805664 at 1000 K). TROVE's c2 (from its single-precision h, c, k: 1.438769 cm K) is 5.8e-6 below
  // ExoCross's 1.43877736, which moves Q by that times the mean c2 E / T (1-3 here): bound 2e-5 relative.
  {
    std::ifstream pf(split.pf);
    std::vector<std::pair<double, double>> rows;
    double t, q;
    while (pf >> t >> q) rows.emplace_back(t, q);
    ASSERT_EQ(rows.size(), 1000u);
    EXPECT_EQ(rows[295].first, 296.0);
    EXPECT_NEAR(rows[295].second, 58.79265822679311, 2e-5 * 58.79265822679311);
    EXPECT_NEAR(rows[999].second, 95.4811926805664, 2e-5 * 95.4811926805664);
  }
  EXPECT_TRUE(split.trans.empty());
  ASSERT_GT(split.trans_files.size(), 3u);
  EXPECT_EQ(split.trans_files.front().filename(), "SiH2_J0-2_0_2__00000-00500.trans");
  EXPECT_EQ(split.transitions, whole.transitions);
  struct Line {
    double nu;
    long long up, lo;
    std::string text;
  };
  auto lines_of = [](const std::vector<fs::path>& files) {
    std::vector<Line> v;
    for (const auto& f : files) {
      std::ifstream in(f);
      for (std::string l; std::getline(in, l);) {
        std::istringstream ls(l);
        Line x;
        double a;
        ls >> x.up >> x.lo >> a >> x.nu;
        x.text = l;
        v.push_back(x);
      }
    }
    return v;
  };
  // The files are sorted by the full wavenumber; the text holds 6 decimals, so lines whose wavenumbers round alike are
  // compared after sorting both by the printed value (and the IDs).
  auto by_text = [](const Line& a, const Line& b) {
    if (a.nu != b.nu) return a.nu < b.nu;
    if (a.up != b.up) return a.up < b.up;
    return a.lo < b.lo;
  };
  auto expected = lines_of({whole.trans});
  std::stable_sort(expected.begin(), expected.end(), by_text);
  auto got = lines_of(split.trans_files);
  for (std::size_t i = 1; i < got.size(); ++i) EXPECT_LE(got[i - 1].nu, got[i].nu) << "line " << i << " out of wavenumber order";
  std::stable_sort(got.begin(), got.end(), by_text);
  ASSERT_EQ(got.size(), expected.size());
  std::size_t differ = 0;
  for (std::size_t i = 0; i < got.size(); ++i) differ += got[i].text != expected[i].text;
  EXPECT_EQ(differ, 0u);
  // Each file holds only its range.
  for (const auto& f : split.trans_files) {
    const std::string name = f.filename().string();
    const double lo = std::stod(name.substr(name.size() - 17, 5)), hi = std::stod(name.substr(name.size() - 11, 5));
    for (const auto& l : lines_of({f})) {
      EXPECT_GE(l.nu, lo) << name;
      EXPECT_LT(l.nu, hi) << name;
    }
  }
  // No spill file is left behind.
  for (const auto& e : fs::directory_iterator(dir / "split")) EXPECT_EQ(e.path().string().find(".spill"), std::string::npos) << e.path();
  // One range holding every line (153,368: past the size from which a range is sorted and formatted by the threads):
  // the same text as the 500 cm^-1 files one after another.
  o.output_dir = dir / "one";
  fs::create_directories(o.output_dir);
  o.trans_split = 100000;
  o.def = false, o.pf_tmax = 0;
  const auto one = run(o);
  ASSERT_EQ(one.trans_files.size(), 1u);
  auto text_of = [](const std::vector<fs::path>& files) {
    std::string all;
    for (const auto& f : files) {
      std::ifstream in(f, std::ios::binary);
      all += std::string(std::istreambuf_iterator<char>(in), {});
    }
    return all;
  };
  const std::string joined = text_of(split.trans_files), single = text_of(one.trans_files);
  EXPECT_EQ(single.size(), joined.size());
  EXPECT_TRUE(single == joined) << "the single range's file differs from the 500 cm^-1 files joined";
  // --bzip2: the same range files as bzip2 streams (.trans.bz2), read back whole; without the library, refused by name.
  o.output_dir = dir / "bz2";
  fs::create_directories(o.output_dir);
  o.trans_split = 500;
  o.bzip2 = true;
#if QUANTA_HAVE_BZIP2
  const auto packed = run(o);
  ASSERT_EQ(packed.trans_files.size(), split.trans_files.size());
  for (std::size_t i = 0; i < packed.trans_files.size(); ++i) {
    EXPECT_EQ(packed.trans_files[i].filename().string(), split.trans_files[i].filename().string() + ".bz2");
    EXPECT_TRUE(bunzip2(packed.trans_files[i]) == text_of({split.trans_files[i]})) << packed.trans_files[i];
  }
#else
  try {
    run(o);
    ADD_FAILURE() << "--bzip2 accepted by a build without the bzip2 library";
  } catch (const quanta::Error& e) {
    EXPECT_NE(std::string(e.what()).find("--bzip2: this build has no bzip2 library"), std::string::npos) << e.what();
  }
#endif
  fs::remove_all(dir);
}
