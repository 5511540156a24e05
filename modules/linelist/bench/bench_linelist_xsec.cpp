// Benchmark of the cross-section pass (include/quanta/linelist/xsec.hpp): synthetic lines spread over a wavenumber
// range, pushed through XsecAccumulator in batches exactly as a run does (the raw lines: each line's S(T), Doppler and
// Lorentz widths are computed with the grid, on the chosen backend). Reports lines per second per temperature, and the
// kernel alone (XsecEngine with S and the widths precomputed on the host) with its profile evaluations per second.
//
//   bench_linelist_xsec [--backend cuda|cpu] [--lines 20000000] [--step 0.1] [--cutoff 25] [--range 0 10000]
//                       [--profile voigt|doppler|lorentz] [--sampled 1] [--batch 4194304] [--out results.json]
// Synthetic: nu uniform in the range, A log-uniform in 1e-6..1e2 1/s, E'' uniform in 0..5000 cm-1, g' 1..100,
// J'' 0..60 (broadening by J''), mass 18 Da, T 1000 K, P 1 bar, one broadener (gamma 0.07, n 0.5 for every J).
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <random>
#include <string>

#include "../kernels/xsec.hpp"
#include "quanta/core/backend.hpp"
#include "quanta/core/timer.hpp"
#include "quanta/linelist/xsec.hpp"

using namespace quanta;
using namespace quanta::linelist;

int main(int argc, char** argv) {
  std::string backend_name = "auto", profile = "voigt", out;
  double lines = 2e7, step = 0.1, cutoff = 25, lo = 0, hi = 10000;
  int sampled = 1;
  std::size_t batch = std::size_t(1) << 22;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&] { return i + 1 < argc ? std::string(argv[++i]) : std::string(); };
    if (a == "--backend") backend_name = next();
    else if (a == "--lines") lines = std::stod(next());
    else if (a == "--step") step = std::stod(next());
    else if (a == "--cutoff") cutoff = std::stod(next());
    else if (a == "--range") lo = std::stod(next()), hi = std::stod(next());
    else if (a == "--profile") profile = next();
    else if (a == "--sampled") sampled = std::stoi(next());
    else if (a == "--batch") batch = std::stoull(next());
    else if (a == "--out") out = next();
    else {
      std::fprintf(stderr, "bench_linelist_xsec: unknown option %s\n", a.c_str());
      return 1;
    }
  }
  const Backend backend = resolve_backend(parse_backend(backend_name));
  if (backend == Backend::Cuda) select_device(0);
  XsecSpec spec;
  spec.nu_min = lo, spec.nu_max = hi;
  spec.points = static_cast<long long>(std::llround((hi - lo) / step)) + 1;
  spec.profile = profile == "doppler" ? XsecProfile::Doppler : profile == "lorentz" ? XsecProfile::Lorentz : XsecProfile::Voigt;
  spec.integrated = !sampled;
  spec.cutoff = cutoff;
  spec.mass = 18;
  spec.threshold = 0;
  spec.conditions.push_back({1000.0, 1.0, 1000.0});
  Broadener b;
  b.name = "H2";
  b.table.default_gamma = 0.07, b.table.default_n = 0.5;
  spec.broadeners.push_back(b);
  const auto n = static_cast<std::size_t>(lines);

  // The lines of one batch, reused for every batch (their generation is not timed).
  LineBatch lb;
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(0, 1);
  const std::size_t nb = std::min(batch, n);
  for (std::size_t i = 0; i < nb; ++i)
    lb.push(lo + (hi - lo) * u(rng), std::pow(10.0, -6 + 8 * u(rng)), 1 + std::floor(100 * u(rng)), 5000 * u(rng), std::floor(61 * u(rng)));

  // The whole pass: raw lines, physics and grid on the backend.
  XsecAccumulator acc(backend, spec);
  WallTimer t;
  std::size_t done = 0;
  while (done < n) {
    if (n - done < lb.size()) {
      LineBatch last = lb;
      for (auto* v : {&last.nu, &last.a, &last.g_upper, &last.e_lower, &last.j_lower}) v->resize(n - done);
      acc.add(last);
      done = n;
    } else {
      acc.add(lb);
      done += lb.size();
    }
  }
  const auto result = acc.results();
  const double pass_s = t.seconds();
  double total = 0;
  for (double x : result[0]) total += x;

  // The kernel alone: the same lines with S and widths precomputed, through one engine.
  std::vector<double> s(nb), alpha(nb), gamma(nb);
  for (std::size_t i = 0; i < nb; ++i) {
    s[i] = line_intensity(lb.nu[i], lb.a[i], lb.g_upper[i], lb.e_lower[i], 1000.0, 1000.0);
    alpha[i] = lb.nu[i] * 2.3e-6;
    gamma[i] = 0.07 * std::pow(296.0 / 1000.0, 0.5);
  }
  kernels::XsecParams p;
  p.shape = spec.profile == XsecProfile::Lorentz ? kernels::LineShape::Lorentz
            : spec.profile == XsecProfile::Voigt ? kernels::LineShape::Voigt
                                                 : kernels::LineShape::Gauss;
  p.binning = sampled ? kernels::Binning::Sampled : kernels::Binning::Integrated;
  p.cutoff = cutoff;
  const kernels::XsecGrid g{lo, (hi - lo) / static_cast<double>(spec.points - 1), spec.points};
  kernels::XsecEngine e(backend, g, p);
  WallTimer tk;
  for (done = 0; done < n; done += nb) {
    const std::size_t m = std::min(nb, n - done);
    e.add({m, lb.nu.data(), s.data(), alpha.data(), gamma.data()});
  }
  (void)e.result();
  const double kernel_s = tk.seconds();
  // Grid points per line: 2 cutoff / step + 1, less at the range's ends.
  const double evals = static_cast<double>(n) * (2 * cutoff / g.step + 1) * (1 - cutoff / (hi - lo));

  std::printf("bench_linelist_xsec: backend %s, %zu lines, profile %s (%s), grid %lld points (step %g cm-1), cut-off %g cm-1\n",
              to_string(backend).c_str(), n, profile.c_str(), sampled ? "sampled" : "bin-integrated", spec.points, g.step, cutoff);
  std::printf("  whole pass (raw lines: S and widths computed with the grid, on the backend): %.3f s, %.3e lines/s per temperature\n", pass_s, n / pass_s);
  std::printf("  kernel (widths precomputed, host-to-device copies included): %.3f s, %.3e lines/s, %.3e profile evaluations/s\n", kernel_s,
              n / kernel_s, evals / kernel_s);
  std::printf("  checksum (sum of sigma): %.6e\n", total);
  if (!out.empty()) {
    std::ofstream f(out);
    f << "{\"backend\": \"" << to_string(backend) << "\", \"lines\": " << n << ", \"profile\": \"" << profile << "\", \"sampled\": " << sampled
      << ", \"points\": " << spec.points << ", \"step\": " << g.step << ", \"cutoff\": " << cutoff << ", \"pass_seconds\": " << pass_s
      << ", \"kernel_seconds\": " << kernel_s << ", \"lines_per_second\": " << n / pass_s << ", \"kernel_lines_per_second\": " << n / kernel_s
      << "}\n";
  }
  return 0;
}
