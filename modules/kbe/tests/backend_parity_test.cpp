// CUDA vs CPU for the whole propagation: the same config propagated on both backends, with either
// self-energy form, agrees in every stored element of the half-plane G<, G> and in the observables.
// Skips without a GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>

#include "../kernels/layout.hpp"
#include "quanta/core/backend.hpp"
#include "test_support.hpp"

namespace {

using quanta::Backend;
using quanta::cplx;
using quanta::kbe::Propagator;
using quanta::kbe::SelfEnergyMethod;

// max |a - b| / max |a| over the stored rows.
double rel_diff(const std::vector<cplx>& a, const std::vector<cplx>& b, std::size_t n) {
  double num = 0, den = 0;
  for (std::size_t i = 0; i < n; ++i) {
    num = std::max(num, quanta::abs(a[i] - b[i]));
    den = std::max(den, quanta::abs(a[i]));
  }
  return num / den;
}

void compare(int nk, SelfEnergyMethod method, int checkpoint_at) {
  if (quanta::cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device: GPU parity not tested here";
  auto c = kbe_test::small_config(nk, 1.0, 0.05, 40);
  c.solver.self_energy = method;
  Propagator cpu(c, 2, Backend::Cpu), gpu(c, 1, Backend::Cuda);
  double worst_n = 0, worst_e = 0;
  int pass_mismatches = 0;  // the stopping test may fall either side of its tolerance on the two backends
  while (cpu.step() < c.time.steps) {
    const auto a = cpu.advance(), b = gpu.advance();
    pass_mismatches += a.corrector_passes != b.corrector_passes;
    const auto oa = cpu.observe(), ob = gpu.observe();
    worst_n = std::max(worst_n, std::abs(oa.particles - ob.particles));
    worst_e = std::max(worst_e, std::abs(oa.energy_total - ob.energy_total) / std::abs(oa.energy_total));
    if (cpu.step() == checkpoint_at) {  // a device state saved and restored continues the same trajectory
      const auto s = gpu.save();
      Propagator again(c, 1, Backend::Cuda);
      again.restore(s);
      const auto s2 = again.save();
      ASSERT_EQ(s.g_less.size(), s2.g_less.size());
      EXPECT_EQ(0.0, rel_diff(s.g_less, s2.g_less, s.g_less.size()));
    }
  }
  gpu.sync_host();
  const std::size_t n = quanta::kbe::kernels::tri_count(c.time.steps + 1) * quanta::kbe::kernels::block_size(nk);
  const double dl = rel_diff(cpu.g_less(), gpu.g_less(), n), dg = rel_diff(cpu.g_greater(), gpu.g_greater(), n);
  std::printf("nk %d, %s: half-plane G< %.2e, G> %.2e; N %.2e, E %.2e; corrector pass counts differ at %d steps\n", nk,
              to_string(method).c_str(), dl, dg, worst_n, worst_e, pass_mismatches);
  // Both backends evaluate the same formulas in the same order per element except the FFTs (cuFFT vs
  // FFTW) and the corrector's stopping test; 40 steps of U = 1 keep the difference near 1e-14.
  EXPECT_LT(dl, 1e-12);
  EXPECT_LT(dg, 1e-12);
  EXPECT_LT(worst_n, 1e-12 * nk);
  EXPECT_LT(worst_e, 1e-12);
}

TEST(KbeBackendParity, FftSelfEnergy) { compare(16, SelfEnergyMethod::Fft, 20); }
TEST(KbeBackendParity, DirectSelfEnergy) { compare(12, SelfEnergyMethod::Direct, -1); }
TEST(KbeBackendParity, OddGrid) { compare(7, SelfEnergyMethod::Fft, -1); }

}  // namespace
