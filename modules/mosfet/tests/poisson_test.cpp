// The linear system of the block with the nonlocal term off: the plain Poisson equation of the device.
// SRJ and the block cyclic reduction solver against LAPACK's banded solver, and a manufactured solution.
#include <gtest/gtest.h>
#include <lapacke.h>

#include <cmath>
#include <vector>

#include "../kernels/linear_system.hpp"
#include "quanta/mosfet/device.hpp"

using namespace quanta::mosfet;

namespace {

struct Poisson {
  DeviceGrid g;
  std::vector<double> v, density, rows, rhs, diag;
  kernels::LinearSystem system() { return {g.nx, g.nz, rows.data(), rhs.data(), diag.data()}; }
  // Builds the system for the present density (the nonlocal term off).
  void build() {
    const std::size_t nodes = static_cast<std::size_t>(g.nx) * g.nz;
    rows.assign(nodes * (g.nz + 2), 0.0);
    rhs.assign(nodes, 0.0);
    diag.assign(nodes, 0.0);
    kernels::construct_system_cpu({g.nx, g.nz, g.dx, g.dz, g.eps_r.data(), g.doping.data(), g.dirichlet.data(),
                                   g.boundary_value.data(), v.data(), density.data(), nullptr, constants::q_over_eps0, system()});
  }
};

// The seed device with the gates at 0.6 V and a smooth electron density (a depleted channel).
Poisson device_problem(int nx, int nz) {
  Poisson p;
  p.g = make_device_grid(Device{}, GridSize{nx, nz}, 0.1);
  const std::size_t nodes = static_cast<std::size_t>(nx) * nz;
  p.v.assign(nodes, 0.1);
  p.density.assign(nodes, 0.0);
  for (int i = 0; i < nx; ++i)
    for (int j = 0; j < nz; ++j) {
      const double x = i * p.g.dx;
      p.density[i * nz + j] = p.g.doping[i * nz + j] * (0.5 + 0.5 * std::tanh(std::fabs(x - 15.0) - 4.0));
    }
  p.build();
  return p;
}

// The same rows solved by LAPACK's banded LU (dgbsv); row r = i nz + j couples r +- nz and the column's nz
// nodes, so both bandwidths are nz.
std::vector<double> lapack_banded_solve(Poisson& p) {
  const int nz = p.g.nz, n = p.g.nx * nz, kl = nz, ku = nz, ldab = 2 * kl + ku + 1;
  std::vector<double> ab(static_cast<std::size_t>(ldab) * n, 0.0), b = p.rhs;
  auto put = [&](int r, int c, double a) { ab[static_cast<std::size_t>(c) * ldab + kl + ku + r - c] += a; };  // column-major band
  for (int r = 0; r < n; ++r) {
    const int i = r / nz;
    const double* row = p.rows.data() + static_cast<std::size_t>(r) * (nz + 2);
    for (int jp = 0; jp < nz; ++jp)
      if (row[jp] != 0.0) put(r, i * nz + jp, row[jp]);
    if (row[nz] != 0.0) put(r, r - nz, row[nz]);
    if (row[nz + 1] != 0.0) put(r, r + nz, row[nz + 1]);
  }
  std::vector<lapack_int> ipiv(n);
  EXPECT_EQ(LAPACKE_dgbsv(LAPACK_COL_MAJOR, n, kl, ku, 1, ab.data(), ldab, ipiv.data(), b.data(), n), 0);
  return b;
}

double max_diff(const std::vector<double>& a, const std::vector<double>& b) {
  double m = 0;
  for (std::size_t k = 0; k < a.size(); ++k) m = std::max(m, std::fabs(a[k] - b[k]));
  return m;
}

}  // namespace

