// What quanta gw refuses, and when: keywords it does not implement, repeated keywords, values out of
// range, number_bands or a band range that splits a degenerate set (BerkeleyGW's degeneracy check and
// its override), cutoffs beyond the density's sphere, and every input checked before Epsilon starts.
// The silicon example's files (tests/data/si-bgw) with one thing changed at a time.
#include <gtest/gtest.h>
#include <omp.h>
#include <sys/wait.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "../src/region_failure.hpp"
#include "quanta/gw/epsilon.hpp"
#include "quanta/gw/inputs.hpp"
#include "quanta/gw/mean_field.hpp"
#include "quanta/gw/run.hpp"
#include "quanta/gw/sigma.hpp"
#include "quanta/test/data.hpp"
#include "../../../core/tests/test_support.hpp"

namespace fs = std::filesystem;
using namespace quanta::gw;
using quanta::InputError;
using quanta::test::expect_error;
using quanta::test::TempDir;

namespace {

fs::path si() { return quanta::test::data_path("gw/si-bgw"); }
fs::path mf(const std::string& f) { return si() / "mean-field" / f; }

std::string slurp(const fs::path& f) {
  std::ifstream in(f);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The example's sigma.inp with `from` replaced by `to`.
std::string edited(const fs::path& file, const std::string& from, const std::string& to) {
  std::string s = slurp(file);
  const auto at = s.find(from);
  if (at == std::string::npos) throw std::runtime_error("test: '" + from + "' not in " + file.string());
  return s.replace(at, from.size(), to);
}

// RunOptions for the example, its files where the tests staged them, output in `out`.
RunOptions example(const fs::path& out) {
  RunOptions o;
  o.input_dir = si() / "bgw-inputs";
  o.wfn = mf("02-wfn/WFN");
  o.wfnq = mf("03-wfnq/WFNq");
  o.wfn_inner = mf("04-wfn_co/WFN_co");
  o.rho = mf("04-wfn_co/RHO");
  o.vxc = mf("04-wfn_co/vxc.dat");
  o.output_dir = out;
  o.backend = quanta::Backend::Cpu;
  return o;
}

// run() must fail with an InputError carrying `pieces` before Epsilon starts: nothing of Epsilon on stderr.
void expect_refused_before_epsilon(const RunOptions& o, const std::vector<std::string>& pieces) {
  testing::internal::CaptureStderr();
  std::string message;
  try {
    run(o);
  } catch (const quanta::Error& e) {
    message = e.what();
  }
  const std::string err = testing::internal::GetCapturedStderr();
  ASSERT_FALSE(message.empty()) << "run() did not fail";
  for (const auto& p : pieces) EXPECT_NE(message.find(p), std::string::npos) << message << "\nlacks: " << p;
  EXPECT_EQ(err.find("epsilon"), std::string::npos) << "refused only after Epsilon started:\n" << err;
}

// ---------------------------------------------------------------- keywords

TEST(GwKeywords, VerbosityIsAcceptedInItsRangeAndRefusedOutsideIt) {
  TempDir dir;
  const auto base = slurp(si() / "bgw-inputs/epsilon.inp");
  EXPECT_NO_THROW(read_epsilon_inp(dir.write("e1.inp", "verbosity 3\n" + base)));
  expect_error<InputError>([&] { read_epsilon_inp(dir.write("e2.inp", "verbosity 9\n" + base)); }, {"e2.inp:1", "verbosity", "9", "1..6"});
  expect_error<InputError>([&] { read_epsilon_inp(dir.write("e3.inp", "verbosity high\n" + base)); }, {"e3.inp:1", "verbosity", "'high'"});
}

// Full frequency: BerkeleyGW's contour-deformation keywords and defaults, their ranges, the static subspace's keywords,
// and what is refused by name.
TEST(GwKeywords, FullFrequencyKeywordsAndDefaults) {
  TempDir dir;
  const auto eps = slurp(si() / "bgw-inputs/epsilon.inp");
  const auto sig = slurp(si() / "bgw-inputs/sigma.inp");
  const auto e = read_epsilon_inp(dir.write("e.inp", eps + "frequency_dependence 2\nbroadening 0.25\n"));
  EXPECT_EQ(e.frequency_dependence, 2);
  EXPECT_EQ(e.frequencies.real_axis().size(), 801u);  // 0 .. 200 eV (BerkeleyGW's default) in steps of the broadening
  expect_error<InputError>([&] { read_epsilon_inp(dir.write("e0.inp", eps + "frequency_dependence 2\n")); },
                           {"e0.inp", "broadening: missing", "BerkeleyGW's default is 0"});
  ASSERT_EQ(e.frequencies.imaginary_axis().size(), 15u);
  EXPECT_EQ(e.frequencies.imaginary_axis()[0], 0.0);
  EXPECT_NEAR(e.frequencies.imaginary_axis()[14], 27.21138506 * 14, 1e-9);
  EXPECT_FALSE(e.subspace);
  const auto e2 = read_epsilon_inp(dir.write("e2.inp", eps + "frequency_dependence 2\nbroadening 0.1\nfrequency_low_cutoff 1.0\nnbasis_subspace 40\n"));
  EXPECT_EQ(e2.frequencies.real_axis().size(), 11u);  // delta_frequency defaults to the broadening
  EXPECT_TRUE(e2.subspace);
  EXPECT_EQ(e2.subspace_nbasis, 40);
  expect_error<InputError>([&] { read_epsilon_inp(dir.write("e3.inp", eps + "broadening 0.1\n")); }, {"e3.inp", "broadening", "frequency_dependence 2"});
  expect_error<InputError>([&] { read_epsilon_inp(dir.write("e4.inp", eps + "frequency_dependence 1\n")); }, {"e4.inp:", "frequency_dependence", "0 (static screening) or 2"});
  expect_error<InputError>([&] { read_epsilon_inp(dir.write("e5.inp", eps + "frequency_dependence 2\nbroadening 0.1\nfrequency_dependence_method 1\n")); },
                           {"e5.inp:", "frequency_dependence_method", "spectral method 1 is not implemented"});
  // The real-axis method: BerkeleyGW's grid (fine steps to frequency_low_cutoff, then steps growing by delta_frequency_step
  // up to frequency_high_cutoff, 4 frequency_low_cutoff by default), no imaginary points.
  const auto r0 = read_epsilon_inp(dir.write("r0.inp", eps + "frequency_dependence 2\nfrequency_dependence_method 0\nbroadening 0.5\nfrequency_low_cutoff 2.0\n"
                                                             "delta_frequency_step 0.5\n"));
  EXPECT_EQ(r0.frequencies.method, 0);
  EXPECT_TRUE(r0.frequencies.imaginary_axis().empty());
  const std::vector<double> want = {0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.5, 6.5};  // 2.0 + 1.0, + 1.5, + 2.0; then 9.0 > 8.0
  EXPECT_EQ(r0.frequencies.real_axis(), want);
  expect_error<InputError>([&] { read_epsilon_inp(dir.write("r1.inp", eps + "frequency_dependence 2\nfrequency_dependence_method 0\nbroadening 0.1\nnbasis_subspace 10\n")); },
                           {"r1.inp", "static subspace", "frequency_dependence_method 2"});
  expect_error<InputError>([&] { read_epsilon_inp(dir.write("r2.inp", eps + "frequency_dependence 2\nfrequency_dependence_method 0\nbroadening 0.1\nfrequency_low_cutoff 10\nfrequency_high_cutoff 5\n")); },
                           {"r2.inp", "frequency_high_cutoff", "below frequency_low_cutoff"});
  const auto s0 = read_sigma_inp(dir.write("s0.inp", sig + "frequency_dependence 2\nfrequency_dependence_method 0\n"));
  EXPECT_EQ(s0.ff_method, 0);
  // BerkeleyGW reads frequency_dependence_method under the plasmon pole too; the real-axis method needs full frequency.
  EXPECT_NO_THROW(read_sigma_inp(dir.write("s7.inp", sig + "frequency_dependence_method 2\n")));
  expect_error<InputError>([&] { read_sigma_inp(dir.write("s8.inp", sig + "frequency_dependence_method 0\n")); },
                           {"s8.inp:", "frequency_dependence", "2 (full frequency) with frequency_dependence_method 0"});
  expect_error<InputError>([&] { read_sigma_inp(dir.write("s5.inp", sig + "frequency_dependence 2\nfrequency_dependence_method 1\n")); },
                           {"s5.inp:", "frequency_dependence_method", "0 (real-axis integration)"});
  expect_error<InputError>([&] { read_sigma_inp(dir.write("s6.inp", sig + "frequency_dependence 2\nfrequency_dependence_method 0\ndo_sigma_subspace\n")); },
                           {"s6.inp", "do_sigma_subspace", "frequency_dependence_method 2"});
  expect_error<InputError>([&] { read_epsilon_inp(dir.write("e6.inp", eps + "frequency_dependence 2\nnumber_imaginary_freqs 1\n")); },
                           {"e6.inp:", "number_imaginary_freqs", ">= 2"});
  expect_error<InputError>([&] { read_epsilon_inp(dir.write("e7.inp", eps + "frequency_dependence 2\nsubspace_use_elpa\n")); },
                           {"e7.inp:", "subspace_use_elpa", "not implemented", "zheev"});
  const auto s = read_sigma_inp(dir.write("s.inp", sig + "frequency_dependence 2\ncd_integration_method 2\n"));
  EXPECT_EQ(s.frequency_dependence, 2);
  EXPECT_EQ(s.cd_integration_method, 2);
  EXPECT_EQ(s.eval_points(), 21);
  expect_error<InputError>([&] { read_sigma_inp(dir.write("s1.inp", sig + "frequency_dependence 2\ncd_integration_method 3\n")); },
                           {"s1.inp:", "cd_integration_method", "3 is not implemented"});
  expect_error<InputError>([&] { read_sigma_inp(dir.write("s2.inp", sig + "frequency_dependence 2\ninit_frequency_eval 0.0\n")); },
                           {"s2.inp:", "init_frequency_eval", "frequency_grid_shift 2"});
  expect_error<InputError>([&] { read_sigma_inp(dir.write("s3.inp", sig + "frequency_dependence 2\nsigma_matrix -1 0\n")); },
                           {"s3.inp:", "sigma_matrix", "off-diagonal full-frequency Sigma is not implemented"});
  expect_error<InputError>([&] { read_sigma_inp(dir.write("s4.inp", sig + "cd_integration_method 2\n")); }, {"s4.inp:", "frequency_dependence", "2 (full frequency)"});
}

TEST(GwKeywords, ScreeningSemiconductorIsAcceptedOtherScreeningsAndTruncationsRefusedByName) {
  TempDir dir;
  const auto eps = slurp(si() / "bgw-inputs/epsilon.inp");
  const auto sig = slurp(si() / "bgw-inputs/sigma.inp");
  EXPECT_NO_THROW(read_epsilon_inp(dir.write("e.inp", "screening_semiconductor\n" + eps)));
  EXPECT_NO_THROW(read_sigma_inp(si() / "bgw-inputs/sigma.inp"));  // it has screening_semiconductor
  expect_error<InputError>([&] { read_epsilon_inp(dir.write("e1.inp", eps + "screening_metal\n")); },
                           {"e1.inp:17", "screening_metal", "not implemented", "screening_semiconductor only"});
  expect_error<InputError>([&] { read_sigma_inp(dir.write("s1.inp", sig + "screening_graphene\n")); },
                           {"s1.inp:", "screening_graphene", "screening_semiconductor only"});
  expect_error<InputError>([&] { read_sigma_inp(dir.write("s2.inp", "cell_slab_truncation\n" + sig)); },
                           {"s2.inp:1", "cell_slab_truncation", "without Coulomb truncation"});
  expect_error<InputError>([&] { read_epsilon_inp(dir.write("e2.inp", "screening_semiconductor 1\n" + eps)); },
                           {"e2.inp:1", "screening_semiconductor", "nothing after the flag"});
}

TEST(GwKeywords, UnknownKeywordNamesWhatQuantaImplements) {
  TempDir dir;
  const auto f = dir.write("sigma.inp", slurp(si() / "bgw-inputs/sigma.inp") + "band_occupation 4*1 4*0\n");
  expect_error<InputError>([&] { read_sigma_inp(f); }, {"sigma.inp:", "band_occupation", "does not implement", "band_index_max",
                                                         "degeneracy_check_override", "screening_semiconductor", "begin kpoints"});
}

// exact_static_ch 0 is BerkeleyGW's default for the plasmon-pole and full-frequency Sigma (no static remainder) and is
// read; 1, the static remainder correction, is refused naming the line and what is implemented.
TEST(GwKeywords, ExactStaticChZeroIsReadOneRefused) {
  TempDir dir;
  const auto base = slurp(si() / "bgw-inputs/sigma.inp");
  EXPECT_NO_THROW(read_sigma_inp(dir.write("zero.inp", base + "exact_static_ch 0\n")));
  expect_error<InputError>([&] { read_sigma_inp(dir.write("one.inp", base + "exact_static_ch 1\n")); },
                           {"one.inp:", "exact_static_ch", "found 1", "static remainder", "not implemented"});
}

TEST(GwKeywords, RepeatedKeywordLastWinsWithAWarningNamingBothLines) {
  TempDir dir;
  const auto f = dir.write("sigma.inp", "number_bands 20\n" + slurp(si() / "bgw-inputs/sigma.inp"));
  testing::internal::CaptureStderr();
  const auto p = read_sigma_inp(f);
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(p.nbands, 32);  // the example's own number_bands, on line 2
  EXPECT_NE(err.find("warning"), std::string::npos) << err;
  EXPECT_NE(err.find("number_bands is given at lines 1 and 2"), std::string::npos) << err;
  EXPECT_NE(err.find("line 2"), std::string::npos) << err;
}

TEST(GwKeywords, ValuesOutOfRangeAreRefusedWhenRead) {
  TempDir dir;
  const auto sig = si() / "bgw-inputs/sigma.inp";
  expect_error<InputError>([&] { read_sigma_inp(dir.write("s1.inp", edited(sig, "band_index_max 14", "band_index_max 40"))); },
                           {"s1.inp", "band_index_max 40", "number_bands 32", "band_index_max <= number_bands"});
  expect_error<InputError>([&] { read_sigma_inp(dir.write("s2.inp", edited(sig, "band_index_min 1", "band_index_min 0"))); },
                           {"s2.inp:3", "band_index_min", "a band >= 1"});
  expect_error<InputError>([&] { read_sigma_inp(dir.write("s3.inp", edited(sig, "number_bands 32", "number_bands 32 33"))); },
                           {"s3.inp:1", "number_bands", "2 values", "one value"});
  const auto eps = si() / "bgw-inputs/epsilon.inp";
  expect_error<InputError>([&] { read_epsilon_inp(dir.write("e1.inp", edited(eps, "epsilon_cutoff 10.0", "epsilon_cutoff -1"))); },
                           {"e1.inp:1", "epsilon_cutoff", "-1", "a positive cutoff"});
  expect_error<InputError>([&] { read_epsilon_inp(dir.write("e2.inp", edited(eps, "number_bands 29", "number_bands 1"))); },
                           {"e2.inp:3", "number_bands", "an integer >= 2"});
}

TEST(GwKeywords, DegeneracyCheckOverrideIsRead) {
  TempDir dir;
  EXPECT_FALSE(read_sigma_inp(si() / "bgw-inputs/sigma.inp").degeneracy_check_override);
  EXPECT_TRUE(read_sigma_inp(dir.write("s.inp", "degeneracy_check_override\n" + slurp(si() / "bgw-inputs/sigma.inp"))).degeneracy_check_override);
  EXPECT_TRUE(read_epsilon_inp(dir.write("e.inp", "degeneracy_check_override\n" + slurp(si() / "bgw-inputs/epsilon.inp"))).degeneracy_check_override);
}

// ---------------------------------------------------------------- checks against the files

// At Gamma (WFN_co's first k-point) bands 2, 3 and 4 are one level (the top of the valence band).
TEST(GwDegeneracy, NumberBandsSplittingADegenerateSetIsRefusedUnlessOverridden) {
  const auto inner = read_wfn_header(mf("04-wfn_co/WFN_co"));
  ASSERT_NEAR(inner.energy(0, 1), inner.energy(0, 3), 1e-8);
  const auto ep = read_epsilon_inp(si() / "bgw-inputs/epsilon.inp");
  auto sp = read_sigma_inp(si() / "bgw-inputs/sigma.inp");
  EXPECT_NO_THROW(check_sigma_inputs("sigma.inp", sp, ep, inner));  // the example: 32 of 33 bands, 1..14
  sp.nbands = 3;
  sp.band_max = 1;
  expect_error<InputError>([&] { check_sigma_inputs("sigma.inp", sp, ep, inner); },
                           {"sigma.inp", "number_bands 3", "splits a degenerate set", "bands 3 and 4", "k-point 1", "degeneracy_check_override"});
  sp.degeneracy_check_override = true;
  testing::internal::CaptureStderr();
  EXPECT_NO_THROW(check_sigma_inputs("sigma.inp", sp, ep, inner));
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("splits a degenerate set"), std::string::npos) << err;
  EXPECT_NE(err.find("degeneracy_check_override is set"), std::string::npos) << err;
}

TEST(GwDegeneracy, SigmaBandRangeSplittingADegenerateSetIsRefusedUnlessOverridden) {
  const auto inner = read_wfn_header(mf("04-wfn_co/WFN_co"));
  const auto ep = read_epsilon_inp(si() / "bgw-inputs/epsilon.inp");
  auto sp = read_sigma_inp(si() / "bgw-inputs/sigma.inp");
  sp.band_max = 3;
  expect_error<InputError>([&] { check_sigma_inputs("sigma.inp", sp, ep, inner); }, {"band_index_max 3", "splits a degenerate set", "bands 3 and 4"});
  sp.band_max = 14;
  sp.band_min = 3;
  expect_error<InputError>([&] { check_sigma_inputs("sigma.inp", sp, ep, inner); }, {"band_index_min 3", "splits a degenerate set", "bands 2 and 3"});
  sp.degeneracy_check_override = true;
  testing::internal::CaptureStderr();
  EXPECT_NO_THROW(check_sigma_inputs("sigma.inp", sp, ep, inner));
  EXPECT_NE(testing::internal::GetCapturedStderr().find("band_index_min 3"), std::string::npos);
}

// BerkeleyGW needs one band more than number_bands, to see whether the cut splits a level.
TEST(GwDegeneracy, NumberBandsNeedsOneMoreBandInTheFile) {
  const auto wfn = read_wfn_header(mf("02-wfn/WFN"));
  const auto wfnq = read_wfn_header(mf("03-wfnq/WFNq"));
  ASSERT_EQ(wfn.nbands_file, 30);
  auto ep = read_epsilon_inp(si() / "bgw-inputs/epsilon.inp");
  EXPECT_NO_THROW(check_epsilon_inputs("epsilon.inp", ep, wfn, &wfnq));
  ep.nbands = 30;
  expect_error<InputError>([&] { check_epsilon_inputs("epsilon.inp", ep, wfn, &wfnq); },
                           {"epsilon.inp", "number_bands 30", "equals the bands of", "expected at most 29", "degeneracy_check_override"});
  ep.nbands = 31;
  expect_error<InputError>([&] { check_epsilon_inputs("epsilon.inp", ep, wfn, &wfnq); }, {"number_bands 31", "exceeds the 30 bands"});
}

// epsilon_cutoff 1e6 used to take every density G-vector onto a huge FFT box and end in std::bad_alloc
// thrown inside an OpenMP region (SIGABRT). It is refused with the largest value the file allows.
TEST(GwCutoffs, EpsilonCutoffBeyondTheDensitySphereIsRefused) {
  const auto wfn = read_wfn_header(mf("02-wfn/WFN"));
  const auto wfnq = read_wfn_header(mf("03-wfnq/WFNq"));
  auto ep = read_epsilon_inp(si() / "bgw-inputs/epsilon.inp");
  ep.ecut = 1e6;
  expect_error<InputError>([&] { check_epsilon_inputs("epsilon.inp", ep, wfn, &wfnq); },
                           {"epsilon.inp", "epsilon_cutoff 1000000", "ecutrho 100 Ry", "expected 0 < epsilon_cutoff <= 100"});
  ep.ecut = 100;
  EXPECT_NO_THROW(check_epsilon_inputs("epsilon.inp", ep, wfn, &wfnq));
  // compute_epsilon itself refuses it too, before any allocation.
  const auto full = read_wfn(mf("02-wfn/WFN"), 29);
  ep.ecut = 1e6;
  expect_error<InputError>([&] { compute_epsilon(full, nullptr, ep); }, {"WFN", "epsilon_cutoff", "expected 0 < epsilon_cutoff <="});
}

TEST(GwCutoffs, SigmaCutoffsAreCheckedAgainstEpsilonAndTheDensity) {
  const auto inner = read_wfn_header(mf("04-wfn_co/WFN_co"));
  const auto ep = read_epsilon_inp(si() / "bgw-inputs/epsilon.inp");
  auto sp = read_sigma_inp(si() / "bgw-inputs/sigma.inp");
  sp.ecut_screened = 12;
  expect_error<InputError>([&] { check_sigma_inputs("sigma.inp", sp, ep, inner); }, {"screened_coulomb_cutoff 12", "epsilon_cutoff 10"});
  sp.ecut_screened = 0;
  sp.ecut_bare = 1e4;
  expect_error<InputError>([&] { check_sigma_inputs("sigma.inp", sp, ep, inner); }, {"bare_coulomb_cutoff 10000", "expected at most 100"});
  sp.ecut_bare = 5;
  expect_error<InputError>([&] { check_sigma_inputs("sigma.inp", sp, ep, inner); }, {"bare_coulomb_cutoff 5", "below the screened cutoff 10"});
}

// ---------------------------------------------------------------- every input before Epsilon

TEST(GwEarlyChecks, SigmaInputsAreCheckedBeforeEpsilon) {
  TempDir dir;
  {
    auto o = example(dir / "out");
    o.rho = dir / "RHO";  // missing
    expect_refused_before_epsilon(o, {"RHO", "not found"});
  }
  {
    auto o = example(dir / "out");
    o.sigma_input = dir.write("sigma.inp", edited(si() / "bgw-inputs/sigma.inp", "number_bands 32", "number_bands 33"));
    expect_refused_before_epsilon(o, {"sigma.inp", "number_bands 33", "equals the bands of"});
  }
  {
    auto o = example(dir / "out");
    o.sigma_input = dir.write("sigma2.inp", edited(si() / "bgw-inputs/sigma.inp", "0.200000000  0.400000000  0.600000000  1.0",
                                                   "0.100000000  0.400000000  0.600000000  1.0"));
    expect_refused_before_epsilon(o, {"sigma2.inp", "k-point (0.1, 0.4, 0.6)", "is not one of the 10 k-points"});
  }
  {
    // vxc.dat without band 14 of the first k-point (its line dropped, the count made 13).
    const std::string v = slurp(mf("04-wfn_co/vxc.dat"));
    std::istringstream in(v);
    std::string out, line;
    for (int n = 1; std::getline(in, line); ++n) {
      if (n == 1) line.replace(line.rfind("14"), 2, "13");
      if (n != 15) out += line + "\n";
    }
    auto o = example(dir / "out");
    o.vxc = dir.write("vxc.dat", out);
    expect_refused_before_epsilon(o, {"vxc.dat", "band 14"});
  }
  {
    auto o = example(dir / "out");
    o.wfn_inner = dir / "WFN_inner";
    expect_refused_before_epsilon(o, {"WFN_inner", "not found"});
  }
  {
    auto o = example(dir / "out");
    o.output_dir = dir.write("a-file", "x");  // a file where the output folder should be
    expect_refused_before_epsilon(o, {"output folder", "a-file"});
  }
}

// ---------------------------------------------------------------- OpenMP regions

TEST(GwRegions, AnExceptionInAParallelRegionIsRethrownAfterIt) {
  RegionFailure failure;
  int ran = 0;
#pragma omp parallel num_threads(4) reduction(+ : ran)
  {
#pragma omp for
    for (int i = 0; i < 64; ++i)
      failure.run([&] {
        ++ran;
        if (i == 5) throw InputError("x", "item 5");
      });
  }
  EXPECT_TRUE(failure.failed());
  EXPECT_GE(ran, 1);
  expect_error<InputError>([&] { failure.rethrow(); }, {"item 5"});
}

// ---------------------------------------------------------------- the command line

int run_command(const std::string& cwd, const std::string& args, const fs::path& log) {
  const int rc = std::system(("cd '" + cwd + "' && " + std::string(QUANTA_BINARY) + " gw " + args + " > '" + log.string() + "' 2>&1").c_str());
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : 128 + WTERMSIG(rc);
}

// docs/gw.md's command, from the example's folder, with epsilon_cutoff 1e6 in a copy of bgw-inputs:
// exit 1 with the reason (it was SIGABRT from std::bad_alloc inside an OpenMP region); and with a
// file missing, "not found" naming it.
TEST(GwCommand, DocumentedCommandRefusesAHugeCutoffAndAMissingFile) {
  TempDir dir;
  // The example's folder layout, the mean field linked, bgw-inputs edited.
  fs::create_directories(dir / "case/bgw-inputs");
  fs::create_directory_symlink(si() / "mean-field", dir / "case/mean-field");
  std::ofstream(dir / "case/bgw-inputs/epsilon.inp") << edited(si() / "bgw-inputs/epsilon.inp", "epsilon_cutoff 10.0", "epsilon_cutoff 1e6");
  fs::copy_file(si() / "bgw-inputs/sigma.inp", dir / "case/bgw-inputs/sigma.inp");
  const std::string documented =
      "bgw-inputs --wfn mean-field/02-wfn/WFN --wfnq mean-field/03-wfnq/WFNq --wfn-inner mean-field/04-wfn_co/WFN_co "
      "--rho mean-field/04-wfn_co/RHO --vxc mean-field/04-wfn_co/vxc.dat -o out";
  const auto log = dir / "log";
  EXPECT_EQ(run_command((dir / "case").string(), documented, log), 1) << slurp(log);
  EXPECT_NE(slurp(log).find("epsilon_cutoff 1000000 Ry exceeds"), std::string::npos) << slurp(log);
  // The same command, on the example's own inputs, with the density misnamed.
  fs::create_directories(dir / "case2");
  fs::create_directory_symlink(si() / "mean-field", dir / "case2/mean-field");
  fs::create_directory_symlink(si() / "bgw-inputs", dir / "case2/bgw-inputs");
  std::string missing = documented;
  missing.replace(missing.find("04-wfn_co/RHO"), 13, "04-wfn_co/RHOX");
  EXPECT_EQ(run_command((dir / "case2").string(), missing, log), 1) << slurp(log);
  EXPECT_NE(slurp(log).find("mean-field/04-wfn_co/RHOX: not found"), std::string::npos) << slurp(log);
}

// --epsmat without --eps0mat, and an eps0mat.h5 that is not one: refused naming the option or the file, exit 1.
TEST(GwCommand, EpsmatOptionsAreChecked) {
  TempDir dir;
  const auto log = dir / "log";
  EXPECT_EQ(run_command(dir.path().string(), "--epsmat x.h5", log), 1) << slurp(log);
  EXPECT_NE(slurp(log).find("--epsmat: given without --eps0mat"), std::string::npos) << slurp(log);
  std::ofstream(dir / "eps0mat.h5") << "not HDF5\n";
  fs::create_directory_symlink(si() / "bgw-inputs", dir / "bgw-inputs");
  EXPECT_EQ(run_command(dir.path().string(), "bgw-inputs --eps0mat eps0mat.h5", log), 1) << slurp(log);
  EXPECT_NE(slurp(log).find("eps0mat.h5"), std::string::npos) << slurp(log);
}

}  // namespace

