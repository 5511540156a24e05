// quanta mosfet: the data flow of an equilibrium run, stage by stage.
#include "quanta/mosfet/run.hpp"

#include <cmath>
#include <cstdio>
#include <memory>

#include "../io/outputs.hpp"
#include "../io/transport_outputs.hpp"
#include "quanta/core/error.hpp"
#include "quanta/core/progress.hpp"
#include "quanta/core/threads.hpp"
#include "quanta/core/timer.hpp"
#include "quanta/mosfet/config.hpp"
#include "quanta/mosfet/simulation.hpp"

namespace quanta::mosfet {

namespace {

// The Boltzmann-Schroedinger-Poisson simulation (seed, section 2), stage by stage.
RunSummary run_transport(const RunOptions& opt, const Config& config, Backend backend, RunMetadata meta) {
  WallTimer total;
  RunSummary s;
  s.transport = true;
  s.nx = config.grid.nx;
  s.nz = config.grid.nz;
  s.results = opt.output_dir / "quanta-mosfet.h5";
  s.summary = opt.output_dir / "quanta-mosfet-scalars.dat";
  s.scalars = s.summary;
  s.checkpoint = opt.output_dir / "quanta-mosfet-checkpoint.h5";
  const TransportRun& tr = config.transport;
  if (opt.resume && !std::filesystem::exists(s.checkpoint))
    throw Error("mosfet: --resume: no checkpoint " + s.checkpoint.string() + " (a run of this config writes it every checkpoint_minutes)");

  // 1. The simulation on the device (the distribution resident on the GPU), or on the CPU when it does not fit.
  std::unique_ptr<Simulation> sim;
  try {
    sim = std::make_unique<Simulation>(config, tr.options, backend);
  } catch (const OutOfDeviceMemory& e) {
    note("mosfet", opt.quiet, std::string(e.what()) + ": simulating on the CPU");
    backend = Backend::Cpu;
    sim = std::make_unique<Simulation>(config, tr.options, backend);
  }
  meta.backend = to_string(backend);
  meta.device = device_description(backend);
  s.backend = meta.backend;
  s.linear_solver = to_string(config.solver.linear_solver);

  // 2. The start: the zero-bias equilibrium, its Maxwellian distribution, the bias applied; or a checkpoint.
  WallTimer t;
  sim->start();
  TransportHistory history;
  if (opt.resume) {
    sim->load_checkpoint(s.checkpoint, [&](const io::H5File& f) { history.read(f); });
    note("mosfet", opt.quiet, "resumed at step " + std::to_string(sim->steps()) + ", t = " + std::to_string(sim->time() * 1e12) + " ps");
  } else {
    history.steps.push_back(record_of(*sim, sim->observe()));
    history.profiles.push_back(sim->observe());
  }
  meta.timings.emplace_back("start", t.seconds());
  note("mosfet", opt.quiet, "transport grid " + std::to_string(config.grid.nx) + " x " + std::to_string(tr.options.nw) + " x " +
                                std::to_string(tr.options.nphi) + ", " + std::to_string(config.solver.subbands) + " subbands per valley; V_DS = " +
                                std::to_string(config.device.bias.drain_voltage) + " V, first dt = " + std::to_string(sim->next_dt() * 1e15) + " fs");

  // 3. Runge-Kutta steps to end_time or to steady state, profiles every output_interval, checkpoints every
  //    checkpoint_minutes of wall time.
  t.reset();
  const long first_step = sim->steps();
  Progress progress("mosfet transport", static_cast<std::size_t>(std::ceil(tr.end_time / tr.output_interval - 1e-9)), opt.quiet, 5.0);
  progress.set_total_work(tr.end_time * 1e15);
  progress.advance(0, sim->time() * 1e15);
  WallTimer since_checkpoint;
  double next_output = (std::floor(sim->time() / tr.output_interval + 1e-9) + 1) * tr.output_interval;
  while (sim->time() < tr.end_time * (1 - 1e-12) && !s.steady) {
    const double before = sim->time();
    sim->step(std::min(tr.end_time, next_output) - sim->time());
    const Observables o = sim->observe();
    history.steps.push_back(record_of(*sim, o));
    progress.advance(0, (sim->time() - before) * 1e15);
    if (sim->time() >= next_output * (1 - 1e-12)) {
      const double previous = history.profiles.back().drain_current;
      history.profiles.push_back(o);
      progress.advance(1, 0.0);
      next_output += tr.output_interval;
      s.steady = tr.steady_tolerance > 0 && history.profiles.size() > 2 &&
                 std::abs(o.drain_current - previous) <= tr.steady_tolerance * std::abs(o.drain_current);
    }
    if (since_checkpoint.seconds() > 60 * tr.checkpoint_minutes) {
      sim->save_checkpoint(s.checkpoint, [&](io::H5File& f) { history.write(f); });
      since_checkpoint.reset();
    }
  }
  progress.finish();
  s.seconds_transport = t.seconds();
  s.steps = sim->steps();
  s.seconds_per_step = sim->steps() > first_step ? s.seconds_transport / (sim->steps() - first_step) : 0.0;
  s.time = sim->time();
  s.drain_current = history.steps.back().drain_current;
  s.current_spread = history.steps.back().current_spread;
  s.converged = true;
  if (sim->steps() > first_step) {
    const double n = static_cast<double>(sim->steps() - first_step);
    char line[200];
    std::snprintf(line, sizeof line, "per step: %.3f ms, of which transport phase %.3f ms, Schroedinger-Poisson phase %.3f ms (3 calls, %d Newton "
                  "iterations in the last)", 1e3 * s.seconds_per_step, 1e3 * sim->transport_seconds() / n, 1e3 * sim->block_seconds() / n,
                  sim->last_newton_iterations());
    note("mosfet", opt.quiet, line);
  }
  meta.timings.emplace_back("time_steps", s.seconds_transport);
  meta.timings.emplace_back("transport_phase", sim->transport_seconds());
  meta.timings.emplace_back("schrodinger_poisson_phase", sim->block_seconds());

  // 4. Outputs, each under a temporary name renamed when complete; the checkpoint of the final state stays for
  //    a later continuation.
  s.seconds_total = total.seconds();
  meta.timings.emplace_back("total", s.seconds_total);
  write_transport_results(s.results, config, *sim, history, meta);
  write_scalars(s.scalars, config, history);
  sim->save_checkpoint(s.checkpoint, [&](io::H5File& f) { history.write(f); });
  return s;
}

}  // namespace

RunSummary run(const RunOptions& opt) {
  WallTimer total;
  set_threads(opt.threads);
  RunSummary s;

  // 1. Config, validated before anything is computed or written.
  const Config config = read_config(opt.config);
  Backend backend = resolve_backend(opt.backend);
  RunMetadata meta;
  meta.config_file = opt.config.string();
  std::filesystem::create_directories(opt.output_dir);
  s.results = opt.output_dir / "quanta-mosfet.h5";
  s.summary = opt.output_dir / "quanta-mosfet.txt";
  s.nx = config.grid.nx;
  s.nz = config.grid.nz;
  if (config.transport.enabled) return run_transport(opt, config, backend, meta);
  if (opt.resume) throw Error("mosfet: --resume continues a transport run; this config has no [transport] table");

  // 2. The device on the grid: the source contact's neutral potential, materials, doping, contacts, gates.
  WallTimer t;
  s.source_potential = neutral_contact_potential(config.device, config.grid, config.solver.subbands);
  const DeviceGrid grid = make_device_grid(config.device, config.grid, s.source_potential);
  note("mosfet", opt.quiet, "grid " + std::to_string(grid.nx) + " x " + std::to_string(grid.nz) + ", V_s = " +
                                std::to_string(s.source_potential) + " V, gates at V_s + " +
                                std::to_string(config.device.bias.gate_voltage) + " V");

  // 3. The block on the device (all arrays resident), or on the CPU when they do not fit.
  std::unique_ptr<SchrodingerPoisson> block;
  try {
    block = std::make_unique<SchrodingerPoisson>(grid, config.solver, backend);
  } catch (const OutOfDeviceMemory& e) {
    note("mosfet", opt.quiet, std::string(e.what()) + ": solving on the CPU");
    backend = Backend::Cpu;
    block = std::make_unique<SchrodingerPoisson>(grid, config.solver, backend);
  }
  meta.backend = to_string(backend);
  meta.device = device_description(backend);
  s.backend = meta.backend;
  s.linear_solver = to_string(config.solver.linear_solver);
  meta.timings.emplace_back("setup", t.seconds());

  // 4. Equilibrium: Fermi-Dirac subband populations and the potential iterated to self-consistency.
  t.reset();
  const BlockResult result = block->solve_equilibrium(0.0);
  s.seconds_block = t.seconds();
  meta.timings.emplace_back("equilibrium", s.seconds_block);
  s.converged = result.converged;
  s.newton_iterations = static_cast<int>(result.history.size());
  s.final_change = result.history.empty() ? 0.0 : result.history.back().change;
  // Not converged is not a result: nothing is written, and the command exits non-zero with the numbers.
  if (!result.converged) throw Error(not_converged_message(result, config.solver));

  // 5. Outputs, each under a temporary name renamed when complete.
  s.seconds_total = total.seconds();
  meta.timings.emplace_back("total", s.seconds_total);
  write_results(s.results, config, *block, result, meta);
  write_summary(s.summary, config, *block, result, meta);
  return s;
}

}  // namespace quanta::mosfet
