#pragma once
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace quanta::io {

// Before the long stages: creates `dir` if needed and writes (and removes) a file in it, so that a run
// that could not write its results fails at its start, not after hours. Throws Error naming `dir`,
// `what` (the outputs meant to go there) and the reason.
void require_writable_folder(const std::filesystem::path& dir, const std::string& what);

// Before the long stages: throws Error when the file system holding `dir` has less than `bytes` available,
// naming `what`, the bytes needed and those free (GiB). `bytes` is what is still to be written: a file being
// continued counts only its blocks not yet on disk (see allocated_bytes).
void require_disk_space(const std::filesystem::path& dir, std::uintmax_t bytes, const std::string& what);

// The bytes a file occupies on disk (its allocated blocks: less than its size for a sparse file); 0 when absent.
std::uintmax_t allocated_bytes(const std::filesystem::path& file);

// Warns (always printed, even under --quiet) which of `outputs` exist already and will be replaced.
void warn_replaced(const char* module, const std::vector<std::filesystem::path>& outputs);

}  // namespace quanta::io
