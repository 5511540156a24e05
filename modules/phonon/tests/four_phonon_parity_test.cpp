// Four-phonon scattering on the GPU against the CPU (kernels/four_phonon.hpp runs on both): counts exactly,
// phase spaces, rates, weighted phase spaces and the collision rows of four_phonon_iteration to 1e-10 (the
// sums run in another order), and the iterative BTE with those rows; on FourPhonon's Stillinger-Weber
// silicon at 3x3x3, at two temperatures. Skips without a GPU; the reduction of the fully iterative solution
// to the default one without its four-phonon rows runs everywhere.
#include <algorithm>
#include <cmath>

#include "quanta/core/backend.hpp"
#include "quanta/phonon/bte.hpp"
#include "quanta/phonon/scattering.hpp"
#include "test_support.hpp"

namespace quanta::phonon::test {
namespace {

// The 3x3x3 input of FourPhonon's reference runs, its harmonic stage, and what the BTE needs at 300 K.
struct Si3 {
  TempDir dir;
  Harmonic h;
  FourthOrderFc fc4;
  ThreePhononProcesses p;
  ThreePhononRates r;
  BteSymmetry bsym;
  std::vector<double> total;  // 3ph + 4ph rates at 300 K (FourPhonon's relaxation time)
  Si3() {
    std::filesystem::copy_file(quanta::test::data_path("phonon/si-sw-4ph/CONTROL-3x3x3"), dir.path / "CONTROL");
    for (const char* f : {"FORCE_CONSTANTS_2ND", "FORCE_CONSTANTS_3RD", "FORCE_CONSTANTS_4TH"})
      std::filesystem::copy_file(quanta::test::data_path(std::string("phonon/si-sw-4ph/") + f), dir.path / f);
    h = harmonic_stage(dir.path);
    fc4 = read_fc4(dir.path / "FORCE_CONSTANTS_4TH", h.control);
    const ThirdOrderFc fc3 = read_fc3(dir.path / "FORCE_CONSTANTS_3RD", h.control);
    ScatteringOptions so;
    so.quiet = true;
    p = three_phonon_processes(h.control.crystal, h.grid, h.spectrum, fc3, h.control.scalebroad, so);
    RateOptions ro;
    ro.keep_process_rates = true;
    ro.quiet = true;
    r = three_phonon_rates(h.control.crystal, h.grid, h.spectrum, p, h.control.scalebroad, 300, ro);
    bsym = bte_symmetry(h.control.crystal, h.sym, h.grid);
  }
  FourPhononScattering four(Backend b, const std::vector<double>& temperatures) const {
    ScatteringOptions so;
    so.quiet = true;
    so.backend = b;
    return four_phonon_scattering(h.control.crystal, h.grid, h.spectrum, fc4, h.control.scalebroad, temperatures, so, true);
  }
  BteSolution bte(Backend b, const FourPhononScattering& s4, const double* rows) const {
    std::vector<double> total(r.gamma_plus.size());
    for (std::size_t m = 0; m < total.size(); ++m) {
      total[m] = r.gamma_plus[m] + r.gamma_minus[m];
      for (int c = 0; c < 3; ++c) total[m] += s4.per_t.back().gamma[c][m];
    }
    BteOptions o;
    o.backend = b;
    o.quiet = true;
    o.maxiter = 6;
    o.eps = 1e-12;
    FourPhononIteration four;
    four.rows = rows;
    return solve_bte(h.control.crystal, h.grid, h.spectrum, bsym, total, p, r, 300, o, four);
  }
};

// One temperature (the kernel with the count fixed at compile time) and two (the general one).
TEST(FourPhononParity, GpuMatchesCpuAtOneTemperature) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device: GPU parity not tested here";
  const Si3 si;
  const auto cpu = si.four(Backend::Cpu, {300.0});
  const auto gpu = si.four(Backend::Cuda, {300.0});
  const auto near = [](double a, double b) { return std::abs(a - b) <= 1e-10 * std::max(std::abs(a), std::abs(b)) + 1e-300; };
  for (int c = 0; c < 3; ++c) {
    EXPECT_EQ(gpu.count[c], cpu.count[c]) << "class " << c;
    for (std::size_t m = 0; m < cpu.phase_space[c].size(); ++m) {
      EXPECT_PRED2(near, gpu.per_t[0].gamma[c][m], cpu.per_t[0].gamma[c][m]) << "class " << c << " mode " << m;
      EXPECT_PRED2(near, gpu.per_t[0].wp4[c][m], cpu.per_t[0].wp4[c][m]) << "class " << c << " mode " << m;
      EXPECT_NEAR(gpu.per_t[0].gamma_umklapp[c][m], cpu.per_t[0].gamma_umklapp[c][m], 1e-10 * cpu.per_t[0].gamma[c][m]);
    }
  }
  ASSERT_EQ(gpu.rows.size(), cpu.rows.size());
  const std::size_t n = cpu.nfull;
  for (std::size_t row = 0; row < cpu.rows.size() / n; ++row) {
    double scale = 0;
    for (std::size_t k = 0; k < n; ++k) scale = std::max(scale, std::abs(cpu.rows[row * n + k]));
    for (std::size_t k = 0; k < n; ++k) EXPECT_NEAR(gpu.rows[row * n + k], cpu.rows[row * n + k], 1e-10 * scale) << "row " << row;
  }
}

TEST(FourPhononParity, GpuMatchesCpu) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device: GPU parity not tested here";
  const Si3 si;
  const std::vector<double> temperatures = {100.0, 300.0};
  const auto cpu = si.four(Backend::Cpu, temperatures);
  const auto gpu = si.four(Backend::Cuda, temperatures);
  const auto near = [](double a, double b) { return std::abs(a - b) <= 1e-10 * std::max(std::abs(a), std::abs(b)) + 1e-300; };
  for (int c = 0; c < 3; ++c) {
    EXPECT_EQ(gpu.count[c], cpu.count[c]) << "class " << c;
    for (std::size_t m = 0; m < cpu.phase_space[c].size(); ++m) {
      EXPECT_PRED2(near, gpu.phase_space[c][m], cpu.phase_space[c][m]) << "class " << c << " mode " << m;
      for (std::size_t t = 0; t < temperatures.size(); ++t) {
        EXPECT_PRED2(near, gpu.per_t[t].gamma[c][m], cpu.per_t[t].gamma[c][m]) << "class " << c << " mode " << m << " T " << t;
        EXPECT_PRED2(near, gpu.per_t[t].wp4[c][m], cpu.per_t[t].wp4[c][m]) << "class " << c << " mode " << m << " T " << t;
        EXPECT_NEAR(gpu.per_t[t].gamma_umklapp[c][m], cpu.per_t[t].gamma_umklapp[c][m], 1e-10 * cpu.per_t[t].gamma[c][m])
            << "class " << c << " mode " << m << " T " << t;
      }
    }
  }
  // Collision rows: an entry sums rates of both signs, so it is compared on the scale of its row's largest.
  ASSERT_EQ(gpu.rows.size(), cpu.rows.size());
  ASSERT_GT(cpu.rows.size(), 0u);
  const std::size_t n = cpu.nfull;
  for (std::size_t row = 0; row < cpu.rows.size() / n; ++row) {
    double scale = 0;
    for (std::size_t k = 0; k < n; ++k) scale = std::max(scale, std::abs(cpu.rows[row * n + k]));
    for (std::size_t k = 0; k < n; ++k)
      EXPECT_NEAR(gpu.rows[row * n + k], cpu.rows[row * n + k], 1e-10 * scale) << "row " << row << " entry " << k;
  }
  // The iterative BTE with the rows (300 K): the GPU's step against the CPU's.
  const double* rows = cpu.rows.data() + cpu.rows.size() / 2;
  const auto a = si.bte(Backend::Cpu, cpu, rows), b = si.bte(Backend::Cuda, cpu, rows);
  ASSERT_EQ(a.kappa_band.size(), b.kappa_band.size());
  for (std::size_t it = 0; it < a.kappa_band.size(); ++it)
    for (std::size_t k = 0; k < a.kappa_band[it].size(); ++k)
      EXPECT_NEAR(b.kappa_band[it][k], a.kappa_band[it][k], 1e-10 * 100) << "iteration " << it;  // W/mK, kappa ~ 1e2
}

