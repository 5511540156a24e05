#pragma once
// Surface-roughness scattering's fixed data (docs/mosfet-surface-roughness.md): the stretched device and the
// maps between its extended z grid and the device's, the angular kernel table and the rate constant. The
// per-stage work is kernels/roughness.hpp.
#include <vector>

#include "../../../kernels/transport_terms.hpp"
#include "quanta/mosfet/device.hpp"
#include "quanta/mosfet/transport.hpp"

namespace quanta::mosfet {

// A Poisson problem of the device on an extended z grid (kernels::ExtendedMaps as host arrays): its device grid,
// where the device's density is read for each of its nodes, and where the device's nodes lie on it.
struct ExtendedProblem {
  DeviceGrid grid;                   // nx x n: permittivity, doping, contacts and gates; nz = 0: no problem
  std::vector<int> density_cell;     // [n]
  std::vector<double> density_frac;  // [n]
  std::vector<int> sample_cell;      // [sides][nz]
  std::vector<double> sample_frac;   // [sides][nz]
};

// Surface roughness's two extended problems.
//   displaced: the film displaced by Delta_SR, on nze nodes over [0, L_z + Delta_SR], the density read at sigma(Z_J),
//     sigma the identity below a = (1 - stretch) L_z / 2, a compression of [a, b] (b = (1 + stretch) L_z / 2 +
//     Delta_SR) onto [a, (1 + stretch) L_z / 2], a shift by -Delta_SR above b: both gates, both oxides and both
//     interfaces keep their places and the upper part moves up by Delta_SR. Sides: z_j (up), z_j + Delta_SR (low).
//   undisplaced (RoughnessShift::SameGrid): the device itself on the same spacing over [0, L_z], the density read at
//     Z_J. One side: z_j.
struct RoughnessGrid {
  double displacement = 0;  // Delta_SR, nm
  ExtendedProblem displaced, undisplaced;
};

// The extended grid's nodes: options.nz, or by default the coarsest spacing no coarser than the device's that puts
// both displaced interfaces on nodes (t_ox and t_ox + t_si + Delta_SR multiples of it: the seed's code's 84 nodes,
// 0.1 nm, for its device at nz = 65), and with RoughnessShift::SameGrid the undisplaced ones too (Delta_SR a multiple);
// where no such spacing down to 1/64 of the device's exists, the device's.
// Interfaces between nodes move by up to half a spacing, an error of that size in the displacement itself.
int extended_grid_nodes(const RoughnessOptions& options, const Geometry& geometry, int device_nz);

// Throws Error when the stretched band does not lie inside the silicon film, or a grid is too
// coarse. `contacts` is the device's (its profile, when not flat, is read at sigma(Z_J)).
RoughnessGrid make_roughness_grid(const Device& device, const GridSize& grid, const ContactBoundary& contacts, const RoughnessOptions& options);

// D_v(w_l; m, m') for every valley and energy cell, [3][nw][nphi][nphi], exactly symmetric in (m, m').
std::vector<double> roughness_kernel_table(const kernels::PhaseGrid& g, const kernels::KaneValley* valleys, const RoughnessOptions& options,
                                           const TransportScales& scales);

// The rate constant C of kernels::roughness_term in 1/t* per (k_B T)^2: Fermi's golden rule for the exponential
// spectrum pi Delta^2 L^2 (1 + q^2 L^2 / 2)^(-3/2) with Delta^2 (dV/dz)^2 -> I, L_x k*^3 L_SR^2 / 2; the seed's
// code has 1 / (2 pi) of it (as its phonon constants, RateConvention).
double roughness_rate_constant(const RoughnessOptions& options, const TransportScales& scales, RateConvention rates);

}  // namespace quanta::mosfet
