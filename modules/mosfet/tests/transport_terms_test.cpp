// The transport terms of the Boltzmann equation (kernels/transport_terms.hpp) on the CPU: in a closed box
// (x periodic, w closed at the top and folded through the origin at w = 0, phi periodic) each direction's
// term conserves the particles of every line to rounding, under a force that varies along x; a distribution
// that is uniform along x at the contacts' equilibrium density neither gains nor loses along x.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "../kernels/transport_terms.hpp"

namespace quanta::mosfet {
namespace {

constexpr double kPi = 3.14159265358979323846;

struct Box {
  kernels::PhaseGrid g{2, 12, 20, 8, 1.0 / 11, 0.25, 2 * kPi / 8};
  kernels::KaneValley valleys[3] = {{0.98, 0.19, 0.0129}, {0.19, 0.98, 0.0129}, {0.19, 0.19, 0.0129}};
  std::vector<double> deps, scale, phi;
  explicit Box(double force) {
    deps.resize(3 * g.nsbn * g.nx);
    for (int vp = 0; vp < 3 * g.nsbn; ++vp)
      for (int i = 0; i < g.nx; ++i) deps[vp * g.nx + i] = force * (1 + 0.3 * vp) * std::sin(2 * kPi * i / g.nx + 0.2 * vp);
    scale.assign(3 * g.nsbn * 2, 1.0);
    phi.resize(3L * g.nsbn * g.nx * g.nw * g.nphi);
    for (int v = 0; v < 3; ++v)
      for (int p = 0; p < g.nsbn; ++p)
        for (int i = 0; i < g.nx; ++i)
          for (int l = 0; l < g.nw; ++l)
            for (int m = 0; m < g.nphi; ++m) {
              const double w = (l + 0.5) * g.dw;
              phi[kernels::phase_index(g, v, p, i, l, m)] =
                  kernels::kane_jacobian(valleys[v], w) * std::exp(-w) * (1 + 0.3 * std::cos(m * g.dphi + 0.4 * i) + 0.1 * p);
            }
  }
  kernels::SpeedTables speeds = kernels::speed_tables(g, valleys);
  kernels::TransportInputs inputs(bool periodic) const {
    double a3 = 0;
    for (int v = 0; v < 3; ++v)
      for (int p = 0; p < g.nsbn; ++p)
        for (int i = 0; i < g.nx; ++i)
          for (int l = 0; l < g.nw; ++l)
            for (int m = 0; m < g.nphi; ++m)
              a3 = std::max(a3, std::abs(deps[(v * g.nsbn + p) * g.nx + i] * kernels::angle_rate(valleys[v], (l + 0.5) * g.dw, m * g.dphi)));
    return {speeds.velocity.data(), speeds.angle_speed.data(), deps.data(), scale.data(), a3, periodic};
  }
};

TEST(TransportTerms, ClosedBoxConservesEveryLine) {
  const Box b(2.0);
  std::vector<double> rhs(b.phi.size(), 0.0);
  kernels::add_transport_cpu(b.g, b.inputs(true), b.phi.data(), rhs.data());
  // Per (v, p): the particles dx dw dphi sum rhs, against the size of the terms.
  const auto& g = b.g;
  double total = 0, size = 0;
  for (std::size_t k = 0; k < rhs.size(); ++k) {
    total += rhs[k];
    size += std::abs(rhs[k]);
  }
  EXPECT_GT(size, 1.0);
  EXPECT_LT(std::abs(total), 1e-13 * size);
  // Each direction alone, on every line of it: x lines, w lines (with their opposite angle), phi lines.
  for (int v = 0; v < 3; ++v)
    for (int p = 0; p < g.nsbn; ++p) {
      for (int i = 0; i < g.nx; ++i) {
        std::vector<double> rw(b.phi.size(), 0.0), rp(b.phi.size(), 0.0);
        for (int m = 0; m < g.nphi / 2; ++m) kernels::add_w_transport(g, b.inputs(true), b.phi.data(), rw.data(), v, p, i, m);
        double sw = 0, aw = 0;
        for (int l = 0; l < g.nw; ++l)
          for (int m = 0; m < g.nphi; ++m) {
            sw += rw[kernels::phase_index(g, v, p, i, l, m)];
            aw += std::abs(rw[kernels::phase_index(g, v, p, i, l, m)]);
          }
        EXPECT_LE(std::abs(sw), 1e-13 * aw) << "w, subband " << v << "," << p << " node " << i;
        for (int l = 0; l < g.nw; ++l) {
          kernels::add_phi_transport(g, b.inputs(true), b.phi.data(), rp.data(), v, p, i, l);
          double sp = 0, ap = 0;
          for (int m = 0; m < g.nphi; ++m) {
            sp += rp[kernels::phase_index(g, v, p, i, l, m)];
            ap += std::abs(rp[kernels::phase_index(g, v, p, i, l, m)]);
          }
          EXPECT_LE(std::abs(sp), 1e-13 * ap) << "phi line " << v << "," << p << "," << i << "," << l;
        }
      }
    }
}

// Uniform along x, at the contacts' equilibrium density (rescaling 1): inflow equals outflow, and the x term
// vanishes at every point (no force: the w and phi terms vanish too).
TEST(TransportTerms, UniformStateAtTheContactsIsStationaryAlongX) {
  Box b(0.0);
  const auto& g = b.g;
  for (int v = 0; v < 3; ++v)
    for (int p = 0; p < g.nsbn; ++p)
      for (int i = 0; i < g.nx; ++i)
        for (int l = 0; l < g.nw; ++l)
          for (int m = 0; m < g.nphi; ++m) b.phi[kernels::phase_index(g, v, p, i, l, m)] = b.phi[kernels::phase_index(g, v, p, 0, l, m)];
  std::vector<double> rhs(b.phi.size(), 0.0);
  kernels::add_transport_cpu(g, b.inputs(false), b.phi.data(), rhs.data());
  double worst = 0;
  for (double x : rhs) worst = std::max(worst, std::abs(x));
  EXPECT_LT(worst, 1e-12);
  // A contact below its equilibrium density (rescaling 2 at the source) feeds the device: the first node gains
  // where the velocity points inward (cos phi > 0).
  b.scale[0] = 2.0;
  std::fill(rhs.begin(), rhs.end(), 0.0);
  kernels::add_transport_cpu(g, b.inputs(false), b.phi.data(), rhs.data());
  EXPECT_GT(rhs[kernels::phase_index(g, 0, 0, 0, 3, 0)], 0.0);
  EXPECT_NEAR(rhs[kernels::phase_index(g, 0, 0, 0, 3, g.nphi / 2)], 0.0, 1e-12);  // outflow there
}

}  // namespace
}  // namespace quanta::mosfet
