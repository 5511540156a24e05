// The mean-field readers against the physics the files must carry (normalized, orthogonal states; a
// density with the crystal's symmetry and 8 electrons), the input parsers, bad input, and the binary
// VXC against vxc.dat.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>

#include "quanta/core/io/hdf5.hpp"
#include "quanta/gw/epsilon.hpp"
#include "quanta/gw/inputs.hpp"
#include "quanta/gw/mean_field.hpp"
#include "quanta/gw/outputs.hpp"
#include "quanta/gw/sigma.hpp"
#include "quanta/test/data.hpp"
#include "../io/bgw_h5.hpp"
#include "../../../core/tests/test_support.hpp"

namespace fs = std::filesystem;
using namespace quanta::gw;
using quanta::cplx;

namespace {

const std::string kSi = quanta::test::data_path("gw/si-bgw").string() + "/";
const std::string kMf = kSi + "mean-field/";

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
  const auto e = read_epsilon_inp(kSi + "bgw-inputs/epsilon.inp");
  EXPECT_DOUBLE_EQ(e.ecut, 10.0);
  EXPECT_EQ(e.nbands, 29);
  ASSERT_EQ(e.qpoints.size(), 10u);
  EXPECT_TRUE(e.qpoints[0].q0);
  EXPECT_DOUBLE_EQ(e.qpoints[0].q[2], 0.001);
  const auto s = read_sigma_inp(kSi + "bgw-inputs/sigma.inp");
  EXPECT_EQ(s.nbands, 32);
  EXPECT_EQ(s.band_min, 1);
  EXPECT_EQ(s.band_max, 14);
  EXPECT_EQ(s.kpoints.size(), 10u);
  EXPECT_EQ(s.pools, 0);  // number_sigma_pools absent: chosen at run time
}

// Off-diagonal elements as BerkeleyGW's inread sets them up: sigma_matrix l t over band_index_min..max (l = -1
// each row at its own energy, -2 each column's, > 0 one band's; t = -1/+1 a triangle), overriding an offdiag
// block; the block's first number_offdiag rows; the q-point symmetry turned off; bad values refused by line.
TEST(GwInputs, OffdiagonalElements) {
  quanta::test::TempDir dir;
  const std::string head = "number_bands 32\nband_index_min 2\nband_index_max 4\nbegin kpoints\n 0 0 0 1\nend\n";
  auto s = read_sigma_inp(dir.write("a.inp", head + "sigma_matrix -1 -1\n"));
  ASSERT_EQ(s.offdiag.size(), 6u);  // lower triangle of 3 x 3
  EXPECT_FALSE(s.q_symmetry);
  EXPECT_TRUE(s.offdiag_symmetry);
  for (const auto& e : s.offdiag) {
    EXPECT_GE(e.n, e.m);
    EXPECT_EQ(e.l, e.n);
  }
  s = read_sigma_inp(dir.write("b.inp", head + "sigma_matrix 3 1\nno_symmetries_offdiagonals\ndont_use_vxcdat\n"));
  ASSERT_EQ(s.offdiag.size(), 6u);
  for (const auto& e : s.offdiag) EXPECT_TRUE(e.n <= e.m && e.l == 3);
  EXPECT_FALSE(s.offdiag_symmetry);
  EXPECT_FALSE(s.use_vxc_dat);
  s = read_sigma_inp(dir.write("c.inp", head + "sigma_matrix -2 0\n"));
  ASSERT_EQ(s.offdiag.size(), 9u);
  for (const auto& e : s.offdiag) EXPECT_EQ(e.l, e.m);
  s = read_sigma_inp(dir.write("d.inp", head + "number_offdiag 2\nbegin offdiag\n 2 3 2\n 3 4 4\n 4 2 3\nend\n"));
  ASSERT_EQ(s.offdiag.size(), 2u);
  EXPECT_TRUE(s.offdiag[1].n == 3 && s.offdiag[1].m == 4 && s.offdiag[1].l == 4);
  s = read_sigma_inp(dir.write("e.inp", head));
  EXPECT_TRUE(s.offdiag.empty());
  EXPECT_TRUE(s.q_symmetry);
  using quanta::test::expect_error;
  expect_error<quanta::InputError>([&] { read_sigma_inp(dir.write("f.inp", head + "sigma_matrix 5 0\n")); }, {"f.inp:7", "sigma_matrix l", "5", "2..4"});
  expect_error<quanta::InputError>([&] { read_sigma_inp(dir.write("g.inp", head + "sigma_matrix 3 2\n")); }, {"g.inp:7", "sigma_matrix t", "2"});
  expect_error<quanta::InputError>([&] { read_sigma_inp(dir.write("h.inp", head + "sigma_matrix 3\n")); }, {"h.inp:7", "sigma_matrix", "two values"});
  expect_error<quanta::InputError>([&] { read_sigma_inp(dir.write("i.inp", head + "number_offdiag 3\nbegin offdiag\n 2 3 2\nend\n")); },
                                   {"i.inp", "begin offdiag", "1 rows", "number_offdiag = 3"});
  expect_error<quanta::InputError>([&] { read_sigma_inp(dir.write("j.inp", head + "begin offdiag\n 2 3 2\nend\n")); },
                                   {"j.inp", "number_offdiag", "missing"});
  expect_error<quanta::InputError>([&] { read_sigma_inp(dir.write("k.inp", head + "number_offdiag 1\nbegin offdiag\n 2 5 2\nend\n")); },
                                   {"k.inp:9", "offdiag", "2 5 2", "2..4"});
  expect_error<quanta::InputError>([&] { read_sigma_inp(dir.write("l.inp", head + "number_offdiag 1\nbegin offdiag\n 2 3\nend\n")); },
                                   {"l.inp:9", "offdiag", "2 columns"});
  expect_error<quanta::InputError>([&] { read_sigma_inp(dir.write("m.inp", head + "number_offdiag 2\n")); }, {"m.inp", "no 'begin offdiag'"});
  // quanta's frequency grid: with sigma_matrix, nw >= 2, margin >= 0.
  s = read_sigma_inp(dir.write("n.inp", head + "sigma_matrix 3 0\nsigma_matrix_frequency_grid 40 1.5\n"));
  EXPECT_EQ(s.grid_nw, 40);
  EXPECT_DOUBLE_EQ(s.grid_margin, 1.5);
  expect_error<quanta::InputError>([&] { read_sigma_inp(dir.write("o.inp", head + "sigma_matrix_frequency_grid 40 1.5\n")); },
                                   {"o.inp:7", "sigma_matrix_frequency_grid", "no sigma_matrix"});
  expect_error<quanta::InputError>([&] { read_sigma_inp(dir.write("p.inp", head + "sigma_matrix 3 0\nsigma_matrix_frequency_grid 1 1.5\n")); },
                                   {"p.inp:8", "nw", "at least 2"});
  expect_error<quanta::InputError>([&] { read_sigma_inp(dir.write("r.inp", head + "sigma_matrix 3 0\nsigma_matrix_frequency_grid 10 -1\n")); },
                                   {"r.inp:8", "margin", ">= 0"});
}

