// The TROVE input reader keyword by keyword: each value TROVE's reader takes is taken with TROVE's meaning
// (fields.f90, FLinput), each value that could only give an empty or wrong line list is refused when read
// with its valid range, an unknown keyword is refused by name, and a repeated keyword is reported.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "../../../core/tests/test_support.hpp"
#include "quanta/linelist/input.hpp"

using namespace quanta::linelist;
using quanta::test::expect_error;

namespace {

// A TROVE input around `intensity` (the INTENSITY block's lines) and `before` (lines ahead of it).
struct Input {
  quanta::test::TempDir dir;
  std::string path;
  explicit Input(const std::string& intensity, const std::string& before = "") {
    path = dir.write("x.inp", "mem 8 gb\nSYMGROUP C2v(M)\n" + before + "INTENSITY\n  absorption\n  TEMPERATURE 500.0\n  GNS 1.0 1.0 3.0 3.0\n" +
                                  intensity + "END\n");
  }
  IntensityInput read() const { return read_trove_input(path); }
};

// The INTENSITY block's lines 4, 5, 6 are absorption, TEMPERATURE, GNS; the one given is line 7.
void expect_refused(const std::string& line, const std::vector<std::string>& pieces) {
  Input in(line + "\n  J, 0, 2\n");
  std::vector<std::string> all{"x.inp:7"};
  all.insert(all.end(), pieces.begin(), pieces.end());
  expect_error<quanta::InputError>([&] { in.read(); }, all);
}

}  // namespace

TEST(LinelistInput, ReadsTrovesKeywords) {
  Input in("  THRESH_INTES 1d-30\n  THRESH_LINE 1e-20\n  THRESH_COEFF 1e-14\n  QSTAT 1000\n  ZPE 4000.5\n  selection (rules) 1 1 2 2\n"
           "  J, 1, 3\n  freq-window 0, 8000\n  energy low -0.001, 9000, upper 0, 20000\n  exomol\n  linelist SiH2_J1-3\n");
  const IntensityInput r = in.read();
  EXPECT_EQ(r.symgroup, "C2v(M)");
  EXPECT_EQ(r.mem_bytes, std::size_t(8) << 30);
  EXPECT_DOUBLE_EQ(r.thresh_intens, 1e-30);
  EXPECT_DOUBLE_EQ(r.thresh_line, 1e-20);
  EXPECT_DOUBLE_EQ(r.thresh_coeff, 1e-14);
  EXPECT_DOUBLE_EQ(r.temperature, 500);
  EXPECT_DOUBLE_EQ(r.qstat, 1000);
  EXPECT_TRUE(r.have_zpe);
  EXPECT_DOUBLE_EQ(r.zpe, 4000.5);
  EXPECT_EQ(r.gns, (std::vector<double>{1, 1, 3, 3}));
  EXPECT_EQ(r.selection, (std::vector<int>{1, 1, 2, 2}));
  EXPECT_EQ(r.jmin, 1);
  EXPECT_EQ(r.jmax, 3);
  EXPECT_DOUBLE_EQ(r.freq.max, 8000);
  EXPECT_DOUBLE_EQ(r.lower.min, -0.001);
  EXPECT_DOUBLE_EQ(r.lower.max, 9000);
  EXPECT_DOUBLE_EQ(r.upper.max, 20000);
  EXPECT_EQ(r.linelist_name, "SiH2_J1-3");
  EXPECT_TRUE(r.absorption);
  // TROVE's other spellings.
  const IntensityInput s = Input("  PARTITION 7\n  J 0 1\n  NU 1, 2\n  energy l 1, 2, u 3, 4\n  THRESH_LINESTRENGTH 0.5\n").read();
  EXPECT_DOUBLE_EQ(s.qstat, 7);
  EXPECT_DOUBLE_EQ(s.freq.min, 1);
  EXPECT_DOUBLE_EQ(s.lower.max, 2);
  EXPECT_DOUBLE_EQ(s.upper.min, 3);
  EXPECT_DOUBLE_EQ(s.thresh_line, 0.5);
  EXPECT_EQ(s.qstat > 0, true);
}

