#include "quanta/core/io/atomic_file.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "quanta/core/error.hpp"

namespace quanta::io {

std::filesystem::path temporary_path_for(const std::filesystem::path& final_path) {
  // The same folder keeps the final rename within one file system, where it is atomic; the pid keeps
  // two runs writing the same output from clobbering each other's temporary file.
  std::filesystem::path temp = final_path;
  temp += ".tmp." + std::to_string(::getpid());
  return temp;
}

void commit_rename(const std::filesystem::path& temp, const std::filesystem::path& final_path) {
  std::error_code ec;
  std::filesystem::rename(temp, final_path, ec);
  if (ec)
    throw Error("cannot rename '" + temp.string() + "' to '" + final_path.string() + "': " + ec.message());
}

AtomicFile::AtomicFile(std::filesystem::path final_path)
    : final_(std::move(final_path)), temp_(temporary_path_for(final_)) {
  out_.open(temp_, std::ios::out | std::ios::trunc | std::ios::binary);
  if (!out_)
    throw Error("cannot write '" + final_.string() + "': cannot create '" + temp_.string() +
                "': " + std::strerror(errno));
}

void AtomicFile::commit() {
  if (committed_) return;
  out_.flush();
  const bool written = static_cast<bool>(out_);
  out_.close();
  if (!written || out_.fail())
    throw Error("cannot write '" + temp_.string() + "' (disk full or I/O error); '" + final_.string() +
                "' was not written");
  commit_rename(temp_, final_);
  committed_ = true;
}

AtomicFile::~AtomicFile() {
  if (committed_) return;
  out_.close();
  std::error_code ec;
  std::filesystem::remove(temp_, ec);  // best effort: a destructor reports nothing
}

}  // namespace quanta::io
