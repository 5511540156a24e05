// FORCE_CONSTANTS_4TH (io/fc4.cpp) on Fourthorder.py's file for Stillinger-Weber silicon (tests/data/si-sw-4ph),
// then that file with one thing broken at a time: each refusal names the file, the line and the field.
#include <string>
#include <vector>

#include "../../../core/tests/test_support.hpp"
#include "quanta/core/error.hpp"
#include "quanta/phonon/force_constants.hpp"
#include "test_support.hpp"

namespace quanta::phonon::test {
namespace {

std::filesystem::path sw_silicon(const std::string& file) { return quanta::test::data_path("phonon/si-sw-4ph/" + file); }

const Control& sw_control() {
  static const Control c = read_control(sw_silicon("CONTROL"));
  return c;
}

const std::string& sw_fc4_text() {
  static const std::string t = read_text(sw_silicon("FORCE_CONSTANTS_4TH"));
  return t;
}

// `text` with the first occurrence of `from` replaced by `to`.
std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << "'" << from << "' not in the text";
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

// `text` as the FORCE_CONSTANTS_4TH of `control` must be refused with a message holding each of `words`.
void expect_refused(const std::string& text, const std::vector<std::string>& words, const Control& control = sw_control()) {
  TempDir d;
  write_text(d.path / "FORCE_CONSTANTS_4TH", text);
  quanta::test::expect_error<InputError>([&] { (void)read_fc4(d.path / "FORCE_CONSTANTS_4TH", control); }, words);
}

// The layout of the silicon file: line 1 the count, quadruplet 1 on lines 3 (index) to 88, quadruplet 2 on 90 to 175,
// quadruplet 3 from 177 (its fourth atom's cell, one lattice vector away, on line 180).
constexpr const char* kFirstAtoms = "     1      1      1      1\n";                                 // line 7
constexpr const char* kFirstValue = " 1  1  1  1       -21.6248767261\n";                             // line 8
constexpr const char* kOriginCell = "0.0000000000e+00 0.0000000000e+00 0.0000000000e+00\n";          // line 4
constexpr const char* kThirdCellL = "-2.7155000000e+00 0.0000000000e+00 2.7155000000e+00\n";         // line 180

TEST(Fc4, ReadsStillingerWeberSilicon) {
  const FourthOrderFc fc = read_fc4(sw_silicon("FORCE_CONSTANTS_4TH"), sw_control());
  ASSERT_EQ(fc.quadruplets.size(), 658u);

  // Quadruplet 1 (all four on atom 1, cell 0): lines "1 1 1 1 -21.6248767261", "1 1 2 2 12.8107685693", "3 3 3 3 ...".
  const auto& q1 = fc.quadruplets[0];
  for (int a : q1.atom) EXPECT_EQ(a, 0);
  EXPECT_DOUBLE_EQ(q1.phi[0], -21.6248767261);
  EXPECT_DOUBLE_EQ(q1.phi[4], 12.8107685693);
  EXPECT_DOUBLE_EQ(q1.phi[1], 0.0);
  EXPECT_DOUBLE_EQ(q1.phi[80], -21.6248767261);

  // Quadruplet 2 (atoms 1 1 1 2): "1 1 2 3 -12.6434729370" and its reverse "3 2 1 1 -12.6639562271" tell
  // [alpha][beta][gamma][delta] from [delta][gamma][beta][alpha].
  const auto& q2 = fc.quadruplets[1];
  EXPECT_EQ(q2.atom[2], 0);
  EXPECT_EQ(q2.atom[3], 1);
  EXPECT_DOUBLE_EQ(q2.phi[0 * 27 + 0 * 9 + 1 * 3 + 2], -12.6434729370);
  EXPECT_DOUBLE_EQ(q2.phi[2 * 27 + 1 * 9 + 0 * 3 + 0], -12.6639562271);

  // Quadruplet 3: the fourth atom's cell (-2.7155, 0, 2.7155) A is a_1 of CONTROL (lfactor 0.5431 nm).
  const auto& q3 = fc.quadruplets[2];
  EXPECT_EQ((std::vector<int>(q3.cell_k, q3.cell_k + 3)), (std::vector<int>{0, 0, 0}));
  EXPECT_EQ((std::vector<int>(q3.cell_l, q3.cell_l + 3)), (std::vector<int>{1, 0, 0}));

  // Quadruplet 329 (line 28539): every cell (2.7155, 0, 2.7155) A = a_2 - a_3; "1 2 2 2 -0.9265399330".
  const auto& mid = fc.quadruplets[328];
  for (const int* cell : {mid.cell_j, mid.cell_k, mid.cell_l}) EXPECT_EQ((std::vector<int>(cell, cell + 3)), (std::vector<int>{0, 1, -1}));
  EXPECT_DOUBLE_EQ(mid.phi[0 * 27 + 1 * 9 + 1 * 3 + 1], -0.9265399330);
  EXPECT_DOUBLE_EQ(mid.phi[26], -0.5924815476);

  // The whole file, summed by a separate script over its text: sum |Phi| = 49795.109064138174 eV/A^4 over 51450
  // nonzero values; sum of |cell components| over all cells 1584; quadruplet 658 on atoms 2 2 2 2.
  double sum_abs = 0;
  int nonzero = 0;
  long cell_sum = 0;
  for (const auto& q : fc.quadruplets) {
    for (double v : q.phi) {
      sum_abs += std::abs(v);
      nonzero += v != 0;
    }
    for (const int* cell : {q.cell_j, q.cell_k, q.cell_l})
      for (int d = 0; d < 3; ++d) cell_sum += std::abs(cell[d]);
  }
  EXPECT_NEAR(sum_abs, 49795.109064138174, 1e-12 * 49795.109064138174);  // summed in another order
  EXPECT_EQ(nonzero, 51450);
  EXPECT_EQ(cell_sum, 1584);
  for (int a : fc.quadruplets.back().atom) EXPECT_EQ(a, 1);
}

// The set's other anharmonic file describes the same crystal.
TEST(Fc4, SetsThirdOrderFileReadsAgainstTheSameControl) {
  EXPECT_EQ(read_fc3(sw_silicon("FORCE_CONSTANTS_3RD"), sw_control()).triplets.size(), 842u);
}

// The fewest bytes a quadruplet can take (838) are what the header's count is bounded with: a file of two such
// quadruplets and a 2-byte header is at the bound and read.
TEST(Fc4, CompactFileAtTheByteBoundIsRead) {
  std::string quad = "0 0 0\n0 0 0\n0 0 0\n1 1 2 1\n";
  for (int e = 0; e < 81; ++e)
    quad += std::to_string(e / 27 + 1) + " " + std::to_string(e / 9 % 3 + 1) + " " + std::to_string(e / 3 % 3 + 1) + " " +
            std::to_string(e % 3 + 1) + (e == 5 ? " 7\n" : " 0\n");
  const std::string text = "2\n1\n" + quad + "2\n" + quad;
  ASSERT_EQ(text.size(), 2u + 2 * 838u);
  TempDir d;
  write_text(d.path / "FORCE_CONSTANTS_4TH", text);
  const FourthOrderFc fc = read_fc4(d.path / "FORCE_CONSTANTS_4TH", sw_control());
  ASSERT_EQ(fc.quadruplets.size(), 2u);
  EXPECT_EQ(fc.quadruplets[1].atom[2], 1);
  EXPECT_EQ(fc.quadruplets[1].phi[5], 7.0);
}

TEST(Fc4, MissingFileOrADirectoryIsRefused) {
  TempDir d;
  quanta::test::expect_error<InputError>([&] { (void)read_fc4(d.path / "FORCE_CONSTANTS_4TH", sw_control()); },
                                         {"FORCE_CONSTANTS_4TH", "not found", "Fourthorder.py"});
  std::filesystem::create_directory(d.path / "FORCE_CONSTANTS_4TH");
  quanta::test::expect_error<InputError>([&] { (void)read_fc4(d.path / "FORCE_CONSTANTS_4TH", sw_control()); },
                                         {"FORCE_CONSTANTS_4TH", "is a directory"});
}

TEST(Fc4, TruncatedFileIsRefusedWhereItStops) {
  // A file of two quadruplets (within the header's size bound) cut after line 150, inside quadruplet 2.
  const std::string two = replaced(sw_fc4_text(), "  658\n", "    2\n");
  std::size_t at = 0;
  for (int line = 0; line < 150; ++line) at = two.find('\n', at) + 1;
  expect_refused(two.substr(0, at), {"FORCE_CONSTANTS_4TH:150: Cartesian index: found the end of the file", "an integer"});
  // Inside line 151, after its four indices and before its value.
  expect_refused(two.substr(0, at + 11), {"FORCE_CONSTANTS_4TH:151: force constant (eV/A^4): found the end of the file"});
}

TEST(Fc4, HeaderCountIsCheckedAgainstTheFile) {
  // 10^12 quadruplets would be 10^15 bytes of table: refused from the file's size before anything is allocated.
  expect_refused(replaced(sw_fc4_text(), "  658\n", "  1000000000000\n"),
                 {"FORCE_CONSTANTS_4TH:1: number of quadruplets: found 1000000000000", "at most 2247 quadruplets",
                  "as many as a file of 1883814 bytes can hold (each takes at least 838)"});
  // One more than the file holds, within the size bound: refused at the end of the file.
  expect_refused(replaced(sw_fc4_text(), "  658\n", "  659\n"),
                 {"FORCE_CONSTANTS_4TH:57247: quadruplet 659: found end of file", "659 quadruplets as the header says"});
  expect_refused(replaced(sw_fc4_text(), "  658\n", "  0\n"), {"FORCE_CONSTANTS_4TH:1: number of quadruplets: found 0", "a positive count"});
  // One fewer: the 658th is more data than the header announced.
  expect_refused(replaced(sw_fc4_text(), "  658\n", "  657\n"), {"FORCE_CONSTANTS_4TH:", "end of file: found more data after 657 quadruplets"});
}

TEST(Fc4, QuadrupletsAreNumberedInOrder) {
  expect_refused(replaced(sw_fc4_text(), "\n    2\n", "\n    5\n"),
                 {"FORCE_CONSTANTS_4TH:90: quadruplet index: found 5", "2 (quadruplets numbered in order)"});
}

TEST(Fc4, AtomIndexBeyondControlsAtomsIsRefused) {
  expect_refused(replaced(sw_fc4_text(), kFirstAtoms, "     1      1      3      1\n"),
                 {"FORCE_CONSTANTS_4TH:7: atom index: found 3", "1..2 (natoms in CONTROL)"});
  expect_refused(replaced(sw_fc4_text(), kFirstAtoms, "     1      1      1      0\n"), {"FORCE_CONSTANTS_4TH:7: atom index: found 0"});
}

TEST(Fc4, ComponentIndexOutOfRangeIsRefused) {
  expect_refused(replaced(sw_fc4_text(), kFirstValue, " 1  1  4  1       -21.6248767261\n"),
                 {"FORCE_CONSTANTS_4TH:8: Cartesian index: found 4", "1, 2 or 3"});
  expect_refused(replaced(sw_fc4_text(), kFirstValue, " 0  1  1  1       -21.6248767261\n"), {"FORCE_CONSTANTS_4TH:8: Cartesian index: found 0"});
}

// FourPhonon reads the 81 values in a fixed order and skips the indices: lines in another order would be misread.
TEST(Fc4, ComponentsOutOfOrderAreRefused) {
  expect_refused(replaced(sw_fc4_text(), " 1  1  1  2         0.0000000000\n 1  1  1  3         0.0000000000\n",
                          " 1  1  1  3         0.0000000000\n 1  1  1  2         0.0000000000\n"),
                 {"FORCE_CONSTANTS_4TH:9: Cartesian index: found 3", "expected 2 (this line's components are 1 1 1 2",
                  "alpha slowest to delta fastest"});
}

TEST(Fc4, NonFiniteValueIsRefused) {
  for (const std::string bad : {"nan", "NaN", "inf", "-Infinity", "1e999"})
    expect_refused(replaced(sw_fc4_text(), "-21.6248767261", bad),
                   {"FORCE_CONSTANTS_4TH:8: force constant (eV/A^4): found '" + bad + "'", "expected a real number"});
}

TEST(Fc4, CellVectorThatIsNoLatticeVectorIsRefused) {
  // Quadruplet 3's fourth cell moved off the lattice by 0.3 A.
  expect_refused(replaced(sw_fc4_text(), kThirdCellL, "-2.7155000000e+00 0.3000000000e+00 2.7155000000e+00\n"),
                 {"FORCE_CONSTANTS_4TH:180: cell vector of the fourth atom (A)", "found fractional coordinates",
                  "a lattice vector of CONTROL's lattvec*lfactor"});
  // Far outside any supercell: refused before the rounding and the cast to int.
  expect_refused(replaced(sw_fc4_text(), kOriginCell, "-1.65e80 0 0\n"),
                 {"FORCE_CONSTANTS_4TH:4: cell vector of the second atom (A)", "components of at most 10000"});
}

// The same file against a CONTROL of another lattice constant: the files describe different crystals.
TEST(Fc4, CellsOfAnotherCrystalAreRefused) {
  TempDir d;
  write_text(d.path / "CONTROL", replaced(read_text(sw_silicon("CONTROL")), "lfactor=0.5431", "lfactor=0.5371"));
  const Control other = read_control(d.path / "CONTROL");
  expect_refused(sw_fc4_text(), {"FORCE_CONSTANTS_4TH:180: cell vector of the fourth atom (A)", "found fractional coordinates (1.011",
                                 "a lattice vector of CONTROL's lattvec*lfactor"},
                 other);
}

}  // namespace
}  // namespace quanta::phonon::test