// sigma_hp.log's off-diagonal section as BerkeleyGW 3.0 writes it and its offdiag.x reads it (the fields at fixed
// columns: "ik =" at 42-45; rows "n m l real|imag" and five values), with the imaginary rows of the complex flavour;
// offdiag.log with the eigenvalues of a 2 x 2 quasiparticle Hamiltonian whose eigenvalues are known.
TEST(GwOutputs, OffdiagonalSectionsInBerkeleyGWsLayout) {
  quanta::test::TempDir dir;
  SigmaParams p;
  p.band_min = 1, p.band_max = 2, p.sigma_matrix_l = 1, p.sigma_matrix_t = 0;
  SigmaK k;
  k.k = {0.0, 0.0, 0.4};
  k.ik = 3;
  for (int n = 1; n <= 2; ++n) {
    SigmaBand b;
    b.n = n;
    b.emf = b.eo = n == 1 ? 1.0 : 3.0;
    k.bands.push_back(b);
  }
  // H = E_mf + Sig - Vxc = [[1, 0.5 + 0.25i], [0.5 - 0.25i, 3]]: eigenvalues 2 -+ sqrt(1 + 0.3125).
  for (int n = 1; n <= 2; ++n)
    for (int m = 1; m <= 2; ++m) {
      SigmaOffdiag o;
      o.n = n, o.m = m, o.l = 1;
      o.vxc = n == m ? cplx(-2.0) : cplx(-0.1, n < m ? -0.05 : 0.05);
      o.x = n == m ? cplx(-1.5) : cplx(0.3, n < m ? 0.1 : -0.1);
      o.sx_x[0] = n == m ? cplx(1.0) : cplx(0.05, n < m ? 0.05 : -0.05);
      o.ch[0] = n == m ? cplx(-1.5) : cplx(0.05, n < m ? 0.05 : -0.05);
      o.sig = o.x + o.sx_x[0] + o.ch[0];
      k.offdiag.push_back(o);
    }
  std::vector<SigmaK> sigma = {k};
  solve_dyson_matrix(sigma, p);
  ASSERT_EQ(sigma[0].qp_matrix_energies.size(), 2u);
  EXPECT_NEAR(sigma[0].qp_matrix_energies[0].re, 2.0 - std::sqrt(1.3125), 1e-12);
  EXPECT_NEAR(sigma[0].qp_matrix_energies[1].re, 2.0 + std::sqrt(1.3125), 1e-12);
  Crystal c;
  write_sigma_hp_log(dir / "sigma_hp.log", c, p, sigma, true);
  write_offdiag_log(dir / "offdiag.log", p, sigma, true);
  std::ifstream in(dir / "sigma_hp.log");
  std::vector<std::string> lines;
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  auto find = [&](const std::string& what) { return std::find_if(lines.begin(), lines.end(), [&](const std::string& l) { return l.find(what) != std::string::npos; }); };
  ASSERT_NE(find(" sigma_matrix     1   0"), lines.end());
  const auto kline = find("ik =");
  ASSERT_NE(kline, lines.end());
  EXPECT_EQ(kline->substr(41, 4), "ik =");
  EXPECT_EQ(std::stoi(kline->substr(46, 3)), 3);
  ASSERT_NE(find("   E2 = E0"), lines.end());
  const auto real12 = find("   1   2   1   real");
  const auto imag12 = find("   1   2   1   imag");
  ASSERT_NE(real12, lines.end());
  ASSERT_NE(imag12, lines.end());
  EXPECT_EQ(imag12 - real12, 1);
  std::istringstream r(real12->substr(19)), i(imag12->substr(19));
  double v[5], w[5];
  for (int j = 0; j < 5; ++j) r >> v[j], i >> w[j];
  EXPECT_NEAR(v[0], 0.3, 1e-9);   // X
  EXPECT_NEAR(v[3], 0.4, 1e-9);   // Sig
  EXPECT_NEAR(v[4], -0.1, 1e-9);  // Vxc
  EXPECT_NEAR(w[3], 0.2, 1e-9);
  EXPECT_NEAR(w[4], -0.05, 1e-9);
  const std::string log = [&] {
    std::ifstream f(dir / "offdiag.log");
    return std::string(std::istreambuf_iterator<char>(f), {});
  }();
  EXPECT_NE(log.find(" ik =  3 s = 1"), std::string::npos) << log;
  EXPECT_NE(log.find("    1    0.854356"), std::string::npos) << log;
  EXPECT_NE(log.find("    2    3.145644"), std::string::npos) << log;
}

