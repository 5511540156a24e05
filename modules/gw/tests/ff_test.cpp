// Full frequency (contour deformation) end to end on BerkeleyGW's silicon example: `quanta gw` with frequency_dependence 2
// in epsilon.inp and sigma.inp (bgw-ff/: broadening 0.1 eV, real axis 0-11 eV in 0.2 eV steps, 15 imaginary
// frequencies, cd_integration_method 2, bands 2-8 at Gamma and (0, 0.4, 0.4)) against
// - BerkeleyGW 3.0's own full-frequency run on the same inputs and mean field (bgw-ff/sigma_hp.log): every column of
//   the table, real and imaginary parts;
// - ABINIT 9.6's contour-deformation run on the same mean field (abinit/): the band edges and gaps.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

#include "quanta/gw/epsilon.hpp"
#include "quanta/gw/inputs.hpp"
#include "quanta/gw/mean_field.hpp"
#include "quanta/gw/run.hpp"
#include "quanta/gw/sigma.hpp"
#include "quanta/core/backend.hpp"
#include "quanta/core/io/hdf5.hpp"
#include "quanta/test/data.hpp"
#include "si_bgw.hpp"

namespace fs = std::filesystem;
using namespace quanta::gw;

namespace {

const std::string kSi = quanta::test::data_path("gw/si-bgw").string() + "/";

using Key = std::pair<int, int>;  // (k-point in the file's order, band)

// BerkeleyGW's full-frequency sigma_hp.log (and quanta's): per band the line "n Emf Eo X Re-Res Re-Int Re-Sig Re-Cor Vxc
// Re-Eqp0 Re-Eqp1 ..." and the next "Im-Res Im-Int Im-Sig Im-Cor Im-Eqp0 [Im-Eqp1]". Returns the 9 real columns after
// n, then Im Res, Im Int, Im Sig.
std::map<Key, std::vector<double>> ff_rows(const std::string& file) {
  std::map<Key, std::vector<double>> rows;
  std::ifstream in(file);
  EXPECT_TRUE(in.good()) << file;
  std::vector<std::string> lines;
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  int ik = -1;
  for (std::size_t i = 0; i + 1 < lines.size(); ++i) {
    if (lines[i].find("k =") != std::string::npos && lines[i].find("ik =") != std::string::npos) ++ik;
    std::istringstream s(lines[i]);
    int n;
    std::vector<double> v;
    if (!(s >> n)) continue;
    for (double x; v.size() < 10 && s >> x;) v.push_back(x);
    if (v.size() != 10) continue;
    std::istringstream t(lines[i + 1]);
    std::vector<double> im;
    for (double x; t >> x;) im.push_back(x);
    if (im.size() < 3) continue;
    v.insert(v.end(), im.begin(), im.begin() + 3);
    rows[{ik, n}] = v;
  }
  return rows;
}

// eqp*.dat: (k-point index in the file's order, band) -> energy, eV. A k-point's line starts with its coordinates
// (decimals), a band's with the spin (an integer).
std::map<Key, double> eqp(const std::string& file) {
  std::map<Key, double> out;
  std::ifstream in(file);
  EXPECT_TRUE(in.good()) << file;
  int ik = -1;
  for (std::string l; std::getline(in, l);) {
    std::istringstream s(l);
    std::string first;
    if (!(s >> first)) continue;
    if (first.find('.') != std::string::npos) {
      ++ik;
      continue;
    }
    int band;
    double emf, e;
    if (s >> band >> emf >> e) out[{ik, band}] = e;
  }
  return out;
}

// ABINIT's _GW file: per k-point "kx ky kz", the band count, then "band E_QP E_QP-E0 Im"; (k index, band) -> E_QP, eV.
std::map<Key, double> abinit_gw(const std::string& file) {
  std::map<Key, double> out;
  std::ifstream in(file);
  int nk = 0, spin = 0;
  in >> nk >> spin;
  for (int k = 0; k < nk; ++k) {
    double kx, ky, kz;
    int nb;
    in >> kx >> ky >> kz >> nb;
    for (int b = 0; b < nb; ++b) {
      int n;
      double e, de, im;
      in >> n >> e >> de >> im;
      out[{k, n}] = e;
    }
  }
  return out;
}

class GwFullFrequency : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    out = fs::temp_directory_path() / ("quanta-gw-ff-" + std::to_string(::getpid()));
    RunOptions o = si_bgw_run_options("bgw-ff");
    o.output_dir = out;
    o.backend = quanta::Backend::Auto;
    o.quiet = true;
    run(o);
    // The same with the static subspace, 70 eigenvectors of the static chi0 (about half of each q's 134-150 G): Epsilon
    // once, keeping both the basis and eps^-1 expanded to the G basis; Sigma from each.
    EpsilonParams ep = read_epsilon_inp(kSi + "bgw-ff/epsilon.inp");
    SigmaParams sp = read_sigma_inp(kSi + "bgw-ff/sigma.inp");
    ep.subspace = true, ep.subspace_nbasis = 70, ep.subspace_expand = true, ep.subspace_keep_basis = true;
    ep.backend = sp.backend = quanta::resolve_backend(quanta::Backend::Auto);
    ep.quiet = sp.quiet = true;
    const auto wfn = read_wfn(o.wfn, ep.nbands);
    const auto wfnq = read_wfn(o.wfnq);
    const auto inner = read_wfn(o.wfn_inner, sp.nbands);
    const auto eps = compute_epsilon(wfn, &wfnq, ep);
    const auto rho = read_rho(o.rho);
    const auto vxc = read_vxc_dat(o.vxc);
    sigma_expanded = compute_sigma(inner, rho, vxc, eps, sp);
    auto basis_only = eps;
    for (auto& d : basis_only) d.epsinv_ff.clear();  // Sigma's subspace path must not need them
    sp.subspace = true;
    sigma_basis = compute_sigma(inner, rho, vxc, basis_only, sp);
  }
  static void TearDownTestSuite() { fs::remove_all(out); }
  static fs::path out;
  static std::vector<SigmaK> sigma_expanded, sigma_basis;
};
fs::path GwFullFrequency::out;
std::vector<SigmaK> GwFullFrequency::sigma_expanded, GwFullFrequency::sigma_basis;

