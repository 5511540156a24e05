// quanta: one executable, one subcommand per module.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <filesystem>
#include <iostream>

#include "quanta/core/backend.hpp"
#include "quanta/core/error.hpp"
#include "quanta/core/version.hpp"
#include "quanta/core/comm.hpp"
#include "quanta/gw/run.hpp"
#include "quanta/kbe/run.hpp"
#include "quanta/linelist/run.hpp"
#include "quanta/mosfet/run.hpp"
#include "quanta/phonon/run.hpp"

namespace {

int run_info() {
  std::cout << quanta::build_description();
  const int n = quanta::cuda_device_count();
  std::cout << "CUDA devices: " << n << "\n";
  for (int d = 0; d < n; ++d) {
    const auto info = quanta::device_info(d);
    if (!info) continue;
    std::printf("  [%d] %s, compute capability %d.%d, %d multiprocessors, %.1f GiB total, %.1f GiB free\n", d,
                info->name.c_str(), info->compute_major, info->compute_minor, info->multiprocessors,
                info->total_bytes / 1073741824.0, info->free_bytes / 1073741824.0);
    std::printf("      driver %d, runtime %d\n", info->driver_version, info->runtime_version);
  }
  return 0;
}

// Options every module subcommand takes.
struct CommonOptions {
  std::string backend = "auto";
  std::string gpu_mem_limit;
  int threads = 0;
  bool quiet = false;
};

// -o DIR when given, else the config's folder ("." for a bare file name).
std::filesystem::path output_dir_for(const std::filesystem::path& config, const std::string& option) {
  if (!option.empty()) return option;
  return config.has_parent_path() ? config.parent_path() : std::filesystem::path(".");
}

void add_common_options(CLI::App* app, CommonOptions& o) {
  app->add_option("--backend", o.backend, "cpu | cuda | auto (CUDA when a GPU is present)")->capture_default_str();
  app->add_option("--gpu-mem-limit", o.gpu_mem_limit, "cap on device memory the run plans to use, e.g. 8G, 512M");
  app->add_option("--threads", o.threads, "OpenMP threads for CPU stages (0: OMP_NUM_THREADS or all cores)");
  app->add_flag("-q,--quiet", o.quiet, "no progress reports on stderr");
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"quanta: GPU-first solvers for phonon transport, molecular line lists, GW, Kadanoff-Baym and MOSFETs"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "quanta " + quanta::version());

  app.add_subcommand("info", "backends built, GPUs present, library versions");

  CommonOptions common;
  quanta::phonon::RunOptions phonon;
  std::string phonon_input, phonon_output;
  auto* ph = app.add_subcommand("phonon", "phonon spectrum, scattering and thermal conductivity (ShengBTE/FourPhonon inputs)");
  ph->add_option("INPUT_DIR", phonon_input, "folder with CONTROL, FORCE_CONSTANTS_2ND or espresso.ifc2, and FORCE_CONSTANTS_3RD")->required();
  ph->add_option("-o,--output-dir", phonon_output, "where outputs are written (default: INPUT_DIR)");
  add_common_options(ph, common);
  std::string strategy = "auto", enumeration = "auto";
  ph->add_option("--strategy", strategy, "CUDA three-phonon strategy: auto | all-modes | batched")->capture_default_str();
  ph->add_option("--enumeration", enumeration, "where CUDA runs list the allowed processes: auto | gpu | cpu")->capture_default_str();
  ph->add_option("--batch-modes", phonon.batch_modes, "modes per batch for --strategy batched (0: from device memory; 1: mode by mode)");

  quanta::kbe::RunOptions kbe;
  std::string kbe_config, kbe_output;
  auto* kb = app.add_subcommand("kbe", "Kadanoff-Baym propagation of the two-band lattice model, second-Born self-energy");
  kb->add_option("CONFIG", kbe_config, "TOML config (docs/kbe.md lists the keys)")->required();
  kb->add_option("-o,--output-dir", kbe_output, "where quanta-kbe.h5, quanta-kbe.txt and the checkpoint go (default: the config's folder)");
  kb->add_flag("--resume", kbe.resume, "continue from the checkpoint a killed run of the same config left in the output folder");
  kb->add_flag("--write-green", kbe.write_green, "also write the full half-plane G<, G> to quanta-kbe.h5");
  kb->add_option("--stop-after", kbe.stop_after, "stop after this step without the final outputs, as a killed run would (to test --resume)");
  add_common_options(kb, common);

