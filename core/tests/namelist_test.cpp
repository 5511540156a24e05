#include "quanta/core/io/namelist.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <future>
#include <random>
#include <string>

#include "test_support.hpp"

using quanta::InputError;
using quanta::io::Namelist;
using quanta::test::expect_error;
using namespace std::string_literals;

namespace {

// FourPhonon's silicon example CONTROL, verbatim (tabs and trailing commas included).
const char* const silicon_control = R"(&allocations
        nelements=1,
        natoms=2,
        ngrid(:)= 16 16 16
&end
&crystal
        lfactor=0.53711490774,
	lattvec(:,1)=-0.5 0.0 0.5,
        lattvec(:,2)=0.0 0.5 0.5,
        lattvec(:,3)=-0.5 0.5 0.0,
        elements="Si"
        types=1 1,
        positions(:,1)=0.00  0.00  0.00,
        positions(:,2)=0.25 0.25 0.25
	scell(:)=6 6 6
&end
&parameters
	T=300
        scalebroad=1
&end
&flags
        nonanalytic=.TRUE.
	convergence=.TRUE.
	espresso=.TRUE.
	isotopes=.FALSE.
	four_phonon=.TRUE.
&end
)";

// A polar-crystal style CONTROL: Born charges (rank 3), dielectric tensor, masses, temperature range.
const char* const polar_control = R"(&allocations
	nelements=1
	natoms=2
	ngrid(:)=12 12 12
&end
&crystal
	lfactor=0.1
	lattvec(:,1)=0.0 0.2715 0.2715
	lattvec(:,2)=0.2715 0.0 0.2715
	lattvec(:,3)=0.2715 0.2715 0.0
	elements="Si"
	types=1 1
	positions(:,1)=0.00 0.00 0.00
	positions(:,2)=0.25 0.25 0.25
	epsilon(:,1)=13.0 0 0
	epsilon(:,2)=0 13.0 0
	epsilon(:,3)=0 0 13.0
	born(:,1,1)= 2.0 0.0 0.0
	born(:,2,1)= 0.0 2.0 0.0
	born(:,3,1)= 0.0 0.0 2.0
	born(:,1,2)= -2.0 0.0 0.0
	born(:,2,2)= 0.0 -2.0 0.0
	born(:,3,2)= 0.0 0.0 -2.0
	masses=28.0855 
	scell(:)=5 5 5
&end
&parameters
	T_min=100 T_max=300 T_step=100
	scalebroad=0.5
&end
&flags
	nonanalytic=.TRUE.
	nanowires=.FALSE.
&end
)";

Namelist parse(const std::string& text) { return Namelist::parse_string(text, "CONTROL"); }

}  // namespace

TEST(Namelist, SiliconControlFromFourPhonon) {
  const Namelist nl = parse(silicon_control);
  ASSERT_EQ(nl.groups().size(), 4u);
  const auto& alloc = nl.group("allocations");
  EXPECT_EQ(alloc.get_int("nelements"), 1);
  EXPECT_EQ(alloc.get_int("natoms"), 2);
  EXPECT_EQ(alloc.get_ints("ngrid", {3}), (std::vector<long>{16, 16, 16}));

  const auto& crystal = nl.group("crystal");
  EXPECT_DOUBLE_EQ(crystal.get_real("lfactor"), 0.53711490774);
  EXPECT_EQ(crystal.get_reals("lattvec", {3, 3}),
            (std::vector<double>{-0.5, 0.0, 0.5, 0.0, 0.5, 0.5, -0.5, 0.5, 0.0}));
  EXPECT_EQ(crystal.get_strings("elements", 1), (std::vector<std::string>{"Si"}));
  EXPECT_EQ(crystal.get_ints("types", {2}), (std::vector<long>{1, 1}));
  EXPECT_EQ(crystal.get_reals("positions", {3, 2}), (std::vector<double>{0, 0, 0, 0.25, 0.25, 0.25}));
  EXPECT_EQ(crystal.get_ints("scell", {3}), (std::vector<long>{6, 6, 6}));
  EXPECT_EQ(crystal.assignments()[1].line, 8);  // the lattvec(:,1) line, indented with a tab

  const auto& params = nl.group("parameters");
  EXPECT_DOUBLE_EQ(params.get_real("T"), 300.0);
  EXPECT_DOUBLE_EQ(params.get_real("scalebroad"), 1.0);

  const auto& flags = nl.group("flags");
  EXPECT_TRUE(flags.get_bool("nonanalytic"));
  EXPECT_TRUE(flags.get_bool("convergence"));
  EXPECT_TRUE(flags.get_bool("espresso"));
  EXPECT_FALSE(flags.get_bool("isotopes"));
  EXPECT_TRUE(flags.get_bool("four_phonon"));
  EXPECT_FALSE(flags.get_bool_or("nanowires", false));
  EXPECT_NO_THROW(flags.reject_unknown({"nonanalytic", "convergence", "espresso", "isotopes", "four_phonon",
                                        "nanowires"}));
}

