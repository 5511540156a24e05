#pragma once
// Physical constants (CODATA 2018, exact where the SI defines them) and unit conversions, in one place.
namespace quanta::units {

inline constexpr double pi = 3.141592653589793238462643383279502884;
inline constexpr double hbar = 1.054571817e-34;          // J s
inline constexpr double planck = 6.62607015e-34;         // J s (exact)
inline constexpr double kB = 1.380649e-23;               // J/K (exact)
inline constexpr double elementary_charge = 1.602176634e-19;  // C (exact)
inline constexpr double epsilon0 = 8.8541878128e-12;     // F/m
inline constexpr double amu = 1.66053906660e-27;         // kg
inline constexpr double electron_mass = 9.1093837015e-31;  // kg
inline constexpr double avogadro = 6.02214076e23;        // 1/mol (exact)
inline constexpr double bohr = 0.529177210903e-10;       // m
inline constexpr double rydberg_energy = 2.1798723611035e-18;  // J (Ry = hbar^2/(2 m_e a0^2))
inline constexpr double hartree_energy = 2.0 * rydberg_energy;  // J
inline constexpr double eV = elementary_charge;          // J

// Lengths.
inline constexpr double nm = 1e-9;                       // m
inline constexpr double angstrom = 1e-10;                // m
inline constexpr double bohr_in_nm = bohr / nm;
// Times and frequencies.
inline constexpr double ps = 1e-12;                      // s
inline constexpr double THz = 1e12;                      // Hz
// Masses: the Rydberg atomic unit of mass is 2 m_e (QE's convention, AMU_RY = amu / (2 m_e)).
inline constexpr double amu_in_ry_mass = amu / (2.0 * electron_mass);


// The conversion factors ShengBTE/FourPhonon use, with the values its Fortran actually holds: several are
// written there without a d0 suffix, so the compiler rounds them to single precision. quanta's phonon
// module uses these, not CODATA, wherever it reproduces ShengBTE's numbers (users compare the two codes
// mode by mode). The largest departure from CODATA is the amu -> Rydberg-mass factor (1/911.4649 instead
// of 1/911.4442), which moves every frequency from espresso.ifc2 by 1.1e-5 relative.
namespace shengbte {
inline constexpr double kB = 1.380648813e-23;                   // J/K (CODATA 2010)
inline constexpr double hbar = 1.05457172647e-22;               // J ps (CODATA 2010)
inline constexpr double hbar_p = hbar * double(1e22f);          // hbar in 1e-34 J s (ShengBTE's hbarp)
inline constexpr double eV_per_A2_amu = double(9648.53336213f); // eV/(A^2 amu) -> (rad/ps)^2
inline constexpr double e2_over_eps0 = double(1745.91429109f);  // e^2/eps0 in amu nm^3 ps^-2
inline constexpr double bohr_in_nm = double(0.052917721092f);   // bohr -> nm
inline constexpr double rydberg_to_rad_per_ps = double(20670.687f);  // Ry/hbar -> rad/ps
inline constexpr double amu_to_ry_mass = 1.0 / double(1.8218779f * 6.022e-4f);  // amu -> Rydberg mass units
inline constexpr double nm3_to_m3 = double(1e-27f);
// eV/A^3 nm / amu / (rad/ps)^2 -> 1, the mode Grueneisen parameter's factor as ShengBTE writes it (9.6472e4;
// the CODATA value is 9.6485e4, 1.4e-4 higher).
inline constexpr double gruneisen_factor = 9.6472e4;
}  // namespace shengbte

// The constants of TROVE's accuracy.f90 (cgs), with the values its Fortran actually holds: the literals
// carry no kind suffix, so they are rounded to single precision. quanta's linelist module uses these to
// reproduce TROVE's Einstein A coefficients and intensities line by line; with the literals' decimal
// values instead, A moves by 3.0e-8 relative (through h) and exp(-E/kT) by up to ~1e-8 E/kT.
namespace trove {
inline constexpr double planck = double(6.62606896e-27f);   // erg s
inline constexpr double light_speed = double(2.99792458e10f);  // cm/s
inline constexpr double boltzmann = double(1.380658e-16f);  // erg/K
}  // namespace trove

}  // namespace quanta::units
