#pragma once
// What quanta linelist reads from a TROVE input file: the memory budget (`mem`), the molecular symmetry
// group (`SYMGROUP`), the J range of an intensity step given in the CONTROL block (`step 4`, `J`), and the
// INTENSITY block (the keywords of the seed's Table 1 plus TROVE's `exomol` and `linelist`). Other blocks
// of the file (basis, potential, dipole, ...) belong to the earlier TROVE steps and are skipped. A keyword
// of the INTENSITY block that quanta does not implement is refused by name; every value is checked
// against its range when read.
#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

namespace quanta::linelist {

struct Window {
  double min = 0, max = 0;
  bool contains(double x) const { return x >= min && x <= max; }
};

struct IntensityInput {
  std::filesystem::path file;        // the input file, for messages
  std::size_t mem_bytes = 0;         // `mem N unit`: host memory the run may use (0: not given)
  std::string symgroup;              // `SYMGROUP`
  bool absorption = true;            // `absorption` (or `emission`)
  double thresh_intens = 0;          // THRESH_INTES: smallest absolute intensity written, cm/molecule
  double thresh_line = 0;            // THRESH_LINE: smallest linestrength written, Debye^2
  double thresh_coeff = 0;           // THRESH_COEFF: |c| below it are skipped in the half-linestrength
  double temperature = 0;            // K
  double qstat = -1;                 // QSTAT: partition function (> 0); -1: not given, computed from the states (eq. 2)
  bool have_zpe = false;
  double zpe = 0;                    // ZPE, cm^-1; without it, the lowest J = 0 energy of the first symmetry
  std::vector<double> gns;           // GNS per irrep, >= 0; 0 leaves the irrep out, as in TROVE
  std::vector<int> selection;        // `selection` numbers per irrep
  int jmin = 0, jmax = 0;            // `J, jmin, jmax` (CONTROL's, when its step is 4, else INTENSITY's)
  // Windows, cm^-1 (energies above the ZPE); the defaults are TROVE's.
  Window freq{-0.1, 1e6};            // `freq-window`
  Window lower{-0.1, 1e6};           // `energy low`
  Window upper{-0.1, 1e6};           // `energy ... upper`
  std::string linelist_name;         // `linelist NAME`: stem of the ExoMol files
  bool states_only = false;          // `STATES-ONLY`: the .states file alone, no transitions (TROVE returns before them)
  bool gain = false;                 // `GAIN`: also GAIN's text table (as --gain-table)
  // TROVE's basis of a linear triatomic molecule (K tied to the vibrational angular momentum): `Natoms 3` with a
  // singular bending basis in the BASIS block (LAGUERRE-K, LEGENDRE, SINRHO-LEGENDRE, SINRHO-LAGUERRE-K,
  // SINRHO-2XLAGUERRE-K, SINRHO-LEGENDRE-K1), or `SINGULAR-AXIS` non-zero. TROVE then counts the ExoMol IDs of J
  // from N_vib J Nirreps instead of N_vib J^2 (tran.f90), and so does quanta.
  bool linear_basis = false;
  // TROVE's CHECK_POINT block: `EXTMATELEM ... SPLIT` (or DIVIDE, STITCH; `J0_EXTMATELEM`/`J0_EXTERNAL ... SPLIT`): the
  // dipole's J = 0 matrix elements are read, as TROVE reads them then, from one file per component,
  // j0_extmatelem1.chk .. j0_extmatelem3.chk, instead of j0_extfield.chk.
  bool dipole_divided = false;
  // TROVE's ZMAT block: each atom's label (its element symbol, as TROVE writes it, possibly with a number: O1) and
  // mass (Da), in the block's order; used for ExoMol's .def file. Empty when the input has no ZMAT block.
  struct Atom {
    std::string label;
    double mass = 0;
  };
  std::vector<Atom> atoms;
};

// Throws InputError naming the file, the line and the keyword on anything it cannot read.
IntensityInput read_trove_input(const std::filesystem::path& path);

}  // namespace quanta::linelist
