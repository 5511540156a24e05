// What is not a result stops with an Error naming the stage, the Newton iteration and the quantity:
// a potential that is not finite, surface densities that are not, SRJ at its cycle limit, a grid whose
// arrays exceed the host memory; Newton-Raphson at max_newton is returned as not converged, with a
// message giving the limit and the last change.
#include <gtest/gtest.h>
#include "quanta/test/sanitizer.hpp"
#include <sys/resource.h>

#include <cmath>
#include <functional>
#include <limits>
#include <string>

#include "quanta/core/error.hpp"
#include "test_support.hpp"

using namespace quanta::mosfet;

namespace {
std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const quanta::Error& e) {
    return e.what();
  }
  return "";
}
}  // namespace

// A NaN in the potential used to run through the eigenvalues and the density (max-norms drop NaN) to
// max_newton iterations or a "converged" NaN state.
TEST(MosfetFailures, NonFinitePotentialStopsNamingTheStage) {
  const DeviceGrid g = mosfet_test::seed_device(17, 33);
  SchrodingerPoisson block(g, BlockOptions{}, quanta::Backend::Cpu);
  std::vector<double> v = block.potential();
  v[8 * g.nz + 16] = std::numeric_limits<double>::quiet_NaN();
  block.set_potential(v);
  const std::string e = error_of([&] { block.solve_equilibrium(); });
  EXPECT_NE(e.find("Schroedinger stage before the first Newton-Raphson iteration"), std::string::npos) << e;
  EXPECT_NE(e.find("x node 8"), std::string::npos) << e;
}

// Entry (a) takes the populations from the caller: one that is not finite or negative is refused.
TEST(MosfetFailures, NonFiniteDensitiesStopNamingTheQuantity) {
  const DeviceGrid g = mosfet_test::seed_device(17, 33);
  BlockOptions o;
  SchrodingerPoisson block(g, o, quanta::Backend::Cpu);
  std::vector<double> rho(static_cast<std::size_t>(g.nx) * 3 * o.subbands, 1e-3);
  rho[5] = std::numeric_limits<double>::infinity();
  const std::string e = error_of([&] { block.solve(rho); });
  EXPECT_NE(e.find("surface density 5"), std::string::npos) << e;
  rho[5] = -1e-3;
  EXPECT_NE(error_of([&] { block.solve(rho); }).find("finite densities >= 0"), std::string::npos);
}

// SRJ at srj_max_cycles was ignored: the Newton step went on with an unconverged linear solution.
TEST(MosfetFailures, SrjAtItsCycleLimitStops) {
  const DeviceGrid g = mosfet_test::seed_device(17, 33);
  BlockOptions o;
  o.linear_solver = LinearSolver::Srj;
  o.srj_max_cycles = 1;
  SchrodingerPoisson block(g, o, quanta::Backend::Cpu);
  const std::string e = error_of([&] { block.solve_equilibrium(); });
  EXPECT_NE(e.find("Newton-Raphson iteration 1 of at most 60"), std::string::npos) << e;
  EXPECT_NE(e.find("SRJ linear solver stopped after 1 cycles"), std::string::npos) << e;
}

// Newton-Raphson at its limit: returned as not converged, with the numbers for the message.
TEST(MosfetFailures, NewtonAtItsLimitSaysSo) {
  const DeviceGrid g = mosfet_test::seed_device(17, 33);
  BlockOptions o;
  o.max_newton = 2;
  SchrodingerPoisson block(g, o, quanta::Backend::Cpu);
  const BlockResult r = block.solve_equilibrium();
  ASSERT_FALSE(r.converged);
  ASSERT_EQ(r.history.size(), 2u);
  const std::string m = not_converged_message(r, o);
  EXPECT_NE(m.find("max_newton = 2"), std::string::npos) << m;
  EXPECT_NE(m.find("newton_tolerance 1.000e-09 V"), std::string::npos) << m;
  EXPECT_TRUE(not_converged_message(BlockResult{true, {}, 0.0}, o).empty());
}

// A gate far beyond any physical bias (refused by the config reader; the library takes it) ends in
// bounded time with a reported failure or non-convergence, never a loop without end.
TEST(MosfetFailures, AbsurdBiasEndsInBoundedTime) {
  const DeviceGrid g = mosfet_test::seed_device(17, 33, 1e6);
  BlockOptions o;
  o.max_newton = 10;
  SchrodingerPoisson block(g, o, quanta::Backend::Cpu);
  bool converged = false;
  const std::string e = error_of([&] { converged = block.solve_equilibrium().converged; });
  EXPECT_FALSE(converged && e.empty()) << "a converged equilibrium at a gate of 1e6 V";
  std::printf("gate 1e6 V: %s\n", e.empty() ? "not converged in 10 iterations" : e.c_str());
}

// The host memory a grid needs is checked before anything is allocated: under a 2 GiB address-space
// limit a 1025 x 513 grid (about 20 GiB on the CPU: about 10 nx nz^2 doubles, of which the direct solver's
// blocks of every level, kept for the chord steps' re-solves, are 7) is refused with both numbers, not by bad_alloc.
TEST(MosfetFailures, GridBeyondHostMemoryIsRefusedWithNumbers) {
  QUANTA_SKIP_UNDER_ASAN();
  Device dev;
  const GridSize size{1025, 513};
  const DeviceGrid g = make_device_grid(dev, size, 0.1);
  EXPECT_GT(host_bytes(g, BlockOptions{}, quanta::Backend::Cpu), 12ull << 30);
  EXPECT_LT(host_bytes(g, BlockOptions{}, quanta::Backend::Cpu), 24ull << 30);
  rlimit old{};
  ASSERT_EQ(getrlimit(RLIMIT_AS, &old), 0);
  rlimit tight = old;
  tight.rlim_cur = 2ull << 30;
  if (old.rlim_max != RLIM_INFINITY && old.rlim_max < tight.rlim_cur) tight.rlim_cur = old.rlim_max;
  ASSERT_EQ(setrlimit(RLIMIT_AS, &tight), 0);
  std::string e;
  try {
    SchrodingerPoisson block(g, BlockOptions{}, quanta::Backend::Cpu);
  } catch (const quanta::Error& x) {
    e = x.what();
  } catch (const std::bad_alloc&) {
    e = "std::bad_alloc";
  }
  setrlimit(RLIMIT_AS, &old);
  EXPECT_NE(e.find("1025 x 513 grid"), std::string::npos) << e;
  EXPECT_NE(e.find("GiB of host memory"), std::string::npos) << e;
}
