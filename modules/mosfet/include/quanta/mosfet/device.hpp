#pragma once
// The double-gate MOSFET of the seed (Vecil, Mantas, Alonso-Jorda 2023; Mantas & Vecil 2019; Ben Abdallah,
// Caceres, Carrillo, Vecil 2009): source, channel and drain along x, a silicon film between two oxide
// layers along z, gates on the oxides over the channel, ohmic contacts at the ends of the film.
// Lengths in nm, energies in eV, potentials in V, volume densities in m^-3 (as the seed's Table 8).
#include <array>
#include <vector>

namespace quanta::mosfet {

// The seed's constants (Table 8) and the two it does not list (CODATA 2002, the set Table 8 comes from).
namespace constants {
inline constexpr double electron_mass = 9.10938188e-31;   // kg
inline constexpr double epsilon0 = 8.8541878176e-12;      // F/m
inline constexpr double eV = 1.60217653e-19;              // J (and C)
inline constexpr double hbar = 1.05457168e-34;            // J s
inline constexpr double kB = 1.3806505e-23;               // J/K
inline constexpr double pi = 3.141592653589793238462643383279502884;
// hbar^2 / m_e in eV nm^2: the kinetic prefactor of the Schroedinger matrices (seed eq. 6).
inline constexpr double hbar2_over_me = hbar * hbar / electron_mass / eV * 1e18;
// q / eps0 in V nm: Poisson's source term with densities in nm^-3.
inline constexpr double q_over_eps0 = eV / epsilon0 * 1e9;
// m_e / (pi hbar^2) in eV^-1 nm^-2: the 2-D density of states of one valley, both spins, per unit mass.
inline constexpr double dos2d_per_me = electron_mass / (pi * hbar * hbar) * eV * 1e-18;
}  // namespace constants

// One valley pair of the silicon conduction band (seed Table 9): masses in m_e, Kane factor in 1/eV.
// m_y, the second in-plane mass, enters only the 2-D density of states (m_d = sqrt(m_x m_y)).
struct Valley {
  double mx = 0.19, my = 0.19, mz = 0.98, alpha = 0.5;
};

struct Geometry {
  double source_length = 10.0, channel_length = 10.0, drain_length = 10.0;  // nm, along x
  double oxide_thickness = 1.0, silicon_thickness = 4.0;                    // nm, along z (oxide on both sides)
  // The gates cover x in [gate_start, gate_end] on both oxides; by default the channel.
  double gate_start = 10.0, gate_end = 20.0;
  double length() const { return source_length + channel_length + drain_length; }
  double width() const { return 2.0 * oxide_thickness + silicon_thickness; }
};

struct Materials {
  double eps_si = 11.7, eps_ox = 3.9;  // relative permittivities (Table 8)
  double m_ox = 0.5;                   // effective mass in the oxide, m_e (Table 8)
  double barrier = 3.15;               // confinement potential V_c in the oxide, eV (Table 8)
  // Valleys 1..3 of Table 9: (m_x, m_y, m_z) = (0.98, 0.19, 0.19), (0.19, 0.98, 0.19), (0.19, 0.19, 0.98).
  std::array<Valley, 3> valleys{Valley{0.98, 0.19, 0.19, 0.5}, Valley{0.19, 0.98, 0.19, 0.5}, Valley{0.19, 0.19, 0.98, 0.5}};
  int valley_degeneracy = 2;           // each valley pair counts twice (the seed's factor 2 in N)
};

struct Doping {
  double source_drain = 1e26;  // N_D in source and drain, m^-3 (Table 8)
  double channel = 1e18;       // N_D in the channel, m^-3
};

struct Bias {
  // Applied voltages relative to the source contact, whose potential V_s makes the contact column neutral
  // (src/device.cpp): V = V_s at the source, V_s + drain_voltage at the drain, V_s + gate_voltage at gates.
  double gate_voltage = 0.5, drain_voltage = 0.0;
};

struct Device {
  Geometry geometry;
  Materials materials;
  Doping doping;
  Bias bias;
  double temperature = 300.0;  // K
};

// The uniform grid of the seed: N_x x N_z nodes including the boundary, x_i = i dx, z_j = j dz.
// Which region a node on an interface belongs to. quanta's: a node on a silicon/oxide interface is silicon,
// one on a source/channel or channel/drain junction is channel. The seed's code's (its strict oxide test
// and its doping test, docs/mosfet-transport-model.md, section 1.4): such a node is oxide, and carries the
// source/drain doping. The two discretise the same device and agree as the grid is refined.
enum class InterfaceNodes { Quanta, SeedCode };

struct GridSize {
  int nx = 65, nz = 65;
  InterfaceNodes interfaces = InterfaceNodes::Quanta;
};

// Node arrays of a device on a grid, everything the kernels read. Row-major [nx][nz] unless noted.
struct DeviceGrid {
  int nx = 0, nz = 0;
  double dx = 0, dz = 0;             // nm
  double kT = 0;                      // eV
  std::vector<double> eps_r;          // [nx][nz] relative permittivity
  std::vector<double> doping;         // [nx][nz] N_D in nm^-3
  std::vector<double> barrier;        // [nz] V_c(z) in eV (0 in silicon)
  std::vector<double> inv_mass_z;     // [3][nz] 1 / m_z,v(z) (m_e units; eq. 7)
  std::vector<double> dos2d;          // [3] m_d,v / (pi hbar^2), eV^-1 nm^-2 (one valley, both spins)
  std::vector<double> alpha;          // [3] Kane factors, 1/eV
  std::vector<unsigned char> dirichlet;  // [nx][nz] 1 at contact and gate nodes (no contact nodes when open)
  std::vector<double> boundary_value;    // [nx][nz] V at Dirichlet nodes (0 elsewhere)
  double valley_degeneracy = 2;
  double source_potential = 0;        // V_s, V
  int silicon_first = 0, silicon_last = 0;  // z indices of the silicon film (inclusive)
};

// The potentials the contacts and gates impose on the film's end columns and the gated oxide surfaces.
//   quanta's flat contacts: the source's silicon nodes at V_s, the drain's at V_s + V_DS, the gates at V_s + V_G;
//   the seed's code (docs/mosfet-transport-model.md, section 6): the source at a profile V_b(z), the drain at
//     V_b(z) + V_DS, the gates at V_G; and, to construct V_b, open contacts (homogeneous Neumann at x = 0, L).
struct ContactBoundary {
  std::vector<double> profile;  // [nz] the source column's potential, V (only its silicon nodes are used); empty: open
  double gate_reference = 0;    // the gates hold gate_reference + V_G, V
  static ContactBoundary flat(double source_potential, int nz) {
    return ContactBoundary{std::vector<double>(static_cast<std::size_t>(nz), source_potential), source_potential};
  }
};

// Builds the node arrays; `source_potential` is V_s (see Bias), the flat contacts. Throws Error on a grid too
// coarse to resolve the film (fewer than 3 silicon nodes), a gate outside the device, or a profile of another
// size than nz. DeviceGrid::source_potential is V_s, the profile's value at the film's centre, or (open contacts)
// the gate reference.
DeviceGrid make_device_grid(const Device& device, const GridSize& grid, double source_potential);
DeviceGrid make_device_grid(const Device& device, const GridSize& grid, const ContactBoundary& contacts);

}  // namespace quanta::mosfet
