// The Schroedinger eigenpairs against LAPACK (dstebz/dstein) and against the particle in a box.
#include <gtest/gtest.h>
#include <lapacke.h>

#include <cmath>
#include <random>
#include <vector>

#include "../kernels/schrodinger.hpp"
#include "quanta/mosfet/device.hpp"

using namespace quanta::mosfet;

namespace {

struct Matrices {
  int nx, nz, n;
  std::vector<double> d, e;
};

// The seed device's matrices for a potential with structure in x and z (a gate-like bump plus noise).
Matrices device_matrices(int nx, int nz, unsigned seed) {
  const DeviceGrid g = make_device_grid(Device{}, GridSize{nx, nz}, 0.1);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> noise(-0.02, 0.02);
  std::vector<double> v(static_cast<std::size_t>(nx) * nz);
  for (int i = 0; i < nx; ++i)
    for (int j = 0; j < nz; ++j)
      v[i * nz + j] = 0.3 * std::sin(3.14159 * i / (nx - 1)) * (1.0 + 0.5 * std::cos(6.28318 * j / (nz - 1))) + noise(rng);
  Matrices m{nx, nz, nz - 2, std::vector<double>(nx * 3 * (nz - 2)), std::vector<double>(nx * 3 * (nz - 2))};
  kernels::build_schrodinger_cpu({nx, nz, g.dz, v.data(), g.barrier.data(), g.inv_mass_z.data(), m.d.data(), m.e.data()});
  return m;
}

std::vector<double> lapack_eigenvalues(const double* d, const double* e, int n, int ns) {
  int m = 0, nsplit = 0;
  std::vector<double> w(n);
  std::vector<lapack_int> iblock(n), isplit(n);
  const int info = LAPACKE_dstebz('I', 'E', n, 0.0, 0.0, 1, ns, 0.0, d, e, &m, &nsplit, w.data(), iblock.data(), isplit.data());
  EXPECT_EQ(info, 0);
  EXPECT_EQ(m, ns);
  w.resize(ns);
  return w;
}

}  // namespace

// Multi-section (first call) and Newton refinement (later calls, seeded by the eigenvalues of another
// potential) against dstebz with abstol = 0 (LAPACK's most accurate); 1e-10 relative as the issue asks,
// met with margin: both resolve eigenvalues to ~n eps |T| ~ 1e-13 eV.
TEST(MosfetEigen, MatchesLapackDstebz) {
  const int ns = 6;
  const Matrices m = device_matrices(9, 65, 1);
  const Matrices other = device_matrices(9, 65, 2);  // a different potential: seeds the Newton refinement
  std::vector<double> eps(m.nx * 3 * ns), psi(m.nx * 3 * ns * m.nz), scratch(m.nx * 3 * ns * 2 * m.n);
  kernels::EigenProblem p = kernels::eigen_problem(m.nx, m.nz, ns, 0.1, m.d.data(), m.e.data(), eps.data(), psi.data(), scratch.data());
  kernels::eigenvalues_multisection_cpu(p);
  const std::vector<double> multisection = eps;
  // Newton from the other potential's eigenvalues.
  kernels::EigenProblem q = p;
  q.d = other.d.data();
  q.e = other.e.data();
  kernels::eigenvalues_multisection_cpu(q);  // eps now holds the other potential's levels
  kernels::eigenvalues_newton_cpu(p);        // refined for this potential
  kernels::eigenvectors_cpu(p);
  double worst_ms = 0, worst_nr = 0;
  for (int iv = 0; iv < m.nx * 3; ++iv) {
    const double* d = m.d.data() + iv * m.n;
    const double* e = m.e.data() + iv * m.n;
    const std::vector<double> ref = lapack_eigenvalues(d, e, m.n, ns);
    for (int k = 0; k < ns; ++k) {
      worst_ms = std::max(worst_ms, std::fabs(multisection[iv * ns + k] - ref[k]) / std::fabs(ref[k]));
      worst_nr = std::max(worst_nr, std::fabs(eps[iv * ns + k] - ref[k]) / std::fabs(ref[k]));
    }
    // Eigenvectors against dstein's, up to sign: |<psi, psi_lapack>| = 1 and the residual |T psi - eps psi|.
    std::vector<double> z(m.n * ns);
    std::vector<lapack_int> iblock(ns, 1), isplit(1, m.n), ifail(ns);
    ASSERT_EQ(LAPACKE_dstein(LAPACK_COL_MAJOR, m.n, d, e, ns, ref.data(), iblock.data(), isplit.data(), z.data(), m.n, ifail.data()), 0);
    for (int k = 0; k < ns; ++k) {
      const double* ps = psi.data() + (iv * ns + k) * m.nz;
      EXPECT_EQ(ps[0], 0.0);
      EXPECT_EQ(ps[m.nz - 1], 0.0);
      double dot = 0, norm = 0;
      for (int j = 0; j < m.n; ++j) {
        dot += ps[j + 1] * z[k * m.n + j];
        norm += ps[j + 1] * ps[j + 1];
      }
      EXPECT_NEAR(norm * p.dz, 1.0, 1e-12);
      EXPECT_NEAR(std::fabs(dot) / std::sqrt(norm), 1.0, 1e-10) << "(i, v) " << iv << " state " << k;
    }
  }
  EXPECT_LT(worst_ms, 1e-10);
  EXPECT_LT(worst_nr, 1e-10);
  std::printf("max relative difference to dstebz: multi-section %.2e, Newton-Raphson %.2e\n", worst_ms, worst_nr);
}

