#pragma once
// FourPhonon's sampling estimator (Guo et al., npj Comput. Mater. 10, 31 (2024)): for every irreducible mode
// and process class, Ns candidates are drawn uniformly with replacement from all of the class's candidates
// (Nq nb^2 for three phonons, Nq^2 nb^3 for four), each is kept when it passes the exact rules, and the sums
// are scaled by (candidates) / Ns. The draws come from a counter-based generator: draw n of stream s is a
// function of (s, n) alone, so any thread of either backend may take any draw and a run is reproducible
// from its seed.
#include "quanta/core/hd.hpp"

namespace quanta::phonon::kernels {

// A sample: Ns draws per mode and class, the seed, and the purpose, which tells the streams of the
// quantities sampled independently apart (see sample_stream).
struct ProcessSample {
  long long draws;
  unsigned long long seed;
  int purpose;
};

QUANTA_HD unsigned long long mix64(unsigned long long z) {
  z += 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// The high 64 bits of the 128-bit product a b.
QUANTA_HD unsigned long long mul_hi64(unsigned long long a, unsigned long long b) {
#ifdef __CUDA_ARCH__
  return __umul64hi(a, b);
#else
  const unsigned long long a0 = a & 0xffffffffull, a1 = a >> 32, b0 = b & 0xffffffffull, b1 = b >> 32;
  const unsigned long long p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
  const unsigned long long middle = (p00 >> 32) + (p10 & 0xffffffffull) + p01;  // cannot overflow
  return p11 + (p10 >> 32) + (middle >> 32);
#endif
}

// A uniform integer in [0, n) from the next state of the generator (Lemire's multiply-shift).
QUANTA_HD int draw_below(unsigned long long& state, int n) {
  state = mix64(state);
  return static_cast<int>(mul_hi64(state, static_cast<unsigned long long>(n)));
}

// The stream of one irreducible mode, class and purpose. Four-phonon classes are 0-2 (kernels::FourClass);
// the three-phonon streams use class 3 (kernels/three_phonon.hpp).
QUANTA_HD unsigned long long sample_stream(unsigned long long seed, int purpose, int mode, int cls) {
  return mix64(seed ^ mix64((static_cast<unsigned long long>(purpose) << 40) ^ (static_cast<unsigned long long>(mode) << 2) ^
                            static_cast<unsigned long long>(cls)));
}

// The state from which draw n of a stream takes its numbers.
QUANTA_HD unsigned long long draw_state(unsigned long long stream, long long n) {
  return stream ^ mix64(static_cast<unsigned long long>(n));
}

}  // namespace quanta::phonon::kernels
