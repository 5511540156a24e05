#include <algorithm>
#include <cmath>
#include <limits>

#include "quanta/core/units.hpp"
#include "../kernels/three_phonon.hpp"
#include "quanta/phonon/harmonic.hpp"

namespace quanta::phonon {

std::vector<double> refined_sigma(const Crystal& c, const QGrid& grid, const Spectrum& s) {
  const std::size_t nmodes = static_cast<std::size_t>(s.nq) * s.nb;
  // Adaptive width of each mode, base_sigma(v) (no scalebroad), raised to a floor at the 25th percentile
  // of log(sigma) minus 1.5 interquartile ranges.
  std::vector<double> sigma(nmodes);
  for (std::size_t m = 0; m < nmodes; ++m) sigma[m] = kernels::base_sigma(c.reciprocal[0].data(), grid.n.data(), &s.velocity[3 * m]);
  std::vector<double> logs(nmodes);
  for (std::size_t m = 0; m < nmodes; ++m)
    logs[m] = sigma[m] > 0 ? std::log(sigma[m]) : -std::numeric_limits<double>::max();
  std::sort(logs.begin(), logs.end());
  const std::size_t i25 = std::max<std::size_t>(25 * nmodes / 100, 1) - 1, i75 = std::max<std::size_t>(75 * nmodes / 100, 1) - 1;
  const double delta = logs[i75] - logs[i25];
  const double floor = std::exp(logs[i25] - 1.5 * delta);
  for (double& x : sigma) x = std::max(x, floor);
  return sigma;
}

DensityOfStates density_of_states(const Crystal& c, const QGrid& grid, const Spectrum& s, int nticks) {
  const int nb = s.nb, nat = c.natoms;
  const std::size_t nmodes = static_cast<std::size_t>(s.nq) * nb;
  const std::vector<double> sigma = refined_sigma(c, grid, s);

  double emin = 1e10, emax = -1e10;
  for (double w : s.omega) emin = std::min(emin, w), emax = std::max(emax, w);
  emax *= 1.1;

  DensityOfStates d;
  d.energy.resize(nticks);
  d.dos.assign(nticks, 0.0);
  d.pdos.assign(static_cast<std::size_t>(nticks) * nat, 0.0);
  const double norm = static_cast<float>(s.nq);
  const double rsqpi = 1.0 / std::sqrt(units::pi);
#pragma omp parallel for schedule(dynamic)
  for (int t = 0; t < nticks; ++t) {
    const double e = emin + (emax - emin) * (t + 1) / nticks;
    d.energy[t] = e;
    if (e == 0) continue;
    double dos = 0;
    std::vector<double> pdos(nat, 0.0);
    for (std::size_t m = 0; m < nmodes; ++m) {
      const double x = e - s.omega[m];
      if (!(std::abs(x) < 2.5 * sigma[m])) continue;
      const double w = std::exp(-x * x / (sigma[m] * sigma[m])) * rsqpi / sigma[m];
      dos += w;
      const cplx* ev = &s.eigenvectors[m * nb];
      for (int a = 0; a < nat; ++a) pdos[a] += w * (norm2(ev[3 * a]) + norm2(ev[3 * a + 1]) + norm2(ev[3 * a + 2]));
    }
    d.dos[t] = dos / norm;
    for (int a = 0; a < nat; ++a) d.pdos[static_cast<std::size_t>(t) * nat + a] = pdos[a] / norm;
  }
  return d;
}

}  // namespace quanta::phonon
