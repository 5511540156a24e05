// The CUDA engine against the CPU oracle: one Newton iteration (every kernel once, from the same state)
// and the converged equilibrium, with both linear solvers. Skips without a GPU.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "quanta/core/backend.hpp"
#include "quanta/core/error.hpp"
#include "test_support.hpp"

using namespace quanta::mosfet;
using mosfet_test::max_diff;
using mosfet_test::max_rel;

class MosfetParity : public ::testing::TestWithParam<LinearSolver> {};

// Tolerance 1e-9 relative (the bound): the kernels evaluate the same QUANTA_HD formulas; the
// reductions sum in another order (1e-15), and Newton converges to 1e-11 V on both.
TEST_P(MosfetParity, CudaMatchesCpu) {
  if (quanta::cuda_device_count() == 0) GTEST_SKIP() << "no GPU";
  const DeviceGrid g = mosfet_test::seed_device(33, 49);
  for (int newton : {1, 60}) {
    BlockOptions o;
    o.linear_solver = GetParam();
    o.max_newton = newton;
    o.newton_tol = 1e-11;
    SchrodingerPoisson cpu(g, o, quanta::Backend::Cpu), gpu(g, o, quanta::Backend::Cuda);
    const BlockResult rc = cpu.solve_equilibrium(), rg = gpu.solve_equilibrium();
    EXPECT_EQ(rc.history.size(), rg.history.size());
    EXPECT_LT(max_rel(gpu.potential(), cpu.potential()), 1e-9) << newton << " Newton iterations";
    EXPECT_LT(max_rel(gpu.eigenvalues(), cpu.eigenvalues()), 1e-9);
    EXPECT_LT(max_rel(gpu.density(), cpu.density()), 1e-9);
    EXPECT_LT(max_rel(gpu.populations(), cpu.populations()), 1e-9);
    // Eigenvectors carry a fixed sign convention; compare them directly.
    EXPECT_LT(max_rel(gpu.eigenvectors(), cpu.eigenvectors()), 1e-8);
    for (std::size_t k = 0; k < rc.history.size() && k < rg.history.size(); ++k)
      EXPECT_NEAR(rg.history[k].residual, rc.history[k].residual, 1e-6 * rc.history[0].residual);
  }
  // Entry (a) on both from the CPU's populations.
  BlockOptions o;
  o.linear_solver = GetParam();
  SchrodingerPoisson cpu(g, o, quanta::Backend::Cpu), gpu(g, o, quanta::Backend::Cuda);
  ASSERT_TRUE(cpu.solve_equilibrium().converged);
  const auto rho = cpu.populations();
  SchrodingerPoisson a(g, o, quanta::Backend::Cpu);
  ASSERT_TRUE(a.solve(rho).converged);
  ASSERT_TRUE(gpu.solve(rho).converged);
  EXPECT_LT(max_rel(gpu.potential(), a.potential()), 1e-9);
}

// The direct solver's levels on grids that are not 2^k + 1 columns (a partial last level, three columns,
// an even count) and on blocks too large for shared memory (nz = 170: the Gauss-Jordan inversion runs in
// global memory): one Newton iteration from the same state on both backends, 1e-9 relative as above.
TEST(MosfetParityDirect, CudaMatchesCpuOnAwkwardGrids) {
  if (quanta::cuda_device_count() == 0) GTEST_SKIP() << "no GPU";
  for (auto [nx, nz] : {std::pair{3, 17}, std::pair{40, 33}, std::pair{19, 170}}) {
    const DeviceGrid g = mosfet_test::seed_device(nx, nz);
    BlockOptions o;
    o.linear_solver = LinearSolver::Direct;
    o.max_newton = 1;
    SchrodingerPoisson cpu(g, o, quanta::Backend::Cpu), gpu(g, o, quanta::Backend::Cuda);
    cpu.solve_equilibrium();
    gpu.solve_equilibrium();
    EXPECT_LT(max_rel(gpu.potential(), cpu.potential()), 1e-9) << nx << " x " << nz;
  }
}

INSTANTIATE_TEST_SUITE_P(Solvers, MosfetParity, ::testing::Values(LinearSolver::Direct, LinearSolver::Srj));

