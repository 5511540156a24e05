#include "quanta/mosfet/statistics.hpp"

#include <cmath>

namespace quanta::mosfet {

double log1p_exp(double x) { return x > 0 ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x)); }

double fermi_dirac_1(double eta) {
  // F_1(eta) = -Li_2(-x), x = e^eta. For eta > 0 the inversion F_1(eta) = pi^2/6 + eta^2/2 - F_1(-eta)
  // maps to x < 1. Small x: the power series of Li_2; x near 1: Li_2(z) = sum_n B_n u^{n+1} / (n+1)! with
  // u = -ln(1 - z) (|u| <= ln 2 here, so 11 terms reach 1e-17).
  if (eta > 0) return 1.6449340668482264365 /* pi^2/6 */ + 0.5 * eta * eta - fermi_dirac_1(-eta);
  const double x = std::exp(eta);
  if (x <= 0.5) {
    double sum = 0.0, power = 1.0;
    for (int k = 1; k <= 80; ++k) {
      power *= -x;
      sum += power / (static_cast<double>(k) * k);  // Li_2(-x)
    }
    return -sum;
  }
  static constexpr double c[] = {1.0, -0.25, 0.027777777777777776, 0.0, -0.0002777777777777778, 0.0,
                                 4.72411186696901e-06, 0.0, -9.185773074661964e-08, 0.0, 1.8978869988971e-09, 0.0,
                                 -4.0647616451442256e-11, 0.0, 8.921691020456452e-13, 0.0, -1.9939295860721074e-14,
                                 0.0, 4.518980029619918e-16, 0.0, -1.0356517612181247e-17};
  const double u = -std::log1p(x);
  double sum = 0.0, power = 1.0;
  for (double ck : c) {
    power *= u;
    sum += ck * power;
  }
  return -sum;
}

SubbandPopulation subband_population(double eps, double fermi_level, double kT, double dos2d, double alpha) {
  const double eta = (fermi_level - eps) / kT;
  const double l = log1p_exp(eta);
  SubbandPopulation s;
  s.rho = dos2d * kT * (l + 2.0 * alpha * kT * fermi_dirac_1(eta));
  s.drho = dos2d * (1.0 / (1.0 + std::exp(-eta)) + 2.0 * alpha * kT * l);
  return s;
}

SubbandPopulation subband_population_boltzmann(double eps, double fermi_level, double kT, double dos2d, double alpha) {
  SubbandPopulation s;
  s.rho = dos2d * kT * (1.0 + 2.0 * alpha * kT) * std::exp((fermi_level - eps) / kT);
  s.drho = s.rho / kT;
  return s;
}

SubbandPopulation subband_population(Statistics statistics, double eps, double fermi_level, double kT, double dos2d, double alpha) {
  switch (statistics) {
    case Statistics::FermiDirac: return subband_population(eps, fermi_level, kT, dos2d, alpha);
    case Statistics::FermiDiracParabolic: return subband_population(eps, fermi_level, kT, dos2d, 0.0);
    case Statistics::MaxwellBoltzmann: break;
  }
  return subband_population_boltzmann(eps, fermi_level, kT, dos2d, alpha);
}

}  // namespace quanta::mosfet
