// Homogeneous transport in a thin silicon film (docs/mosfet-transport-model.md, section 7.5): the scattering
// operator checked physically, through the transport engine on the CPU and its own Runge-Kutta steps. The
// film is the 6 nm infinite well of section 7.3 (subband energies hbar^2 pi^2 (p+1)^2 / (2 m_z m_e t^2), lowest
// at 0; overlaps 1/t and 3/(2t)), frozen, with x periodic and a uniform force F along x (eps' = -F), so that
// the distribution stays uniform along x. Golden-rule rates and Bose-Einstein factors unless stated.
//   - Without force, a distribution far from equilibrium relaxes to the Maxwellian with a common Fermi level.
//   - The low-field mobility against the exact solution of the linearised equation of the same model, whose
//     loss rate is written here independently, from the textbook golden-rule rates.
//   - The drift velocity saturates near 1e7 cm/s.
// The numbers measured are printed; each tolerance says where it comes from.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <vector>

#include "../src/transport_engine.hpp"
#include "quanta/mosfet/transport.hpp"

namespace quanta::mosfet {
namespace {

constexpr double kPi = constants::pi;
constexpr double kFilm = 6e-9;             // m: the silicon film of the default device (L_z = 8 nm with the oxides)
const TransportScales kScales{300, 20, 8};  // 300 K, L_x = 20 nm, L_z = 8 nm

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// The subband energies of the infinite well in k_B T, [3][nsbn], the lowest at 0.
std::vector<double> well_energies(int nsbn) {
  const auto valleys = Materials{}.valleys;
  std::vector<double> eps(3 * nsbn);
  for (int v = 0; v < 3; ++v)
    for (int p = 0; p < nsbn; ++p)
      eps[v * nsbn + p] = constants::hbar * constants::hbar * kPi * kPi * (p + 1) * (p + 1) /
                          (2 * valleys[v].mz * constants::electron_mass * kFilm * kFilm) / (constants::kB * kScales.temperature);
  const double lowest = *std::min_element(eps.begin(), eps.end());
  for (double& e : eps) e -= lowest;
  return eps;
}
// The overlap int |psi_p|^2 |psi_p'|^2 dz of the infinite well, in 1/m (any two valleys).
double well_overlap(int p, int p2) { return (p == p2 ? 1.5 : 1.0) / kFilm; }

// ---------------------------------------------------------------------------------------------------------
// The reference loss rate Lambda_{v,p}(w) (1/t*; section 3.3), from the textbook 2-D rates in SI:
//   acoustic  1/tau = m_d k_B T Xi^2 W / (hbar^3 rho u_l^2),
//   phonon k  1/tau = Z m_d (D_t K)^2 W (n or n + 1) / (2 rho hbar^2 omega)   (absorption or emission),
// with m_d = m_e s(Gamma) the final state's density-of-states mass (Kane included), Gamma its kinetic energy,
// W the overlap in 1/m, Z = 1 final valley for g-type and 2 in each other pair for f-type; divided by 2 pi
// for the seed's code's constants.
struct LossRate {
  int nsbn;
  std::vector<double> eps;
  kernels::KaneValley valleys[3];
  double acoustic = 0, x[7] = {}, rate[7] = {}, n[7] = {};
  LossRate(int nsbn_, RateConvention rates, const PhononParameters& ph = {}) : nsbn(nsbn_), eps(well_energies(nsbn_)) {
    using namespace constants;
    const auto mat = Materials{}.valleys;
    for (int v = 0; v < 3; ++v) valleys[v] = {mat[v].mx, mat[v].my, mat[v].alpha * kScales.kT_eV()};
    const double kT = kB * kScales.temperature, to_tstar = kScales.time() / (rates == RateConvention::GoldenRule ? 1.0 : 2 * pi);
    const double xi = ph.acoustic_deformation_potential * eV, rho = ph.mass_density, ul = ph.sound_velocity;
    acoustic = electron_mass * kT * xi * xi / (hbar * hbar * hbar * rho * ul * ul) * to_tstar;
    for (int k = 1; k < 7; ++k) {
      const double omega = kB * ph.theta[k - 1] / hbar, dtk = ph.coupling[k - 1] * 1e10 * eV;  // 1e8 eV/cm in J/m
      rate[k] = electron_mass * dtk * dtk / (2 * rho * hbar * hbar * omega) * to_tstar;
      x[k] = ph.theta[k - 1] / kScales.temperature;
      n[k] = 1 / std::expm1(x[k]);
    }
  }
  double dos(int v, double w) const { return w < 0 ? 0.0 : std::sqrt(valleys[v].mx * valleys[v].my) * (1 + 2 * valleys[v].alpha * w); }
  double operator()(int v, int p, double w) const {
    double total = 0;
    for (int v2 = 0; v2 < 3; ++v2)
      for (int p2 = 0; p2 < nsbn; ++p2) {
        const double W = well_overlap(p, p2), gamma = w + eps[v * nsbn + p] - eps[v2 * nsbn + p2];
        if (v2 == v) total += acoustic * W * dos(v, gamma);
        const int k0 = v2 == v ? 1 : 4, final_valleys = v2 == v ? 1 : 2;
        for (int k = k0; k < k0 + 3; ++k)
          total += final_valleys * rate[k] * W * (n[k] * dos(v2, gamma + x[k]) + (n[k] + 1) * dos(v2, gamma - x[k]));
      }
    return total;
  }
  // The energies in (0, top) where a final state opens (Gamma = 0), where the loss rate jumps; and 0, top.
  std::vector<double> thresholds(double top) const {
    std::vector<double> t = {0.0, top};
    for (int a = 0; a < 3 * nsbn; ++a)
      for (int b = 0; b < 3 * nsbn; ++b)
        for (int k = 0; k < 7; ++k)
          for (double sign : {-1.0, 1.0}) {
            const double w = eps[b] - eps[a] + sign * x[k];
            if (w > 0 && w < top) t.push_back(w);
          }
    std::sort(t.begin(), t.end());
    return t;
  }
};

// int f dw by Simpson's rule between consecutive breaks (f smooth in between), steps of at most h.
template <class F>
double integrate(F&& f, const std::vector<double>& breaks, double h) {
  double sum = 0;
  for (std::size_t k = 0; k + 1 < breaks.size(); ++k) {
    const double a = breaks[k], b = breaks[k + 1];
    if (b - a < 1e-12) continue;
    const int n = 2 * static_cast<int>(std::ceil((b - a) / (2 * h)));
    const double step = (b - a) / n;
    double s = f(a) + f(b);
    for (int i = 1; i < n; ++i) s += (i % 2 ? 4 : 2) * f(a + i * step);
    sum += s * step / 3;
  }
  return sum;
}

// The exact low-field v / F of the linearised equation (1). With eps' = -F the drift terms applied to the
// Maxwellian Phi0 = A s(w) e^{-w-eps} give -d(a^2 Phi0)/dw - d(a^3 Phi0)/dphi = +F a^1 Phi0 (use R R' = 1 + 2 alpha w).
// The response Phi1 is odd in phi, so the isotropic gain does not see it: 0 = F a^1 Phi0 - Lambda Phi1, and
//   v / F = sum_{v,p} int int (a^1)^2 Phi0 / Lambda dw dphi / sum_{v,p} int int Phi0 dw dphi
// with int cos^2 dphi = pi and int s e^{-w} dw = sqrt(m_x m_y) (1 + 2 alpha): positive, along the force.
double exact_mobility(const LossRate& loss) {
  double current = 0, density = 0;
  const auto breaks = loss.thresholds(60.0);  // e^{-60}: nothing beyond
  for (int v = 0; v < 3; ++v)
    for (int p = 0; p < loss.nsbn; ++p) {
      const auto& kv = loss.valleys[v];
      const double weight = std::exp(-loss.eps[v * loss.nsbn + p]);
      const auto f = [&](double w) {
        const double r2 = 2 * w * (1 + kv.alpha * w), d = 1 + 2 * kv.alpha * w;
        return r2 / (kv.mx * d * d) * loss.dos(v, w) * std::exp(-w) / loss(v, p, w);
      };
      current += weight * kPi * integrate(f, breaks, 2e-3);
      density += weight * 2 * kPi * std::sqrt(kv.mx * kv.my) * (1 + 2 * kv.alpha);
    }
  return current / density;
}

// v / F (dimensionless) as a mobility in cm^2/Vs: v in v* = sqrt(k_B T / m_e), E = F k_B T / (q L_x).
double to_cm2_per_Vs(double v_over_F) {
  const double kT = constants::kB * kScales.temperature;
  return v_over_F * std::sqrt(kT / constants::electron_mass) * kScales.length_x * 1e-9 / (kT / constants::eV) * 1e4;
}
// A field in V/cm as the dimensionless force; a dimensionless velocity in cm/s.
double force_of(double V_per_cm) { return V_per_cm * 1e2 * kScales.length_x * 1e-9 / kScales.kT_eV(); }
double cm_per_s(double v) { return v * std::sqrt(constants::kB * kScales.temperature / constants::electron_mass) * 1e2; }

// ---------------------------------------------------------------------------------------------------------
// The film in the engine: nx = 2 periodic nodes (the distribution stays uniform along x, and two nodes are the
// fewest for which the engine's eps' is defined), energy cells of width dw up to w_max, nphi angles.
struct Film {
  TransportSetup setup;
  std::vector<double> eps0;
  std::unique_ptr<TransportEngine> engine;
  double dt = 0, time = 0;
  int steps = 0;
  Film(int nsbn, double dw, double w_max, int nphi, double F, RateConvention rates) : eps0(well_energies(nsbn)) {
    const int nx = 2, nvp = 3 * nsbn;
    const auto valleys = Materials{}.valleys;
    auto& g = setup.grid;
    g = {nsbn, nx, static_cast<int>(std::lround(w_max / dw)), nphi, 1.0 / nx, dw, 2 * kPi / nphi};
    for (int v = 0; v < 3; ++v) setup.valleys[v] = kane_valley(valleys[v], kScales);
    setup.scattering = make_phonon_scattering(PhononParameters{}, valleys, kScales, rates);
    setup.periodic_x = true;
    engine = make_cpu_transport_engine(setup);
    // eps_{v,p}(x_i) = eps_{v,p} - F x_i: every difference, centred inside and one-sided at the ends, is -F; the
    // offset common to the subbands of a node drops out of the scattering, which sees only eps_{v,p} - eps_{v',p'}
    // at one node (kernels::gain_loss).
    std::vector<double> eps(nx * nvp), overlaps(nx * nvp * nvp);
    for (int i = 0; i < nx; ++i)
      for (int a = 0; a < nvp; ++a) {
        eps[i * nvp + a] = eps0[a] - F * i * g.dx;
        for (int b = 0; b < nvp; ++b) overlaps[(i * nvp + a) * nvp + b] = well_overlap(a % nsbn, b % nsbn) * kScales.length_z * 1e-9;
      }
    engine->upload_block(eps, overlaps, std::vector<double>(2 * nvp, 1.0));  // contacts unused (periodic)
    // The step of section 4.5 with CFL 0.6: dt = 0.6 / (A1 / dx + A2 / dw + A3 / dphi).
    double a1 = 0, a3 = 0;
    for (int v = 0; v < 3; ++v)
      for (int l = 0; l < g.nw; ++l)
        for (int m = 0; m < g.nphi; ++m) {
          a1 = std::max(a1, std::abs(kernels::velocity_x(setup.valleys[v], (l + 0.5) * dw, m * g.dphi)));
          a3 = std::max(a3, std::abs(F * kernels::angle_rate(setup.valleys[v], (l + 0.5) * dw, m * g.dphi)));
        }
    dt = 0.6 / (a1 / g.dx + std::abs(F) * a1 / dw + a3 / g.dphi);
  }
  const kernels::PhaseGrid& grid() const { return setup.grid; }
  // Phi_{v,p}(x_i, w_l, phi_m) = f(v, p, w_l, phi_m) at every node.
  template <class F>
  void set(F&& f) {
    const auto& g = grid();
    std::vector<double> phi(3L * g.nsbn * g.nx * g.nw * g.nphi);
    for (int v = 0; v < 3; ++v)
      for (int p = 0; p < g.nsbn; ++p)
        for (int i = 0; i < g.nx; ++i)
          for (int l = 0; l < g.nw; ++l)
            for (int m = 0; m < g.nphi; ++m) phi[kernels::phase_index(g, v, p, i, l, m)] = f(v, p, (l + 0.5) * g.dw, m * g.dphi);
    engine->upload_distribution(phi);
  }
  void maxwellian() {
    set([&](int v, int p, double w, double) { return kernels::kane_jacobian(setup.valleys[v], w) * std::exp(-w - eps0[v * grid().nsbn + p]); });
  }
  // One third-order TVD Runge-Kutta step (Shu-Osher), through the engine.
  void step() {
    auto& e = *engine;
    e.save_step_start();
    e.evaluate_rhs();
    e.combine(1, 0, dt);
    e.evaluate_rhs();
    e.combine(0.75, 0.25, 0.25 * dt);
    e.evaluate_rhs();
    e.combine(1.0 / 3, 2.0 / 3, 2.0 / 3 * dt);
    time += dt;
    ++steps;
  }
  void run_until(double t) {
    while (time < t) step();
  }
  // The moments per subband (v, p), averaged over the nodes, and their totals.
  struct Summary {
    std::vector<double> rho, current, energy;
    double total_rho = 0, total_current = 0, total_energy = 0;
    double top = 0;  // the fraction of the particles in the last energy cell
    double velocity() const { return total_current / total_rho; }
    double mean_energy() const { return total_energy / total_rho; }
  };
  Summary summary() {
    const auto& g = grid();
    const auto m = engine->moments();
    const int nvp = 3 * g.nsbn;
    Summary s;
    s.rho.assign(nvp, 0.0);
    s.current.assign(nvp, 0.0);
    s.energy.assign(nvp, 0.0);
    for (int a = 0; a < nvp; ++a) {
      for (int i = 0; i < g.nx; ++i) {
        s.rho[a] += m.rho[a * g.nx + i] / g.nx;
        s.current[a] += m.current[a * g.nx + i] / g.nx;
        s.energy[a] += m.energy[a * g.nx + i] / g.nx;
        s.top += m.top[a * g.nx + i] * g.dw / g.nx;
      }
      s.total_rho += s.rho[a];
      s.total_current += s.current[a];
      s.total_energy += s.energy[a];
    }
    s.top /= s.total_rho;
    return s;
  }
  // dw dphi sum |Phi - its angular mean| over every (v, p, l), averaged over the nodes.
  double anisotropy() {
    const auto& g = grid();
    const auto phi = engine->download_distribution();
    double sum = 0;
    for (std::size_t k = 0; k < phi.size(); k += g.nphi) {
      double mean = 0;
      for (int m = 0; m < g.nphi; ++m) mean += phi[k + m] / g.nphi;
      for (int m = 0; m < g.nphi; ++m) sum += std::abs(phi[k + m] - mean);
    }
    return sum * g.dw * g.dphi / g.nx;
  }
};

// ---------------------------------------------------------------------------------------------------------
// No force: everything starts in subband 0 of valley 0 (1.7 k_B T above the lowest), with a Gaussian energy
// profile around 3 k_B T and the anisotropy 1 + 0.6 cos phi + 0.3 sin 2 phi, and relaxes to the Maxwellian of
// section 3.7. Two subbands per valley (eps = 1.714, 8.094; 1.714, 8.094; 0, 1.237 k_B T); dw = 0.25, w_max = 16,
// 8 angles (without force nothing moves along phi); 25 t* = 7.4 ps.
TEST(HomogeneousFilm, RelaxesToTheMaxwellianWithoutForce) {
  const auto t0 = std::chrono::steady_clock::now();
  const int nsbn = 2, nvp = 3 * nsbn;
  Film f(nsbn, 0.25, 16, 8, 0.0, RateConvention::GoldenRule);
  const auto& g = f.grid();
  const auto bump = [&](double w) { return kernels::kane_jacobian(f.setup.valleys[0], w) * std::exp(-0.5 * (w - 3) * (w - 3)); };
  const auto shape = [](double phi) { return 0.6 * std::cos(phi) + 0.3 * std::sin(2 * phi); };
  f.set([&](int v, int p, double w, double phi) { return v == 0 && p == 0 ? bump(w) * (1 + shape(phi)) : 0.0; });
  const auto start = f.summary();
  const double anisotropy0 = f.anisotropy();

  // (c) Without force the transport terms vanish and the gain is isotropic, so the deviation of each cell from
  // its angular mean decays by exactly the RK3 factor r(z) = 1 - z + z^2/2 - z^3/6, z = Lambda(w_l) dt, per step:
  // the engine's anisotropy after n steps is predicted from the reference loss rate cell by cell. Rounding
  // only (relative 1e-9 asked; measured 3e-13); it fails if the loss rate of any cell or the isotropy of the
  // gain is wrong.
  const LossRate loss(nsbn, RateConvention::GoldenRule);
  f.run_until(3.0);
  double mean_shape = 0, deviation = 0, predicted = 0, fastest = 0;
  for (int m = 0; m < g.nphi; ++m) mean_shape += shape(m * g.dphi) / g.nphi;
  for (int m = 0; m < g.nphi; ++m) deviation += std::abs(shape(m * g.dphi) - mean_shape);
  for (int l = 0; l < g.nw; ++l) {
    const double w = (l + 0.5) * g.dw, z = loss(0, 0, w) * f.dt;
    fastest = std::max(fastest, z);
    predicted += bump(w) * deviation * std::pow(std::abs(1 - z + z * z / 2 - z * z * z / 6), f.steps) * g.dw * g.dphi;
  }
  const double anisotropy = f.anisotropy();
  std::printf("anisotropy %.6e -> %.6e after %d steps (t = %.2f t*), predicted %.6e (difference %.1e)\n", anisotropy0, anisotropy, f.steps,
              f.time, predicted, anisotropy / predicted - 1);
  EXPECT_NEAR(anisotropy, predicted, 1e-9 * predicted);
  EXPECT_LT(anisotropy, 1e-2 * anisotropy0);
  std::printf("largest Lambda dt %.3f\n", fastest);
  EXPECT_LT(fastest, 2.5);  // the scattering stays inside RK3's real stability interval (it does not enter dt)

  // Stationary: the Maxwellian's populations rho_{v,p} ~ sqrt(m_x m_y) (1 + 2 alpha) e^{-eps} (section 3.7; alpha
  // is common, and on the grid the factor of s(w) e^{-w} is common too, so the discrete ratios are exactly these).
  f.run_until(24.0);
  const auto before = f.summary();
  f.run_until(25.0);
  const auto end = f.summary();
  double mb_total = 0;
  std::vector<double> mb(nvp);
  for (int a = 0; a < nvp; ++a) mb_total += mb[a] = std::sqrt(f.setup.valleys[a / nsbn].mx * f.setup.valleys[a / nsbn].my) * std::exp(-f.eps0[a]);
  for (int a = 0; a < nvp; ++a) {
    const double fraction = end.rho[a] / end.total_rho, expected = mb[a] / mb_total;
    std::printf("subband %d,%d: population %.6e, Maxwell-Boltzmann %.6e (%+.2e)\n", a / nsbn, a % nsbn, fraction, expected, fraction / expected - 1);
    // (b) The discrete operator is in detailed balance only up to its interpolation error, which the stationary
    // populations keep (measured after 40 t*: +0.26%, +0.26%, -0.27%, +0.21% for the four populated subbands,
    // +2.5% for the two at 8.1 k_B T, 3e-4 of the particles); the slowest population mode decays at 0.37 / t*.
    // Measured at 25 t*: +0.37%, +0.34%, -0.44%, +0.50%, and +2.7%. Started at 0 or 1, errors of order 1 to
    // 1e3. Tolerances 1% and 5%.
    EXPECT_NEAR(fraction, expected, (expected > 1e-2 ? 0.01 : 0.05) * expected) << "subband " << a / nsbn << "," << a % nsbn;
  }
  // (d) The mean kinetic energy: (1 + 4 alpha) / (1 + 2 alpha) = 1.02520 k_B T (section 5.1), 1.03027 for the
  // Maxwellian sampled at the cell centres (midpoint rule, dw = 0.25). The engine's stationary state sits 0.36%
  // above the latter (interpolation); measured 1.03483 (+0.44%) at 25 t*, from 3.03. 1% from the grid's value,
  // 2% from the continuous one.
  const double alpha = f.setup.valleys[0].alpha;
  double sum_w = 0, sum = 0;
  for (int l = 0; l < g.nw; ++l) {
    const double w = (l + 0.5) * g.dw;
    sum_w += w * (1 + 2 * alpha * w) * std::exp(-w);
    sum += (1 + 2 * alpha * w) * std::exp(-w);
  }
  std::printf("mean kinetic energy %.5f -> %.5f k_B T; Maxwellian %.5f, on the grid %.5f\n", start.mean_energy(), end.mean_energy(),
              (1 + 4 * alpha) / (1 + 2 * alpha), sum_w / sum);
  EXPECT_NEAR(end.mean_energy(), sum_w / sum, 0.01 * sum_w / sum);
  EXPECT_NEAR(end.mean_energy(), (1 + 4 * alpha) / (1 + 2 * alpha), 0.02 * (1 + 4 * alpha) / (1 + 2 * alpha));
  EXPECT_LT(std::abs(end.velocity()), 1e-12);  // no force, no current
  // (a) Particles: the scheme of section 3.6 is not conservative (the gain is interpolated; the loss has its
  // thresholds in closed form). Section 7.3 measured a defect of 1.8e-4 / t* for the Maxwellian with the seed's
  // constants at dw = 0.122; golden-rule rates are 2 pi faster, and the defect grows as dw^2, so about
  // 2 pi (0.25 / 0.122)^2 1.8e-4 = 4.7e-3 / t* here. Measured: 3.7e-3 / t* at the end, and +16.5% over the
  // 25 t*, most of it while the distribution is hot (the loss's thresholds then cut where Pi is large). Bounds
  // 5e-3 / t* and 20%; a leak through the boundaries of w or phi, or along x, would show on top of it.
  const double rate = std::log(end.total_rho / before.total_rho) / (f.time - 24.0);
  std::printf("particles %.6e -> %.6e (%+.2f%%), stationary rate %+.2e / t*\n", start.total_rho, end.total_rho,
              100 * (end.total_rho / start.total_rho - 1), rate);
  EXPECT_LT(std::abs(rate), 5e-3);
  EXPECT_LT(std::abs(end.total_rho / start.total_rho - 1), 0.2);
  std::printf("relaxation: %.1f s\n", seconds_since(t0));
}

// ---------------------------------------------------------------------------------------------------------
// The low-field mobility. The exact value of the linearised equation (exact_mobility, fine quadrature split at
// every threshold of the loss rate) against the engine's steady drift velocity at F = 0.02 (E = 258 V/cm),
// started from the Maxwellian and run 8 t* (the response settles at about 1 / t*). Two subbands per valley.
TEST(HomogeneousFilm, LowFieldMobilityMatchesTheLinearisedEquation) {
  const auto t0 = std::chrono::steady_clock::now();
  // The reference's loss rate against section 7.3 (lowest subband of valley 2, six subbands, w = 1.039 on the
  // seed's grid, f-LA at 500 K): 3.17e12 / s by the golden rule, 5.05e11 / s with the seed's constants; 1%, the
  // digits given there.
  PhononParameters seed_code;
  seed_code.theta[4] = 500;
  const double w_ref = 8.5 * (15 * 0.063 / kScales.kT_eV()) / 299;
  EXPECT_NEAR(LossRate(6, RateConvention::GoldenRule, seed_code)(2, 0, w_ref) / kScales.time(), 3.17e12, 0.01 * 3.17e12);
  EXPECT_NEAR(LossRate(6, RateConvention::SeedCode, seed_code)(2, 0, w_ref) / kScales.time(), 5.05e11, 0.01 * 5.05e11);

  const int nsbn = 2;
  const double exact = exact_mobility(LossRate(nsbn, RateConvention::GoldenRule));
  const double exact_seed = exact_mobility(LossRate(nsbn, RateConvention::SeedCode));
  const double exact6 = exact_mobility(LossRate(6, RateConvention::GoldenRule));
  std::printf("exact low-field mobility, 2 subbands: %.1f cm^2/Vs (golden rule), %.1f cm^2/Vs (seed's constants); 6 subbands: %.1f cm^2/Vs\n",
              to_cm2_per_Vs(exact), to_cm2_per_Vs(exact_seed), to_cm2_per_Vs(exact6));
  // Every rate scales by 1 / (2 pi), so the linear response by 2 pi.
  EXPECT_NEAR(exact_seed / exact, 2 * kPi, 1e-9);
  // For information (section 7.5): phonon-limited electron mobility in Si inversion layers and 5-10 nm
  // double-gate films at 300 K, about 400-700 cm^2/Vs (Takagi et al., IEEE TED 41, 2357 (1994); Gamiz &
  // Fischetti, J. Appl. Phys. 89, 5478 (2001)); bulk Si with the same phonon set about 1400-1450 cm^2/Vs.
  // The model's film has no roughness or Coulomb scattering: its golden-rule value (1495 with 2, 1427 cm^2/Vs
  // with 6 subbands) is near the bulk one, above the universal curve, as section 7.5 expects; the seed's
  // constants give 6.3 times that, above any silicon value. Loose bounds on the reference itself, around the
  // bulk value: a slip in its units or a lost 2 pi would leave them.
  EXPECT_GT(to_cm2_per_Vs(exact), 1000);
  EXPECT_LT(to_cm2_per_Vs(exact), 2000);

  const double F = 0.02;
  struct Run {
    double dw;
    int nphi;
    double v_over_F = 0, drift = 0;
  };
  Run runs[2] = {{0.25, 8}, {0.125, 12}};
  std::vector<double> coarse_state;
  for (auto& r : runs) {
    Film f(nsbn, r.dw, 16, r.nphi, F, RateConvention::GoldenRule);
    f.maxwellian();
    f.run_until(7.0);
    const double before = f.summary().velocity() / F;
    f.run_until(8.0);
    r.v_over_F = f.summary().velocity() / F;
    r.drift = r.v_over_F / before - 1;
    if (&r == &runs[0]) coarse_state = f.engine->download_distribution();
    std::printf("engine, dw = %.3f, %d angles: %.1f cm^2/Vs (%+.2f%% from exact; %+.1e in the last t*)\n", r.dw, r.nphi, to_cm2_per_Vs(r.v_over_F),
                100 * (r.v_over_F / exact - 1), r.drift);
    EXPECT_GT(r.v_over_F, 0.0);         // electrons move along the force
    EXPECT_LT(std::abs(r.drift), 1e-3);  // steady: measured +5e-4 in the last t*
  }
  // The engine's error is first order in dw: measured +7.6% at dw = 0.25 with 8 angles, +3.5% at dw = 0.125 with
  // 12 (+3.1% with 8; at dw = 0.25, 16 or 32 angles differ by 0.02%). The drift terms are not smooth at w = 0,
  // where a^3 grows as w^{-1/2} and a^2 Phi as w^{1/2}: in the first energy cell the discrete drift of the
  // Maxwellian is 3 to 5 times the exact one, which weighs about dw in the current. The error must shrink (to
  // at most 0.6 of the coarse one; first order gives 0.5) and be below 4.5% on the finer grid.
  const double coarse = runs[0].v_over_F / exact - 1, fine = runs[1].v_over_F / exact - 1;
  EXPECT_LT(std::abs(fine), 0.6 * std::abs(coarse));
  EXPECT_LT(std::abs(fine), 0.045);

  // The seed's constants are 1 / (2 pi) of the golden rule's (test_mosfet_phonon_scattering), so at F / (2 pi) the
  // equation is the golden-rule one with time stretched by 2 pi: the same steady state, mobility 2 pi larger.
  // From the golden-rule steady state (coarse grid), 2 t* under the seed's constants must leave it in place
  // (measured 2 pi x 0.9988; 0.5%). The same holds at every field: v_seed(E) = v_golden(2 pi E).
  Film seed(nsbn, runs[0].dw, 16, runs[0].nphi, F / (2 * kPi), RateConvention::SeedCode);
  seed.engine->upload_distribution(coarse_state);
  seed.run_until(2.0);
  const double seed_v_over_F = seed.summary().velocity() / (F / (2 * kPi));
  std::printf("engine, seed's constants, dw = %.3f: %.1f cm^2/Vs, %.4f times the golden rule's\n", runs[0].dw, to_cm2_per_Vs(seed_v_over_F),
              seed_v_over_F / runs[0].v_over_F);
  EXPECT_NEAR(seed_v_over_F / runs[0].v_over_F, 2 * kPi, 0.005 * 2 * kPi);
  std::printf("low-field mobility: %.1f s\n", seconds_since(t0));
}

// ---------------------------------------------------------------------------------------------------------
// High fields: the steady drift velocity at 5e4 V/cm (from the Maxwellian, 3.5 t*), then at 1e5 V/cm (from that
// state, 3 t*). Three subbands per valley (the hot electrons need the third); dw = 1 (the distribution spans
// tens of k_B T), w_max = 80, 8 angles.
TEST(HomogeneousFilm, DriftVelocitySaturates) {
  const auto t0 = std::chrono::steady_clock::now();
  const int nsbn = 3;
  const double fields[2] = {5e4, 1e5}, durations[2] = {3.5, 3.0};
  double v[2] = {}, energy[2] = {};
  std::vector<double> state;
  for (int k = 0; k < 2; ++k) {
    Film f(nsbn, 1.0, 80, 8, force_of(fields[k]), RateConvention::GoldenRule);
    if (k == 0)
      f.maxwellian();
    else
      f.engine->upload_distribution(state);
    f.run_until(durations[k] - 0.5);
    const double before = f.summary().velocity();
    f.run_until(durations[k]);
    const auto s = f.summary();
    v[k] = cm_per_s(s.velocity());
    energy[k] = s.mean_energy();
    state = f.engine->download_distribution();
    std::printf("E = %.0e V/cm (F = %.3f): v = %.4e cm/s (%+.2f%% in the last 0.5 t*), mean kinetic energy %.2f k_B T, last energy cell %.1e\n",
                fields[k], force_of(fields[k]), v[k], 100 * (s.velocity() / before - 1), energy[k], s.top);
    // Steady to a few percent: the velocity overshoots and then settles with the energy (measured -0.9% and -1.2%
    // in the last 0.5 t*; 3%).
    EXPECT_LT(std::abs(s.velocity() / before - 1), 0.03);
    // w_max large enough: measured 1e-7 and 2.2e-4 of the particles in the last cell (w = 79.5 k_B T); 1e-3.
    EXPECT_LT(s.top, 1e-3);
  }
  // The saturation velocity of silicon electrons at 300 K is about 1e7 cm/s (Canali et al., IEEE TED 22, 1045
  // (1975): 1.07e7 cm/s; Jacoboni & Reggiani 1983); section 7.5 expects 0.8-1.1e7 from this 2-D model.
  // Measured: 1.02e7 cm/s at 5e4 and 1.00e7 at 1e5 V/cm (with six subbands 1.02e7 and 1.01e7, mean energy
  // 12 k_B T at 1e5). The window 0.5-1.5e7 cm/s asks for the order of magnitude only, as the literature range
  // is indicative.
  EXPECT_GT(v[1], 0.5e7);
  EXPECT_LT(v[1], 1.5e7);
  // Saturation: doubling the field leaves the velocity where it was (measured ratio 0.977; 2 if linear), and at
  // 1e5 V/cm it is a small fraction (0.07) of the low-field mobility times the field (1430 cm^2/Vs x 1e5 V/cm).
  EXPECT_LT(v[1] / v[0], 1.3);
  EXPECT_GT(v[1] / v[0], 0.7);
  EXPECT_LT(v[1], 0.2 * to_cm2_per_Vs(exact_mobility(LossRate(nsbn, RateConvention::GoldenRule))) * fields[1]);
  EXPECT_GT(energy[1], energy[0]);  // hotter at the higher field
  std::printf("high fields: %.1f s\n", seconds_since(t0));
}

}  // namespace
}  // namespace quanta::mosfet
