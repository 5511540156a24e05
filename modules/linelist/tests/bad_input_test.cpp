// Bad inputs: each error names the file (and line or field), what was found and what was expected; the
// command exits non-zero and writes no line list.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>

#include "../../../core/tests/test_support.hpp"
#include "quanta/core/io/hdf5.hpp"
#include "quanta/linelist/levels.hpp"
#include "test_support.hpp"

using namespace quanta::linelist;
namespace fs = std::filesystem;

namespace {

// A writable copy of the SiH2 checkpoints and input.
struct Copy {
  quanta::test::TempDir dir;
  Copy() {
    for (const auto& e : fs::directory_iterator(linelist_test::checkpoints())) fs::copy_file(e.path(), dir / e.path().filename().string());
    fs::copy_file(linelist_test::input_file(), dir / "step4_std.inp");
    for (const auto& e : fs::directory_iterator(dir.path())) fs::permissions(e.path(), fs::perms::owner_read | fs::perms::owner_write);
  }
  IntensityInput input() const { return read_trove_input(dir / "step4_std.inp"); }
  // Runs the command; returns its exit code and stderr.
  std::pair<int, std::string> run() const {
    const std::string err = (dir / "stderr.txt").string();
    const std::string cmd = std::string(QUANTA_BINARY) + " linelist '" + (dir / "step4_std.inp").string() + "' -o '" + (dir / "out").string() +
                            "' --backend cpu 2> '" + err + "'";
    const int rc = std::system(cmd.c_str());
    std::ifstream f(err);
    return {rc, std::string(std::istreambuf_iterator<char>(f), {})};
  }
};

void replace_in(const fs::path& file, const std::string& from, const std::string& to) {
  std::ifstream in(file);
  std::string text(std::istreambuf_iterator<char>(in), {});
  const auto p = text.find(from);
  ASSERT_NE(p, std::string::npos) << from;
  text.replace(p, from.size(), to);
  std::ofstream(file) << text;
}

}  // namespace

TEST(LinelistBadInput, TruncatedEigenvectorFile) {
  Copy c;
  fs::resize_file(c.dir / "j0eigen_vectors1_2.chk", 156800 - 8);
  quanta::test::expect_error<quanta::InputError>([&] { read_levels(c.dir.path(), c.input()); },
                                                 {"j0eigen_vectors1_2.chk", "truncated", "156792 bytes", "expected 156800"});
  const auto [rc, err] = c.run();
  EXPECT_NE(rc, 0);
  EXPECT_NE(err.find("truncated"), std::string::npos) << err;
  EXPECT_FALSE(fs::exists(c.dir / "out/step4_std_0_2.trans"));
}

TEST(LinelistBadInput, DimensionsOfDescrAndQuantaDisagree) {
  Copy c;
  replace_in(c.dir / "j0eigen_descr1_2.chk", "           140           140  <-", "           140           139  <-");
  quanta::test::expect_error<quanta::InputError>([&] { read_levels(c.dir.path(), c.input()); },
                                                 {"j0eigen_descr1_2.chk", "dimension 139", "140 symmetrized functions", "j0eigen_quanta1.chk"});
}

TEST(LinelistBadInput, MissingFileOfAJInTheRange) {
  Copy c;
  fs::remove(c.dir / "j0eigen_quanta2.chk");
  quanta::test::expect_error<quanta::InputError>([&] { read_levels(c.dir.path(), c.input()); }, {"j0eigen_quanta2.chk", "missing"});
  const auto [rc, err] = c.run();
  EXPECT_NE(rc, 0);
  EXPECT_NE(err.find("j0eigen_quanta2.chk"), std::string::npos) << err;
}

TEST(LinelistBadInput, TruncatedDipoleCheckpoint) {
  Copy c;
  fs::resize_file(c.dir / "j0_extfield.chk", 200000);
  quanta::test::expect_error<quanta::InputError>([&] { read_dipole_matrices(c.dir / "j0_extfield.chk"); },
                                                 {"j0_extfield.chk", "record", "bytes left in the file"});
}

TEST(LinelistBadInput, InputKeywordsNameTheLine) {
  Copy c;
  replace_in(c.dir / "step4_std.inp", "  TEMPERATURE   500.0", "  TEMPERATURE   hot");
  quanta::test::expect_error<quanta::InputError>([&] { c.input(); }, {"step4_std.inp:82", "TEMPERATURE", "'hot'", "a finite number"});
  replace_in(c.dir / "step4_std.inp", "  TEMPERATURE   hot", "  TEMPERATUR 500");
  quanta::test::expect_error<quanta::InputError>([&] { c.input(); }, {"step4_std.inp:82", "TEMPERATUR", "one of"});
  replace_in(c.dir / "step4_std.inp", "  TEMPERATUR 500", "  TEMPERATURE 500");
  replace_in(c.dir / "step4_std.inp", "GNS           1.0 1.0 3.0 3.0", "GNS 1.0 1.0 3.0");
  quanta::test::expect_error<quanta::InputError>([&] { read_levels(c.dir.path(), c.input()); }, {"GNS", "found 3 values", "expected 4"});
}

TEST(LinelistBadInput, CorruptQuantaFile) {
  Copy c;
  replace_in(c.dir / "j0eigen_quanta1.chk", "End Primitive basis set", "End Primitive basis sez");
  quanta::test::expect_error<quanta::InputError>([&] { read_levels(c.dir.path(), c.input()); }, {"j0eigen_quanta1.chk", "rotational table"});
}

