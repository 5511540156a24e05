// The coupled Boltzmann-Schroedinger-Poisson time integration (quanta/mosfet/simulation.hpp) on a reduced
// grid of the seed's device (20 nm: 5 / 10 / 5 nm, 6 nm film between 1 nm oxides, 12 nm gates centred):
// the zero-bias equilibrium stays put, a drain bias drives electrons from source to drain, the GPU follows
// the CPU step by step, and a run resumed from its checkpoint continues the uninterrupted one.
#include <gtest/gtest.h>

#include <chrono>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <string>

#include "quanta/core/backend.hpp"
#include "quanta/core/error.hpp"
#include "quanta/mosfet/simulation.hpp"
#include "test_support.hpp"

namespace quanta::mosfet {
namespace {

Config seed_device(double drain_voltage, int nx = 17, int nz = 25, int subbands = 3) {
  Config c;
  Device& d = c.device;
  d.geometry = Geometry{5, 10, 5, 1, 6, 4, 16};
  d.bias.gate_voltage = 0.5;
  d.bias.drain_voltage = drain_voltage;
  c.grid = GridSize{nx, nz};
  c.solver.subbands = subbands;
  return c;
}

TransportOptions small_grid() {
  TransportOptions t;
  t.nw = 48;
  t.nphi = 12;
  t.w_max = 24;
  return t;
}

using mosfet_test::max_rel;

// Runs `steps` steps and returns the largest relative change of the density profile from t = 0 and the
// observables at the end.
struct Trace {
  double density_change = 0;
  Observables last;
};
Trace run_steps(Simulation& sim, int steps) {
  const Observables first = sim.observe();
  Trace r;
  for (int n = 0; n < steps; ++n) {
    sim.step();
    const Observables o = sim.observe();
    r.density_change = std::max(r.density_change, max_rel(o.density, first.density));
  }
  r.last = sim.observe();
  return r;
}

// At zero drain bias the symmetric device keeps the equilibrium it starts from: the net current (the mean
// over x) stays at round-off next to the current of a 0.1 V bias after the same number of steps, and j(x) and
// the density stay mirror-symmetric about the channel's centre. Locally the state breathes: the discrete
// Maxwellian is stationary only to the discretisation error at the abrupt source and drain junctions
// (per-step density change at t = 0 measured 1.9%, 1.0%, 0.23% at nx = 17, 33, 65), so the local density
// bound below is the coarse grid's measured excursion with a margin, not a physical tolerance.
// The steady-state estimate: a change halving every interval from 0.025 reaches 1e-3 after log2(25) = 4.64 more;
// too few changes, or changes that do not shrink, give no estimate; a change already below gives 0.
TEST(Simulation, IntervalsToSteadyFollowTheConvergenceOfTheCurrent) {
  EXPECT_NEAR(intervals_to_steady({0.1, 0.05, 0.025}, 1e-3), std::log2(25.0), 1e-12);
  EXPECT_NEAR(intervals_to_steady({0.9, 0.02, 0.8, 0.4, 0.2, 0.1, 0.05, 0.025}, 1e-3), std::log2(25.0), 1e-12);  // the last 6 only
  EXPECT_EQ(intervals_to_steady({0.1, 0.05}, 1e-3), -1);
  EXPECT_EQ(intervals_to_steady({0.01, 0.02, 0.04}, 1e-3), -1);
  EXPECT_EQ(intervals_to_steady({0.01, 0.01, 0.01}, 1e-3), -1);
  EXPECT_EQ(intervals_to_steady({0.1, 0.05, 5e-4}, 1e-3), 0);
  // A damped swing: the fit follows its envelope.
  const double swing = intervals_to_steady({0.1, 0.02, 0.05, 0.01, 0.025, 0.005}, 1e-3);
  EXPECT_GT(swing, 0);
  EXPECT_LT(swing, 20);
}

TEST(Simulation, ZeroBiasKeepsTheEquilibrium) {
  Simulation eq(seed_device(0.0), small_grid(), Backend::Cpu), biased(seed_device(0.1), small_grid(), Backend::Cpu);
  eq.start();
  biased.start();
  const Trace a = run_steps(eq, 150), b = run_steps(biased, 150);
  const Observables& o = a.last;
  const std::size_t nx = o.x.size();
  double local = 0, asym_j = 0, asym_rho = 0;
  for (std::size_t i = 0; i < nx; ++i) {
    local = std::max(local, std::abs(o.current[i]));
    asym_j = std::max(asym_j, std::abs(o.current[i] + o.current[nx - 1 - i]));
    asym_rho = std::max(asym_rho, std::abs(o.density[i] - o.density[nx - 1 - i]) / o.density[i]);
  }
  std::printf("after 150 steps (%.3g fs, %.3g fs): zero bias I %.3e A/m, max |j(x)| %.3e A/m, density change %.3e, asymmetry "
              "j %.2e A/m rho %.2e; 0.1 V: I %.4e A/m, density change %.3e\n", o.time * 1e15, b.last.time * 1e15, o.drain_current,
              local, a.density_change, asym_j, asym_rho, b.last.drain_current, b.density_change);
  EXPECT_GT(b.last.drain_current, 1e3);  // A/m: the device is on (gates at V_s + 0.5 V)
  // Measured |I| ~ 5e-8 A/m against ~3e3 A/m; 1e-6 of the biased current leaves the block's Newton tolerance
  // (1e-9 V) a wide margin and fails on any net drift.
  EXPECT_LT(std::abs(o.drain_current), 1e-6 * b.last.drain_current);
  // Mirror symmetry to round-off accumulated over 150 steps and 450 block solves (each to 1e-9 V).
  EXPECT_LT(asym_j, 1e-6 * b.last.drain_current);
  EXPECT_LT(asym_rho, 1e-8);
  // Measured 6.3% on this grid (nx = 17: 1.25 nm cells across junctions where the doping falls 1e8-fold).
  EXPECT_LT(a.density_change, 0.1);
}

// The seed's code's contacts (docs/mosfet-transport-model.md, section 6): the profile V_b(z) is the source column
// of a solve with open contacts, so it is mirror-symmetric in z and not flat (the gates pull the surfaces up);
// with it at both contacts and zero drain bias the device stays in equilibrium as with flat contacts; and the
// Maxwell-Boltzmann Fermi level puts the source column's donors into its subbands up to the change of its levels
// between the open-contact solve and the equilibrium (measured below).
TEST(Simulation, SeedCodeContactsKeepTheEquilibrium) {
  TransportOptions t = small_grid();
  t.contacts = ContactModel::SeedCode;
  Simulation sim(seed_device(0.0), t, Backend::Cpu);
  sim.start();
  const std::vector<double>& vb = sim.contacts().profile;
  const DeviceGrid& g = sim.block().grid();
  double asym = 0, spread = 0;
  for (int j = g.silicon_first; j <= g.silicon_last; ++j) {
    asym = std::max(asym, std::abs(vb[j] - vb[g.nz - 1 - j]));
    spread = std::max(spread, std::abs(vb[j] - vb[(g.silicon_first + g.silicon_last) / 2]));
  }
  const Observables first = sim.observe();
  double donors = 0;
  for (int j = 0; j < g.nz; ++j) donors += g.doping[j] * g.dz * 1e18;  // m^-2
  const Trace a = run_steps(sim, 100);
  std::printf("V_b(z) spread %.4f V, asymmetry %.2e V; E_F %.5f eV; source column electrons - donors %.3e of the donors; after 100 steps "
              "I %.3e A/m, density change %.3e\n", spread, asym, sim.fermi_level(), first.contact_excess[0] / donors, a.last.drain_current,
              a.density_change);
  EXPECT_LT(asym, 1e-9);
  EXPECT_GT(spread, 0.01);  // V: not flat
  EXPECT_LT(std::abs(first.contact_excess[0]) / donors, 1e-4);  // measured 1.6e-6
  EXPECT_LT(std::abs(a.last.drain_current), 1e-3);  // A/m: ~1e-6 of the 0.1 V current (> 1e3 A/m) above
  EXPECT_LT(a.density_change, 0.1);
}

// A 0.1 V drain bias drives electrons from source to drain through every node.
TEST(Simulation, DrainBiasDrivesCurrentSourceToDrain) {
  Simulation sim(seed_device(0.1), small_grid(), Backend::Cpu);
  sim.start();
  const Trace r = run_steps(sim, 120);
  for (std::size_t i = 0; i < r.last.current.size(); ++i) EXPECT_GT(r.last.current[i], 0.0) << "x node " << i;
  for (double d : r.last.subband_density) EXPECT_GT(d, 0.0);
  // The electrons near the drain carry the drift: the mean velocity of every valley is positive in the channel.
  const int nx = static_cast<int>(r.last.x.size());
  for (int v = 0; v < 3; ++v) EXPECT_GT(r.last.valley_velocity[v * nx + nx / 2], 0.0) << "valley " << v;
}

// A run stopped after its checkpoint and resumed from it continues the uninterrupted run: the distribution,
// the time and the current agree to the block's convergence tolerance (the resumed block starts its
// eigenpairs afresh; everything else is restored exactly).
TEST(Simulation, ResumedRunContinuesTheUninterruptedOne) {
  const auto file = std::filesystem::temp_directory_path() / "quanta-mosfet-simulation-checkpoint.h5";
  Simulation whole(seed_device(0.1), small_grid(), Backend::Cpu);
  whole.start();
  run_steps(whole, 15);
  whole.save_checkpoint(file);
  run_steps(whole, 15);
  Simulation resumed(seed_device(0.1), small_grid(), Backend::Cpu);
  resumed.start();
  resumed.load_checkpoint(file);
  EXPECT_EQ(resumed.steps(), 15);
  run_steps(resumed, 15);
  EXPECT_EQ(resumed.steps(), whole.steps());
  // Each step's dt is the CFL step of the block's eigenvalues, which the resumed run reproduces to the block's
  // tolerance rather than bit for bit (measured 5.9e-16 relative after 15 steps): the distribution's bound.
  EXPECT_NEAR(resumed.time(), whole.time(), 1e-9 * whole.time());
  const double d = max_rel(resumed.distribution(), whole.distribution());
  std::printf("resumed vs uninterrupted after 30 steps: distribution %.3e, current %.6e vs %.6e A/m\n", d,
              resumed.observe().drain_current, whole.observe().drain_current);
  EXPECT_LT(d, 1e-9);
  // A checkpoint of another bias is refused by name.
  Simulation other(seed_device(0.2), small_grid(), Backend::Cpu);
  other.start();
  try {
    other.load_checkpoint(file);
    ADD_FAILURE() << "a checkpoint of another drain bias was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("drain_voltage"), std::string::npos) << e.what();
  }
  std::filesystem::remove(file);
}

// WENO5 is not positivity-preserving: an empty subband dipping below zero by round-off is passed to the block
// as zero and the run goes on; a negative density beyond round-off stops the run, naming the subband and node.
TEST(Simulation, NegativeDensityBeyondRoundOffStopsTheRun) {
  const auto set_line = [](Simulation& sim, double value) {
    std::vector<double> phi = sim.distribution();
    const long per_node = 48L * 12, nx = 17;
    const long at = ((2L * 3 + 2) * nx + 5) * per_node;  // valley 3, subband 2, x node 5
    std::fill(phi.begin() + at, phi.begin() + at + per_node, value);
    sim.set_distribution(phi);
  };
  Simulation sim(seed_device(0.1), small_grid(), Backend::Cpu);
  sim.start();
  set_line(sim, -1e-30);
  EXPECT_NO_THROW(sim.step());
  set_line(sim, -1e-3);
  try {
    sim.step();
    ADD_FAILURE() << "a negative density of 1e-3 was accepted";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("valley 3, subband 2 at x node 5 is negative"), std::string::npos) << what;
    EXPECT_NE(what.find("step 2, Runge-Kutta stage 1"), std::string::npos) << what;
  }
}

// The GPU engine and block follow the CPU's step by step: the same distribution to 1e-9 after 10 steps
// (the transport terms agree to 1e-14 per evaluation; the block's Newton tolerance, 1e-9 V, bounds the rest).
TEST(Simulation, GpuFollowsCpu) {
#ifdef QUANTA_HAVE_CUDA
  if (cuda_device_count() == 0) GTEST_SKIP() << "no GPU";
  Simulation cpu(seed_device(0.1), small_grid(), Backend::Cpu), gpu(seed_device(0.1), small_grid(), Backend::Cuda);
  cpu.start();
  gpu.start();
  // The eigenvalues, and so eps' and the CFL step, agree to round-off (measured 5e-15).
  EXPECT_NEAR(gpu.next_dt(), cpu.next_dt(), 1e-12 * cpu.next_dt());
  run_steps(cpu, 10);
  run_steps(gpu, 10);
  const double d = max_rel(gpu.distribution(), cpu.distribution());
  const Observables a = cpu.observe(), b = gpu.observe();
  std::printf("GPU vs CPU after 10 steps: distribution %.3e, current %.9e vs %.9e A/m\n", d, b.drain_current, a.drain_current);
  EXPECT_LT(d, 1e-9);
  EXPECT_LT(max_rel(b.current, a.current), 1e-9);
  EXPECT_LT(std::abs(gpu.time() - cpu.time()), 1e-12 * cpu.time());
#else
  GTEST_SKIP() << "built without CUDA";
#endif
}

}  // namespace
}  // namespace quanta::mosfet
