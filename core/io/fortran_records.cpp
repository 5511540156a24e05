#include "quanta/core/io/fortran_records.hpp"

#include <algorithm>
#include <climits>
#include <cstdint>

#include "quanta/core/error.hpp"
#include "quanta/core/io/input_file.hpp"

namespace quanta::io {

FortranRecords::FortranRecords(const std::filesystem::path& file, std::string layout)
    : file_(file), layout_(std::move(layout)), in_(open_input_file(file, layout_, std::ios::in | std::ios::binary)) {
  in_.seekg(0, std::ios::end);
  size_ = static_cast<std::uint64_t>(in_.tellg());
  in_.seekg(0, std::ios::beg);
}

std::vector<char> FortranRecords::next(const std::string& what) {
  // Counted before the read, so that a failure inside it and a check of its payload after it both
  // name this record.
  ++index_;
  // A record longer than gfortran's subrecord limit (2^31 - 9 bytes by default) comes as subrecords, each with its
  // own markers: the leading one negative while the record continues, the trailing one negative on every subrecord
  // after the first.
  std::vector<char> payload;
  for (bool first = true, more = true; more; first = false) {
    std::int32_t n = 0, m = 0;
    in_.read(reinterpret_cast<char*>(&n), 4);
    if (!in_) fail(what, first ? "the end of the file" : "the end of the file inside a record's subrecords");
    if (n == INT32_MIN) fail(what, "a bad record marker (" + std::to_string(n) + ")");
    more = n < 0;
    const std::int32_t len = more ? -n : n;
    // A corrupt marker must not become a huge allocation: the payload and its closing marker must fit.
    const auto here = static_cast<std::uint64_t>(in_.tellg());
    if (here + static_cast<std::uint64_t>(len) + 4 > size_)
      fail(what, "a record of " + std::to_string(len) + " bytes", "at most the " + std::to_string(size_ - here) + " bytes left in the file");
    const std::size_t at = payload.size();
    payload.resize(at + static_cast<std::size_t>(len));
    in_.read(payload.data() + at, len);
    in_.read(reinterpret_cast<char*>(&m), 4);
    if (!in_ || m != (first ? len : -len)) fail(what, "a truncated record");
  }
  return payload;
}

bool FortranRecords::at_end() { return in_.peek() == std::char_traits<char>::eof(); }

void FortranRecords::fail(const std::string& what, const std::string& found, const std::string& expected) const {
  // Before the first record a check can only be about the first one.
  std::string msg = "record " + std::to_string(std::max(index_, 1)) + " (" + what + "): found " + found;
  if (!expected.empty()) msg += ", expected " + expected;
  msg += " (" + layout_ + ")";
  throw InputError(file_.string(), msg);
}

}  // namespace quanta::io
