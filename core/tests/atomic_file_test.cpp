#include "quanta/core/io/atomic_file.hpp"
#include "quanta/core/io/output_folder.hpp"
#include "quanta/core/error.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <stdexcept>

#include "test_support.hpp"

namespace fs = std::filesystem;
using quanta::io::AtomicFile;

namespace {
std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}
}  // namespace

TEST(AtomicFile, TemporaryNameIsBesideTheFinalOne) {
  const fs::path temp = quanta::io::temporary_path_for("/data/run/BTE.kappa");
  EXPECT_EQ(temp.parent_path(), fs::path("/data/run"));
  EXPECT_EQ(temp.filename().string(), "BTE.kappa.tmp." + std::to_string(::getpid()));
}

TEST(AtomicFile, CommitRenamesAndNothingIsVisibleBefore) {
  quanta::test::TempDir dir;
  const fs::path final_path = dir / "BTE.kappa";
  {
    AtomicFile f(final_path);
    f.stream() << "300.0 1.5e2\n";
    EXPECT_TRUE(fs::exists(f.temp_path()));
    EXPECT_FALSE(fs::exists(final_path));
    f.commit();
    EXPECT_FALSE(fs::exists(f.temp_path()));
  }
  EXPECT_EQ(slurp(final_path), "300.0 1.5e2\n");
  EXPECT_EQ(std::distance(fs::directory_iterator(dir.path()), fs::directory_iterator()), 1);
}

TEST(AtomicFile, CommitReplacesAnExistingFile) {
  quanta::test::TempDir dir;
  const std::string final_path = dir.write("out.txt", "old contents\n");
  AtomicFile f(final_path);
  f.stream() << "new\n";
  EXPECT_EQ(slurp(final_path), "old contents\n");
  f.commit();
  EXPECT_EQ(slurp(final_path), "new\n");
}

TEST(AtomicFile, DestroyedWithoutCommitLeavesNoFileAndNoTemporary) {
  quanta::test::TempDir dir;
  const fs::path final_path = dir / "BTE.kappa";
  try {
    AtomicFile f(final_path);
    f.stream() << "half of the output";
    throw std::runtime_error("the run failed midway");
  } catch (const std::runtime_error&) {
  }
  EXPECT_FALSE(fs::exists(final_path));
  EXPECT_TRUE(fs::is_empty(dir.path()));
}

TEST(AtomicFile, ErrorsNameThePaths) {
  quanta::test::TempDir dir;
  quanta::test::expect_error([&] { AtomicFile f(dir / "no-such-folder" / "out.txt"); }, {"no-such-folder/out.txt"});
  const fs::path temp = dir / "a.tmp";
  quanta::test::expect_error([&] { quanta::io::commit_rename(temp, dir / "b"); }, {temp.string(), (dir / "b").string()});
}

// "-o ." where a file is meant used to write "..tmp.PID" beside the folder.
TEST(AtomicFile, AFolderAsTheFinalNameIsRefused) {
  quanta::test::TempDir dir;
  quanta::test::expect_error([&] { quanta::io::temporary_path_for("."); }, {"'.' is a folder"});
  quanta::test::expect_error([&] { quanta::io::temporary_path_for(dir.path()); }, {"is a folder"});
  quanta::test::expect_error([&] { quanta::io::temporary_path_for(dir.path() / ".."); }, {"is a folder"});
}

// A killed run leaves "<name>.tmp.<pid>"; the next run writing the same output removes it, but not the
// temporary file of a writer that still runs (this process's parent stands in for one).
TEST(AtomicFile, TemporariesOfFinishedRunsAreRemovedByTheNextRun) {
  quanta::test::TempDir dir;
  const fs::path final_path = dir / "quanta-phonon.h5";
  const fs::path dead = dir / "quanta-phonon.h5.tmp.999999999", alive = dir / ("quanta-phonon.h5.tmp." + std::to_string(::getppid())),
                 other = dir / "BTE.kappa.tmp.999999999";
  for (const auto& p : {dead, alive, other}) std::ofstream(p) << "partial";
  testing::internal::CaptureStderr();
  {
    quanta::io::TemporaryPath tmp(final_path);
    std::ofstream(tmp.path()) << "complete";
    tmp.commit();
  }
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_FALSE(fs::exists(dead));
  EXPECT_NE(err.find(dead.string()), std::string::npos) << err;
  EXPECT_TRUE(fs::exists(alive));
  EXPECT_TRUE(fs::exists(other));  // another output's temporary file is not ours to judge
  EXPECT_EQ(slurp(final_path), "complete");
}

