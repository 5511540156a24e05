// The command lines of quanta linelist and linelist-convert: a bad option exits 1 naming it; an output that
// cannot be written is refused at the start (before the checkpoints are read), naming it; an error leaves
// no temporary file behind; a rerun into a folder with earlier outputs says what it replaces.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include "../../../core/tests/test_support.hpp"
#include "test_support.hpp"

namespace fs = std::filesystem;
using namespace linelist_test;

namespace {

struct Result {
  int rc;
  std::string err;
};

// Runs `quanta <args>` in `cwd`; its exit status and stderr.
Result quanta_in(const fs::path& cwd, const std::string& args) {
  const fs::path err = cwd / "stderr.txt";
  const std::string cmd = "cd '" + cwd.string() + "' && " + QUANTA_BINARY + " " + args + " > /dev/null 2> '" + err.string() + "'";
  const int rc = std::system(cmd.c_str());
  Result r{WIFEXITED(rc) ? WEXITSTATUS(rc) : -1, text_of(err)};
  fs::remove(err);
  return r;
}

void expect_fails_naming(const Result& r, const std::vector<std::string>& pieces) {
  EXPECT_EQ(r.rc, 1) << r.err;
  for (const auto& p : pieces) EXPECT_NE(r.err.find(p), std::string::npos) << "stderr lacks '" << p << "':\n" << r.err;
}

// Files in `dir` whose name holds ".tmp." (the temporary names of outputs in progress).
std::vector<std::string> temporaries_in(const fs::path& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.path().filename().string().find(".tmp.") != std::string::npos) out.push_back(e.path().string());
  return out;
}

// The SiH2 input with J = 0..1 only (a run of a few seconds), in `dir`.
fs::path small_input(const fs::path& dir) {
  std::string text = text_of(input_file());
  const std::string from = "J, 0 , 2";
  text.replace(text.find(from), from.size(), "J, 0 , 1");
  std::ofstream(dir / "sih2.inp") << text;
  return dir / "sih2.inp";
}

}  // namespace

TEST(LinelistCli, BadOptionsExit1NamingTheOption) {
  quanta::test::TempDir dir;
  const std::string in = " '" + input_file().string() + "' ";
  expect_fails_naming(quanta_in(dir.path(), "linelist" + in + "--batch -1"), {"--batch"});
  expect_fails_naming(quanta_in(dir.path(), "linelist" + in + "--dipole-blocks -2"), {"--dipole-blocks"});
  expect_fails_naming(quanta_in(dir.path(), "linelist" + in + "--levels x.h5 --checkpoints ."), {"--levels", "--checkpoints"});
  expect_fails_naming(quanta_in(dir.path(), "linelist" + in + "--method fast"), {"--method"});
  expect_fails_naming(quanta_in(dir.path(), "linelist-convert" + in + "-o l.h5 --backend cpu"), {"--backend"});
  expect_fails_naming(quanta_in(dir.path(), "linelist-convert" + in + "-o l.h5 --threads 2"), {"--threads"});
  expect_fails_naming(quanta_in(dir.path(), "linelist-convert" + in), {"--output"});
}

// `-o .` (or any folder) named the temporary file "..tmp.<pid>" and left it behind: now refused before
// anything is read or written, naming the folder.
TEST(LinelistCli, ConvertRefusesAFolderAsTheOutputFile) {
  quanta::test::TempDir dir;
  fs::create_directories(dir / "sub");
  const std::string args = "linelist-convert '" + input_file().string() + "' --checkpoints '" + checkpoints().string() + "' -o ";
  for (const std::string o : {".", "..", "sub", "sub/", "sub/.", "new/"})
    expect_fails_naming(quanta_in(dir.path(), args + "'" + o + "'"), {"'" + o + "'", "is a folder", "names the levels file"});
  for (const std::string o : {".", ".."}) expect_fails_naming(quanta_in(dir / "sub", args + "'" + o + "'"), {"'" + o + "'", "is a folder"});
  EXPECT_EQ(temporaries_in(dir.path()), std::vector<std::string>{});
  EXPECT_FALSE(fs::exists(dir / "new"));
}

// The output folder is checked before the checkpoints are read: with both the output unwritable and the
// checkpoints missing, the error is the output's.
TEST(LinelistCli, UnwritableOutputIsRefusedFirst) {
  quanta::test::TempDir dir;
  std::ofstream(dir / "a-file") << "x";
  fs::create_directories(dir / "empty");
  const std::string run = "linelist '" + input_file().string() + "' --checkpoints empty --backend cpu ";
  const Result r = quanta_in(dir.path(), run + "-o a-file/out");
  expect_fails_naming(r, {"a-file/out", "the output folder (-o)"});
  EXPECT_EQ(r.err.find("j0eigen"), std::string::npos) << r.err;
  expect_fails_naming(quanta_in(dir.path(), run + "-o a-file"), {"a-file", "is a file, not a folder"});
  const std::string convert = "linelist-convert '" + input_file().string() + "' --checkpoints empty ";
  const Result c = quanta_in(dir.path(), convert + "-o a-file/levels.h5");
  expect_fails_naming(c, {"a-file", "the folder of the levels file (-o)"});
  EXPECT_EQ(c.err.find("j0eigen"), std::string::npos) << c.err;
}

// A rerun into a folder holding the outputs of an earlier run says which files it replaces (even with -q);
// the first run into an empty folder says nothing of the kind. Outputs go to the current folder by default.
TEST(LinelistCli, RerunWarnsWhatItReplaces) {
  quanta::test::TempDir dir;
  const fs::path in = small_input(dir.path());
  const std::string args = "linelist '" + in.string() + "' --checkpoints '" + checkpoints().string() + "' --backend cpu --threads 1 -q";
  const Result first = quanta_in(dir.path(), args);
  ASSERT_EQ(first.rc, 0) << first.err;
  EXPECT_TRUE(fs::exists(dir / "sih2_0_1.trans"));
  EXPECT_EQ(first.err.find("replacing"), std::string::npos) << first.err;
  const Result second = quanta_in(dir.path(), args + " --gain-table");
  ASSERT_EQ(second.rc, 0) << second.err;
  for (const char* f : {"replacing the outputs of an earlier run", "sih2_0_1.states", "sih2_0_1.trans", "quanta-linelist.h5"})
    EXPECT_NE(second.err.find(f), std::string::npos) << f << ":\n" << second.err;
  EXPECT_EQ(second.err.find("gain.txt"), std::string::npos) << "the GAIN table did not exist yet:\n" << second.err;
  const Result convert = quanta_in(dir.path(), "linelist-convert '" + in.string() + "' --checkpoints '" + checkpoints().string() +
                                                   "' -o quanta-linelist.h5 -q");
  ASSERT_EQ(convert.rc, 0) << convert.err;
  EXPECT_NE(convert.err.find("replacing the outputs of an earlier run: quanta-linelist.h5"), std::string::npos) << convert.err;
  EXPECT_EQ(temporaries_in(dir.path()), std::vector<std::string>{});
}
