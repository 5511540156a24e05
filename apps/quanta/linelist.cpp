// quanta linelist and linelist-convert: TROVE's intensity step from its checkpoints or quanta's levels file.
#include <cstdio>
#include <memory>

#include "cli.hpp"
#include "quanta/core/comm.hpp"
#include "quanta/core/error.hpp"
#include "quanta/linelist/run.hpp"

namespace quanta::cli {
namespace {

// TROVE keeps its checkpoints beside its input unless told otherwise.
std::filesystem::path checkpoints_or_input_folder(const std::string& option, const std::filesystem::path& input) {
  if (!option.empty()) return option;
  return input.has_parent_path() ? input.parent_path() : std::filesystem::path(".");
}

}  // namespace

Subcommand add_linelist(CLI::App& app) {
  struct Values {
    CommonOptions common;
    linelist::RunOptions run;
    std::string input, output, checkpoints, levels, xsec;
  };
  auto v = std::make_shared<Values>();
  Subcommand s;
  s.app = app.add_subcommand("linelist", "line strengths, Einstein A coefficients and intensities from TROVE checkpoints; cross sections");
  s.app->add_option("INPUT", v->input, "TROVE input file with SYMGROUP and an INTENSITY block (optional with --cross-sections)");
  auto* chk = s.app->add_option("--checkpoints", v->checkpoints,
                                "folder with TROVE's j0eigen_*.chk and j0_extfield.chk (default: the input's folder)");
  s.app->add_option("--levels", v->levels, "quanta's HDF5 levels file (docs/linelist.md) instead of TROVE's checkpoints")->excludes(chk);
  s.app->add_option("-o,--output-dir", v->output, "where the .states, .trans, quanta-linelist.h5 and .xsec go (default: the current directory)");
  s.app->add_option("--method", v->run.method, "half-linestrengths: gemm (batched matrix products) | cr (the seed's cache-and-reduce kernel)")
      ->capture_default_str()
      ->check(CLI::IsMember({"gemm", "cr"}));
  s.app->add_option("--dipole-blocks", v->run.dipole_blocks, "split the dipole matrices into p blocks by v (0: as device memory requires)")
      ->check(CLI::NonNegativeNumber);
  s.app->add_option("--batch", v->run.batch, "most lower states whose half-linestrengths are held at once (0: as many as memory holds)")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  s.app->add_flag("--gain-table", v->run.gain_table, "also write GAIN's text table (<stem>.gain.txt)");
  s.app->add_option("--cross-sections", v->xsec,
                    "an ExoCross input: cross sections (.xsec) from the run's lines, or without INPUT from its .states/.trans");
  s.app->add_flag("--no-trans", v->run.no_trans, "with --cross-sections and INPUT: do not write the .trans file");
  s.app->add_option("--trans-split", v->run.trans_split,
                    "write the .trans sorted by wavenumber in files of W cm-1 (<stem>__<lo>-<hi>.trans), streamed in bounded memory")
      ->check(CLI::PositiveNumber);
  s.app->add_flag("--bzip2", v->run.bzip2, "with --trans-split: the range files compressed by bzip2 (<stem>__<lo>-<hi>.trans.bz2), as ExoMol serves them");
  s.app->add_flag("--def", v->run.def, "also write <stem>.def, ExoMol's definition file (atoms and masses from the input's ZMAT)");
  s.app->add_flag("--lifetimes", v->run.lifetimes,
                  "the .states with ExoMol's lifetime column after J: 1 / (sum of A of the list's lines from the state), s; Inf for none");
  s.app->add_option("--pf", v->run.pf_tmax, "also write <stem>.pf: the partition function of the levels read at T = 1 .. TMAX K")
      ->check(CLI::PositiveNumber);
  add_common_options(s.app, v->common, true);
  s.run = [v] {
    if (v->input.empty() && v->xsec.empty()) throw quanta::InputError("quanta linelist", "INPUT (a TROVE input) is required, unless --cross-sections runs alone");
    if (v->input.empty()) {  // ExoCross's run: the .states/.trans its input names
      if (!v->levels.empty() || !v->checkpoints.empty() || v->run.no_trans || v->run.gain_table)
        throw quanta::InputError("quanta linelist", "--levels, --checkpoints, --no-trans and --gain-table need INPUT (a TROVE input)");
      linelist::XsecRunOptions x;
      x.input = v->xsec;
      x.output_dir = output_dir_or_cwd(v->output);
      x.backend = v->common.parsed_backend();
      x.threads = v->common.threads;
      x.quiet = v->common.quiet;
      if (Comm::world().distributed()) throw quanta::Error("quanta linelist --cross-sections alone runs as one process");
      const auto files = linelist::run_cross_sections(x);
      if (!x.quiet)
        for (const auto& f : files) std::fprintf(stderr, "quanta linelist: -> %s\n", f.string().c_str());
      return 0;
    }
    auto& o = v->run;
    o.input = v->input;
    o.cross_sections = v->xsec;
    o.levels_file = v->levels;
    o.checkpoint_dir = checkpoints_or_input_folder(v->checkpoints, o.input);
    o.output_dir = output_dir_or_cwd(v->output);
    o.backend = v->common.parsed_backend();
    o.gpu_mem_limit = v->common.parsed_gpu_mem_limit();
    o.threads = v->common.threads;
    o.quiet = v->common.quiet;
    const auto r = linelist::run(o);
    if (!o.quiet && Comm::world().root())
      for (const auto& f : r.cross_sections) std::fprintf(stderr, "quanta linelist: cross sections -> %s\n", f.string().c_str());
    if (!o.quiet && Comm::world().root() && r.trans.empty() && r.transitions == 0)  // STATES-ONLY
      std::fprintf(stderr, "quanta linelist: %zu levels, %.2f s -> %s\n", r.levels, r.seconds_total, r.states.string().c_str());
    else if (!o.quiet && Comm::world().root()) {
      // Where the transitions went: one .trans, the range files of --trans-split, or nowhere (--no-trans).
      const std::string trans = !r.trans.empty()         ? r.trans.string()
                                : !r.trans_files.empty() ? std::to_string(r.trans_files.size()) + " range files " +
                                                               r.trans_files.front().filename().string() + " .. " +
                                                               r.trans_files.back().filename().string()
                                                         : "no .trans (--no-trans)";
      std::fprintf(stderr, "quanta linelist: %zu levels, %lld lower states, %zu transitions, Q = %.6g, %s, %.2f s -> %s, %s\n",
                   r.levels, r.lower_states, r.transitions, r.partition_function, r.engine.c_str(), r.seconds_total,
                   r.states.string().c_str(), trans.c_str());
    }
    return 0;
  };
  return s;
}

Subcommand add_linelist_convert(CLI::App& app) {
  struct Values {
    CommonOptions common;
    std::string input, checkpoints, output;
  };
  auto v = std::make_shared<Values>();
  Subcommand s;
  s.app = app.add_subcommand("linelist-convert", "TROVE's checkpoints -> quanta's HDF5 levels file (the levels and dipole the input asks for)");
  s.app->add_option("INPUT", v->input, "TROVE input file with SYMGROUP and an INTENSITY block")->required();
  s.app->add_option("--checkpoints", v->checkpoints, "folder with TROVE's j0eigen_*.chk and j0_extfield.chk (default: the input's folder)");
  s.app->add_option("-o,--output", v->output, "the levels file to write")->required();
  add_quiet_flag(s.app, v->common);  // reading and writing only: no backend, threads or device memory to set
  s.run = [v] {
    const std::filesystem::path input = v->input;
    linelist::convert_to_levels_file(input, checkpoints_or_input_folder(v->checkpoints, input), v->output, v->common.quiet);
    return 0;
  };
  return s;
}

}  // namespace quanta::cli
