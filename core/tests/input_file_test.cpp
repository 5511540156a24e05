#include "quanta/core/io/input_file.hpp"

#include <gtest/gtest.h>

#include "quanta/core/error.hpp"
#include "quanta/core/io/namelist.hpp"
#include "quanta/core/io/text_reader.hpp"
#include "test_support.hpp"

using quanta::InputError;
using quanta::io::open_input_file;
using quanta::test::expect_error;

TEST(InputFile, TellsMissingFromDirectoryFromRegular) {
  quanta::test::TempDir dir;
  const auto missing = (dir / "CONTROL").string();
  expect_error<InputError>([&] { open_input_file(missing, "a CONTROL namelist"); },
                           {missing, "not found (expected a CONTROL namelist)"});
  expect_error<InputError>([&] { open_input_file(dir.path(), "a CONTROL namelist"); },
                           {dir.path().string(), "is a directory (expected a CONTROL namelist)"});
  EXPECT_NO_THROW(open_input_file(dir.write("ok", "x\n"), "a file"));
}

// The readers built on it say "is a directory" instead of reading the directory as an empty file.
TEST(InputFile, ReadersRefuseADirectory) {
  quanta::test::TempDir dir;
  expect_error<InputError>([&] { quanta::io::TextReader r(dir.path().string()); }, {"is a directory"});
  expect_error<InputError>([&] { quanta::io::Namelist::parse_file(dir.path().string()); }, {"is a directory"});
}
