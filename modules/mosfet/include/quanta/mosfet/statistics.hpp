#pragma once
// Fermi-Dirac populations of the 2-D electron gas of one subband with Kane's non-parabolic in-plane
// dispersion, E (1 + alpha E) = hbar^2 k^2 / (2 m_d): the density of states is D (1 + 2 alpha E) with
// D = m_d / (pi hbar^2) (both spins), so at level eps and Fermi level E_F, eta = (E_F - eps) / kT,
//   rho = D kT [ ln(1 + e^eta) + 2 alpha kT F_1(eta) ],     F_1(eta) = int_0^inf t / (1 + e^{t - eta}) dt,
//   -d rho / d eps = D [ 1 / (1 + e^-eta) + 2 alpha kT ln(1 + e^eta) ].
namespace quanta::mosfet {

// ln(1 + e^x) without overflow.
double log1p_exp(double x);
// F_1(eta) = -Li_2(-e^eta) (complete Fermi-Dirac integral of order 1, not divided by Gamma(2) = 1).
double fermi_dirac_1(double eta);

struct SubbandPopulation {
  double rho = 0;   // nm^-2, one valley, both spins
  double drho = 0;  // -d rho / d eps, eV^-1 nm^-2
};
SubbandPopulation subband_population(double eps, double fermi_level, double kT, double dos2d, double alpha);

// The same subband in Maxwell-Boltzmann statistics, the only equilibrium of the Boltzmann transport phase's
// linear collision operator (docs/mosfet-transport-model.md, section 3.7):
//   rho = D kT (1 + 2 alpha kT) e^eta,     -d rho / d eps = rho / kT.
SubbandPopulation subband_population_boltzmann(double eps, double fermi_level, double kT, double dos2d, double alpha);

// Which the equilibrium of the Schroedinger-Poisson block uses. FermiDiracParabolic is Fermi-Dirac with a parabolic
// in-plane dispersion (alpha taken as 0), rho = D kT ln(1 + e^eta): the seed's code's contact profile
// (docs/mosfet-transport-model.md, section 6).
enum class Statistics { FermiDirac, MaxwellBoltzmann, FermiDiracParabolic };
SubbandPopulation subband_population(Statistics statistics, double eps, double fermi_level, double kT, double dos2d, double alpha);

}  // namespace quanta::mosfet
