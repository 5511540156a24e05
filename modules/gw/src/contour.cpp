#include "contour.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "quanta/core/error.hpp"

namespace quanta::gw {
namespace {

// int_a^b (c0 + c1 w + c2 w^2) x / (x^2 + w^2) dw.
cplx quadratic_piece(cplx c0, cplx c1, cplx c2, double a, double b, double x) {
  const double at = std::atan(b / x) - std::atan(a / x);
  const double lg = 0.5 * x * std::log((x * x + b * b) / (x * x + a * a));
  return c2 * (x * (b - a)) + (c0 - c2 * (x * x)) * at + c1 * lg;
}

cplx inverse(cplx z) { return conj(z) / norm2(z); }

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

bool ra_band_sums(const RaBand& b, cplx* sx_x, cplx* ch, cplx* cor, cplx* cor4) {
  constexpr double pi = 3.141592653589793;
  const int nw = b.nw;
  if (nw < 2) throw Error("the real-axis method needs at least two real frequencies");
  // The interval of y: w_a <= y < w_{a+1}; outside the grid the last one (BerkeleyGW extrapolates from it).
  bool beyond = false;
  auto interval = [&](double y) {
    int a = static_cast<int>(std::upper_bound(b.w, b.w + nw, y) - b.w) - 1;
    return a < 0 || a > nw - 2 ? nw - 2 : a;
  };
  auto interpolate = [&](const auto* y, double at, int a) {  // P (complex) or S (real)
    const double h = b.w[a + 1] - b.w[a];
    return y[a] * ((b.w[a + 1] - at) / h) + y[a + 1] * ((at - b.w[a]) / h);
  };
  auto clamp = [](double r) { return std::min(std::max(r, 1e-4), 1e4); };
  std::vector<double> pref(nw - 1), s(nw);
  for (int j = 0; j + 1 < nw; ++j) pref[j] = (b.w[j + 1] - b.w[j]) / pi;
  pref[0] *= 0.5;
  for (int e = 0; e < b.ne; ++e) sx_x[e] = ch[e] = cor[e] = cor4[e] = cplx();
  for (int m = 0; m < b.nm; ++m) {
    const cplx* p = b.p + static_cast<std::size_t>(m) * nw;
    for (int j = 0; j < nw; ++j) s[j] = p[j].im;
    const bool occupied = m < b.nocc;
    for (int e = 0; e < b.ne; ++e) {
      const double x = b.e_eval[e] + kRealAxisShift - b.e_m[m];
      if (occupied) {
        const double y = std::abs(x);
        beyond = beyond || y >= b.w[nw - 1];
        const cplx v = interpolate(p, y, interval(y));
        sx_x[e] += x >= 0 ? v : conj(v);
      }
      cplx c, cb;
      for (int j = 0; j + 1 < nw; ++j) {
        c += pref[j] * s[j] * inverse(cplx(x - b.w[j], b.eta[j]));
        if (occupied) cb += pref[j] * s[j] * inverse(cplx(x + b.w[j], b.eta[j]));
      }
      ch[e] += c;
      cor[e] += occupied ? cb : c;
      cplx c4;
      for (int j = 1; j < nw; ++j) {
        const double lo = b.w[j - 1], hi = b.w[j], slope = (s[j] - s[j - 1]) / (hi - lo);
        if (occupied) c4 += ((s[j - 1] + slope * (-x - lo)) * std::log(clamp(std::abs((x + hi) / (x + lo)))) + (s[j] - s[j - 1])) / pi;
        else c4 += ((s[j - 1] + slope * (x - lo)) * -std::log(clamp(std::abs((x - hi) / (x - lo)))) + (s[j] - s[j - 1])) / pi;
      }
      if (x >= 0 && !occupied) c4 += cplx(0, -interpolate(s.data(), x, interval(x)));
      if (x < 0 && occupied) c4 += cplx(0, -interpolate(s.data(), -x, interval(-x)));
      cor4[e] += c4;
    }
  }
  return beyond;
}

}  // namespace quanta::gw