TEST(Namelist, BornChargesDielectricTensorMassesAndTemperatureRange) {
  const Namelist nl = parse(polar_control);
  const auto& crystal = nl.group("crystal");
  // born(3,3,natoms) in column-major order: born(i,j,atom) at i-1 + 3*(j-1) + 9*(atom-1).
  const std::vector<double> born = crystal.get_reals("born", {3, 3, 2});
  ASSERT_EQ(born.size(), 18u);
  EXPECT_EQ(born[0], 2.0);
  EXPECT_EQ(born[4], 2.0);
  EXPECT_EQ(born[8], 2.0);
  EXPECT_EQ(born[9], -2.0);
  EXPECT_EQ(born[13], -2.0);
  EXPECT_EQ(born[17], -2.0);
  EXPECT_EQ(born[1] + born[2] + born[3] + born[10], 0.0);
  EXPECT_EQ(crystal.get_reals("epsilon", {3, 3}), (std::vector<double>{13, 0, 0, 0, 13, 0, 0, 0, 13}));
  EXPECT_EQ(crystal.get_reals("masses", {1}), (std::vector<double>{28.0855}));

  const auto& params = nl.group("parameters");
  EXPECT_EQ(params.get_real("t_min"), 100.0);
  EXPECT_EQ(params.get_real("T_MAX"), 300.0);
  EXPECT_EQ(params.get_real("T_step"), 100.0);
  EXPECT_FALSE(params.has("T"));
  EXPECT_EQ(params.get_real_or("T", -1.0), -1.0);
  EXPECT_EQ(params.get_int_or("maxiter", 1000), 1000);
  EXPECT_EQ(params.assignments()[2].line, 28);
}

TEST(Namelist, RepeatCounts) {
  const Namelist nl = parse("&g\n x = 3*0.5 2*1.5\n names = 2*\"Si\" 'Ge'\n flags = 2*.true. F\n n=4*7\n/\n");
  const auto& g = nl.group("g");
  EXPECT_EQ(g.get_reals("x", {5}), (std::vector<double>{0.5, 0.5, 0.5, 1.5, 1.5}));
  EXPECT_EQ(g.get_strings("names", 3), (std::vector<std::string>{"Si", "Si", "Ge"}));
  EXPECT_EQ(g.get_bools("flags", {3}), (std::vector<bool>{true, true, false}));
  EXPECT_EQ(g.get_ints("n", {2, 2}), (std::vector<long>{7, 7, 7, 7}));
}

TEST(Namelist, SubscriptRangesAndSingleElements) {
  const Namelist nl = parse(
      "&g\n"
      " positions(1:3,2)= 0.25 0.5 0.75\n"
      " positions(2,1) = 9\n"
      " masses(2)=28.0855\n"
      " v(:2) = 1 2\n"
      " w(2:3) = 5\n"
      " m(2)= 28.1 29.0\n"
      "/\n");
  const auto& g = nl.group("g");
  EXPECT_EQ(g.get_reals("positions", {3, 2}, -1.0), (std::vector<double>{-1, 9, -1, 0.25, 0.5, 0.75}));
  EXPECT_EQ(g.get_reals("masses", {3}), (std::vector<double>{0.0, 28.0855, 0.0}));
  EXPECT_EQ(g.get_ints("v", {3}), (std::vector<long>{1, 2, 0}));
  EXPECT_EQ(g.get_ints("w", {4}), (std::vector<long>{0, 5, 0, 0}));  // fewer values than the section: the rest is kept
  // An array element followed by several values fills the elements after it, as gfortran reads it.
  EXPECT_EQ(g.get_reals("m", {4}), (std::vector<double>{0.0, 28.1, 29.0, 0.0}));
  EXPECT_EQ(g.assignments()[3].indices[0].hi, 2);
  EXPECT_TRUE(g.assignments()[0].indices.size() == 2 && !g.assignments()[0].indices[0].full);
}