// Every column of both k-points' tables (7 bands each). BerkeleyGW prints 6 decimals; the sums are the same in another
// order, the frequencies and quadratures the same: held to 2e-5 eV (the GPP path's agreement with BerkeleyGW).
TEST_F(GwFullFrequency, TableMatchesBerkeleyGW) {
  const auto ours = ff_rows((out / "sigma_hp.log").string());
  const auto ref = ff_rows(kSi + "bgw-ff/sigma_hp.log");
  ASSERT_EQ(ref.size(), 14u);
  ASSERT_EQ(ours.size(), ref.size());
  const char* names[13] = {"Emf", "Eo", "X", "Re Res", "Re Int", "Re Sig", "Re Cor", "Vxc", "Re Eqp0", "Re Eqp1", "Im Res", "Im Int", "Im Sig"};
  double worst[13] = {};
  for (const auto& [key, r] : ref) {
    const auto it = ours.find(key);
    ASSERT_NE(it, ours.end()) << "k " << key.first << " band " << key.second;
    for (int c = 0; c < 13; ++c) {
      EXPECT_NEAR(it->second[c], r[c], 2e-5) << names[c] << ", k " << key.first + 1 << ", band " << key.second;
      worst[c] = std::max(worst[c], std::abs(it->second[c] - r[c]));
    }
  }
  std::printf("  full frequency, largest |quanta - BerkeleyGW| (eV):");
  for (int c = 0; c < 13; ++c) std::printf(" %s %.1e%s", names[c], worst[c], c < 12 ? "," : "\n");
}