// Values that gave an empty line list (or a silently different one) with exit 0 are refused with the range.
TEST(LinelistInput, RefusesValuesOutOfRange) {
  expect_refused("  TEMPERATURE NaN", {"TEMPERATURE", "'NaN'", "a finite number"});
  expect_refused("  TEMPERATURE -5", {"TEMPERATURE", "-5", "> 0 K"});
  expect_refused("  QSTAT NaN", {"QSTAT", "'NaN'", "a finite number"});
  expect_refused("  QSTAT inf", {"QSTAT", "'inf'", "a finite number"});
  expect_refused("  QSTAT -1000", {"QSTAT", "-1000", "a partition function > 0"});
  expect_refused("  QSTAT 0", {"QSTAT", "found 0", "a partition function > 0"});
  expect_refused("  freq-window 10000, 0", {"freq-window", "10000, 0", "lower end <= upper end"});
  expect_refused("  energy low 100, 10", {"energy low", "100, 10", "lower end <= upper end"});
  expect_refused("  energy low 0, 10, upper 5, 1", {"energy upper", "5, 1", "lower end <= upper end"});
  expect_refused("  energy sideways 0, 1", {"energy", "'sideways'", "'low a, b'"});
  expect_refused("  THRESH_COEFF 1e10", {"THRESH_COEFF", "1e10", "0 <= THRESH_COEFF < 1"});
  expect_refused("  THRESH_COEFF 1", {"THRESH_COEFF", "0 <= THRESH_COEFF < 1"});
  expect_refused("  THRESH_COEFF -1e-14", {"THRESH_COEFF", "0 <= THRESH_COEFF < 1"});
  expect_refused("  THRESH_INTES -1", {"THRESH_INTES", "an intensity >= 0"});
  expect_refused("  THRESH_LINE nan", {"THRESH_LINE", "a finite number"});
  expect_refused("  GNS 1.0 -1.0 3.0 3.0", {"GNS (entry 2)", "-1.0", "a weight >= 0"});
  expect_refused("  GNS 1.0 nan 3.0 3.0", {"GNS (entry 2)", "'nan'", "a finite number"});
  expect_refused("  GNS 0 0 0 0", {"GNS", "only zeros", "at least one weight > 0"});
  expect_refused("  ZPE inf", {"ZPE", "a finite number"});
  expect_refused("  selection 1 1.5 2 2", {"selection", "'1.5'", "an integer"});
  expect_refused("  linelist out/SiH2", {"linelist", "'out/SiH2'", "without '/'"});
  // TROVE's other actions and keywords quanta does not implement: refused by name, with what quanta supports.
  expect_refused("  emission", {"'emission'", "absorption"});
  expect_refused("  OUTPUT SHORT", {"keyword 'OUTPUT'", "THRESH_INTES", "freq-window", "exomol"});
  expect_refused("  PRUNING", {"keyword 'PRUNING'", "one of absorption", "states-only"});
  expect_refused("  SELECTION-RULES 1 1 2 2", {"keyword 'SELECTION-RULES'"});
}

// Without a J range, or with J = 0 only, the line list would be empty: refused.
TEST(LinelistInput, RefusesAMissingOrEmptyJRange) {
  expect_error<quanta::InputError>([] { Input("").read(); }, {"x.inp:3", "J", "found nothing", "Jmax >= 1"});
  expect_error<quanta::InputError>([] { Input("  J 0 0\n").read(); }, {"x.inp:7", "J", "0, 0", "Jmax >= 1"});
  expect_error<quanta::InputError>([] { Input("  J 2 1\n").read(); }, {"x.inp:7", "0 <= Jmin <= Jmax"});
}

