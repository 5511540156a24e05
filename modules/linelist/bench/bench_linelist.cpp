// Benchmark of the linestrength engines on a synthetic case with the structure and size of the seed's
// largest basis (H2CO, d_vib = 7642, J = 70: d_J = 141 x 7642 = 1,077,522): a random symmetric dipole,
// normalized random coefficient vectors in the (k, tau) x v product basis, lower J to upper J + 1.
// Reports per-state half-linestrength times (gemm and the seed's cache-and-reduce kernel), completion
// throughput (transitions/s), achieved FLOP/s, and the projected time of a 10^9-transition line list.
//
//   bench_linelist [--backend cuda|cpu] [--nvib 7642] [--J 70] [--lower 256] [--upper 2000]
//                  [--cr-states 2] [--out results.json]
#include <omp.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <random>
#include <string>

#include "../kernels/linestrength.hpp"
#include "quanta/core/backend.hpp"
#include "quanta/core/timer.hpp"

using namespace quanta;
using namespace quanta::linelist;

namespace {

RotVibBasis top(int J, int nvib) { return symmetric_top_basis(J, nvib); }

// Normalized random vectors, generated in parallel (one stream per vector).
std::vector<double> random_vectors(std::size_t count, std::size_t dim, unsigned seed) {
  std::vector<double> v(count * dim);
#pragma omp parallel for schedule(dynamic)
  for (std::size_t i = 0; i < count; ++i) {
    std::mt19937_64 rng(seed * 1000003ull + i);
    std::normal_distribution<double> g;
    double* x = v.data() + i * dim;
    double s = 0;
    for (std::size_t p = 0; p < dim; ++p) s += (x[p] = g(rng)) * x[p];
    const double inv = 1 / std::sqrt(s);
    for (std::size_t p = 0; p < dim; ++p) x[p] *= inv;
  }
  return v;
}

}  // namespace

int main(int argc, char** argv) {
  std::string backend_name = "auto", out;
  int nvib = 7642, J = 70, nlower = 256, nupper = 2000, cr_states = 2;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--backend") backend_name = argv[i + 1];
    else if (a == "--nvib") nvib = std::stoi(argv[i + 1]);
    else if (a == "--J") J = std::stoi(argv[i + 1]);
    else if (a == "--lower") nlower = std::stoi(argv[i + 1]);
    else if (a == "--upper") nupper = std::stoi(argv[i + 1]);
    else if (a == "--cr-states") cr_states = std::stoi(argv[i + 1]);
    else if (a == "--out") out = argv[i + 1];
    else {
      std::fprintf(stderr, "unknown option %s\n", a.c_str());
      return 2;
    }
  }
  const Backend backend = resolve_backend(parse_backend(backend_name));
  const RotVibBasis lo = top(J, nvib), up = top(J + 1, nvib);
  std::printf("linelist benchmark: %s, d_vib = %d, J = %d -> %d (d = %zu -> %zu), %d lower, %d upper states, %d threads\n",
              device_description(backend).c_str(), nvib, J, J + 1, lo.size(), up.size(), nlower, nupper, omp_get_max_threads());

  WallTimer t;
  DipoleMatrices d;
  d.n = nvib;
  d.mu.resize(3 * std::size_t(nvib) * nvib);
