#include "quanta/core/io/atomic_file.hpp"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "quanta/core/error.hpp"
#include "quanta/core/progress.hpp"

namespace quanta::io {

namespace {

// "<name>.tmp.<pid>" files beside `final_path` whose process no longer exists.
void remove_stale_temporaries(const std::filesystem::path& final_path) {
  const std::string prefix = final_path.filename().string() + ".tmp.";
  const auto folder = final_path.has_parent_path() ? final_path.parent_path() : std::filesystem::path(".");
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(folder, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix) != 0) continue;
    const std::string pid_text = name.substr(prefix.size());
    if (pid_text.find_first_not_of("0123456789") != std::string::npos || pid_text.size() > 9) continue;
    const pid_t pid = static_cast<pid_t>(std::stol(pid_text));
    if (pid == ::getpid() || ::kill(pid, 0) == 0 || errno != ESRCH) continue;  // ours, or its writer still runs
    std::error_code rm;
    if (std::filesystem::remove(entry.path(), rm))
      warn("io", "removed '" + entry.path().string() + "', left by an earlier run (process " + pid_text + ") that did not finish");
  }
}

}  // namespace

std::filesystem::path temporary_path_for(const std::filesystem::path& final_path) {
  const std::string name = final_path.filename().string();
  std::error_code ec;
  if (name.empty() || name == "." || name == ".." || std::filesystem::is_directory(final_path, ec))
    throw Error("'" + final_path.string() + "' is a folder; expected the name of the file to write");
  remove_stale_temporaries(final_path);
  // The same folder keeps the final rename within one file system, where it is atomic; the pid keeps
  // two runs writing the same output from clobbering each other's temporary file.
  std::filesystem::path temp = final_path;
  temp += ".tmp." + std::to_string(::getpid());
  return temp;
}

TemporaryPath::TemporaryPath(std::filesystem::path final_path)
    : final_(std::move(final_path)), temp_(temporary_path_for(final_)) {}

void TemporaryPath::commit() {
  if (committed_) return;
  commit_rename(temp_, final_);
  committed_ = true;
}

TemporaryPath::~TemporaryPath() {
  if (committed_) return;
  std::error_code ec;
  std::filesystem::remove(temp_, ec);  // best effort: a destructor reports nothing
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

namespace {
constexpr std::size_t kDirectAlign = 4096;  // the logical block sizes of common disks divide it
}

DirectAtomicFile::DirectAtomicFile(std::filesystem::path final_path, std::size_t buffer_bytes, bool try_direct)
    : final_(std::move(final_path)), temp_(temporary_path_for(final_)) {
  capacity_ = std::max(kDirectAlign, (buffer_bytes + kDirectAlign - 1) / kDirectAlign * kDirectAlign);
  buffer_ = static_cast<char*>(std::aligned_alloc(kDirectAlign, capacity_));
  if (!buffer_) throw Error("cannot write '" + final_.string() + "': no memory for its " + std::to_string(capacity_) + "-byte buffer");
#ifdef O_DIRECT
  if (try_direct) {
    fd_ = ::open(temp_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_DIRECT | O_CLOEXEC, 0644);
    direct_ = fd_ >= 0;
  }
#else
  (void)try_direct;
#endif
  if (fd_ < 0) fd_ = ::open(temp_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd_ < 0) {
    const int err = errno;
    std::free(buffer_);
    throw Error("cannot write '" + final_.string() + "': cannot create '" + temp_.string() + "': " + std::strerror(err));
  }
}

DirectAtomicFile::~DirectAtomicFile() {
  if (fd_ >= 0) ::close(fd_);
  std::free(buffer_);
  if (committed_) return;
  std::error_code ec;
  std::filesystem::remove(temp_, ec);  // best effort: a destructor reports nothing
}

void DirectAtomicFile::write_out(std::size_t bytes) {
  std::size_t done = 0;
  while (done < bytes) {
    const ssize_t n = ::write(fd_, buffer_ + done, bytes - done);
    if (n < 0 && errno == EINTR) continue;
#ifdef O_DIRECT
    if (n < 0 && errno == EINVAL && direct_ && done == 0) {  // granted at open, refused at write: through the page cache
      if (::fcntl(fd_, F_SETFL, ::fcntl(fd_, F_GETFL) & ~O_DIRECT) == 0) {
        direct_ = false;
        continue;
      }
    }
#endif
    if (n <= 0)
      throw Error("cannot write '" + temp_.string() + "' (for '" + final_.string() + "'): " + (n < 0 ? std::strerror(errno) : "no progress") +
                  " (disk full?)");
    done += static_cast<std::size_t>(n);
#ifdef O_DIRECT
    // A short direct write leaves the rest unaligned: it goes through the page cache (a full disk then says so).
    if (direct_ && done < bytes && ::fcntl(fd_, F_SETFL, ::fcntl(fd_, F_GETFL) & ~O_DIRECT) == 0) direct_ = false;
#endif
  }
  written_ += bytes;
}

void DirectAtomicFile::flush_whole_blocks() {
  const std::size_t whole = direct_ ? used_ / kDirectAlign * kDirectAlign : used_;
  if (whole == 0) return;
  write_out(whole);
  std::memmove(buffer_, buffer_ + whole, used_ - whole);
  used_ -= whole;
}

void DirectAtomicFile::write(const char* data, std::size_t bytes) {
  while (bytes > 0) {
    const std::size_t n = std::min(bytes, capacity_ - used_);
    std::memcpy(buffer_ + used_, data, n);
    used_ += n;
    data += n;
    bytes -= n;
    if (used_ == capacity_) flush_whole_blocks();
  }
}

void DirectAtomicFile::commit() {
  if (committed_) return;
  const std::uintmax_t size = written_ + used_;
  if (used_ > 0) {
    if (direct_) {  // the tail padded to the alignment, the padding cut off below
      const std::size_t padded = (used_ + kDirectAlign - 1) / kDirectAlign * kDirectAlign;
      std::memset(buffer_ + used_, 0, padded - used_);
      write_out(padded);
    } else {
      write_out(used_);
    }
    used_ = 0;
  }
  int err = ::ftruncate(fd_, static_cast<off_t>(size)) != 0 ? errno : 0;
  if (::close(fd_) != 0 && err == 0) err = errno;
  fd_ = -1;
  if (err != 0) throw Error("cannot write '" + temp_.string() + "' (for '" + final_.string() + "'): " + std::strerror(err));
  commit_rename(temp_, final_);
  committed_ = true;
}

}  // namespace quanta::io