// The band edges (VBM: band 4 at Gamma; band 5 at Gamma; CBM: band 5 at (0, 0.4, 0.4)) and the two gaps, from the
// linearized solution E_mf + Z (Re Sigma(E_mf) - Vxc) as ABINIT solves it, against ABINIT's full frequency (its energy
// zero 0.1401 eV above Quantum ESPRESSO's). Bound 0.04 eV: the codes' different q -> 0 treatments (abinit/README.md)
// move absolute energies by a few 0.01 eV; their plasmon-pole gaps differ by 0.067 eV. Printed as well: the
// full-frequency minus plasmon-pole shifts, quanta's (against BerkeleyGW's GPP, bgw-reference/eqp1.dat, which
// quanta's GPP reproduces to 1e-5 eV) beside ABINIT's (against its Hybertsen-Louie model).
TEST_F(GwFullFrequency, BandEdgesAgainstAbinit) {
  const auto lin = eqp((out / "eqp_lin.dat").string());
  const auto ff = abinit_gw(kSi + "abinit/si_bgw_gw_ffo_DS9_GW"), hl = abinit_gw(kSi + "abinit/si_bgw_gw_ffo_DS5_GW");
  const auto gpp = eqp(kSi + "bgw-reference/eqp1.dat");
  constexpr double kZero = 0.1401;  // ABINIT's energy zero above QE's
  // (quanta k index in bgw-ff/sigma.inp, band), (ABINIT and bgw-reference k index: Gamma 0, (0, .4, .4) 7, band).
  struct Edge {
    const char* name;
    Key ours, theirs;
  } edges[3] = {{"VBM (Gamma, 4)", {0, 4}, {0, 4}}, {"Gamma_c (Gamma, 5)", {0, 5}, {0, 5}}, {"CBM ((0,.4,.4), 5)", {1, 5}, {7, 5}}};
  double q[3], a[3], sq[3], sa[3];
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(lin.count(edges[i].ours) && ff.count(edges[i].theirs) && hl.count(edges[i].theirs) && gpp.count(edges[i].theirs)) << edges[i].name;
    q[i] = lin.at(edges[i].ours);
    a[i] = ff.at(edges[i].theirs) - kZero;
    sq[i] = q[i] - gpp.at(edges[i].theirs);
    sa[i] = ff.at(edges[i].theirs) - hl.at(edges[i].theirs);
    std::printf("  %-20s quanta FF %.4f  ABINIT FF %.4f  difference %+.4f eV | FF - PPM: quanta %+.4f, ABINIT %+.4f\n", edges[i].name, q[i], a[i],
                q[i] - a[i], sq[i], sa[i]);
    EXPECT_NEAR(q[i], a[i], 0.04) << edges[i].name;
  }
  const double gq[2] = {q[1] - q[0], q[2] - q[0]}, ga[2] = {a[1] - a[0], a[2] - a[0]};
  const char* gaps[2] = {"direct gap at Gamma", "indirect gap"};
  for (int i = 0; i < 2; ++i) {
    std::printf("  %-20s quanta FF %.4f  ABINIT FF %.4f  difference %+.4f eV | FF - PPM: quanta %+.4f, ABINIT %+.4f\n", gaps[i], gq[i], ga[i], gq[i] - ga[i],
                sq[i + 1] - sq[0], sa[i + 1] - sa[0]);
    EXPECT_NEAR(gq[i], ga[i], 0.04) << gaps[i];
  }
}