TEST(Namelist, ValuesContinueOnFollowingLines) {
  const Namelist nl = parse(
      "&crystal\n"
      "  lattvec = 1.0 2.0 3.0\n"
      "            4.0 5.0 6.0,\n"
      "            7.0 8.0 9.0\n"
      "  types = 1,\n"
      "   2\n"
      "  natoms=2 nelements=1, lfactor\n"
      "  = 0.5\n"
      "&end\n");
  const auto& g = nl.group("crystal");
  EXPECT_EQ(g.get_reals("lattvec", {3, 3}), (std::vector<double>{1, 2, 3, 4, 5, 6, 7, 8, 9}));
  EXPECT_EQ(g.get_ints("types", {2}), (std::vector<long>{1, 2}));
  EXPECT_EQ(g.get_int("natoms"), 2);
  EXPECT_EQ(g.get_int("nelements"), 1);
  EXPECT_EQ(g.get_real("lfactor"), 0.5);
}

TEST(Namelist, GroupTerminatorsCommentsAndQuotes) {
  const Namelist nl = parse(
      "! a comment before the first group\n"
      "\n"
      "&one a=1 /\n"
      "$two\n"
      "  b = 2  ! trailing comment, with = and / in it\n"
      "$end\n"
      "&THREE\n"
      "  s = \"Si!not a comment\"  t='it''s'  u=\"a/b\"\n"
      "  elements=\"In\" \"As\"\n"
      "&END\n");
  ASSERT_EQ(nl.groups().size(), 3u);
  EXPECT_EQ(nl.group("one").get_int("a"), 1);
  EXPECT_EQ(nl.group("TWO").get_int("b"), 2);
  const auto& g = nl.group("three");
  EXPECT_EQ(g.get_string("s"), "Si!not a comment");
  EXPECT_EQ(g.get_string("t"), "it's");
  EXPECT_EQ(g.get_string("u"), "a/b");
  EXPECT_EQ(g.get_strings("elements", 2), (std::vector<std::string>{"In", "As"}));
  EXPECT_EQ(g.line(), 7);
  EXPECT_TRUE(nl.has_group("Three"));
  EXPECT_FALSE(nl.has_group("four"));
}

TEST(Namelist, LogicalAndRealSpellings) {
  const Namelist nl = parse(
      "&g\n"
      " l = .TRUE. .false. .t. .F. T F true FALSE\n"
      " r = 1.0d0 -2.5D-3 1e5 .5 300 +1.5E+2 -7. 2.0d+01\n"
      "/\n");
  const auto& g = nl.group("g");
  EXPECT_EQ(g.get_bools("l", {8}), (std::vector<bool>{true, false, true, false, true, false, true, false}));
  EXPECT_EQ(g.get_reals("r", {8}), (std::vector<double>{1.0, -2.5e-3, 1e5, 0.5, 300.0, 150.0, -7.0, 20.0}));
}

TEST(Namelist, LastScalarAssignmentWinsAndArraySectionsAccumulate) {
  const Namelist nl = parse("&g\n n = 1\n ngrid(:) = 4 4 4\n n = 3\n ngrid(3) = 8\n/\n");
  const auto& g = nl.group("g");
  EXPECT_EQ(g.get_int("n"), 3);
  EXPECT_EQ(g.get_ints("ngrid", {3}), (std::vector<long>{4, 4, 8}));
}

