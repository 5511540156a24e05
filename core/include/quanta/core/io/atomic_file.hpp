#pragma once
#include <filesystem>
#include <cstdint>
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
// An output written front to back with direct I/O (O_DIRECT: around the page cache, whose write-back on some
// virtual machines' disks runs at a fraction of the disk's rate: 0.3-0.75 GB/s against 1.3-2.1 GB/s measured),
// under a temporary name and renamed on commit(). Data gathers in an aligned buffer that is written whole; commit()
// writes the tail padded to the alignment and truncates the file to its size. Where the file system refuses
// O_DIRECT (tmpfs, some network file systems) it writes through the page cache instead. Destroyed without
// commit, it removes the temporary file. One thread at a time.
class DirectAtomicFile {
 public:
  // try_direct = false writes through the page cache from the start (the path taken where O_DIRECT is refused).
  explicit DirectAtomicFile(std::filesystem::path final_path, std::size_t buffer_bytes = std::size_t{32} << 20, bool try_direct = true);
  DirectAtomicFile(const DirectAtomicFile&) = delete;
  DirectAtomicFile& operator=(const DirectAtomicFile&) = delete;
  ~DirectAtomicFile();
  void write(const char* data, std::size_t bytes);  // throws Error naming the file on any failure
  void commit();
  bool direct() const { return direct_; }          // whether O_DIRECT was granted
  std::uintmax_t size() const { return written_ + used_; }

 private:
  void flush_whole_blocks();
  void write_out(std::size_t bytes);  // the first `bytes` of the buffer (a multiple of the alignment when direct)
  std::filesystem::path final_, temp_;
  int fd_ = -1;
  bool direct_ = false, committed_ = false;
  char* buffer_ = nullptr;
  std::size_t capacity_ = 0, used_ = 0;
  std::uintmax_t written_ = 0;
};

// Renames temp -> final (atomic on POSIX within a file system), throwing Error with both names on failure.
void commit_rename(const std::filesystem::path& temp, const std::filesystem::path& final_path);

}  // namespace quanta::io
