// Bad inputs: each error names the file (and line or field), what was found and what was expected; the
// command exits non-zero and writes no line list.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>

#include "../../../core/tests/test_support.hpp"
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
    fs::copy_file(linelist_test::reference_dir() / "step4_std.inp", dir / "step4_std.inp");
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
                                                 {"j0_extfield.chk", "record", "truncated"});
}

TEST(LinelistBadInput, InputKeywordsNameTheLine) {
  Copy c;
  replace_in(c.dir / "step4_std.inp", "  TEMPERATURE   500.0", "  TEMPERATURE   hot");
  quanta::test::expect_error<quanta::InputError>([&] { c.input(); }, {"step4_std.inp:82", "TEMPERATURE", "'hot'", "a number"});
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