TEST(Namelist, ParsesAFile) {
  quanta::test::TempDir dir;
  const std::string path = dir.write("CONTROL", silicon_control);
  const Namelist nl = Namelist::parse_file(path);
  EXPECT_EQ(nl.file(), path);
  EXPECT_EQ(nl.group("crystal").file(), path);
  EXPECT_EQ(nl.group("allocations").get_int("natoms"), 2);
  expect_error<InputError>([&] { Namelist::parse_file((dir / "missing").string()); }, {"missing", "not found"});
}

// Every malformed input is an InputError naming the file, the line and the variable.
TEST(NamelistErrors, UnterminatedGroup) {
  expect_error<InputError>([] { parse("&allocations\n natoms=2\n"); }, {"CONTROL:1:", "allocations", "end of the file"});
  expect_error<InputError>([] { parse("&allocations\n natoms=2\n&crystal\n&end\n"); },
                           {"CONTROL:3:", "allocations", "crystal", "line 1"});
}

TEST(NamelistErrors, TextOutsideAGroup) {
  expect_error<InputError>([] { parse("natoms=2\n&g\n/\n"); }, {"CONTROL:1:", "natoms", "outside a group"});
  expect_error<InputError>([] { parse("&g\n/\n\n junk\n"); }, {"CONTROL:4:", "junk", "outside a group"});
}

TEST(NamelistErrors, MissingEquals) {
  expect_error<InputError>([] { parse("&allocations\n natoms 2\n&end\n"); }, {"CONTROL:2:", "natoms", "'='"});
  expect_error<InputError>([] { parse("&allocations\n nelements=1,\n natoms 2\n&end\n"); },
                           {"CONTROL:3:", "natoms", "'='"});
  expect_error<InputError>([] { parse("&g\n = 2\n/\n"); }, {"CONTROL:2:", "'='"});
}

TEST(NamelistErrors, UnterminatedString) {
  expect_error<InputError>([] { parse("&crystal\n types=1\n elements=\"Si\n&end\n"); },
                           {"CONTROL:3:", "elements", "not closed"});
}

TEST(NamelistErrors, BadSubscript) {
  expect_error<InputError>([] { parse("&g\n lattvec(:,x)=1 2 3\n/\n"); }, {"CONTROL:2:", "lattvec", "(:,x)"});
  expect_error<InputError>([] { parse("&g\n lattvec(3:1)=1\n/\n"); }, {"CONTROL:2:", "lattvec", "(3:1)"});
  expect_error<InputError>([] { parse("&g\n lattvec(1:3:2)=1\n/\n"); }, {"CONTROL:2:", "lattvec"});
  expect_error<InputError>([] { parse("&g\n lattvec(,1)=1\n/\n"); }, {"CONTROL:2:", "lattvec"});
  expect_error<InputError>([] { parse("&g\n a=1\n lattvec(:,1=1\n/\n"); }, {"CONTROL:3:", "lattvec", "')'"});
  expect_error<InputError>([] { parse("&g\n a=1)\n/\n"); }, {"CONTROL:2:", "')'"});
}

TEST(NamelistErrors, SubscriptOutOfRangeOrOfWrongRank) {
  const Namelist nl = parse("&g\n x=1\n lattvec(:,4)=1 2 3\n/\n&h\n\n born(:,1)=1 2 3\n/\n&k\n v(0)=1\n/\n");
  expect_error<InputError>([&] { nl.group("g").get_reals("lattvec", {3, 3}); },
                           {"CONTROL:3:", "lattvec(:,4)", "out of range", "1 to 3"});
  expect_error<InputError>([&] { nl.group("h").get_reals("born", {3, 3, 2}); },
                           {"CONTROL:7:", "born(:,1)", "2 subscripts", "3"});
  expect_error<InputError>([&] { nl.group("k").get_reals("v", {3}); }, {"CONTROL:10:", "v(0)", "out of range"});
}

