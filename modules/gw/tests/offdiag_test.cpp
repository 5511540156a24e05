// Off-diagonal self-energy elements <n|Sigma(E_l)|m> (BerkeleyGW's sigma_matrix) on the silicon example,
// against BerkeleyGW 3.0's sigma.real.x run on the same eps0mat.h5/epsmat.h5, WFN_inner, RHO and VXC
// (tests/data/si-bgw/bgw-offdiag, its README says how), and against quanta's own diagonal kernel.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <tuple>
#include <vector>

#include "quanta/core/io/hdf5.hpp"
#include "quanta/gw/inputs.hpp"
#include "quanta/gw/mean_field.hpp"
#include "quanta/gw/run.hpp"
#include "quanta/gw/sigma.hpp"
#include "quanta/test/data.hpp"

namespace fs = std::filesystem;
using namespace quanta::gw;

namespace {

const std::string kSi = quanta::test::data_path("gw/si-bgw").string() + "/";

// The "real" rows of sigma_hp.log's off-diagonal sections: (k-point index, n, m, l) -> X, SX-X, CH, Sig, Vxc.
using Key = std::tuple<int, int, int, int>;
std::map<Key, std::vector<double>> offdiag_rows(const std::string& file) {
  std::map<Key, std::vector<double>> rows;
  std::ifstream in(file);
  int ik = 0;
  for (std::string line; std::getline(in, line);) {
    if (line.find(" k =") != std::string::npos && line.find("ik =") != std::string::npos) ++ik;
    std::istringstream s(line);
    int n, m, l;
    std::string kind;
    if (!(s >> n >> m >> l >> kind) || kind != "real") continue;
    std::vector<double> v(5);
    for (double& x : v) s >> x;
    if (s) rows[{ik, n, m, l}] = v;
  }
  return rows;
}

class GwSiliconOffdiag : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    out = fs::temp_directory_path() / ("quanta-gw-si-offdiag-" + std::to_string(::getpid()));
    fs::create_directories(out);
    // BerkeleyGW's sigma.inp (sigma_matrix -1 0, dont_use_vxcdat, k-points 1 and 3 of the example) and quanta's
    // frequency grid for the self-consistent Dyson solution, which does not change the elements.
    // With another mean field of the example (silicon_complex.sh: the Complex flavour, whose vxc.dat holds the
    // off-diagonal <n|Vxc|m>), those files, and Vxc from vxc.dat (dont_use_vxcdat dropped).
    const char* other = std::getenv("QUANTA_GW_SI_MEANFIELD");
    {
      std::ifstream in(kSi + "bgw-offdiag/sigma.inp");
      std::ofstream copy(out / "sigma.inp");
      for (std::string line; std::getline(in, line);)
        if (!other || line.find("dont_use_vxcdat") == std::string::npos) copy << line << "\n";
      copy << "sigma_matrix_frequency_grid 48 2.0\n";
    }
    RunOptions o;
    o.input_dir = kSi + "bgw-offdiag";
    o.sigma_input = out / "sigma.inp";
    o.eps0mat = kSi + "bgw-epsmat/eps0mat.h5";
    o.epsmat = kSi + "bgw-epsmat/epsmat.h5";
    o.wfn = o.wfnq = "not-read";
    o.epsilon_input = "not-read.inp";
    o.wfn_inner = kSi + "mean-field/04-wfn_co/WFN_co";
    o.rho = kSi + "mean-field/04-wfn_co/RHO";
    o.vxc = kSi + "mean-field/04-wfn_co/vxc.dat";  // present, and not used (dont_use_vxcdat)
    o.vxc_potential = kSi + "mean-field/04-wfn_co/VXC";
    if (other) {
      const fs::path d(other);
      o.wfn_inner = d / "WFN_co", o.rho = d / "RHO", o.vxc = d / "vxc.dat", o.vxc_potential = d / "VXC";
    }
    o.output_dir = out;
    o.quiet = true;
    run(o);
  }
  static void TearDownTestSuite() { fs::remove_all(out); }
  static fs::path out;
};
fs::path GwSiliconOffdiag::out;

