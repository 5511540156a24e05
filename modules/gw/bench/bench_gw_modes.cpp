// Sigma's plasmon-pole modes (kernels/gpp_modes.hpp) for one q-point on a synthetic problem of a given size:
//
//   bench_gw_modes ng [--backend cpu|cuda] [--repeat N] [--gmax M] [--out F.json]
//
// ng screened G-vectors (the irreducible matrix of the same size, its order permuted as a rotation does), G-vectors
// drawn from the cube |G_i| <= M/2 and rho(G) on the cube |G_i| <= M (default 31: Si216's density at 40 Ry), random
// eps^-1 near 0.6 on the diagonal. Prints each run's wall time through GppModes::run (CUDA: the short per-q
// uploads, the kernel and its synchronization; the first run also uploads eps^-1, reported apart), the median of
// the later runs, and the memory floor: 16 B of eps^-1 read and 24 B of I and wt written per entry.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "../kernels/gpp_modes.hpp"
#include "quanta/core/backend.hpp"
#include "quanta/core/timer.hpp"

using namespace quanta;
using namespace quanta::gw;

int main(int argc, char** argv) {
  std::vector<long> args;
  std::string backend_name = "auto", out;
  int repeat = 5, gmax = 31;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "bench_gw_modes: %s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--backend") backend_name = next();
    else if (a == "--repeat") repeat = std::atoi(next().c_str());
    else if (a == "--gmax") gmax = std::atoi(next().c_str());
    else if (a == "--out") out = next();
    else if (!a.empty() && a[0] != '-') args.push_back(std::atol(a.c_str()));
    else {
      std::fprintf(stderr, "bench_gw_modes: unknown option %s\n", a.c_str());
      return 2;
    }
  }
  if (args.size() != 1 || args[0] < 1 || args[0] > 60000 || repeat < 2 || gmax < 2 || gmax > 200) {
    std::fprintf(stderr, "usage: bench_gw_modes ng [--backend cpu|cuda] [--repeat N >= 2] [--gmax M] [--out F.json]\n");
    return 2;
  }
  const int ng = static_cast<int>(args[0]), side = 2 * gmax + 1;
  const Backend backend = resolve_backend(parse_backend(backend_name));
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(0, 1);
  std::uniform_int_distribution<int> gi(-gmax / 2, gmax / 2);
  const std::size_t entries = static_cast<std::size_t>(ng) * ng;
  std::vector<cplx> epsinv(entries);
  for (int c = 0; c < ng; ++c)
    for (int r = 0; r < ng; ++r)
      epsinv[r + static_cast<std::size_t>(ng) * c] = (r == c ? cplx(0.6) : cplx()) + cplx(0.02 * (u(rng) - 0.5), 0.02 * (u(rng) - 0.5));
  std::vector<int> keep(ng), g(3 * static_cast<std::size_t>(ng));
  for (int i = 0; i < ng; ++i) keep[i] = i;
  std::shuffle(keep.begin() + 1, keep.end(), rng);
  for (int a = 1; a < ng; ++a)
    for (int i = 0; i < 3; ++i) g[3 * a + i] = gi(rng);
  std::vector<cplx> phase(ng), rho(static_cast<std::size_t>(side) * side * side);
  for (auto& x : phase) x = expi(6.283185307179586 * u(rng));
  for (auto& x : rho) x = cplx(0.1 * (u(rng) - 0.5), 0.1 * (u(rng) - 0.5));
  rho[(static_cast<std::size_t>(gmax) * side + gmax) * side + gmax] = cplx(864.0);
  std::vector<double> vbar(ng);
  for (double& x : vbar) x = 0.1 + 10.0 * u(rng);
  kernels::GppModesJob job;
  job.ng_irr = ng, job.epsinv = epsinv.data(), job.ng = ng, job.ncol = ng;
  job.keep = keep.data(), job.phase = phase.data(), job.g = g.data(), job.vbar = vbar.data();
  job.i0 = 0, job.wing_row = 0.9, job.wing_col = 1.1, job.q[2] = 0.001;
  const double metric[9] = {0.0417, 0, 0, 0, 0.0417, 0, 0, 0, 0.0417};  // (2 pi / 30.78 bohr)^2: Si216's cubic cell
  std::copy(metric, metric + 9, job.metric);
  job.nel = 864.0, job.wp2 = 16.0 * 3.14159265358979 * 13.6057 * 13.6057 * 864.0 / (30.7836 * 30.7836 * 30.7836);
  kernels::GppModes modes(backend, rho, gmax);
  const double floor_bytes = static_cast<double>(entries) * 40.0;
  std::printf("bench_gw_modes: ng %d (%zu entries), rho cube %d^3, %s backend, %.3g bytes at the floor\n", ng, entries, side,
              to_string(backend).c_str(), floor_bytes);
  std::vector<double> times;
  double first = 0;
  for (int r = 0; r < repeat; ++r) {
    WallTimer t;
    modes.run(job, 0);
    const double s = t.seconds();
    if (r == 0) first = s;
    else times.push_back(s);
    std::printf("  run %d: %.4f s%s, %.1f GB/s of the floor's bytes\n", r + 1, s, r == 0 && backend == Backend::Cuda ? " (with the eps^-1 upload)" : "",
                floor_bytes / s * 1e-9);
  }
  std::sort(times.begin(), times.end());
  const double median = times[times.size() / 2];
  std::printf("median of runs 2..%d: %.4f s, %.1f GB/s of the floor's bytes\n", repeat, median, floor_bytes / median * 1e-9);
  if (!out.empty()) {
    std::ofstream f(out);
    f << "{\"ng\": " << ng << ", \"backend\": \"" << to_string(backend) << "\", \"first_seconds\": " << first << ", \"median_seconds\": " << median
      << ", \"floor_bytes\": " << floor_bytes << "}\n";
  }
  return 0;
}
