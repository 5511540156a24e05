#pragma once
// The Boltzmann-Schroedinger-Poisson simulation of the double-gate MOSFET (seed, section 2;
// docs/mosfet-transport-model.md): the multi-subband Boltzmann equations advanced by third-order TVD
// Runge-Kutta, the Schroedinger-Poisson block solved after every stage on that stage's surface densities.
//
//   start():  the zero-bias equilibrium (Maxwell-Boltzmann subbands, the only equilibrium of the collision
//             operator), the Maxwellian distribution of its densities, then the bias applied (the block's
//             state of the biased device for those densities);
//   step():   one Runge-Kutta step of the CFL-limited size; the distribution stays where the engine keeps it
//             (the GPU's memory), only the surface densities and the block's state cross between them.
#include <filesystem>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "quanta/core/backend.hpp"
#include "quanta/core/io/hdf5.hpp"
#include "quanta/mosfet/config.hpp"
#include "quanta/mosfet/schrodinger_poisson.hpp"
#include "quanta/mosfet/transport.hpp"

namespace quanta::mosfet {

class TransportEngine;

// How many more output intervals until I_D settles: from the relative changes of I_D over the last output
// intervals (oldest first), the least-squares slope of log(change) over the last (up to 6) of them, extrapolated
// to `tolerance`. Returns 0 when the last change is already below it, and -1 when there are fewer than 3
// changes or they are not shrinking (a growing or undamped swing gives no estimate).
double intervals_to_steady(const std::vector<double>& changes, double tolerance);

// The macroscopic state at one time, in SI (per unit device width where a width applies). Subband arrays are
// [3][nsbn][nx]; per-valley arrays [3][nx]; profiles [nx].
struct Observables {
  double time = 0;                   // s
  long step = 0;
  std::vector<double> x;             // nm
  std::vector<double> density;       // total surface density, both spins and both valleys of a pair, m^-2
  std::vector<double> current;       // electron particle current times q, A/m (> 0 from source to drain)
  std::vector<double> subband_density, subband_current;  // one valley of a pair, m^-2 and A/m
  std::vector<double> valley_velocity;  // m/s, [3][nx]
  std::vector<double> valley_energy;    // mean kinetic energy, eV, [3][nx]
  double drain_current = 0;          // the mean over x of the current, A/m (1 A/m = 1 uA/um)
  double current_spread = 0;         // max_x |j - mean| / |mean| (0 when the mean is 0)
  double mass = 0;                   // int density dx, m^-1
  double top_cell = 0;               // max over subbands and x of the last energy cell's angle integral (dimensionless)
  double contact_excess[2] = {0, 0}; // electrons minus donors in the source and drain columns, m^-2
};

class Simulation {
 public:
  // The backend must be resolved (Cpu or Cuda). The block is built with Maxwell-Boltzmann statistics.
  Simulation(const Config& config, const TransportOptions& options, Backend backend);
  ~Simulation();
  Simulation(const Simulation&) = delete;
  Simulation& operator=(const Simulation&) = delete;

  void start();
  // A new bias on the current state (a sweep's next point): the block of the device at the new voltages from the
  // current potential; the contacts' equilibrium densities those of the zero-bias equilibrium at the new gate
  // voltage. The distribution is kept.
  void set_bias(const Bias& bias);
  const Bias& bias() const { return config_.device.bias; }
  // One step of the CFL size, or of `at_most` seconds when that is shorter (to land on an output time).
  void step(double at_most = std::numeric_limits<double>::infinity());
  // The state after the last step into `file` (written under a temporary name, renamed when complete), with
  // what `extra` adds (a caller's history). load_checkpoint restores it into a started simulation of the same
  // config and hands the file to `extra`; it throws InputError naming the field when the checkpoint belongs
  // to another device, bias, grid or physics.
  void save_checkpoint(const std::filesystem::path& file, const std::function<void(io::H5File&)>& extra = {}) const;
  void load_checkpoint(const std::filesystem::path& file, const std::function<void(const io::H5File&)>& extra = {});

  double time() const;       // s
  double next_dt() const;    // s, the CFL step the next step() takes
  long steps() const { return step_; }
  int last_newton_iterations() const { return newton_iterations_; }
  Observables observe() const;
  std::vector<double> distribution() const;  // [3][nsbn][nx][nw][nphi], dimensionless
  // Replaces the distribution (of the same grid); the next step's first stage still uses the current block state.
  void set_distribution(const std::vector<double>& phi);
  const SchrodingerPoisson& block() const { return *block_; }
  const ContactBoundary& contacts() const { return contacts_; }  // of the equilibrium (TransportOptions::contacts)
  double fermi_level() const { return fermi_level_; }            // eV, of the equilibrium
  const std::vector<double>& roughness_form_factors() const { return form_factors_; }  // [nx][3 nsbn] (k_B T)^2; empty when off
  Backend backend() const { return backend_; }
  // Wall seconds spent in the transport phase (right-hand sides, Runge-Kutta combinations and moments) and in the
  // block's calls since start().
  double transport_seconds() const { return transport_seconds_; }
  double block_seconds() const { return block_seconds_; }
  // The block's kernels are timed (a device synchronization after each) on one step in kTimedEvery (steps
  // kTimedEvery - 1, 2 kTimedEvery - 1, ...): their times (block().kernel_times()) are the sums over the steps
  // timed since this object started.
  static constexpr long kTimedEvery = 20;
  long timed_steps() const { return timed_steps_; }

 private:
  void make_block(const std::vector<double>& potential);  // the biased device's block from a potential (with roughness's grid)
  void solve_block(const std::string& where);  // moments -> block -> eps, overlaps (the current stage's state)
  void equilibrium_contacts();  // contacts_ and fermi_level_ for the current gate voltage
  std::vector<double> zero_bias_equilibrium();  // rho_eq_ for the current gate voltage; returns its potential
  std::vector<double> contact_scale() const;
  double cfl_step() const;  // dimensionless
  std::vector<std::pair<std::string, double>> run_keys() const;

  Config config_;
  TransportOptions opt_;
  Backend backend_;
  TransportScales scales_;
  std::unique_ptr<SchrodingerPoisson> block_;
  std::unique_ptr<TransportEngine> engine_;
  struct Setup;
  std::unique_ptr<Setup> setup_;
  double t_ = 0, dt_ = 0;  // dimensionless
  ContactBoundary contacts_;  // the contacts' and gates' potentials of the equilibrium (ContactModel)
  double fermi_level_ = 0;    // the contacts' Fermi level in the equilibrium, eV
  long step_ = 0, timed_steps_ = 0;
  int newton_iterations_ = 0;
  double transport_seconds_ = 0, block_seconds_ = 0;
  // The current stage's state: densities rho [3][nsbn][nx] and moments (dimensionless), the equilibrium
  // densities the contacts keep, the subband energies eps [nx][3][nsbn] (k_B T) and overlaps.
  std::vector<double> rho_eq_, eps_, overlaps_;
  std::vector<double> form_factors_;  // surface roughness: [nx][3 nsbn], (k_B T)^2
  std::vector<double> rho_, current_, energy_, top_;
};

}  // namespace quanta::mosfet