// Every element of the 14 x 14 matrices at both k-points. Tolerances (eV), from what the diagonal shows
// against the same BerkeleyGW run: X and Vxc are exact sums (9 printed decimals; measured 6e-8 and 0);
// SX-X and CH split a term near a plasmon pole differently (docs/gw.md: the diagonal's columns differ by up
// to 1.7e-3 while their sum agrees to 1.5e-5; here measured 9e-5 each), so they are held to 2e-3 as the
// diagonal's, and their sum Sig (measured 9e-6) to 1e-4.
// Elements zero by symmetry (bands of degenerate sets of different sizes) are exactly zero in both.
TEST_F(GwSiliconOffdiag, ElementsMatchBerkeleyGW) {
  // Complex states carry arbitrary phases (and any basis within a degenerate set), so their elements differ from the
  // Real flavour's by those; the gauge-free checks below (eigenvalues, Dyson, traces) still apply.
  if (std::getenv("QUANTA_GW_SI_MEANFIELD")) GTEST_SKIP() << "elements depend on the states' phases; BerkeleyGW's are from the Real flavour";
  const auto ours = offdiag_rows((out / "sigma_hp.log").string());
  const auto ref = offdiag_rows(kSi + "bgw-offdiag/sigma_hp.log");
  ASSERT_EQ(ref.size(), 2u * 14 * 14);
  ASSERT_EQ(ours.size(), ref.size());
  const double tol[5] = {1e-6, 2e-3, 2e-3, 1e-4, 1e-8};
  const char* names[5] = {"X", "SX-X", "CH", "Sig", "Vxc"};
  double worst[5] = {};
  int zeros = 0;
  for (const auto& [key, r] : ref) {
    const auto it = ours.find(key);
    ASSERT_NE(it, ours.end()) << "k " << std::get<0>(key) << " element " << std::get<1>(key) << " " << std::get<2>(key);
    const auto& q = it->second;
    if (r[0] == 0 && r[1] == 0 && r[2] == 0) {
      ++zeros;
      for (int c = 0; c < 4; ++c) EXPECT_EQ(q[c], 0.0) << names[c] << ", k " << std::get<0>(key) << " <" << std::get<1>(key) << "|" << std::get<2>(key) << ">";
    }
    for (int c = 0; c < 5; ++c) {
      EXPECT_NEAR(q[c], r[c], tol[c]) << names[c] << ", k " << std::get<0>(key) << " <" << std::get<1>(key) << "|" << std::get<2>(key) << ">";
      worst[c] = std::max(worst[c], std::abs(q[c] - r[c]));
    }
  }
  std::printf("  off-diagonal, largest |quanta - BerkeleyGW| over %zu elements (%d zero by symmetry): X %.1e, SX-X %.1e, CH %.1e, Sig %.1e, "
              "Vxc %.1e eV\n", ref.size(), zeros, worst[0], worst[1], worst[2], worst[3], worst[4]);
  EXPECT_GT(zeros, 0);
}