// A guess that has moved past a neighbouring level still finds its own level (the Sturm bracket).
TEST(MosfetEigen, NewtonFindsTheRightLevelFromAFarGuess) {
  const Matrices m = device_matrices(3, 65, 3);  // the first column's matrices (valley 1)
  const std::vector<double> ref = lapack_eigenvalues(m.d.data(), m.e.data(), m.n, 6);
  for (int p = 0; p < 6; ++p)
    for (int other = 0; other < 6; ++other)
      EXPECT_NEAR(kernels::eigenvalue_newton(m.d.data(), m.e.data(), m.n, p, ref[other], 1e-13), ref[p], 1e-10 * std::fabs(ref[p]));
}

// Particle in a box with the seed's mass 0.19 m_e: the discrete levels converge to hbar^2 pi^2 k^2 /
// (2 m L^2) at second order in dz (the error ratio between dz and dz/2 tends to 4).
TEST(MosfetEigen, ParticleInABoxConvergesAtSecondOrder) {
  const double mass = 0.19, L = 4.0;  // m_e, nm
  std::vector<double> err_prev;
  for (int nz : {33, 65, 129, 257}) {
    const double dz = L / (nz - 1);
    std::vector<double> v(nz, 0.0), barrier(nz, 0.0), inv_mass(3 * nz, 1.0 / mass), d(3 * (nz - 2)), e(3 * (nz - 2));
    kernels::build_schrodinger_cpu({1, nz, dz, v.data(), barrier.data(), inv_mass.data(), d.data(), e.data()});
    std::vector<double> eps(3 * 4), psi(3 * 4 * nz), scratch(3 * 4 * 2 * (nz - 2));
    const kernels::EigenProblem p = kernels::eigen_problem(1, nz, 4, dz, d.data(), e.data(), eps.data(), psi.data(), scratch.data());
    kernels::eigenvalues_multisection_cpu(p);
    std::vector<double> err;
    for (int k = 1; k <= 4; ++k) {
      const double exact = constants::hbar2_over_me * constants::pi * constants::pi * k * k / (2.0 * mass * L * L);
      err.push_back(exact - eps[k - 1]);  // the 3-point Laplacian underestimates
      EXPECT_GT(err.back(), 0.0);
    }
    if (!err_prev.empty())
      for (int k = 0; k < 4; ++k) {
        const double ratio = err_prev[k] / err[k];
        EXPECT_NEAR(ratio, 4.0, 0.05) << "nz = " << nz << ", level " << k + 1;
      }
    err_prev = err;
  }
}

// Two levels equal to working precision (the mirror-image states of the two oxide layers) far from zero,
// where the doubles are coarser than the tolerance: the bracket that should separate them cannot shrink
// below one ulp, and the refinement looped without end (a gate of 1e6 V, or eigen_tolerance 1e-15 at the
// oxide levels near 11 eV). Now each loop stops at the spacing of the doubles and returns the level.
TEST(MosfetEigen, DegenerateLevelsFarFromZeroEnd) {
  for (double shift : {11.0, 1e6}) {
    // Two identical uncoupled blocks: every level of the block twice.
    const int half = 8, n = 2 * half;
    std::vector<double> d(n, 2.0 + shift), e(n, -1.0);
    e[half - 1] = 0.0;
    e[n - 1] = 0.0;
    for (int p = 0; p < 4; ++p) {
      const double exact = shift + 2.0 - 2.0 * std::cos(3.141592653589793 * (p / 2 + 1) / (half + 1));
      const double found = kernels::eigenvalue_newton(d.data(), e.data(), n, p, exact + 1e-3, 1e-15);
      EXPECT_NEAR(found, exact, 1e-14 * std::fabs(shift) + 1e-13) << "shift " << shift << " level " << p;
    }
  }
}

// A loop at its limit says so: inverse iteration at a value that is no eigenvalue does not converge and
// returns -1 (the block then reports the eigenpair), and a matrix with a NaN gives NaN levels.
TEST(MosfetEigen, NonConvergenceIsReported) {
  const Matrices m = device_matrices(3, 33, 3);  // x node 0 only below
  const int ns = 2;
  std::vector<double> eps(3 * ns), psi(3 * ns * m.nz), scratch(3 * ns * 2 * m.n);
  kernels::EigenProblem p = kernels::eigen_problem(1, m.nz, ns, 0.1, m.d.data(), m.e.data(), eps.data(), psi.data(), scratch.data());
  kernels::eigenvalues_multisection_cpu(p);
  std::vector<double> q(m.n), y(2 * m.n);
  for (int j = 0; j < m.n; ++j) q[j] = kernels::start_vector(j, m.n);
  EXPECT_GT(kernels::inverse_iteration(m.d.data(), m.e.data(), m.n, eps[0], 1e-12, 50, q.data(), y.data(), y.data() + m.n), 0);
  const double between = 0.5 * (eps[0] + eps[1]);
  for (int j = 0; j < m.n; ++j) q[j] = kernels::start_vector(j, m.n);
  EXPECT_EQ(kernels::inverse_iteration(m.d.data(), m.e.data(), m.n, between, 1e-12, 50, q.data(), y.data(), y.data() + m.n), -1);
  // Through the kernel: the eigenpair's eigenvalue becomes NaN.
  eps[1] = between;
  kernels::eigenvectors_cpu(p);  // cold: from the start vector
  EXPECT_TRUE(std::isnan(eps[1]));
  EXPECT_FALSE(std::isnan(eps[0]));
  std::vector<double> d = m.d;
  d[5] = std::nan("");
  EXPECT_TRUE(std::isnan(kernels::eigenvalue_newton(d.data(), m.e.data(), m.n, 0, eps[0], 1e-13)));
  kernels::EigenProblem bad = p;
  bad.d = d.data();
  kernels::eigenvalues_multisection_cpu(bad);
  EXPECT_TRUE(std::isnan(eps[0]));
}
