// Surface-roughness scattering (kernels/roughness.hpp, quanta/mosfet/roughness.hpp) checked against what does
// not come from its own code:
//   - the angular kernel against (1 + |k - k'|^2 L^2 / 2)^(-3/2) from the Cartesian wave vectors;
//   - the term keeps every (v, p, x, w) shell's particles (sum over angles 0 to round-off), and any angle-independent
//     distribution is a zero of it (so the equilibrium is untouched);
//   - the relaxation rate of a cos(phi) perturbation against the golden-rule momentum relaxation rate written
//     in SI and integrated by an independent quadrature;
//   - the form factors vanish for a zero displacement when the extended grid is the device's (the stretched
//     Poisson problem then reproduces the self-consistent potential), and converge as the extended grid is refined;
//   - the GPU's form factors and roughness term against the CPU's (skipped without a GPU);
//   - in the coupled simulation: the zero-bias equilibrium stays put, and the drain current falls.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "../kernels/roughness.hpp"
#include "../src/transport_engine.hpp"
#include "quanta/core/backend.hpp"
#include "quanta/core/error.hpp"
#include "quanta/mosfet/roughness.hpp"
#include "quanta/mosfet/simulation.hpp"
#include "test_support.hpp"

namespace quanta::mosfet {
namespace {

constexpr double kPi = 3.14159265358979323846;
const std::array<Valley, 3> kSilicon = {Valley{0.98, 0.19, 0.19, 0.5}, Valley{0.19, 0.98, 0.19, 0.5}, Valley{0.19, 0.19, 0.98, 0.5}};

double kstar(const TransportScales& sc) { return std::sqrt(constants::electron_mass * constants::kB * sc.temperature) / constants::hbar; }

TEST(Roughness, KernelIsTheSpectrumOfTheWaveVectorTransfer) {
  const TransportScales sc;
  const RoughnessOptions opt;
  kernels::PhaseGrid g{1, 2, 20, 16, 1.0, 0.45, 2 * kPi / 16};
  kernels::KaneValley val[3];
  for (int v = 0; v < 3; ++v) val[v] = kane_valley(kSilicon[v], sc);
  const std::vector<double> D = roughness_kernel_table(g, val, opt, sc);
  const double L = opt.length * 1e-9, ks = kstar(sc);
  double worst = 0;
  for (int v = 0; v < 3; ++v)
    for (int l = 0; l < g.nw; ++l)
      for (int m = 0; m < g.nphi; ++m)
        for (int m2 = 0; m2 < g.nphi; ++m2) {
          // k_x = k* sqrt(m_x) R cos phi, k_y = k* sqrt(m_y) R sin phi, R^2 = 2 w (1 + alpha w).
          const double w = (l + 0.5) * g.dw, R = std::sqrt(2 * w * (1 + val[v].alpha * w)), a = m * g.dphi, b = m2 * g.dphi;
          const double dkx = ks * std::sqrt(val[v].mx) * R * (std::cos(a) - std::cos(b)), dky = ks * std::sqrt(val[v].my) * R * (std::sin(a) - std::sin(b));
          const double expected = std::pow(1 + (dkx * dkx + dky * dky) * L * L / 2, -1.5);
          const double got = D[((static_cast<std::size_t>(v) * g.nw + l) * g.nphi + m) * g.nphi + m2];
          worst = std::max(worst, std::abs(got - expected));
          EXPECT_EQ(got, D[((static_cast<std::size_t>(v) * g.nw + l) * g.nphi + m2) * g.nphi + m]);  // exactly symmetric
        }
  std::printf("kernel against the Cartesian transfer: %.2e\n", worst);
  EXPECT_LT(worst, 1e-13);
}

// A small phase space with a random distribution and random form factors.
struct Shells {
  TransportSetup setup;
  std::vector<double> phi, form;
  explicit Shells(bool isotropic) {
    const TransportScales sc;
    auto& g = setup.grid;
    g = {2, 3, 10, 16, 0.5, 0.6, 2 * kPi / 16};
    for (int v = 0; v < 3; ++v) setup.valleys[v] = kane_valley(kSilicon[v], sc);
    const RoughnessOptions opt;
    setup.roughness_constant = roughness_rate_constant(opt, sc, RateConvention::GoldenRule);
    setup.roughness_kernel = roughness_kernel_table(g, setup.valleys, opt, sc);
    std::mt19937 rng(7);
    std::uniform_real_distribution<double> u(0.1, 1.0);
    phi.resize(static_cast<std::size_t>(3) * g.nsbn * g.nx * g.nw * g.nphi);
    for (std::size_t k = 0; k < phi.size(); k += g.nphi) {
      const double shell = u(rng);
      for (int m = 0; m < g.nphi; ++m) phi[k + m] = isotropic ? shell : u(rng);
    }
    form.resize(static_cast<std::size_t>(g.nx) * 3 * g.nsbn);
    for (double& f : form) f = u(rng);
  }
  std::vector<double> terms() const {
    const auto& g = setup.grid;
    std::vector<double> out(phi.size());
    const kernels::RoughnessInputs in{setup.roughness_constant, setup.roughness_kernel.data(), form.data()};
    for (int v = 0; v < 3; ++v)
      for (int p = 0; p < g.nsbn; ++p)
        for (int i = 0; i < g.nx; ++i)
          for (int l = 0; l < g.nw; ++l)
            for (int m = 0; m < g.nphi; ++m)
              out[kernels::phase_index(g, v, p, i, l, m)] = kernels::roughness_term(g, setup.valleys[v], in, phi.data(), v, p, i, l, m);
    return out;
  }
};

TEST(Roughness, TermKeepsEachShellsParticlesAndLeavesIsotropicStatesAlone) {
  const Shells random(false), isotropic(true);
  const auto t = random.terms(), z = isotropic.terms();
  const int nphi = random.setup.grid.nphi;
  double worst = 0, size = 0, iso = 0;
  for (std::size_t k = 0; k < t.size(); k += nphi) {
    double sum = 0, abs = 0;
    for (int m = 0; m < nphi; ++m) {
      sum += t[k + m];
      abs += std::abs(t[k + m]);
      iso = std::max(iso, std::abs(z[k + m]));
    }
    worst = std::max(worst, std::abs(sum) / abs);
    size = std::max(size, abs);
  }
  std::printf("shell sums / shell |terms|: %.2e; largest term on isotropic shells %.2e\n", worst, iso);
  EXPECT_GT(size, 0);
  EXPECT_LT(worst, 1e-13);  // the symmetric kernel: round-off of 16 terms
  EXPECT_EQ(iso, 0.0);      // Phi(m') - Phi(m) = 0 exactly
}

// Isotropic parabolic valley (m_x = m_y = 0.19, alpha = 0): Phi = cos(phi) in one shell decays at the momentum
// relaxation rate 1/tau_m = m F^2 L^2 / (2 hbar^3) int_0^2pi (1 - cos t) (1 + k^2 L^2 (1 - cos t))^(-3/2) dt,
// F = sqrt(I) k_B T the matrix element's potential shift (Fermi's golden rule with |M_q|^2 = F^2 pi L^2 (1 +
// q^2 L^2 / 2)^(-3/2), q^2 = 2 k^2 (1 - cos t)). The integral by Simpson's rule on 2e5 intervals; the operator's
// 48-angle sum is the periodic trapezoid rule, exact to round-off for this smooth integrand.
TEST(Roughness, CosineModeDecaysAtTheGoldenRuleMomentumRelaxationRate) {
  const TransportScales sc;
  const RoughnessOptions opt;
  const std::array<Valley, 3> iso = {Valley{0.19, 0.19, 0.98, 0.0}, Valley{0.19, 0.19, 0.98, 0.0}, Valley{0.19, 0.19, 0.98, 0.0}};
  TransportSetup s;
  auto& g = s.grid;
  g = {1, 1, 12, 48, 1.0, 0.5, 2 * kPi / 48};
  for (int v = 0; v < 3; ++v) s.valleys[v] = kane_valley(iso[v], sc);
  const std::vector<double> D = roughness_kernel_table(g, s.valleys, opt, sc);
  const double I = 0.37;  // (k_B T)^2
  const std::vector<double> form(3, I);
  for (RateConvention rc : {RateConvention::GoldenRule, RateConvention::SeedCode}) {
    const kernels::RoughnessInputs in{roughness_rate_constant(opt, sc, rc), D.data(), form.data()};
    for (int l : {0, 5, 11}) {
      std::vector<double> phi(static_cast<std::size_t>(3) * g.nw * g.nphi, 0.0);
      for (int m = 0; m < g.nphi; ++m) phi[kernels::phase_index(g, 0, 0, 0, l, m)] = std::cos(m * g.dphi);
      const double rate = -kernels::roughness_term(g, s.valleys[0], in, phi.data(), 0, 0, 0, l, 0) / sc.time();  // 1/s; cos(0) = 1
      // SI
      const double kT = constants::kB * sc.temperature, m = 0.19 * constants::electron_mass, E = (l + 0.5) * g.dw * kT;
      const double k2 = 2 * m * E / (constants::hbar * constants::hbar), L = opt.length * 1e-9, F = std::sqrt(I) * kT;
      const int n = 200000;
      double integral = 0;
      for (int q = 0; q <= n; ++q) {
        const double t = 2 * kPi * q / n, f = (1 - std::cos(t)) * std::pow(1 + k2 * L * L * (1 - std::cos(t)), -1.5);
        integral += f * (q == 0 || q == n ? 1 : (q % 2 ? 4 : 2));
      }
      integral *= 2 * kPi / n / 3;
      double expected = m * F * F * L * L / (2 * std::pow(constants::hbar, 3)) * integral;
      if (rc == RateConvention::SeedCode) expected /= 2 * kPi;
      std::printf("w = %.2f k_B T: 1/tau_m %.6e 1/s (golden rule %.6e)%s\n", (l + 0.5) * g.dw, rate, expected,
                  rc == RateConvention::SeedCode ? " seed's code" : "");
      EXPECT_NEAR(rate, expected, 1e-9 * expected);
      // and the mode stays a cosine: the term at every angle is -rate cos(phi)
      for (int mm = 0; mm < g.nphi; ++mm)
        EXPECT_NEAR(kernels::roughness_term(g, s.valleys[0], in, phi.data(), 0, 0, 0, l, mm) / sc.time(), -rate * std::cos(mm * g.dphi), 1e-9 * rate);
    }
  }
}

// The block's equilibrium on the seed's device (reduced grid), and its form factors for a roughness setting.
struct Equilibrium {
  Device dev;
  GridSize size{17, 25};  // dz = 0.25 nm: both interfaces of the 6 nm z extent on nodes
  ContactBoundary contacts;
  std::unique_ptr<SchrodingerPoisson> block;
  explicit Equilibrium(Backend backend = Backend::Cpu) {
    dev.bias.gate_voltage = 0.5;
    contacts = ContactBoundary::flat(neutral_contact_potential(dev, size, 6), size.nz);
    BlockOptions opt;
    block = std::make_unique<SchrodingerPoisson>(make_device_grid(dev, size, contacts), opt, backend);
    const BlockResult r = block->solve_equilibrium(0.0);
    EXPECT_TRUE(r.converged);
  }
  std::vector<double> form(double displacement, int nze, RoughnessShift shift = RoughnessShift::SameGrid) {
    RoughnessOptions o;
    o.enabled = true;
    o.displacement = displacement;
    o.nz = nze;
    o.shift = shift;
    block->set_roughness(make_roughness_grid(dev, size, contacts, o));
    return block->roughness_form_factors();
  }
};

double largest(const std::vector<double>& a) {
  double m = 0;
  for (double x : a) m = std::max(m, std::abs(x));
  return m;
}

// The form factors at 0.3 nm on extended grids of 63, 126, 252, 504 intervals (the interfaces on nodes throughout):
// their changes per halving relative to the finest's largest, each halving's observed order checked > 0.7.
std::vector<double> refinement_changes(Equilibrium& eq, RoughnessShift shift) {
  std::vector<std::vector<double>> f;
  for (int n : {64, 127, 253, 505}) f.push_back(eq.form(0.3, n, shift));
  std::vector<double> change;
  for (std::size_t k = 0; k + 1 < f.size(); ++k) {
    change.push_back(mosfet_test::max_diff(f[k], f[k + 1]) / largest(f.back()));
    std::printf("extended grid %d -> %d intervals: form factors change by %.3e (relative)\n", 63 << k, 126 << k, change.back());
  }
  for (std::size_t k = 1; k < change.size(); ++k) {
    const double order = std::log2(change[k - 1] / change[k]);
    std::printf("observed order %.2f\n", order);
    EXPECT_GT(order, 0.7);
  }
  return change;
}

// The seed's code's dV (the device's V against the displaced film on another grid): zero displacement gives zero
// only when the extended grid is the device's, and the form factors converge at first order in the extended grid:
// the two grids integrate the interface nodes' donors and electrons over different widths, and the stretched problem
// holds the density fixed, so in the ungated source and drain that charge difference shifts the whole film's
// potential (docs/mosfet-surface-roughness.md, section 8). Measured: 2.1e-23 on the device's grid, 25.4 (k_B T)^2
// on one twice as fine; changes 0.236, 0.135, 0.072 of the largest per halving.
TEST(Roughness, SeedCodeShiftCarriesAGridPart) {
  Equilibrium eq;
  const auto seed = RoughnessShift::SeedCode;
  const std::vector<double> zero = eq.form(0.0, eq.size.nz, seed), finer = eq.form(0.0, 2 * eq.size.nz - 1, seed), at = eq.form(0.3, 0, seed);
  std::printf("seed's code's dV: largest form factor %.3e (k_B T)^2 at 0.3 nm; at 0 nm %.3e on the device's grid, %.3e on one twice as fine\n",
              largest(at), largest(zero), largest(finer));
  EXPECT_GT(largest(at), 1e-3);
  EXPECT_LT(largest(zero), 1e-12);  // the block's Newton tolerance (1e-9 V, 4e-8 k_B T) is all that separates them
  EXPECT_GT(largest(finer), 1.0);   // the grid part
  refinement_changes(eq, seed);
}

// quanta's default dV (the undisplaced film on the displaced one's spacing): zero displacement gives zero on any
// extended grid, the form factors converge as it is refined, and without the grid part they are smaller (largest
// 20 against 110 (k_B T)^2 here).
TEST(Roughness, SameGridShiftVanishesWithoutDisplacementAndConverges) {
  Equilibrium eq;
  // The default extended grid puts the displaced and the undisplaced interfaces on nodes: 0.1 nm here.
  RoughnessOptions o;
  o.displacement = 0.3;
  EXPECT_EQ(extended_grid_nodes(o, eq.dev.geometry, eq.size.nz), 64);
  EXPECT_EQ(extended_grid_nodes(o, eq.dev.geometry, 65), 127);  // 0.05 nm: 0.1 nm is coarser than the device's 0.094 nm
  EXPECT_EQ(extended_grid_nodes(o, Geometry{10, 10, 10, 1, 6, 10, 20}, 65), 84);  // the seed's code's NZEXT on its 8 nm device
  double zero = 0;
  for (int n : {25, 49, 61, 97}) zero = std::max(zero, largest(eq.form(0.0, n)));
  const std::vector<double> at = eq.form(0.3, 0);
  std::printf("same-grid dV: largest form factor %.3e (k_B T)^2 at 0.3 nm; at 0 nm %.3e on 24 ... 96 intervals\n", largest(at), zero);
  EXPECT_GT(largest(at), 1e-3);
  EXPECT_LT(zero, 1e-20);  // the same problem solved twice: round-off
  const std::vector<double> change = refinement_changes(eq, RoughnessShift::SameGrid);
  // Measured: changes 0.038, 0.019, 0.0098 of the largest (order 0.98): a sixth of the seed's code's dV's, first order
  // still (the density read by linear interpolation across the stretched band's ends and the interface nodes).
  EXPECT_LT(change.back(), 0.02);
}

// An extended grid the device builder refuses (here 4 nodes, below its minimum of 5; the config's range starts at 9)
// is refused naming the roughness key.
TEST(Roughness, TooCoarseExtendedGridIsRefusedByName) {
  Device dev;
  RoughnessOptions o;
  o.enabled = true;
  o.nz = 4;
  try {
    make_roughness_grid(dev, GridSize{17, 25}, ContactBoundary::flat(0.0, 25), o);
    ADD_FAILURE() << "a 4-node extended grid was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("transport.roughness"), std::string::npos) << e.what();
  }
}

TEST(Roughness, CudaMatchesCpu) {
#ifdef QUANTA_HAVE_CUDA
  if (cuda_device_count() == 0) GTEST_SKIP() << "no GPU";
  Equilibrium cpu(Backend::Cpu), gpu(Backend::Cuda);
  for (RoughnessShift shift : {RoughnessShift::SameGrid, RoughnessShift::SeedCode}) {
    const auto a = cpu.form(0.3, 0, shift), b = gpu.form(0.3, 0, shift);
    const double d = mosfet_test::max_diff(a, b) / largest(a);
    std::printf("form factors (%s): CPU-GPU %.3e relative\n", shift == RoughnessShift::SameGrid ? "same grid" : "seed's code", d);
    EXPECT_LT(d, 1e-9);  // the blocks' own states differ by their Newton tolerance
  }
  const Shells s(false);
  auto run = [&](TransportEngine& e) {
    const auto& g = s.setup.grid;
    const int nvp = 3 * g.nsbn;
    e.upload_distribution(s.phi);
    e.upload_block(std::vector<double>(static_cast<std::size_t>(g.nx) * nvp, 0.0), std::vector<double>(static_cast<std::size_t>(g.nx) * nvp * nvp, 0.0),
                   std::vector<double>(2 * nvp, 1.0));
    e.upload_roughness(s.form);
    e.evaluate_rhs();
    return e.download_rhs();
  };
  const auto x = run(*make_cpu_transport_engine(s.setup)), y = run(*make_cuda_transport_engine(s.setup));
  const double t = mosfet_test::max_diff(x, y) / largest(x);
  std::printf("right-hand side with roughness: CPU-GPU %.3e relative\n", t);
  EXPECT_LT(t, 1e-12);
#else
  GTEST_SKIP() << "built without CUDA";
#endif
}

TEST(Roughness, EnginesRefuseFormFactorsTheyCannotUse) {
  Shells s(false);
  auto e = make_cpu_transport_engine(s.setup);
  EXPECT_THROW(e->upload_roughness(std::vector<double>(5, 1.0)), Error);
  std::vector<double> bad = s.form;
  bad[4] = std::nan("");
  EXPECT_THROW(e->upload_roughness(bad), Error);
  TransportSetup plain = s.setup;
  plain.roughness_kernel.clear();
  EXPECT_THROW(make_cpu_transport_engine(plain)->upload_roughness(s.form), Error);
}

// The coupled simulation on the reduced grid of test_mosfet_simulation.
Config small_device(double drain_voltage) {
  Config c;
  c.device.geometry = Geometry{5, 10, 5, 1, 6, 4, 16};
  c.device.bias.gate_voltage = 0.5;
  c.device.bias.drain_voltage = drain_voltage;
  c.grid = GridSize{17, 25};
  c.solver.subbands = 3;
  return c;
}
TransportOptions small_transport(bool roughness) {
  TransportOptions t;
  t.nw = 48;
  t.nphi = 12;
  t.w_max = 24;
  t.roughness.enabled = roughness;
  return t;
}

TEST(Roughness, SimulationKeepsEquilibriumAndLowersTheCurrent) {
  // 0.1 V: roughness randomises the momentum the field builds up, so the current after the same time is lower.
  Simulation with(small_device(0.1), small_transport(true), Backend::Cpu), without(small_device(0.1), small_transport(false), Backend::Cpu);
  with.start();
  without.start();
  while (without.time() < 0.02e-12) without.step(0.02e-12 - without.time());
  while (with.time() < 0.02e-12) with.step(0.02e-12 - with.time());
  const double a = with.observe().drain_current, b = without.observe().drain_current;
  std::printf("0.1 V, %.3g ps: I_D %.4f A/m with roughness, %.4f A/m without\n", with.time() * 1e12, a, b);
  EXPECT_GT(b, 0);
  EXPECT_LT(a, b);
  // Zero bias: the equilibrium keeps no net current with roughness on (its isotropic distribution is a zero of the
  // term; what the junctions stir up locally is symmetric). The bound of test_mosfet_simulation's equilibrium test.
  Simulation eq(small_device(0.0), small_transport(true), Backend::Cpu);
  eq.start();
  EXPECT_GT(largest(eq.roughness_form_factors()), 0.0);
  for (int n = 0; n < 30; ++n) eq.step();
  const double i0 = eq.observe().drain_current;
  std::printf("zero bias with roughness, 30 steps: I_D %.3e A/m\n", i0);
  EXPECT_LT(std::abs(i0), 1e-6 * a);
}

}  // namespace
}  // namespace quanta::mosfet