  quanta::linelist::RunOptions linelist;
  std::string linelist_input, linelist_output, linelist_checkpoints;
  auto* ll = app.add_subcommand("linelist", "line strengths, Einstein A coefficients and intensities from TROVE checkpoints");
  ll->add_option("INPUT", linelist_input, "TROVE input file with SYMGROUP and an INTENSITY block")->required();
  ll->add_option("--checkpoints", linelist_checkpoints, "folder with TROVE's j0eigen_*.chk and j0_extfield.chk (default: the input's folder)");
  ll->add_option("--levels", linelist.levels_file, "quanta's HDF5 levels file (docs/linelist.md) instead of TROVE's checkpoints");
  ll->add_option("-o,--output-dir", linelist_output, "where the .states, .trans and quanta-linelist.h5 go (default: the input's folder)");
  ll->add_option("--method", linelist.method, "half-linestrengths: gemm (batched matrix products) | cr (the seed's cache-and-reduce kernel)")->capture_default_str();
  ll->add_option("--dipole-blocks", linelist.dipole_blocks, "split the dipole matrices into p blocks by v (0: as device memory requires)");
  ll->add_option("--batch", linelist.batch, "most lower states whose half-linestrengths are held at once (0: as many as memory holds)")->capture_default_str();
  ll->add_flag("--gain-table", linelist.gain_table, "also write GAIN's text table (<stem>.gain.txt)");
  add_common_options(ll, common);

  std::string convert_input, convert_checkpoints, convert_output;
  auto* lc = app.add_subcommand("linelist-convert", "TROVE's checkpoints -> quanta's HDF5 levels file (the levels and dipole the input asks for)");
  lc->add_option("INPUT", convert_input, "TROVE input file with SYMGROUP and an INTENSITY block")->required();
  lc->add_option("--checkpoints", convert_checkpoints, "folder with TROVE's j0eigen_*.chk and j0_extfield.chk (default: the input's folder)");
  lc->add_option("-o,--output", convert_output, "the levels file to write")->required();
  add_common_options(lc, common);