TEST(NamelistErrors, TooManyValues) {
  const Namelist nl = parse("&g\n ngrid(:)=16 16 16 16\n natoms=1 2\n lattvec(:,1)=1 2 3 4\n masses(2)=1 2 3\n/\n");
  const auto& g = nl.group("g");
  expect_error<InputError>([&] { g.get_ints("ngrid", {3}); }, {"CONTROL:2:", "ngrid", "4 values", "at most 3"});
  expect_error<InputError>([&] { g.get_int("natoms"); }, {"CONTROL:3:", "natoms", "2 values", "one value"});
  expect_error<InputError>([&] { g.get_reals("lattvec", {3, 3}); }, {"CONTROL:4:", "lattvec", "at most 3"});
  expect_error<InputError>([&] { g.get_reals("masses", {3}); }, {"CONTROL:5:", "masses", "at most 2"});
}

TEST(NamelistErrors, ValueOfTheWrongType) {
  const Namelist nl = parse("&g\n natoms=two\n lfactor=0.5x\n flag=yes\n n=\"2\"\n ngrid=1 2 2.5\n x=1.0d\n/\n");
  const auto& g = nl.group("g");
  expect_error<InputError>([&] { g.get_int("natoms"); }, {"CONTROL:2:", "natoms", "'two'", "an integer"});
  expect_error<InputError>([&] { g.get_real("lfactor"); }, {"CONTROL:3:", "lfactor", "'0.5x'", "a real number"});
  expect_error<InputError>([&] { g.get_bool("flag"); }, {"CONTROL:4:", "flag", "'yes'", "logical"});
  expect_error<InputError>([&] { g.get_int("n"); }, {"CONTROL:5:", "n", "\"2\"", "an integer"});
  expect_error<InputError>([&] { g.get_ints("ngrid", {3}); }, {"CONTROL:6:", "ngrid", "'2.5'", "an integer"});
  expect_error<InputError>([&] { g.get_real("x"); }, {"CONTROL:7:", "x", "'1.0d'"});
}

TEST(NamelistErrors, VariableOrGroupNotFound) {
  const Namelist nl = parse("\n&allocations\n nelements=1\n/\n");
  expect_error<InputError>([&] { nl.group("allocations").get_int("natoms"); },
                           {"CONTROL:2:", "natoms", "&allocations"});
  expect_error<InputError>([&] { nl.group("allocations").get_string("elements"); }, {"elements", "&allocations"});
  expect_error<InputError>([&] { nl.group("crystal"); }, {"CONTROL", "&crystal", "&allocations"});
}

TEST(NamelistErrors, UnknownVariable) {
  const Namelist nl = parse("&allocations\n nelements=1\n natom=2\n/\n");
  expect_error<InputError>([&] { nl.group("allocations").reject_unknown({"nelements", "natoms", "ngrid"}); },
                           {"CONTROL:3:", "natom", "unknown", "&allocations", "nelements, natoms, ngrid"});
}

TEST(NamelistErrors, RepeatCountWithoutValue) {
  expect_error<InputError>([] { parse("&g\n a=1\n x = 3*\n/\n"); }, {"CONTROL:3:", "x", "3*"});
  expect_error<InputError>([] { parse("&g\n x = 0*1\n/\n"); }, {"CONTROL:2:", "x", "0*1"});
  expect_error<InputError>([] { parse("&g\n x = 2*\n/\n"); }, {"CONTROL:2:", "x", "repeat count"});
}

