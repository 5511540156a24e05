// Benchmark of quanta gw on a real case: reads BerkeleyGW's mean-field files and inputs from a folder,
// runs Epsilon and Sigma on one backend and reports each stage's time with the work it did: 3D FFTs
// (5 N log2 N flops each, the usual count), CHI_SUM's ZHERK flops (4 ng (ng + 1) per valence-conduction pair),
// and the GPP terms (one (G, G', m, E) evaluation of the GPP term with its accumulation: 18.8 FP64
// operations on the real-mode path Sigma runs, as the profiler counted them on an H100; docs/performance.md). Then CHI_SUM alone at the case's size, timed to
// completion, for its FLOP rate without the transfers and host work around it.
//
//   bench_gw [INPUT_DIR] [--backend cpu|cuda|auto] [--wfn F] [--wfnq F] [--wfn-inner F] [--rho F] [--vxc F]
//            [--epsilon-input F] [--sigma-input F] [--gpu-mem-limit SIZE] [--out results.json]
// --epsilon-input and --sigma-input replace INPUT_DIR's epsilon.inp and sigma.inp (paths as given); with
// do_sigma_subspace Epsilon keeps the static subspace's basis for Sigma, as quanta gw does.
// INPUT_DIR defaults to BerkeleyGW's silicon example as the tests stage it in the build tree
// (<build>/test-data/gw/si-bgw, from modules/gw/tests/data; the mean-field files in its mean-field/
// folders); file names are taken in INPUT_DIR.
#include <omp.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>

#include "../kernels/chi_sum.hpp"
#include "../src/coulomb.hpp"
#include "../src/states.hpp"
#include "quanta/core/backend.hpp"
#include "quanta/core/timer.hpp"
#include "quanta/gw/epsilon.hpp"
#include "quanta/gw/inputs.hpp"
#include "quanta/gw/mean_field.hpp"
#include "quanta/gw/sigma.hpp"

using namespace quanta;
using namespace quanta::gw;
namespace fs = std::filesystem;

