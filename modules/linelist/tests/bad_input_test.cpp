// Bad inputs: each error names the file (and line or field), what was found and what was expected; the
// command exits non-zero and writes no line list.
#include <gtest/gtest.h>
#include <unistd.h>

#include <hdf5.h>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "../../../core/tests/test_support.hpp"
#include "quanta/core/io/hdf5.hpp"
#include "quanta/linelist/checkpoints.hpp"
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

// The dipole divided (CHECK_POINT: `extmatelem read split`, j0_extmatelem1..3.chk): a folder holding only the divided
// files under an input that does not say so is refused with the hint; under one that does, a missing file, a wrong tag
// and components of different sizes are refused naming the file and record.
TEST(LinelistBadInput, DividedDipoleFiles) {
  Copy c;
  auto write_divided = [&](int imu, const std::string& tag, int n) {
    std::ofstream f(c.dir / ("j0_extmatelem" + std::to_string(imu) + ".chk"), std::ios::binary);
    auto record = [&](const void* p, std::int32_t bytes) {
      f.write(reinterpret_cast<const char*>(&bytes), 4);
      f.write(static_cast<const char*>(p), bytes);
      f.write(reinterpret_cast<const char*>(&bytes), 4);
    };
    const std::vector<double> m(static_cast<std::size_t>(n) * n, 0.5);
    record(tag.data(), static_cast<std::int32_t>(tag.size()));
    record(m.data(), static_cast<std::int32_t>(m.size() * 8));
    record(tag.data(), static_cast<std::int32_t>(tag.size()));
  };
  fs::remove(c.dir / "j0_extfield.chk");
  write_divided(1, "extF", 4);
  quanta::test::expect_error<quanta::InputError>([&] { read_trove_dipole(c.dir.path(), c.input()); },
                                                 {"j0_extfield.chk", "j0_extmatelem1.chk", "extmatelem read split", "step4_std.inp"});
  std::ofstream(c.dir / "step4_std.inp", std::ios::app) << "\nCHECK_POINT\nextmatelem  read  split\nEND\n";
  ASSERT_TRUE(c.input().dipole_divided);
  quanta::test::expect_error<quanta::InputError>([&] { read_trove_dipole(c.dir.path(), c.input()); }, {"j0_extmatelem2.chk"});
  write_divided(2, "extF", 5);
  write_divided(3, "extF", 4);
  quanta::test::expect_error<quanta::InputError>([&] { read_trove_dipole(c.dir.path(), c.input()); },
                                                 {"j0_extmatelem2.chk", "record 2", "5 x 5", "4 x 4 as in j0_extmatelem1.chk"});
  write_divided(2, "extX", 4);
  quanta::test::expect_error<quanta::InputError>([&] { read_trove_dipole(c.dir.path(), c.input()); },
                                                 {"j0_extmatelem2.chk", "record 1", "'extX'", "'extF'"});
  write_divided(2, "extF", 4);
  const auto d = read_trove_dipole(c.dir.path(), c.input());
  EXPECT_EQ(d.n, 4);
  EXPECT_EQ(d.mu.size(), 48u);
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

// A dataset's dataspace is not bounded by the file: /J0/G1/quanta declared [1][2^29] (4 GiB of int64)
// and never written, in a file of a few kilobytes, is refused before anything is allocated for it; so is a
// /dipole declared [3][2048][2048] and never written (its nvib would size every block's vectors).
TEST(LinelistBadInput, LevelsFileDatasetsLargerThanTheFile) {
  Copy c;
  const fs::path file = c.dir / "levels.h5";
  write_small_levels(file, "");
  {
    const hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    const hsize_t dims[2] = {1, hsize_t(1) << 29};
    const hid_t space = H5Screate_simple(2, dims, nullptr);
    H5Dclose(H5Dcreate2(f, "/J0/G1/quanta", H5T_STD_I64LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    H5Sclose(space);
    H5Fclose(f);
  }
  EXPECT_LT(fs::file_size(file), 100000u);
  quanta::test::expect_error<quanta::Error>([&] { read_levels_h5(file, c.input()); },
                                            {"levels.h5", "'/J0/G1/quanta'", "536870912 values", "found 0 bytes stored"});

  write_small_levels(file, "");
  {
    const hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    H5Ldelete(f, "/dipole", H5P_DEFAULT);
    const hsize_t dims[3] = {3, 2048, 2048};
    const hid_t space = H5Screate_simple(3, dims, nullptr);
    H5Dclose(H5Dcreate2(f, "/dipole", H5T_IEEE_F64LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    H5Sclose(space);
    H5Fclose(f);
  }
  quanta::test::expect_error<quanta::Error>([&] { read_dipole_h5(file); }, {"levels.h5", "'/dipole'", "12582912 values", "found 0 bytes stored"});
  quanta::test::expect_error<quanta::Error>([&] { read_levels_h5(file, c.input()); }, {"levels.h5", "'/dipole'", "found 0 bytes stored"});
}

namespace {

void put_record(std::ofstream& f, const void* data, std::int32_t n) {
  f.write(reinterpret_cast<const char*>(&n), 4);
  f.write(static_cast<const char*>(data), n);
  f.write(reinterpret_cast<const char*>(&n), 4);
}

// TROVE's dipole checkpoint up to its first matrix: header, N, component index (as `index_bytes` bytes),
// then a matrix record of `matrix_bytes` bytes.
fs::path write_dipole_start(const fs::path& file, std::int32_t n, std::int32_t index_bytes, std::int32_t matrix_bytes) {
  std::ofstream f(file, std::ios::binary);
  const std::string head = "Start external field";
  put_record(f, head.data(), static_cast<std::int32_t>(head.size()));
  put_record(f, &n, 4);
  const std::int32_t one = 1;
  put_record(f, &one, index_bytes);
  const std::vector<char> m(static_cast<std::size_t>(matrix_bytes), 0);
  put_record(f, m.data(), matrix_bytes);
  return file;
}

}  // namespace

// The component-index record is 2 bytes long: its length is checked before its value is copied out.
TEST(LinelistBadInput, DipoleCheckpointWithAShortIndexRecord) {
  quanta::test::TempDir dir;
  const fs::path file = write_dipole_start(dir / "j0_extfield.chk", 1, 2, 8);
  quanta::test::expect_error<quanta::InputError>([&] { read_dipole_matrices(file); },
                                                 {"j0_extfield.chk", "record 3 (component index)", "found 2 bytes", "expected 4 bytes"});
}

// N = 20000 in a file of 52 bytes: the matrix record is checked before 3 N^2 doubles (9.6 GB) are sized.
TEST(LinelistBadInput, DipoleCheckpointWithAHugeN) {
  quanta::test::TempDir dir;
  const fs::path file = write_dipole_start(dir / "j0_extfield.chk", 20000, 4, 8);
  quanta::test::expect_error<quanta::InputError>([&] { read_dipole_matrices(file); },
                                                 {"j0_extfield.chk", "record 4 (dipole matrix)", "found 8 bytes", "expected 3200000000 bytes"});
}

// Header counts that size arrays before any function is read are bounded by what the file can hold.
TEST(LinelistBadInput, QuantaCheckpointWithAHugeMaxcontracts) {
  quanta::test::TempDir dir;
  const fs::path file = dir / "j0eigen_quanta0.chk";
  std::ofstream(file) << "Start Primitive basis set\n       1       1  1000000000       1 <- Maxsymcoeffs,max_deg_size,Maxcontracts,Nclasses\n     1     0     0\n";
  quanta::test::expect_error<quanta::InputError>([&] { read_contracted_basis(file, 0, {1, 1, 1, 1}); },
                                                 {"j0eigen_quanta0.chk", "Maxcontracts", "1000000000", "a count 1 .. "});
  std::ofstream(file) << "Start Primitive basis set\n       1       1       1  1000000000 <- Maxsymcoeffs,max_deg_size,Maxcontracts,Nclasses\n";
  quanta::test::expect_error<quanta::InputError>([&] { read_contracted_basis(file, 0, {1, 1, 1, 1}); },
                                                 {"j0eigen_quanta0.chk", "Nclasses", "1000000000", "a count 1 .. 1000"});
}

// Nmodes sizes the quanta of every root: Nmodes = 10^9 is refused where it is read.
TEST(LinelistBadInput, DescrCheckpointWithAHugeNmodes) {
  quanta::test::TempDir dir;
  const fs::path file = dir / "j0eigen_descr0_1.chk";
  std::ofstream(file) << "Start Fingerprints\n      0 1000000000      3     12  <= PTorder, Nmodes, Natoms\n";
  quanta::test::expect_error<quanta::InputError>([&] { read_nmodes(file); }, {"j0eigen_descr0_1.chk", "Nmodes", "1000000000", "a count 1 .. 1000"});
  std::ofstream(file) << "Start Fingerprints\n      0      3      3     12  <= PTorder, Nmodes, Natoms\n";
  EXPECT_EQ(read_nmodes(file), 3);
  quanta::test::expect_error<quanta::InputError>([&] { read_root_descriptions(file, 1000000000, 1); }, {"j0eigen_descr0_1.chk", "Nmodes 1000000000"});
}
