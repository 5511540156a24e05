#include "quanta/core/io/hdf5.hpp"

#include <gtest/gtest.h>
#include <hdf5.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <fstream>

#include "test_support.hpp"

using quanta::io::H5File;
using quanta::test::expect_error;

TEST(Hdf5, RoundTripOfDatasetsStringsAndAttributes) {
  quanta::test::TempDir dir;
  const auto path = dir / "run.h5";
  {
    H5File f(path, H5File::Mode::Create);
    f.write("phonon/kappa", std::vector<double>{1.0, 2.0, 3.0, 4.0, 5.0, 6.0}, {2, 3});
    f.write("phonon/grid/ngrid", std::vector<std::int64_t>{16, 16, -16}, {3});
    f.write_scalar("temperature", 300.0);
    f.write_string("metadata/backend", "cuda");
    f.write_attribute("/", "quanta_version", "0.1.0");
    f.write_attribute("phonon/kappa", "units", "W/(m K)");
    f.write_attribute("phonon/kappa", "units", "W m^-1 K^-1");  // rewriting replaces
    f.write_attribute("phonon", "description", "thermal conductivity");
    f.close();
  }
  H5File f(path, H5File::Mode::Read);
  EXPECT_TRUE(f.exists("phonon/kappa"));
  EXPECT_TRUE(f.exists("/phonon/grid"));
  EXPECT_FALSE(f.exists("phonon/missing"));
  EXPECT_FALSE(f.exists("nothing/here/either"));
  EXPECT_EQ(f.dims("phonon/kappa"), (std::vector<std::size_t>{2, 3}));
  EXPECT_EQ(f.read_doubles("phonon/kappa"), (std::vector<double>{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(f.read_ints("phonon/grid/ngrid"), (std::vector<std::int64_t>{16, 16, -16}));
  EXPECT_EQ(f.read_doubles("phonon/grid/ngrid"), (std::vector<double>{16, 16, -16}));
  EXPECT_TRUE(f.dims("temperature").empty());
  EXPECT_EQ(f.read_doubles("temperature"), (std::vector<double>{300.0}));
  EXPECT_EQ(f.read_string("metadata/backend"), "cuda");
  EXPECT_EQ(f.read_attribute("/", "quanta_version"), "0.1.0");
  EXPECT_EQ(f.read_attribute("phonon/kappa", "units"), "W m^-1 K^-1");
  EXPECT_EQ(f.read_attribute("phonon", "description"), "thermal conductivity");
  EXPECT_EQ(f.path(), path);
}

TEST(Hdf5, RowsOfALargeDatasetWrittenAndReadPiecewise) {
  quanta::test::TempDir dir;
  const auto path = dir / "rows.h5";
  {
    H5File f(path, H5File::Mode::Create);
    f.create_doubles("/v", {5, 2, 3});  // 5 rows of 6
    std::vector<double> rows(18);
    for (int i = 0; i < 18; ++i) rows[i] = i;
    f.write_rows("/v", 0, 3, rows.data());
    for (int i = 0; i < 12; ++i) rows[i] = 18 + i;
    f.write_rows("/v", 3, 2, rows.data());
    expect_error<quanta::Error>([&] { f.write_rows("/v", 4, 2, rows.data()); }, {"rows.h5", "/v", "rows 4..5", "has 5"});
  }
  H5File f(path, H5File::Mode::Read);
  std::vector<double> all(30);
  for (int i = 0; i < 30; ++i) all[i] = i;
  EXPECT_EQ(f.read_doubles("/v"), all);
  std::vector<double> two(12);
  f.read_rows("/v", 2, 2, two.data());
  EXPECT_EQ(two, std::vector<double>(all.begin() + 12, all.begin() + 24));
  expect_error<quanta::Error>([&] { f.read_rows("/v", 5, 1, two.data()); }, {"rows.h5", "/v", "rows 5..5", "has 5"});
}

TEST(Hdf5, CreateTruncatesAnExistingFile) {
  quanta::test::TempDir dir;
  const auto path = dir / "run.h5";
  H5File(path, H5File::Mode::Create).write_scalar("old", 1.0);
  H5File(path, H5File::Mode::Create).write_scalar("new", 2.0);
  H5File f(path, H5File::Mode::Read);
  EXPECT_FALSE(f.exists("old"));
  EXPECT_TRUE(f.exists("new"));
}

// Files written by other tools hold fixed-length strings too (space- or NUL-padded).
TEST(Hdf5, ReadsFixedLengthStrings) {
  quanta::test::TempDir dir;
  const auto path = dir / "other.h5";
  {
    const hid_t file = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    const hid_t space = H5Screate(H5S_SCALAR);
    for (const auto pad : {H5T_STR_SPACEPAD, H5T_STR_NULLPAD}) {
      const hid_t type = H5Tcopy(H5T_C_S1);
      H5Tset_size(type, 8);
      H5Tset_strpad(type, pad);
      const char* name = pad == H5T_STR_SPACEPAD ? "spaces" : "nuls";
      const char* data = pad == H5T_STR_SPACEPAD ? "Si      " : "Si\0\0\0\0\0\0";
      const hid_t ds = H5Dcreate2(file, name, type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
      H5Dwrite(ds, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data);
      const hid_t attr = H5Acreate2(ds, "label", type, space, H5P_DEFAULT, H5P_DEFAULT);
      H5Awrite(attr, type, data);
      H5Aclose(attr);
      H5Dclose(ds);
      H5Tclose(type);
    }
    H5Sclose(space);
    H5Fclose(file);
  }
  H5File f(path, H5File::Mode::Read);
  EXPECT_EQ(f.read_string("spaces"), "Si");
  EXPECT_EQ(f.read_string("nuls"), "Si");
  EXPECT_EQ(f.read_attribute("spaces", "label"), "Si");
  EXPECT_EQ(f.read_attribute("nuls", "label"), "Si");
}

TEST(Hdf5, ErrorsNameTheFileAndTheDataset) {
  quanta::test::TempDir dir;
  const auto path = dir / "run.h5";
  expect_error([&] { H5File f(dir / "absent.h5", H5File::Mode::Read); }, {"absent.h5", "cannot open"});
  {
    H5File f(path, H5File::Mode::Create);
    expect_error([&] { f.write("x", std::vector<double>{1.0, 2.0}, {3}); }, {"run.h5", "'x'", "2 values", "3"});
    f.write_scalar("x", 1.0);
    expect_error([&] { f.write_scalar("x", 2.0); }, {"run.h5", "'x'", "cannot create"});
    expect_error([&] { f.write_attribute("nowhere", "a", "b"); }, {"run.h5", "'nowhere'", "'a'"});
  }
  H5File f(path, H5File::Mode::Read);
  expect_error([&] { f.read_doubles("phonon/kappa"); }, {"run.h5", "'phonon/kappa'", "no such dataset"});
  expect_error([&] { f.read_string("x"); }, {"run.h5", "'x'", "not hold a string"});
  expect_error([&] { f.read_ints("x"); }, {"run.h5", "'x'", "floating-point", "expected integers"});
  expect_error([&] { f.read_attribute("x", "units"); }, {"run.h5", "'x'", "'units'"});
  f.close();
  expect_error([&] { f.read_doubles("x"); }, {"run.h5", "'x'", "closed"});
}

// A dataspace may declare any extent whatever the file stores; a read must not allocate what is declared.
TEST(Hdf5, RefusesDeclaredValuesTheFileDoesNotStore) {
  quanta::test::TempDir dir;
  const auto path = dir / "declared.h5";
  {
    const hid_t file = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    // [1][2^29] int64 never written: no storage, 4 GiB declared.
    const hsize_t dims[2] = {1, hsize_t(1) << 29};
    const hid_t space = H5Screate_simple(2, dims, nullptr);
    H5Dclose(H5Dcreate2(file, "quanta", H5T_STD_I64LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    H5Sclose(space);
    // [2^28] doubles, deflated in chunks of 1024 of which one is written: 2 GiB from a few bytes.
    const hsize_t n = hsize_t(1) << 28, chunk = 1024;
    const hid_t space1 = H5Screate_simple(1, &n, nullptr);
    const hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(dcpl, 1, &chunk);
    H5Pset_deflate(dcpl, 6);
    const hid_t ds = H5Dcreate2(file, "packed", H5T_IEEE_F64LE, space1, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    const hid_t mem = H5Screate_simple(1, &chunk, nullptr);
    const hsize_t start = 0;
    H5Sselect_hyperslab(space1, H5S_SELECT_SET, &start, nullptr, &chunk, nullptr);
    const std::vector<double> ones(chunk, 1.0);
    H5Dwrite(ds, H5T_NATIVE_DOUBLE, mem, space1, H5P_DEFAULT, ones.data());
    H5Sclose(mem);
    H5Dclose(ds);
    H5Pclose(dcpl);
    H5Sclose(space1);
    H5Fclose(file);
  }
  H5File f(path, H5File::Mode::Read);
  EXPECT_EQ(f.dims("quanta"), (std::vector<std::size_t>{1, std::size_t(1) << 29}));
  expect_error([&] { f.read_ints("quanta"); }, {"declared.h5", "'quanta'", "536870912 values", "found 0 bytes stored", "expected all 4294967296"});
  expect_error([&] { f.require_stored("quanta"); }, {"declared.h5", "'quanta'", "found 0 bytes stored"});
  expect_error([&] { f.read_doubles("packed"); }, {"declared.h5", "'packed'", "compressed bytes", "1032-fold"});
}

// HDF5 allocates a variable-length string's stored length before reading it; a corrupt length (1.8 GB
// here, in the first four bytes of the element) is refused first.
TEST(Hdf5, RefusesAVariableLengthStringWithAHugeStoredLength) {
  quanta::test::TempDir dir;
  const auto path = dir / "vlen.h5";
  {
    H5File f(path, H5File::Mode::Create);
    f.write_string("/format", "quanta linelist levels 1");
    f.close();
  }
  haddr_t offset = HADDR_UNDEF;
  {
    const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    const hid_t ds = H5Dopen2(file, "/format", H5P_DEFAULT);
    offset = H5Dget_offset(ds);
    H5Dclose(ds);
    H5Fclose(file);
  }
  ASSERT_NE(offset, HADDR_UNDEF);
  {
    H5File f(path, H5File::Mode::Read);
    EXPECT_EQ(f.read_string("/format"), "quanta linelist levels 1");
  }
  {
    std::fstream io(path, std::ios::in | std::ios::out | std::ios::binary);
    io.seekp(static_cast<std::streamoff>(offset));
    const unsigned char length[4] = {0x00, 0x00, 0x00, 0x6b};  // 0x6b000000 = 1795162112, little-endian
    io.write(reinterpret_cast<const char*>(length), 4);
  }
  H5File f(path, H5File::Mode::Read);
  expect_error([&] { f.read_string("/format"); }, {"vlen.h5", "'/format'", "string of 1795162112 bytes", "at most 1048576"});
}

// The heap reference of a variable-length string is checked where the file stores it, which only
// contiguous storage allows; a compact one (and a compact one storing no bytes, which made HDF5 1.10
// copy through a null pointer: tests/fuzz/regressions/levels_h5) is refused by name.
TEST(Hdf5, RefusesAVariableLengthStringNotStoredContiguously) {
  quanta::test::TempDir dir;
  const auto path = dir / "compact.h5";
  {
    const hid_t file = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    const hid_t type = H5Tcopy(H5T_C_S1);
    H5Tset_size(type, H5T_VARIABLE);
    const hid_t space = H5Screate(H5S_SCALAR);
    const hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_layout(dcpl, H5D_COMPACT);
    const hid_t ds = H5Dcreate2(file, "name", type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    const char* text = "silicon";
    H5Dwrite(ds, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, &text);
    H5Dclose(ds);
    H5Pclose(dcpl);
    H5Sclose(space);
    H5Tclose(type);
    H5Fclose(file);
  }
  H5File f(path, H5File::Mode::Read);
  expect_error([&] { f.read_string("/name"); }, {"compact.h5", "'/name'", "not stored contiguously", "expected contiguous"});
}

// check_hdf5_file reads a file in a separate process first; an intact file, a file HDF5 refuses with an
// error (the reader reports it) and a missing one pass through it. The files that crash HDF5 1.10 need
// AddressSanitizer to crash reliably: they are replayed by tests/fuzz (regressions/levels_h5).
TEST(Hdf5, CheckInASeparateProcessPassesIntactFiles) {
  quanta::test::TempDir dir;
  const auto good = dir / "good.h5";
  {
    H5File f(good, H5File::Mode::Create);
    f.write_string("/format", "quanta linelist levels 1");
    f.write("/x/y", std::vector<double>{1, 2, 3, 4}, {2, 2});
  }
  EXPECT_NO_THROW(quanta::io::check_hdf5_file(good));
  const auto junk = dir / "junk.h5";
  std::ofstream(junk) << "not an HDF5 file\n";
  EXPECT_NO_THROW(quanta::io::check_hdf5_file(junk));
  expect_error([&] { H5File f(junk, H5File::Mode::Read); }, {"junk.h5", "cannot open"});
  EXPECT_NO_THROW(quanta::io::check_hdf5_file(dir / "missing.h5"));
}

TEST(Hdf5, LibraryVersionMatchesTheHeaders) {
  EXPECT_EQ(quanta::io::hdf5_library_version(),
            std::to_string(H5_VERS_MAJOR) + "." + std::to_string(H5_VERS_MINOR) + "." + std::to_string(H5_VERS_RELEASE));
}

// A write that fails for want of space (here a file-size limit, as a full disk fails it) throws an Error
// naming the file, and the process still exits normally: HDF5 1.10's exit-time cleanup used to close the
// half-closed file again and crash in H5F__close_cb. Run in a child process, which takes the limit.
TEST(Hdf5, FullDiskThrowsAndTheProcessExitsCleanly) {
  quanta::test::TempDir dir;
  const auto path = dir / "full.h5";
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    std::signal(SIGXFSZ, SIG_IGN);  // a write past the limit then fails with EFBIG instead of killing
    const rlimit limit{20000, 20000};
    ::setrlimit(RLIMIT_FSIZE, &limit);
    int code = 2;  // no error
    try {
      H5File f(path, H5File::Mode::Create);
      f.write("a/b", std::vector<double>(100000, 1.0), {100000});
      f.write("a/c", std::vector<double>(100000, 1.0), {100000});
      f.close();
    } catch (const quanta::Error& e) {
      code = std::string(e.what()).find(path.string()) != std::string::npos ? 0 : 3;
    }
    std::exit(code);  // runs the exit handlers, where the crash was
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status)) << "the child died of signal " << (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  EXPECT_EQ(WEXITSTATUS(status), 0) << "2: no error was thrown; 3: the error did not name the file";
}
