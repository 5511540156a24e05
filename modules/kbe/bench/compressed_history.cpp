// Benchmark of the compressed two-time history (solver.history = "compressed") against the dense half-plane: for each
// number of steps, the dense propagation and the compressed one at each tolerance, in this process on the CPU backend.
// Prints per run the wall time, the seconds per step at the end (the last tenth of the steps), the history held
// (numbers and GB at 16 B each), the compressed/dense ratio, the blocks and their largest rank, and the largest
// difference of the observables N(t), E_total(t) and n_c(k, t) from the dense run over every step; then the exponents
// of time and history size against nt between successive nt.
//   compressed_history CONFIG [--nt 200,400,800] [--tol 1e-6,1e-8] [--leaf 32] [--threads N] [--dense-up-to NT]
// --dense-up-to: the largest nt run dense as well (default: every nt); beyond it the compressed runs are compared with
// nothing and print "-" for the difference.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "bench_options.hpp"
#include "quanta/core/threads.hpp"
#include "quanta/core/timer.hpp"
#include "quanta/kbe/config.hpp"
#include "quanta/kbe/propagator.hpp"

using namespace quanta;
using namespace quanta::kbe;

namespace {

struct Result {
  std::vector<Observables> o;
  double seconds = 0, late_step_seconds = 0;
  HistoryFigures f;
};

Result propagate(const Config& c, int threads) {
  Result r;
  Propagator p(c, threads);
  r.o.push_back(p.observe());
  WallTimer t;
  const int late = c.time.steps - std::max(1, c.time.steps / 10);
  double at_late = 0;
  while (p.step() < c.time.steps) {
    p.advance();
    r.o.push_back(p.observe());
    if (p.step() == late) at_late = t.seconds();
  }
  r.seconds = t.seconds();
  r.late_step_seconds = (r.seconds - at_late) / (c.time.steps - late);
  r.f = p.history_figures();
  return r;
}

double largest_difference(const std::vector<Observables>& x, const std::vector<Observables>& y) {
  double worst = 0;
  for (std::size_t t = 0; t < y.size(); ++t) {
    worst = std::max({worst, std::abs(x[t].particles - y[t].particles), std::abs(x[t].energy_total - y[t].energy_total)});
    for (std::size_t k = 0; k < y[t].n_conduction.size(); ++k) worst = std::max(worst, std::abs(x[t].n_conduction[k] - y[t].n_conduction[k]));
  }
  return worst;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || argv[1][0] == '-') {
    std::fprintf(stderr, "usage: compressed_history CONFIG [--nt 200,400,800] [--tol 1e-6,1e-8] [--leaf 32] [--threads N] [--dense-up-to NT]\n");
    return 2;
  }
  const Config base = read_config(argv[1]);
  std::vector<int> nts = {200, 400, 800};
  std::vector<double> tols = {1e-6, 1e-8};
  int leaf = 32, threads = max_threads(), dense_up_to = 1 << 30;
  for (int i = 2; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--nt") nts = bench::parse_list(argv[i + 1]);
    else if (a == "--tol") tols = bench::parse_list<double>(argv[i + 1]);
    else if (a == "--leaf") leaf = std::stoi(argv[i + 1]);
    else if (a == "--threads") threads = std::stoi(argv[i + 1]);
    else if (a == "--dense-up-to") dense_up_to = std::stoi(argv[i + 1]);
    else {
      std::fprintf(stderr, "compressed_history: unknown option %s\n", a.c_str());
      return 2;
    }
  }
  set_threads(threads);
  std::printf("# %s: nk = %d, dt = %g, U = %g, %d threads, leaf %d\n", argv[1], base.model.nk, base.time.dt, base.model.interaction.u, threads, leaf);
  std::printf("# %6s %-10s %9s %11s %12s %10s %7s %6s %5s %12s\n", "nt", "history", "seconds", "s/step@end", "numbers", "GB", "ratio",
              "blocks", "rank", "max|dObs|");
  struct Row {
    int nt;
    double tol, seconds;
    std::size_t numbers;
  };
  std::vector<Row> rows;
  for (int nt : nts) {
    Config c = base;
    c.time.steps = nt;
    Result dense;
    const bool with_dense = nt <= dense_up_to;
    auto print = [&](const char* what, double tol, const Result& r, const char* diff) {
      std::printf("  %6d %-10s %9.2f %11.4f %12zu %10.4f %7.4f %6d %5d %12s\n", nt, what, r.seconds, r.late_step_seconds, r.f.numbers,
                  r.f.numbers * 16e-9, static_cast<double>(r.f.numbers) / r.f.dense_numbers, r.f.blocks, r.f.max_rank, diff);
      rows.push_back({nt, tol, r.seconds, r.f.numbers});
      std::fflush(stdout);
    };
    if (with_dense) {
      dense = propagate(c, threads);
      print("dense", -1, dense, "0");
    }
    for (double tol : tols) {
      Config cc = c;
      cc.solver.history = HistoryStorage::Compressed;
      cc.solver.history_tolerance = tol;
      cc.solver.history_leaf = leaf;
      const Result r = propagate(cc, threads);
      char what[32], diff[32] = "-";
      std::snprintf(what, sizeof what, "tol %.0e", tol);
      if (with_dense) std::snprintf(diff, sizeof diff, "%.2e", largest_difference(r.o, dense.o));
      print(what, tol, r, diff);
    }
  }
  std::printf("# exponents between successive nt (time ~ nt^a, history ~ nt^b)\n");
  for (std::size_t i = 0; i < rows.size(); ++i)
    for (std::size_t j = i + 1; j < rows.size(); ++j)
      if (rows[j].tol == rows[i].tol && rows[j].nt > rows[i].nt) {
        const double l = std::log(static_cast<double>(rows[j].nt) / rows[i].nt);
        char what[32] = "dense";
        if (rows[i].tol >= 0) std::snprintf(what, sizeof what, "tol %.0e", rows[i].tol);
        std::printf("  %-10s nt %d -> %d: a = %.2f, b = %.2f\n", what, rows[i].nt, rows[j].nt, std::log(rows[j].seconds / rows[i].seconds) / l,
                    std::log(static_cast<double>(rows[j].numbers) / rows[i].numbers) / l);
        break;
      }
  return 0;
}
