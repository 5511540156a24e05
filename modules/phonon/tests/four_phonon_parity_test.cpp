// Four-phonon scattering on the GPU against the CPU (kernels/four_phonon.hpp runs on both): counts exactly,
// phase spaces, rates and weighted phase spaces to 1e-10 (the sums run in another order), on FourPhonon's
// Stillinger-Weber silicon at 3x3x3, at two temperatures. Skips without a GPU.
#include <cmath>

#include "quanta/core/backend.hpp"
#include "quanta/phonon/scattering.hpp"
#include "test_support.hpp"

namespace quanta::phonon::test {
namespace {

TEST(FourPhononParity, GpuMatchesCpu) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device: GPU parity not tested here";
  TempDir dir;
  std::filesystem::copy_file(quanta::test::data_path("phonon/si-sw-4ph/CONTROL-3x3x3"), dir.path / "CONTROL");
  for (const char* f : {"FORCE_CONSTANTS_2ND", "FORCE_CONSTANTS_4TH"})
    std::filesystem::copy_file(quanta::test::data_path(std::string("phonon/si-sw-4ph/") + f), dir.path / f);
  const Harmonic h = harmonic_stage(dir.path);
  const FourthOrderFc fc4 = read_fc4(dir.path / "FORCE_CONSTANTS_4TH", h.control);
  ScatteringOptions so;
  so.quiet = true;
  const std::vector<double> temperatures = {100.0, 300.0};
  const auto cpu = four_phonon_scattering(h.control.crystal, h.grid, h.spectrum, fc4, h.control.scalebroad, temperatures, so);
  so.backend = Backend::Cuda;
  const auto gpu = four_phonon_scattering(h.control.crystal, h.grid, h.spectrum, fc4, h.control.scalebroad, temperatures, so);
  const auto near = [](double a, double b) { return std::abs(a - b) <= 1e-10 * std::max(std::abs(a), std::abs(b)) + 1e-300; };
  for (int c = 0; c < 3; ++c) {
    EXPECT_EQ(gpu.count[c], cpu.count[c]) << "class " << c;
    for (std::size_t m = 0; m < cpu.phase_space[c].size(); ++m) {
      EXPECT_PRED2(near, gpu.phase_space[c][m], cpu.phase_space[c][m]) << "class " << c << " mode " << m;
      for (std::size_t t = 0; t < temperatures.size(); ++t) {
        EXPECT_PRED2(near, gpu.per_t[t].gamma[c][m], cpu.per_t[t].gamma[c][m]) << "class " << c << " mode " << m << " T " << t;
        EXPECT_PRED2(near, gpu.per_t[t].wp4[c][m], cpu.per_t[t].wp4[c][m]) << "class " << c << " mode " << m << " T " << t;
      }
    }
  }
}

}  // namespace
}  // namespace quanta::phonon::test
