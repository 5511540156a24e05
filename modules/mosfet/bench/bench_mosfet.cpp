// Benchmark of the Schroedinger-Poisson block on the seed's grids (Table 7: N_x = N_z = 33 ... 129).
// For each grid, backend and linear solver:
//   - the equilibrium solution from the Laplace start (multi-section at the first call, then Newton);
//   - "a call of the block" as the transport phase makes it at every Runge-Kutta stage: entry (a) with
//     the populations of the previous state changed by 0.1% (a different change each call), from the
//     previous potential and eigenpairs: the median wall time of `--calls` calls without per-kernel timing
//     (call_median_s: on the GPU the stages run back to back), then of `--calls` more with it
//     (call_median_timed_s: the GPU synchronizes after every stage) and their kernel times per call (the
//     seed's Table 4 names).
// Prints one JSON object per line.
//   bench_mosfet [--grids 33,49,65,97,129] [--backends cpu,cuda] [--solvers direct,srj] [--calls 10]
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include "quanta/core/backend.hpp"
#include "quanta/core/threads.hpp"
#include "quanta/core/timer.hpp"
#include "quanta/mosfet/schrodinger_poisson.hpp"

using namespace quanta;
using namespace quanta::mosfet;

namespace {

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> v;
  std::stringstream in(s);
  std::string item;
  while (std::getline(in, item, ',')) v.push_back(item);
  return v;
}

}  // namespace

int main(int argc, char** argv) {
  std::string grids = "33,49,65,97,129", backends = cuda_device_count() > 0 ? "cpu,cuda" : "cpu", solvers = "direct,srj";
  int calls = 10;
  for (int a = 1; a + 1 < argc; a += 2) {
    const std::string k = argv[a], v = argv[a + 1];
    if (k == "--grids") grids = v;
    else if (k == "--backends") backends = v;
    else if (k == "--solvers") solvers = v;
    else if (k == "--calls") calls = std::stoi(v);
  }
  for (const std::string& gs : split(grids)) {
    const int n = std::stoi(gs);
    Device dev;
    const GridSize size{n, n};
    const DeviceGrid grid = make_device_grid(dev, size, neutral_contact_potential(dev, size, 6));
    for (const std::string& bs : split(backends))
      for (const std::string& ss : split(solvers)) {
        BlockOptions o;
        o.linear_solver = parse_linear_solver(ss);
        const Backend backend = parse_backend(bs);
        SchrodingerPoisson block(grid, o, backend);
        WallTimer t;
        const BlockResult eq = block.solve_equilibrium();
        const double t_eq = t.seconds();
        const std::vector<double> rho = block.populations();
        // The calls, first untimed per kernel (the GPU runs the stages back to back), then timed per kernel.
        int newton = 0, linear = 0;
        auto run_calls = [&](std::vector<double>& seconds) {
          for (int c = 0; c < calls; ++c) {
            std::vector<double> r = rho;
            for (std::size_t k = 0; k < r.size(); ++k) r[k] *= 1.0 + 1e-3 * std::sin(0.7 * k + c);
            t.reset();
            const BlockResult res = block.solve(r);
            seconds.push_back(t.seconds());
            newton += static_cast<int>(res.history.size());
            for (const auto& s : res.history) linear += s.linear_steps;
          }
          std::sort(seconds.begin(), seconds.end());
        };
        std::vector<double> sorted, timed;
        block.set_kernel_timing(false);
        run_calls(sorted);
        block.set_kernel_timing(true);
        const KernelTimes before = block.kernel_times();
        run_calls(timed);
        std::printf("{\"grid\": %d, \"backend\": \"%s\", \"device\": \"%s\", \"solver\": \"%s\", \"equilibrium_s\": %.6f, "
                    "\"equilibrium_newton\": %zu, \"equilibrium_converged\": %s, \"call_median_s\": %.6f, \"call_min_s\": %.6f, "
                    "\"call_median_timed_s\": %.6f, \"newton_per_call\": %.2f, \"linear_steps_per_call\": %.1f, "
                    "\"kernels_per_call_s\": {",
                    n, bs.c_str(), device_description(backend).c_str(), ss.c_str(), t_eq, eq.history.size(),
                    eq.converged ? "true" : "false", sorted[sorted.size() / 2], sorted.front(), timed[timed.size() / 2],
                    double(newton) / (2 * calls), double(linear) / (2 * calls));
        bool first = true;
        for (const auto& [name, s] : block.kernel_times().seconds) {
          double prev = 0;
          for (const auto& [n0, s0] : before.seconds)
            if (n0 == name) prev = s0;
          std::printf("%s\"%s\": %.6f", first ? "" : ", ", name.c_str(), (s - prev) / calls);
          first = false;
        }
        std::printf("}}\n");
        std::fflush(stdout);
      }
  }
}
