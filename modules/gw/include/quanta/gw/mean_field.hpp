#pragma once
#include <array>
#include <filesystem>
#include <string>
#include <vector>

#include "quanta/core/complex.hpp"

namespace quanta::gw {

using Vec3i = std::array<int, 3>;
using Vec3 = std::array<double, 3>;

// The crystal as BerkeleyGW's mean-field headers carry it. Atomic units (bohr, Ry).
struct Crystal {
  double celvol = 0;                 // cell volume, bohr^3
  double alat = 0;                   // bohr
  std::array<double, 9> avec{};      // [3 lattice vectors][3 cartesian], units of alat
  double recvol = 0;                 // Brillouin-zone volume, bohr^-3
  double blat = 0;                   // 2 pi / alat
  std::array<double, 9> bvec{};      // [3 reciprocal vectors][3 cartesian], units of blat
  std::array<double, 9> bdot{};      // reciprocal metric, bohr^-2: |k|^2 = k^T bdot k for crystal k
  // Space-group operations. rotation[i] acts on reciprocal-lattice (crystal) column vectors, row-major:
  // g' = R g (BerkeleyGW's mtrx); tnp[i] is the fractional translation times 2 pi, so that a density obeys
  // rho(R g) = exp(-i (R g).tnp) rho(g).
  std::vector<std::array<int, 9>> rotation;
  std::vector<Vec3> tnp;
  std::vector<Vec3> atom_position;   // cartesian, units of alat
  std::vector<int> atom_species;
  Vec3i fft_grid{};                  // the density's FFT grid
  int cell_symmetry = 0;             // BerkeleyGW's flag: 0 cubic, 1 hexagonal

  // |k|^2 in bohr^-2 of a crystal-coordinate vector (inline: the mini-zone averages call it billions of times).
  double norm2(const Vec3& k) const {
    double s = 0;
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) s += k[i] * bdot[3 * i + j] * k[j];
    return s;
  }
};

// What a wavefunction file made of stochastic pseudobands says of them (its /pseudobands group, as BerkeleyGW's
// pseudobands script and quanta gw-pseudobands write it): protected bands counted from the gap, slices, pseudobands
// per slice; nprot -1 = that side holds the original bands.
struct PseudobandsInfo {
  bool present = false;
  int nprot_val = -1, nslice_val = 0, per_slice_val = 0;
  int nprot_cond = -1, nslice_cond = 0, per_slice_cond = 0;
  double max_freq = 0, uniform_width = 0;  // Ry
};

// BerkeleyGW's WFN (pw2bgw.x): the header, every k-point's G-vectors and band coefficients.
// Coefficients are held complex whatever the flavour; a Real-flavour file gives zero imaginary parts.
struct Wavefunctions {
  std::string file;
  bool complex_flavour = false;
  int nspin = 1;
  Crystal crystal;
  double ecutrho = 0, ecutwfc = 0;   // Ry
  Vec3i kgrid{};
  Vec3 kshift{};
  int nbands = 0;                    // bands held (may be fewer than the file has, see read_wfn)
  int nbands_file = 0;
  std::vector<Vec3> kpoints;         // [nk] crystal coordinates
  std::vector<double> kweights;      // [nk]
  std::vector<int> ngk;              // [nk] plane waves of each k-point (also in a header-only read)
  std::vector<int> ifmin, ifmax;     // [nspin][nk] lowest and highest occupied band (1-based, as in the file)
  std::vector<double> energies;      // [nspin][nk][nbands] Ry
  std::vector<double> occupations;   // [nspin][nk][nbands]
  std::vector<Vec3i> gvec_rho;             // [ng] the density's G-vectors (the file's global list)
  std::vector<std::vector<Vec3i>> gvec;    // [nk][ngk]
  std::vector<std::vector<cplx>> coeffs;   // [nk][nbands][nspin][ngk]
  PseudobandsInfo pseudobands;             // wfn.h5 only

  int nk() const { return static_cast<int>(kpoints.size()); }
  double energy(int ik, int band, int spin = 0) const {
    return energies[(static_cast<std::size_t>(spin) * nk() + ik) * nbands + band];
  }
  const cplx* band(int ik, int n, int spin = 0) const {
    return coeffs[ik].data() + (static_cast<std::size_t>(n) * nspin + spin) * gvec[ik].size();
  }
};

// The charge density (RHO): [nspin][ng] coefficients on the density's G-vectors, electrons per cell.
struct Density {
  std::string file;
  Crystal crystal;
  int nspin = 1;
  std::vector<Vec3i> gvec;
  std::vector<cplx> rho;
};

// vxc.dat: diagonal exchange-correlation matrix elements, eV, per k-point.
struct VxcTable {
  std::string file;
  struct Block {
    Vec3 k{};
    std::vector<int> spin, band;     // 1-based, as in the file
    std::vector<cplx> value;         // eV
    std::vector<int> off_spin, off_band1, off_band2;  // the off-diagonal <band1|Vxc|band2>
    std::vector<cplx> off_value;     // eV
  };
  std::vector<Block> blocks;
  // The value for (k, band), InputError naming the file when absent.
  double diagonal(const Vec3& k, int band, int spin = 1) const;
  // <n|Vxc|m> for (k, n, m): the diagonal when n = m, else an off-diagonal entry; InputError naming the file when absent.
  cplx element(const Vec3& k, int n, int m, int spin = 1) const;
};

// Readers; every failure is an InputError naming the file, the record or line and what was expected.
// max_bands > 0 keeps only the lowest bands (the file's others are skipped, not stored).
// read_wfn takes the Fortran binary (pw2bgw.x) or BerkeleyGW's HDF5 layout (wfn.h5, read_wfn_h5), told
// apart by the file's first bytes, and checks that the states are orthonormal within each set of
// (near-)degenerate bands (energies within 1e-4 Ry, overlaps to 1e-5): where a Real-flavour conversion
// went wrong, that is where it shows (check_orthonormal, an InputError naming the file, k-point and bands).
// check_norms false (BerkeleyGW's dont_check_norms) skips that check: stochastic pseudobands are neither
// normalized nor orthogonal within their (degenerate) slice.
Wavefunctions read_wfn(const std::filesystem::path& file, int max_bands = 0, bool check_norms = true);
Wavefunctions read_wfn_h5(const std::filesystem::path& file, int max_bands = 0, bool header_only = false);
// The header alone (crystal, k-points, every band's energies, the density's G-vectors; no coefficients):
// what the checks made before a run starts need, read in a fraction of the time and memory.
Wavefunctions read_wfn_header(const std::filesystem::path& file);
void check_orthonormal(const Wavefunctions& w);
// The highest occupied and the lowest empty energy (Ry) of bands 1..nbands (0: all held) over the file's k-points,
// occupation by ifmax; BerkeleyGW's Fermi level of an insulator is their midpoint.
struct BandEdges {
  double vbm = -1e300, cbm = 1e300;
};
BandEdges band_edges(const Wavefunctions& w, int nbands = 0);
// BerkeleyGW's wfn.h5 (layout version 1, the flavour of `w`, its /pseudobands group when present), written
// through a temporary name: what read_wfn_h5 reads back.
void write_wfn_h5(const Wavefunctions& w, const std::filesystem::path& file);
Density read_rho(const std::filesystem::path& file);
// BerkeleyGW's binary VXC (pw2bgw.x's vxcg_file): the local exchange-correlation potential Vxc(G), Ry,
// on the density's G-vectors, in RHO's layout (the values are held in Density::rho).
Density read_vxc(const std::filesystem::path& file);
VxcTable read_vxc_dat(const std::filesystem::path& file);

}  // namespace quanta::gw
