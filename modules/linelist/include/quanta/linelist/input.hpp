#pragma once
// What quanta linelist reads from a TROVE input file: the memory budget (`mem`), the molecular symmetry
// group (`SYMGROUP`) and the INTENSITY block (the keywords of the seed's Table 1 plus TROVE's `exomol`
// and `linelist`). Other blocks of the file (basis, potential, dipole, ...) belong to the earlier
// TROVE steps and are skipped.
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
  double mem_gb = 0;                 // `mem N gb` (0: not given)
  std::string symgroup;              // `SYMGROUP`
  bool absorption = true;            // `absorption` (or `emission`)
  double thresh_intens = 0;          // THRESH_INTES: smallest absolute intensity written, cm/molecule
  double thresh_line = 0;            // THRESH_LINE: smallest linestrength written, Debye^2
  double thresh_coeff = 0;           // THRESH_COEFF: |c| below it are skipped in the half-linestrength
  double temperature = 0;            // K
  double qstat = -1;                 // QSTAT: partition function; <= 0: computed from the states (eq. 2)
  bool have_zpe = false;
  double zpe = 0;                    // ZPE, cm^-1; without it, the lowest J = 0 energy of the first symmetry
  std::vector<double> gns;           // GNS per irrep
  std::vector<int> selection;        // `selection` numbers per irrep
  int jmin = 0, jmax = 0;            // `J, jmin, jmax`
  // Windows, cm^-1 (energies above the ZPE); the defaults are TROVE's.
  Window freq{-0.1, 1e6};            // `freq-window`
  Window lower{-0.1, 1e6};           // `energy low`
  Window upper{-0.1, 1e6};           // `energy ... upper`
  bool exomol = false;               // `exomol`: write .states and .trans
  std::string linelist_name;         // `linelist NAME`: stem of the ExoMol files
};

// Throws InputError naming the file, the line and the keyword on anything it cannot read.
IntensityInput read_trove_input(const std::filesystem::path& path);

}  // namespace quanta::linelist
