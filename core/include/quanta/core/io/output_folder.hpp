#pragma once
#include <filesystem>
#include <string>
#include <vector>

namespace quanta::io {

// Before the long stages: creates `dir` if needed and writes (and removes) a file in it, so that a run
// that could not write its results fails at its start, not after hours. Throws Error naming `dir`,
// `what` (the outputs meant to go there) and the reason.
void require_writable_folder(const std::filesystem::path& dir, const std::string& what);

// Warns (always printed, even under --quiet) which of `outputs` exist already and will be replaced.
void warn_replaced(const char* module, const std::vector<std::filesystem::path>& outputs);

}  // namespace quanta::io
