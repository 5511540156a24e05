// quanta mosfet: the data flow of an equilibrium run, stage by stage.
#include "quanta/mosfet/run.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

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

struct Integration {
  bool steady = false;
  long steps = 0;
  double seconds = 0, transport_seconds = 0, block_seconds = 0;
};

// Toward steady state: I_D, its change over the last output interval and, from the convergence of the changes
// so far (intervals_to_steady), the simulated and wall time left at the measured cost (wall seconds per
// simulated second and per step).
std::string steady_state_note(const std::string& stage, const TransportRun& tr, double current, const std::vector<double>& changes,
                              double wall_per_simulated, double seconds_per_step) {
  const double intervals = std::ceil(intervals_to_steady(changes, tr.steady_tolerance));
  char line[320];
  int n = std::snprintf(line, sizeof line, "%s: I_D = %.6e A/m changed by %.2e over the last %.4g ps (steady below %.1e); ", stage.c_str(),
                        current, changes.back(), tr.output_interval * 1e12, tr.steady_tolerance);
  if (intervals > 0)
    std::snprintf(line + n, sizeof line - n, "at its rate of convergence about %.0f more intervals (%.3g ps, %.0f s at %.3g ms per step)",
                  intervals, intervals * tr.output_interval * 1e12, intervals * tr.output_interval * wall_per_simulated, 1e3 * seconds_per_step);
  else
    std::snprintf(line + n, sizeof line - n, "not yet converging steadily, no estimate");
  return line;
}

// Runge-Kutta steps from the simulation's time to `until` (s) or to steady state (I_D changing by less than
// steady_tolerance over an output interval, after at least two intervals of this integration), appending each
// step's scalars and the profiles at the output times to `history`; a checkpoint every checkpoint_minutes
// (none when `checkpoint` is empty).
Integration integrate(Simulation& sim, const TransportRun& tr, double until, TransportHistory& history, const std::filesystem::path& checkpoint,
                      bool quiet, const std::string& stage) {
  Integration r;
  WallTimer wall, since_checkpoint;
  const long first_step = sim.steps();
  const double t0 = sim.time(), transport0 = sim.transport_seconds(), block0 = sim.block_seconds();
  const std::size_t first_profile = history.profiles.size();
  Progress progress(stage, static_cast<std::size_t>(std::ceil((until - t0) / tr.output_interval - 1e-9)), quiet, 5.0);
  progress.set_total_work((until - t0) * 1e15);
  double next_output = (std::floor(t0 / tr.output_interval + 1e-9) + 1) * tr.output_interval;
  std::vector<double> changes;  // of I_D over each output interval of this integration, relative
  double last_estimate = -1e9;  // wall time of the last steady-state estimate (one every 10 s at most)
  while (sim.time() < until * (1 - 1e-12) && !r.steady) {
    const double before = sim.time();
    sim.step(std::min(until, next_output) - sim.time());
    const Observables o = sim.observe();
    history.steps.push_back(record_of(sim, o));
    progress.advance(0, (sim.time() - before) * 1e15);
    if (sim.time() >= next_output * (1 - 1e-12)) {
      const double previous = history.profiles.empty() ? 0.0 : history.profiles.back().drain_current;
      history.profiles.push_back(o);
      progress.advance(1, 0.0);
      next_output += tr.output_interval;
      if (history.profiles.size() >= first_profile + 2) changes.push_back(std::abs(o.drain_current - previous) / std::abs(o.drain_current));
      r.steady = tr.steady_tolerance > 0 && !changes.empty() && changes.back() <= tr.steady_tolerance;
      if (tr.steady_tolerance > 0 && !r.steady && changes.size() >= 3 && wall.seconds() - last_estimate >= 10.0) {
        last_estimate = wall.seconds();
        note("mosfet", quiet, steady_state_note(stage, tr, o.drain_current, changes, wall.seconds() / (sim.time() - t0),
                                                wall.seconds() / std::max(1L, sim.steps() - first_step)));
      }
    }
    if (!checkpoint.empty() && since_checkpoint.seconds() > 60 * tr.checkpoint_minutes) {
      sim.save_checkpoint(checkpoint, [&](io::H5File& f) { history.write(f); });
      since_checkpoint.reset();
    }
  }
  progress.finish();
  r.steps = sim.steps() - first_step;
  r.seconds = wall.seconds();
  r.transport_seconds = sim.transport_seconds() - transport0;
  r.block_seconds = sim.block_seconds() - block0;
  return r;
}

