#pragma once
#include <filesystem>

#include "quanta/kbe/params.hpp"

namespace quanta::kbe {

// Reads and validates a kbe TOML config. Any problem (syntax, unknown key, wrong type, value out of
// range) throws InputError naming the file, the line and key, what was found and what was expected.
Config read_config(const std::filesystem::path& file);
Config parse_config(const std::string& text, const std::string& source_name);

}  // namespace quanta::kbe
