#pragma once
// Molecular symmetry groups as TROVE offers them (irreducible representations in TROVE's order, so the
// Gamma numbers of the checkpoint files and of the GNS/selection keywords mean the same here), with the
// character tables from which the dipole selection rule (seed eq. 11) is decided.
#include <string>
#include <string_view>
#include <vector>

namespace quanta::linelist {

struct SymmetryGroup {
  std::string name;                             // as TROVE spells it, e.g. "C2v(M)"
  std::vector<std::string> irreps;              // labels in TROVE's order (Gamma = 1, 2, ...)
  std::vector<int> class_size;                  // [nclass]
  std::vector<std::vector<double>> characters;  // [nirrep][nclass]
  int dipole_irrep = 0;                         // Gamma* (0-based): the irrep of the space-fixed dipole

  int nirreps() const { return static_cast<int>(irreps.size()); }
  int order() const;
  int degeneracy(int gamma) const;              // chi(E), 0-based gamma
  // Number of times Gamma* occurs in Gamma_a x Gamma_b (0-based); a transition a <-> b is allowed when > 0.
  int product_contains_dipole(int a, int b) const;
  bool dipole_allowed(int a, int b) const { return product_contains_dipole(a, b) > 0; }
};

// Cs(M), C2v(M), C3v(M), D3h(M), D2h(M), C2h(M), Td(M) (case-insensitive, "(M)" optional). Throws Error listing the
// groups offered otherwise. "Csn N" (also "Cs(N) N", "Csn(M) N"; N = 1 when absent, as in TROVE) is TROVE's group of
// linear triatomic molecules with 2^ceil(log2(2 (N + 1))) one-dimensional irreps A', A", e1, f1, e2, f2, ...; the
// reference stays valid for the whole run.
const SymmetryGroup& symmetry_group(std::string_view name);
std::vector<std::string> symmetry_group_names();

}  // namespace quanta::linelist
