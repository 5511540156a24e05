#pragma once
#include <array>
#include <filesystem>
#include <string>
#include <vector>

#include "quanta/phonon/crystal.hpp"

namespace quanta::phonon {

// What a ShengBTE/FourPhonon CONTROL file says, with ShengBTE's defaults, validated.
struct Control {
  std::filesystem::path file;
  std::array<int, 3> ngrid{};
  std::array<int, 3> scell{};
  Crystal crystal;                 // lattice in nm, masses in amu, born/epsilon (identity/zero defaults)
  std::vector<double> gfactors;    // [nelements] isotopic g-factors
  std::vector<double> temperatures;  // K, in ShengBTE's loop order
  double scalebroad = 1.0;
  int nticks = 100;                // DOS energy points
  bool nonanalytic = true, espresso = false, isotopes = true, autoisotopes = true, onlyharmonic = false;
  bool convergence = true;
  bool four_phonon = false;        // four-phonon scattering (FORCE_CONSTANTS_4TH), FourPhonon's default mode:
                                   // 4ph rates in the relaxation time, 3ph processes in the iteration
  bool four_phonon_iteration = false;  // 4ph processes in the iteration too (needs four_phonon, convergence)
  // FourPhonon's sampling estimator (num_sample_process_3ph, num_sample_process_3ph_phase_space and their
  // 4ph twins): draws per irreducible mode and class for the rates and weighted phase spaces, and for the
  // counts and phase spaces; -1: exact sums.
  long long sample_3ph = -1, sample_3ph_phase_space = -1;
  long long sample_4ph = -1, sample_4ph_phase_space = -1;
  int maxiter = 1000;              // iterative BTE
  double eps = double(1e-5f);      // relative change of kappa that ends the iteration (ShengBTE's float default)
  // Modes above omega_max (rad/ps) get no three-phonon processes (rate, WP3 and P3 zero), as in FourPhonon.
  double omega_max = 1e100;
  // Boundary scattering |v| / L added to every rate (quanta's extension; ShengBTE/FourPhonon only write
  // BTE.w_boundary for L = 1 nm).
  bool boundaries = false;
  double boundary_length = 1.0;    // nm
};

// Reads and validates `dir/CONTROL`; errors name the file, line and variable.
Control read_control(const std::filesystem::path& file);

// ShengBTE's temperature loop: T_min, T_min + T_step, ... up to T_max (see docs/phonon.md for its
// end-point rule).
std::vector<double> temperature_list(double t_min, double t_max, double t_step);

// Natural-abundance mass (amu) and isotopic g-factor of an element, from the isotope table ShengBTE uses;
// Error for an unknown symbol.
struct IsotopeAverage {
  double mass, gfactor;
};
IsotopeAverage natural_isotopes(const std::string& element);

}  // namespace quanta::phonon
