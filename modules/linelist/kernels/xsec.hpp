#pragma once
// Absorption cross sections on a wavenumber grid: every line spread over the grid points within a cut-off
// of its centre by a normalized profile,
//   sigma(nu_i) += S * f(nu_i - nu_0),        sampled at the grid points, or
//   sigma(nu_i) += S / h * int_{nu_i - h/2}^{nu_i + h/2} f(nu - nu_0) dnu,  integrated over the bin of width h
// (the area S is then kept however narrow the line is against the step). S in cm/molecule gives sigma in
// cm^2/molecule. Profiles, with alpha the Gaussian and gamma the Lorentzian half widths at half maximum (cm^-1):
//   Gauss    f = sqrt(ln2 / pi) / alpha exp(-ln2 x^2 / alpha^2)      (Doppler broadening)
//   Lorentz  f = gamma / pi / (x^2 + gamma^2)                        (pressure broadening)
//   Voigt    f = Re w(z) / (s sqrt(2 pi)),  z = (x + i gamma) / (s sqrt 2),  s = alpha / sqrt(2 ln2)
// with w the Faddeeva function (their convolution). Bins integrate Gauss and Lorentz in closed form (erf and
// arctan differences, written so that far bins lose no digits) and Voigt by Gauss-Legendre quadrature on
// sub-intervals no wider than a quarter of the line's width.
#include <cmath>
#include <cstddef>
#include <memory>
#include <vector>

#include "quanta/core/backend.hpp"
#include "quanta/core/hd.hpp"

