// CUDA vs CPU for the three-phonon stage on the 8x8x8 silicon mesh: the same process lists, |V|^2 to
// 1e-10, the same rates, for every strategy (all modes; batches enumerated on the CPU while the GPU
// evaluates; batches enumerated on the GPU under a small memory budget; mode by mode), and the same BTE
// iterates. Skips without a GPU.
#include <cmath>

#include "quanta/core/backend.hpp"
#include "quanta/phonon/bte.hpp"
#include "quanta/phonon/force_constants.hpp"
#include "quanta/phonon/scattering.hpp"
#include "quanta/phonon/symmetry.hpp"
#include "test_support.hpp"

namespace quanta::phonon::test {
namespace {

struct Si8 {
  Control control;
  SymmetryInfo sym;
  QGrid grid;
  Spectrum spectrum;
  ThirdOrderFc fc3;
  Si8() {
    const auto ref = reference_3ph("8x8x8-iterative");
    control = read_control(ref / "CONTROL");
    const auto model = read_espresso_ifc2(si_reference() / "input/espresso.ifc2", control);
    sym = find_symmetry(control.crystal);
    grid = build_qgrid(control.ngrid, sym);
    std::vector<Vec3> q(grid.nptk);
    for (int i = 0; i < grid.nptk; ++i) q[i] = qfrac_to_cart(control.crystal, grid.qfrac[i]);
    spectrum = compute_spectrum(model, q, SpectrumOptions{});
    symmetrize_and_fix_gamma(control.crystal, sym, grid, spectrum);
    fc3 = read_fc3(si_reference() / "input/FORCE_CONSTANTS_3RD", control);
  }
  ThreePhononProcesses processes(const ScatteringOptions& o, ScatteringStats* st = nullptr) const {
    return three_phonon_processes(control.crystal, grid, spectrum, fc3, control.scalebroad, o, st);
  }
};

const Si8& si8() {
  static const Si8 s;
  return s;
}

// Identical lists; |V|^2 equal to 1e-10 of the larger of itself and 1e-6 of the largest (|V|^2 that
// vanish by symmetry are pure rounding in both backends).
void expect_same(const ProcessList& a, const ProcessList& b) {
  ASSERT_EQ(a.offset, b.offset);
  ASSERT_EQ(a.mode2, b.mode2);
  ASSERT_EQ(a.mode3, b.mode3);
  double vmax = 0;
  for (double v : a.v2) vmax = std::max(vmax, v);
  for (std::size_t k = 0; k < a.size(); ++k)
    ASSERT_NEAR(b.v2[k], a.v2[k], 1e-10 * std::max(a.v2[k], 1e-6 * vmax)) << "process " << k;
}

void check_strategy(ScatteringStrategy strategy, Enumeration enumeration, std::size_t mem_limit, std::size_t batch_modes,
                    int min_batches) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device: GPU parity not tested here";
  const Si8& s = si8();
  ScatteringOptions cpu;
  static const ThreePhononProcesses ref = s.processes(cpu);
  ScatteringOptions gpu;
  gpu.backend = Backend::Cuda;
  gpu.strategy = strategy;
  gpu.enumeration = enumeration;
  gpu.gpu_mem_limit = mem_limit;
  gpu.batch_modes = batch_modes;
  ScatteringStats st;
  const auto got = s.processes(gpu, &st);
  EXPECT_GE(st.batches, min_batches);
  expect_same(ref.plus, got.plus);
  expect_same(ref.minus, got.minus);
  const auto ra = three_phonon_rates(s.control.crystal, s.grid, s.spectrum, ref, 1.0, 300, RateOptions{});
  const auto rb = three_phonon_rates(s.control.crystal, s.grid, s.spectrum, got, 1.0, 300, RateOptions{});
  for (std::size_t m = 0; m < ra.gamma_plus.size(); ++m) {
    EXPECT_NEAR(rb.gamma_plus[m], ra.gamma_plus[m], 1e-10 * ra.gamma_plus[m]) << m;
    EXPECT_NEAR(rb.gamma_minus[m], ra.gamma_minus[m], 1e-10 * ra.gamma_minus[m]) << m;
  }
}

// The rates themselves on the GPU (one block per mode, block reductions) against the CPU loop, on the same
// lists: mode sums and every process rate to 1e-10, whole lists at once and in batches from a 2 MB budget.
void check_rates(std::size_t mem_limit) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device: GPU parity not tested here";
  const Si8& s = si8();
  static const ThreePhononProcesses p = s.processes(ScatteringOptions{});
  RateOptions cpu;
  cpu.keep_process_rates = true;
  RateOptions gpu = cpu;
  gpu.backend = Backend::Cuda;
  gpu.gpu_mem_limit = mem_limit;
  const auto a = three_phonon_rates(s.control.crystal, s.grid, s.spectrum, p, 1.0, 300, cpu);
  const auto b = three_phonon_rates(s.control.crystal, s.grid, s.spectrum, p, 1.0, 300, gpu);
  auto expect_close = [](const std::vector<double>& x, const std::vector<double>& y, const char* what) {
    ASSERT_EQ(x.size(), y.size()) << what;
    double mx = 0;
    for (double v : x) mx = std::max(mx, std::abs(v));
    for (std::size_t i = 0; i < x.size(); ++i)
      ASSERT_NEAR(y[i], x[i], 1e-10 * std::max(std::abs(x[i]), 1e-6 * mx)) << what << " " << i;
  };
  expect_close(a.gamma_plus, b.gamma_plus, "gamma+");
  expect_close(a.gamma_minus, b.gamma_minus, "gamma-");
  expect_close(a.wp3_plus, b.wp3_plus, "WP3+");
  expect_close(a.wp3_minus, b.wp3_minus, "WP3-");
  expect_close(a.process_plus, b.process_plus, "process rates +");
  expect_close(a.process_minus, b.process_minus, "process rates -");
}

