// The mean-field readers against the physics the files must carry (normalized, orthogonal states; a
// density with the crystal's symmetry and 8 electrons), the input parsers, bad input, and the binary
// VXC against vxc.dat.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>

#include "quanta/gw/inputs.hpp"
#include "quanta/gw/mean_field.hpp"
#include "quanta/gw/sigma.hpp"
#include "../../../core/tests/test_support.hpp"

namespace fs = std::filesystem;
using namespace quanta::gw;
using quanta::cplx;

namespace {

const std::string kMf = std::string(QUANTA_SHARED_DIR) + "/reference/gw/si-bgw/mean-field/";

TEST(GwReaders, WfnHeaderAndOrthonormalStates) {
  const auto w = read_wfn(kMf + "04-wfn_co/WFN_co");
  EXPECT_FALSE(w.complex_flavour);
  EXPECT_EQ(w.nk(), 10);
  EXPECT_EQ(w.nbands, 33);
  EXPECT_EQ(w.crystal.rotation.size(), 48u);
  EXPECT_DOUBLE_EQ(w.ecutwfc, 25.0);
  const double a = 10.2612;
  EXPECT_NEAR(w.crystal.celvol, a * a * a / 4, 1e-9);
  EXPECT_EQ(w.kgrid, (Vec3i{5, 5, 5}));
  EXPECT_EQ(w.gvec_rho.size(), 4573u);
  for (int k : {0, 9}) {
    const std::size_t ng = w.gvec[k].size();
    for (int a = 0; a < 6; ++a)
      for (int b = a; b < 6; ++b) {
        cplx s;
        for (std::size_t g = 0; g < ng; ++g) s += conj(w.band(k, a)[g]) * w.band(k, b)[g];
        EXPECT_NEAR(s.re, a == b ? 1.0 : 0.0, 1e-9) << "k " << k << " bands " << a << ", " << b;
      }
  }
}

TEST(GwReaders, DensityHasTheCrystalsSymmetryAndEightElectrons) {
  const auto d = read_rho(kMf + "04-wfn_co/RHO");
  std::map<Vec3i, cplx> rho;
  for (std::size_t i = 0; i < d.gvec.size(); ++i) rho[d.gvec[i]] = d.rho[i];
  EXPECT_NEAR(rho[(Vec3i{0, 0, 0})].re, 8.0, 1e-6);
  // rho(R g) = exp(-i (R g).tnp) rho(g) for every operation: checks how mtrx and tnp are read.
  for (std::size_t s = 0; s < d.crystal.rotation.size(); ++s) {
    const auto& R = d.crystal.rotation[s];
    const auto& t = d.crystal.tnp[s];
    for (std::size_t i = 0; i < 200; ++i) {
      const auto& g = d.gvec[i];
      const Vec3i rg{R[0] * g[0] + R[1] * g[1] + R[2] * g[2], R[3] * g[0] + R[4] * g[1] + R[5] * g[2], R[6] * g[0] + R[7] * g[1] + R[8] * g[2]};
      ASSERT_TRUE(rho.count(rg)) << "operation " << s + 1;
      const cplx expected = quanta::expi(-(rg[0] * t[0] + rg[1] * t[1] + rg[2] * t[2])) * rho[g];
      EXPECT_NEAR(rho[rg].re, expected.re, 1e-9) << "operation " << s + 1 << " G " << i;
      EXPECT_NEAR(rho[rg].im, expected.im, 1e-9) << "operation " << s + 1 << " G " << i;
    }
  }
}

TEST(GwReaders, VxcDat) {
  const auto v = read_vxc_dat(kMf + "04-wfn_co/vxc.dat");
  EXPECT_EQ(v.blocks.size(), 10u);
  EXPECT_DOUBLE_EQ(v.diagonal({0, 0, 0}, 1), -10.446722719);
  quanta::test::expect_error<quanta::InputError>([&] { v.diagonal({0, 0, 0}, 20); }, {"vxc.dat", "band 20"});
}

TEST(GwInputs, BerkeleyGWKeywordFiles) {
  const auto e = read_epsilon_inp(std::string(QUANTA_SHARED_DIR) + "/reference/gw/si-bgw/bgw-inputs/epsilon.inp");
  EXPECT_DOUBLE_EQ(e.ecut, 10.0);
  EXPECT_EQ(e.nbands, 29);
  ASSERT_EQ(e.qpoints.size(), 10u);
  EXPECT_TRUE(e.qpoints[0].q0);
  EXPECT_DOUBLE_EQ(e.qpoints[0].q[2], 0.001);
  const auto s = read_sigma_inp(std::string(QUANTA_SHARED_DIR) + "/reference/gw/si-bgw/bgw-inputs/sigma.inp");
  EXPECT_EQ(s.nbands, 32);
  EXPECT_EQ(s.band_min, 1);
  EXPECT_EQ(s.band_max, 14);
  EXPECT_EQ(s.kpoints.size(), 10u);
}

TEST(GwBadInput, NamesTheFileRecordAndLine) {
  quanta::test::TempDir dir;
  // A truncated WFN.
  fs::copy_file(kMf + "04-wfn_co/WFN_co", dir / "WFN");
  fs::resize_file(dir / "WFN", 100000);
  quanta::test::expect_error<quanta::InputError>([&] { read_wfn(dir / "WFN"); }, {"WFN", "record", "BerkeleyGW"});
  // A density where wavefunctions are expected.
  quanta::test::expect_error<quanta::InputError>([&] { read_wfn(kMf + "04-wfn_co/RHO"); }, {"RHO", "title", "'RHO-Real'", "'WFN-Real'"});
  // Keyword files.
  const auto eps = dir.write("epsilon.inp", "epsilon_cutoff 10.0\nnumber_bands 29\nepsilon_cutof 3\n");
  quanta::test::expect_error<quanta::InputError>([&] { read_epsilon_inp(eps); }, {"epsilon.inp:3", "epsilon_cutof"});
  const auto eps2 = dir.write("eps2.inp", "epsilon_cutoff ten\n");
  quanta::test::expect_error<quanta::InputError>([&] { read_epsilon_inp(eps2); }, {"eps2.inp:1", "epsilon_cutoff", "'ten'", "a number"});
  const auto eps3 = dir.write("eps3.inp", "epsilon_cutoff 10\nnumber_bands 29\nbegin qpoints\n 0 0 0.1 1.0 0\n");
  quanta::test::expect_error<quanta::InputError>([&] { read_epsilon_inp(eps3); }, {"eps3.inp:3", "end"});
  const auto sig = dir.write("sigma.inp", "number_bands 32\nband_index_min 1\nband_index_max 4\nscreening_metal\n");
  quanta::test::expect_error<quanta::InputError>([&] { read_sigma_inp(sig); }, {"sigma.inp:4", "screening_metal", "screening_semiconductor"});
  const auto vxc = dir.write("vxc.dat", "0.0 0.0 0.0 2 0\n 1 1 -10.4 0.0\n 1 x -11.2 0.0\n");
  quanta::test::expect_error<quanta::InputError>([&] { read_vxc_dat(vxc); }, {"vxc.dat:3", "band"});
}

}  // namespace

