#include "quanta/core/io/input_file.hpp"

#include <cerrno>
#include <cstring>

#include "quanta/core/error.hpp"

namespace quanta::io {

void require_input_file(const std::filesystem::path& path, const std::string& what) {
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (ec || !std::filesystem::exists(status))
    throw InputError(path.string(), "not found (expected " + what + ")");
  if (std::filesystem::is_directory(status))
    throw InputError(path.string(), "is a directory (expected " + what + ")");
  if (!std::filesystem::is_regular_file(status) && !std::filesystem::is_fifo(status) &&
      !std::filesystem::is_character_file(status))
    throw InputError(path.string(), "is not a regular file (expected " + what + ")");
}

std::ifstream open_input_file(const std::filesystem::path& path, const std::string& what, std::ios::openmode mode) {
  require_input_file(path, what);
  std::ifstream in(path, mode);
  if (!in) throw InputError(path.string(), std::string("cannot open the file: ") + std::strerror(errno) + " (expected " + what + ")");
  return in;
}

}  // namespace quanta::io
