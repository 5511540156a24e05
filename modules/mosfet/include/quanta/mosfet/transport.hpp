#pragma once
// The Boltzmann transport phase of the double-gate MOSFET (docs/mosfet-transport-model.md): its
// dimensionless scales, the electron-phonon scattering operator's constants and the numerical options; the
// time integration is quanta/mosfet/simulation.hpp.
#include <array>

#include "../../../kernels/phonon_scattering.hpp"
#include "quanta/mosfet/device.hpp"

namespace quanta::mosfet {

// The reference scales of the dimensionless transport equations: energies in k_B T, lengths along x in L_x
// and along z in L_z, time in t* = L_x sqrt(m_e / k_B T).
struct TransportScales {
  double temperature = 300;  // K
  double length_x = 20;      // nm, the device's length
  double length_z = 8;       // nm, the z extent, oxides included
  double kT_eV() const { return constants::kB * temperature / constants::eV; }
  double time() const;       // t*, s
};

// The electron-phonon mechanisms of silicon (Jacoboni & Reggiani, Rev. Mod. Phys. 55, 645 (1983), the set
// of the seed's own code): acoustic deformation potential, and the g- (TA, LA, LO) and f-type (TA, LA, TO)
// intervalley phonons as temperatures (hbar omega = k_B Theta) and coupling constants D_t K.
struct PhononParameters {
  double acoustic_deformation_potential = 9.0;                  // eV
  std::array<double, 6> theta = {140, 215, 720, 220, 550, 685};   // K; the seed's code takes 500 K for f-LA
  std::array<double, 6> coupling = {0.5, 0.8, 11.0, 0.3, 2.0, 2.0};  // 1e8 eV/cm
  double mass_density = 2329;                                    // kg/m^3
  double sound_velocity = 9040;                                  // m/s
};

// Fermi's golden rule, or the seed's code's constants, which are 1/(2 pi) of it (docs/mosfet-transport-model.md,
// section 8, D1): for comparisons with that code.
enum class RateConvention { GoldenRule, SeedCode };
// Bose-Einstein factors for every transition, or the seed's code's f-type factors, which are not
// Bose-Einstein between valleys of different density-of-states masses (section 3.5).
enum class IntervalleyOccupation { Bose, SeedCode };

// The contacts and gates of the equilibrium that starts the run (docs/mosfet-transport-model.md, section 6): quanta's
// flat contacts at the neutral potential V_s with the gates at V_s + V_G and the Fermi level 0; or the seed's code's
// construction: a Schroedinger-Poisson solve with open contacts, parabolic Fermi-Dirac subbands and the gates at
// V_G gives the source column's profile V_b(z), which then holds both contacts (the drain at V_b + V_DS), and the
// Maxwell-Boltzmann Fermi level puts the column's donors in its subbands.
enum class ContactModel { Flat, SeedCode };

// Surface-roughness scattering at the two Si/SiO2 interfaces (the [transport.roughness] table; the seed's code's
// model, docs/mosfet-surface-roughness.md): an exponential autocorrelation of correlation length L_SR, and the
// potential shift of a film displaced by Delta_SR, from a Poisson problem on an extended z grid whose central
// band (a fraction `stretch` of the z extent) is stretched by Delta_SR.
// The unperturbed potential dV is taken from: the film solved undisplaced on the extended grid's spacing with the
// same fixed density (the displaced and undisplaced problems then share their discretisation, and dV vanishes with
// the displacement on any grid), or the device's self-consistent V (the seed's code; docs/mosfet-surface-roughness.md
// section 8 shows the grid part this leaves in the form factors).
enum class RoughnessShift { SameGrid, SeedCode };
struct RoughnessOptions {
  bool enabled = false;
  RoughnessShift shift = RoughnessShift::SameGrid;
  double length = 1.5;        // L_SR, nm
  double displacement = 0.3;  // Delta_SR, nm
  double stretch = 0.2;       // the stretched band, a fraction of the z extent centred at its middle
  int nz = 0;                 // nodes of the extended z grid; 0: extended_grid_nodes' choice (quanta/mosfet/roughness.hpp)
};

// The transport phase's numerics and physics (the [transport] table of a config; docs/mosfet.md).
struct TransportOptions {
  int nw = 300, nphi = 48;   // energy cells and angles (the seed's grid)
  double w_max = 0;          // the energy grid's extent in k_B T; 0: 15 x 63 meV (the seed's code)
  double cfl = 0.6;
  PhononParameters phonons;
  RateConvention rates = RateConvention::GoldenRule;
  IntervalleyOccupation occupation = IntervalleyOccupation::Bose;
  ContactModel contacts = ContactModel::Flat;
  RoughnessOptions roughness;
  // The block's chord steps with a held factorization (BlockOptions::reuse_jacobian; direct solver only).
  bool reuse_jacobian = true;
};

kernels::KaneValley kane_valley(const Valley& v, const TransportScales& scales);
kernels::PhononScattering make_phonon_scattering(const PhononParameters& phonons, const std::array<Valley, 3>& valleys,
                                                 const TransportScales& scales, RateConvention rates = RateConvention::GoldenRule,
                                                 IntervalleyOccupation occupation = IntervalleyOccupation::Bose);

}  // namespace quanta::mosfet
