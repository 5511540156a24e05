// The GPP kernel on the problem of BerkeleyGW's public GPP mini-app, with the mini-app's arguments:
//
//   bench_gw_gpp number_bands nvband ncouls nodes_per_group [--backend cpu|cuda] [--repeat N] [--real-modes]
//                [--out F.json]
//
// e.g. 512 2 32768 20, the mini-app's benchmark. Prints achtemp and asxtemp (CH and -SX-X) for the three
// energies against their closed form (bench/gpp_miniapp.hpp), the time of the kernel (CUDA: the kernels'
// own time from events, uploads excluded, as the mini-app times its loop; CPU: the call), the median over
// the repeats, and the rate in (G, G', m, E) terms per second. FLOPs are not counted here: the profiler
// counts them (docs/performance.md gives the command). --real-modes: real mode frequencies (0.5), the path
// Sigma runs, instead of the mini-app's complex ones.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "gpp_miniapp.hpp"
#include "quanta/core/backend.hpp"
#include "quanta/core/timer.hpp"

using namespace quanta;
using namespace quanta::gw;

int main(int argc, char** argv) {
  std::vector<int> args;
  std::string backend_name = "auto", out;
  int repeat = 3;
  bool real_modes = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "bench_gw_gpp: %s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--backend") backend_name = next();
    else if (a == "--repeat") repeat = std::atoi(next().c_str());
    else if (a == "--out") out = next();
    else if (a == "--real-modes") real_modes = true;
    else if (!a.empty() && a[0] != '-') args.push_back(std::atoi(a.c_str()));
    else {
      std::fprintf(stderr, "bench_gw_gpp: unknown option %s\n", a.c_str());
      return 2;
    }
  }
  if (args.size() != 4 || repeat < 1) {
    std::fprintf(stderr, "usage: bench_gw_gpp number_bands nvband ncouls nodes_per_group [--backend cpu|cuda] [--repeat N] [--real-modes] [--out F.json]\n");
    return 2;
  }
  const Backend backend = resolve_backend(parse_backend(backend_name));
  GppMiniApp app(args[0], args[1], args[2], args[3], real_modes);
  std::printf("bench_gw_gpp: number_bands %d nvband %d ncouls %d nodes_per_group %d (ngpown %d), %s mode frequencies, %s backend, %.4g terms\n",
              app.number_bands, app.nvband, app.ncouls, app.nodes_per_group, app.ngpown, real_modes ? "real" : "complex",
              to_string(backend).c_str(), app.terms());
  std::vector<double> times;
  for (int r = 0; r < repeat; ++r) {
    std::fill(app.sx.begin(), app.sx.end(), cplx());
    std::fill(app.ch.begin(), app.ch.end(), cplx());
    double kernel = 0;
    auto job = app.job();
    job.kernel_seconds = &kernel;
    WallTimer t;
    kernels::gpp(backend, job);
    times.push_back(backend == Backend::Cuda ? kernel : t.seconds());
    std::printf("  run %d: %.4f s\n", r + 1, times.back());
  }
  std::sort(times.begin(), times.end());
  const double median = times[times.size() / 2];
  double worst = 0;
  for (int e = 0; e < GppMiniApp::kEnergies; ++e) {
    const cplx ach = app.ch[e], asx = -1.0 * app.sx[e];
    const double ea = abs(ach - app.ch_exact(e)) / abs(app.ch_exact(e));
    const double es = app.nvband ? abs(asx - app.asx_exact(e)) / abs(app.asx_exact(e)) : 0.0;
    worst = std::max({worst, ea, es});
    std::printf("  achtemp[%d] = (%.6f, %.6f)  closed form (%.6f, %.6f)  relative error %.2e\n", e, ach.re, ach.im, app.ch_exact(e).re,
                app.ch_exact(e).im, ea);
    std::printf("  asxtemp[%d] = (%.6f, %.6f)  closed form (%.6f, %.6f)  relative error %.2e\n", e, asx.re, asx.im, app.asx_exact(e).re,
                app.asx_exact(e).im, es);
  }
  std::printf("  kernel %.4f s (median of %d), %.4g terms/s\n", median, repeat, app.terms() / median);
  if (!out.empty()) {
    std::ofstream f(out);
    f << "{\"bench\": \"gw_gpp_miniapp\", \"backend\": \"" << to_string(backend) << "\", \"args\": [" << app.number_bands << ", " << app.nvband
      << ", " << app.ncouls << ", " << app.nodes_per_group << "], \"modes\": \"" << (real_modes ? "real" : "complex") << "\", \"terms\": " << app.terms() << ", \"kernel_median_s\": " << median
      << ", \"terms_per_s\": " << app.terms() / median << ", \"largest_relative_error\": " << worst << "}\n";
  }
  return worst < 1e-12 ? 0 : 1;
}
