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

// Temporary path for writers that open files themselves (HDF5): same folder, same pid suffix.
std::filesystem::path temporary_path_for(const std::filesystem::path& final_path);
// Renames temp -> final (atomic on POSIX within a file system), throwing Error with both names on failure.
void commit_rename(const std::filesystem::path& temp, const std::filesystem::path& final_path);

}  // namespace quanta::io
