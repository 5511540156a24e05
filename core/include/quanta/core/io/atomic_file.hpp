#pragma once
#include <filesystem>
#include <fstream>
#include <string>

namespace quanta::io {

// Writes a file under a temporary name in the same folder ("<name>.tmp.<pid>") and renames it to its
// final name only on commit(), so a reader never sees a half-written output. Destroyed without commit
// (an exception, a crash in between), it removes the temporary file.
class AtomicFile {
 public:
  explicit AtomicFile(std::filesystem::path final_path);
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;
  ~AtomicFile();

  std::ofstream& stream() { return out_; }
  const std::filesystem::path& temp_path() const { return temp_; }
  const std::filesystem::path& final_path() const { return final_; }
  void commit();  // flush, close, check, rename; throws Error on any I/O failure

 private:
  std::filesystem::path final_, temp_;
  std::ofstream out_;
  bool committed_ = false;
};

// Temporary path for writers that open files themselves (HDF5): same folder, same pid suffix. Refuses a
// final path that names a folder ("-o ." given where a file is meant). Temporary files of the same
// output left by earlier runs whose process is gone (killed, crashed) are removed, with a warning.
std::filesystem::path temporary_path_for(const std::filesystem::path& final_path);

// The temporary file of one output, for writers that open files themselves (HDF5): removed when
// destroyed unless commit() renamed it to its final name, so no error path leaves it behind.
class TemporaryPath {
 public:
  explicit TemporaryPath(std::filesystem::path final_path);
  TemporaryPath(const TemporaryPath&) = delete;
  TemporaryPath& operator=(const TemporaryPath&) = delete;
  ~TemporaryPath();
  const std::filesystem::path& path() const { return temp_; }
  const std::filesystem::path& final_path() const { return final_; }
  void commit();  // renames to the final name; throws Error naming both on failure

 private:
  std::filesystem::path final_, temp_;
  bool committed_ = false;
};
// Renames temp -> final (atomic on POSIX within a file system), throwing Error with both names on failure.
void commit_rename(const std::filesystem::path& temp, const std::filesystem::path& final_path);

}  // namespace quanta::io
