// quanta kbe: Kadanoff-Baym propagation of the two-band lattice model from a TOML config.
#include <cstdio>
#include <memory>
#include <string>

#include "cli.hpp"
#include "quanta/core/comm.hpp"
#include "quanta/kbe/run.hpp"

namespace quanta::cli {

Subcommand add_kbe(CLI::App& app) {
  struct Values {
    CommonOptions common;
    kbe::RunOptions run;
    std::string config, output;
  };
  auto v = std::make_shared<Values>();
  Subcommand s;
  s.app = app.add_subcommand("kbe", "Kadanoff-Baym propagation of the two-band lattice model, second-Born self-energy");
  s.app->add_option("CONFIG", v->config, "TOML config (docs/kbe.md lists the keys)")->required();
  s.app->add_option("-o,--output-dir", v->output,
                    "where quanta-kbe.h5, quanta-kbe.txt and the checkpoint go (default: the current directory)");
  s.app->add_flag("--resume", v->run.resume, "continue from the checkpoint a killed run of the same config left in the output folder");
  s.app->add_flag("--write-green", v->run.write_green, "also write the full half-plane G<, G> to quanta-kbe.h5");
  s.app->add_option("--stop-after", v->run.stop_after,
                    "stop after this step without the final outputs, as a killed run would (to test --resume)")
      ->check(CLI::NonNegativeNumber);
  add_common_options(s.app, v->common, true);
  s.run = [v] {
    auto& o = v->run;
    o.config = v->config;
    o.output_dir = output_dir_or_cwd(v->output);
    o.backend = v->common.parsed_backend();
    o.threads = v->common.threads;
    o.gpu_mem_limit = v->common.parsed_gpu_mem_limit();
    o.quiet = v->common.quiet;
    const auto r = kbe::run(o);
    if (o.quiet || !Comm::world().root()) return 0;
    if (r.stopped) {
      std::fprintf(stderr, "quanta kbe: stopped after step %d as --stop-after asked; no final outputs; checkpoint %s\n", o.stop_after,
                   r.checkpoint.string().c_str());
      return 0;
    }
    const std::string limit =
        r.corrector_limit_steps > 0 ? ", corrector at its pass limit at " + std::to_string(r.corrector_limit_steps) + " steps" : "";
    std::fprintf(stderr,
                 "quanta kbe: nk = %d, %d steps, %d process%s, %s backend, %s self-energy, |N(t) - N(0)| <= %.2e%s, %.2f s -> %s\n",
                 r.nk, r.steps, r.ranks, r.ranks == 1 ? "" : "es", r.backend.c_str(), r.self_energy.c_str(), r.particles_drift,
                 limit.c_str(), r.seconds_total, r.results.string().c_str());
    return 0;
  };
  return s;
}

}  // namespace quanta::cli