// Bytes that are not namelist text end with an InputError naming the line; none of them may hang the lexer
// (a NUL after a group name once looped forever, taking memory). Each parse runs under a deadline.
namespace {
void expect_terminates_with_error(const std::string& text, const std::vector<std::string>& pieces) {
  auto parsed = std::async(std::launch::async, [text] {
    try {
      Namelist::parse_string(text, "CONTROL");
      return std::string("no error");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
  });
  if (parsed.wait_for(std::chrono::seconds(10)) != std::future_status::ready) {
    ADD_FAILURE() << "the lexer did not finish within 10 s on a " << text.size() << "-byte input";
    std::_Exit(1);  // the parse thread cannot be stopped; end the test binary instead of hanging CTest
  }
  const std::string msg = parsed.get();
  for (const auto& p : pieces) EXPECT_NE(msg.find(p), std::string::npos) << "message: " << msg << "\nlacks: " << p;
}
}  // namespace

TEST(NamelistErrors, ControlBytesEndWithAnErrorNamingTheLine) {
  expect_terminates_with_error("&allocations\n\0"s, {"CONTROL:2:", "0x00"});
  expect_terminates_with_error("\0"s, {"CONTROL:1:", "0x00"});
  expect_terminates_with_error("&g\n x = 1\0 2\n/\n"s, {"CONTROL:2:", "x", "0x00"});
  expect_terminates_with_error("&g\n\n x = \x01\n/\n"s, {"CONTROL:3:", "0x01"});
  expect_terminates_with_error("&g x=1 \x7f /\n"s, {"CONTROL:1:", "0x7F"});
  expect_terminates_with_error("&\0"s, {"CONTROL:1:", "group name"});
  expect_terminates_with_error("&g\n x(\0)=1\n/\n"s, {"CONTROL:2:", "x"});
}

TEST(NamelistErrors, ArbitraryBytesAlwaysTerminate) {
  // Short random strings over the characters the lexer treats specially, plus NUL and high bytes: each
  // must parse or throw InputError, within the deadline.
  const std::string alphabet = "&$/=(),!'\"*:.\n \t\r\x01\x7f\xff" "abcTF019"s;
  std::mt19937 rng(20);
  for (int k = 0; k < 3000; ++k) {
    std::string text;
    const int n = static_cast<int>(rng() % 24);
    for (int i = 0; i < n; ++i) text += alphabet[rng() % alphabet.size()];
    if (rng() % 4 == 0) text.insert(text.begin() + static_cast<long>(rng() % (text.size() + 1)), '\0');
    auto parsed = std::async(std::launch::async, [text] {
      try {
        Namelist::parse_string(text, "CONTROL");
      } catch (const InputError&) {
      }
    });
    if (parsed.wait_for(std::chrono::seconds(10)) != std::future_status::ready) {
      ADD_FAILURE() << "the lexer did not finish on random input " << k;
      std::_Exit(1);
    }
    parsed.get();  // anything but InputError propagates and fails the test
  }
}

// A key repeated in a group: the last value wins, as in Fortran, with a warning naming the key and both
// lines (an edited CONTROL with T=300 left above a later T=400 otherwise runs at 400 K silently).
TEST(Namelist, RepeatedKeyWarnsWithBothLinesAndTheLastWins) {
  ::testing::internal::CaptureStderr();
  const Namelist nl = parse("&parameters\n T=300\n scalebroad=1\n T=400\n ngrid(:)=4 4 4\n ngrid(3)=8\n/\n");
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(nl.group("parameters").get_real("T"), 400.0);
  EXPECT_NE(err.find("warning"), std::string::npos) << err;
  EXPECT_NE(err.find("CONTROL:4: &parameters t is set at line 2 and again at line 4"), std::string::npos) << err;
  EXPECT_EQ(err.find("ngrid"), std::string::npos) << "a section of an array is not a repeat: " << err;
  ::testing::internal::CaptureStderr();
  parse("&g\n lattvec(:,1)=1 0 0\n lattvec(:,2)=0 1 0\n lattvec(:,1)=2 0 0\n/\n");
  const std::string err2 = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(err2.find("lattvec is set at line 2 and again at line 4"), std::string::npos) << err2;
}

// Repeat counts kept values as text: "40000000*0" took gigabytes. A file holds at most 2e6 values.
TEST(NamelistErrors, RepeatCountsCannotExhaustMemory) {
  quanta::test::expect_error<quanta::InputError>(
      [] { quanta::io::Namelist::parse_string("&allocations\n ngrid(:)=4 40000000*0\n&end\n", "CONTROL"); },
      {"CONTROL", "ngrid"});
  quanta::test::expect_error<quanta::InputError>(
      [] {
        std::string text = "&a\n";
        for (int i = 0; i < 3; ++i) text += " x" + std::to_string(i) + " = 900000*1.0\n";
        quanta::io::Namelist::parse_string(text + "&end\n", "CONTROL");
      },
      {"CONTROL:4", "more than 2000000 values in the file"});
  EXPECT_NO_THROW(quanta::io::Namelist::parse_string("&a\n x = 1000*0.5\n&end\n", "CONTROL"));
}
