// Homogeneous transport in a thin silicon film (docs/mosfet-transport-model.md, section 7.5): the scattering
// operator checked physically through the transport engine on the CPU. The film is a 6 nm infinite well
// (the toy case of section 7.3: subband energies hbar^2 pi^2 (p+1)^2 / (2 m_z t^2), overlaps 1/t and 3/(2t)),
// frozen, under a uniform force F along x (eps' = -F), x periodic, so the distribution stays uniform along x.
//   - Without force, a distribution far from equilibrium (one subband of valley 0, a non-Maxwellian energy
//     profile, anisotropic) relaxes to the Maxwellian with a common Fermi level: Maxwell-Boltzmann subband
//     populations, mean kinetic energy (1 + 4 alpha) / (1 + 2 alpha) k_B T, the anisotropy gone.
//   - The low-field mobility against the exact solution of the linearised equation of the same model, with
//     the loss rate written independently from the textbook golden-rule rates.
//   - The drift velocity saturates near 1e7 cm/s at 1e5 V/cm.
// Each RK3 step is the engine's own (save_step_start, evaluate_rhs, combine) with the CFL step of section 4.5.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <vector>

#include "../src/transport_engine.hpp"
#include "quanta/mosfet/transport.hpp"

namespace quanta::mosfet {
namespace {

constexpr double kPi = constants::pi;
constexpr double kFilm = 6e-9;  // m, the silicon film of the default device (L_z = 8 nm with the oxides)
const TransportScales kScales{300, 20, 8};

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Subband energies of the infinite well (k_B T), lowest at 0: [3][nsbn].
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
// The overlap int chi_p^2 chi_p'^2 dz of the infinite well, in 1/m.
double well_overlap(int p, int p2) { return (p == p2 ? 1.5 : 1.0) / kFilm; }

// ---------------------------------------------------------------------------------------------------------
// The reference: the loss rate Lambda_{v,p}(w) (1/t*) of section 3.3 written from the textbook 2-D rates in SI,
// 1/tau_ac = m_d kT Xi^2 W / (hbar^3 rho u_l^2) and 1/tau_iv = Z m_d (D_t K)^2 W (n + 1/2 -+ 1/2) / (2 rho hbar^2 omega)
// (m_d = m_e s(Gamma): the final state's density-of-states mass, Kane included; W the overlap in 1/m; Z = 2
// final valleys per other pair for f-type), and divided by 2 pi for the seed's code's constants.
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
  // The energies where a final state opens (Gamma = 0): the loss rate jumps there.
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

// int_0^top f(w) dw by Simpson's rule between consecutive breaks (f smooth in between), steps <= h.
template <class F>
double integrate(F&& f, const std::vector<double>& breaks, double h) {
  double sum = 0;
  for (std::size_t k = 0; k + 1 < breaks.size(); ++k) {
    const double a = breaks[k], b = breaks[k + 1];
    if (b - a < 1e-14) continue;
    const int n = 2 * static_cast<int>(std::ceil((b - a) / (2 * h)));
    const double step = (b - a) / n;
    double s = f(a) + f(b);
    for (int i = 1; i < n; ++i) s += (i % 2 ? 4 : 2) * f(a + i * step);
    sum += s * step / 3;
  }
  return sum;
}

// The low-field response of the linearised equation. With eps' = -F, the drift terms applied to the
// Maxwellian Phi0 = A s(w) e^{-w-eps} give -d(a^2 Phi0)/dw - d(a^3 Phi0)/dphi = +F a^1 Phi0 (R' = (1 + 2 alpha w) / R);
// the response Phi1 is odd in phi, so the (isotropic) gain does not see it and 0 = F a^1 Phi0 - Lambda Phi1:
// Phi1 = F a^1 Phi0 / Lambda, and
//   v / F = sum_{v,p} int int (a^1)^2 Phi0 / Lambda dw dphi / sum_{v,p} int int Phi0 dw dphi,
// with int cos^2 dphi = pi and int s e^{-w} dw = sqrt(m_x m_y) (1 + 2 alpha). Positive: electrons move along the force.
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

// v / F (dimensionless) to a mobility in cm^2/Vs: v in v* = sqrt(k_B T / m_e), E = F k_B T / (q L_x).
double to_cm2_per_Vs(double v_over_F) {
  const double kT = constants::kB * kScales.temperature;
  return v_over_F * std::sqrt(kT / constants::electron_mass) * kScales.length_x * 1e-9 / (kT / constants::eV) * 1e4;
}
// A field in V/cm to the dimensionless force, and a dimensionless velocity to cm/s.
double force_of(double field_V_per_cm) { return field_V_per_cm * 1e2 * kScales.length_x * 1e-9 / kScales.kT_eV(); }
double cm_per_s(double v) { return v * std::sqrt(constants::kB * kScales.temperature / constants::electron_mass) * 1e2; }

// ---------------------------------------------------------------------------------------------------------
// The film in the engine: nx = 2 periodic nodes (the distribution stays uniform along x; two nodes are the
// fewest for which the engine's eps' is defined), w cells of width dw up to w_max, nphi angles.
struct Film {
  TransportSetup setup;
  std::vector<double> eps0;
  std::unique_ptr<TransportEngine> engine;
  double force, dt = 0, time = 0;
  Film(int nsbn, double dw, double w_max, int nphi, double F, RateConvention rates) : eps0(well_energies(nsbn)), force(F) {
    const int nx = 2;
    const auto valleys = Materials{}.valleys;
    auto& g = setup.grid;
    g = {nsbn, nx, static_cast<int>(std::lround(w_max / dw)), nphi, 1.0 / nx, dw, 2 * kPi / nphi};
    for (int v = 0; v < 3; ++v) setup.valleys[v] = kane_valley(valleys[v], kScales);
    setup.scattering = make_phonon_scattering(PhononParameters{}, valleys, kScales, rates);
    setup.periodic_x = true;
    engine = make_cpu_transport_engine(setup);
    // eps_{v,p}(x_i) = eps_{v,p} - F x_i: every difference (centred inside, one-sided at the ends) is -F, and the
    // offset common to all subbands of a node drops out of the scattering, which only sees eps differences
    // at one node (kernels::gain_loss: w + eps_{v,p} - eps_{v',p'}).
    const int nvp = 3 * nsbn;
    std::vector<double> eps(nx * nvp), overlaps(nx * nvp * nvp);
    for (int i = 0; i < nx; ++i)
      for (int a = 0; a < nvp; ++a) {
        eps[i * nvp + a] = eps0[a] - F * i * g.dx;
        for (int b = 0; b < nvp; ++b) overlaps[(i * nvp + a) * nvp + b] = well_overlap(a % nsbn, b % nsbn) * kScales.length_z * 1e-9;
      }
    engine->upload_block(eps, overlaps, std::vector<double>(2 * nvp, 1.0));
    // The CFL step of section 4.5 (CFL 0.6): dt = 0.6 / (A1 / dx + A2 / dw + A3 / dphi).
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
  // Phi_{v,p}(i, l, m) = f(v, p, w_l, phi_m), the same at every node.
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
    time = 0;
  }
  void maxwellian() {
    set([&](int v, int p, double w, double) { return kernels::kane_jacobian(setup.valleys[v], w) * std::exp(-w - eps0[v * grid().nsbn + p]); });
  }
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
  }
  void run_until(double t) {
    while (time < t) step();
  }
  // Per subband (v, p), summed over the nodes and divided by nx: rho, j, energy; and totals.
  struct Summary {
    std::vector<double> rho, current, energy;
    double total_rho = 0, total_current = 0, total_energy = 0, top = 0;
    double velocity() const { return total_current / total_rho; }
    double mean_energy() const { return total_energy / total_rho; }
  };
  Summary summary() {
    const auto& g = grid();
    const auto m = engine->moments();
    Summary s;
    const int nvp = 3 * g.nsbn;
    s.rho.assign(nvp, 0.0);
    s.current.assign(nvp, 0.0);
    s.energy.assign(nvp, 0.0);
    for (int a = 0; a < nvp; ++a)
      for (int i = 0; i < g.nx; ++i) {
        s.rho[a] += m.rho[a * g.nx + i] / g.nx;
        s.current[a] += m.current[a * g.nx + i] / g.nx;
        s.energy[a] += m.energy[a * g.nx + i] / g.nx;
        s.top += m.top[a * g.nx + i] / g.nx;
      }
    for (int a = 0; a < nvp; ++a) {
      s.total_rho += s.rho[a];
      s.total_current += s.current[a];
      s.total_energy += s.energy[a];
    }
    s.top /= s.total_rho;
    return s;
  }
};

TEST(Homogeneous, Explore) {
  const char* e = std::getenv("EXPLORE");
  if (!e) GTEST_SKIP();
  double F = 7.7, dw = 0.6, wmax = 60, T = 5;
  int nphi = 12, nsbn = 2;
  std::sscanf(e, "%lf %lf %lf %d %d %lf", &F, &dw, &wmax, &nphi, &nsbn, &T);
  Film f(nsbn, dw, wmax, nphi, F, RateConvention::GoldenRule);
  f.maxwellian();
  const auto t0 = std::chrono::steady_clock::now();
  while (f.time < T) {
    f.run_until(f.time + 0.5);
    const auto s = f.summary();
    std::printf("F %.3g t %.3f dt %.4g rho %.8e v %.8e (%.4e cm/s) <w> %.5f top %.3e  (%.2f s)\n", F, f.time, f.dt, s.total_rho, s.velocity(),
                cm_per_s(s.velocity()), s.mean_energy(), s.top, seconds_since(t0));
  }
}

TEST(Homogeneous, ExploreLow) {
  const char* e = std::getenv("EXPLORE_LOW");
  if (!e) GTEST_SKIP();
  double F = 0.05, dw = 0.25, wmax = 20, T = 8;
  int nphi = 16, nsbn = 2;
  std::sscanf(e, "%lf %lf %lf %d %d %lf", &F, &dw, &wmax, &nphi, &nsbn, &T);
  const LossRate loss(nsbn, RateConvention::GoldenRule);
  const double exact = exact_mobility(loss);
  // midpoint on the grid
  Film f(nsbn, dw, wmax, nphi, F, RateConvention::GoldenRule);
  double cur = 0, den = 0;
  for (int v = 0; v < 3; ++v)
    for (int p = 0; p < nsbn; ++p)
      for (int l = 0; l < f.grid().nw; ++l) {
        const double w = (l + 0.5) * dw;
        const auto& kv = loss.valleys[v];
        const double wt = std::exp(-loss.eps[v * nsbn + p]), r2 = 2 * w * (1 + kv.alpha * w), d = 1 + 2 * kv.alpha * w;
        cur += wt * kPi * r2 / (kv.mx * d * d) * loss.dos(v, w) * std::exp(-w) / loss(v, p, w);
        den += wt * 2 * kPi * loss.dos(v, w) * std::exp(-w);
      }
  std::printf("exact %.6f midpoint %.6f (%.4f)\n", exact, cur / den, cur / den / exact - 1);
  f.maxwellian();
  const auto t0 = std::chrono::steady_clock::now();
  while (f.time < T) {
    f.run_until(f.time + 1);
    const auto s = f.summary();
    std::printf("t %.3f dt %.4g rho %.8e v/F %.8f (%.5f vs exact) <w> %.5f  (%.2f s)\n", f.time, f.dt, s.total_rho, s.velocity() / F,
                s.velocity() / F / exact - 1, s.mean_energy(), seconds_since(t0));
  }
}

TEST(Homogeneous, ExploreDrift) {
  const char* e = std::getenv("EXPLORE_DRIFT");
  if (!e) GTEST_SKIP();
  double F = 0.05, dw = 0.25, wmax = 20;
  int nphi = 16, nsbn = 2;
  std::sscanf(e, "%lf %lf %lf %d %d", &F, &dw, &wmax, &nphi, &nsbn);
  const LossRate loss(nsbn, RateConvention::GoldenRule);
  Film f(nsbn, dw, wmax, nphi, F, RateConvention::GoldenRule), f0(nsbn, dw, wmax, nphi, 0.0, RateConvention::GoldenRule);
  f.maxwellian();
  f0.maxwellian();
  f.engine->evaluate_rhs();
  f0.engine->evaluate_rhs();
  const auto r = f.engine->download_rhs(), r0 = f0.engine->download_rhs();
  const auto& g = f.grid();
  double jd = 0, je = 0, rho = 0;
  for (int v = 0; v < 3; ++v)
    for (int p = 0; p < nsbn; ++p)
      for (int l = 0; l < g.nw; ++l) {
        const double w = (l + 0.5) * dw;
        const double phi0 = kernels::kane_jacobian(f.setup.valleys[v], w) * std::exp(-w - f.eps0[v * nsbn + p]);
        double cl = 0, ce = 0, maxerr = 0, maxd = 0;
        for (int m = 0; m < nphi; ++m) {
          const long k = kernels::phase_index(g, v, p, 0, l, m);
          const double a1 = kernels::velocity_x(f.setup.valleys[v], w, m * g.dphi);
          const double d = r[k] - r0[k], ex = F * a1 * phi0;
          cl += a1 * d / loss(v, p, w);
          ce += a1 * ex / loss(v, p, w);
          maxerr = std::max(maxerr, std::abs(d - ex));
          maxd = std::max(maxd, std::abs(ex));
          rho += phi0;
        }
        jd += cl;
        je += ce;
        if (v == 2 && p == 0 && l < 8) std::printf("l %d: max|D - exact| / max|exact| %.4f, j part ratio %.4f\n", l, maxerr / maxd, cl / ce);
      }
  std::printf("current from discrete drift / exact drift: %.5f ; v/F discrete %.6f exact-midpoint %.6f\n", jd / je, jd / rho / F, je / rho / F);
}

TEST(Homogeneous, ExploreRelax) {
  const char* e = std::getenv("EXPLORE_RELAX");
  if (!e) GTEST_SKIP();
  double dw = 0.25, wmax = 25, T = 15;
  int nphi = 8, nsbn = 2;
  std::sscanf(e, "%lf %lf %d %d %lf", &dw, &wmax, &nphi, &nsbn, &T);
  Film f(nsbn, dw, wmax, nphi, 0.0, RateConvention::GoldenRule);
  f.set([&](int v, int p, double w, double phi) {
    return v == 0 && p == 0 ? kernels::kane_jacobian(f.setup.valleys[0], w) * std::exp(-0.5 * (w - 3) * (w - 3)) * (1 + 0.6 * std::cos(phi) + 0.3 * std::sin(2 * phi)) : 0.0;
  });
  const auto& g = f.grid();
  const int nvp = 3 * nsbn;
  std::vector<double> mb(nvp);
  double mbsum = 0;
  for (int a = 0; a < nvp; ++a) mbsum += (mb[a] = std::sqrt(f.setup.valleys[a / nsbn].mx * f.setup.valleys[a / nsbn].my) * std::exp(-f.eps0[a]));
  double num = 0, den = 0;
  for (int l = 0; l < g.nw; ++l) {
    const double w = (l + 0.5) * dw, sw = (1 + 2 * f.setup.valleys[0].alpha * w) * std::exp(-w);
    num += w * sw;
    den += sw;
  }
  const double a = f.setup.valleys[0].alpha;
  std::printf("discrete <w> %.6f, continuous %.6f\n", num / den, (1 + 4 * a) / (1 + 2 * a));
  const auto anis = [&]() {
    const auto phi = f.engine->download_distribution();
    double s = 0;
    for (long k = 0; k < static_cast<long>(phi.size()); k += g.nphi) {
      double mean = 0;
      for (int m = 0; m < g.nphi; ++m) mean += phi[k + m] / g.nphi;
      for (int m = 0; m < g.nphi; ++m) s += std::abs(phi[k + m] - mean);
    }
    return s * dw * g.dphi / g.nx;
  };
  auto s0 = f.summary();
  std::printf("t 0 rho %.8e anis %.4e <w> %.5f\n", s0.total_rho, anis(), s0.mean_energy());
  const auto t0 = std::chrono::steady_clock::now();
  while (f.time < T) {
    f.run_until(f.time + 1);
    const auto s = f.summary();
    double worst = 0;
    for (int k = 0; k < nvp; ++k) worst = std::max(worst, std::abs(s.rho[k] / s.total_rho / (mb[k] / mbsum) - 1) * std::min(1.0, mb[k] / mbsum / 1e-3));
    std::printf("t %.3f dt %.4g rho %.8e pop err %.3e anis %.3e <w> %.6f j %.2e (%.2f s)\n", f.time, f.dt, s.total_rho, worst, anis(), s.mean_energy(),
                s.total_current, seconds_since(t0));
  }
  const auto s = f.summary();
  for (int k = 0; k < nvp; ++k) std::printf("  %d: %.6e vs %.6e (%.2e)\n", k, s.rho[k] / s.total_rho, mb[k] / mbsum, s.rho[k] / s.total_rho / (mb[k] / mbsum) - 1);
}

TEST(Homogeneous, Reference) {
  // The reference loss rate against section 7.3: lowest subband of valley 2, six subbands, w = 1.039, the seed's
  // code's f-LA phonon (500 K): 3.17e12 / s by the golden rule, 5.05e11 / s with the seed's code's constants.
  PhononParameters seed;
  seed.theta[4] = 500;
  const LossRate gr(6, RateConvention::GoldenRule, seed), sc(6, RateConvention::SeedCode, seed);
  const double w = 8.5 * (15 * 0.063 / kScales.kT_eV()) / 299;
  std::printf("w %.4f: %.4e /s, %.4e /s\n", w, gr(2, 0, w) / kScales.time(), sc(2, 0, w) / kScales.time());
  for (int nsbn : {2, 3, 6}) {
    const double a = exact_mobility(LossRate(nsbn, RateConvention::GoldenRule)), b = exact_mobility(LossRate(nsbn, RateConvention::SeedCode));
    std::printf("nsbn %d: v/F %.6f -> %.1f cm2/Vs (golden rule), %.1f cm2/Vs (seed code), ratio %.6f\n", nsbn, a, to_cm2_per_Vs(a), to_cm2_per_Vs(b),
                b / a);
  }
}

}  // namespace
}  // namespace quanta::mosfet