// The static subspace with 70 eigenvectors against the G basis, every quasiparticle energy of the table: measured 0.34
// meV (35 eigenvectors: 14.5 meV), held to 1 meV. Sigma's sums in the subspace (do_sigma_subspace: the rotated basis,
// alpha D beta^H per frequency) against the same sums over eps^-1 expanded to the G basis: the same numbers in another
// order, 1e-10 of the largest (residue, integral) value.
TEST_F(GwFullFrequency, SubspaceQuasiparticleEnergies) {
  const auto full = eqp((out / "eqp1.dat").string());
  ASSERT_EQ(full.size(), 14u);
  ASSERT_EQ(sigma_expanded.size(), 2u);
  ASSERT_EQ(sigma_basis.size(), 2u);
  double worst = 0, big = 0, diff = 0;
  for (int k = 0; k < 2; ++k)
    for (std::size_t b = 0; b < sigma_expanded[k].bands.size(); ++b) {
      const auto& x = sigma_expanded[k].bands[b];
      const auto& y = sigma_basis[k].bands[b];
      worst = std::max(worst, std::abs(x.eqp1 - full.at({k, x.n})));
      for (std::size_t e = 0; e < x.ff_res.size(); ++e) {
        big = std::max({big, quanta::abs(x.ff_res[e]), quanta::abs(x.ff_int[e])});
        diff = std::max({diff, quanta::abs(x.ff_res[e] - y.ff_res[e]), quanta::abs(x.ff_int[e] - y.ff_int[e])});
      }
    }
  std::printf("  static subspace, 70 eigenvectors: largest |Eqp1 - G basis| = %.2f meV over %zu states; Sigma in the subspace against "
              "the expanded eps^-1: %.2e of %.3g eV\n", 1e3 * worst, full.size(), diff, big);
  EXPECT_LT(worst, 1e-3);
  EXPECT_LT(diff, 1e-10 * big);
}

// The static subspace approximation converges to the G basis: eps^-1 at every frequency of a short grid, for q0 and
// one other q-point, with the basis cut at 10 ... 80 eigenvectors of the static chi0 (of 137-150 G-vectors) and with
// every eigenvector kept (then equal to the G basis's to 1e-10 relative: the same matrices through a unitary basis
// change). The subspace's error is largest on the real axis near the absorption, where chi0 leaves the static
// eigenvectors' span; it must fall as the basis grows.
TEST(GwFullFrequencySubspace, ConvergesToTheFullBasis) {
  EpsilonParams ep = read_epsilon_inp(kSi + "bgw-inputs/epsilon.inp");
  ep.qpoints.resize(2);
  ep.frequency_dependence = 2;
  ep.frequencies.broadening = 0.25, ep.frequencies.delta = 1.0, ep.frequencies.low_cutoff = 8, ep.frequencies.n_imag = 6;
  ep.backend = quanta::Backend::Auto;
  const auto wfn = read_wfn(kSi + "mean-field/02-wfn/WFN", ep.nbands);
  const auto wfnq = read_wfn(kSi + "mean-field/03-wfnq/WFNq");
  const auto full = compute_epsilon(wfn, &wfnq, ep);
  auto error = [&](const std::vector<DielectricMatrix>& s) {
    double worst = 0;
    for (std::size_t iq = 0; iq < full.size(); ++iq) {
      double big = 0, diff = 0;
      EXPECT_EQ(s[iq].epsinv_ff.size(), full[iq].epsinv_ff.size());
      for (std::size_t i = 0; i < full[iq].epsinv_ff.size(); ++i) {
        big = std::max(big, quanta::abs(full[iq].epsinv_ff[i]));
        diff = std::max(diff, quanta::abs(s[iq].epsinv_ff[i] - full[iq].epsinv_ff[i]));
      }
      worst = std::max(worst, diff / big);
    }
    return worst;
  };
  ep.subspace = true;
  ep.subspace_cutoff = 0;
  for (const bool keep : {true, false}) {
    ep.subspace_keep_full_static = keep;
    const double e = error(compute_epsilon(wfn, &wfnq, ep));
    std::printf("  subspace, every eigenvector%s: max |eps^-1 - G basis| / max |eps^-1| = %.2e\n", keep ? " (full static kept)" : "", e);
    EXPECT_LT(e, 1e-10);
  }
  ep.subspace_keep_full_static = true;
  double last = 1e300;
  for (const int nb : {10, 20, 40, 80}) {
    ep.subspace_nbasis = nb;
    const auto s = compute_epsilon(wfn, &wfnq, ep);
    EXPECT_EQ(s[0].subspace_nbasis, nb);
    const double e = error(s);
    std::printf("  subspace, %d eigenvectors: max |eps^-1 - G basis| / max |eps^-1| = %.2e\n", nb, e);
    EXPECT_LT(e, last) << nb << " eigenvectors";
    if (nb == 20) EXPECT_LT(e, 1.0) << "20 eigenvectors";
    if (nb == 80) EXPECT_LT(e, 0.05) << "80 eigenvectors";  // measured 1.4e-2; 20 eigenvectors: 0.52
    last = e;
  }
}

}  // namespace