// Every epsilon and sigma keyword file of BerkeleyGW 3.0's testsuite (tests/data/bgw-testsuite-inputs, its README): each
// is read, or refused by an InputError that names the file, the line and the keyword (the first that quanta does not
// implement). The table is what quanta does today; a keyword newly implemented changes its row on purpose.
TEST(GwKeywords, BerkeleyGWTestsuiteInputsAreReadOrRefusedByName) {
  struct Case {
    const char* file;
    const char* refused;  // "" = read
    int line;
  };
  const Case cases[] = {
      {"AlAs-DFT__epsilon_gn.inp", "frequency_dependence", 1},
      {"AlAs-DFT__epsilon_hl.inp", "", 0},
      {"AlAs-DFT__epsilon_ra.inp", "", 0},
      {"BN__epsilon_NNS.inp", "cell_slab_truncation", 4},
      {"BN__epsilon_co.inp", "cell_slab_truncation", 4},
      {"BN__epsilon_csi.inp", "cell_slab_truncation", 4},
      {"Benzene-SAPO__epsilon.inp", "cell_box_truncation", 5},
      {"GaAs-EPM__eps_ff.inp", "eqp_corrections", 19},
      {"GaAs-EPM__eps_ff1_elements.inp", "delta_sfrequency", 18},
      {"GaAs-EPM__eps_ff1_elements_spinor.inp", "delta_sfrequency", 18},
      {"GaAs-EPM__eps_ff_elements.inp", "gcomm_elements", 19},
      {"GaAs-EPM__eps_ff_elements_spinor.inp", "gcomm_elements", 19},
      {"GaAs-EPM__eps_ff_parallel_freq.inp", "nfreq_group", 19},
      {"GaAs-EPM__eps_ff_parallel_freq_elements.inp", "gcomm_elements", 19},
      {"GaAs-EPM__eps_ff_parallel_freq_elements_spinor.inp", "gcomm_elements", 19},
      {"GaAs-EPM__eps_ff_parallel_freq_spinor.inp", "nfreq_group", 19},
      {"GaAs-EPM__eps_ff_spinor.inp", "eqp_corrections", 19},
      {"GaAs-EPM__eps_partial_occs.inp", "occ_broadening", 5},
      {"GaAs-EPM__epsilon.inp", "", 0},
      {"GaAs-EPM__epsilon_spinor.inp", "", 0},
      {"Graphene__epsilon.inp", "cell_slab_truncation", 5},
      {"Graphene__epsilon_0.inp", "cell_slab_truncation", 5},
      {"Graphene__epsilon_0_lineden.inp", "cell_slab_truncation", 5},
      {"Graphene__epsilon_0_lineden_ff_el.inp", "cell_slab_truncation", 5},
      {"Graphene__epsilon_0_lineden_ff_mat.inp", "cell_slab_truncation", 5},
      {"Si-EPM__eps_cd.inp", "", 0},
      {"Si-EPM__eps_cd_elements.inp", "gcomm_elements", 17},
      {"Si-EPM__eps_cd_parallel_freq.inp", "nfreq_group", 17},
      {"Si-EPM__eps_cd_parallel_freq_elements.inp", "gcomm_elements", 17},
      {"Si-EPM__eps_ff.inp", "", 0},
      {"Si-EPM__eps_ff1_elements.inp", "delta_sfrequency", 18},
      {"Si-EPM__eps_ff_elements.inp", "gcomm_elements", 19},
      {"Si-EPM__eps_ff_parallel_freq.inp", "nfreq_group", 19},
      {"Si-EPM__eps_ff_parallel_freq_elements.inp", "gcomm_elements", 19},
      {"Si-EPM__epsilon.inp", "", 0},
      {"Si-EPM_subspace__eps_cd_subspace.inp", "comm_nonblocking_cyclic", 19},
      {"Si-EPM_subspace__eps_cd_subspace_io.inp", "dont_use_hdf5", 20},
      {"Si-EPM_subspace__eps_cd_subspace_io_h5.inp", "comm_nonblocking_cyclic", 22},
      {"Si-Wire-EPM__eps_elements.inp", "cell_wire_truncation", 5},
      {"Si-Wire-EPM__eps_matrix.inp", "cell_wire_truncation", 5},
      {"Silane-PARATEC__eps_sphere.inp", "spherical_truncation", 10},
      {"Silane-PARATEC__epsilon.inp", "cell_box_truncation", 9},
      {"Silane-PARATEC__epsilon_core_excl.inp", "cell_box_truncation", 9},
      {"AlAs-DFT__sigma_gn.inp", "frequency_dependence", 1},
      {"AlAs-DFT__sigma_hl.inp", "", 0},
      {"AlAs-DFT__sigma_ra.inp", "", 0},
      {"BN__sigma.inp", "cell_slab_truncation", 1},
      {"GaAs-EPM__sig_COHSEX.inp", "frequency_dependence", 14},
      {"GaAs-EPM__sig_COHSEX_offdiag_spinor.inp", "frequency_dependence", 14},
      {"GaAs-EPM__sig_COHSEX_spinor.inp", "frequency_dependence", 14},
      {"GaAs-EPM__sig_GPP.inp", "exact_static_ch", 15},
      {"GaAs-EPM__sig_GPP_spinor.inp", "exact_static_ch", 14},
      {"GaAs-EPM__sig_HF.inp", "begin", 14},
      {"GaAs-EPM__sig_HF_spinor.inp", "begin", 14},
      {"GaAs-EPM__sig_ff.inp", "frequency_grid_shift", 17},
      {"GaAs-EPM__sig_ff_spinor.inp", "frequency_grid_shift", 17},
      {"Graphene__sigma.inp", "cell_slab_truncation", 6},
      {"Si-EPM__sig_COHSEX.inp", "frequency_dependence", 14},
      {"Si-EPM__sig_COHSEX_offdiag.inp", "frequency_dependence", 12},
      {"Si-EPM__sig_GPP.inp", "exact_static_ch", 15},
      {"Si-EPM__sig_HF.inp", "begin", 14},
      {"Si-EPM__sig_cd.inp", "exact_static_ch", 12},
      {"Si-EPM__sig_ff.inp", "exact_static_ch", 12},
      {"Si-EPM_subspace__sig_cd.inp", "exact_static_ch", 12},
      {"Si-EPM_subspace__sig_cd_readsub.inp", "exact_static_ch", 12},
      {"Si-EPM_subspace__sig_cd_readsub_dosub.inp", "exact_static_ch", 12},
      {"Si-EPM_subspace__sig_cd_readsub_dosub_h5.inp", "exact_static_ch", 12},
      {"Si-Wire-EPM__sig_COHSEX.inp", "cell_wire_truncation", 8},
      {"Si-Wire-EPM__sig_GPP.inp", "cell_wire_truncation", 8},
      {"Si-Wire-EPM__sig_GPP_avg.inp", "cell_wire_truncation", 8},
      {"Si-Wire-EPM__sig_GPP_ca.inp", "cell_wire_truncation", 8},
      {"Silane-PARATEC__sig_GPP.inp", "cell_box_truncation", 20},
      {"Silane-PARATEC__sig_GPP_core_excl.inp", "cell_box_truncation", 26},
  };
  const fs::path dir = quanta::test::data_path("gw/bgw-testsuite-inputs");
  int read = 0, refused = 0;
  for (const Case& c : cases) {
    const fs::path f = dir / c.file;
    const std::string name(c.file);
    const bool sigma = name.find("__sig_") != std::string::npos || name.find("__sigma") != std::string::npos;
    try {
      if (sigma) read_sigma_inp(f);
      else read_epsilon_inp(f);
      EXPECT_STREQ(c.refused, "") << c.file << " was read, expected a refusal of " << c.refused;
      ++read;
    } catch (const quanta::InputError& e) {
      const std::string what = e.what();
      EXPECT_STRNE(c.refused, "") << c.file << " refused: " << what;
      EXPECT_NE(what.find(f.string() + ":" + std::to_string(c.line) + ": " + c.refused + ":"), std::string::npos) << what;
      ++refused;
    }
  }
  std::printf("  BerkeleyGW's testsuite inputs: %d read, %d refused by name\n", read, refused);
  EXPECT_EQ(read + refused, static_cast<int>(std::size(cases)));
}

