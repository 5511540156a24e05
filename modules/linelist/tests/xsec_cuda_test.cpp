// The CUDA cross-section kernel against its CPU twin (kernels/xsec.hpp): 20,000 lines of mixed widths, some reaching
// past the grid's ends, every profile and both binnings, in two batches. The profile is one QUANTA_HD function on both
// sides; the order of the additions differs (atomics on the device), and so does the rounding of a point's offset
// nu_i - nu_0 from the line centre (the device contracts start + i step into one fused multiply-add): about 2e-13 cm-1
// at 1000-2000 cm-1, which the narrowest lines here (HWHM 1e-3 cm-1) turn into up to ~4e-10 of a profile's peak. 1e-9
// of the grid's largest value is asserted (measured on an H200: 1.5e-10 at most).
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "../kernels/xsec.hpp"
#include "quanta/linelist/xsec.hpp"
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
      EXPECT_LE(diff, 1e-9 * peak);
    }
}

// The whole pass on raw lines (XsecAccumulator: each line's S and widths computed where the grid is, on the device for
// CUDA), Voigt with two broadeners (one J-dependent table) at two conditions, against the CPU backend. Bound as above.
TEST(XsecCuda, RawLinesMatchTheCpu) {
  if (quanta::cuda_device_count() == 0) GTEST_SKIP() << "no GPU";
  quanta::linelist::XsecSpec spec;
  spec.nu_min = 1000, spec.nu_max = 3000, spec.points = 400001, spec.cutoff = 5, spec.mass = 34, spec.threshold = 1e-30;
  spec.profile = quanta::linelist::XsecProfile::Voigt;
  spec.conditions = {{296.0, 1.0, 300.0}, {1500.0, 0.1, 4000.0}};
  quanta::linelist::Broadener h2, he;
  h2.name = "H2", h2.ratio = 0.85, h2.table.gamma_by_j = {0.07, -1, 0.06}, h2.table.n_by_j = {0.5, 0, 0.4};
  h2.table.default_gamma = 0.05, h2.table.default_n = 0.45;
  he.name = "He", he.ratio = 0.15, he.table.default_gamma = 0.045, he.table.default_n = 0.3;
  spec.broadeners = {h2, he};
  quanta::linelist::LineBatch b;
  for (int j = 0; j < 30000; ++j)
    b.push(990.0 + 2020.0 * std::fmod(j * 0.61803398874989485, 1.0), std::pow(10.0, -4 + 6 * std::fmod(j * 0.41421356237309505, 1.0)),
           1 + j % 40, 4000.0 * std::fmod(j * 0.7320508075688772, 1.0), j % 7);
  std::vector<std::vector<double>> got, want;
  std::size_t used_gpu = 0, used_cpu = 0;
  for (const auto backend : {quanta::Backend::Cuda, quanta::Backend::Cpu}) {
    quanta::linelist::XsecAccumulator acc(backend, spec);
    acc.add(b);
    (backend == quanta::Backend::Cuda ? got : want) = acc.results();
    (backend == quanta::Backend::Cuda ? used_gpu : used_cpu) = acc.lines_used();
  }
  EXPECT_EQ(used_gpu, used_cpu);
  for (std::size_t c = 0; c < want.size(); ++c) {
    double peak = 0, diff = 0;
    for (std::size_t i = 0; i < want[c].size(); ++i) {
      peak = std::max(peak, std::abs(want[c][i]));
      diff = std::max(diff, std::abs(got[c][i] - want[c][i]));
    }
    std::printf("xsec raw lines, condition %zu: %zu lines used, largest difference %.2e of %.3e\n", c, used_cpu, diff, peak);
    EXPECT_GT(peak, 0.0);
    EXPECT_LE(diff, 1e-9 * peak);
  }
}
