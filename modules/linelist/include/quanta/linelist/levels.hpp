#pragma once
// The ro-vibrational levels of a calculation: every root of every (J, Gamma) the input asks for, with
// its basis, energy, assignment and ExoMol ID, and the expansion of its eigenvector from TROVE's
// symmetrized basis to the (rotational function) x (vibrational function) product basis in which the
// dipole acts.
#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "quanta/linelist/checkpoints.hpp"
#include "quanta/linelist/input.hpp"
#include "quanta/linelist/symmetry.hpp"

namespace quanta::linelist {

// The product basis of one J: index = irot * nvib + ivib, rotational functions (k, tau) in TROVE's
// table order, vibrational functions the J = 0 contracted ones (the dipole matrices' basis).
struct RotVibBasis {
  int J = 0, nvib = 0;
  std::vector<int> k, tau;  // [nrot]
  int nrot() const { return static_cast<int>(k.size()); }
  std::size_t size() const { return static_cast<std::size_t>(nrot()) * nvib; }
};

// The complete (k, tau) set of J in TROVE's order, k = 0 (tau = J mod 2), then k = 1..J with tau = 0, 1,
// times nvib vibrational functions (the rigid-rotor basis; synthetic cases and tests).
RotVibBasis symmetric_top_basis(int J, int nvib);

struct Level {
  int J = 0, gamma = 0;     // gamma 1-based, TROVE's numbering
  int id = 0;               // ExoMol ID (TROVE's numbering, with gaps)
  int block = 0;            // index into Levels::blocks
  double energy = 0;        // absolute, cm^-1
  RootDescription root;     // the descr line
};

struct LevelBlock {
  int J = 0, gamma = 0, dim = 0;    // dim: size of the symmetrized basis (record length)
  std::filesystem::path vectors;    // j0eigen_vectors<J>_<G>.chk (TROVE's checkpoints)
  std::string dataset;              // "/J<J>/G<G>/vectors" (a levels file)
  std::vector<int> levels;          // indices into Levels::levels, in record order
};

struct Levels {
  const SymmetryGroup* group = nullptr;
  std::vector<int> jvalues;                 // J values loaded (0 always first)
  std::vector<ContractedBasis> contracted;  // [jvalues.size()]
  std::vector<RotVibBasis> bases;           // [jvalues.size()]
  std::vector<Level> levels;
  std::vector<LevelBlock> blocks;
  double zpe = 0;
  int nmodes = 0, nclasses = 0;
  std::filesystem::path levels_file;  // the HDF5 levels file the vectors come from; empty: TROVE's checkpoints
  bool trove_assignments = true;      // every root carries TROVE's descr fields (the .states columns)

  const RotVibBasis& basis(int J) const;
  const ContractedBasis& contracted_basis(int J) const;
};

// Reads the quanta and descr files of every J in [0, max(Jmin,1) .. Jmax] and every Gamma with GNS > 0
// (J = 0, Gamma = 1 always, for the ZPE), as TROVE's intensity step does.
Levels read_levels(const std::filesystem::path& checkpoint_dir, const IntensityInput& input);

// quanta's levels file (HDF5; docs/linelist.md, "The levels file"): the same data in the product basis,
// from any variational code. read_levels_h5 loads what the input asks for, as read_levels does;
// write_levels_h5 writes the levels and dipole of a calculation (the TROVE converter), through a
// temporary name renamed when complete.
Levels read_levels_h5(const std::filesystem::path& file, const IntensityInput& input);
DipoleMatrices read_dipole_h5(const std::filesystem::path& file);
void write_levels_h5(const std::filesystem::path& file, const Levels& levels, const DipoleMatrices& dipole);

// Eigenvectors of `count` roots of a block (records first_record .. first_record+count-1, 1-based),
// expanded to the product basis for each degenerate component: out[(root * degen + d) * basis.size() + p].
// Coefficients with |c| <= thresh_coeff are set to zero (TROVE's THRESH_COEFF on the lower state; pass
// a negative value for none).
std::vector<double> expanded_vectors(const Levels& levels, const LevelBlock& block, std::span<const int> records,
                                     double thresh_coeff);
// The same into out[records.size() * degen * basis.size()].
void expand_vectors(const Levels& levels, const LevelBlock& block, std::span<const int> records, double thresh_coeff, double* out);

}  // namespace quanta::linelist