  quanta::gw::RunOptions gw;
  std::string gw_input = ".", gw_output, gw_epsilon, gw_sigma, gw_wfn, gw_wfnq, gw_inner, gw_rho, gw_vxc, gw_vxc_potential;
  auto* gwc = app.add_subcommand("gw", "G0W0 quasiparticle energies (BerkeleyGW inputs): static RPA epsilon, GPP sigma");
  gwc->add_option("INPUT_DIR", gw_input, "folder with epsilon.inp, sigma.inp, WFN, WFNq, WFN_inner, RHO, vxc.dat (default: .)");
  gwc->add_option("--epsilon-input", gw_epsilon, "epsilon.inp (BerkeleyGW keywords)");
  gwc->add_option("--sigma-input", gw_sigma, "sigma.inp (BerkeleyGW keywords)");
  gwc->add_option("--wfn", gw_wfn, "WFN for epsilon (pw2bgw.x)");
  gwc->add_option("--wfnq", gw_wfnq, "WFNq, the q0-shifted valence states");
  gwc->add_option("--wfn-inner", gw_inner, "WFN_inner for sigma");
  gwc->add_option("--rho", gw_rho, "RHO, the charge density");
  gwc->add_option("--vxc", gw_vxc, "vxc.dat");
  gwc->add_option("--vxc-potential", gw_vxc_potential, "BerkeleyGW's binary VXC (Vxc(G) from pw2bgw.x), used when vxc.dat is absent");
  gwc->add_option("-o,--output-dir", gw_output, "where sigma_hp.log, eqp0.dat, eqp1.dat and quanta-gw.h5 go (default: INPUT_DIR)");
  gwc->add_flag("--write-epsinv", gw.write_epsinv, "also write every eps^-1 matrix into quanta-gw.h5");
  add_common_options(gwc, common);
  quanta::mosfet::RunOptions mosfet;
  std::string mosfet_config, mosfet_output;
  auto* mo = app.add_subcommand("mosfet", "Schroedinger-Poisson equilibrium of a double-gate MOSFET (subband model)");
  mo->add_option("CONFIG", mosfet_config, "TOML config (docs/mosfet.md lists the keys)")->required();
  mo->add_option("-o,--output-dir", mosfet_output, "where quanta-mosfet.h5 and quanta-mosfet.txt go (default: the config's folder)");
  add_common_options(mo, common);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }

  try {
    if (app.got_subcommand("info")) return run_info();
    if (app.got_subcommand("phonon")) {
      phonon.input_dir = phonon_input;
      phonon.output_dir = phonon_output.empty() ? phonon_input : phonon_output;
      phonon.backend = quanta::parse_backend(common.backend);
      if (!common.gpu_mem_limit.empty()) phonon.gpu_mem_limit = quanta::parse_memory_size(common.gpu_mem_limit);
      phonon.threads = common.threads;
      phonon.quiet = common.quiet;
      phonon.strategy = quanta::phonon::parse_strategy(strategy);
      phonon.enumeration = quanta::phonon::parse_enumeration(enumeration);
      const auto s = quanta::phonon::run(phonon);
      if (!phonon.quiet)
        std::fprintf(stderr, "quanta phonon: %d q-points (%d irreducible), %d branches, %s backend, %.2f s\n", s.nptk,
                     s.nlist, s.nbands, s.backend.c_str(), s.seconds_total);
      return 0;
    }
    if (app.got_subcommand("gw")) {
      gw.input_dir = gw_input;
      gw.output_dir = gw_output;
      if (!gw_epsilon.empty()) gw.epsilon_input = gw_epsilon;
      if (!gw_sigma.empty()) gw.sigma_input = gw_sigma;
      if (!gw_wfn.empty()) gw.wfn = gw_wfn;
      if (!gw_wfnq.empty()) gw.wfnq = gw_wfnq;
      if (!gw_inner.empty()) gw.wfn_inner = gw_inner;
      if (!gw_rho.empty()) gw.rho = gw_rho;
      if (!gw_vxc.empty()) gw.vxc = gw_vxc;
      if (!gw_vxc_potential.empty()) gw.vxc_potential = gw_vxc_potential;
      gw.backend = quanta::parse_backend(common.backend);
      if (!common.gpu_mem_limit.empty()) gw.gpu_mem_limit = quanta::parse_memory_size(common.gpu_mem_limit);
      gw.threads = common.threads;
      gw.quiet = common.quiet;
      const auto s = quanta::gw::run(gw);
      if (!gw.quiet)
        std::fprintf(stderr, "quanta gw: %d q-points, %d k-points, %s backend, epsilon %.2f s, sigma %.2f s -> %s\n", s.nq, s.nk,
                     s.backend.c_str(), s.seconds_epsilon, s.seconds_sigma, s.results.string().c_str());
      return 0;
    }
    if (app.got_subcommand("kbe")) {
      kbe.config = kbe_config;
      kbe.output_dir = output_dir_for(kbe.config, kbe_output);
      kbe.backend = quanta::parse_backend(common.backend);
      if (!common.gpu_mem_limit.empty()) kbe.gpu_mem_limit = quanta::parse_memory_size(common.gpu_mem_limit);
      kbe.threads = common.threads;
      kbe.quiet = common.quiet;
      const auto s = quanta::kbe::run(kbe);
      if (!kbe.quiet && quanta::Comm::world().root())
        std::fprintf(stderr, "quanta kbe: nk = %d, %d steps, %d process%s, %s backend, %s self-energy, |N(t) - N(0)| <= %.2e, %.2f s -> %s\n",
                     s.nk, s.steps, s.ranks, s.ranks == 1 ? "" : "es", s.backend.c_str(), s.self_energy.c_str(),
                     s.particles_drift, s.seconds_total, s.results.string().c_str());
      return 0;
    }
    if (app.got_subcommand("linelist")) {
      linelist.input = linelist_input;
      linelist.checkpoint_dir = linelist_checkpoints.empty() ? output_dir_for(linelist.input, "") : std::filesystem::path(linelist_checkpoints);
      linelist.output_dir = output_dir_for(linelist.input, linelist_output);
      linelist.backend = quanta::parse_backend(common.backend);
      if (!common.gpu_mem_limit.empty()) linelist.gpu_mem_limit = quanta::parse_memory_size(common.gpu_mem_limit);
      linelist.threads = common.threads;
      linelist.quiet = common.quiet;
      const auto s = quanta::linelist::run(linelist);
      if (!linelist.quiet && quanta::Comm::world().root())
        std::fprintf(stderr, "quanta linelist: %zu levels, %lld lower states, %zu transitions, Q = %.6g, %s, %.2f s -> %s, %s\n",
                     s.levels, s.lower_states, s.transitions, s.partition_function, s.engine.c_str(), s.seconds_total,
                     s.states.string().c_str(), s.trans.string().c_str());
      return 0;
    }
    if (app.got_subcommand("linelist-convert")) {
      const std::filesystem::path input = convert_input;
      quanta::linelist::convert_to_levels_file(input, convert_checkpoints.empty() ? output_dir_for(input, "") : std::filesystem::path(convert_checkpoints),
                                               convert_output, common.quiet);
      return 0;
    }
    if (app.got_subcommand("mosfet")) {
      mosfet.config = mosfet_config;
      mosfet.output_dir = output_dir_for(mosfet.config, mosfet_output);
      mosfet.backend = quanta::parse_backend(common.backend);
      mosfet.threads = common.threads;
      mosfet.quiet = common.quiet;
      const auto s = quanta::mosfet::run(mosfet);
      if (!mosfet.quiet)
        std::fprintf(stderr, "quanta mosfet: %d x %d grid, %s backend, %s solver, %s after %d Newton iterations (last change %.2e V), %.2f s -> %s\n",
                     s.nx, s.nz, s.backend.c_str(), s.linear_solver.c_str(), s.converged ? "converged" : "NOT converged",
                     s.newton_iterations, s.final_change, s.seconds_total, s.results.string().c_str());
      return s.converged ? 0 : 2;
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "quanta: error: %s\n", e.what());
    try {
      quanta::Comm::world().abort_if_distributed(1);  // the other ranks may be waiting in a collective
    } catch (const std::exception&) {
    }
    return 1;
  }
  return 0;
}