namespace {

// Full frequency with BerkeleyGW's eps0mat.h5 / epsmat.h5 (bgw-ff-small/: 2 Ry sphere, 12 real and 15 imaginary
// frequencies, files written by BerkeleyGW 3.0's epsilon.real.x, and the sigma_hp.log of its sigma.real.x on them):
// quanta's Epsilon on the same inputs writing the files (`ours`), Sigma from BerkeleyGW's files (`from_bgw`) and from
// quanta's own (`from_ours`).
class GwFullFrequencyEpsmat : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    base = fs::temp_directory_path() / ("quanta-gw-ff-epsmat-" + std::to_string(::getpid()));
    auto go = [](const std::string& name, const fs::path& eps0, const fs::path& eps) {
      RunOptions o = si_bgw_run_options("bgw-ff-small");
      o.output_dir = base / name;
      o.eps0mat = eps0;
      o.epsmat = eps;
      o.quiet = true;
      run(o);
    };
    go("ours", {}, {});
    go("from_bgw", kSi + "bgw-ff-small/eps0mat.h5", kSi + "bgw-ff-small/epsmat.h5");
    go("from_ours", base / "ours" / "eps0mat.h5", base / "ours" / "epsmat.h5");
  }
  static void TearDownTestSuite() { fs::remove_all(base); }
  static fs::path base;
};
fs::path GwFullFrequencyEpsmat::base;

// Every column of the table of each run against BerkeleyGW's, 2e-5 eV as for the 10 Ry case (TableMatchesBerkeleyGW).
// Sigma from quanta's own files must give its own table to the last printed digit: the files hold eps^-1 exactly.
TEST_F(GwFullFrequencyEpsmat, SigmaFromEitherCodesFilesMatchesBerkeleyGW) {
  const auto ref = ff_rows(kSi + "bgw-ff-small/sigma_hp.log");
  ASSERT_EQ(ref.size(), 14u);
  const auto ours = ff_rows((base / "ours" / "sigma_hp.log").string());
  for (const char* run : {"ours", "from_bgw", "from_ours"}) {
    const auto rows = ff_rows((base / run / "sigma_hp.log").string());
    ASSERT_EQ(rows.size(), ref.size()) << run;
    double worst = 0, worst_self = 0;
    for (const auto& [key, r] : ref) {
      const auto it = rows.find(key);
      ASSERT_NE(it, rows.end()) << run << ": k " << key.first << " band " << key.second;
      for (int c = 0; c < 13; ++c) {
        EXPECT_NEAR(it->second[c], r[c], 2e-5) << run << ", column " << c << ", k " << key.first + 1 << ", band " << key.second;
        worst = std::max(worst, std::abs(it->second[c] - r[c]));
        worst_self = std::max(worst_self, std::abs(it->second[c] - ours.at(key)[c]));
      }
    }
    if (std::string(run) == "from_ours") EXPECT_EQ(worst_self, 0.0) << "Sigma from quanta's own files differs from the run that wrote them";
    std::printf("  full frequency, %s: largest |quanta - BerkeleyGW| over the table %.1e eV\n", run, worst);
  }
}