namespace {

// A small consistent levels file for the SiH2 input (C2v(M), J = 0..2, two vibrational functions, one
// root per (J, Gamma)), with one thing spoiled.
void write_small_levels(const fs::path& file, const std::string& spoil) {
  quanta::io::H5File f(file, quanta::io::H5File::Mode::Create);
  f.write_string("/format", spoil == "format" ? "some other file" : "quanta linelist levels 1");
  f.write_string("/symmetry_group", spoil == "group" ? "C3v(M)" : "C2v(M)");
  std::vector<double> mu = {1, 0.5, 0.5, 2, 0, 0.1, 0.1, 0, 3, -1, -1, 4};
  if (spoil == "dipole") mu[2] = 0.7;
  f.write("/dipole", mu, {3, 2, 2});
  for (int J = 0; J <= 2; ++J) {
    const RotVibBasis b = symmetric_top_basis(J, 2);
    f.write("/J" + std::to_string(J) + "/k", std::vector<std::int64_t>(b.k.begin(), b.k.end()), {b.k.size()});
    f.write("/J" + std::to_string(J) + "/tau", std::vector<std::int64_t>(b.tau.begin(), b.tau.end()), {b.tau.size()});
    for (int g = 1; g <= 4; ++g) {
      if (spoil == "block" && J == 2 && g == 3) continue;
      const std::string base = "/J" + std::to_string(J) + "/G" + std::to_string(g);
      f.write(base + "/energy", std::vector<double>{1000.0 * J + g}, {1});
      const std::size_t dim = b.size() - (spoil == "dims" && J == 1 && g == 2 ? 1 : 0);
      std::vector<double> v(dim, 0.0);
      v[g % dim] = 1;
      f.write(base + "/vectors", v, {1, dim});
    }
  }
}

}  // namespace

TEST(LinelistBadInput, LevelsFileErrorsNameTheDataset) {
  Copy c;
  const fs::path file = c.dir / "levels.h5";
  write_small_levels(file, "");
  const Levels good = read_levels_h5(file, c.input());
  EXPECT_EQ(good.levels.size(), 12u);  // J = 0..2 x 4 irreps, one root each (GNS > 0 for all four)
  EXPECT_EQ(good.zpe, 1.0);            // the J = 0, A1 root
  EXPECT_EQ(read_dipole_h5(file).n, 2);

  write_small_levels(file, "format");
  quanta::test::expect_error<quanta::InputError>([&] { read_levels_h5(file, c.input()); }, {"levels.h5", "/format", "not a quanta levels file"});
  write_small_levels(file, "group");
  quanta::test::expect_error<quanta::InputError>([&] { read_levels_h5(file, c.input()); }, {"step4_std.inp", "SYMGROUP", "C3v(M)"});
  write_small_levels(file, "block");
  quanta::test::expect_error<quanta::InputError>([&] { read_levels_h5(file, c.input()); }, {"levels.h5", "/J2/G3/energy", "missing", "J = 2, B1"});
  write_small_levels(file, "dims");
  quanta::test::expect_error<quanta::InputError>([&] { read_levels_h5(file, c.input()); },
                                                 {"levels.h5", "/J1/G2/vectors", "dimensions [1][5]", "expected [1][6]"});
  write_small_levels(file, "dipole");
  quanta::test::expect_error<quanta::InputError>([&] { read_dipole_h5(file); }, {"levels.h5", "/dipole", "not symmetric"});

  // The command names the file too, exits non-zero and writes no line list.
  write_small_levels(file, "dims");
  const std::string err = (c.dir / "stderr.txt").string();
  const std::string cmd = std::string(QUANTA_BINARY) + " linelist '" + (c.dir / "step4_std.inp").string() + "' --levels '" + file.string() +
                          "' -o '" + (c.dir / "out").string() + "' --backend cpu 2> '" + err + "'";
  EXPECT_NE(std::system(cmd.c_str()), 0);
  std::ifstream e(err);
  const std::string text(std::istreambuf_iterator<char>(e), {});
  EXPECT_NE(text.find("/J1/G2/vectors"), std::string::npos) << text;
  EXPECT_FALSE(fs::exists(c.dir / "out/step4_std_0_2.trans"));
}

// An error while the levels file is being written (a vectors checkpoint gone after the levels were read,
// found while the vectors are expanded into the file) leaves neither the file nor its temporary.
TEST(LinelistBadInput, LevelsFileWriterLeavesNothingOnError) {
  Copy c;
  const IntensityInput in = c.input();
  const Levels levels = read_levels(c.dir.path(), in);
  const DipoleMatrices dipole = read_dipole_matrices(c.dir / "j0_extfield.chk");
  fs::remove(c.dir / "j0eigen_vectors2_4.chk");
  const fs::path out = c.dir / "out.h5";
  quanta::test::expect_error<quanta::InputError>([&] { write_levels_h5(out, levels, dipole); }, {"j0eigen_vectors2_4.chk", "not found"});
  EXPECT_FALSE(fs::exists(out));
  for (const auto& e : fs::directory_iterator(c.dir.path()))
    EXPECT_EQ(e.path().filename().string().find(".tmp."), std::string::npos) << "left behind: " << e.path();
}
