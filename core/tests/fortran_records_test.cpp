#include "quanta/core/io/fortran_records.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>

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
