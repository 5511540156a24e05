#pragma once
// TROVE's checkpoint files for an intensity calculation, read as TROVE writes them:
//   j0eigen_quanta<J>.chk         the contracted basis of one J and its symmetrization
//   j0eigen_descr<J>_<G>.chk      energies and assignments of the roots of (J, Gamma)
//   j0eigen_vectors<J>_<G>.chk    the roots' coefficients in the symmetrized basis (direct access:
//                                 root r is `dim` doubles at byte offset (r-1)*dim*8)
//   j0_extfield.chk               the molecule-fixed dipole matrices on the J = 0 contracted basis
//                                 (or j0_extmatelem1..3.chk, one per component, when the input divides it)
// Layouts: modules/linelist/tests/data/sih2-trove/README.md and docs/linelist.md.
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "quanta/linelist/input.hpp"

namespace quanta::linelist {

// One J's contracted basis (j0eigen_quanta<J>.chk). Functions are numbered 0..ncontr-1 in TROVE's
// order; each is a rotational function (k, tau) times a J = 0 contracted vibrational function.
struct ContractedBasis {
  int J = 0;
  int nclasses = 0;
  int ncases = 0;
  std::vector<int> case_first;  // [ncases + 1]: functions of case c are case_first[c] .. case_first[c+1]-1
  std::vector<int> k, tau;      // [ncontr]
  std::vector<int> irot;        // [ncontr] index into the rotational table (0 .. 2J)
  std::vector<std::vector<int>> vib_key;  // [ncontr] (cs(1:nclasses), icoeffs(1:nclasses)): the J = 0 match key
  std::vector<int> ivib;        // [ncontr] the J = 0 contracted function (0-based), set by correlate_with_j0
  std::vector<int> rot_k, rot_tau;  // [nrot] the rotational table

  // Symmetrization, per irrep: N[c] symmetrized functions come from case c; repres holds, for each
  // symmetrized function s and degenerate component d, the coefficients of the case's functions.
  struct Irrep {
    int ntotal = 0, degen = 1;
    std::vector<int> N;          // [ncases]
    std::vector<double> repres;  // [ntotal][degen][mat_size]
  };
  int mat_size = 0;
  std::vector<Irrep> irreps;

  int ncontr() const { return static_cast<int>(k.size()); }
  int nrot() const { return static_cast<int>(rot_k.size()); }
};

ContractedBasis read_contracted_basis(const std::filesystem::path& file, int J, const std::vector<int>& irrep_degeneracy);
// Sets basis.ivib from the J = 0 basis (TROVE's index correlation); throws naming the file on a miss.
void correlate_with_j0(ContractedBasis& basis, const ContractedBasis& j0, const std::filesystem::path& file);

// One root of j0eigen_descr<J>_<G>.chk.
struct RootDescription {
  int record = 0;          // 1-based record in the vectors file
  int gamma = 0;           // 1-based irrep
  int level = 0;           // running number within (J, Gamma)
  int degen_component = 1;
  double energy = 0;       // absolute, cm^-1
  std::vector<int> quanta;     // quanta(0:nmodes): (rotational index, local-mode vibrational quanta)
  int largest_index = 0;
  std::vector<int> cgamma;     // symmetries of the classes (0: rotation, 1..: vibration)
  std::vector<int> normal;     // normal(0:nmodes)
  double largest_coeff = 0;
  int vib_index = 0;
};

struct RootsFile {
  int nroots = 0, dim = 0;
  std::vector<RootDescription> roots;
};

RootsFile read_root_descriptions(const std::filesystem::path& file, int nmodes, int nclasses);
// Nmodes from the fingerprint block of a descr file.
int read_nmodes(const std::filesystem::path& descr_file);


// j0_extfield.chk: three N x N matrices (x, y, z) in Debye; returned [3][N][N] with element (a, i, j)
// = <i|mu_a|j> (the file's column-major order, transposed to row-major; the matrices are symmetric).
struct DipoleMatrices {
  int n = 0;
  std::vector<double> mu;  // [3][n][n]
};
DipoleMatrices read_dipole_matrices(const std::filesystem::path& file);
// The same, divided as TROVE writes it for large molecules (CHECK_POINT: `extmatelem ... split`): j0_extmatelem1.chk ..
// j0_extmatelem3.chk in dir, each 'extF', the component's N x N matrix (gfortran's subrecords beyond 2 GB), 'extF'.
DipoleMatrices read_divided_dipole_matrices(const std::filesystem::path& dir);
// The dipole of a TROVE run in dir as its input says it was written (IntensityInput::dipole_divided).
DipoleMatrices read_trove_dipole(const std::filesystem::path& dir, const IntensityInput& input);

}  // namespace quanta::linelist
