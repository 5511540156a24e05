#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "quanta/core/error.hpp"
#include "../kernels/linestrength.hpp"

namespace quanta::linelist {

Method parse_method(const std::string& text) {
  if (text == "gemm") return Method::Gemm;
  if (text == "cr") return Method::CacheReduce;
  throw Error("--method: found '" + text + "', expected gemm or cr");
}

std::string to_string(Method m) { return m == Method::Gemm ? "gemm" : "cr"; }

double three_j_rank1(int j1, int m1, int j, int m) {
  const int q = m - m1;
  if (j < 0 || std::abs(q) > 1 || std::abs(m1) > j1 || std::abs(m) > j || std::abs(j - j1) > 1 || j + j1 < 1) return 0.0;
  const double a = j1, M = m;
  double cg = 0;  // <j1 m1; 1 q | j m>
  if (j == j1 + 1) {
    if (q == 1) cg = std::sqrt((a + M) * (a + M + 1) / ((2 * a + 1) * (2 * a + 2)));
    if (q == 0) cg = std::sqrt((a - M + 1) * (a + M + 1) / ((2 * a + 1) * (a + 1)));
    if (q == -1) cg = std::sqrt((a - M) * (a - M + 1) / ((2 * a + 1) * (2 * a + 2)));
  } else if (j == j1) {
    if (q == 1) cg = -std::sqrt((a + M) * (a - M + 1) / (2 * a * (a + 1)));
    if (q == 0) cg = M / std::sqrt(a * (a + 1));
    if (q == -1) cg = std::sqrt((a - M) * (a + M + 1) / (2 * a * (a + 1)));
  } else {
    if (q == 1) cg = std::sqrt((a - M) * (a - M + 1) / (2 * a * (2 * a + 1)));
    if (q == 0) cg = -std::sqrt((a - M) * (a + M) / (a * (2 * a + 1)));
    if (q == -1) cg = std::sqrt((a + M + 1) * (a + M) / (2 * a * (2 * a + 1)));
  }
  // (j1 1 j; m1 q -m) = (-1)^(j1 - 1 + m) / sqrt(2j + 1) <j1 m1; 1 q | j m>
  const int phase = ((j1 - 1 + m) % 2 + 2) % 2 ? -1 : 1;
  return phase * cg / std::sqrt(2.0 * j + 1);
}

// TROVE's rotational factors on its real (k, tau) basis: with sigma = (k mod 3) tau and
// s = 1/sqrt(2) when both k are non-zero (1 otherwise),
//   k' = k:            (tau' - tau)             mu_z
//   k' != k, tau' != tau: (k' - k)(tau' - tau) s  mu_x
//   k' != k, tau' == tau: -s                      mu_y
// times (-1)^(sigma' + sigma + k) (J 1 J'; k, k' - k, -k').
RotationalCoupling rotational_coupling(const RotVibBasis& lower, const RotVibBasis& upper, double thresh_coeff) {
  RotationalCoupling c;
  c.nrot_lower = lower.nrot();
  c.nrot_upper = upper.nrot();
  c.first.push_back(0);
  for (int rf = 0; rf < upper.nrot(); ++rf) {
    const int kf = upper.k[rf], tf = upper.tau[rf];
    for (int ri = 0; ri < lower.nrot(); ++ri) {
      const int ki = lower.k[ri], ti = lower.tau[ri];
      if (std::abs(ki - kf) > 1) continue;
      const double tj = three_j_rank1(lower.J, ki, upper.J, kf);
      if (tj == 0.0 || std::abs(tj) < thresh_coeff) continue;
      const double s = (ki != 0 && kf != 0) ? 1.0 / std::sqrt(2.0) : 1.0;
      int a;
      double l;
      if (kf == ki) {
        if (tf == ti) continue;
        a = 2;
        l = tf - ti;
      } else if (tf != ti) {
        a = 0;
        l = (kf - ki) * (tf - ti) * s;
      } else {
        a = 1;
        l = -s;
      }
      const int sign = ((kf % 3) * tf + (ki % 3) * ti + ki) % 2 ? -1 : 1;
      c.rot_lower.push_back(ri);
      c.component.push_back(a);
      c.factor.push_back(sign * tj * l);
    }
    c.first.push_back(static_cast<int>(c.rot_lower.size()));
  }
  return c;
}

std::vector<double> stacked_dipole(const DipoleMatrices& d) {
  const std::size_t n = d.n;
  std::vector<double> s(3 * n * n);
  for (std::size_t a = 0; a < 3; ++a)
    for (std::size_t j = 0; j < n; ++j)
      for (std::size_t i = 0; i < n; ++i) s[j * 3 * n + a * n + i] = d.mu[(a * n + i) * n + j];
  return s;
}

void LinestrengthEngine::completions(const double* upper, int nupper, double* amplitudes) {
  if (nupper == 0 || lower_states() == 0) return;
  const std::size_t count = std::size_t(nupper) * upper_dim();
  std::copy(upper, upper + count, upper_buffer(0, count));
  start_completions(0, nupper);
  const double* a = finish_completions(0);
  std::copy(a, a + std::size_t(lower_states()) * nupper, amplitudes);
}

EnginePlan plan_within(std::size_t bytes, std::size_t lower_bytes, std::size_t dim_upper, const EngineOptions& o) {
  const std::size_t vec = dim_upper * sizeof(double);
  EnginePlan p;
  p.upper_chunk = int(std::clamp<std::size_t>(bytes / 8 / vec, 1, 4096));
  const std::size_t chunks = 2 * std::size_t(p.upper_chunk) * vec;
  const std::size_t per_state = lower_bytes + vec + 2 * std::size_t(p.upper_chunk) * sizeof(double);
  p.lower_states = int(std::clamp<std::size_t>(bytes > chunks ? (bytes - chunks) / per_state : 1, 1, 1 << 20));
  if (o.max_lower_states > 0) p.lower_states = std::min(p.lower_states, o.max_lower_states);
  if (o.max_upper_chunk > 0) p.upper_chunk = std::min(p.upper_chunk, o.max_upper_chunk);
  return p;
}

std::unique_ptr<LinestrengthEngine> make_engine(Backend backend, const DipoleMatrices& dipole, const EngineOptions& options) {
  if (backend == Backend::Cuda) return make_cuda_engine(dipole, options);
  return make_cpu_engine(dipole, options);
}

#ifndef QUANTA_HAVE_CUDA
std::unique_ptr<LinestrengthEngine> make_cuda_engine(const DipoleMatrices&, const EngineOptions&) {
  throw Error("linelist: this build has no CUDA backend");
}
#endif

}  // namespace quanta::linelist
