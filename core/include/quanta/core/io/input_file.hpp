#pragma once
#include <filesystem>
#include <fstream>
#include <string>

namespace quanta::io {

// Every reader opens its input through here, so that a missing file, a directory given where a file
// is expected, and an unreadable file are each told apart by name (InputError naming the path and
// what was expected), before any parsing or allocation.
//   what: what the file should be, e.g. "a ShengBTE CONTROL namelist", "TROVE's j0_extfield.chk".
void require_input_file(const std::filesystem::path& path, const std::string& what);
std::ifstream open_input_file(const std::filesystem::path& path, const std::string& what,
                              std::ios::openmode mode = std::ios::in);

}  // namespace quanta::io
