#include "quanta/core/io/output_folder.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>

#include "quanta/core/error.hpp"
#include "quanta/core/io/atomic_file.hpp"
#include "quanta/core/progress.hpp"

namespace quanta::io {

void require_writable_folder(const std::filesystem::path& dir, const std::string& what) {
  std::string name = dir.string();  // built in steps: GCC 12 warns (falsely, -Wrestrict) on "'" + string
  name.insert(0, 1, '\'');
  name += "' (" + what + ")";
  std::error_code ec;
  if (std::filesystem::exists(dir, ec) && !std::filesystem::is_directory(dir, ec)) throw Error(name + " is a file, not a folder");
  std::filesystem::create_directories(dir, ec);
  if (ec) throw Error("cannot create " + name + ": " + ec.message());
  const std::filesystem::path probe = temporary_path_for(dir / ".quanta-write-test");
  std::ofstream f(probe, std::ios::binary);
  const bool ok = f && (f << "quanta\n") && f.flush();
  const int err = errno;
  f.close();
  std::filesystem::remove(probe, ec);
  if (!ok) throw Error("cannot write in " + name + ": " + std::strerror(err));
}

void require_disk_space(const std::filesystem::path& dir, std::uintmax_t bytes, const std::string& what) {
  std::error_code ec;
  const auto space = std::filesystem::space(dir, ec);
  if (ec) throw Error("cannot query the free space of '" + dir.string() + "' (" + what + "): " + ec.message());
  if (space.available >= bytes) return;
  char text[160];
  std::snprintf(text, sizeof text, " needs %.2f GiB of disk; the file system holding it has %.2f GiB available",
                static_cast<double>(bytes) / 1073741824.0, static_cast<double>(space.available) / 1073741824.0);
  throw Error(what + " in '" + dir.string() + "'" + text);
}

std::uintmax_t allocated_bytes(const std::filesystem::path& file) {
  struct stat st {};
  if (::stat(file.c_str(), &st) != 0) return 0;
  return static_cast<std::uintmax_t>(st.st_blocks) * 512u;
}

void warn_replaced(const char* module, const std::vector<std::filesystem::path>& outputs) {
  std::string existing;
  for (const auto& p : outputs) {
    std::error_code ec;
    if (!std::filesystem::exists(p, ec)) continue;
    if (!existing.empty()) existing += ", ";
    existing += p.string();
  }
  if (!existing.empty()) warn(module, "replacing the outputs of an earlier run: " + existing);
}

}  // namespace quanta::io
