// Force-constant readers: a size or a coordinate from the file that cannot be right is refused with the file, line
// and field before it is allocated or cast (the fuzzers' reproducers, written out here).
#include <functional>
#include <string>

#include "quanta/core/error.hpp"
#include "quanta/phonon/force_constants.hpp"
#include "test_support.hpp"

namespace quanta::phonon::test {
namespace {

std::string error_of(const std::function<void()>& read) {
  try {
    read();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

void expect_words(const std::string& msg, const std::vector<std::string>& words) {
  EXPECT_FALSE(msg.empty()) << "accepted";
  for (const auto& w : words) EXPECT_NE(msg.find(w), std::string::npos) << "'" << msg << "' lacks '" << w << "'";
}

// One FORCE_CONSTANTS_3RD triplet of silicon's CONTROL, in the fewest bytes the format allows: `index`, the second
// atom's cell vector `rj` (A), the third's at the origin, atoms 1 1 1 and 27 zero constants.
std::string triplet(int index, const std::string& rj) {
  std::string t = std::to_string(index) + "\n" + rj + "\n0 0 0\n1 1 1\n";
  for (int a = 1; a <= 3; ++a)
    for (int b = 1; b <= 3; ++b)
      for (int c = 1; c <= 3; ++c) t += std::to_string(a) + " " + std::to_string(b) + " " + std::to_string(c) + " 0\n";
  return t;
}

std::string read_fc3_error(const std::string& text) {
  TempDir d;
  write_text(d.path / "FORCE_CONSTANTS_3RD", text);
  const Control c = si_control();
  return error_of([&] { (void)read_fc3(d.path / "FORCE_CONSTANTS_3RD", c); });
}

TEST(Fc3Limits, CompactFileAtTheByteBoundIsRead) {
  TempDir d;
  // A lattice vector of silicon (lfactor 0.537 nm, lattvec(:,2) = (0, 0.5, 0.5)): (0, 2.6856, 2.6856) A.
  write_text(d.path / "FORCE_CONSTANTS_3RD", "2\n" + triplet(1, "0 0 0") + triplet(2, "0 2.6855745387 2.6855745387"));
  const ThirdOrderFc fc = read_fc3(d.path / "FORCE_CONSTANTS_3RD", si_control());
  ASSERT_EQ(fc.triplets.size(), 2u);
  EXPECT_EQ(fc.triplets[1].cell_j[1], 1);
}

// The fuzzer's cell vector of -1.65e80 A: rounding it is exact, so the lattice check passed and the cast to int was
// undefined. 10^5 A (about 18600 lattice vectors) fits an int but is no thirdorder.py cell either.
TEST(Fc3Limits, CellVectorFarOutsideAnySupercellIsRefusedBeforeTheCast) {
  for (const std::string rj : {"-1.65e80 0 0", "0 0 1e5", "1e300 1e300 1e300"}) {
    const std::string msg = read_fc3_error("1\n" + triplet(1, rj));
    expect_words(msg, {"FORCE_CONSTANTS_3RD:3: cell vector of the second atom (A)", "found fractional coordinates",
                       "components of at most 10000"});
  }
}

// The fuzzer's header count of 10^8 triplets above one triplet: it sized the triplet table (25 GB) before any was read.
TEST(Fc3Limits, TripletCountBeyondWhatTheFileHoldsIsRefusedBeforeAllocating) {
  const std::string msg = read_fc3_error("100000000\n" + triplet(1, "0 0 0"));
  expect_words(msg, {"FORCE_CONSTANTS_3RD:1: number of triplets: found 100000000", "at most 1 triplets", "bytes"});
}

// espresso.ifc2 and FORCE_CONSTANTS_2ND take their table sizes from CONTROL (nat, scell); a file that stops after its
// header is refused as too short for them before the tables are allocated.
TEST(FcLimits, Espresso2ShorterThanItsBlocksIsRefusedBeforeAllocating) {
  TempDir d;
  write_text(d.path / "espresso.ifc2",
             "  1    2  2 10.1500000  0.0000000  0.0000000  0.0000000  0.0000000  0.0000000\n"
             "           1  'Si '    25598.8229845270\n"
             "    1    1      0.0000000      0.0000000      0.0000000\n"
             "    2    1      0.2500000      0.2500000      0.2500000\n"
             " F\n"
             "   6   6   6\n");
  const Control c = si_control();
  const std::string msg = error_of([&] { (void)read_espresso_ifc2(d.path / "espresso.ifc2", c); });
  expect_words(msg, {"espresso.ifc2:", "force-constant blocks: found a file of", "36 blocks of 216 cells", "bytes"});
}

TEST(FcLimits, Phonopy2ShorterThanItsBlocksIsRefusedBeforeAllocating) {
  TempDir d;
  write_text(d.path / "FORCE_CONSTANTS_2ND", "432\n1 1\n1 0 0\n0 1 0\n0 0 1\n");
  const Control c = si_control();
  const std::string msg = error_of([&] { (void)read_phonopy_fc2(d.path / "FORCE_CONSTANTS_2ND", c); });
  expect_words(msg, {"FORCE_CONSTANTS_2ND:", "force-constant blocks: found a file of", "186624 blocks", "bytes"});
}

}  // namespace
}  // namespace quanta::phonon::test
