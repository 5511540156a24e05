#pragma once
// The generalized plasmon-pole sum of the correlation self-energy (Hybertsen-Louie, as in BerkeleyGW's
// GPP kernel), one q-point per call, for bands n at k and bands m at k-q:
//   SX-X_n(E) -= sum_{m occ} sum_{G,G'} M_nm(G) conj(M_nm(G')) v(q+G') ssx(G,G'; E - E_m),
//   CH_n(E)   += 1/2 sum_{m}  sum_{G,G'} M_nm(G) conj(M_nm(G')) v(q+G') sch(G,G'; E - E_m),
// with I = delta - eps^-1, wt the mode frequency, Omega^2 = wt^2 I and, for w = E - E_m (|w| >= 1e-12),
// delw = wt / (w - wt):
//   |w - wt|^2 > 0.25 eV^2 and |delw|^2 < 2.5e5:  sch = delw I, ssx = Omega^2 / (w^2 - wt^2);
//   otherwise (occupied m only), |delw|^2 > 1e-12:  sch = 0, ssx = -Omega^2 delw / (4 wt^2 (delw + 1/2));
//   occupied m, |ssx| > 4 |I| and w < 0: ssx = 0.
// The mode frequency is real (what Sigma computes, BerkeleyGW's real and complex flavours alike) or complex
// (the complex wtilde of BerkeleyGW's kernel as its GPP mini-app runs it); the sums are complex, and Sigma
// keeps their real parts. wt = 0 (a skipped mode) contributes nothing.
//
// The columns G' may be a subset of the sphere (gp_index): what one process holds when G' is shared out,
// as BerkeleyGW's ngpown columns are.
//
// The terms are written so that no division by a quantity that can vanish is taken outside its branch:
// |delw|^2 < 2.5e5 is |w - wt|^2 > |wt|^2 / 2.5e5, |delw|^2 > 1e-12 is |wt|^2 > 1e-12 |w - wt|^2, and the
// second branch's ssx is -I wt / (2 (w + wt)) (the same expression with delw = wt / (w - wt) put in).
// Preconditions: energies in eV, v in Ry (so SX-X and CH come out in Ry); M on the screened sphere.
#include <cmath>

#include "quanta/core/backend.hpp"
#include "quanta/core/complex.hpp"
#include "quanta/core/hd.hpp"

namespace quanta::gw::kernels {

struct GppJob {
  int ng = 0;                  // rows G: the screened G-vectors
  int ngp = 0;                 // columns G' held (0: all ng)
  const int* gp_index = nullptr;  // [ngp] the G' (0 .. ng-1) of each column (nullptr: column c is G' = c)
  const cplx* i_eps = nullptr; // [ngp][ng] I(G, G') at G + ng c
  const double* wt = nullptr;  // [ngp][ng] real mode frequencies, eV, or
  const cplx* wt_complex = nullptr;  // [ngp][ng] complex ones (exactly one of the two is given)
  const double* v = nullptr;   // [ng] v(q+G'), Ry, with the zone weights, indexed by G'
  int nn = 0, nm = 0, ne = 0;
  int nocc = 0;                // bands m < nocc are occupied
  const cplx* m = nullptr;     // [nn][nm][ng]
  const double* e_m = nullptr; // [nm] eV
  const double* e_eval = nullptr;  // [nn][ne] eV
  double weight = 1.0;         // the q-point's multiplicity
  cplx* sx = nullptr;          // [nn][ne] SX-X, accumulated
  cplx* ch = nullptr;          // [nn][ne] CH, accumulated
  double* kernel_seconds = nullptr;  // when given, the CUDA backend adds its kernels' time (events), uploads excluded
  bool modes_on_device = false;  // CUDA backend: i_eps and the mode frequencies are device pointers (gpp_modes_cuda's)
  bool m_on_device = false;      // CUDA backend: m is a device pointer (screened_rows_cuda's), all bands m at once

