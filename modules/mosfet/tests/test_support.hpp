#pragma once
// Shared set-up of the mosfet block tests: the seed device on a grid, its neutral contact potential.
#include <algorithm>
#include <cmath>
#include <vector>

#include "quanta/mosfet/schrodinger_poisson.hpp"

namespace mosfet_test {

inline quanta::mosfet::DeviceGrid seed_device(int nx, int nz, double gate_voltage = 0.5) {
  quanta::mosfet::Device dev;
  dev.bias.gate_voltage = gate_voltage;
  const quanta::mosfet::GridSize size{nx, nz};
  return quanta::mosfet::make_device_grid(dev, size, quanta::mosfet::neutral_contact_potential(dev, size, 6));
}

// max |a - b| / max |b|
inline double max_rel(const std::vector<double>& a, const std::vector<double>& b) {
  double m = 0, s = 0;
  for (std::size_t k = 0; k < a.size(); ++k) {
    m = std::max(m, std::abs(a[k] - b[k]));
    s = std::max(s, std::abs(b[k]));
  }
  return m / s;
}

// Populations [nx][...] with a smooth relative change of `amplitude` along x: the densities of the transport
// phase's next Runge-Kutta stage.
inline std::vector<double> perturbed(const std::vector<double>& rho, int nx, double amplitude) {
  std::vector<double> out = rho;
  const std::size_t per_column = rho.size() / nx;
  for (int i = 0; i < nx; ++i)
    for (std::size_t k = 0; k < per_column; ++k) out[i * per_column + k] *= 1.0 + amplitude * std::sin(3.0 * i / nx);
  return out;
}

inline double max_diff(const std::vector<double>& a, const std::vector<double>& b) {
  double m = 0;
  for (std::size_t k = 0; k < a.size(); ++k) m = std::max(m, std::abs(a[k] - b[k]));
  return m;
}

}  // namespace mosfet_test