// Full frequency's two methods go together: Sigma's frequency_dependence_method must be Epsilon's (refused before
// Epsilon runs, naming both); the real-axis method is not held to contour deformation's residue reach (it extrapolates
// with a warning, as BerkeleyGW does).
TEST(GwEarlyChecks, FullFrequencyMethodsMustAgree) {
  const auto inner = read_wfn_header(mf("04-wfn_co/WFN_co"));
  auto ep = read_epsilon_inp(si() / "bgw-ff/epsilon.inp");
  auto sp = read_sigma_inp(si() / "bgw-ff/sigma.inp");
  EXPECT_NO_THROW(check_sigma_inputs("sigma.inp", sp, ep, inner));
  sp.ff_method = 0;
  expect_error<InputError>([&] { check_sigma_inputs("sigma.inp", sp, ep, inner); },
                           {"sigma.inp", "frequency_dependence_method 0", "contour deformation's (2)", "the same frequency_dependence_method"});
  ep.frequencies.method = 0;
  ep.frequencies.low_cutoff = 1.0;  // far short of contour deformation's reach: still accepted for the real axis
  EXPECT_NO_THROW(check_sigma_inputs("sigma.inp", sp, ep, inner));
  sp.ff_method = 2;
  expect_error<InputError>([&] { check_sigma_inputs("sigma.inp", sp, ep, inner); }, {"frequency_dependence_method 2", "real-axis method's (0)"});
}