#pragma omp parallel for schedule(dynamic)
  for (int i = 0; i < nvib; ++i) {
    std::mt19937_64 rng(17 + i);
    std::uniform_real_distribution<double> u(-1, 1);
    for (int a = 0; a < 3; ++a)
      for (int j = 0; j <= i; ++j) d.mu[(std::size_t(a) * nvib + i) * nvib + j] = u(rng) / nvib;
  }
  for (int a = 0; a < 3; ++a)
    for (int i = 0; i < nvib; ++i)
      for (int j = i + 1; j < nvib; ++j) d.mu[(std::size_t(a) * nvib + i) * nvib + j] = d.mu[(std::size_t(a) * nvib + j) * nvib + i];
  const std::vector<double> lower = random_vectors(nlower, lo.size(), 1), upper = random_vectors(nupper, up.size(), 2);
  const RotationalCoupling rc = rotational_coupling(lo, up, -1);
  std::printf("set-up (random inputs) %.1f s\n", t.seconds());

  // Gemm: one batch of lower states, then their completions against all upper states.
  EngineOptions eo;
  eo.method = Method::Gemm;
  auto gemm = make_engine(backend, d, eo);
  std::vector<double> amp(std::size_t(nlower) * nupper);
  gemm->set_lower(lower.data(), 1, lo.nrot());  // warm-up: library handles, first allocations
  gemm->half_linestrengths(rc);
  gemm->completions(0, upper.data(), nupper, amp.data());  // also makes the upper vectors resident
  gemm->synchronize();
  t.reset();
  gemm->set_lower(lower.data(), nlower, lo.nrot());
  gemm->synchronize();
  const double t_upload = t.seconds();
  t.reset();
  gemm->half_linestrengths(rc);
  gemm->synchronize();
  const double t_half = t.seconds();
  t.reset();
  gemm->completions(0, upper.data(), nupper, amp.data());
  const double t_comp = t.seconds();
  const double flop_half = 2.0 * 3 * nvib * double(nvib) * lo.nrot() * nlower;
  const double flop_comp = 2.0 * double(up.size()) * nlower * nupper;
  const double rate = double(nlower) * nupper / t_comp;
  std::printf("gemm: upload %.3f s; half-linestrengths %.3f s = %.2f ms per lower state (%.1f TFLOP/s); completions %.3f s = %.3g transitions/s (%.1f TFLOP/s)\n",
              t_upload, t_half, 1e3 * t_half / nlower, flop_half / t_half / 1e12, t_comp, rate, flop_comp / t_comp / 1e12);

  // The seed's cache-and-reduce kernel, one lower state at a time.
  EngineOptions co;
  co.method = Method::CacheReduce;
  auto cr = make_engine(backend, d, co);
  cr->set_lower(lower.data(), 1, lo.nrot());
  cr->half_linestrengths(rc);  // warm-up
  cr->synchronize();
  t.reset();
  for (int s = 0; s < cr_states; ++s) {
    cr->set_lower(lower.data() + std::size_t(s) * lo.size(), 1, lo.nrot());
    cr->half_linestrengths(rc);
  }
  cr->synchronize();
  const double t_cr = t.seconds() / cr_states;
  std::printf("cache-and-reduce: %.3f s per lower state (seed: < 1 s on an M2090 for this basis)\n", t_cr);

  // A 10^9-transition line list of this size: 4000 lower states, each with its half-linestrengths for
  // three J' (J-1, J, J+1), and 10^9 completions.
  const double lower_states = 4000, transitions = 1e9;
  const double projected = lower_states * 3 * t_half / nlower + transitions / rate;
  std::printf("projected 10^9-transition line list (4000 lower states x 3 J', 10^9 completions): %.0f s\n", projected);

  if (!out.empty()) {
    std::ofstream f(out);
    f << "{\n  \"device\": \"" << device_description(backend) << "\",\n  \"threads\": " << omp_get_max_threads() << ",\n  \"nvib\": " << nvib
      << ",\n  \"J\": " << J << ",\n  \"dim_lower\": " << lo.size() << ",\n  \"dim_upper\": " << up.size() << ",\n  \"lower_states\": " << nlower
      << ",\n  \"upper_states\": " << nupper << ",\n  \"gemm_upload_s\": " << t_upload << ",\n  \"gemm_half_s\": " << t_half
      << ",\n  \"gemm_half_per_state_s\": " << t_half / nlower << ",\n  \"gemm_half_tflops\": " << flop_half / t_half / 1e12
      << ",\n  \"completion_s\": " << t_comp << ",\n  \"completion_transitions_per_s\": " << rate
      << ",\n  \"completion_tflops\": " << flop_comp / t_comp / 1e12 << ",\n  \"cr_half_per_state_s\": " << t_cr
      << ",\n  \"projected_1e9_linelist_s\": " << projected << "\n}\n";
  }
  return 0;
}
