#pragma once
// The outputs of a Boltzmann-Schroedinger-Poisson run: quanta-mosfet.h5 (the final state, the stored profiles
// and the step history) and quanta-mosfet-scalars.dat (one line per step, the columns of the seed's code's
// scalars.dat), each written under a temporary name and renamed when complete.
#include <filesystem>
#include <string>
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

// One bias point of a sweep at its steady state (or where end_time stopped it).
struct SweepPoint {
  std::string curve;                  // "id_vds" or "id_vgs"
  double gate_voltage = 0, drain_voltage = 0;  // V
  double drain_current = 0, current_spread = 0;  // A/m, relative
  double time = 0;                    // s of simulated time this point ran
  long steps = 0;
  bool steady = false;
  Observables profile;                // at the end of the point
  std::vector<double> potential;      // [nx][nz] V
};
// quanta-mosfet-iv.dat (one line per point) and quanta-mosfet-sweep.h5 (the table and each point's profiles
// and potential map).
void write_sweep(const std::filesystem::path& table, const std::filesystem::path& results, const Config& config,
                 const std::vector<SweepPoint>& points, const RunMetadata& meta);
// The points' table (iv/) and profiles (points/N/) in an open file: the sweep's results and its checkpoint.
void write_sweep_points(io::H5File& f, const Config& config, const std::vector<SweepPoint>& points);
std::vector<SweepPoint> read_sweep_points(const io::H5File& f);

void write_transport_results(const std::filesystem::path& path, const Config& config, const Simulation& sim, const TransportHistory& history,
                             const RunMetadata& meta);
void write_scalars(const std::filesystem::path& path, const Config& config, const TransportHistory& history);

}  // namespace quanta::mosfet
