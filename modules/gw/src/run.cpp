// quanta gw, stage by stage: read and check every input, Epsilon, Sigma, write the outputs.
#include "quanta/gw/run.hpp"

#include <omp.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <optional>

#include "quanta/core/comm.hpp"
#include "quanta/core/error.hpp"
#include "quanta/core/timer.hpp"
#include "quanta/gw/epsilon.hpp"
#include "quanta/gw/inputs.hpp"
#include "quanta/gw/outputs.hpp"
#include "coulomb.hpp"

namespace quanta::gw {
namespace {

void check_density(const Density& rho) {
  if (rho.nspin != 1) throw InputError(rho.file, "nspin " + std::to_string(rho.nspin) + ": only spin-unpolarized runs are supported (expected 1)");
  for (std::size_t i = 0; i < rho.gvec.size(); ++i)
    if (rho.gvec[i] == Vec3i{0, 0, 0}) {
      if (!(rho.rho[i].re > 0)) throw InputError(rho.file, "rho(G=0) = " + std::to_string(rho.rho[i].re) + ": expected the electrons per cell (> 0)");
      return;
    }
  throw InputError(rho.file, "no G = 0 component: expected the density on the G-sphere of pw2bgw.x");
}

// The potential must be on the density's sphere of WFN_inner, the one MTXEL computes it against.
void check_vxc_potential(const Density& v, const Wavefunctions& inner) {
  if (v.nspin != 1) throw InputError(v.file, "nspin " + std::to_string(v.nspin) + ": only spin-unpolarized runs are supported (expected 1)");
  if (v.gvec.size() != inner.gvec_rho.size())
    throw InputError(v.file, std::to_string(v.gvec.size()) + " G-vectors: expected the " + std::to_string(inner.gvec_rho.size()) +
                                 " of the density sphere of " + inner.file);
}

// The output folder exists (or is made) and takes a file, so that a run does not fail at its end.
void require_writable_dir(const std::filesystem::path& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw Error("output folder " + dir.string() + ": cannot create it: " + ec.message());
  if (!std::filesystem::is_directory(dir)) throw Error("output folder " + dir.string() + ": exists and is not a folder");
  const auto probe = dir / ".quanta-gw-write-test";
  {
    std::ofstream out(probe);
    out << "quanta\n";
    if (!out) throw Error("output folder " + dir.string() + ": cannot write to it (expected a writable folder for sigma_hp.log, eqp0.dat, eqp1.dat, quanta-gw.h5)");
  }
  std::filesystem::remove(probe, ec);
}

// BerkeleyGW's dielectric matrices must come from a run on the same crystal and k-grid as WFN_inner.
void check_epsmat_against(const std::filesystem::path& file, const EpsilonFromFiles& e, const Wavefunctions& inner) {
  if (std::abs(e.celvol - inner.crystal.celvol) > 1e-6 * inner.crystal.celvol)
    throw InputError(file.string(), "cell volume " + std::to_string(e.celvol) + " bohr^3: expected " + std::to_string(inner.crystal.celvol) +
                                        ", the cell of " + inner.file + " (the matrices must come from the same crystal)");
  if (e.qgrid != inner.kgrid)
    throw InputError(file.string(), "q-grid " + std::to_string(e.qgrid[0]) + "x" + std::to_string(e.qgrid[1]) + "x" + std::to_string(e.qgrid[2]) +
                                        ": expected the k-grid " + std::to_string(inner.kgrid[0]) + "x" + std::to_string(inner.kgrid[1]) + "x" +
                                        std::to_string(inner.kgrid[2]) + " of " + inner.file);
}

}  // namespace

RunSummary run(const RunOptions& o) {
  auto in = [&](const std::filesystem::path& p) { return p.is_absolute() ? p : o.input_dir / p; };
  const auto out_dir = o.output_dir.empty() ? o.input_dir : o.output_dir;
  if (o.threads > 0) omp_set_num_threads(o.threads);
  const Backend backend = resolve_backend(o.backend);
  // Under an MPI launcher the processes share out Epsilon's and Sigma's work (one GPU each, by their rank on
  // the host); every process reads the inputs, the first one reports and writes the outputs.
  const Comm& comm = Comm::world();
  if (backend == Backend::Cuda) select_device(comm.local_rank());
  auto say = [&](const char* fmt, auto... args) {
    if (!o.quiet && comm.root()) std::fprintf(stderr, fmt, args...);
  };

  RunSummary s;
  s.backend = to_string(backend);
  prefetch_mini_zone_points();  // Sigma's Coulomb averages need them; drawn in the background while the inputs are read

  // 1. Every input read or, for the large wavefunction files, its header, and checked: a mistake in
  // sigma.inp, RHO or vxc.dat shows now, not after Epsilon. With BerkeleyGW's eps0mat.h5 (and epsmat.h5)
  // there is no Epsilon: its matrices are read now, and epsilon.inp, WFN and WFNq are not needed.
  const bool eps_from_files = !o.eps0mat.empty();
  EpsilonFromFiles from_files;
  EpsilonParams ep;
  if (eps_from_files) {
    from_files = read_bgw_epsmat(in(o.eps0mat), o.epsmat.empty() ? std::filesystem::path() : in(o.epsmat));
    ep = from_files.params;
  } else {
    ep = read_epsilon_inp(in(o.epsilon_input));
  }
  SigmaParams sp = read_sigma_inp(in(o.sigma_input));
  ep.backend = sp.backend = backend;
  // do_sigma_subspace: Sigma's sums in the static subspace, from the basis instead of eps^-1 expanded to the G basis.
  ep.subspace_keep_basis = sp.subspace;
  ep.subspace_expand = !sp.subspace;
  ep.gpu_mem_limit = sp.gpu_mem_limit = o.gpu_mem_limit;
  ep.quiet = sp.quiet = o.quiet;
  bool need_q0 = false;
  for (const auto& q : ep.qpoints) need_q0 |= q.q0;
  std::optional<Wavefunctions> wfn_h;  // also for the header of the eps0mat.h5 and epsmat.h5 written
  if (!eps_from_files) {
    wfn_h = read_wfn_header(in(o.wfn));
    std::optional<Wavefunctions> wfnq_h;
    if (need_q0) wfnq_h = read_wfn_header(in(o.wfnq));
    check_epsilon_inputs(in(o.epsilon_input), ep, *wfn_h, wfnq_h ? &*wfnq_h : nullptr);
  }
  const auto inner_h = read_wfn_header(in(o.wfn_inner));
  if (eps_from_files) check_epsmat_against(in(o.eps0mat), from_files, inner_h);
  check_sigma_inputs(in(o.sigma_input), sp, ep, inner_h);
  if (const auto why = sigma_pools_problem(comm.size(), sp.pools, sp.band_max - sp.band_min + 1); !why.empty())
    throw InputError(in(o.sigma_input).string(), why);
  const auto rho = read_rho(in(o.rho));
  check_density(rho);
  // vxc.dat when it is there, else the potential (VXC), as BerkeleyGW's Sigma chooses.
  if (!sp.offdiag.empty() && comm.size() > 1 && sp.pools > 1)
    throw InputError(in(o.sigma_input).string(), "number_sigma_pools " + std::to_string(sp.pools) +
                                                     " with off-diagonal elements: expected 1 (every process needs all the bands n; "
                                                     "the processes share the q-points or the columns G')");
  const bool have_vxc_dat = sp.use_vxc_dat && std::filesystem::exists(in(o.vxc));
  if (!have_vxc_dat && !std::filesystem::exists(in(o.vxc_potential)))
    throw InputError(in(o.vxc).string(), std::string(sp.use_vxc_dat ? "not found, and" : "not used (dont_use_vxcdat), and") + " no potential file " +
                                             in(o.vxc_potential).string() + " either (expected vxc.dat or BerkeleyGW's binary VXC from pw2bgw.x)");
  VxcTable vxc;
  Density vxc_potential;
  if (have_vxc_dat) {
    vxc = read_vxc_dat(in(o.vxc));
    for (const auto& k : sp.kpoints) {
      for (int n = sp.band_min; n <= sp.band_max; ++n) vxc.diagonal(k, n);  // InputError naming the k-point and band missing
      for (const auto& e : sp.offdiag) vxc.element(k, e.n, e.m);
    }
  } else {
    vxc_potential = read_vxc(in(o.vxc_potential));
    check_vxc_potential(vxc_potential, inner_h);
  }
  if (comm.root()) require_writable_dir(out_dir);

  // 2. Epsilon, or its matrices from BerkeleyGW's files.
  WallTimer te;
  EpsilonTimings et;
  std::vector<DielectricMatrix> eps;
  if (eps_from_files) {
    say("quanta gw: epsilon from %s%s%s, %zu q-points, cutoff %.2f Ry\n", in(o.eps0mat).string().c_str(), o.epsmat.empty() ? "" : " and ",
        o.epsmat.empty() ? "" : in(o.epsmat).string().c_str(), from_files.eps.size(), ep.ecut);
    eps = std::move(from_files.eps);
  } else {
    say("quanta gw: reading %s\n", in(o.wfn).string().c_str());
    const auto wfn = read_wfn(in(o.wfn), ep.nbands, ep.check_norms);
    Wavefunctions wfnq;
    if (need_q0) wfnq = read_wfn(in(o.wfnq), 0, ep.check_norms);
    say("quanta gw: epsilon, %zu q-points, %d bands, cutoff %.2f Ry\n", ep.qpoints.size(), ep.nbands, ep.ecut);
    eps = compute_epsilon(wfn, need_q0 ? &wfnq : nullptr, ep, &et);
  }
  for (std::size_t i = 0; i < eps.size(); ++i) {
    if (!std::isfinite(eps[i].eps_head))
      say("  q-pt %3zu: nmtx %4d, head of epsilon inverse %.6f\n", i + 1, eps[i].ng(), eps[i].at(eps[i].epsinv, 0, 0).re);
    else
      say("  q-pt %3zu: nmtx %4d, head of epsilon %.6f, head of epsilon inverse %.6f\n", i + 1, eps[i].ng(), eps[i].eps_head,
          eps[i].at(eps[i].epsinv, 0, 0).re);
  }
  s.seconds_epsilon = te.seconds();
  // Epsilon's matrices in BerkeleyGW's files, as its epsilon.x writes them: Sigma can be run again from them
  // (--eps0mat, --epsmat), by quanta or by BerkeleyGW.
  WallTimer tw;
  if (!eps_from_files && comm.root() && ep.frequency_dependence == 2 && !ep.subspace_expand) {
    say("quanta gw: eps0mat.h5 and epsmat.h5 are not written with do_sigma_subspace (Epsilon kept the subspace basis, not eps^-1 in the G "
        "basis; BerkeleyGW's subspace-basis layout is not written)\n");
  } else if (!eps_from_files && comm.root()) {
    std::filesystem::create_directories(out_dir);
    for (const bool q0 : {true, false}) {
      const auto file = out_dir / (q0 ? "eps0mat.h5" : "epsmat.h5");
      if (const int nq = write_bgw_epsmat(file, eps, q0, ep, *wfn_h)) say("quanta gw: wrote %s (%d q-points)\n", file.string().c_str(), nq);
    }
  }
  const double seconds_eps_files = tw.seconds();

  // 3. Sigma.
  WallTimer ts;
  const auto inner = read_wfn(in(o.wfn_inner), sp.nbands, sp.check_norms);
  if (!have_vxc_dat) vxc = vxc_from_potential(inner, vxc_potential, sp);
  say("quanta gw: sigma, %zu k-points, bands %d..%d, %d bands in the sum\n", sp.kpoints.size(), sp.band_min, sp.band_max, sp.nbands);
  SigmaTimings st;
  auto sigma = compute_sigma(inner, rho, vxc, eps, sp, &st);
  solve_dyson_matrix(sigma, sp);  // with sigma_matrix: the quasiparticle Hamiltonian's eigenvalues
  solve_dyson_grid(sigma, sp);    // with sigma_matrix_frequency_grid: its self-consistent solutions
  s.seconds_sigma = ts.seconds();

  // 4. Outputs, by the first process.
  s.nq = static_cast<int>(eps.size());
  s.nk = static_cast<int>(sigma.size());
  s.nbands_sigma = sp.nbands;
  s.ranks = comm.size();
  s.results = out_dir / "quanta-gw.h5";
  if (!comm.root()) return s;
  std::filesystem::create_directories(out_dir);
  write_sigma_hp_log(out_dir / "sigma_hp.log", inner.crystal, sp, sigma, inner.complex_flavour);
  if (sp.sigma_matrix_l != 0) write_offdiag_log(out_dir / "offdiag.log", sp, sigma, inner.complex_flavour);
  if (sp.grid_nw >= 2) write_eqp_dyson(out_dir / "eqp_dyson.dat", sp, sigma);
  write_eqp(out_dir / "eqp0.dat", sigma, 0);
  write_eqp(out_dir / "eqp1.dat", sigma, 1);
  if (sp.frequency_dependence == 2) write_eqp(out_dir / "eqp_lin.dat", sigma, 2);
  RunMetadata meta;
  meta.backend = s.backend;
  meta.device = device_description(backend);
  meta.inputs = {{"sigma_input", in(o.sigma_input).string()}, {"wfn_inner", in(o.wfn_inner).string()}, {"rho", in(o.rho).string()},
                 {have_vxc_dat ? "vxc" : "vxc_potential", have_vxc_dat ? in(o.vxc).string() : in(o.vxc_potential).string()}};
  if (eps_from_files) {
    meta.inputs["eps0mat"] = in(o.eps0mat).string();
    if (!o.epsmat.empty()) meta.inputs["epsmat"] = in(o.epsmat).string();
  } else {
    meta.inputs["epsilon_input"] = in(o.epsilon_input).string();
    meta.inputs["wfn"] = in(o.wfn).string();
    if (need_q0) meta.inputs["wfnq"] = in(o.wfnq).string();
  }
  meta.timings = {{"epsilon_states", et.states}, {"epsilon_mtxel", et.mtxel}, {"epsilon_chi_sum", et.chi_sum}, {"epsilon_inversion", et.inversion},
                  {"epsilon_chi0_result", et.chi0_result}, {"epsilon_chi0_sum", et.chi0_sum}, {"epsilon_eps_form", et.eps_form}, {"epsilon_subspace", et.subspace}, {"epsilon_subspace_form", et.subspace_form},
                  {"epsilon_subspace_invert", et.subspace_invert}, {"epsilon_subspace_eigen", et.subspace_eigen},
                  {"sigma_gpp_kernel", st.gpp_kernel}, {"epsilon_files", seconds_eps_files}, {"sigma_setup_modes", st.setup_modes},
                  {"sigma_setup", st.setup}, {"sigma_states", st.states}, {"sigma_mtxel", st.mtxel}, {"sigma_exchange", st.exchange},
                  {"sigma_gpp", st.gpp}, {"sigma_gpp_matrix", st.gpp_matrix},
                  {"sigma_gpp_matrix_kernel", st.gpp_matrix_kernel}, {"sigma_cd_kernel", st.cd_kernel}, {"epsilon_total", s.seconds_epsilon}, {"sigma_total", s.seconds_sigma}};
  write_gw_h5(s.results, eps, o.write_epsinv, sigma, meta);
  return s;
}

}  // namespace quanta::gw
