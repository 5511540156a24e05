// Constants of the transport phase (docs/mosfet-transport-model.md, sections 1.2, 3.4, 3.5).
#include "quanta/mosfet/transport.hpp"

#include <cmath>

namespace quanta::mosfet {

double TransportScales::time() const {
  return length_x * 1e-9 * std::sqrt(constants::electron_mass / (constants::kB * temperature));
}

kernels::KaneValley kane_valley(const Valley& v, const TransportScales& scales) { return {v.mx, v.my, v.alpha * scales.kT_eV()}; }

kernels::PhononScattering make_phonon_scattering(const PhononParameters& ph, const std::array<Valley, 3>& valleys,
                                                 const TransportScales& sc, RateConvention rates, IntervalleyOccupation occupation) {
  using namespace constants;
  const double kT = kB * sc.temperature, ts = sc.time(), lz = sc.length_z * 1e-9;
  const double rho = ph.mass_density, ul = ph.sound_velocity;
  // The golden rule's 2-D rates per unit overlap (W in units of 1 / L_z) and in units of 1 / t*, divided by the
  // 2 pi of the angular integral that the operator applies to the loss (kernels::gain_loss); the seed's code
  // has 1 / (2 pi) of these.
  const double convention = rates == RateConvention::GoldenRule ? 2 * pi : 1.0;
  kernels::PhononScattering s{};
  const double xi = ph.acoustic_deformation_potential * eV;
  s.C[0] = convention * electron_mass * kT * xi * xi * ts / (4 * pi * pi * hbar * hbar * hbar * rho * ul * ul * lz);
  s.x[0] = 0;
  for (int k = 1; k < kernels::kMechanisms; ++k) {
    const double omega = kB * ph.theta[k - 1] / hbar, coupling = ph.coupling[k - 1] * 1e8 * 1e2 * eV;  // J/m
    s.C[k] = convention * electron_mass * coupling * coupling * ts / (8 * pi * pi * hbar * hbar * rho * omega * lz);
    s.x[k] = ph.theta[k - 1] / sc.temperature;
  }
  for (int v = 0; v < kernels::kValleys; ++v)
    for (int v2 = 0; v2 < kernels::kValleys; ++v2)
      for (int k = 0; k < kernels::kMechanisms; ++k) {
        const double e = std::exp(s.x[k]);
        double n = k == 0 ? 0.0 : 1 / (e - 1);
        if (k >= 4 && occupation == IntervalleyOccupation::SeedCode) {
          const kernels::KaneValley a = kane_valley(valleys[v], sc), b = kane_valley(valleys[v2], sc);
          const double r = std::sqrt(a.mx * a.my) * (1 + 2 * a.alpha) / (std::sqrt(b.mx * b.my) * (1 + 2 * b.alpha));
          n = (r * e + 1) / ((e + 1) * (e - 1));
        }
        s.occupation[v][v2][k] = n;
      }
  return s;
}

}  // namespace quanta::mosfet