// The files quanta's Epsilon wrote against BerkeleyGW's, dataset by dataset: the same datasets and shapes; the
// frequencies, flags and counts equal; the matrices at every frequency within 1e-9 of each q's largest element (the two
// codes' chi0 summed in other orders on the same grid: observed 1.0e-10, printed).
TEST_F(GwFullFrequencyEpsmat, WritesBerkeleyGWsFullFrequencyLayout) {
  using quanta::io::H5File;
  double worst_freq = 0, worst_matrix = 0;
  for (const char* name : {"eps0mat.h5", "epsmat.h5"}) {
    const H5File ours(base / "ours" / name, H5File::Mode::Read), bgw(kSi + "bgw-ff-small/" + name, H5File::Mode::Read);
    for (const char* d : {"/eps_header/flavor", "/eps_header/params/matrix_flavor", "/eps_header/params/has_advanced", "/eps_header/params/subspace",
                          "/eps_header/freqs/freq_dep", "/eps_header/freqs/nfreq", "/eps_header/freqs/nfreq_imag", "/eps_header/gspace/nmtx",
                          "/eps_header/gspace/nmtx_max", "/eps_header/gspace/gind_eps2rho", "/eps_header/qpoints/nq"}) {
      ASSERT_EQ(ours.dims(d), bgw.dims(d)) << name << " " << d;
      EXPECT_EQ(ours.read_doubles(d), bgw.read_doubles(d)) << name << " " << d;
    }
    {
      const char* d = "/eps_header/freqs/freqs";
      ASSERT_EQ(ours.dims(d), bgw.dims(d)) << name << " " << d;
      const auto a = ours.read_doubles(d), b = bgw.read_doubles(d);
      for (std::size_t i = 0; i < a.size(); ++i) worst_freq = std::max(worst_freq, std::abs(a[i] - b[i]));
    }
    const auto dims = bgw.dims("/mats/matrix");
    ASSERT_EQ(ours.dims("/mats/matrix"), dims) << name;
    ASSERT_EQ(ours.dims("/mats/matrix-diagonal"), bgw.dims("/mats/matrix-diagonal")) << name;
    const auto a = ours.read_doubles("/mats/matrix"), b = bgw.read_doubles("/mats/matrix");
    const std::size_t per_q = a.size() / dims[0];
    for (std::size_t q = 0; q < dims[0]; ++q) {
      double largest = 0, diff = 0;
      for (std::size_t i = q * per_q; i < (q + 1) * per_q; ++i) largest = std::max(largest, std::abs(b[i])), diff = std::max(diff, std::abs(a[i] - b[i]));
      worst_matrix = std::max(worst_matrix, diff / largest);
      EXPECT_LT(diff, 1e-9 * largest) << name << ", q-point " << q + 1;
    }
  }
  EXPECT_LT(worst_freq, 1e-9);
  std::printf("  full-frequency eps0mat.h5 / epsmat.h5 against BerkeleyGW's: frequencies within %.1e eV, matrices within %.1e of the largest\n",
              worst_freq, worst_matrix);
}

}  // namespace