// The sampling estimator: the GPU draws the CPU's sample (the generator is counter-based), so the same counts
// and the same rates to 1e-10.
TEST(FourPhononParity, SampledGpuMatchesCpu) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device: GPU parity not tested here";
  const Si3 si;
  ScatteringOptions so;
  so.quiet = true;
  const FourPhononSampling sampling{5000, 20000, 3};
  const auto run = [&](Backend b) {
    so.backend = b;
    return four_phonon_scattering(si.h.control.crystal, si.h.grid, si.h.spectrum, si.fc4, si.h.control.scalebroad, {300.0}, so,
                                  false, sampling);
  };
  const auto cpu = run(Backend::Cpu), gpu = run(Backend::Cuda);
  const auto near = [](double a, double b) { return std::abs(a - b) <= 1e-10 * std::max(std::abs(a), std::abs(b)) + 1e-300; };
  for (int c = 0; c < 3; ++c) {
    EXPECT_EQ(gpu.count[c], cpu.count[c]) << "class " << c;
    for (std::size_t m = 0; m < cpu.phase_space[c].size(); ++m) {
      EXPECT_PRED2(near, gpu.phase_space[c][m], cpu.phase_space[c][m]) << "class " << c << " mode " << m;
      EXPECT_PRED2(near, gpu.per_t[0].gamma[c][m], cpu.per_t[0].gamma[c][m]) << "class " << c << " mode " << m;
      EXPECT_PRED2(near, gpu.per_t[0].wp4[c][m], cpu.per_t[0].wp4[c][m]) << "class " << c << " mode " << m;
    }
  }
}

// Without its four-phonon rows, the fully iterative solution is FourPhonon's default one (4ph in the
// relaxation time, 3ph iterated), and the rows change it.
TEST(FourPhononParity, FullyIterativeWithoutRowsIsTheDefault) {
  const Si3 si;
  const auto s4 = si.four(Backend::Cpu, {300.0});
  const std::vector<double> zero(s4.rows.size(), 0.0);
  const auto with_zero = si.bte(Backend::Cpu, s4, zero.data()), plain = si.bte(Backend::Cpu, s4, nullptr),
             full = si.bte(Backend::Cpu, s4, s4.rows.data());
  ASSERT_EQ(with_zero.F.size(), plain.F.size());
  for (std::size_t k = 0; k < plain.F.size(); ++k) EXPECT_EQ(with_zero.F[k], plain.F[k]);
  double change = 0;
  for (std::size_t k = 0; k < plain.F.size(); ++k) change = std::max(change, std::abs(full.F[k] - plain.F[k]));
  EXPECT_GT(change, 1e-3 * *std::max_element(plain.F.begin(), plain.F.end()));
}

}  // namespace
}  // namespace quanta::phonon::test
