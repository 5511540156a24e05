// The CUDA cross-section kernel against its CPU twin (kernels/xsec.hpp): 20,000 lines of mixed widths, some reaching
// past the grid's ends, every profile and both binnings, in two batches. The profile is one QUANTA_HD function on both
// sides; only the order of the additions differs (atomics on the device), so 1e-12 of the grid's largest value is
// asserted.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "../kernels/xsec.hpp"
#include "quanta/core/backend.hpp"

namespace k = quanta::linelist::kernels;

TEST(XsecCuda, MatchesTheCpu) {
  if (quanta::cuda_device_count() == 0) GTEST_SKIP() << "no GPU";
  const k::XsecGrid g{1000.0, 0.005, 200001};  // 1000 .. 2000
  std::vector<double> nu, s, a, gm;
  for (int j = 0; j < 20000; ++j) {
    nu.push_back(990.0 + 1020.0 * std::fmod(j * 0.61803398874989485, 1.0));
    s.push_back(1e-21 * std::exp(-8.0 * std::fmod(j * 0.41421356237309505, 1.0)));
    a.push_back(0.001 + 0.02 * std::fmod(j * 0.7320508075688772, 1.0));
    gm.push_back(0.002 + 0.1 * std::fmod(j * 0.2360679774997897, 1.0));
  }
  const std::size_t half = nu.size() / 2;
  for (const auto shape : {k::LineShape::Gauss, k::LineShape::Lorentz, k::LineShape::Voigt})
    for (const auto binning : {k::Binning::Sampled, k::Binning::Integrated}) {
      k::XsecParams p;
      p.shape = shape;
      p.binning = binning;
      p.cutoff = 2.0;
      std::vector<double> got, want;
      for (const auto backend : {quanta::Backend::Cuda, quanta::Backend::Cpu}) {
        k::XsecEngine e(backend, g, p);
        e.add({half, nu.data(), s.data(), a.data(), gm.data()});
        e.add({nu.size() - half, nu.data() + half, s.data() + half, a.data() + half, gm.data() + half});
        (backend == quanta::Backend::Cuda ? got : want) = e.result();
      }
      double peak = 0, diff = 0;
      for (std::size_t i = 0; i < want.size(); ++i) {
        peak = std::max(peak, std::abs(want[i]));
        diff = std::max(diff, std::abs(got[i] - want[i]));
      }
      std::printf("xsec cuda vs cpu, shape %d binning %d: largest difference %.2e of %.3e\n", static_cast<int>(shape), static_cast<int>(binning), diff, peak);
      EXPECT_GT(peak, 0.0);
      EXPECT_LE(diff, 1e-12 * peak);
    }
}