// BerkeleyGW's real-axis method (frequency_dependence_method 0 in epsilon.inp and sigma.inp; tests/data/si-bgw/bgw-ra,
// whose README says how BerkeleyGW 3.0 made them): run-a through quanta's Epsilon and Sigma; run-b's Sigma from
// BerkeleyGW's own eps0mat.h5/epsmat.h5, whose frequency grid quanta's must reproduce bit for bit. Each sigma_hp.log
// against BerkeleyGW's: every number of both lines of every band, and the Soln word.
// Bound 3e-5 eV: BerkeleyGW prints 6 decimals, and at Gamma every column agrees to that last digit; at (0, 0.4, 0.4)
// SX-X, ch and Cor differ by up to 1.7e-5 (run-a) and 2.2e-5 eV (run-b, from BerkeleyGW's own matrices, so not from
// Epsilon) while the contour-deformation table of the same k-point agrees to 7e-6 eV. The real-axis sums run over every
// band pair and every one of the 112-162 frequencies; the cause of the extra 1e-5 at that k-point is not isolated.
namespace {

struct RaRow {
  std::vector<double> re, im;  // Emf Eo X SX-X ch Sig Cor Vxc Eqp0 Eqp1; Im SX-X, ch, Sig, Cor, Eqp0, Eqp1
  std::string soln;
};

std::map<Key, RaRow> ra_rows(const std::string& file) {
  std::ifstream in(file);
  if (!in) throw std::runtime_error("cannot open " + file);
  std::map<Key, RaRow> out;
  std::vector<std::string> lines;
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  int k = -1;
  for (std::size_t i = 0; i + 1 < lines.size(); ++i) {
    if (lines[i].find(" k =") != std::string::npos && lines[i].find("ik =") != std::string::npos) ++k;
    std::istringstream s(lines[i]);
    std::vector<std::string> t;
    for (std::string w; s >> w;) t.push_back(w);
    if (t.size() != 12 || t[0].find_first_not_of("0123456789") != std::string::npos) continue;
    RaRow r;
    for (int c = 1; c <= 10; ++c) r.re.push_back(std::stod(t[c]));
    r.soln = t[11];
    std::istringstream s2(lines[i + 1]);
    for (double x; s2 >> x;) r.im.push_back(x);
    out[{k, std::stoi(t[0])}] = r;
  }
  return out;
}

double compare_ra_tables(const std::string& ours_file, const std::string& ref_file, double bound) {
  const auto ours = ra_rows(ours_file), ref = ra_rows(ref_file);
  EXPECT_EQ(ref.size(), 14u);
  EXPECT_EQ(ours.size(), ref.size());
  double worst = 0;
  for (const auto& [key, r] : ref) {
    const auto it = ours.find(key);
    if (it == ours.end()) {
      ADD_FAILURE() << "k " << key.first + 1 << " band " << key.second << " missing";
      continue;
    }
    EXPECT_EQ(it->second.soln, r.soln) << "k " << key.first + 1 << " band " << key.second;
    EXPECT_EQ(it->second.re.size(), 10u);
    EXPECT_EQ(it->second.im.size(), 6u);
    for (std::size_t c = 0; c < r.re.size() && c < it->second.re.size(); ++c) {
      EXPECT_NEAR(it->second.re[c], r.re[c], bound) << "column " << c + 1 << ", k " << key.first + 1 << ", band " << key.second;
      worst = std::max(worst, std::abs(it->second.re[c] - r.re[c]));
    }
    for (std::size_t c = 0; c < r.im.size() && c < it->second.im.size(); ++c) {
      EXPECT_NEAR(it->second.im[c], r.im[c], bound) << "imaginary column " << c + 1 << ", k " << key.first + 1 << ", band " << key.second;
      worst = std::max(worst, std::abs(it->second.im[c] - r.im[c]));
    }
  }
  return worst;
}

}  // namespace

TEST(GwRealAxis, EpsilonAndSigmaMatchBerkeleyGW) {
  const fs::path out = fs::temp_directory_path() / ("quanta-gw-ra-a-" + std::to_string(::getpid()));
  RunOptions o = si_bgw_run_options("bgw-ra/run-a");
  o.output_dir = out;
  o.backend = quanta::Backend::Auto;
  o.quiet = true;
  run(o);
  const double worst = compare_ra_tables((out / "sigma_hp.log").string(), kSi + "bgw-ra/run-a/sigma_hp.log", 3e-5);
  std::printf("  real axis (run-a, quanta's Epsilon and Sigma): largest |quanta - BerkeleyGW| over the table %.1e eV\n", worst);
  // eqp0.dat and eqp1.dat in BerkeleyGW's real-axis form: spin, band, E_mf, Re and Im of the energy (9 decimals).
  for (const char* name : {"eqp0.dat", "eqp1.dat"}) {
    std::ifstream a(out / name), b(kSi + "bgw-ra/run-a/" + name);
    std::string la, lb;
    int rows = 0;
    while (std::getline(b, lb)) {
      ASSERT_TRUE(std::getline(a, la)) << name;
      std::istringstream sa(la), sb(lb);
      std::vector<double> va, vb;
      for (double x; sa >> x;) va.push_back(x);
      for (double x; sb >> x;) vb.push_back(x);
      ASSERT_EQ(va.size(), vb.size()) << name << ": " << la << " | " << lb;
      for (std::size_t i = 0; i < va.size(); ++i) EXPECT_NEAR(va[i], vb[i], 3e-5) << name << ": " << la << " | " << lb;
      ++rows;
    }
    EXPECT_EQ(rows, 16) << name;  // two k-points: a header and 7 bands each
  }
  fs::remove_all(out);
}