// TROVE's intensity step may give its J range in the CONTROL block (step 4); the INTENSITY block's J is then
// ignored, as TROVE ignores it. J of another step (3: the eigenfunctions of one J) is not the intensity range.
TEST(LinelistInput, JOfTheControlBlock) {
  const IntensityInput a = Input("", "CONTROL\n  step 4\n  J, 1, 4\nEND\n").read();
  EXPECT_EQ(a.jmin, 1);
  EXPECT_EQ(a.jmax, 4);
  testing::internal::CaptureStderr();
  const IntensityInput b = Input("  J, 0, 2\n", "CONTROL\n  step intensity\n  J, 1, 4\nEND\n").read();
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(b.jmin, 1);
  EXPECT_EQ(b.jmax, 4);
  EXPECT_NE(err.find("J on line 11 is ignored: line 5 already set J = 1..4"), std::string::npos) << err;
  expect_error<quanta::InputError>([] { Input("", "CONTROL\n  step 3\n  J, 2\nEND\n").read(); }, {"J", "found nothing"});
  const IntensityInput c = Input("  J, 0, 2\n", "CONTROL\n  step 3\n  J, 2\nEND\n").read();
  EXPECT_EQ(c.jmax, 2);
}

// A repeated keyword: the last value is used, as TROVE does, and the user is told both lines.
TEST(LinelistInput, RepeatedKeywordWarnsAndLastWins) {
  testing::internal::CaptureStderr();
  const IntensityInput r = Input("  TEMPERATURE 296\n  J 0 2\n  QSTAT 10\n  QSTAT 20\n").read();
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_DOUBLE_EQ(r.temperature, 296);
  EXPECT_DOUBLE_EQ(r.qstat, 20);
  EXPECT_NE(err.find("x.inp: TEMPERATURE is given on line 5 and again on line 7; the value of line 7 is used"), std::string::npos) << err;
  EXPECT_NE(err.find("QSTAT is given on line 9 and again on line 10"), std::string::npos) << err;
  // TROVE's J: the first range read stays (its reader takes J only while none is set).
  testing::internal::CaptureStderr();
  const IntensityInput j = Input("  J 0 2\n  J 1 3\n").read();
  const std::string jerr = testing::internal::GetCapturedStderr();
  EXPECT_EQ(j.jmax, 2);
  EXPECT_NE(jerr.find("J on line 8 is ignored"), std::string::npos) << jerr;
}

// TROVE's memory keyword: its units, a size > 0 and a unit required (TROVE refuses a missing one).
TEST(LinelistInput, MemoryKeyword) {
  quanta::test::TempDir dir;
  auto with_mem = [&](const std::string& mem) {
    return dir.write("m.inp", mem + "\nSYMGROUP C2v(M)\nINTENSITY\n  TEMPERATURE 500\n  GNS 1 1 3 3\n  J 0 1\nEND\n");
  };
  EXPECT_EQ(read_trove_input(with_mem("mem 512 mb")).mem_bytes, std::size_t(512) << 20);
  EXPECT_EQ(read_trove_input(with_mem("MEMORY 2 T")).mem_bytes, std::size_t(2) << 40);
  EXPECT_EQ(read_trove_input(with_mem("mem 64 kb")).mem_bytes, std::size_t(64) << 10);
  expect_error<quanta::InputError>([&] { read_trove_input(with_mem("mem 8")); }, {"m.inp:1", "mem", "no unit", "TB, GB, MB, KB or B"});
  expect_error<quanta::InputError>([&] { read_trove_input(with_mem("mem 8 parsecs")); }, {"m.inp:1", "'parsecs'"});
  expect_error<quanta::InputError>([&] { read_trove_input(with_mem("mem -8 gb")); }, {"m.inp:1", "a memory size > 0"});
  expect_error<quanta::InputError>([&] { read_trove_input(with_mem("mem nan gb")); }, {"m.inp:1", "a finite number"});
}