// How Sigma's work is shared: whole (k, q) pairs when there are enough, else pools over the bands n with the
// columns G' split within a pool; every band and column taken exactly once.
TEST(GwInputs, SigmaShareCoversEveryBandOnce) {
  EXPECT_TRUE(sigma_share(3, 1, 0, 20, 6).by_pairs);
  EXPECT_EQ(sigma_share(1, 0, 4, 1, 6).n_hi, 6);  // one process takes everything, whatever the pools
  const auto one_pool = sigma_share(4, 3, 0, 1, 6);  // fewer pairs than processes: one pool, columns split
  EXPECT_FALSE(one_pool.by_pairs);
  EXPECT_EQ(one_pool.pool_size, 4);
  EXPECT_EQ(one_pool.member, 3);
  EXPECT_EQ(one_pool.n_hi - one_pool.n_lo, 6);
  for (int pools : {1, 2, 3, 6}) {
    std::vector<int> owner(6, 0);
    for (int rank = 0; rank < 6; ++rank) {
      const auto s = sigma_share(6, rank, pools, 100, 6);
      EXPECT_EQ(s.pool_size, 6 / pools);
      if (s.member == 0)
        for (int n = s.n_lo; n < s.n_hi; ++n) ++owner[n];
    }
    for (int n = 0; n < 6; ++n) EXPECT_EQ(owner[n], 1) << "pools " << pools << " band " << n;
  }
  quanta::test::expect_error<quanta::Error>([] { sigma_share(6, 0, 4, 100, 6); }, {"number_sigma_pools 4", "divisor of the 6 processes"});
  quanta::test::expect_error<quanta::Error>([] { sigma_share(8, 0, 8, 100, 6); }, {"number_sigma_pools 8", "at most the 6 bands"});
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
  const auto pools = dir.write("pools.inp", "number_bands 32\nband_index_min 1\nband_index_max 4\nnumber_sigma_pools 0\n");
  quanta::test::expect_error<quanta::InputError>([&] { read_sigma_inp(pools); }, {"pools.inp:4", "number_sigma_pools", "positive"});
  const auto vxc = dir.write("vxc.dat", "0.0 0.0 0.0 2 0\n 1 1 -10.4 0.0\n 1 x -11.2 0.0\n");
  quanta::test::expect_error<quanta::InputError>([&] { read_vxc_dat(vxc); }, {"vxc.dat:3", "band"});
}

}  // namespace

