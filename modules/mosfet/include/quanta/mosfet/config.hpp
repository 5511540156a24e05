#pragma once
#include <filesystem>
#include <string>

#include "quanta/mosfet/device.hpp"
#include "quanta/mosfet/schrodinger_poisson.hpp"

namespace quanta::mosfet {

// A `quanta mosfet` run: the device (seed defaults), the grid and the block's numerical options.
struct Config {
  std::string source;  // file name, for messages and metadata
  Device device;
  GridSize grid;
  BlockOptions solver;
};

// Reads and validates a mosfet TOML config (docs/mosfet.md lists the keys). Any problem (syntax, unknown
// key, wrong type, value out of range) throws InputError naming the file, the line and key, what was
// found and what was expected.
Config read_config(const std::filesystem::path& file);
Config parse_config(const std::string& text, const std::string& source_name);

}  // namespace quanta::mosfet