int main(int argc, char** argv) {
#ifdef QUANTA_TEST_DATA_DIR
  const std::string si = std::string(QUANTA_TEST_DATA_DIR) + "/gw/si-bgw/";
#else
  const std::string si;  // no default: INPUT_DIR is required
#endif
  // With no INPUT_DIR: the silicon example, its mean-field files in their own folders. With one: the
  // files named in INPUT_DIR, under BerkeleyGW's names unless given.
  fs::path dir;
  std::string wfn, wfnq, inner, rho, vxc, backend_name = "auto", out, mem_limit, eps_input, sigma_input;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "bench_gw: %s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--backend") backend_name = next();
    else if (a == "--wfn") wfn = next();
    else if (a == "--wfnq") wfnq = next();
    else if (a == "--wfn-inner") inner = next();
    else if (a == "--rho") rho = next();
    else if (a == "--vxc") vxc = next();
    else if (a == "--out") out = next();
    else if (a == "--gpu-mem-limit") mem_limit = next();
    else if (a == "--epsilon-input") eps_input = next();
    else if (a == "--sigma-input") sigma_input = next();
    else if (!a.empty() && a[0] != '-') dir = a;
    else {
      std::fprintf(stderr, "bench_gw: unknown option %s\n", a.c_str());
      return 2;
    }
  }
  if (dir.empty() && (si.empty() || !fs::exists(si))) {
    std::fprintf(stderr, "bench_gw: give INPUT_DIR (the silicon example is not staged in this build tree: configure with tests on)\n");
    return 2;
  }
  auto file = [&](std::string& f, const std::string& name, const std::string& example) {
    if (dir.empty()) f = f.empty() ? si + example : f;
    else f = (dir / (f.empty() ? name : f)).string();
  };
  file(wfn, "WFN", "mean-field/02-wfn/WFN");
  file(wfnq, "WFNq", "mean-field/03-wfnq/WFNq");
  file(inner, "WFN_inner", "mean-field/04-wfn_co/WFN_co");
  file(rho, "RHO", "mean-field/04-wfn_co/RHO");
  file(vxc, "vxc.dat", "mean-field/04-wfn_co/vxc.dat");
  if (dir.empty()) dir = si + "bgw-inputs";
  try {
    const Backend backend = resolve_backend(parse_backend(backend_name));
    prefetch_mini_zone_points();  // as quanta gw does: Sigma's mini-zone points drawn in the background
    EpsilonParams ep = read_epsilon_inp(eps_input.empty() ? dir / "epsilon.inp" : fs::path(eps_input));
    SigmaParams sp = read_sigma_inp(sigma_input.empty() ? dir / "sigma.inp" : fs::path(sigma_input));
    ep.backend = sp.backend = backend;
    ep.subspace_keep_basis = sp.subspace;
    ep.subspace_expand = !sp.subspace;
    if (!mem_limit.empty()) ep.gpu_mem_limit = sp.gpu_mem_limit = parse_memory_size(mem_limit);
    WallTimer tread;
    const auto w = read_wfn(wfn, ep.nbands);
    const auto wq = read_wfn(wfnq);
    const auto wi = read_wfn(inner, sp.nbands);
    const auto r = read_rho(rho);
    const auto v = read_vxc_dat(vxc);
    const double t_read = tread.seconds();

    WallTimer te;
    EpsilonTimings et;
    const auto eps = compute_epsilon(w, &wq, ep, &et);
    const double t_eps = te.seconds();
    WallTimer ts;
    SigmaTimings st;
    const auto sigma = compute_sigma(wi, r, v, eps, sp, &st);
    const double t_sig = ts.seconds();

    // CHI_SUM alone: q0's sphere and one k-point's pairs (all valence bands in one block), random M.
    const int nv = occupied_bands(w);
    const int ng = eps[0].ng(), npairs = nv * (ep.nbands - nv);
    std::vector<cplx> m(static_cast<std::size_t>(npairs) * ng);
    std::vector<double> wts(npairs, 1e-3);
    std::mt19937_64 rng(1);
    std::normal_distribution<double> g;
    for (auto& x : m) x = cplx(g(rng), g(rng));
    kernels::ChiSumJob job;
    job.npairs = npairs, job.ng = ng, job.m = m.data(), job.w = wts.data();
    kernels::ChiSumEngine warm(backend, ng);
    warm.add(job);
    (void)warm.result();
    const int reps = 5;
    kernels::ChiSumEngine chi(backend, ng);
    WallTimer tc;
    for (int i = 0; i < reps; ++i) chi.add(job);
    (void)chi.result();
    const double t_chi = tc.seconds() / reps;
    const double chi_flops = 4.0 * ng * (ng + 1.0) * npairs;

    const double fft_flops_e = et.ffts * 5.0 * et.box_points * std::log2(static_cast<double>(et.box_points));
    const double fft_flops_s = st.ffts * 5.0 * st.box_points * std::log2(static_cast<double>(st.box_points));
    const double gpp_flops = 18.8 * st.gpp_terms;
    const std::string device = device_description(backend);
    std::printf("bench_gw: %s, backend %s (%s)\n", dir.string().c_str(), to_string(backend).c_str(), device.c_str());
    std::printf("  read %.2f s\n", t_read);
    std::printf("  epsilon %.3f s: states %.3f, mtxel %.3f (%.3g FFTs of %zu points, %.1f GFLOP/s), chi_sum %.3f (%.3g GFLOP/s; chi0 completed and downloaded in %.3f), inversion %.3f (eps formed in %.3f)\n",
                t_eps, et.states, et.mtxel, et.ffts, et.box_points, fft_flops_e / et.mtxel * 1e-9, et.chi_sum,
                et.chi_sum_flops / et.chi_sum * 1e-9, et.chi0_result, et.inversion, et.eps_form);
    std::printf("  sigma %.3f s: setup %.3f (modes %.4f on the %s), states %.3f, mtxel %.3f (%.3g FFTs, %.1f GFLOP/s), exchange %.3f, gpp %.3f (%.3g terms, %.3g Gterm/s, %.1f GFLOP/s at 18.8/term; kernels %.4f s)\n",
                t_sig, st.setup, st.setup_modes, st.modes_on_device ? "device" : "host", st.states, st.mtxel, st.ffts, fft_flops_s / st.mtxel * 1e-9, st.exchange, st.gpp, st.gpp_terms,
                st.gpp_terms / st.gpp * 1e-9, gpp_flops / st.gpp * 1e-9, st.gpp_kernel);
    if (ep.frequency_dependence == 2)
      std::printf("  full frequency: %d frequencies; epsilon's static subspace %.3f s (%d eigenvectors); sigma's contractions %.3g FLOP, device %.4f s\n",
                  static_cast<int>(eps[0].freq.size()), et.subspace, ep.subspace ? eps[0].subspace_nbasis : 0, st.cd_flops, st.cd_kernel);
    std::printf("  chi_sum alone: ng %d, %d pairs: %.4f s per call, %.1f GFLOP/s\n", ng, npairs, t_chi, chi_flops / t_chi * 1e-9);
    std::printf("  first k, band %d: Eqp1 %.6f eV\n", sigma[0].bands[0].n, sigma[0].bands[0].eqp1);
    if (!out.empty()) {
      std::ofstream o(out);
      o << "{\n  \"case\": \"" << dir.string() << "\",\n  \"backend\": \"" << to_string(backend) << "\",\n  \"device\": \"" << device
        << "\",\n  \"threads\": " << omp_get_max_threads() << ",\n  \"seconds\": {\"read\": " << t_read << ", \"epsilon\": " << t_eps
        << ", \"epsilon_states\": " << et.states << ", \"epsilon_mtxel\": " << et.mtxel << ", \"epsilon_chi_sum\": " << et.chi_sum
        << ", \"epsilon_inversion\": " << et.inversion << ", \"sigma\": " << t_sig << ", \"sigma_setup\": " << st.setup << ", \"sigma_setup_modes\": " << st.setup_modes
        << ", \"sigma_states\": " << st.states << ", \"sigma_mtxel\": " << st.mtxel << ", \"sigma_exchange\": " << st.exchange
        << ", \"sigma_gpp\": " << st.gpp << ", \"sigma_gpp_kernels\": " << st.gpp_kernel << ", \"chi_sum_alone\": " << t_chi << "},\n  \"work\": {\"box_points\": " << et.box_points
        << ", \"epsilon_ffts\": " << et.ffts << ", \"chi_sum_flops\": " << et.chi_sum_flops << ", \"sigma_ffts\": " << st.ffts
        << ", \"gpp_terms\": " << st.gpp_terms << ", \"chi_sum_alone_ng\": " << ng << ", \"chi_sum_alone_pairs\": " << npairs
        << "},\n  \"eqp1_first\": " << sigma[0].bands[0].eqp1 << "\n}\n";
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_gw: %s\n", e.what());
    return 1;
  }
  return 0;
}
