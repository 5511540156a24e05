// quanta gw: BerkeleyGW inputs and pw2bgw.x mean-field files -> G0W0 quasiparticle energies.
#include <cstdio>
#include <filesystem>
#include <memory>

#include "cli.hpp"
#include "quanta/core/error.hpp"
#include "quanta/core/comm.hpp"
#include "quanta/gw/mean_field.hpp"
#include "quanta/gw/pseudobands.hpp"
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

// quanta gw-pseudobands: BerkeleyGW's pseudobands script's options (and their short synonyms), the same
// outputs (WFN and WFNq as wfn.h5 with a /pseudobands group); the slices follow the paper's constant
// fractional width (docs/gw.md, "Stochastic pseudobands").
Subcommand add_gw_pseudobands(CLI::App& app) {
  struct Values {
    std::string in, in_q, out, out_q, in_nns, out_nns, phases;
    int nns = 0, verbosity = 2;
    bool single_band = false;
    gw::PseudobandsParams p;
  };
  auto v = std::make_shared<Values>();
  Subcommand s;
  s.app = app.add_subcommand("gw-pseudobands", "stochastic pseudobands: WFN and WFNq with the high-energy states compressed into random combinations per energy slice");
  auto* a = s.app;
  a->add_option("--fname_in", v->in, "WFN (pw2bgw.x's binary or wfn.h5) with many bands")->required();
  a->add_option("--fname_in_q", v->in_q, "WFNq, the q0-shifted states")->required();
  a->add_option("--fname_out", v->out, "the compressed WFN, wfn.h5 layout")->required();
  a->add_option("--fname_out_q", v->out_q, "the compressed WFNq, wfn.h5 layout")->required();
  a->add_option("--N_P_val,--nv", v->p.protected_val, "valence bands copied, counted down from the VBM; -1: all (default; Sigma needs all)")->check(CLI::Range(-1, 1 << 30));
  a->add_option("--N_P_cond,--nc", v->p.protected_cond, "conduction bands copied, counted up from the CBM; -1: all (default 100)")->check(CLI::Range(-1, 1 << 30));
  a->add_option("--N_S_val,--nslice_v", v->p.slices_val, "valence slices (default 10)")->check(CLI::Range(1, 1 << 30));
  a->add_option("--N_S_cond,--nslice_c", v->p.slices_cond, "conduction slices (default 100)")->check(CLI::Range(1, 1 << 30));
  a->add_option("--N_xi_val,--nspbps_v", v->p.per_slice_val, "pseudobands per valence slice, at least 2 (default 2)")->check(CLI::Range(2, 1 << 30));
  a->add_option("--N_xi_cond,--nspbps_c", v->p.per_slice_cond, "pseudobands per conduction slice, at least 2 (default 2)")->check(CLI::Range(2, 1 << 30));
  a->add_option("--max_freq", v->p.max_freq, "Ry above the Fermi level up to which conduction slices have the constant width --uniform_width (default 0: none)")
      ->check(CLI::Range(0.0, 1e6));
  a->add_option("--uniform_width", v->p.uniform_width, "Ry, width of those slices (half the spacing of Epsilon's real-frequency grid)")->check(CLI::Range(0.0, 1e6));
  a->add_option("--seed", v->p.seed, "seed of the random phases (default 1); the draws depend only on seed, file, k-point, band and pseudoband");
  a->add_option("--verbosity", v->verbosity, "0: quiet; 1 or more: the slices (default 2)")->check(CLI::Range(0, 3));
  a->add_option("--NNS", v->nns, "a separate WFNq for nonuniform neck subsampling: not implemented (0 only)");
  a->add_option("--fname_in_NNS", v->in_nns, "not implemented (nonuniform neck subsampling)");
  a->add_option("--fname_out_NNS", v->out_nns, "not implemented (nonuniform neck subsampling)");
  a->add_flag("--single_band", v->single_band, "not implemented (one scaled band per slice instead of random combinations)");
  s.run = [v] {
    if (v->nns != 0 || !v->in_nns.empty() || !v->out_nns.empty())
      throw InputError("--NNS", "nonuniform neck subsampling (a third, NNS WFNq) is not implemented: run without --NNS, --fname_in_NNS, --fname_out_NNS");
    if (v->single_band) throw InputError("--single_band", "not implemented: the slices are compressed into random combinations (--N_xi_val, --N_xi_cond)");
    namespace fs = std::filesystem;
    const auto same = [](const std::string& a, const std::string& b) { return fs::weakly_canonical(a) == fs::weakly_canonical(b); };
    for (const auto* in : {&v->in, &v->in_q})
      for (const auto* out : {&v->out, &v->out_q})
        if (same(*in, *out)) throw InputError("--fname_out", *out + " is an input file: expected a new name (the inputs are read, never overwritten)");
    if (same(v->out, v->out_q)) throw InputError("--fname_out_q", v->out_q + " is also --fname_out: expected two files");
    // The slices from the headers (a wrong option shows before the coefficients are read), then one file at a time.
    const auto plan = gw::plan_pseudobands(gw::read_wfn_header(v->in), gw::read_wfn_header(v->in_q), v->p);
    if (v->verbosity > 0) std::fprintf(stderr, "quanta gw-pseudobands:\n%s", gw::describe(plan, v->p).c_str());
    for (const bool q : {false, true}) {
      const std::string& in = q ? v->in_q : v->in;
      const std::string& out = q ? v->out_q : v->out;
      int bands_in = 0, bands_out = 0;
      {
        const auto wfn = gw::read_wfn(in);
        const auto compressed = gw::make_pseudobands(wfn, plan, v->p, !q, q ? 1 : 0);
        gw::write_wfn_h5(compressed, out);
        bands_in = wfn.nbands, bands_out = compressed.nbands;
      }
      if (v->verbosity > 0) std::fprintf(stderr, "quanta gw-pseudobands: %s: %d bands (%d in)\n", out.c_str(), bands_out, bands_in);
    }
    return 0;
  };
  return s;
}

}  // namespace quanta::cli
