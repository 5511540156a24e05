// quanta: one executable, one subcommand per module. Each subcommand's options, their validation and
// the call into its module live in its own file (phonon.cpp, kbe.cpp, ...); this file only dispatches.
#include <cstdio>
#include <exception>
#include <vector>

#include "cli.hpp"
#include "quanta/core/comm.hpp"
#include "quanta/core/version.hpp"

int main(int argc, char** argv) {
  CLI::App app{"quanta: GPU-first solvers for phonon transport, molecular line lists, GW, Kadanoff-Baym and MOSFETs"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "quanta " + quanta::version());

  namespace cli = quanta::cli;
  const std::vector<cli::Subcommand> subcommands = {cli::add_info(app),     cli::add_phonon(app),
                                                    cli::add_kbe(app),      cli::add_linelist(app),
                                                    cli::add_linelist_convert(app), cli::add_gw(app),
                                                    cli::add_gw_pseudobands(app),
                                                    cli::add_mosfet(app)};
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : 1;  // --help and --version exit 0; a bad command line exits 1
  }

  try {
    for (const auto& s : subcommands)
      if (s.app->parsed()) return s.run();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "quanta: error: %s\n", e.what());
    try {
      quanta::Comm::world().abort_if_distributed(1);  // the other ranks may be waiting in a collective
    } catch (const std::exception&) {
    }
    return 1;
  }
  return 1;
}
