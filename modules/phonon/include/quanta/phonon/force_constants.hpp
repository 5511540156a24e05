#pragma once
#include <filesystem>
#include <vector>

#include "quanta/phonon/control.hpp"

namespace quanta::phonon {

// Second-order force constants as the list of terms of the dynamical matrix:
//   D_{(a1 i),(a2 j)}(q) = sum_{p: (a1,a2)} block_p[i][j] exp(-i q . r_p)
// with the masses and the unit conversion to (rad/ps)^2 already divided in, r_p in nm, q in nm^-1
// (ShengBTE's phase convention: lattice vectors only, atomic positions enter through the image weights).
struct FcTerm {
  int a1 = 0, a2 = 0;
  double r[3] = {0, 0, 0};
  double block[3][3] = {};
  double weight = 1.0;  // image weight (1/number of equivalent images); used by the mixed-space correction
};

enum class NacKind {
  None,
  Ewald,       // espresso.ifc2: Gonze's dipole-dipole Ewald sum, as QE's rgd_blk (ShengBTE's QE path)
  MixedSpace,  // FORCE_CONSTANTS_2ND: Wang et al., J. Phys.: Condens. Matter 22, 202201 (2010)
};

// Everything the dynamical-matrix kernel needs, in plain arrays that copy to the device as they are.
struct HarmonicModel {
  int natoms = 0;
  std::vector<FcTerm> terms;      // sorted by (a1, a2)
  std::vector<int> pair_offset;   // [natoms*natoms + 1] terms of pair (a1,a2) are [offset[a1*n+a2], offset[..+1])
  NacKind nac = NacKind::None;
  // Crystal data for the corrections, Cartesian.
  double reciprocal[3][3] = {};   // b_i, nm^-1
  double epsilon[3][3] = {};
  std::vector<double> zeff;       // [natoms][3 (contracted with q)][3 (Cartesian component of the force)]
  std::vector<double> inv_sqrt_mass;  // [natoms] in the unit the correction's prefactor expects
  std::vector<double> tau;        // [natoms][3] positions, nm
  double nac_prefactor = 0;       // Ewald: 8 pi / V (bohr units) * (Ry->rad/ps)^2; MixedSpace: e^2/eps0 / V / Ncell
  // Ewald only: the reciprocal vectors G (bohr^-1) of the box, alpha, and the q-independent on-site term
  // (already folded into `terms` at r = 0).
  std::vector<double> gvectors;   // [ng][3]
  double alpha = 0, q_to_bohr = 1;
  int ncell = 1;                  // MixedSpace: supercell size S1 S2 S3
};

// espresso.ifc2 (q2r.x). Errors name the file and line.
HarmonicModel read_espresso_ifc2(const std::filesystem::path& file, const Control& control);
// FORCE_CONSTANTS_2ND (phonopy, full format, eV/A^2).
HarmonicModel read_phonopy_fc2(const std::filesystem::path& file, const Control& control);

// The supercell force constants of espresso.ifc2 after ShengBTE's acoustic sum rule, in Ry/bohr^2:
// fc[((((i*3 + j)*nat + a1)*nat + a2)*S1 + t1)*S2 + t2)*S3 + t3]. Exposed for converters and tests.
std::vector<double> read_espresso_supercell_fc(const std::filesystem::path& file, const Control& control);

// Third-order force constants of FORCE_CONSTANTS_3RD (thirdorder.py / ShengBTE format): for each triplet,
// the cells of the second and third atoms (lattice vectors, Angstrom in the file, rounded to the nearest
// lattice vector as ShengBTE does) and Phi[alpha][beta][gamma] in eV/A^3, alpha belonging to the first atom.
struct ThirdOrderFc {
  struct Triplet {
    int atom[3] = {0, 0, 0};              // 0-based atoms of the unit cell
    int cell_j[3] = {0, 0, 0};            // lattice coordinates of the second atom's cell
    int cell_k[3] = {0, 0, 0};            // ... and of the third atom's cell
    double phi[27] = {};                  // [alpha][beta][gamma], eV/A^3
  };
  std::vector<Triplet> triplets;          // in file order
};

// Errors name the file and line; a cell vector that is not within 1e-3 (fractional) of a lattice vector
// of CONTROL's lattice is an error (it means the two files describe different crystals).
ThirdOrderFc read_fc3(const std::filesystem::path& file, const Control& control);

// Fourth-order force constants of FORCE_CONSTANTS_4TH (Fourthorder.py / FourPhonon format): for each quadruplet,
// the cells of the second, third and fourth atoms (rounded to lattice vectors as for FORCE_CONSTANTS_3RD) and
// Phi[alpha][beta][gamma][delta] in eV/A^4, alpha belonging to the first atom.
struct FourthOrderFc {
  struct Quadruplet {
    int atom[4] = {0, 0, 0, 0};           // 0-based atoms of the unit cell
    int cell_j[3] = {0, 0, 0};            // lattice coordinates of the second atom's cell
    int cell_k[3] = {0, 0, 0};            // ... of the third atom's cell
    int cell_l[3] = {0, 0, 0};            // ... and of the fourth atom's cell
    double phi[81] = {};                  // [alpha][beta][gamma][delta], eV/A^4
  };
  std::vector<Quadruplet> quadruplets;    // in file order
};

// Errors name the file and line, as read_fc3's. The 81 components of a quadruplet must come in FourPhonon's
// order (alpha slowest, delta fastest), which FourPhonon assumes without reading the indices.
FourthOrderFc read_fc4(const std::filesystem::path& file, const Control& control);

}  // namespace quanta::phonon