// The input file itself: missing, or a folder, is named as such.
TEST(LinelistInput, InputFileMissingOrAFolder) {
  quanta::test::TempDir dir;
  expect_error<quanta::InputError>([&] { read_trove_input(dir / "absent.inp"); }, {"absent.inp", "not found"});
  expect_error<quanta::InputError>([&] { read_trove_input(dir.path()); }, {dir.path().string(), "directory"});
}

// THRESH_LEADING_COEFF, FACTOR, NCACHE and INCREMENT: read as TROVE reads them (their value checked), then without
// effect, as in TROVE's intensity step; STATES-ONLY and GAIN set their switches.
TEST(LinelistInput, KeywordsTrovesIntensityStepReadsButDoesNotUse) {
  Input in("  THRESH_LEADING_COEFF 0.1\n  FACTOR 2.0\n  NCACHE 1000\n  INCREMENT 5\n  QUANTA 1 lower 0 2 upper 0 3\n  states-only\n  GAIN\n  J, 0, 2\n");
  const IntensityInput r = in.read();
  EXPECT_TRUE(r.states_only);
  EXPECT_TRUE(r.gain);
  EXPECT_EQ(r.jmax, 2);
  expect_refused("  NCACHE lots", {"NCACHE", "'lots'"});
  expect_refused("  FACTOR NaN", {"FACTOR", "'NaN'", "a finite number"});
  expect_refused("  QUANTA 1 sideways 0 2", {"QUANTA", "'sideways'", "lower a, b"});
  expect_refused("  V 2 upper 0", {"QUANTA upper", "a number"});
}

// TROVE's linear triatomics (its N2O input): "SYMGROUP Csn N" takes N as its third item, and Natoms 3 with a singular
// bending basis (laguerre-k, legendre, ...) in the BASIS block, or SINGULAR-AXIS, makes TROVE count the ExoMol IDs of
// a linear molecule's basis; other groups ignore a third item, as TROVE does.
TEST(LinelistInput, LinearTriatomicGroupAndBasis) {
  quanta::test::TempDir dir;
  const std::string intensity = "INTENSITY\n  absorption\n  TEMPERATURE 296.0\n  GNS 9.0 9.0\n  J, 0, 2\nEND\n";
  const std::string basis =
      "BASIS\n  0,'JKtau', Jrot 0, krot  4\n  1,'numerov','rational', 'morse',  range 0,8, r 8, resc 1.0, points   1000\n"
      "  3,'laguerre-k','linear','linear', range 0,8, r 8, resc 1.0, points   2000, borders  0.,120.0 deg\nEND\n";
  auto read = [&](const std::string& text) { return read_trove_input(dir.write("n2o.inp", text)); };
  IntensityInput in = read("Natoms 3      (Number of atoms)\nSYMGROUP Csn 4\n" + basis + intensity);
  EXPECT_EQ(in.symgroup, "Csn 4");
  EXPECT_TRUE(in.linear_basis);
  in = read("Natoms 3\nSYMGROUP CSN(M) 12 (l max)\n" + basis + intensity);
  EXPECT_EQ(in.symgroup, "CSN(M) 12");
  in = read("Natoms 3\nSYMGROUP Csn\n" + intensity);
  EXPECT_EQ(in.symgroup, "Csn");
  EXPECT_FALSE(in.linear_basis);  // no singular basis
  in = read("Natoms 4\nSYMGROUP C2v(M) 3\n" + basis + intensity);
  EXPECT_EQ(in.symgroup, "C2v(M)");
  EXPECT_FALSE(in.linear_basis);  // TROVE's rule is for triatomics
  in = read("Natoms 3\nSINGULAR-AXIS 3\nSYMGROUP Cs(M)\n" + intensity);
  EXPECT_TRUE(in.linear_basis);
  expect_error<quanta::InputError>([&] { read("Natoms 3\nSYMGROUP Csn four\n" + intensity); }, {"n2o.inp:2", "SYMGROUP Csn N", "four"});
}
