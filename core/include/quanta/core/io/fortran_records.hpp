#pragma once
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace quanta::io {

// Reads a Fortran sequential unformatted file record by record: int32 length, payload, int32 length (a record
// beyond 2 GB as gfortran's subrecords, joined).
// Every failure names the file, the record number, the item the caller expected there and the layout
// the file should have (`layout`, e.g. "BerkeleyGW's WFN layout"), as an InputError.
class FortranRecords {
 public:
  FortranRecords(const std::filesystem::path& file, std::string layout);

  std::vector<char> next(const std::string& what);

  // The next record as exactly `count` values of T; fails when its length differs.
  template <class T>
  std::vector<T> next_array(const std::string& what, std::size_t count) {
    auto raw = next(what);
    if (raw.size() != count * sizeof(T))
      fail(what, std::to_string(raw.size()) + " bytes", std::to_string(count * sizeof(T)) + " bytes");
    std::vector<T> out(count);
    if (count) std::memcpy(out.data(), raw.data(), raw.size());
    return out;
  }
  template <class T>
  T next_scalar(const std::string& what) {
    return next_array<T>(what, 1)[0];
  }
  bool at_end();
  int records_read() const { return index_; }
  const std::filesystem::path& file() const { return file_; }

  // InputError: "FILE: record N (WHAT): found FOUND, expected EXPECTED (LAYOUT)".
  [[noreturn]] void fail(const std::string& what, const std::string& found, const std::string& expected = "") const;

 private:
  std::filesystem::path file_;
  std::string layout_;
  std::ifstream in_;
  std::uint64_t size_ = 0;  // bytes in the file
  int index_ = 0;
};

}  // namespace quanta::io