// The CUDA kernels report what the CPU ones report, with the same message: a NaN in the potential (the
// Gershgorin bounds and the inverse iteration turn it into a NaN level), SRJ at its cycle limit, and a
// degenerate pair of oxide levels with every eigenpair in the derivative (inverse iteration accepted at
// its limit as an eigenvector to working precision) converging as on the CPU.
TEST(MosfetParityFailures, CudaReportsAsCpu) {
  if (quanta::cuda_device_count() == 0) GTEST_SKIP() << "no GPU";
  const DeviceGrid g = mosfet_test::seed_device(17, 33);
  auto error_of = [&](quanta::Backend b, const BlockOptions& o, bool nan) {
    try {
      SchrodingerPoisson block(g, o, b);
      if (nan) {
        std::vector<double> v = block.potential();
        v[8 * g.nz + 16] = std::nan("");
        block.set_potential(v);
      }
      block.solve_equilibrium();
    } catch (const quanta::Error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  const std::string cpu_nan = error_of(quanta::Backend::Cpu, BlockOptions{}, true);
  EXPECT_NE(cpu_nan.find("x node 8"), std::string::npos) << cpu_nan;
  EXPECT_EQ(error_of(quanta::Backend::Cuda, BlockOptions{}, true), cpu_nan);
  BlockOptions srj;
  srj.linear_solver = LinearSolver::Srj;
  srj.srj_max_cycles = 1;
  const std::string gpu_srj = error_of(quanta::Backend::Cuda, srj, false);
  EXPECT_NE(gpu_srj.find("SRJ linear solver stopped after 1 cycles"), std::string::npos) << gpu_srj;
  BlockOptions all;
  all.frechet_states = g.nz - 2;
  EXPECT_EQ(error_of(quanta::Backend::Cuda, all, false), "");
  EXPECT_EQ(error_of(quanta::Backend::Cpu, all, false), "");
}

// The chord steps (BlockOptions::reuse_jacobian: the re-solve with the factored blocks kept by the direct
// solver, the chord right-hand side) on the GPU follow the CPU's: a call with the equilibrium populations,
// then one with populations changed by 2% along x (a Runge-Kutta stage's change), step for step; 1e-9
// relative as above. Grids with a full and a partial last level of the reduction.
TEST(MosfetParityDirect, ChordStepsMatchCpu) {
  if (quanta::cuda_device_count() == 0) GTEST_SKIP() << "no GPU";
  for (auto [nx, nz] : {std::pair{33, 49}, std::pair{40, 33}}) {
    const DeviceGrid g = mosfet_test::seed_device(nx, nz);
    BlockOptions o;
    o.newton_tol = 1e-11;
    SchrodingerPoisson eq(g, o, quanta::Backend::Cpu);
    ASSERT_TRUE(eq.solve_equilibrium().converged);
    const std::vector<double> rho = eq.populations();
    const std::vector<double> next = mosfet_test::perturbed(rho, nx, 0.02);
    o.reuse_jacobian = true;
    SchrodingerPoisson cpu(g, o, quanta::Backend::Cpu), gpu(g, o, quanta::Backend::Cuda);
    for (const std::vector<double>* populations : std::initializer_list<const std::vector<double>*>{&rho, &next}) {
      const BlockResult rc = cpu.solve(*populations);
      const BlockResult rg = gpu.solve(*populations);
      ASSERT_TRUE(rc.converged);
      ASSERT_TRUE(rg.converged);
      ASSERT_EQ(rc.history.size(), rg.history.size());
      for (std::size_t k = 0; k < rc.history.size(); ++k) {
        EXPECT_EQ(rg.history[k].chord, rc.history[k].chord) << "step " << k;
        EXPECT_NEAR(rg.history[k].residual, rc.history[k].residual, 1e-6 * rc.history[0].residual + 1e-12);
      }
      EXPECT_LT(max_rel(gpu.potential(), cpu.potential()), 1e-9) << nx << " x " << nz;
      EXPECT_LT(max_rel(gpu.eigenvalues(), cpu.eigenvalues()), 1e-9) << nx << " x " << nz;
    }
  }
}