// The diagonal elements <n|Sigma(E_n)|n> of the matrix path (ZGEMMs) against the diagonal kernel's table
// (same run, the same q-points): averaged over each degenerate set as the table is, X, SX-X and CH agree to
// 1e-10 relative (the same sums in another order). Also the elements are the Hermitian pairs' where E_l is
// shared: with l = -1 only the diagonal is; here the check is that <n|X|m> = conj(<m|X|n>) (X is static).
TEST_F(GwSiliconOffdiag, DiagonalIsTheDiagonalKernels) {
  const quanta::io::H5File f(out / "quanta-gw.h5", quanta::io::H5File::Mode::Read);
  const auto nml = f.read_ints("sigma/offdiag/bands");
  const auto x = f.read_doubles("sigma/offdiag/x"), sx = f.read_doubles("sigma/offdiag/sx_x"), ch = f.read_doubles("sigma/offdiag/ch");
  const auto bands = f.read_ints("sigma/bands");
  const auto emf = f.read_doubles("sigma/emf"), dx = f.read_doubles("sigma/x"), dsx = f.read_doubles("sigma/sx_x"), dch = f.read_doubles("sigma/ch");
  const std::size_t noff = nml.size() / 3, nb = bands.size(), nk = emf.size() / nb;
  ASSERT_EQ(nk, 2u);
  std::map<std::pair<int, int>, std::size_t> at;  // (n, m) -> element
  for (std::size_t e = 0; e < noff; ++e) at[{static_cast<int>(nml[3 * e]), static_cast<int>(nml[3 * e + 1])}] = e;
  double worst = 0, worst_herm = 0;
  for (std::size_t k = 0; k < nk; ++k)
    for (std::size_t first = 0; first < nb;) {
      std::size_t last = first + 1;
      while (last < nb && std::abs(emf[k * nb + last] - emf[k * nb + first]) < 1e-6 * 13.6) ++last;
      double avg[3] = {};
      for (std::size_t i = first; i < last; ++i) {
        const std::size_t e = k * noff + at.at({static_cast<int>(bands[i]), static_cast<int>(bands[i])});
        avg[0] += x[2 * e] / (last - first);
        avg[1] += sx[4 * e] / (last - first);  // [E_l][re, im]: E_l's real part
        avg[2] += ch[4 * e] / (last - first);
      }
      const double table[3] = {dx[k * nb + first], dsx[k * nb + first], dch[k * nb + first]};
      for (int c = 0; c < 3; ++c) worst = std::max(worst, std::abs(avg[c] - table[c]) / std::abs(table[c]));
      first = last;
    }
  for (std::size_t k = 0; k < nk; ++k)
    for (const auto& [nm, e] : at) {
      const std::size_t t = at.at({nm.second, nm.first});
      const double* a = &x[2 * (k * noff + e)];
      const double* b = &x[2 * (k * noff + t)];
      worst_herm = std::max(worst_herm, std::hypot(a[0] - b[0], a[1] + b[1]));
    }
  std::printf("  diagonal of the matrix path vs the diagonal kernel: %.1e relative; X Hermitian within %.1e eV\n", worst, worst_herm);
  EXPECT_LT(worst, 1e-10);
  EXPECT_LT(worst_herm, 1e-10);
}

// The eigenvalues of the quasiparticle Hamiltonian (offdiag.log) against those BerkeleyGW's offdiag.x printed
// from its own sigma_hp.log: the same layout, and values within 2e-4 eV (the elements agree within 1e-4 eV,
// and a perturbation of a 14 x 14 matrix by elements of that size moves its eigenvalues by about as much;
// offdiag.x also reads the elements rounded to 1e-9 eV).
TEST_F(GwSiliconOffdiag, QuasiparticleHamiltonianEigenvaluesMatchOffdiagX) {
  auto eigenvalues = [](const std::string& file, std::vector<int>* iks) {
    std::vector<std::vector<double>> v;  // [row][re, im]
    std::ifstream in(file);
    for (std::string line; std::getline(in, line);) {
      if (line.rfind(" ik =", 0) == 0) iks->push_back(std::atoi(line.c_str() + 5));
      std::istringstream s(line);
      int i;
      double re, im;
      std::string rest;
      if (s >> i >> re >> im && !(s >> rest)) v.push_back({re, im});
    }
    return v;
  };
  std::vector<int> ik_ours, ik_ref;
  const auto ours = eigenvalues((out / "offdiag.log").string(), &ik_ours);
  const auto ref = eigenvalues(kSi + "bgw-offdiag/offdiag.out", &ik_ref);
  ASSERT_EQ(ref.size(), 28u);
  ASSERT_EQ(ours.size(), ref.size());
  EXPECT_EQ(ik_ours, ik_ref);
  double worst = 0;
  for (std::size_t i = 0; i < ref.size(); ++i) {
    EXPECT_NEAR(ours[i][0], ref[i][0], 2e-4) << "eigenvalue " << i;
    EXPECT_NEAR(ours[i][1], ref[i][1], 2e-4) << "eigenvalue " << i;
    worst = std::max({worst, std::abs(ours[i][0] - ref[i][0]), std::abs(ours[i][1] - ref[i][1])});
  }
  std::printf("  quasiparticle Hamiltonian: eigenvalues within %.1e eV of offdiag.x's\n", worst);
}

