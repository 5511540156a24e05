// Epsilon's inversions at the frequencies (kernels/invert.hpp) on a synthetic problem of a given size:
//
//   bench_gw_invert n nf [--backend cpu|cuda] [--repeat N] [--out F.json]
//
// nf matrices chi_f (n x n, random, small enough that eps_f = 1 - v chi_f is well conditioned; v = 1). CUDA: chi_f
// uploaded, then timed: epsilon_inverse_cuda_many, which forms eps_f on the device, inverts it (cuSOLVER getrf, getrs
// against the identity) and brings eps_f^-1 to host memory, as Epsilon does after CHI_SUM at the frequencies. CPU:
// eps_f formed on the host and inverted by LAPACK (getrf, getri), frequency by frequency. Prints each run's wall time
// per matrix, the median of the later runs, and the floors: (8/3 + 8) n^3 FLOP per matrix at the FP64 tensor peak and
// 16 n^2 bytes per matrix over the host link.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "../kernels/invert.hpp"
#include "quanta/core/backend.hpp"
#include "quanta/core/buffer.hpp"
#include "quanta/core/host_vector.hpp"
#include "quanta/core/threads.hpp"
#include "quanta/core/timer.hpp"

using namespace quanta;
using namespace quanta::gw;

int main(int argc, char** argv) {
  std::vector<long> args;
  std::string backend_name = "auto", out;
  int repeat = 4;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "bench_gw_invert: %s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--backend") backend_name = next();
    else if (a == "--repeat") repeat = std::atoi(next().c_str());
    else if (a == "--out") out = next();
    else if (!a.empty() && a[0] != '-') args.push_back(std::atol(a.c_str()));
    else {
      std::fprintf(stderr, "bench_gw_invert: unknown option %s\n", a.c_str());
      return 2;
    }
  }
  if (args.size() != 2 || args[0] < 1 || args[0] > 40000 || args[1] < 1 || args[1] > 1000 || repeat < 2) {
    std::fprintf(stderr, "usage: bench_gw_invert n nf [--backend cpu|cuda] [--repeat N >= 2] [--out F.json]\n");
    return 2;
  }
  const int n = static_cast<int>(args[0]), nf = static_cast<int>(args[1]);
  const Backend backend = resolve_backend(parse_backend(backend_name));
  const std::size_t nn = static_cast<std::size_t>(n) * n;
  std::mt19937_64 rng(5);
  std::normal_distribution<double> g(0.0, 0.3 / std::sqrt(static_cast<double>(n)));
  std::vector<cplx> chis(nn * nf);
  for (auto& x : chis) x = cplx(g(rng), g(rng));
  const std::vector<double> v(n, 1.0);
  std::vector<double> runs;
  double check = 0;
  try {
    for (int r = 0; r < repeat; ++r) {
      HostVector<cplx> inv;
#if QUANTA_GW_CUDA
      if (backend == Backend::Cuda) {
        DeviceBuffer<cplx> dev(std::span<const cplx>(chis), "chi_f");
        std::vector<double> heads(nf);
        WallTimer t;
        inv = kernels::epsilon_inverse_cuda_many(dev.data(), nf, v, n, "bench", heads.data());
        runs.push_back(t.seconds() / nf);
      }
#endif
      if (backend != Backend::Cuda) {
        WallTimer t;
        inv.resize(nn * nf);
        for (int f = 0; f < nf; ++f) {
          std::vector<cplx> eps(nn);
          for (std::size_t k = 0; k < nn; ++k) eps[k] = (k % (n + 1) == 0 ? cplx(1.0) : cplx()) - chis[f * nn + k];
          const auto e = kernels::invert_cpu(std::move(eps), n, "bench");
          std::copy(e.begin(), e.end(), inv.begin() + f * nn);
        }
        runs.push_back(t.seconds() / nf);
      }
      // eps_last (eps_last^-1) e_0 = e_0: the first column's residual, a check that the inverse is one.
      const cplx* a = chis.data() + (nf - 1) * nn;
      const cplx* b = inv.data() + (nf - 1) * nn;
      check = 0;
      for (int i = 0; i < n; ++i) {
        cplx s;
        for (int k = 0; k < n; ++k) s += ((i == k ? cplx(1.0) : cplx()) - a[i + static_cast<std::size_t>(n) * k]) * b[k];
        check = std::max(check, abs(s - (i == 0 ? cplx(1.0) : cplx())));
      }
      std::printf("bench_gw_invert: run %d: %.3f ms per matrix (n %d, %d matrices, %s), residual %.1e\n", r + 1, 1e3 * runs.back(), n, nf,
                  to_string(backend).c_str(), check);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_gw_invert: %s\n", e.what());
    return 1;
  }
#if QUANTA_GW_CUDA
  if (backend == Backend::Cuda) {
    WallTimer ta;
    std::vector<cplx> fresh(nn * nf);
    const double t_alloc = ta.seconds();
    double t_parallel = 0;
    {
      WallTimer tz;
      const auto zeroed = host_vector_zeroed<cplx>(nn * nf);
      t_parallel = tz.seconds();
    }
    DeviceBuffer<cplx> one(nn, "one matrix");
    one.download(std::span<cplx>(fresh.data(), nn));  // warm
    WallTimer tp;
    for (int r = 0; r < 3; ++r) one.download(std::span<cplx>(fresh.data(), nn));
    const double t_pageable = tp.seconds() / 3;
    WallTimer tr;
    PinnedHost pin(fresh.data(), fresh.size() * sizeof(cplx));
    const double t_register = tr.seconds();
    WallTimer tq;
    for (int r = 0; r < 3; ++r) one.download(std::span<cplx>(fresh.data(), nn));
    const double t_pinned = tq.seconds() / 3;
    std::printf("bench_gw_invert: host side: a result as std::vector<cplx>(n) %.3f s (%.2f GB/s, %.2f ms per matrix), as host_vector_zeroed %.3f s "
                "(%.2f GB/s, %d threads); one matrix down the link %.2f ms pageable (%.1f GB/s); the whole result page-locked in %.3f s (%.2f ms "
                "per matrix), then one matrix down %.2f ms (%.1f GB/s)\n",
                t_alloc, 16.0 * nn * nf / t_alloc * 1e-9, 1e3 * t_alloc / nf, t_parallel, 16.0 * nn * nf / t_parallel * 1e-9, max_threads(),
                1e3 * t_pageable, 16.0 * nn / t_pageable * 1e-9, t_register, 1e3 * t_register / nf, 1e3 * t_pinned, 16.0 * nn / t_pinned * 1e-9);
  }
#endif
  std::vector<double> later(runs.begin() + 1, runs.end());
  std::sort(later.begin(), later.end());
  const double median = later[later.size() / 2];
  const double flops = (8.0 / 3.0 + 8.0) * static_cast<double>(n) * n * n, bytes = 16.0 * nn;
  std::printf("bench_gw_invert: median of runs 2-%d: %.3f ms per matrix; %.2f TFLOP/s by (8/3 + 8) n^3, %.1f GB/s of eps^-1 to the host\n", repeat,
              1e3 * median, flops / median * 1e-12, bytes / median * 1e-9);
  if (!out.empty()) {
    std::ofstream o(out);
    o << "{\n  \"n\": " << n << ",\n  \"nf\": " << nf << ",\n  \"backend\": \"" << to_string(backend) << "\",\n  \"seconds_per_matrix\": [";
    for (std::size_t i = 0; i < runs.size(); ++i) o << (i ? ", " : "") << runs[i];
    o << "],\n  \"median_later\": " << median << ",\n  \"residual\": " << check << "\n}\n";
  }
  return check < 1e-8 ? 0 : 1;
}
