#include "quanta/core/io/atomic_file.hpp"

#include <signal.h>
#include <unistd.h>

#include <cerrno>
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

}  // namespace quanta::io
