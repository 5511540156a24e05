// quanta mosfet: the Schroedinger-Poisson equilibrium of a double-gate MOSFET from a TOML config.
#include <cstdio>
#include <memory>

#include "cli.hpp"
#include "quanta/mosfet/run.hpp"

namespace quanta::cli {

Subcommand add_mosfet(CLI::App& app) {
  struct Values {
    CommonOptions common;
    mosfet::RunOptions run;
    std::string config, output;
  };
  auto v = std::make_shared<Values>();
  Subcommand s;
  s.app = app.add_subcommand("mosfet", "Schroedinger-Poisson equilibrium of a double-gate MOSFET (subband model)");
  s.app->add_option("CONFIG", v->config, "TOML config (docs/mosfet.md lists the keys)")->required();
  s.app->add_option("-o,--output-dir", v->output, "where quanta-mosfet.h5 and quanta-mosfet.txt go (default: the current directory)");
  add_common_options(s.app, v->common, false);
  s.run = [v] {
    auto& o = v->run;
    o.config = v->config;
    o.output_dir = output_dir_or_cwd(v->output);
    o.backend = v->common.parsed_backend();
    o.threads = v->common.threads;
    o.quiet = v->common.quiet;
    // Every failure, non-convergence included, throws and is reported by main() with exit code 1.
    const auto r = mosfet::run(o);
    if (!o.quiet)
      std::fprintf(stderr, "quanta mosfet: %d x %d grid, %s backend, %s solver, converged after %d Newton iterations (last change %.2e V), %.2f s -> %s\n",
                   r.nx, r.nz, r.backend.c_str(), r.linear_solver.c_str(), r.newton_iterations, r.final_change,
                   r.seconds_total, r.results.string().c_str());
    return 0;
  };
  return s;
}

}  // namespace quanta::cli