TEST(ThreePhononParity, RatesAllAtOnce) { check_rates(0); }
TEST(ThreePhononParity, RatesInBatches) { check_rates(2 << 20); }

TEST(ThreePhononParity, AllModesGpuEnumeration) { check_strategy(ScatteringStrategy::AllModes, Enumeration::Gpu, 0, 0, 2); }
TEST(ThreePhononParity, AllModesCpuEnumeration) { check_strategy(ScatteringStrategy::AllModes, Enumeration::Cpu, 0, 0, 2); }
TEST(ThreePhononParity, BatchesCpuEnumerationOverlapped) { check_strategy(ScatteringStrategy::Batched, Enumeration::Cpu, 0, 7, 10); }
TEST(ThreePhononParity, BatchesFromSmallMemoryBudget) { check_strategy(ScatteringStrategy::Auto, Enumeration::Gpu, 3 << 20, 0, 4); }
TEST(ThreePhononParity, ModeByMode) { check_strategy(ScatteringStrategy::Batched, Enumeration::Gpu, 0, 1, 2 * 29 * 6); }

// FourPhonon's sampling estimator (num_sample_process_3ph): the GPU draws the CPU's sample (the same lists, in
// draw order) and evaluates it to the same |V|^2, enumerating on the GPU or the CPU, all modes or in batches;
// a list for the phase spaces alone (no matrix elements) is the same list without |V|^2.
TEST(ThreePhononParity, SampledListsAreTheCpus) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device: GPU parity not tested here";
  const Si8& s = si8();
  ScatteringOptions cpu;
  cpu.sample = {2000, 3, 1};
  const auto ref = s.processes(cpu);
  ASSERT_GT(ref.plus.size(), 0u);
  for (Enumeration e : {Enumeration::Gpu, Enumeration::Cpu})
    for (std::size_t batch : {std::size_t{0}, std::size_t{7}}) {
      ScatteringOptions gpu = cpu;
      gpu.backend = Backend::Cuda;
      gpu.enumeration = e;
      gpu.strategy = batch ? ScatteringStrategy::Batched : ScatteringStrategy::Auto;
      gpu.batch_modes = batch;
      const auto got = s.processes(gpu);
      expect_same(ref.plus, got.plus);
      expect_same(ref.minus, got.minus);
      EXPECT_EQ(got.plus.draws, 2000);
      EXPECT_EQ(got.minus.scale(), ref.minus.scale());
    }
  ScatteringOptions lists = cpu;
  lists.backend = Backend::Cuda;
  lists.matrix_elements = false;
  const auto bare = s.processes(lists);
  EXPECT_EQ(bare.plus.mode2, ref.plus.mode2);
  EXPECT_EQ(bare.minus.mode3, ref.minus.mode3);
  EXPECT_TRUE(bare.plus.v2.empty());
}

TEST(ThreePhononParity, IterativeBte) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device: GPU parity not tested here";
  const Si8& s = si8();
  const auto p = s.processes(ScatteringOptions{});
  RateOptions ro;
  ro.keep_process_rates = true;
  const auto r = three_phonon_rates(s.control.crystal, s.grid, s.spectrum, p, 1.0, 300, ro);
  std::vector<double> total(r.gamma_plus.size());
  for (std::size_t m = 0; m < total.size(); ++m) total[m] = r.gamma_plus[m] + r.gamma_minus[m];
  const auto bsym = bte_symmetry(s.control.crystal, s.sym, s.grid);
  BteOptions o;
  o.maxiter = 6;
  o.eps = 1e-12;
  const auto a = solve_bte(s.control.crystal, s.grid, s.spectrum, bsym, total, p, r, 300, o);
  o.backend = Backend::Cuda;
  const auto b = solve_bte(s.control.crystal, s.grid, s.spectrum, bsym, total, p, r, 300, o);
  ASSERT_EQ(a.kappa_band.size(), b.kappa_band.size());
  for (std::size_t it = 0; it < a.kappa_band.size(); ++it)
    for (std::size_t k = 0; k < a.kappa_band[it].size(); ++k)
      EXPECT_NEAR(b.kappa_band[it][k], a.kappa_band[it][k], 1e-10 * 100) << "iteration " << it;  // W/mK, kappa ~ 1e2
  for (std::size_t k = 0; k < a.F.size(); ++k) EXPECT_NEAR(b.F[k], a.F[k], 1e-10 * std::max(1.0, std::abs(a.F[k])));
}

}  // namespace
}  // namespace quanta::phonon::test