// The self-consistent solutions of Dyson's equation on the frequency grid (48 frequencies, 0.55-0.6 eV apart,
// Sigma interpolated by a cubic) against the linearized diagonal solution Eqp1 of the same run, both sorted.
// They differ by the mixing of the bands (|<n|Sig - Vxc|m>| up to 0.21 eV across gaps of 15-20 eV: shifts of
// order 0.003 eV) and by the curvature of Sigma over |Eqp - Emf| (up to 0.5 eV for band 1), which Eqp1's
// straight line leaves out; the grid adds its interpolation error (at Gamma, measured: 48 points with a cubic
// agree with 48 with straight lines within 5e-4 eV, while 12 points are off by up to 0.017 eV). 0.02 eV bounds
// the measured 0.015 eV (both k-points; 0.013 eV for band 1 at Gamma).
TEST_F(GwSiliconOffdiag, DysonSolutionsOnTheGridAreNearEqp1) {
  const quanta::io::H5File f(out / "quanta-gw.h5", quanta::io::H5File::Mode::Read);
  const auto dyson = f.read_doubles("sigma/offdiag/dyson_energies");  // [k][i][re, im]
  const auto eqp1 = f.read_doubles("sigma/eqp1");                      // [k][band]
  const auto w = f.read_doubles("sigma/offdiag/grid_omega");
  ASSERT_EQ(dyson.size(), 2u * 2 * 14);
  ASSERT_EQ(w.size(), 2u * 48);
  double worst = 0, worst_im = 0;
  for (int k = 0; k < 2; ++k) {
    std::vector<double> e1(eqp1.begin() + 14 * k, eqp1.begin() + 14 * (k + 1));
    std::sort(e1.begin(), e1.end());
    for (int i = 0; i < 14; ++i) {
      const double d = dyson[(k * 14 + i) * 2];
      EXPECT_NEAR(d, e1[i], 0.02) << "k " << k << ", solution " << i;
      worst = std::max(worst, std::abs(d - e1[i]));
      worst_im = std::max(worst_im, std::abs(dyson[(k * 14 + i) * 2 + 1]));
    }
  }
  std::printf("  Dyson on the grid vs Eqp1: largest difference %.1e eV; largest imaginary part %.1e eV\n", worst, worst_im);
  std::ifstream eqp(out / "eqp_dyson.dat");
  EXPECT_TRUE(eqp.good());
}

// The off-diagonal <n|Vxc|m> of vxc.dat (pw2bgw.x, Complex flavour: complex values) against those computed from the
// potential VXC of the same run, sum_G V(G) <n|e^{iG.r}|m>: the same convention (n the bra) and values within
// 1e-6 eV (vxc.dat prints 9 decimals in eV; QE's Rydberg differs from BerkeleyGW's by 4.4e-8 relative, 5e-7 eV
// on the 10 eV diagonal). Runs with silicon_complex.sh, whose vxc.dat has them.
TEST(GwVxcOffdiag, VxcDatMatchesThePotential) {
  const char* other = std::getenv("QUANTA_GW_SI_MEANFIELD");
  if (!other) GTEST_SKIP() << "the example's vxc.dat holds no off-diagonal elements (silicon_complex.sh makes one that does)";
  const fs::path d(other);
  const auto inner = read_wfn(d / "WFN_co", 32);
  SigmaParams p = read_sigma_inp(kSi + "bgw-offdiag/sigma.inp");
  const auto from_dat = read_vxc_dat(d / "vxc.dat");
  const auto from_potential = vxc_from_potential(inner, read_vxc(d / "VXC"), p);
  double worst = 0, largest_im = 0;
  for (const auto& k : p.kpoints)
    for (const auto& e : p.offdiag) {
      const quanta::cplx a = from_dat.element(k, e.n, e.m), b = from_potential.element(k, e.n, e.m);
      worst = std::max(worst, quanta::abs(a - b));
      largest_im = std::max(largest_im, std::abs(a.im));
      EXPECT_LT(quanta::abs(a - b), 1e-6) << "<" << e.n << "|Vxc|" << e.m << ">";
    }
  std::printf("  <n|Vxc|m>: vxc.dat vs the potential within %.1e eV (largest imaginary part %.2f eV)\n", worst, largest_im);
}

}  // namespace
