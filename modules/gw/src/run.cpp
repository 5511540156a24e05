// quanta gw, stage by stage: read the inputs, Epsilon, Sigma, write the outputs.
#include "quanta/gw/run.hpp"

#include <omp.h>

#include <cstdio>

#include "quanta/core/error.hpp"
#include "quanta/core/timer.hpp"
#include "quanta/gw/inputs.hpp"
#include "quanta/gw/outputs.hpp"

namespace quanta::gw {

RunSummary run(const RunOptions& o) {
  auto in = [&](const std::filesystem::path& p) { return p.is_absolute() ? p : o.input_dir / p; };
  const auto out_dir = o.output_dir.empty() ? o.input_dir : o.output_dir;
  if (o.threads > 0) omp_set_num_threads(o.threads);
  const Backend backend = resolve_backend(o.backend);
  auto say = [&](const char* fmt, auto... args) {
    if (!o.quiet) std::fprintf(stderr, fmt, args...);
  };

  RunSummary s;
  s.backend = to_string(backend);
  EpsilonParams ep = read_epsilon_inp(in(o.epsilon_input));
  SigmaParams sp = read_sigma_inp(in(o.sigma_input));
  ep.backend = sp.backend = backend;
  ep.gpu_mem_limit = sp.gpu_mem_limit = o.gpu_mem_limit;

  WallTimer te;
  say("quanta gw: reading %s\n", in(o.wfn).string().c_str());
  const auto wfn = read_wfn(in(o.wfn), ep.nbands);
  bool need_q0 = false;
  for (const auto& q : ep.qpoints) need_q0 |= q.q0;
  Wavefunctions wfnq;
  if (need_q0) wfnq = read_wfn(in(o.wfnq));
  say("quanta gw: epsilon, %zu q-points, %d bands, cutoff %.2f Ry\n", ep.qpoints.size(), ep.nbands, ep.ecut);
  EpsilonTimings et;
  const auto eps = compute_epsilon(wfn, need_q0 ? &wfnq : nullptr, ep, &et);
  for (std::size_t i = 0; i < eps.size(); ++i)
    say("  q-pt %3zu: nmtx %4d, head of epsilon %.6f, head of epsilon inverse %.6f\n", i + 1, eps[i].ng(), eps[i].at(eps[i].eps, 0, 0).re,
        eps[i].at(eps[i].epsinv, 0, 0).re);
  s.seconds_epsilon = te.seconds();

  WallTimer ts;
  const auto inner = read_wfn(in(o.wfn_inner), sp.nbands);
  const auto rho = read_rho(in(o.rho));
  // vxc.dat when it is there, else the potential (VXC), as BerkeleyGW's Sigma chooses.
  const bool have_vxc_dat = std::filesystem::exists(in(o.vxc));
  if (!have_vxc_dat && !std::filesystem::exists(in(o.vxc_potential)))
    throw InputError(in(o.vxc).string(), "not found, and no potential file " + in(o.vxc_potential).string() +
                                             " either (expected vxc.dat or BerkeleyGW's binary VXC from pw2bgw.x)");
  const auto vxc = have_vxc_dat ? read_vxc_dat(in(o.vxc)) : vxc_from_potential(inner, read_vxc(in(o.vxc_potential)), sp);
  say("quanta gw: sigma, %zu k-points, bands %d..%d, %d bands in the sum\n", sp.kpoints.size(), sp.band_min, sp.band_max, sp.nbands);
  SigmaTimings st;
  const auto sigma = compute_sigma(inner, rho, vxc, eps, sp, &st);
  s.seconds_sigma = ts.seconds();

  std::filesystem::create_directories(out_dir);
  write_sigma_hp_log(out_dir / "sigma_hp.log", inner.crystal, sp, sigma);
  write_eqp(out_dir / "eqp0.dat", sigma, 0);
  write_eqp(out_dir / "eqp1.dat", sigma, 1);
  RunMetadata meta;
  meta.backend = s.backend;
  meta.device = device_description(backend);
  meta.inputs = {{"epsilon_input", in(o.epsilon_input).string()}, {"sigma_input", in(o.sigma_input).string()}, {"wfn", in(o.wfn).string()},
                 {"wfn_inner", in(o.wfn_inner).string()}, {"rho", in(o.rho).string()},
                 {have_vxc_dat ? "vxc" : "vxc_potential", have_vxc_dat ? in(o.vxc).string() : in(o.vxc_potential).string()}};
  if (need_q0) meta.inputs["wfnq"] = in(o.wfnq).string();
  meta.timings = {{"epsilon_states", et.states}, {"epsilon_mtxel", et.mtxel}, {"epsilon_chi_sum", et.chi_sum}, {"epsilon_inversion", et.inversion},
                  {"sigma_setup", st.setup}, {"sigma_states", st.states}, {"sigma_mtxel", st.mtxel}, {"sigma_exchange", st.exchange},
                  {"sigma_gpp", st.gpp}, {"epsilon_total", s.seconds_epsilon}, {"sigma_total", s.seconds_sigma}};
  s.results = out_dir / "quanta-gw.h5";
  write_gw_h5(s.results, eps, o.write_epsinv, sigma, meta);
  s.nq = static_cast<int>(eps.size());
  s.nk = static_cast<int>(sigma.size());
  s.nbands_sigma = sp.nbands;
  return s;
}

}  // namespace quanta::gw
