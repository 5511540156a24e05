#pragma once
// Second-Born self-energy of the two-band model for one time slice: Sigma<>(k; t, t'_l) for every
// l = 0..count-1 at fixed t, in one call (the unit of work a GPU launch takes over).
//
// Seed eq. (7), with the greater component obtained by exchanging < and >:
//   Sigma<_{jm}(k; t,t') = U(t) U(t') / nk^2 sum_{q,k'} [ G<_{jb mb}(k'+q; t,t') G>_{mb jb}(k'; t',t) G<_{jm}(k-q; t,t')
//                                                       - G<_{j mb}(k'; t,t') G>_{mb jb}(k'+q-k; t',t) G<_{jb m}(q; t,t') ]
// (jb = the band other than j). The first term is Sigma^1 (direct, through the polarization P, seed
// eqs. (8)-(9), whose printed eq. (9) lacks the 1/nk^2); the second is Sigma^2 (exchange, Algorithm 2).
// G(k; t',t) is taken from the stored G(k; t,t') by G_{ab}(k; t',t) = -conj(G_{ba}(k; t,t')).
//
// Two implementations behind one dispatch:
//   Direct: the seed's contraction, O(nk^2) for Sigma^1 and O(nk^3) for Sigma^2 per time pair.
//   Fft:    on the periodic grid each term is a cyclic convolution in the k index (layout.hpp), hence a
//           pointwise product in the lattice-site index R: with X~(R) = sum_k e^{+2 pi i k R / nk} X(k),
//             Sigma<(R) = -(U U' / nk^3) det(G<~(R)) conj(cof(G>~(R))),   cof(A)_{jm} = (-1)^{j+m} A_{jb mb},
//           Sigma<(k) = sum_R e^{-2 pi i k R / nk} Sigma<(R); O(nk log nk) per time pair (FFTW).
// Preconditions: nk >= 1; arrays as documented in SelfEnergySlice; outputs do not alias inputs.
#include <memory>

#include "layout.hpp"
#include "matrix2.hpp"
#include "quanta/kbe/params.hpp"

namespace quanta::kbe::kernels {

using kbe::SelfEnergyMethod;

struct SelfEnergySlice {
  int nk = 0;
  int count = 0;                      // time pairs (t, t'_l), l = 0..count-1
  const cplx* g_less = nullptr;       // [count][4][nk]  G<(k; t, t'_l)
  const cplx* g_greater = nullptr;    // [count][4][nk]  G>(k; t, t'_l)
  double u_t = 0.0;                   // U(t)
  const double* u_tp = nullptr;       // [count]         U(t'_l)
  cplx* sigma_less = nullptr;         // [count][4][nk]  Sigma<(k; t, t'_l)  (written)
  cplx* sigma_greater = nullptr;      // [count][4][nk]  Sigma>(k; t, t'_l)  (written)
};

// ---- formulas shared with the CUDA twin ---------------------------------------------------------

// G_{ab}(k; t',t) from the block holding G(k; t,t'): the adjoint relation.
QUANTA_HD cplx swapped_time(const cplx* block, int a, int b, int k, int nk) {
  return -conj(block[in_block(band_pair(b, a), k, nk)]);
}

// Direct form, seed eq. (8): P_{ab}(q) = sum_k' X_{ab}(k'+q) Y_{ba}(k'), X = G^x(t,t'), Y = G^y(t',t),
// where x, y = <, > for Sigma< (and >, < for Sigma>); `x_block` and `ybar_block` hold X and G^y(t,t').
QUANTA_HD cplx polarization_element(const cplx* x_block, const cplx* ybar_block, int a, int b, int q, int nk) {
  cplx s;
  for (int kp = 0; kp < nk; ++kp)
    s += x_block[in_block(band_pair(a, b), k_plus(kp, q, nk), nk)] * swapped_time(ybar_block, b, a, kp, nk);
  return s;
}

// Seed eq. (9) without the prefactor: sum_q P_{jb mb}(q) X_{jm}(k - q); `pol` is [4][nk].
QUANTA_HD cplx sigma1_element(const cplx* pol, const cplx* x_block, int j, int m, int k, int nk) {
  const int pb = band_pair(other_band(j), other_band(m));
  cplx s;
  for (int q = 0; q < nk; ++q) s += pol[in_block(pb, q, nk)] * x_block[in_block(band_pair(j, m), k_minus(k, q, nk), nk)];
  return s;
}

// Seed Algorithm 2 without the prefactor: sum_{q,k'} X_{j mb}(k') Y_{mb jb}(k'+q-k) X_{jb m}(q).
QUANTA_HD cplx sigma2_element(const cplx* x_block, const cplx* ybar_block, int j, int m, int k, int nk) {
  const int jb = other_band(j), mb = other_band(m);
  cplx s;
  for (int q = 0; q < nk; ++q) {
    const cplx xq = x_block[in_block(band_pair(jb, m), q, nk)];
    cplx inner;
    for (int kp = 0; kp < nk; ++kp)
      inner += x_block[in_block(band_pair(j, mb), kp, nk)] * swapped_time(ybar_block, mb, jb, k_minus(k_plus(kp, q, nk), k, nk), nk);
    s += inner * xq;
  }
  return s;
}

// FFT form, pointwise in R: out = -det(x) conj(cof(y)), x = X~(R) and y = Y~(R) as 2x2 matrices
// (see the file comment; the prefactor U U' / nk^3 is applied by the caller).
QUANTA_HD M2 second_born_pointwise(const M2& x, const M2& y) {
  const cplx det = x.m[0] * x.m[3] - x.m[1] * x.m[2];
  const cplx md = -det;
  return {{md * conj(y.m[3]), det * conj(y.m[2]), det * conj(y.m[1]), md * conj(y.m[0])}};
}

// ---- dispatch ------------------------------------------------------------------------------------

// Scratch memory for one method and grid size, taken once (no per-step allocation): FFTW plans and
// per-thread buffers for Fft, per-thread polarization buffers for Direct.
class SelfEnergyWorkspace {
 public:
  SelfEnergyWorkspace(SelfEnergyMethod method, int nk, int threads);
  ~SelfEnergyWorkspace();
  SelfEnergyWorkspace(const SelfEnergyWorkspace&) = delete;
  SelfEnergyWorkspace& operator=(const SelfEnergyWorkspace&) = delete;

  SelfEnergyMethod method() const { return method_; }
  int nk() const { return nk_; }
  struct Impl;
  Impl& impl() { return *impl_; }

 private:
  SelfEnergyMethod method_;
  int nk_;
  std::unique_ptr<Impl> impl_;
};

// Sigma<> for the whole slice, on the CPU with OpenMP over the time pairs. Every output element is
// summed by one thread in a fixed order, so the result does not depend on the thread count.
void self_energy_slice_cpu(const SelfEnergySlice& slice, SelfEnergyWorkspace& ws);

}  // namespace quanta::kbe::kernels