  int columns() const { return ngp > 0 ? ngp : ng; }
  int column_g(int c) const { return gp_index ? gp_index[c] : c; }
};

// 1/x: on the device the hardware's approximate reciprocal refined by two Newton steps (within an ulp or two of
// the rounded 1/x for the finite, nonzero x it is given here), on the host the division.
QUANTA_HD double gpp_rcp(double x) {
#if defined(__CUDA_ARCH__)
  double r;
  asm("rcp.approx.ftz.f64 %0, %1;" : "=d"(r) : "d"(x));
  double e = fma(-x, r, 1.0);
  r = fma(r, e, r);
  e = fma(-x, r, 1.0);
  return fma(r, e, r);
#else
  return 1.0 / x;
#endif
}

// The frequency argument w = E - E_m, kept off zero as BerkeleyGW keeps it.
QUANTA_HD double gpp_frequency(double e_eval, double e_m) {
  const double w = e_eval - e_m;
  return (w > -1e-12 && w < 1e-12) ? 1e-12 : w;
}

// What one (G, G') entry keeps over the bands m and energies: I, wt and the branch limit on |w - wt|^2.
template <class W>
struct GppMode;

template <>
struct GppMode<double> {
  cplx I;
  double wt = 0, lim = 0.25;
  QUANTA_HD GppMode() = default;
  QUANTA_HD GppMode(cplx i, double w) : I(i), wt(w), lim(fmax(0.25, w * w * (1.0 / 2.5e5))) {}
};

template <>
struct GppMode<cplx> {
  cplx I, wt;
  double lim = 0.25;
  QUANTA_HD GppMode() = default;
  QUANTA_HD GppMode(cplx i, cplx w) : I(i), wt(w), lim(fmax(0.25, norm2(w) * (1.0 / 2.5e5))) {}
};

// The factors of one (G, G', m): f = M_nm(G) conj(M_nm(G')) v(G') and f I wt (what sch multiplies).
struct GppFactor {
  cplx fI, fIw;
  template <class W>
  QUANTA_HD GppFactor(cplx f, const GppMode<W>& q) : fI(f * q.I), fIw(fI * q.wt) {}
};

// CH: ch += f sch for one entry, band and w. Real wt: sch f = fIw / (w - wt); complex: fIw conj(w - wt) / |w - wt|^2.
QUANTA_HD void gpp_add_ch(const GppMode<double>& q, const GppFactor& p, double w, cplx& ch) {
  const double x = w - q.wt;
  const double r = x * x > q.lim ? gpp_rcp(x) : 0.0;
  ch.re = fma(p.fIw.re, r, ch.re);
  ch.im = fma(p.fIw.im, r, ch.im);
}

QUANTA_HD void gpp_add_ch(const GppMode<cplx>& q, const GppFactor& p, double w, cplx& ch) {
  const double x = w - q.wt.re, y = q.wt.im;  // conj(w - wt) = x + i y
  const double d2 = fma(x, x, y * y);
  const double r = d2 > q.lim ? gpp_rcp(d2) : 0.0;
  ch.re = fma(fma(p.fIw.re, x, -p.fIw.im * y), r, ch.re);
  ch.im = fma(fma(p.fIw.im, x, p.fIw.re * y), r, ch.im);
}

// SX-X and CH of an occupied band: sx += f ssx, ssx = s I with s from the branch of the header.
QUANTA_HD void gpp_add_occupied(const GppMode<double>& q, const GppFactor& p, double w, cplx& sx, cplx& ch) {
  const double x = w - q.wt, x2 = x * x, wt2 = q.wt * q.wt;
  double s = 0.0;
  if (x2 > q.lim) {
    s = wt2 * gpp_rcp(w * w - wt2);
    const double r = gpp_rcp(x);
    ch.re = fma(p.fIw.re, r, ch.re);
    ch.im = fma(p.fIw.im, r, ch.im);
  } else if (wt2 > 1e-12 * x2) {
    s = -q.wt * gpp_rcp(2.0 * (w + q.wt));
  }
  if (w < 0 && s * s > 16.0) s = 0.0;  // |ssx| > 4 |I|
  sx.re = fma(p.fI.re, s, sx.re);
  sx.im = fma(p.fI.im, s, sx.im);
}

QUANTA_HD void gpp_add_occupied(const GppMode<cplx>& q, const GppFactor& p, double w, cplx& sx, cplx& ch) {
  const cplx wd(w - q.wt.re, -q.wt.im);
  const double x2 = norm2(wd);
  const cplx wt2 = q.wt * q.wt;
  cplx s;
  if (x2 > q.lim) {
    const cplx c = cplx(w * w) - wt2;  // s = wt^2 / (w^2 - wt^2)
    s = wt2 * conj(c) * gpp_rcp(norm2(c));
    gpp_add_ch(q, p, w, ch);
  } else if (norm2(q.wt) > 1e-12 * x2) {
    const cplx c = 2.0 * (cplx(w) + q.wt);  // s = -wt / (2 (w + wt))
    s = -1.0 * (q.wt * conj(c)) * gpp_rcp(norm2(c));
  }
  if (w < 0 && norm2(s) > 16.0) s = cplx();
  sx += p.fI * s;
}

void gpp_cpu(const GppJob& job);
#if QUANTA_GW_CUDA
// device_budget: bytes it may take on the device (0: the free memory less a margin); the matrix elements
// go up in chunks of bands m when they do not fit at once.
void gpp_cuda(const GppJob& job, std::size_t device_budget);
#endif
// gpp_rcp on the device for each x (for the tests of its accuracy); throws Error in a build without CUDA.
void gpp_rcp_cuda(const double* x, double* r, std::size_t n);
void gpp(Backend backend, const GppJob& job, std::size_t device_budget = 0);

}  // namespace quanta::gw::kernels
