#pragma once
// The outputs of a Boltzmann-Schroedinger-Poisson run: quanta-mosfet.h5 (the final state, the stored profiles
// and the step history) and quanta-mosfet-scalars.dat (one line per step, the columns of the seed's code's
// scalars.dat), each written under a temporary name and renamed when complete.
#include <filesystem>
#include <vector>

#include "outputs.hpp"
#include "quanta/core/io/hdf5.hpp"
#include "quanta/mosfet/simulation.hpp"

namespace quanta::mosfet {

// One step's scalars (SI).
struct StepRecord {
  double time = 0, mass = 0, drain_current = 0, step = 0, dt = 0, top_cell = 0, excess_source = 0, excess_drain = 0, newton = 0,
         current_spread = 0;
  static constexpr int kFields = 10;
};
StepRecord record_of(const Simulation& sim, const Observables& o);

// What the run keeps besides the simulation's own state, carried through checkpoints.
struct TransportHistory {
  std::vector<StepRecord> steps;
  std::vector<Observables> profiles;  // at the output times
  void write(io::H5File& f) const;
  void read(const io::H5File& f);
};

void write_transport_results(const std::filesystem::path& path, const Config& config, const Simulation& sim, const TransportHistory& history,
                             const RunMetadata& meta);
void write_scalars(const std::filesystem::path& path, const Config& config, const TransportHistory& history);

}  // namespace quanta::mosfet
