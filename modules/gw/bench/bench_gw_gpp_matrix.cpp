// The off-diagonal GPP kernel (kernels/gpp_matrix.hpp) on a synthetic problem of a given size:
//
//   bench_gw_gpp_matrix ng nn nm nocc nw [--backend cpu|cuda] [--repeat N] [--columns C] [--out F.json]
//
// ng screened G-vectors (C of them held as columns; default all), nn bands n (the matrix is nn x nn), nm bands m
// of the sum (nocc occupied), nw frequencies. Random I, mode frequencies spread over every branch and random
// matrix elements: the work does not depend on the values. Prints the time of the call (CUDA: the device work
// from events, uploads of the inputs excluded; CPU: the call), the median over the repeats, the FLOPs of the
// ZGEMMs as the seed's eq. 8 counts them (job.flops()) and their rate; the prep step is in the time and not
// in the FLOPs, so the rate is a lower bound, as the seed reports it.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "../kernels/gpp_matrix.hpp"
#include "quanta/core/backend.hpp"
#include "quanta/core/timer.hpp"

using namespace quanta;
using namespace quanta::gw;

int main(int argc, char** argv) {
  std::vector<long> args;
  std::string backend_name = "auto", out;
  int repeat = 3, columns = 0;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "bench_gw_gpp_matrix: %s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--backend") backend_name = next();
    else if (a == "--repeat") repeat = std::atoi(next().c_str());
    else if (a == "--columns") columns = std::atoi(next().c_str());
    else if (a == "--out") out = next();
    else if (!a.empty() && a[0] != '-') args.push_back(std::atol(a.c_str()));
    else {
      std::fprintf(stderr, "bench_gw_gpp_matrix: unknown option %s\n", a.c_str());
      return 2;
    }
  }
  if (args.size() != 5 || repeat < 1 || args[0] < 1 || args[1] < 1 || args[2] < 1 || args[3] < 0 || args[3] > args[2] || args[4] < 1 ||
      columns < 0 || columns > args[0]) {
    std::fprintf(stderr, "usage: bench_gw_gpp_matrix ng nn nm nocc nw [--backend cpu|cuda] [--repeat N] [--columns C] [--out F.json]\n");
    return 2;
  }
  const int ng = static_cast<int>(args[0]), nn = static_cast<int>(args[1]), nm = static_cast<int>(args[2]), nocc = static_cast<int>(args[3]),
            nw = static_cast<int>(args[4]);
  const int ncol = columns > 0 ? columns : ng;
  const Backend backend = resolve_backend(parse_backend(backend_name));
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(0, 1);
  const std::size_t entries = static_cast<std::size_t>(ng) * ncol;
  std::vector<cplx> i_eps(entries), m(static_cast<std::size_t>(nn) * nm * ng);
  std::vector<double> wt(entries), v(ng), e_m(nm), omega(nw);
  std::vector<int> gp(ncol);
  for (int c = 0; c < ncol; ++c) gp[c] = static_cast<int>(static_cast<long>(c) * ng / ncol);
  for (auto& x : i_eps) x = cplx(0.1 * (u(rng) - 0.5), 0.1 * (u(rng) - 0.5));
  for (auto& x : m) x = cplx(u(rng) - 0.5, u(rng) - 0.5);
  for (double& x : wt) x = u(rng) < 0.05 ? 0.0 : 2.0 + 30.0 * u(rng);
  for (double& x : v) x = 0.1 + u(rng);
  for (int b = 0; b < nm; ++b) e_m[b] = -12.0 + 40.0 * b / nm;
  for (int j = 0; j < nw; ++j) omega[j] = -5.0 + 10.0 * j / nw;
  std::vector<cplx> sx(static_cast<std::size_t>(nw) * nn * nn), ch(sx.size());
  kernels::GppMatrixJob job;
  job.ng = ng, job.ngp = columns > 0 ? ncol : 0, job.gp_index = columns > 0 ? gp.data() : nullptr;
  job.i_eps = i_eps.data(), job.wt = wt.data(), job.v = v.data();
  job.nn = nn, job.nm = nm, job.nocc = nocc, job.m = m.data(), job.e_m = e_m.data();
  job.nw = nw, job.omega = omega.data(), job.sx = sx.data(), job.ch = ch.data();
  const double flops = job.flops();
  std::printf("bench_gw_gpp_matrix: ng %d, columns %d, nn %d, nm %d (%d occupied), nw %d, %s backend, %.4g FLOP (eq. 8)\n", ng, ncol, nn, nm, nocc,
              nw, to_string(backend).c_str(), flops);
  std::vector<double> times;
  for (int r = 0; r < repeat; ++r) {
    double kernel = 0;
    job.kernel_seconds = &kernel;
    WallTimer t;
    kernels::gpp_matrix(backend, job);
    const double call = t.seconds();
    const double s = backend == Backend::Cuda ? kernel : call;
    times.push_back(s);
    std::printf("  run %d: %.4f s (call %.4f s), %.1f GFLOP/s\n", r + 1, s, call, flops / s * 1e-9);
  }
  std::sort(times.begin(), times.end());
  const double median = times[times.size() / 2];
  std::printf("median %.4f s, %.1f GFLOP/s\n", median, flops / median * 1e-9);
  if (!out.empty()) {
    std::ofstream f(out);
    f << "{\"ng\": " << ng << ", \"columns\": " << ncol << ", \"nn\": " << nn << ", \"nm\": " << nm << ", \"nocc\": " << nocc << ", \"nw\": " << nw
      << ", \"backend\": \"" << to_string(backend) << "\", \"flops\": " << flops << ", \"median_seconds\": " << median
      << ", \"tflops\": " << flops / median * 1e-12 << "}\n";
  }
  return 0;
}
