#include <cmath>

#include "quanta/core/units.hpp"
#include "quanta/phonon/harmonic.hpp"

namespace quanta::phonon {
namespace su = units::shengbte;

double mode_heat_capacity(double omega, double temperature) {
  const double x = su::hbar * omega / (2.0 * su::kB * temperature);
  if (x == 0) return 1.0;
  const double r = x / std::sinh(x);
  return r * r;
}

double specific_heat(const Crystal& c, const Spectrum& s, double temperature) {
  double sum = 0;
  for (int n = 0; n < s.nb; ++n)  // ShengBTE's summation order: modes outer, q inner
    for (int iq = 0; iq < s.nq; ++iq) sum += mode_heat_capacity(s.omega[static_cast<std::size_t>(iq) * s.nb + n], temperature);
  return su::kB / (su::nm3_to_m3 * c.volume * s.nq) * sum;
}

std::array<double, 9> kappa_small_grain(const Crystal& c, const Spectrum& s, double temperature) {
  std::array<double, 9> k{};
  for (int n = 0; n < s.nb; ++n)
    for (int iq = 1; iq < s.nq; ++iq) {  // Gamma left out, as ShengBTE does
      const std::size_t m = static_cast<std::size_t>(iq) * s.nb + n;
      const double* v = &s.velocity[3 * m];
      const double vn = std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
      if (vn < 1e-12) continue;
      const double w = mode_heat_capacity(s.omega[m], temperature) / vn;
      for (int a = 0; a < 3; ++a)
        for (int b = 0; b < 3; ++b) k[3 * a + b] += w * v[a] * v[b];
    }
  const double f = double(1e21f) * su::kB / (s.nq * c.volume);
  for (double& x : k) x *= f;
  return k;
}

}  // namespace quanta::phonon