std::string step_costs(const Simulation& sim, const Integration& run) {
  const double n = static_cast<double>(run.steps);
  char line[200];
  std::snprintf(line, sizeof line, "per step: %.3f ms, of which transport phase %.3f ms, Schroedinger-Poisson phase %.3f ms (3 calls, %d Newton "
                "iterations in the last)", 1e3 * run.seconds / n, 1e3 * run.transport_seconds / n, 1e3 * run.block_seconds / n,
                sim.last_newton_iterations());
  return line;
}

// The simulation on the configured backend, or on the CPU when its arrays do not fit the device.
std::unique_ptr<Simulation> make_simulation(const Config& config, Backend& backend, bool quiet) {
  try {
    return std::make_unique<Simulation>(config, config.transport.options, backend);
  } catch (const OutOfDeviceMemory& e) {
    note("mosfet", quiet, std::string(e.what()) + ": simulating on the CPU");
    backend = Backend::Cpu;
    return std::make_unique<Simulation>(config, config.transport.options, backend);
  }
}

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

  // 1. The simulation on the device (the distribution resident on the GPU), or on the CPU when it does not fit.
  std::unique_ptr<Simulation> sim = make_simulation(config, backend, opt.quiet);
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
    const Observables first = sim->observe();
    history.steps.push_back(record_of(*sim, first));
    history.profiles.push_back(first);
  }
  meta.timings.emplace_back("start", t.seconds());
  note("mosfet", opt.quiet, "transport grid " + std::to_string(config.grid.nx) + " x " + std::to_string(tr.options.nw) + " x " +
                                std::to_string(tr.options.nphi) + ", " + std::to_string(config.solver.subbands) + " subbands per valley; V_DS = " +
                                std::to_string(config.device.bias.drain_voltage) + " V, first dt = " + std::to_string(sim->next_dt() * 1e15) + " fs");

  // 3. Runge-Kutta steps to end_time or to steady state, profiles every output_interval, checkpoints every
  //    checkpoint_minutes of wall time.
  const Integration run = integrate(*sim, tr, tr.end_time, history, s.checkpoint, opt.quiet, "mosfet transport");
  s.steady = run.steady;
  s.seconds_transport = run.seconds;
  s.steps = sim->steps();
  s.seconds_per_step = run.steps > 0 ? run.seconds / run.steps : 0.0;
  s.time = sim->time();
  s.drain_current = history.steps.back().drain_current;
  s.current_spread = history.steps.back().current_spread;
  s.converged = true;
  if (run.steps > 0) {
    note("mosfet", opt.quiet, step_costs(*sim, run));
    std::string kernels = "Schroedinger-Poisson kernels per step (ms, timed on " + std::to_string(sim->timed_steps()) + " steps):";
    for (const auto& [name, seconds] : sim->block().kernel_times().seconds) {
      char item[96];
      std::snprintf(item, sizeof item, " %s %.3f", name.c_str(), 1e3 * seconds / sim->timed_steps());
      kernels += item;
    }
    if (sim->timed_steps() > 0) note("mosfet", opt.quiet, kernels);
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

// I-V characteristics: each bias point of a curve run to steady state from the previous point's. After each
// point the state and the points so far go to quanta-mosfet-sweep-checkpoint.h5; --resume continues after the
// last point it holds.
RunSummary run_sweep(const RunOptions& opt, const Config& config, Backend backend, RunMetadata meta) {
  WallTimer total;
  RunSummary s;
  s.transport = true;
  s.nx = config.grid.nx;
  s.nz = config.grid.nz;
  s.results = opt.output_dir / "quanta-mosfet-sweep.h5";
  s.summary = opt.output_dir / "quanta-mosfet-iv.dat";
  s.checkpoint = opt.output_dir / "quanta-mosfet-sweep-checkpoint.h5";
  const TransportRun& tr = config.transport;
  struct Curve {
    const char* name;
    const std::vector<double>* voltages;
    bool drain;  // the drain voltage varies (else the gate)
  };
  const Curve curves[] = {{"id_vds", &config.sweep.drain_voltages, true}, {"id_vgs", &config.sweep.gate_voltages, false}};
  const auto bias_of = [&](const Curve& curve, double v) {
    Bias b = config.device.bias;
    (curve.drain ? b.drain_voltage : b.gate_voltage) = v;
    return b;
  };
  // 1. The points done by an earlier run: the checkpoint's, which must be the first of this config's.
  std::vector<SweepPoint> points;
  if (opt.resume) {
    points = read_sweep_points(io::H5File(s.checkpoint, io::H5File::Mode::Read));
    std::size_t k = 0;
    for (const Curve& curve : curves)
      for (double v : *curve.voltages) {
        if (k >= points.size()) break;
        const Bias b = bias_of(curve, v);
        const SweepPoint& p = points[k++];
        if (p.curve != curve.name || p.gate_voltage != b.gate_voltage || p.drain_voltage != b.drain_voltage)
          throw Error("mosfet sweep --resume: point " + std::to_string(k) + " of " + s.checkpoint.string() + " (" + p.curve + ", V_GS = " +
                      std::to_string(p.gate_voltage) + " V, V_DS = " + std::to_string(p.drain_voltage) + " V) is not point " + std::to_string(k) +
                      " of the config's [sweep] (" + curve.name + ", V_GS = " + std::to_string(b.gate_voltage) + " V, V_DS = " +
                      std::to_string(b.drain_voltage) + " V)");
      }
    if (k < points.size())
      throw Error("mosfet sweep --resume: " + s.checkpoint.string() + " holds " + std::to_string(points.size()) + " points, the config's [sweep] " +
                  std::to_string(k));
    note("mosfet", opt.quiet, "sweep resumed after " + std::to_string(points.size()) + " completed points");
  }
  const std::size_t done = points.size();
  std::size_t index = 0;  // of the next point over both curves
  for (const Curve& curve : curves) {
    const std::size_t first = index, n = curve.voltages->size();
    index += n;
    if (n == 0 || done >= index) continue;  // no point, or all of them done
    const std::size_t start = done > first ? done - first : 0;  // the curve's first point still to run
    // 2. The curve's first point from the zero-bias equilibrium, like a transport run; or, resuming within the
    //    curve, the state of its last completed point.
    Config at = config;
    at.device.bias = bias_of(curve, (*curve.voltages)[start > 0 ? start - 1 : 0]);
    std::unique_ptr<Simulation> sim = make_simulation(at, backend, opt.quiet);
    meta.backend = to_string(backend);
    meta.device = device_description(backend);
    sim->start();
    if (start > 0) sim->load_checkpoint(s.checkpoint);
    // 3. Each point to steady state (end_time of simulated time at most), the next from where it ended.
    for (std::size_t k = start; k < n; ++k) {
      if (k > 0) sim->set_bias(bias_of(curve, (*curve.voltages)[k]));
      const Bias& b = sim->bias();
      char stage[96];
      std::snprintf(stage, sizeof stage, "mosfet sweep V_GS = %.3f V, V_DS = %.3f V", b.gate_voltage, b.drain_voltage);
      TransportHistory history;
      history.profiles.push_back(sim->observe());
      const double t0 = sim->time();
      const Integration run = integrate(*sim, tr, t0 + tr.end_time, history, {}, opt.quiet, stage);
      SweepPoint p;
      p.curve = curve.name;
      p.gate_voltage = b.gate_voltage;
      p.drain_voltage = b.drain_voltage;
      p.profile = sim->observe();
      p.drain_current = p.profile.drain_current;
      p.current_spread = p.profile.current_spread;
      p.time = sim->time() - t0;
      p.steps = run.steps;
      p.steady = run.steady;
      p.potential = sim->block().potential();
      points.push_back(p);
      sim->save_checkpoint(s.checkpoint, [&](io::H5File& f) { write_sweep_points(f, config, points); });
      s.steps += run.steps;
      s.seconds_transport += run.seconds;
      char line[200];
      std::snprintf(line, sizeof line, "%s: I_D = %.6e A/m (spread %.2e) after %.4f ps, %ld steps, %s; ", stage + 7, p.drain_current, p.current_spread,
                    p.time * 1e12, p.steps, p.steady ? "steady" : "NOT steady within end_time");
      if (run.steps > 0) note("mosfet", opt.quiet, line + step_costs(*sim, run));
    }
  }
  // 4. The table and the points' profiles; a point that did not reach steady state is marked in both and
  //    makes the command exit non-zero.
  s.backend = meta.backend;
  s.linear_solver = to_string(config.solver.linear_solver);
  s.sweep_points = static_cast<int>(points.size());
  for (const SweepPoint& p : points) s.sweep_steady += p.steady ? 1 : 0;
  s.seconds_per_step = s.steps > 0 ? s.seconds_transport / s.steps : 0.0;
  s.seconds_total = total.seconds();
  meta.timings.emplace_back("total", s.seconds_total);
  write_sweep(s.summary, s.results, config, points, meta);
  if (s.sweep_steady < s.sweep_points)
    throw Error("mosfet sweep: " + std::to_string(s.sweep_points - s.sweep_steady) + " of " + std::to_string(s.sweep_points) +
                " bias points did not reach steady state (steady_tolerance " + std::to_string(tr.steady_tolerance) + ") within end_time = " +
                std::to_string(tr.end_time * 1e12) + " ps; " + s.summary.string() + " marks them (steady = no)");
  s.converged = true;
  return s;
}

}  // namespace

