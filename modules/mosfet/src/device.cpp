// The device's node arrays on the grid.
#include <algorithm>
#include <cmath>
#include <string>

#include "quanta/core/error.hpp"
#include "quanta/mosfet/device.hpp"

namespace quanta::mosfet {

DeviceGrid make_device_grid(const Device& dev, const GridSize& grid, double source_potential) {
  return make_device_grid(dev, grid, ContactBoundary::flat(source_potential, grid.nz));
}

DeviceGrid make_device_grid(const Device& dev, const GridSize& grid, const ContactBoundary& contacts) {
  const Geometry& g = dev.geometry;
  const Materials& m = dev.materials;
  if (grid.nx < 3 || grid.nz < 5) throw Error("mosfet: the grid needs nx >= 3 and nz >= 5 nodes");
  DeviceGrid d;
  d.nx = grid.nx;
  d.nz = grid.nz;
  d.dx = g.length() / (grid.nx - 1);
  d.dz = g.width() / (grid.nz - 1);
  d.kT = constants::kB * dev.temperature / constants::eV;
  d.valley_degeneracy = m.valley_degeneracy;
  const bool open = contacts.profile.empty();
  if (!open && contacts.profile.size() != static_cast<std::size_t>(grid.nz))
    throw Error("mosfet: a contact profile of " + std::to_string(contacts.profile.size()) + " values for nz = " + std::to_string(grid.nz));
  // nm: a node on an interface belongs to the silicon and the channel (quanta), or to the oxide and the
  // source or drain (the seed's code)
  const double slack = grid.interfaces == InterfaceNodes::Quanta ? 1e-9 : -1e-9;

  // Material along z: the silicon film between the oxides; interfaces fall on the nearest enclosed nodes.
  d.silicon_first = grid.nz;
  d.silicon_last = -1;
  std::vector<bool> silicon(grid.nz);
  for (int j = 0; j < grid.nz; ++j) {
    const double z = j * d.dz;
    silicon[j] = z >= g.oxide_thickness - slack && z <= g.oxide_thickness + g.silicon_thickness + slack;
    if (silicon[j]) {
      d.silicon_first = std::min(d.silicon_first, j);
      d.silicon_last = j;
    }
  }
  if (d.silicon_last - d.silicon_first < 2)
    throw Error("mosfet: nz = " + std::to_string(grid.nz) + " leaves fewer than 3 nodes in the " +
                std::to_string(g.silicon_thickness) + " nm silicon film; refine the grid");
  d.source_potential = open ? contacts.gate_reference : contacts.profile[(d.silicon_first + d.silicon_last) / 2];
  d.barrier.assign(grid.nz, 0.0);
  d.inv_mass_z.assign(3 * grid.nz, 0.0);
  for (int j = 0; j < grid.nz; ++j) {
    d.barrier[j] = silicon[j] ? 0.0 : m.barrier;
    for (int v = 0; v < 3; ++v) d.inv_mass_z[v * grid.nz + j] = 1.0 / (silicon[j] ? m.valleys[v].mz : m.m_ox);
  }
  for (int v = 0; v < 3; ++v) {
    d.dos2d.push_back(constants::dos2d_per_me * std::sqrt(m.valleys[v].mx * m.valleys[v].my));
    d.alpha.push_back(m.valleys[v].alpha);
  }

  // Doping along x (silicon only), permittivity, and the contacts and gates.
  const std::size_t nodes = static_cast<std::size_t>(grid.nx) * grid.nz;
  d.eps_r.assign(nodes, 0.0);
  d.doping.assign(nodes, 0.0);
  d.dirichlet.assign(nodes, 0);
  d.boundary_value.assign(nodes, 0.0);
  const double to_nm3 = 1e-27;
  const double x_channel = g.source_length, x_drain = g.source_length + g.channel_length;
  const double reach = std::abs(slack);  // a gate includes a node on its end in both conventions
  if (!(g.gate_start >= -reach && g.gate_end <= g.length() + reach && g.gate_start < g.gate_end))
    throw Error("mosfet: the gates [" + std::to_string(g.gate_start) + ", " + std::to_string(g.gate_end) +
                "] nm must lie within the device length " + std::to_string(g.length()) + " nm");
  for (int i = 0; i < grid.nx; ++i) {
    const double x = i * d.dx;
    const bool source = x < x_channel - slack, drain = x > x_drain + slack;
    const bool gated = x >= g.gate_start - reach && x <= g.gate_end + reach;
    for (int j = 0; j < grid.nz; ++j) {
      const std::size_t r = static_cast<std::size_t>(i) * grid.nz + j;
      d.eps_r[r] = silicon[j] ? m.eps_si : m.eps_ox;
      if (silicon[j]) d.doping[r] = (source || drain ? dev.doping.source_drain : dev.doping.channel) * to_nm3;
      if (!open && silicon[j] && i == 0) {
        d.dirichlet[r] = 1;
        d.boundary_value[r] = contacts.profile[j];
      } else if (!open && silicon[j] && i == grid.nx - 1) {
        d.dirichlet[r] = 1;
        d.boundary_value[r] = contacts.profile[j] + dev.bias.drain_voltage;
      } else if (gated && (j == 0 || j == grid.nz - 1)) {
        d.dirichlet[r] = 1;
        d.boundary_value[r] = contacts.gate_reference + dev.bias.gate_voltage;
      }
    }
  }
  return d;
}

}  // namespace quanta::mosfet
