#pragma once
// The line-by-line end of the calculation (seed eqs. 1-2): from the amplitudes s(f <- i) of a group of
// lower states of one (J, Gamma) against a chunk of upper states of one (J', Gamma') to linestrengths,
// Einstein A coefficients and intensities, with TROVE's frequency window and thresholds.
#include <vector>

#include "quanta/linelist/input.hpp"
#include "quanta/linelist/linelist.hpp"

namespace quanta::linelist {

// Constants of eqs. 1-2 in TROVE's units (units::trove), at the input's temperature.
struct IntensityConstants {
  IntensityConstants(const IntensityInput& in, double partition_function, double zpe);
  double beta;       // hc/kT, cm
  double a_coef;     // A = a_coef (2J+1) s0 nu^3, s0 the squared amplitude, J the lower state's (1/s)
  double i_coef;     // I = i_coef S nu exp(-E'' beta) (1 - exp(-nu beta)) / Q (cm/molecule)
  double partition;  // Q
  double zpe;        // cm^-1
};

// States of one (J, Gamma) block taking part in an amplitude matrix.
struct StateSet {
  const int* level = nullptr;      // [count] indices into Levels::levels (copied into Transition)
  const double* energy = nullptr;  // [count] absolute, cm^-1
  int count = 0;
  int J = 0, degen = 1;
  double gns = 0;                  // nuclear-spin weight of the block's Gamma
};

// Appends the transitions f <- i with amp[(i degI + di) * (nf degF) + f degF + df] (the amplitudes of
// every degenerate component pair) that pass the frequency window and THRESH_LINE/THRESH_INTES.
void collect_transitions(const IntensityInput& in, const IntensityConstants& k, const StateSet& lower, const StateSet& upper,
                         const double* amp, std::vector<Transition>& out);

}  // namespace quanta::linelist