RunSummary run(const RunOptions& opt) {
  WallTimer total;
  set_threads(opt.threads);
  RunSummary s;

  // 1. Config, validated before anything is computed or written.
  const Config config = read_config(opt.config);
  if (opt.sweep && !config.sweep.enabled)
    throw InputError(opt.config.string(), "has no [sweep] table (quanta mosfet sweep runs its drain_voltages and gate_voltages; docs/mosfet.md)");
  if (opt.sweep && opt.resume && !std::filesystem::exists(opt.output_dir / "quanta-mosfet-sweep-checkpoint.h5"))
    throw Error("mosfet sweep: --resume: no checkpoint " + (opt.output_dir / "quanta-mosfet-sweep-checkpoint.h5").string() +
                " (a sweep writes it after every completed point)");
  if (!opt.sweep && config.sweep.enabled)
    throw InputError(opt.config.string(), "holds a [sweep] table, which `quanta mosfet sweep` runs; `quanta mosfet` would ignore it");
  if (opt.resume && !config.transport.enabled) throw Error("mosfet: --resume continues a transport run; this config has no [transport] table");
  if (opt.resume && !opt.sweep && !std::filesystem::exists(opt.output_dir / "quanta-mosfet-checkpoint.h5"))
    throw Error("mosfet: --resume: no checkpoint " + (opt.output_dir / "quanta-mosfet-checkpoint.h5").string() +
                " (a transport run writes it every checkpoint_minutes and at its end)");
  Backend backend = resolve_backend(opt.backend);
  RunMetadata meta;
  meta.config_file = opt.config.string();
  std::filesystem::create_directories(opt.output_dir);
  s.results = opt.output_dir / "quanta-mosfet.h5";
  s.summary = opt.output_dir / "quanta-mosfet.txt";
  s.nx = config.grid.nx;
  s.nz = config.grid.nz;
  if (opt.sweep) return run_sweep(opt, config, backend, meta);
  if (config.transport.enabled) return run_transport(opt, config, backend, meta);

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
