#pragma once
#include <filesystem>
#include <string>
#include <vector>

#include "quanta/mosfet/device.hpp"
#include "quanta/mosfet/schrodinger_poisson.hpp"
#include "quanta/mosfet/transport.hpp"

namespace quanta::mosfet {

// The Boltzmann-Schroedinger-Poisson run a [transport] table asks for (docs/mosfet.md).
struct TransportRun {
  bool enabled = false;        // a [transport] table is present: simulate in time; otherwise the equilibrium
  TransportOptions options;
  double end_time = 5e-12;     // s
  double output_interval = 1e-13;  // s, between stored profiles
  double steady_tolerance = 0;  // stop when I_D changes by less than this (relative) over an output interval; 0: run to end_time
  double checkpoint_minutes = 10;  // wall time between checkpoints
};

// The bias points of `quanta mosfet sweep` (a [sweep] table): an I_D-V_DS curve at the [bias] gate voltage and an
// I_D-V_GS curve at the [bias] drain voltage, each point started from the previous point's steady state.
struct SweepPlan {
  bool enabled = false;
  std::vector<double> drain_voltages, gate_voltages;  // V, in the order run
};

// A `quanta mosfet` run: the device (seed defaults), the grid and the block's numerical options.
struct Config {
  std::string source;  // file name, for messages and metadata
  Device device;
  GridSize grid;
  BlockOptions solver;
  TransportRun transport;
  SweepPlan sweep;
};

// Reads and validates a mosfet TOML config (docs/mosfet.md lists the keys). Any problem (syntax, unknown
// key, wrong type, value out of range) throws InputError naming the file, the line and key, what was
// found and what was expected.
Config read_config(const std::filesystem::path& file);
Config parse_config(const std::string& text, const std::string& source_name);

}  // namespace quanta::mosfet
