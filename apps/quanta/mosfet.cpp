// quanta mosfet: the Schroedinger-Poisson equilibrium of a double-gate MOSFET from a TOML config.
#include <cstdio>
#include <memory>

#include "cli.hpp"
#include "quanta/mosfet/run.hpp"

namespace quanta::cli {

Subcommand add_mosfet(CLI::App& app) {
  struct Values {
    CommonOptions common, sweep_common;
    mosfet::RunOptions run;
    std::string config, output, sweep_config, sweep_output;
    bool sweep_resume = false;
  };
  auto v = std::make_shared<Values>();
  Subcommand s;
  s.app = app.add_subcommand("mosfet", "double-gate MOSFET: Schroedinger-Poisson equilibrium, or with a [transport] table the "
                                        "Boltzmann-Schroedinger-Poisson simulation in time");
  s.app->add_option("CONFIG", v->config, "TOML config (docs/mosfet.md lists the keys)");
  s.app->add_option("-o,--output-dir", v->output, "where quanta-mosfet.h5 and the text outputs go (default: the current directory)");
  s.app->add_flag("--resume", v->run.resume, "continue a transport run from quanta-mosfet-checkpoint.h5 in the output folder");
  add_common_options(s.app, v->common, false);
  CLI::App* sweep = s.app->add_subcommand("sweep", "I_D-V_DS and I_D-V_GS characteristics: the bias points of the config's [sweep] table, each run to "
                                                   "steady state from the previous one");
  sweep->add_option("CONFIG", v->sweep_config, "TOML config with [transport] and [sweep] tables (docs/mosfet.md)")->required();
  sweep->add_option("-o,--output-dir", v->sweep_output, "where quanta-mosfet-iv.dat and quanta-mosfet-sweep.h5 go (default: the current directory)");
  sweep->add_flag("--resume", v->sweep_resume, "continue a sweep after its last completed point (quanta-mosfet-sweep-checkpoint.h5 in the output folder)");
  add_common_options(sweep, v->sweep_common, false);
  s.run = [v, sweep] {
    auto& o = v->run;
    if (sweep->parsed()) {
      o.sweep = true;
      v->config = v->sweep_config;
      v->output = v->sweep_output;
      v->common = v->sweep_common;
      o.resume = v->sweep_resume;
    } else if (v->config.empty()) {
      std::fprintf(stderr, "quanta mosfet: CONFIG is required (quanta mosfet --help)\n");
      return 1;
    }
    o.config = v->config;
    o.output_dir = output_dir_or_cwd(v->output);
    o.backend = v->common.parsed_backend();
    o.threads = v->common.threads;
    o.quiet = v->common.quiet;
    // Every failure, non-convergence included, throws and is reported by main() with exit code 1.
    const auto r = mosfet::run(o);
    if (!o.quiet && o.sweep)
      std::fprintf(stderr, "quanta mosfet sweep: %d bias points (%d steady), %s backend, %ld steps (%.3f ms per step), %.2f s -> %s\n", r.sweep_points,
                   r.sweep_steady, r.backend.c_str(), r.steps, r.seconds_per_step * 1e3, r.seconds_total, r.summary.string().c_str());
    else if (!o.quiet && r.transport)
      std::fprintf(stderr, "quanta mosfet: %d x %d grid, %s backend, %ld steps to t = %.4f ps (%.3f ms per step), I_D = %.6e A/m (spread %.2e)%s, %.2f s -> %s\n",
                   r.nx, r.nz, r.backend.c_str(), r.steps, r.time * 1e12, r.seconds_per_step * 1e3, r.drain_current, r.current_spread,
                   r.steady ? ", steady" : "", r.seconds_total, r.results.string().c_str());
    else if (!o.quiet)
      std::fprintf(stderr, "quanta mosfet: %d x %d grid, %s backend, %s solver, converged after %d Newton iterations (last change %.2e V), %.2f s -> %s\n",
                   r.nx, r.nz, r.backend.c_str(), r.linear_solver.c_str(), r.newton_iterations, r.final_change,
                   r.seconds_total, r.results.string().c_str());
    return 0;
  };
  return s;
}

}  // namespace quanta::cli