// BerkeleyGW's binary VXC (pw2bgw.x's vxcg_file, written by QE in a rerun of the run that wrote vxc.dat;
// see data/README.md): a real potential on the density's sphere, and the diagonal matrix elements
// computed from it equal the ones pw2bgw.x wrote into vxc.dat.
// Units: quanta (as BerkeleyGW) turns Ry into eV with BerkeleyGW's Rydberg, 13.60569253 eV (CODATA
// 2010); pw2bgw.x wrote vxc.dat with QE 6.7's, 13.605693122994 eV (CODATA 2018). The two differ by
// 4.4e-8 relative (4.6e-7 eV here), so vxc.dat is compared in Ry. Tolerance 1e-8 Ry: vxc.dat prints
// 9 decimals in eV, and the rerun's potential differs from the original's by ~1e-13.
TEST(GwReaders, VxcPotentialGivesTheMatrixElementsOfVxcDat) {
  const auto inner = read_wfn(kMf + "04-wfn_co/WFN_co", 14);
  const auto v = read_vxc(std::string(QUANTA_SOURCE_DIR) + "/modules/gw/tests/data/si-VXC");
  ASSERT_EQ(v.gvec, inner.gvec_rho);
  std::map<Vec3i, cplx> by_g;
  for (std::size_t i = 0; i < v.gvec.size(); ++i) by_g[v.gvec[i]] = v.rho[i];
  for (const auto& [g, x] : by_g) {
    const cplx y = by_g.at({-g[0], -g[1], -g[2]});
    EXPECT_NEAR(x.re, y.re, 1e-12);
    EXPECT_NEAR(x.im, -y.im, 1e-12);
  }
  SigmaParams p = read_sigma_inp(std::string(QUANTA_SHARED_DIR) + "/reference/gw/si-bgw/bgw-inputs/sigma.inp");
  const auto ref = read_vxc_dat(kMf + "04-wfn_co/vxc.dat");
  const auto t = vxc_from_potential(inner, v, p);
  const double qe_rydberg_ev = 13.605693122994;
  // Compared as Sigma uses them: averaged over each set of degenerate bands (energies within 1e-6 Ry).
  // Band by band, one pair differs by 1e-8 Ry (k = (0, 0, 0.4), bands 3 and 4): the diagonal of a
  // degenerate pair depends on the basis within it when the file's Real-flavour states are not exactly
  // the eigenstates pw2bgw.x integrated (its conversion to real states mixes them slightly).
  double worst = 0;
  for (const auto& k : p.kpoints) {
    int ik = 0;
    while (ik < inner.nk() && std::abs(inner.kpoints[ik][0] - k[0]) + std::abs(inner.kpoints[ik][1] - k[1]) + std::abs(inner.kpoints[ik][2] - k[2]) > 1e-6) ++ik;
    ASSERT_LT(ik, inner.nk());
    for (int first = p.band_min; first <= p.band_max;) {
      int last = first + 1;
      while (last <= p.band_max && std::abs(inner.energy(ik, last - 1) - inner.energy(ik, last - 2)) < 1e-6) ++last;
      double ours = 0, theirs = 0;
      for (int n = first; n < last; ++n) {
        ours += t.diagonal(k, n) / kRydbergEV / (last - first);
        theirs += ref.diagonal(k, n) / qe_rydberg_ev / (last - first);
      }
      worst = std::max(worst, std::abs(ours - theirs));
      EXPECT_NEAR(ours, theirs, 1e-8) << "bands " << first << ".." << last - 1;
      first = last;
    }
  }
  std::printf("  largest |<n|Vxc|n> from VXC - vxc.dat| = %.2e Ry over %zu k-points x %d bands\n", worst, p.kpoints.size(),
              p.band_max - p.band_min + 1);
}

TEST(GwReaders, VxcReaderRefusesADensityFile) {
  quanta::test::expect_error<quanta::InputError>([] { read_vxc(kMf + "04-wfn_co/RHO"); }, {"RHO", "title", "'RHO-Real'", "'VXC-Real'"});
}
