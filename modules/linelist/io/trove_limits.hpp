#pragma once

namespace quanta::linelist {

// Largest Nmodes (and Nclasses) accepted from TROVE's checkpoints and from the levels file. A molecule of
// N atoms has 3N - 6 vibrational modes and TROVE's classes group them, so this admits molecules far
// beyond what a variational calculation treats, while a corrupt count cannot size per-root arrays of
// gigabytes.
inline constexpr int kMaxTroveModes = 1000;

}  // namespace quanta::linelist