TEST(GwRealAxis, SigmaFromBerkeleyGWsFilesMatchesItsTable) {
  const std::string dir = kSi + "bgw-ra/run-b/";
  // The grid: BerkeleyGW's binary64 frequencies and broadening, point for point, from run-b's epsilon.inp.
  const auto files = read_bgw_epsmat(dir + "eps0mat.h5", dir + "epsmat.h5");
  const auto grid = read_epsilon_inp(dir + "epsilon.inp").frequencies.all();
  ASSERT_EQ(files.eps[0].freq.size(), grid.size());
  EXPECT_EQ(files.eps[0].n_real, static_cast<int>(grid.size()));
  for (std::size_t j = 0; j < grid.size(); ++j) {
    EXPECT_EQ(files.eps[0].freq[j].re, grid[j].re) << "frequency " << j + 1;
    EXPECT_EQ(files.eps[0].freq[j].im, grid[j].im) << "frequency " << j + 1;
  }
  const fs::path out = fs::temp_directory_path() / ("quanta-gw-ra-b-" + std::to_string(::getpid()));
  RunOptions o = si_bgw_run_options("bgw-ra/run-b");
  o.output_dir = out;
  o.eps0mat = dir + "eps0mat.h5";
  o.epsmat = dir + "epsmat.h5";
  o.backend = quanta::Backend::Auto;
  o.quiet = true;
  run(o);
  const double worst = compare_ra_tables((out / "sigma_hp.log").string(), dir + "sigma_hp.log", 3e-5);
  std::printf("  real axis (run-b, Sigma from BerkeleyGW's files): largest |quanta - BerkeleyGW| over the table %.1e eV\n", worst);
  fs::remove_all(out);
}

// A grid too short for the occupied bands' |E - E_m| (54 frequencies to 13.6 eV): W is extrapolated from the last
// interval (11.4-13.6 eV) out to 22 eV, and the conduction bands' Eqp1 by BerkeleyGW's extrap+ line. At Gamma every
// column still agrees to 1e-6 eV; at (0, 0.4, 0.4) the 1e-5 eV differences of the tables above, carried out along the
// extrapolation, reach 3.0e-5 (SX-X) and 6.8e-5 eV (Im Eqp1, extrapolated 10 eV past the grid): bound 1e-4 eV here.
TEST(GwRealAxis, ExtrapolationPastAShortGridAsBerkeleyGW) {
  const fs::path out = fs::temp_directory_path() / ("quanta-gw-ra-c-" + std::to_string(::getpid()));
  RunOptions o = si_bgw_run_options("bgw-ra/run-c-short");
  o.output_dir = out;
  o.backend = quanta::Backend::Auto;
  o.quiet = true;
  run(o);
  const double worst = compare_ra_tables((out / "sigma_hp.log").string(), kSi + "bgw-ra/run-c-short/sigma_hp.log", 1e-4);
  std::printf("  real axis (run-c-short, extrapolated): largest |quanta - BerkeleyGW| over the table %.1e eV\n", worst);
  fs::remove_all(out);
}
