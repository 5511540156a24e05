// The transport phase's right-hand side (scattering, then transport along x, w and phi) on the GPU against
// the CPU oracle, on a small device-like state: a smooth distribution, subband energies that vary along x
// (forces of both signs), overlaps, contacts off equilibrium. Both evaluate the same QUANTA_HD functions in
// the same order per point, so 1e-12 relative to the largest term is asked (measured: rounding only). Skips
// without a GPU; the CPU engine's own checks run everywhere.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "../src/transport_engine.hpp"
#include "quanta/core/backend.hpp"
#include "quanta/core/error.hpp"
#include "quanta/mosfet/transport.hpp"

namespace quanta::mosfet {
namespace {

constexpr double kPi = 3.14159265358979323846;

struct Case {
  TransportSetup setup;
  std::vector<double> phi, eps, overlaps, contact;
  // The default: 3 x 16 x 40 x 12 (5760 energy cells, 45 full scattering blocks; w lines of one chunk).
  explicit Case(int nx = 16, int nw = 40) {
    const std::array<Valley, 3> valleys = {Valley{0.98, 0.19, 0.19, 0.5}, Valley{0.19, 0.98, 0.19, 0.5}, Valley{0.19, 0.19, 0.98, 0.5}};
    const TransportScales sc;
    auto& g = setup.grid;
    g = {3, nx, nw, 12, 1.0 / (nx - 1), 16.0 / nw, 2 * kPi / 12};
    for (int v = 0; v < 3; ++v) setup.valleys[v] = kane_valley(valleys[v], sc);
    setup.scattering = make_phonon_scattering(PhononParameters{}, valleys, sc);
    const int nvp = 3 * g.nsbn;
    eps.resize(static_cast<std::size_t>(g.nx) * nvp);
    for (int i = 0; i < g.nx; ++i)
      for (int vp = 0; vp < nvp; ++vp) eps[i * nvp + vp] = 0.8 * vp + 3 * std::cos(kPi * i * g.dx) * (1 + 0.1 * vp);
    overlaps.resize(static_cast<std::size_t>(g.nx) * nvp * nvp);
    for (int i = 0; i < g.nx; ++i)
      for (int a = 0; a < nvp; ++a)
        for (int b = 0; b < nvp; ++b) overlaps[(i * nvp + a) * nvp + b] = (a % g.nsbn == b % g.nsbn ? 2.0 : 1.3) + 0.01 * i;
    contact.resize(nvp * 2);
    for (int k = 0; k < nvp * 2; ++k) contact[k] = 0.9 + 0.02 * k;
    phi.resize(static_cast<std::size_t>(nvp) * g.nx * g.nw * g.nphi);
    for (int v = 0; v < 3; ++v)
      for (int p = 0; p < g.nsbn; ++p)
        for (int i = 0; i < g.nx; ++i)
          for (int l = 0; l < g.nw; ++l)
            for (int m = 0; m < g.nphi; ++m) {
              const double w = (l + 0.5) * g.dw;
              phi[kernels::phase_index(g, v, p, i, l, m)] = kernels::kane_jacobian(setup.valleys[v], w) * std::exp(-w - 0.3 * p) *
                                                            (1 + 0.4 * std::cos(m * g.dphi - 0.2 * i) * std::exp(-0.2 * w));
            }
  }
  std::vector<double> rhs(TransportEngine& e) const {
    e.upload_distribution(phi);
    e.upload_block(eps, overlaps, contact);
    e.evaluate_rhs();
    return e.download_rhs();
  }
};

TEST(TransportEngine, CpuRefusesAStateOfTheWrongSize) {
  const Case c;
  auto e = make_cpu_transport_engine(c.setup);
  EXPECT_THROW(e->upload_block(std::vector<double>(3), c.overlaps, c.contact), Error);
  EXPECT_THROW(e->upload_distribution(std::vector<double>(7)), Error);
  const auto r = c.rhs(*e);
  double size = 0;
  for (double x : r) size = std::max(size, std::abs(x));
  EXPECT_GT(size, 0.0);
  EXPECT_TRUE(std::isfinite(size));
}

#ifdef QUANTA_HAVE_CUDA
// The largest |CPU - GPU| of the right-hand side, against the largest term: the same functions in the same order per
// point, so 1e-12 relative is asked (measured: rounding only).
void expect_rhs_parity(const Case& c) {
  const auto a = c.rhs(*make_cpu_transport_engine(c.setup));
  const auto b = c.rhs(*make_cuda_transport_engine(c.setup));
  ASSERT_EQ(a.size(), b.size());
  double size = 0, diff = 0;
  for (std::size_t k = 0; k < a.size(); ++k) {
    size = std::max(size, std::abs(a[k]));
    diff = std::max(diff, std::abs(a[k] - b[k]));
  }
  std::printf("largest term %.3e, largest CPU-GPU difference %.3e\n", size, diff);
  EXPECT_LE(diff, 1e-12 * size);
}

// Two Runge-Kutta stages as the time step makes them: the GPU does the combination in its last right-hand-side
// kernel, in place (stage()); the CPU evaluates and then combines. Same tolerance, relative to the largest Phi.
void expect_stage_parity(const Case& c) {
  const auto staged = [&](TransportEngine& e) {
    e.upload_distribution(c.phi);
    e.upload_block(c.eps, c.overlaps, c.contact);
    e.save_step_start();
    e.stage(1.0, 0.0, 0.01);  // Phi^(1) = Phi^n + dt L(Phi^n)
    e.stage(0.75, 0.25, 0.0025);
    return e.download_distribution();
  };
  const auto a = staged(*make_cpu_transport_engine(c.setup));
  const auto b = staged(*make_cuda_transport_engine(c.setup));
  ASSERT_EQ(a.size(), b.size());
  double size = 0, diff = 0, change = 0;
  for (std::size_t k = 0; k < a.size(); ++k) {
    size = std::max(size, std::abs(a[k]));
    diff = std::max(diff, std::abs(a[k] - b[k]));
    change = std::max(change, std::abs(a[k] - c.phi[k]));
  }
  std::printf("largest Phi %.3e, largest change over the stages %.3e, largest CPU-GPU difference %.3e\n", size, change, diff);
  EXPECT_GT(change, 1e-6 * size);  // the stages did change Phi
  EXPECT_LE(diff, 1e-12 * size);
}
#endif

TEST(TransportEngine, CudaMatchesCpu) {
#ifdef QUANTA_HAVE_CUDA
  if (cuda_device_count() == 0) GTEST_SKIP() << "no GPU";
  expect_rhs_parity(Case());
#else
  GTEST_SKIP() << "built without CUDA";
#endif
}

TEST(TransportEngine, CudaStageMatchesCpu) {
#ifdef QUANTA_HAVE_CUDA
  if (cuda_device_count() == 0) GTEST_SKIP() << "no GPU";
  expect_stage_parity(Case());
#else
  GTEST_SKIP() << "built without CUDA";
#endif
}

// Longer w lines (150 cells: the GPU's w kernel splits them into chunks of 64 and 22) and 9450 energy cells (the
// scattering kernel's last block partly empty).
TEST(TransportEngine, CudaMatchesCpuOnChunkedLines) {
#ifdef QUANTA_HAVE_CUDA
  if (cuda_device_count() == 0) GTEST_SKIP() << "no GPU";
  const Case c(7, 150);
  expect_rhs_parity(c);
  expect_stage_parity(c);
#else
  GTEST_SKIP() << "built without CUDA";
#endif
}

// After stage() the GPU's right-hand side lacks the term that went into Phi: it is refused until the next evaluate_rhs().
TEST(TransportEngine, CudaRefusesTheRightHandSideOfAStage) {
#ifdef QUANTA_HAVE_CUDA
  if (cuda_device_count() == 0) GTEST_SKIP() << "no GPU";
  const Case c;
  auto e = make_cuda_transport_engine(c.setup);
  e->upload_distribution(c.phi);
  e->upload_block(c.eps, c.overlaps, c.contact);
  e->save_step_start();
  e->stage(1.0, 0.0, 0.01);
  EXPECT_THROW(e->download_rhs(), Error);
  EXPECT_THROW(e->combine(1.0, 0.0, 0.01), Error);
  e->evaluate_rhs();
  EXPECT_NO_THROW(e->download_rhs());
#else
  GTEST_SKIP() << "built without CUDA";
#endif
}

TEST(TransportEngine, RefusesAPhaseGridTheTermsCannotTake) {
  Case c;
  c.setup.grid.nphi = 7;
  EXPECT_THROW(make_cpu_transport_engine(c.setup), Error);
  c.setup.grid.nphi = 12;
  c.setup.grid.nw = 4;
  EXPECT_THROW(make_cpu_transport_engine(c.setup), Error);
}

}  // namespace
}  // namespace quanta::mosfet