namespace quanta::linelist::kernels {

enum class LineShape { Gauss, Lorentz, Voigt };
enum class Binning { Sampled, Integrated };

struct XsecGrid {
  double start = 0, step = 1;  // nu_i = start + i step, cm^-1
  long long points = 0;
};

struct XsecParams {
  LineShape shape = LineShape::Voigt;
  Binning binning = Binning::Sampled;
  double cutoff = 25;        // cm^-1: a line reaches the grid points nearest nu_0 - cutoff .. nu_0 + cutoff (line_reach)
  bool renormalize = false;  // Lorentz, integrated: each line's kept bins scaled to the area between its first and last
                             // kept grid points (ExoCross's Lorentz0)
};

// The lines of one batch, one entry each (host or device memory, as the caller says).
struct XsecLines {
  std::size_t count = 0;
  const double* nu = nullptr;        // centre, cm^-1
  const double* strength = nullptr;  // S, cm/molecule
  const double* alpha = nullptr;     // Gaussian HWHM, cm^-1 (Gauss, Voigt)
  const double* gamma = nullptr;     // Lorentzian HWHM, cm^-1 (Lorentz, Voigt)
};

// Re w(x + i y) for y >= 0: for |z| >= 30 the asymptotic series (below); elsewhere Weideman's rational expansion (SIAM
// J. Numer. Anal. 31, 1497 (1994)) with N = 32,
//   w(z) = 2 p(Z) / (L - i z)^2 + 1 / (sqrt(pi) (L - i z)),  Z = (L + i z) / (L - i z),  L = sqrt(N / sqrt 2),
// p of degree 31 with the coefficients below (from the FFT of exp(-t^2)(L^2 + t^2) at t = L tan(theta / 2)).
// Checked against an independent Faddeeva function at 20,000 points with |x| in 1e-4 .. 1e3 and y in 1e-8 .. 1e3:
// |w| within 3.2e-13 relative; Re w within 3e-13 of w(i y), the profile's peak scale, and within 1e-10 relative
// where it exceeds 1e-6 of that peak (tests: xsec_test.cpp).
QUANTA_HD double faddeeva_re(double x, double y) {
  constexpr double a[32] = {
      -1.3031797863050087e-12, 3.7409519926256962e-12, 8.0303541594162198e-12, -2.1543655748246238e-11,
      -5.5442372914882299e-11, 1.1658260468117021e-10, 4.1537444317452099e-10, -5.2310206860584074e-10,
      -3.2080151035618343e-09, 8.1248903091579727e-10, 2.3797556790612628e-08, 2.2930439061430441e-08,
      -1.4813078910620194e-07, -4.1840763705519579e-07, 4.2558331373381231e-07, 4.4015317314924939e-06,
      6.8210319440019849e-06, -2.140961920187231e-05, -0.00013075449254633574, -0.00024532980270021025,
      0.00039259136070058048, 0.004519541105349148, 0.019006155784845324, 0.057304403529837206,
      0.14060716226893771, 0.29544451071508732, 0.54601397206393409, 0.9019254893648001,
      1.3455441692345449, 1.8256696296324813, 2.2635372999002676, 2.5722534081245696};
  constexpr double L = 4.7568284600108841;
  constexpr double rsqrtpi = 0.56418958354775628695;
  const double r2 = x * x + y * y;
  if (r2 >= 900) {
    // |z| >= 30 (most points of a line's wings): w = i / (sqrt(pi) z) sum_k (2k-1)!! / (2 z^2)^k, six terms (the
    // seventh is below 1e-16 of the sum there; checked against the independent function: Re w within 2e-14 relative).
    const double a2 = x * x - y * y, b2 = 2 * x * y, d2 = 2 * (a2 * a2 + b2 * b2);
    const double qr = a2 / d2, qi = -b2 / d2;  // 1 / (2 z^2)
    double tr = 1, ti = 0, sr = 1, si = 0;
    for (int k = 1; k <= 6; ++k) {
      const double f = 2 * k - 1;
      const double nr = (tr * qr - ti * qi) * f, ni = (tr * qi + ti * qr) * f;
      tr = nr, ti = ni, sr += tr, si += ti;
    }
    return rsqrtpi * (sr * y - si * x) / r2;
  }
  // d = L - i z = (L + y) - i x;  n = L + i z = (L - y) + i x;  Z = n / d.
  const double dr = L + y, di = -x;
  const double dd = dr * dr + di * di;
  const double nr = L - y, ni = x;
  const double zr = (nr * dr + ni * di) / dd, zi = (ni * dr - nr * di) / dd;
  double pr = a[0], pi = 0;
  for (int k = 1; k < 32; ++k) {
    const double t = pr * zr - pi * zi + a[k];
    pi = pr * zi + pi * zr;
    pr = t;
  }
  // 1 / d = conj(d) / |d|^2;  1 / d^2 = conj(d)^2 / |d|^4.
  const double ir = dr / dd, ii = -di / dd;
  const double i2r = ir * ir - ii * ii, i2i = 2 * ir * ii;
  return 2 * (pr * i2r - pi * i2i) + rsqrtpi * ir;
}

// The fraction of a Gaussian of HWHM alpha between offsets a < b from its centre: (erf(u_b) - erf(u_a)) / 2 with
// u = sqrt(ln2) x / alpha, through erfc on one side of the centre (no cancellation in the wings).
QUANTA_HD double gauss_fraction(double a, double b, double alpha) {
  const double k = 0.83255461115769775635 / alpha;  // sqrt(ln 2) / alpha
  const double ua = a * k, ub = b * k;
  if (ua >= 0) return 0.5 * (erfc(ua) - erfc(ub));
  if (ub <= 0) return 0.5 * (erfc(-ub) - erfc(-ua));
  return 0.5 * (erf(ub) - erf(ua));
}

// The fraction of a Lorentzian of HWHM gamma between offsets a < b: (atan(b / gamma) - atan(a / gamma)) / pi,
// as one arctangent when a and b lie on one side (no cancellation in the wings).
QUANTA_HD double lorentz_fraction(double a, double b, double gamma) {
  constexpr double rpi = 0.31830988618379067154;
  if (a * b > 0) return rpi * atan(gamma * (b - a) / (gamma * gamma + a * b));
  return rpi * (atan(b / gamma) - atan(a / gamma));
}

QUANTA_HD double gauss_value(double x, double alpha) {
  const double u = 0.83255461115769775635 * x / alpha;
  return 0.46971863934982566689 / alpha * exp(-u * u);  // sqrt(ln2 / pi) / alpha
}

QUANTA_HD double lorentz_value(double x, double gamma) { return 0.31830988618379067154 * gamma / (x * x + gamma * gamma); }

QUANTA_HD double voigt_value(double x, double alpha, double gamma) {
  const double r = 0.83255461115769775635 / alpha;                        // 1 / (s sqrt 2) = sqrt(ln 2) / alpha
  return faddeeva_re(fabs(x) * r, gamma * r) * r * 0.56418958354775628695;  // Re w / (s sqrt(2 pi)) = Re w r / sqrt(pi)
}

// An approximation of the Voigt profile's HWHM (Olivero and Longbothum, within 0.02%): the quadrature's scale.
QUANTA_HD double voigt_hwhm(double alpha, double gamma) { return 0.5346 * gamma + sqrt(0.2166 * gamma * gamma + alpha * alpha); }

// The Voigt profile's integral over [a, b]: 4-point Gauss-Legendre on sub-intervals no wider than a quarter of the
// larger of its HWHM and the distance of the interval from the centre (the profile varies on that scale there).
QUANTA_HD double voigt_fraction(double a, double b, double alpha, double gamma) {
  constexpr double xg[4] = {-0.86113631159405257522, -0.33998104358485626480, 0.33998104358485626480, 0.86113631159405257522};
  constexpr double wg[4] = {0.34785484513745385737, 0.65214515486254614263, 0.65214515486254614263, 0.34785484513745385737};
  const double hw = voigt_hwhm(alpha, gamma);
  const double near = a * b > 0 ? fmin(fabs(a), fabs(b)) : 0.0;  // distance of the interval from the centre
  const int m = static_cast<int>(fmin(ceil((b - a) / (0.25 * fmax(hw, near))), 4096.0));
  const double h = (b - a) / m;
  double sum = 0;
  for (int j = 0; j < m; ++j) {
    const double c = a + (j + 0.5) * h;
    for (int q = 0; q < 4; ++q) sum += wg[q] * voigt_value(c + 0.5 * h * xg[q], alpha, gamma);
  }
  return 0.5 * h * sum;
}

// One line's contribution to grid point i (offset x = nu_i - nu_0 from its centre; h the step).
QUANTA_HD double line_contribution(const XsecParams& p, double x, double h, double alpha, double gamma) {
  if (p.binning == Binning::Sampled) {
    switch (p.shape) {
      case LineShape::Gauss: return gauss_value(x, alpha);
      case LineShape::Lorentz: return lorentz_value(x, gamma);
      default: return voigt_value(x, alpha, gamma);
    }
  }
  const double a = x - 0.5 * h, b = x + 0.5 * h;
  switch (p.shape) {
    case LineShape::Gauss: return gauss_fraction(a, b, alpha) / h;
    case LineShape::Lorentz: return lorentz_fraction(a, b, gamma) / h;
    default: return voigt_fraction(a, b, alpha, gamma) / h;
  }
}

// The grid points a line reaches, first .. last (empty when first > last): from the point nearest nu - cutoff to the
// point nearest nu + cutoff (rounding half away from zero, as ExoCross's NINT), within the grid.
QUANTA_HD void line_reach(const XsecGrid& g, double cutoff, double nu, long long& first, long long& last) {
  const double lo = round((nu - cutoff - g.start) / g.step), hi = round((nu + cutoff - g.start) / g.step);
  first = lo < 0 ? 0 : static_cast<long long>(lo);
  last = hi > static_cast<double>(g.points - 1) ? g.points - 1 : static_cast<long long>(hi);
}

// A line's factor on every point it reaches: its strength, and for a renormalized Lorentzian 1 / the profile's
// fraction between its first and last points. 0 skips the line: a Voigt line reaching fewer than 2 points (as
// ExoCross skips it).
QUANTA_HD double line_factor(const XsecGrid& g, const XsecParams& p, double nu, double s, double gamma, long long first, long long last) {
  if (p.shape == LineShape::Voigt && last <= first) return 0;
  if (p.renormalize && p.shape == LineShape::Lorentz && p.binning == Binning::Integrated && last > first)
    return s / lorentz_fraction(g.start + first * g.step - nu, g.start + last * g.step - nu, gamma);
  return s;
}

// sigma[i] += every line's contribution (host memory; OpenMP over lines with a private grid per thread when it fits).
void add_cross_sections_cpu(const XsecGrid& grid, const XsecParams& params, const XsecLines& lines, double* sigma);

// ExoCross's constants (its accuracy.f90): c2 as its literal (CODATA 2014), k and N_A of CODATA 2010, so that its results
// are reproduced to rounding. (CODATA 2018's c2 = 1.438776877 cm K moves a Boltzmann factor by 3.4e-7 relative per unit
// of c2 E / T.)
constexpr double kXsecLightCm = 2.99792458e10;      // cm/s
constexpr double kXsecC2 = 1.43877736;              // cm K
constexpr double kXsecBoltzmann = 1.3806488e-16;    // erg/K
constexpr double kXsecAvogadro = 6.02214129e23;     // 1/mol

// S(T) = a g' A exp(-c2 E'' / T) (1 - exp(-c2 nu / T)) / (8 pi c nu^2 Q), cm/molecule.
QUANTA_HD double line_intensity(double nu, double a, double g_upper, double e_lower, double temperature, double q, double abundance) {
  return abundance * a * g_upper * exp(-kXsecC2 * e_lower / temperature) * (1.0 - exp(-kXsecC2 * nu / temperature)) /
         (8.0 * 3.14159265358979323846 * kXsecLightCm * nu * nu * q);
}

// One broadener's a0 table (gamma, n by the lower J; above the last J its values, a J not listed its defaults).
struct XsecBroadener {
  double ratio = 1, t0 = 296, p0 = 1, default_gamma = 0.05, default_n = 0.5;
  int jcount = 0;
  const double* gamma_by_j = nullptr;  // [jcount]; < 0: J not listed (host or device memory, as the caller says)
  const double* n_by_j = nullptr;
};

// The per-line physics of one condition (T, P): which lines count and their S, Doppler and Lorentz half widths.
struct XsecPhysics {
  double temperature = 296, partition_function = 1, pressure = 1, abundance = 1, threshold = 0;
  double nu_min = 0, nu_max = 0;  // lines centred outside are left out (ExoCross's rule)
  double doppler_per_nu = 0;      // alpha / nu = sqrt(2 ln2 k N_A T / m) / c (Doppler, Voigt); 0: fixed_alpha
  double fixed_alpha = 0;         // Gauss: one HWHM for every line
  double fixed_gamma = 0;         // Lorentz, Voigt without broadeners: one HWHM
  int nbroadeners = 0;
  const XsecBroadener* broadeners = nullptr;
};

// The raw lines of a batch (host or device memory): nu = E' - E'', A, g', E'', J''.
struct XsecRawLines {
  std::size_t count = 0;
  const double *nu = nullptr, *a = nullptr, *g_upper = nullptr, *e_lower = nullptr, *j_lower = nullptr;
};

QUANTA_HD double broadener_value(const XsecBroadener& b, double j, bool gamma) {
  if (b.jcount == 0) return gamma ? b.default_gamma : b.default_n;
  long long i = static_cast<long long>(round(j));
  if (i > b.jcount - 1) i = b.jcount - 1;
  if (i < 0 || b.gamma_by_j[i] < 0) return gamma ? b.default_gamma : b.default_n;
  return gamma ? b.gamma_by_j[i] : b.n_by_j[i];
}

// Line i's parameters under `ph`; false when it is left out (outside the range, S below the threshold).
QUANTA_HD bool line_parameters(const XsecPhysics& ph, const XsecRawLines& l, std::size_t i, double& nu, double& s, double& alpha, double& gamma) {
  nu = l.nu[i];
  if (!(nu >= 2.22e-16) || nu < ph.nu_min || nu > ph.nu_max) return false;
  s = line_intensity(nu, l.a[i], l.g_upper[i], l.e_lower[i], ph.temperature, ph.partition_function, ph.abundance);
  if (!(s >= ph.threshold)) return false;
  alpha = ph.doppler_per_nu > 0 ? ph.doppler_per_nu * nu : ph.fixed_alpha;
  gamma = ph.fixed_gamma;
  for (int b = 0; b < ph.nbroadeners; ++b) {
    const XsecBroadener& br = ph.broadeners[b];
    gamma += br.ratio * broadener_value(br, l.j_lower[i], true) * pow(br.t0 / ph.temperature, broadener_value(br, l.j_lower[i], false)) *
             ph.pressure / br.p0;
  }
  return true;
}

// Accumulates the lines of many batches into one grid, on the CPU or on the device (one thread block per group of
// lines, double-precision atomics into the device grid); result() brings the grid back.
class XsecEngine {
 public:
  XsecEngine(Backend backend, const XsecGrid& grid, const XsecParams& params);
  ~XsecEngine();
  XsecEngine(const XsecEngine&) = delete;
  XsecEngine& operator=(const XsecEngine&) = delete;
  void add(const XsecLines& host_lines);  // host arrays
  // Raw lines (host arrays) with their physics computed where the grid is (on the device for CUDA); returns the lines
  // that counted (in the range, at or above the threshold).
  std::size_t add(const XsecRawLines& host_lines, const XsecPhysics& physics);
  std::vector<double> result() const;

  struct Cuda;
  struct CudaDeleter {
    void operator()(Cuda* p) const;
  };

 private:
  Backend backend_;
  XsecGrid grid_;
  XsecParams params_;
  std::vector<double> sigma_;  // CPU backend
  std::unique_ptr<Cuda, CudaDeleter> cuda_;
};

#if QUANTA_HAVE_CUDA
XsecEngine::Cuda* make_xsec_cuda(const XsecGrid& grid, const XsecParams& params);
void xsec_cuda_add(XsecEngine::Cuda& ws, const XsecLines& host_lines);
std::size_t xsec_cuda_add_raw(XsecEngine::Cuda& ws, const XsecRawLines& host_lines, const XsecPhysics& physics);
std::vector<double> xsec_cuda_result(const XsecEngine::Cuda& ws);
#endif

}  // namespace quanta::linelist::kernels