// BerkeleyGW's binary VXC (pw2bgw.x's vxcg_file, written by QE in a rerun of the run that wrote vxc.dat;
// see data/si-bgw/README.md): a real potential on the density's sphere, and the diagonal matrix elements
// computed from it equal the ones pw2bgw.x wrote into vxc.dat.
// Units: quanta (as BerkeleyGW) turns Ry into eV with BerkeleyGW's Rydberg, 13.60569253 eV (CODATA
// 2010); pw2bgw.x wrote vxc.dat with QE 6.7's, 13.605693122994 eV (CODATA 2018). The two differ by
// 4.4e-8 relative (4.6e-7 eV here), so vxc.dat is compared in Ry. Tolerance 1e-8 Ry: vxc.dat prints
// 9 decimals in eV, and the rerun's potential differs from the original's by ~1e-13.
TEST(GwReaders, VxcPotentialGivesTheMatrixElementsOfVxcDat) {
  const auto inner = read_wfn(kMf + "04-wfn_co/WFN_co", 14);
  const auto v = read_vxc(kMf + "04-wfn_co/VXC");
  ASSERT_EQ(v.gvec, inner.gvec_rho);
  std::map<Vec3i, cplx> by_g;
  for (std::size_t i = 0; i < v.gvec.size(); ++i) by_g[v.gvec[i]] = v.rho[i];
  for (const auto& [g, x] : by_g) {
    const cplx y = by_g.at({-g[0], -g[1], -g[2]});
    EXPECT_NEAR(x.re, y.re, 1e-12);
    EXPECT_NEAR(x.im, -y.im, 1e-12);
  }
  SigmaParams p = read_sigma_inp(kSi + "bgw-inputs/sigma.inp");
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

namespace {

// The silicon WFN_co written in BerkeleyGW's wfn.h5 layout (as wfn2hdf.x writes it), independently of the library's
// write_wfn_h5 (so that the reader is checked against the layout, not against its own writer): /mf_header by quanta's
// own writer (write_mf_header, the one eps0mat.h5 carries), then the k-points back to back along ngktot, flavor
// last. Version 2: a file holding only /mf_header/versionnumber = 2, which the reader refuses first.
// With `coeffs_stored` false, /wfns/coeffs is created with its full shape but never written.
void write_test_wfn_h5(const Wavefunctions& w, const fs::path& file, int version = 1, bool coeffs_stored = true) {
  quanta::io::H5File h(file, quanta::io::H5File::Mode::Create);
  using V = std::vector<std::int64_t>;
  using D = std::vector<double>;
  if (version != 1) {
    h.write("/mf_header/versionnumber", V{version}, {});
    return;
  }
  quanta::gw::write_mf_header(h, w);
  const int nk = w.nk(), nb = w.nbands, flavor = w.complex_flavour ? 2 : 1;
  std::size_t ngktot = 0;
  for (const auto& g : w.gvec) ngktot += g.size();
  V gvecs;
  for (const auto& gk : w.gvec)
    for (const auto& g : gk) gvecs.insert(gvecs.end(), g.begin(), g.end());
  h.write("/wfns/gvecs", gvecs, {ngktot, 3});
  if (!coeffs_stored) {
    h.create_doubles("/wfns/coeffs", {std::size_t(nb), 1, ngktot, std::size_t(flavor)});
    return;
  }
  D coeffs(static_cast<std::size_t>(nb) * ngktot * flavor);
  std::size_t off = 0;
  for (int k = 0; k < nk; ++k) {
    const std::size_t n_k = w.gvec[k].size();
    for (int n = 0; n < nb; ++n)
      for (std::size_t i = 0; i < n_k; ++i) {
        const cplx x = w.band(k, n)[i];
        coeffs[(static_cast<std::size_t>(n) * ngktot + off + i) * flavor] = x.re;
        if (flavor == 2) coeffs[(static_cast<std::size_t>(n) * ngktot + off + i) * flavor + 1] = x.im;
      }
    off += n_k;
  }
  h.write("/wfns/coeffs", coeffs, {std::size_t(nb), 1, ngktot, std::size_t(flavor)});
}

}  // namespace

// wfn.h5 in BerkeleyGW's layout gives the same Wavefunctions as the Fortran file it was made from
// (read_wfn tells the two apart by the file's signature), with bands cut as asked; a wrong version or
// a coefficient array of the wrong shape is refused naming the dataset. This checks the reader against
// the layout as the format's source defines it (dimension reversal, offsets along ngktot, flavor); no
// wfn.h5 written by BerkeleyGW itself is at hand to compare with.
TEST(GwReaders, WfnH5LayoutReadsAsTheFortranFile) {
  quanta::test::TempDir dir;
  const auto bin = read_wfn(kMf + "04-wfn_co/WFN_co");
  write_test_wfn_h5(bin, dir / "wfn.h5");
  for (int max_bands : {0, 7}) {
    const auto ref = max_bands ? read_wfn(kMf + "04-wfn_co/WFN_co", max_bands) : bin;
    const auto h5 = read_wfn(dir / "wfn.h5", max_bands);
    EXPECT_EQ(h5.complex_flavour, ref.complex_flavour);
    EXPECT_EQ(h5.nbands, ref.nbands);
    EXPECT_EQ(h5.kgrid, ref.kgrid);
    EXPECT_EQ(h5.kpoints, ref.kpoints);
    EXPECT_EQ(h5.ifmin, ref.ifmin);
    EXPECT_EQ(h5.ifmax, ref.ifmax);
    EXPECT_EQ(h5.ngk, ref.ngk);
    EXPECT_EQ(h5.kweights, ref.kweights);
    EXPECT_EQ(h5.kshift, ref.kshift);
    EXPECT_EQ(h5.ecutwfc, ref.ecutwfc);
    EXPECT_EQ(h5.ecutrho, ref.ecutrho);
    EXPECT_EQ(h5.energies, ref.energies);
    EXPECT_EQ(h5.occupations, ref.occupations);
    EXPECT_EQ(h5.gvec_rho, ref.gvec_rho);
    EXPECT_EQ(h5.gvec, ref.gvec);
    EXPECT_EQ(h5.crystal.rotation, ref.crystal.rotation);
    EXPECT_EQ(h5.crystal.tnp, ref.crystal.tnp);
    EXPECT_EQ(h5.crystal.bdot, ref.crystal.bdot);
    EXPECT_EQ(h5.crystal.fft_grid, ref.crystal.fft_grid);
    EXPECT_EQ(h5.crystal.cell_symmetry, ref.crystal.cell_symmetry);
    EXPECT_EQ(h5.crystal.avec, ref.crystal.avec);
    EXPECT_EQ(h5.crystal.atom_position, ref.crystal.atom_position);
    EXPECT_EQ(h5.crystal.atom_species, ref.crystal.atom_species);
    ASSERT_EQ(h5.coeffs.size(), ref.coeffs.size());
    for (std::size_t k = 0; k < ref.coeffs.size(); ++k) {
      ASSERT_EQ(h5.coeffs[k].size(), ref.coeffs[k].size());
      for (std::size_t i = 0; i < ref.coeffs[k].size(); ++i) {
        ASSERT_EQ(h5.coeffs[k][i].re, ref.coeffs[k][i].re) << "k " << k << " index " << i;
        ASSERT_EQ(h5.coeffs[k][i].im, ref.coeffs[k][i].im);
      }
    }
  }
  write_test_wfn_h5(bin, dir / "v2.h5", 2);
  quanta::test::expect_error<quanta::InputError>([&] { read_wfn(dir / "v2.h5"); }, {"v2.h5", "/mf_header/versionnumber", "expected 1"});
  // A degenerate set that is not orthonormal (what a failed conversion to the Real flavour leaves):
  // at Gamma bands 2-4 are degenerate; band 3 becomes 0.6 band 2 + 0.8 band 3 (still normalized).
  Wavefunctions bad = bin;
  const std::size_t ng = bad.gvec[0].size();
  for (std::size_t g = 0; g < ng; ++g) bad.coeffs[0][2 * ng + g] = 0.6 * bin.band(0, 1)[g] + 0.8 * bin.band(0, 2)[g];
  write_test_wfn_h5(bad, dir / "bad.h5");
  quanta::test::expect_error<quanta::InputError>([&] { read_wfn(dir / "bad.h5"); },
                                                 {"bad.h5", "k-point 1, bands 2 and 3", "overlap 0.6", "not orthonormal"});
}

// Corrupt headers of the Fortran-record files (reproducers of tests/fuzz/regressions/bgw_binary, made
// small): every count is checked against what the file can hold before it sizes a buffer or enters a
// product, and the refusal names the file, the record and the field.
namespace {

// Fortran sequential unformatted records, as pw2bgw.x writes them.
class Records {
 public:
  template <class T>
  Records& add(const std::vector<T>& v) {
    const auto n = static_cast<std::int32_t>(v.size() * sizeof(T));
    put(&n, 4);
    put(v.data(), static_cast<std::size_t>(n));
    put(&n, 4);
    return *this;
  }
  Records& bytes(const std::string& s) { return add(std::vector<char>(s.begin(), s.end())); }
  Records& i32(std::initializer_list<std::int32_t> v) { return add(std::vector<std::int32_t>(v)); }
  Records& f64(std::vector<double> v) { return add(v); }
  // A data block: one record of `n` items of `item_bytes` (zeros).
  Records& block(std::int32_t n, std::size_t item_bytes) {
    i32({1}).i32({n});
    return add(std::vector<char>(static_cast<std::size_t>(n) * item_bytes, 0));
  }
  std::string write(const quanta::test::TempDir& dir, const std::string& name) const {
    std::ofstream(dir / name, std::ios::binary).write(data_.data(), static_cast<std::streamsize>(data_.size()));
    return (dir / name).string();
  }

 private:
  void put(const void* p, std::size_t n) {
    const char* c = static_cast<const char*>(p);
    data_.insert(data_.end(), c, c + n);
  }
  std::vector<char> data_;
};

std::string title(const std::string& t) { return t + std::string(96 - t.size(), ' '); }

// One record of mixed int32 and double fields, in order (the size records mix both).
struct Fields {
  std::vector<char> bytes;
  template <class T>
  Fields& operator()(T v) {
    const char* c = reinterpret_cast<const char*>(&v);
    bytes.insert(bytes.end(), c, c + sizeof(T));
    return *this;
  }
};
using I = std::int32_t;

// The lattice, symmetry (identity) and atom records shared by WFN, RHO and VXC; `nat_atoms` atoms written.
void cell(Records& r, int nat_atoms) {
  std::vector<double> c(20, 0.0);
  c[0] = 270.0, c[1] = 10.2;
  r.f64(c).f64(c).i32({1, 0, 0, 0, 1, 0, 0, 0, 1}).f64({0, 0, 0});
  r.add(std::vector<char>(28 * static_cast<std::size_t>(nat_atoms), 0));
}

// RHO-Real or RHO-Complex with the given header counts, `ng_written` G-vectors and `nvalues` values.
Records rho(const std::string& flavour, std::int32_t nspin, std::int32_t ng, std::int32_t nat, int nat_atoms, int ng_written, int nvalues) {
  Records r;
  r.bytes(title("RHO-" + flavour)).add(Fields{}(nspin)(ng)(I{1})(I{0})(nat)(100.0).bytes).i32({20, 20, 20});
  cell(r, nat_atoms);
  r.block(ng_written, 12).block(nvalues, flavour == "Complex" ? 16 : 8);
  return r;
}

}  // namespace

TEST(GwBadInput, HeaderCountsAreBoundedByTheFileBeforeUse) {
  quanta::test::TempDir dir;
  // nat near 2^31: nat x 28 bytes overflowed int in the message; now refused at the sizes record.
  const auto nat = rho("Real", 1, 2, 2130706690, 2, 2, 2).write(dir, "RHO_nat");
  quanta::test::expect_error<quanta::InputError>([&] { read_rho(nat); },
                                                 {"RHO_nat", "record 2 (nat)", "found 2130706690", "28-byte atoms in the file"});
  // An honest nat whose atom record is short: the expected length is nat x 28.
  const auto short_atoms = rho("Real", 1, 2, 3, 2, 2, 2).write(dir, "RHO_atoms");
  quanta::test::expect_error<quanta::InputError>([&] { read_rho(short_atoms); },
                                                 {"RHO_atoms", "(apos, atyp)", "found 56 bytes", "expected 84 bytes for 3 atoms"});
  // ng = 2^30 G-vectors (12 GiB) in a file of a few hundred bytes: refused before anything is sized.
  const auto huge_ng = rho("Real", 1, 1 << 30, 2, 2, 2, 2).write(dir, "RHO_ng");
  quanta::test::expect_error<quanta::InputError>([&] { read_rho(huge_ng); }, {"RHO_ng", "record 2 (ng)", "found 1073741824", "G-vectors in the file"});
  quanta::test::expect_error<quanta::InputError>([&] { read_vxc(huge_ng); }, {"RHO_ng", "title"});
  // ng passes (ng x 12 bytes fit) but the density it declares, ng x nspin x 16 bytes, cannot: the block
  // is refused before its buffer is reserved, naming the block.
  const auto big_block = rho("Complex", 2, 60, 2, 2, 60, 1).write(dir, "RHO_block");
  quanta::test::expect_error<quanta::InputError>([&] { read_rho(big_block); },
                                                 {"RHO_block", "(density)", "120 items of 16 bytes declared by the header", "bytes of the whole file"});
}

namespace {

// WFN-Real, one k-point and one spin, with `nbands` bands of `ngk` G-vectors declared and `bands_written`
// written; ng = 1.
Records wfn(std::int32_t nbands, std::int32_t ngk, int bands_written) {
  Records r;
  // nspin, ng, ntran, cell_symmetry, nat, ecutrho, nk, nbands, ngkmax, ecutwfc; FFTgrid, kgrid, kshift.
  r.bytes(title("WFN-Real")).add(Fields{}(I{1})(I{1})(I{1})(I{0})(I{2})(100.0)(I{1})(nbands)(ngk)(25.0).bytes);
  r.add(Fields{}(I{20})(I{20})(I{20})(I{1})(I{1})(I{1})(0.0)(0.0)(0.0).bytes);
  cell(r, 2);
  r.i32({ngk}).f64({2.0}).f64({0, 0, 0}).i32({1}).i32({1});
  const auto ne = static_cast<std::size_t>(std::min(nbands, 64));  // energies, occupations (at most 64 written)
  r.f64(std::vector<double>(ne, 0.0)).f64(std::vector<double>(ne, 1.0));
  r.block(1, 12).block(ngk, 12);
  for (int n = 0; n < bands_written; ++n) r.block(ngk, 8);
  return r;
}

}  // namespace

TEST(GwBadInput, WfnCoefficientsAreBoundedByTheFileBeforeUse) {
  quanta::test::TempDir dir;
  // 40 bands x 40 G-vectors x 8 bytes = 12800 bytes declared for the k-point, in a file of about 2 KB.
  const auto file = wfn(40, 40, 1).write(dir, "WFN");
  quanta::test::expect_error<quanta::InputError>([&] { read_wfn(file); },
                                                 {"WFN", "(coefficients of k-point 1)", "40 bands x 40 G-vectors declared by the header", "bytes of the whole file"});
  // nbands beyond what the energies of the file can hold is refused at the sizes record.
  const auto bands = wfn(1 << 28, 4, 0).write(dir, "WFN_bands");
  quanta::test::expect_error<quanta::InputError>([&] { (void)read_wfn_header(bands); },
                                                 {"WFN_bands", "record 2 (nbands)", "found 268435456", "energies and occupations"});
}

// wfn.h5 whose /wfns/coeffs declares the right shape but was never written: its extents are not what
// the file holds, so it is refused before the buffer for them is sized.
TEST(GwBadInput, WfnH5CoefficientsMustBeStored) {
  quanta::test::TempDir dir;
  const auto bin = read_wfn(kMf + "04-wfn_co/WFN_co");
  write_test_wfn_h5(bin, dir / "unwritten.h5", 1, false);
  quanta::test::expect_error<quanta::Error>([&] { read_wfn(dir / "unwritten.h5"); }, {"unwritten.h5", "/wfns/coeffs", "stored"});
}

namespace {

// A small file in the layout of BerkeleyGW's eps0mat.h5 (one q-point, 2 x 2 Real eps^-1), with one dataset
// changed by `edit` before it is written.
fs::path write_epsmat(const fs::path& dir, const std::string& name, const std::function<void(std::map<std::string, std::vector<double>>&)>& edit,
                      std::size_t nfreq = 1) {
  std::map<std::string, std::vector<double>> d = {
      {"/eps_header/versionnumber", {3}}, {"/eps_header/flavor", {1}}, {"/eps_header/params/matrix_type", {0}},
      {"/eps_header/params/nmatrix", {1}}, {"/eps_header/params/ecuts", {2.0}}, {"/eps_header/params/nband", {8}},
      {"/eps_header/freqs/freq_dep", {0}}, {"/eps_header/qpoints/nq", {1}}, {"/eps_header/qpoints/qpts", {0, 0, 0.001}},
      {"/eps_header/qpoints/qgrid", {1, 1, 1}}, {"/eps_header/gspace/nmtx", {2}}, {"/eps_header/gspace/nmtx_max", {2}},
      {"/eps_header/gspace/gind_eps2rho", {1, 3, 2}}, {"/mf_header/gspace/ng", {3}},
      {"/mf_header/gspace/components", {0, 0, 0, 1, 1, 1, -1, -1, -1}}, {"/mf_header/crystal/celvol", {270.0}},
      {"/mats/matrix", {0.1, 0.01, 0.02, 0.9}}};
  edit(d);
  const fs::path file = dir / name;
  quanta::io::H5File f(file, quanta::io::H5File::Mode::Create);
  for (const auto& [k, v] : d) {
    const bool integer = k != "/eps_header/params/ecuts" && k != "/eps_header/qpoints/qpts" && k != "/mf_header/crystal/celvol" && k != "/mats/matrix" &&
                         k != "/eps_header/freqs/freqs";
    std::vector<std::size_t> dims = {v.size()};
    if (k == "/mats/matrix") dims = {1, 1, nfreq, 2, 2, v.size() / (4 * nfreq)};
    if (k == "/eps_header/freqs/freqs") dims = {v.size() / 2, 2};
    if (integer) f.write(k, std::vector<std::int64_t>(v.begin(), v.end()), dims);
    else f.write(k, v, dims);
  }
  return file;
}

}  // namespace

// BerkeleyGW's eps0mat.h5 layout: the G-vectors through gind_eps2rho, [q][..][G'][G] = eps^-1(G, G'); what Sigma
// cannot use is refused naming the dataset.
TEST(GwReaders, BerkeleyGWEpsmatLayoutAndRefusals) {
  quanta::test::TempDir dir;
  auto none = [](auto&) {};
  const auto ok = read_bgw_epsmat(write_epsmat(dir.path(), "ok.h5", none), {});
  ASSERT_EQ(ok.eps.size(), 1u);
  const auto& d = ok.eps[0];
  EXPECT_TRUE(d.q.q0);
  EXPECT_DOUBLE_EQ(ok.params.ecut, 2.0);
  ASSERT_EQ(d.ng(), 2);
  EXPECT_EQ(d.gvec[1], (quanta::gw::Vec3i{-1, -1, -1}));  // gind 3: the third component row
  EXPECT_DOUBLE_EQ(d.at(d.epsinv, 1, 0).re, 0.01);          // [G'=0][G=1]
  EXPECT_DOUBLE_EQ(d.at(d.epsinv, 0, 1).re, 0.02);
  auto refused = [&](const std::string& name, const std::function<void(std::map<std::string, std::vector<double>>&)>& edit,
                     std::vector<std::string> words, std::size_t nfreq = 1) {
    const auto f = write_epsmat(dir.path(), name, edit, nfreq);
    words.insert(words.begin(), name);
    quanta::test::expect_error<quanta::InputError>([&] { read_bgw_epsmat(f, {}); }, words);
  };
  refused("gn.h5", [](auto& m) { m["/eps_header/freqs/freq_dep"] = {1}; }, {"freq_dep 1", "expected 0", "or 2"});
  refused("chi.h5", [](auto& m) { m["/eps_header/params/matrix_type"] = {1}; }, {"matrix_type 1", "eps^-1"});
  refused("spin.h5", [](auto& m) { m["/eps_header/params/nmatrix"] = {2}; }, {"nmatrix", "spin"});
  refused("gind.h5", [](auto& m) { m["/eps_header/gspace/gind_eps2rho"] = {1, 7, 2}; }, {"gind_eps2rho 7", "1 .. 3"});
  refused("nan.h5", [](auto& m) { m["/mats/matrix"][3] = std::nan(""); }, {"non-finite", "(2, 2)"});
  refused("dims.h5", [](auto& m) { m["/eps_header/gspace/nmtx_max"] = {3}; m["/eps_header/gspace/nmtx"] = {3}; }, {"/mats/matrix", "1 x 1 x 1 x 3 x 3"});
  refused("version.h5", [](auto& m) { m["/eps_header/versionnumber"] = {2}; }, {"versionnumber 2", "expected 3"});
  // Full frequency (contour deformation): 2 real frequencies (0 and 1 eV, broadening 0.1) and 2 imaginary ones (0 and
  // plasma_freq 27.2 eV: z = 1/2), complex matrices at each; the grid comes back as Epsilon's parameters.
  auto ff = [](auto& m) {
    m["/eps_header/freqs/freq_dep"] = {2};
    m["/eps_header/freqs/nfreq"] = {4};
    m["/eps_header/freqs/nfreq_imag"] = {2};
    m["/eps_header/freqs/freqs"] = {0, 0.1, 1, 0.1, 0, 0, 0, 27.2};
    m["/eps_header/params/has_advanced"] = {0};
    m["/mats/matrix"].clear();
    for (int f = 0; f < 4; ++f)
      for (int e = 0; e < 4; ++e) m["/mats/matrix"].insert(m["/mats/matrix"].end(), {0.1 * e + f, -0.01 * f});
  };
  const auto okf = read_bgw_epsmat(write_epsmat(dir.path(), "ff.h5", ff, 4), {});
  ASSERT_EQ(okf.eps.size(), 1u);
  const auto& df = okf.eps[0];
  EXPECT_EQ(okf.params.frequency_dependence, 2);
  EXPECT_DOUBLE_EQ(okf.params.frequencies.delta, 1.0);
  EXPECT_DOUBLE_EQ(okf.params.frequencies.broadening, 0.1);
  EXPECT_EQ(okf.params.frequencies.n_imag, 2);
  EXPECT_NEAR(okf.params.frequencies.plasma, 27.2, 1e-12);
  ASSERT_EQ(df.nfreq(), 4);
  EXPECT_EQ(df.n_real, 2);
  EXPECT_DOUBLE_EQ(df.freq[3].im, 27.2);
  EXPECT_DOUBLE_EQ(df.epsinv_at(3)[1].re, 0.1 + 3);  // [f = 3][G' = 0][G = 1]
  EXPECT_DOUBLE_EQ(df.epsinv_at(3)[2].im, -0.03);
  EXPECT_DOUBLE_EQ(df.at(df.epsinv, 1, 1).re, 0.3);   // the static slot is the first frequency
  refused("ff-advanced.h5", [&](auto& m) { ff(m); m["/eps_header/params/has_advanced"] = {1}; }, {"has_advanced 1", "advanced"}, 4);
  refused("ff-subspace.h5", [&](auto& m) { ff(m); m["/eps_header/params/subspace"] = {1}; }, {"subspace 1", "subspace basis"}, 4);
  refused("ff-grid.h5", [&](auto& m) { ff(m); m["/eps_header/freqs/freqs"][3] = 0.2; }, {"freqs, frequency 2", "one broadening"}, 4);
  {
    // Real-flavour matrices in a full-frequency file: BerkeleyGW writes them complex (matrix_flavor 2).
    const auto f = write_epsmat(dir.path(), "ff-real.h5", [&](auto& m) { ff(m); m["/mats/matrix"].resize(16); }, 4);
    quanta::test::expect_error<quanta::InputError>([&] { read_bgw_epsmat(f, {}); }, {"ff-real.h5", "/mats/matrix", "1 x 1 x 4 x 2 x 2 x 1", "x 2"});
  }
  // An epsmat.h5 of another run beside this eps0mat.h5 (here: another number_bands) is refused too.
  const auto other = write_epsmat(dir.path(), "other-run.h5", [](auto& m) { m["/eps_header/params/nband"] = {9}; });
  quanta::test::expect_error<quanta::InputError>([&] { read_bgw_epsmat(dir.path() / "ok.h5", other); },
                                                 {"other-run.h5", "number of bands", "one Epsilon run"});
}
