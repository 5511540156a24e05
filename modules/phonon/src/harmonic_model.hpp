#pragma once
#include "quanta/phonon/force_constants.hpp"

namespace quanta::phonon {

// Sorts the terms by atom pair, builds pair_offset and copies the crystal data the kernel reads.
void finish_model(HarmonicModel& m, const Crystal& c);

}  // namespace quanta::phonon
