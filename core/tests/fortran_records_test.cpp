#include "quanta/core/io/fortran_records.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

#include "quanta/core/error.hpp"
#include "test_support.hpp"

using quanta::InputError;
using quanta::io::FortranRecords;
using quanta::test::expect_error;

namespace {
void put(std::ofstream& f, std::int32_t v) { f.write(reinterpret_cast<const char*>(&v), 4); }
}  // namespace

TEST(FortranRecords, ReadsRecordsAndNamesTheEnd) {
  quanta::test::TempDir dir;
  const auto file = dir / "ok.bin";
  {
    std::ofstream f(file, std::ios::binary);
    put(f, 8);
    const double x = 2.5;
    f.write(reinterpret_cast<const char*>(&x), 8);
    put(f, 8);
  }
  FortranRecords r(file, "a test layout");
  EXPECT_EQ(r.next_scalar<double>("x"), 2.5);
  EXPECT_TRUE(r.at_end());
  expect_error<InputError>([&] { r.next("y"); }, {"record", "y", "the end of the file"});
}

// A corrupt length marker (2^31 - 1) must be refused from the file size, not become a 2 GB allocation.
TEST(FortranRecords, RefusesAMarkerLargerThanTheFile) {
  quanta::test::TempDir dir;
  const auto file = dir / "bad.bin";
  {
    std::ofstream f(file, std::ios::binary);
    put(f, 2147483647);
    put(f, 0);
  }
  FortranRecords r(file, "a test layout");
  expect_error<InputError>([&] { r.next("header"); }, {"header", "a record of 2147483647 bytes", "bytes left in the file"});
}

// A check of a record's length, made after the record was read, names that record, not the next one.
TEST(FortranRecords, ALengthCheckNamesTheRecordJustRead) {
  quanta::test::TempDir dir;
  const auto file = dir / "short.bin";
  {
    std::ofstream f(file, std::ios::binary);
    put(f, 2);
    f.write("ab", 2);
    put(f, 2);
  }
  FortranRecords r(file, "a test layout");
  expect_error<InputError>([&] { r.next_scalar<std::int32_t>("N"); }, {"record 1 (N)", "found 2 bytes", "expected 4 bytes"});
}

TEST(FortranRecords, RefusesADirectory) {
  quanta::test::TempDir dir;
  expect_error<InputError>([&] { FortranRecords r(dir.path(), "a WFN file"); }, {"is a directory", "a WFN file"});
}

// A record longer than gfortran's subrecord limit: the bytes gfortran 12.2 (Debian 12) wrote with
// -fmax-subrecord-length=16 for `write(10) 'extF'; write(10) a; write(10) 'extF'` with a = 1d0, ..., 5d0 (40 bytes:
// subrecords of 16, 16 and 8 bytes, markers -16/16, -16/-16, 8/-8), read back whole.
TEST(FortranRecords, JoinsGfortransSubrecords) {
  quanta::test::TempDir dir;
  const auto file = dir / "sub.bin";
  const std::int32_t words[] = {4, 1182038117, 4, -16, 0, 1072693248, 0, 1073741824, 16, -16, 0, 1074266112,
                                0, 1074790400, -16, 8, 0, 1075052544, -8, 4, 1182038117, 4};
  {
    std::ofstream f(file, std::ios::binary);
    for (const auto w : words) put(f, w);
  }
  FortranRecords r(file, "a test layout");
  const auto head = r.next("head");
  EXPECT_EQ(std::string(head.begin(), head.end()), "extF");
  EXPECT_EQ(r.next_array<double>("a", 5), (std::vector<double>{1, 2, 3, 4, 5}));
  const auto tail = r.next("tail");
  EXPECT_EQ(std::string(tail.begin(), tail.end()), "extF");
  EXPECT_TRUE(r.at_end());
  // A continued record whose file ends before its last subrecord is refused, naming it.
  const auto cut = dir / "cut.bin";
  {
    std::ofstream f(cut, std::ios::binary);
    for (int i = 3; i < 15; ++i) put(f, words[i]);
  }
  FortranRecords c(cut, "a test layout");
  expect_error<InputError>([&] { c.next("a"); }, {"record 1", "(a)", "inside a record's subrecords"});
}
