// quanta gw: BerkeleyGW inputs and pw2bgw.x mean-field files -> G0W0 quasiparticle energies.
#include <cstdio>
#include <memory>

#include "cli.hpp"
#include "quanta/core/error.hpp"
#include "quanta/core/comm.hpp"
#include "quanta/gw/run.hpp"

namespace quanta::cli {

Subcommand add_gw(CLI::App& app) {
  struct Values {
    CommonOptions common;
    gw::RunOptions run;
    std::string input = ".", output, epsilon, sigma, wfn, wfnq, inner, rho, vxc, vxc_potential, eps0mat, epsmat;
  };
  auto v = std::make_shared<Values>();
  Subcommand s;
  s.app = app.add_subcommand("gw", "G0W0 quasiparticle energies (BerkeleyGW inputs): static RPA epsilon, GPP sigma");
  auto* a = s.app;
  a->add_option("INPUT_DIR", v->input, "folder with epsilon.inp, sigma.inp, WFN, WFNq, WFN_inner, RHO, vxc.dat (default: .)");
  a->add_option("--epsilon-input", v->epsilon, "epsilon.inp (BerkeleyGW keywords)");
  a->add_option("--sigma-input", v->sigma, "sigma.inp (BerkeleyGW keywords)");
  a->add_option("--wfn", v->wfn, "WFN for epsilon (pw2bgw.x)");
  a->add_option("--wfnq", v->wfnq, "WFNq, the q0-shifted valence states");
  a->add_option("--wfn-inner", v->inner, "WFN_inner for sigma");
  a->add_option("--rho", v->rho, "RHO, the charge density");
  a->add_option("--vxc", v->vxc, "vxc.dat");
  a->add_option("--vxc-potential", v->vxc_potential, "BerkeleyGW's binary VXC (Vxc(G) from pw2bgw.x), used when vxc.dat is absent");
  a->add_option("--eps0mat", v->eps0mat, "BerkeleyGW's eps0mat.h5: Sigma uses its eps^-1 (and --epsmat's) and Epsilon does not run");
  a->add_option("--epsmat", v->epsmat, "BerkeleyGW's epsmat.h5, the q-points other than q0 (with --eps0mat)");
  a->add_option("-o,--output-dir", v->output, "where sigma_hp.log, eqp0.dat, eqp1.dat, quanta-gw.h5 and Epsilon's eps0mat.h5, epsmat.h5 go (default: the current directory)");
  a->add_flag("--write-epsinv", v->run.write_epsinv, "also write every eps^-1 matrix into quanta-gw.h5");
  add_common_options(a, v->common, true);
  s.run = [v] {
    auto& o = v->run;
    o.input_dir = v->input;
    o.output_dir = output_dir_or_cwd(v->output);
    // File options given on the command line are paths as the shell sees them (relative to the
    // current directory); the defaults are names inside INPUT_DIR.
    const auto given = [](const std::string& option, std::filesystem::path& field) {
      if (!option.empty()) field = std::filesystem::absolute(option);
    };
    given(v->epsilon, o.epsilon_input);
    given(v->sigma, o.sigma_input);
    given(v->wfn, o.wfn);
    given(v->wfnq, o.wfnq);
    given(v->inner, o.wfn_inner);
    given(v->rho, o.rho);
    given(v->vxc, o.vxc);
    given(v->vxc_potential, o.vxc_potential);
    given(v->eps0mat, o.eps0mat);
    given(v->epsmat, o.epsmat);
    if (!v->epsmat.empty() && v->eps0mat.empty()) throw InputError("--epsmat", "given without --eps0mat (expected both, or --eps0mat alone for a Gamma-only q-grid)");
    o.backend = v->common.parsed_backend();
    o.gpu_mem_limit = v->common.parsed_gpu_mem_limit();
    o.threads = v->common.threads;
    o.quiet = v->common.quiet;
    const auto r = gw::run(o);
    if (!o.quiet && Comm::world().root())
      std::fprintf(stderr, "quanta gw: %d q-points, %d k-points, %s backend, %d process%s, epsilon %.2f s, sigma %.2f s -> %s\n", r.nq, r.nk,
                   r.backend.c_str(), r.ranks, r.ranks == 1 ? "" : "es", r.seconds_epsilon, r.seconds_sigma, r.results.string().c_str());
    return 0;
  };
  return s;
}

}  // namespace quanta::cli