TEST(AtomicFile, TemporaryPathIsRemovedOnAnErrorPath) {
  quanta::test::TempDir dir;
  fs::path temp;
  try {
    quanta::io::TemporaryPath tmp(dir / "out.h5");
    temp = tmp.path();
    std::ofstream(tmp.path()) << "half";
    throw std::runtime_error("disk full");
  } catch (const std::runtime_error&) {
  }
  EXPECT_FALSE(temp.empty());
  EXPECT_FALSE(fs::exists(temp));
  EXPECT_FALSE(fs::exists(dir / "out.h5"));
}

// The disk check before long stages: more than any disk holds is refused with the numbers; a sparse file's
// allocated bytes are what it holds on disk, not its size.
TEST(DiskSpace, RefusedWithTheBytesNeededAndAvailable) {
  quanta::test::TempDir dir;
  EXPECT_NO_THROW(quanta::io::require_disk_space(dir.path(), 4096, "a small file"));
  try {
    quanta::io::require_disk_space(dir.path(), std::uintmax_t(1) << 62, "the checkpoint x.h5");
    ADD_FAILURE() << "not refused";
  } catch (const quanta::Error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("the checkpoint x.h5"), std::string::npos) << m;
    EXPECT_NE(m.find("4294967296.00 GiB"), std::string::npos) << m;
    EXPECT_NE(m.find("available"), std::string::npos) << m;
  }
  const fs::path sparse = dir / "sparse.bin";
  {
    std::ofstream f(sparse, std::ios::binary);
    f.seekp((1 << 24) - 1);
    f.put('x');
  }
  EXPECT_EQ(fs::file_size(sparse), std::uintmax_t(1) << 24);
  EXPECT_LT(quanta::io::allocated_bytes(sparse), std::uintmax_t(1) << 23);
  EXPECT_EQ(quanta::io::allocated_bytes(dir / "absent"), 0u);
}

// Direct I/O: pieces of every size, across the aligned buffer's edges, give the same bytes as one write; the file
// appears only on commit, and is not left behind without one.
TEST(DirectAtomicFile, SameBytesAsOrdinaryWritesAndAppearsOnCommit) {
  quanta::test::TempDir dir;
  std::string expected;
  std::uint32_t x = 12345;
  {
    quanta::io::DirectAtomicFile f(dir / "lines.trans", 8192);
    for (int piece = 0; piece < 400; ++piece) {
      x = x * 1664525u + 1013904223u;
      std::string s((x >> 8) % 9000, '\0');
      for (char& c : s) c = static_cast<char>('a' + (x = x * 1664525u + 1013904223u) % 26);
      if (piece % 50 == 0) s.clear();
      f.write(s.data(), s.size());
      expected += s;
    }
    EXPECT_EQ(f.size(), expected.size());
    EXPECT_FALSE(fs::exists(dir / "lines.trans"));
    std::printf("  %s: %s\n", dir.path().c_str(), f.direct() ? "direct I/O (O_DIRECT)" : "O_DIRECT refused here: the page cache path");
    f.commit();
  }
  EXPECT_EQ(slurp(dir / "lines.trans"), expected);
  EXPECT_EQ(fs::file_size(dir / "lines.trans"), expected.size());
  {
    quanta::io::DirectAtomicFile g(dir / "abandoned.trans", 4096);
    g.write("partial", 7);
  }
  for (const auto& e : fs::directory_iterator(dir.path())) EXPECT_EQ(e.path().filename(), "lines.trans") << "left behind: " << e.path();
  {
    quanta::io::DirectAtomicFile empty(dir / "empty.trans");
    empty.commit();
  }
  EXPECT_EQ(fs::file_size(dir / "empty.trans"), 0u);
}

// The page-cache path (taken where a file system refuses O_DIRECT): the same bytes, across the buffer's edges.
TEST(DirectAtomicFile, PageCachePathGivesTheSameBytes) {
  quanta::test::TempDir dir;
  std::string text;
  for (int i = 0; i < 5000; ++i) text += std::to_string(i) + " line of text\n";
  {
    quanta::io::DirectAtomicFile f(dir / "x.trans", 4096, false);
    EXPECT_FALSE(f.direct());
    for (std::size_t at = 0; at < text.size(); at += 777) f.write(text.data() + at, std::min<std::size_t>(777, text.size() - at));
    f.commit();
  }
  EXPECT_EQ(slurp(dir / "x.trans"), text);
}
