#pragma once
// Fifth-order WENO face reconstruction (Jiang & Shu, J. Comput. Phys. 126, 202 (1996)) for the transport
// terms of the Boltzmann equation (docs/mosfet-transport-model.md, section 4.2), shared by the CPU and CUDA
// backends. Given point values g_k of a flux along a line, the numerical flux at the face k - 1/2 (between
// points k - 1 and k) is reconstructed from the left (upwind for a positive velocity: g_{k-3..k+1}) or from
// the right (g_{k-2..k+2}); the semi-discrete derivative of point k is (F_{k+1/2} - F_{k-1/2}) / h.
//
// Written in the difference form of the seed's own code: with a, b, c, d the four consecutive differences
// of the stencil, the smoothness indicators are 12 times Jiang and Shu's, so that eps = 1e-6 here is their
// eps = 1e-6 / 12; the linear weights are 1/10, 6/10, 3/10.
#include "quanta/core/hd.hpp"

namespace quanta::mosfet::kernels {

constexpr double kWenoEps = 1e-6;

// The nonlinear correction to the central fourth-order value, from the four differences of a stencil taken in
// the upwind direction (a farthest upwind). The weights g_k = c_k / D_k, D_k = (eps + beta_k)^2, normalised:
// w0 = g0 / (g0 + g1 + g2) = D1 D2 / (D1 D2 + 6 D0 D2 + 3 D0 D1) and w2 = 3 D0 D1 / (the same), one division
// instead of five (FP64 divisions dominated the GPU's transport kernels). D_k >= 1e-12, so the products stay
// far from underflow; they overflow only for differences beyond ~1e37.
QUANTA_HD double weno5_correction(double a, double b, double c, double d) {
  const double b0 = 13 * (a - b) * (a - b) + 3 * (a - 3 * b) * (a - 3 * b);
  const double b1 = 13 * (b - c) * (b - c) + 3 * (b + c) * (b + c);
  const double b2 = 13 * (c - d) * (c - d) + 3 * (3 * c - d) * (3 * c - d);
  const double d0 = (kWenoEps + b0) * (kWenoEps + b0);
  const double d1 = (kWenoEps + b1) * (kWenoEps + b1);
  const double d2 = (kWenoEps + b2) * (kWenoEps + b2);
  const double d01 = d0 * d1, d12 = d1 * d2;
  const double inv = 1 / (d12 + 6 * d0 * d2 + 3 * d01);
  const double w0 = d12 * inv, w2 = 3 * d01 * inv;
  return w0 / 3 * (a - 2 * b + c) + (w2 - 0.5) / 6 * (b - 2 * c + d);
}

// The face value at k - 1/2 reconstructed from the left: g[0..4] = g_{k-3}, ..., g_{k+1}.
QUANTA_HD double weno5_left(const double* g) {
  const double a = g[1] - g[0], b = g[2] - g[1], c = g[3] - g[2], d = g[4] - g[3];
  return (-g[1] + 7 * g[2] + 7 * g[3] - g[4]) / 12 - weno5_correction(a, b, c, d);
}

// The face value at k - 1/2 reconstructed from the right: g[0..4] = g_{k-2}, ..., g_{k+2}. It is the left
// reconstruction of the mirrored stencil g_{k+2}, ..., g_{k-2}, by definition, so that the two directions are one
// function (and one instruction stream in weno5_upwind).
QUANTA_HD double weno5_right(const double* g) {
  const double mirrored[5] = {g[4], g[3], g[2], g[1], g[0]};
  return weno5_left(mirrored);
}

// The face value at k - 1/2 from the six points window[0..5] = g_{k-3}, ..., g_{k+2}, upwinded from the left or the
// right (weno5_right of window + 1): one instruction stream for both directions, where the lines of a warp are
// upwinded both ways (a branch ran both reconstructions in turn).
QUANTA_HD double weno5_upwind(const double* window, bool from_left) {
  double s[5];
  for (int r = 0; r < 5; ++r) s[r] = from_left ? window[r] : window[5 - r];
  return weno5_left(s);
}

}  // namespace quanta::mosfet::kernels
