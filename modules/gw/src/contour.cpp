#include "contour.hpp"

#include <cmath>

#include "quanta/core/error.hpp"

namespace quanta::gw {
namespace {

// int_a^b (c0 + c1 w + c2 w^2) x / (x^2 + w^2) dw.
cplx quadratic_piece(cplx c0, cplx c1, cplx c2, double a, double b, double x) {
  const double at = std::atan(b / x) - std::atan(a / x);
  const double lg = 0.5 * x * std::log((x * x + b * b) / (x * x + a * a));
  return c2 * (x * (b - a)) + (c0 - c2 * (x * x)) * at + c1 * lg;
}

}  // namespace

cplx cd_imaginary_integral(int method, const double* w, const cplx* y, int n, double x) {
  if (n < 1) return {};
  // At x = 0 the kernel x / (x^2 + w^2) is a half delta at w = 0: its limit x -> 0+, pi/2 y(0).
  if (std::abs(x) < kSameEnergy) {
    if (w[0] != 0) throw Error("cd_imaginary_integral: the imaginary-axis grid must start at w = 0 (it starts at " + std::to_string(w[0]) + " eV)");
    return 1.5707963267948966 * y[0];
  }
  if (method == 0) {
    cplx sum;
    for (int j = 0; j < n; ++j) {
      const double a = j == 0 ? w[0] : 0.5 * (w[j - 1] + w[j]);
      const double b = j + 1 < n ? 0.5 * (w[j] + w[j + 1]) : (n > 1 ? 0.5 * (3 * w[n - 1] - w[n - 2]) : w[0]);
      sum += y[j] * (std::atan(b / x) - std::atan(a / x));
    }
    return sum;
  }
  if (method != 2) throw Error("cd_imaginary_integral: method " + std::to_string(method) + " (expected 0 or 2)");
  if (n < 2) return {};
  // First segment: y0 + c2 (w - w0)^2 with w0 = 0 (zero slope at w = 0, where W(i w) is even).
  const double h = w[1] - w[0];
  cplx sum = quadratic_piece(y[0], cplx(), (y[1] - y[0]) / (h * h), w[0], w[1], x);
  for (int j = 1; j + 1 < n; ++j) {
    // The parabola through (w[j-1], y[j-1]), (w[j], y[j]), (w[j+1], y[j+1]), on [w[j], w[j+1]].
    const double x1 = w[j - 1], x2 = w[j], x3 = w[j + 1];
    const cplx y1 = y[j - 1], y2 = y[j], y3 = y[j + 1];
    const cplx c2 = ((y2 - y1) * (x1 - x3) + (y3 - y1) * (x2 - x1)) / ((x1 - x3) * (x2 * x2 - x1 * x1) + (x2 - x1) * (x3 * x3 - x1 * x1));
    const cplx c1 = ((y2 - y1) - c2 * (x2 * x2 - x1 * x1)) / (x2 - x1);
    const cplx c0 = y1 - c2 * (x1 * x1) - c1 * x1;
    sum += quadratic_piece(c0, c1, c2, x2, x3, x);
  }
  return sum;
}

double cd_residue_factor(bool occupied, double x) {
  if (std::abs(x) < kSameEnergy) return occupied ? 0.0 : 1.0;  // E = E_m taken as E -> E_m from above
  if (occupied) return x < 0 ? -1.0 : 0.0;
  return x > 0 ? 1.0 : 0.0;
}

cplx cd_real_axis_value(const cplx* y, int n, double w0, double dw, double w, const std::string& what) {
  const double t = (w - w0) / dw;
  if (!(t >= -1e-9 && t <= n - 1 + 1e-9))
    throw Error(what + ": W on the real axis is needed at " + std::to_string(w) + " eV, outside Epsilon's real-axis frequencies " + std::to_string(w0) +
                " .. " + std::to_string(w0 + (n - 1) * dw) + " eV (raise frequency_low_cutoff in epsilon.inp)");
  if (n == 1) return y[0];
  const int i = std::min(std::max(static_cast<int>(std::floor(t)), 0), n - 2);
  const double f = t - i;
  return y[i] * (1 - f) + y[i + 1] * f;
}

void cd_band_sums(const CdBand& b, cplx* residue, cplx* integral, const std::string& what) {
  for (int e = 0; e < b.ne; ++e) {
    cplx res, in;
    for (int m = 0; m < b.nm; ++m) {
      const double x = b.e_eval[e] - b.e_m[m];
      in += cd_imaginary_integral(b.method, b.w_imag, b.s_imag + static_cast<std::size_t>(m) * b.nfi, b.nfi, x);
      const double fac = cd_residue_factor(m < b.nocc, x);
      if (fac == 0) continue;
      if (b.real_row[m] < 0) throw Error(what + ": band " + std::to_string(m + 1) + " has a residue but no real-axis values");
      res += fac * cd_real_axis_value(b.s_real + static_cast<std::size_t>(b.real_row[m]) * b.nr, b.nr, b.w0, b.dw, std::abs(x), what);
    }
    residue[e] = res;
    integral[e] = in * (-1.0 / 3.14159265358979323846);
  }
}

}  // namespace quanta::gw
