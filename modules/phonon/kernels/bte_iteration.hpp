#pragma once
// One Jacobi step of the linearized BTE (bte.hpp), shared by the CPU and CUDA backends:
//   scattering_sum  D(p, i) at mesh point p = R q (q its class representative) from the processes of the
//                   irreducible mode (q, i), their second and third phonons carried to R q' and R q'' by
//                   the same operation R (`image` = R's action on the mesh), as ShengBTE does; a strided
//                   part of the list, so that a GPU warp can split the sum across its lanes;
//   scattering_sum4 the four-phonon part of D from the irreducible mode's collision row, carried likewise;
//   updated_F       F(p, i) = S_p [ tau (v omega + D) ] at one mesh mode.
#include <cstdint>

#include "quanta/core/hd.hpp"

namespace quanta::phonon::kernels {

struct IterationView {
  int nb;
  const std::int64_t* offset_plus;   // [nmodes + 1]
  const std::int64_t* offset_minus;
  const int* mode2_plus;
  const int* mode3_plus;
  const int* mode2_minus;
  const int* mode3_minus;
  const double* rate_plus;           // per process, 1/ps (emission without its 1/2)
  const double* rate_minus;
  const double* F;                   // [nptk * nb][3], previous iterate
  const double* rows4;               // [nmodes][nptk * nb] four-phonon collision rows, or null
};

// The F of mesh mode `mode` (q * nb + band) carried by the operation whose mesh action is `image`.
QUANTA_HD const double* mapped_F(const IterationView& v, const int* image, int mode) {
  return v.F + 3 * (static_cast<std::int64_t>(image[mode / v.nb]) * v.nb + mode % v.nb);
}

// Adds to D the part of the sum of irreducible mode m, carried by `image`, from processes first,
// first + stride, ...
QUANTA_HD void scattering_sum(const IterationView& v, int m, const int* image, int first, int stride, double D[3]) {
  for (std::int64_t k = v.offset_plus[m] + first; k < v.offset_plus[m + 1]; k += stride) {
    const double g = v.rate_plus[k];
    const double* f2 = mapped_F(v, image, v.mode2_plus[k]);
    const double* f3 = mapped_F(v, image, v.mode3_plus[k]);
    for (int c = 0; c < 3; ++c) D[c] += g * (f3[c] - f2[c]);
  }
  for (std::int64_t k = v.offset_minus[m] + first; k < v.offset_minus[m + 1]; k += stride) {
    const double g = 0.5 * v.rate_minus[k];
    const double* f2 = mapped_F(v, image, v.mode2_minus[k]);
    const double* f3 = mapped_F(v, image, v.mode3_minus[k]);
    for (int c = 0; c < 3; ++c) D[c] += g * (f3[c] + f2[c]);
  }
}

// Adds to D the four-phonon part of irreducible mode m's sum from its collision row (FourPhononScattering::
// rows: D += sum_n row[n] F(n)), carried by `image`; entries first, first + stride, ...
QUANTA_HD void scattering_sum4(const IterationView& v, long nfull, int m, const int* image, int first, int stride, double D[3]) {
  const double* row = v.rows4 + m * nfull;
  for (long n = first; n < nfull; n += stride) {
    const double w = row[n];
    if (w == 0) continue;
    const double* f = mapped_F(v, image, static_cast<int>(n));
    for (int c = 0; c < 3; ++c) D[c] += w * f[c];
  }
}

// F at one mesh mode from its driving term v omega (vw), its class's tau, D and the point's symmetrizer S
// (row-major 3x3).
QUANTA_HD void updated_F(const double vw[3], double tau, const double D[3], const double* S, double out[3]) {
  double x[3];
  for (int a = 0; a < 3; ++a) x[a] = tau * (vw[a] + D[a]);
  for (int a = 0; a < 3; ++a) out[a] = S[3 * a] * x[0] + S[3 * a + 1] * x[1] + S[3 * a + 2] * x[2];
}

}  // namespace quanta::phonon::kernels
