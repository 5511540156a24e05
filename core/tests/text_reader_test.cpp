#include "quanta/core/io/text_reader.hpp"

#include <gtest/gtest.h>

#include "test_support.hpp"

using quanta::InputError;
using quanta::io::TextReader;
using quanta::test::expect_error;

// The head of a FORCE_CONSTANTS_3RD file: a count, a blank line, then blocks of index lines and numbers.
TEST(TextReader, ReadsTokensAcrossLinesWithLineNumbers) {
  quanta::test::TempDir dir;
  TextReader r(dir.write("FORCE_CONSTANTS_3RD", "  2\n\n 1\n  0.000 0.000 0.000\n 1 2 3\n 1 1 1  -1.2345D-02\n"));
  EXPECT_EQ(r.read_int("number of triplets"), 2);
  EXPECT_EQ(r.line(), 1);
  EXPECT_EQ(r.read_int("triplet index"), 1);
  EXPECT_EQ(r.line(), 3);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(r.read_real("R2"), 0.0);
  EXPECT_EQ(r.read_word("atom i"), "1");
  EXPECT_EQ(r.read_rest_of_line(), " 2 3");
  EXPECT_EQ(r.line(), 6);
  EXPECT_EQ(r.read_int("alpha"), 1);
  EXPECT_EQ(r.read_int("beta"), 1);
  EXPECT_EQ(r.read_int("gamma"), 1);
  EXPECT_FALSE(r.at_end());
  EXPECT_DOUBLE_EQ(r.read_real("Phi"), -1.2345e-2);
  EXPECT_TRUE(r.at_end());
  EXPECT_EQ(r.path(), (dir / "FORCE_CONSTANTS_3RD").string());
}

TEST(TextReader, ErrorsNameFileLineFieldFoundAndExpected) {
  quanta::test::TempDir dir;
  const std::string path = dir.write("espresso.ifc2", "3 2 1\n 0.5 x\n1.5\n");
  TextReader r(path);
  r.read_int("ntyp");
  r.read_int("nat");
  r.read_int("ibrav");
  r.read_real("celldm(1)");
  expect_error<InputError>([&] { r.read_real("celldm(2)"); },
                           {path + ":2:", "celldm(2)", "found 'x'", "expected a real number"});
  expect_error<InputError>([&] { r.read_int("nr1"); }, {path + ":3:", "nr1", "found '1.5'", "expected an integer"});
  expect_error<InputError>([&] { r.read_word("label"); }, {path + ":3:", "label", "end of the file"});
  expect_error<InputError>([&] { r.fail("header", "nothing", "something"); },
                           {path + ":3: header: found nothing, expected something"});
}

TEST(TextReader, MissingFileIsAnInputError) {
  quanta::test::TempDir dir;
  expect_error<InputError>([&] { TextReader r((dir / "FORCE_CONSTANTS_2ND").string()); },
                           {"FORCE_CONSTANTS_2ND", "not found"});
}

TEST(TextReader, EmptyFileIsAtEnd) {
  quanta::test::TempDir dir;
  TextReader r(dir.write("empty", "  \n\n"));
  EXPECT_TRUE(r.at_end());
  expect_error<InputError>([&] { r.read_int("n"); }, {"end of the file", "an integer"});
}
