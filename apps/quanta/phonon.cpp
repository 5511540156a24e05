// quanta phonon: ShengBTE/FourPhonon inputs -> spectrum, three-phonon scattering, thermal conductivity.
#include <cstdio>
#include <memory>

#include "cli.hpp"
#include "quanta/core/comm.hpp"
#include "quanta/phonon/run.hpp"

namespace quanta::cli {

Subcommand add_phonon(CLI::App& app) {
  struct Values {
    CommonOptions common;
    phonon::RunOptions run;
    std::string input, output, strategy = "auto", enumeration = "auto", degenerate_basis = "solver";
  };
  auto v = std::make_shared<Values>();
  Subcommand s;
  s.app = app.add_subcommand("phonon", "phonon spectrum, scattering and thermal conductivity (ShengBTE/FourPhonon inputs)");
  s.app->add_option("INPUT_DIR", v->input, "folder with CONTROL, FORCE_CONSTANTS_2ND or espresso.ifc2, FORCE_CONSTANTS_3RD (and FORCE_CONSTANTS_4TH with four_phonon)")
      ->required();
  s.app->add_option("-o,--output-dir", v->output, "where outputs are written (default: the current directory)");
  add_common_options(s.app, v->common, true);
  s.app->add_option("--strategy", v->strategy, "CUDA three-phonon strategy: auto | all-modes | batched")
      ->capture_default_str()
      ->check(CLI::IsMember({"auto", "all-modes", "batched"}));
  s.app->add_option("--enumeration", v->enumeration, "where CUDA runs list the allowed processes: auto | gpu | cpu")
      ->capture_default_str()
      ->check(CLI::IsMember({"auto", "gpu", "cpu"}));
  s.app->add_option("--batch-modes", v->run.batch_modes,
                    "modes per batch for --strategy batched (0: from device memory; 1: mode by mode)");
  s.app->add_option("--degenerate-basis", v->degenerate_basis,
                    "modes inside degenerate sets: solver (the eigensolver's, as ShengBTE/FourPhonon) | canonical "
                    "(independent of the eigensolver; docs/phonon.md)")
      ->capture_default_str()
      ->check(CLI::IsMember({"solver", "canonical"}));
  s.app->add_flag("--resume", v->run.resume,
                  "continue the four-phonon stage from the checkpoints a killed run of the same inputs left in the output folder");
  s.app->add_option("--sample-seed", v->run.sample_seed,
                    "seed of the draws of the sampling estimator, num_sample_process_3ph/4ph and their _phase_space twins (the same seed gives the same sample)")
      ->capture_default_str();
  s.run = [v] {
    auto& o = v->run;
    o.input_dir = v->input;
    o.output_dir = output_dir_or_cwd(v->output);
    o.backend = v->common.parsed_backend();
    o.gpu_mem_limit = v->common.parsed_gpu_mem_limit();
    o.threads = v->common.threads;
    o.quiet = v->common.quiet;
    o.strategy = phonon::parse_strategy(v->strategy);
    o.enumeration = phonon::parse_enumeration(v->enumeration);
    o.degenerate_basis = v->degenerate_basis == "canonical" ? phonon::DegenerateBasis::Canonical : phonon::DegenerateBasis::Solver;
    const auto r = phonon::run(o);
    if (!o.quiet && Comm::world().root())
      std::fprintf(stderr, "quanta phonon: %d q-points (%d irreducible), %d branches, %s backend, %.2f s\n", r.nptk, r.nlist,
                   r.nbands, r.backend.c_str(), r.seconds_total);
    return 0;
  };
  return s;
}

}  // namespace quanta::cli