// Both of the block's solvers reproduce LAPACK's banded solution of the same discretization to 1e-8 V
// (the bound; the direct solver reaches round-off, SRJ its 1e-12 relative residual times the
// conditioning).
TEST(MosfetPoisson, SolversMatchLapackBanded) {
  for (auto [nx, nz] : {std::pair{33, 33}, std::pair{49, 65}}) {
    Poisson p = device_problem(nx, nz);
    const std::vector<double> ref = lapack_banded_solve(p);
    std::vector<double> direct = p.v, work, scratch;
    kernels::direct_solve_cpu(p.system(), direct.data(), work);
    std::vector<double> srj = p.v;
    const kernels::SrjStats st = kernels::srj_solve_cpu(p.system(), srj.data(), 1e-12, 100000, scratch);
    EXPECT_TRUE(st.converged);
    EXPECT_LT(max_diff(direct, ref), 1e-12) << nx << " x " << nz;
    EXPECT_LT(max_diff(srj, ref), 1e-8) << nx << " x " << nz;
    std::printf("%d x %d: direct %.2e V, SRJ %.2e V after %d steps (%d cycles)\n", nx, nz, max_diff(direct, ref),
                max_diff(srj, ref), st.steps, st.cycles);
  }
}

// A manufactured solution: V = 0.3 cos(pi x / Lx) cos(pi z / Lz) + 0.2 satisfies the homogeneous Neumann
// conditions on every side; the contacts and gates carry its values and the charge is set to
// -eps_r lap V / C. Uniform permittivity (the 5-point stencil is second order there): the error falls
// by 4 per halving of the spacing.
TEST(MosfetPoisson, ManufacturedSolutionConvergesAtSecondOrder) {
  double err_prev = 0;
  for (int n : {17, 33, 65, 129}) {
    Poisson p;
    Device dev;
    dev.materials.eps_ox = dev.materials.eps_si;
    p.g = make_device_grid(dev, GridSize{n, n}, 0.0);
    const double Lx = dev.geometry.length(), Lz = dev.geometry.width(), eps = dev.materials.eps_si;
    auto exact = [&](double x, double z) { return 0.3 * std::cos(constants::pi * x / Lx) * std::cos(constants::pi * z / Lz) + 0.2; };
    const std::size_t nodes = static_cast<std::size_t>(n) * n;
    p.v.assign(nodes, 0.0);
    p.density.assign(nodes, 0.0);
    std::vector<double> ref(nodes);
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) {
        const double x = i * p.g.dx, z = j * p.g.dz, val = exact(x, z);
        const std::size_t r = static_cast<std::size_t>(i) * n + j;
        ref[r] = val;
        p.g.boundary_value[r] = val;
        // -eps lap V = C (N_D - N)
        p.g.doping[r] = eps * constants::pi * constants::pi * (1 / (Lx * Lx) + 1 / (Lz * Lz)) * (val - 0.2) / constants::q_over_eps0;
      }
    p.build();
    std::vector<double> work;
    kernels::direct_solve_cpu(p.system(), p.v.data(), work);
    const double err = max_diff(p.v, ref);
    if (err_prev > 0) EXPECT_NEAR(err_prev / err, 4.0, 0.3) << "n = " << n;
    std::printf("n = %d: max error %.3e V\n", n, err);
    err_prev = err;
  }
}

// The direct solver keeps every level's factored blocks: another right-hand side of the same matrix
// (direct_resolve_cpu, the block's chord steps) gives LAPACK's banded solution of that right-hand side to
// round-off, on a 2^k + 1 grid and on grids with a partial last level.
TEST(MosfetPoisson, ResolveMatchesLapackForANewRightHandSide) {
  for (auto [nx, nz] : {std::pair{33, 33}, std::pair{40, 17}, std::pair{3, 9}}) {
    Poisson p = device_problem(nx, nz);
    std::vector<double> u = p.v, work;
    kernels::direct_solve_cpu(p.system(), u.data(), work);
    std::vector<double> rhs(p.rhs.size());
    for (std::size_t r = 0; r < rhs.size(); ++r) rhs[r] = std::sin(0.37 * r) + 0.1 * std::cos(1.3 * r);
    p.rhs = rhs;
    const std::vector<double> ref = lapack_banded_solve(p);
    std::vector<double> again(rhs.size(), 0.0);
    kernels::direct_resolve_cpu(nx, nz, rhs.data(), again.data(), work);
    double scale = 0;
    for (double x : ref) scale = std::max(scale, std::fabs(x));
    EXPECT_LT(max_diff(again, ref), 1e-12 * scale) << nx << " x " << nz;
    std::printf("%d x %d: re-solve %.2e relative to LAPACK\n", nx, nz, max_diff(again, ref) / scale);
  }
}
