// BerkeleyGW's silicon example end to end through `quanta gw`, from the mean-field files Quantum ESPRESSO's
// pw2bgw.x wrote, against BerkeleyGW's own outputs (epsilon.out, sigma_hp.log, eqp1.dat).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <vector>

#include "quanta/core/io/hdf5.hpp"
#include "quanta/gw/epsilon.hpp"
#include "quanta/gw/run.hpp"
#include "quanta/test/data.hpp"
#include "si_bgw.hpp"

namespace fs = std::filesystem;
using namespace quanta::gw;

namespace {

const std::string kSi = quanta::test::data_path("gw/si-bgw").string() + "/";

std::vector<std::vector<double>> sigma_rows(const std::string& file) {
  std::vector<std::vector<double>> rows;
  std::ifstream in(file);
  for (std::string line; std::getline(in, line);) {
    std::istringstream s(line);
    std::vector<double> v;
    for (double x; s >> x;) v.push_back(x);
    if (v.size() == 11 && s.eof()) rows.push_back(v);
  }
  return rows;
}

// eps^-1 of q-point iq in quanta-gw.h5 (written with --write-epsinv) against `d`: the same G-vectors in the same
// order (asserted), and in *rel the largest difference over the largest element of d; imag false compares the
// real parts of the file with d (a Real-flavour file).
void compare_epsinv(const quanta::io::H5File& f, int iq, const DielectricMatrix& d, bool imag, double* rel) {
  const std::string g = "epsilon/q" + std::to_string(iq + 1) + "/";
  const auto gv = f.read_ints(g + "gvec");
  ASSERT_EQ(gv.size(), 3 * d.gvec.size()) << "q-pt " << iq + 1;
  for (std::size_t i = 0; i < d.gvec.size(); ++i)
    ASSERT_TRUE(gv[3 * i] == d.gvec[i][0] && gv[3 * i + 1] == d.gvec[i][1] && gv[3 * i + 2] == d.gvec[i][2]) << "q-pt " << iq + 1 << " G " << i;
  const auto m = f.read_doubles(g + "epsinv");  // [G'][G][re, im]
  ASSERT_EQ(m.size(), 2 * d.epsinv.size());
  double largest = 0, diff = 0;
  for (std::size_t i = 0; i < d.epsinv.size(); ++i) {
    largest = std::max(largest, quanta::abs(d.epsinv[i]));
    diff = std::max(diff, quanta::abs(quanta::cplx(m[2 * i], imag ? m[2 * i + 1] : 0.0) - d.epsinv[i]));
  }
  *rel = diff / largest;
}

class GwSilicon : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    out = fs::temp_directory_path() / ("quanta-gw-si-" + std::to_string(::getpid()));
    RunOptions o = si_bgw_run_options("bgw-inputs");
    // Another set of mean-field files of the same example (silicon_complex.sh: the Complex flavour),
    // all in one folder.
    if (const char* dir = std::getenv("QUANTA_GW_SI_MEANFIELD")) {
      const fs::path d(dir);
      o.wfn = d / "WFN", o.wfnq = d / "WFNq", o.wfn_inner = d / "WFN_co", o.rho = d / "RHO", o.vxc = d / "vxc.dat";
    }
    o.output_dir = out;
    o.write_epsinv = true;  // compared with BerkeleyGW's own eps0mat.h5 / epsmat.h5 below
    // The GPU when there is one (then the CUDA kernels are checked against BerkeleyGW directly; the
    // parity test holds them to the CPU at 1e-10), else the CPU.
    o.backend = quanta::Backend::Auto;
    // Not quiet: the progress lines are checked below.
    testing::internal::CaptureStderr();
    try {
      summary = run(o);
    } catch (...) {
      log = testing::internal::GetCapturedStderr();
      throw;
    }
    log = testing::internal::GetCapturedStderr();
  }
  static void TearDownTestSuite() { fs::remove_all(out); }
  static inline fs::path out;
  static inline RunSummary summary;
  static inline std::string log;  // what the run wrote on stderr
};

// Sigma runs for minutes on a real case: it reports its progress with an ETA from the work done (the
// GPP terms and FFTs of each (k, q)), as Epsilon does, ending with the completed count.
TEST_F(GwSilicon, EpsilonAndSigmaReportProgress) {
  EXPECT_NE(log.find("[gw epsilon] 5000/5000 (100.0%)"), std::string::npos) << log;
  EXPECT_NE(log.find("[gw sigma] 10/10 (100.0%)"), std::string::npos) << log;
}

TEST_F(GwSilicon, DielectricHeadsMatchEpsilonOut) {
  std::map<int, std::map<std::string, double>> ref;
  std::ifstream in(kSi + "bgw-reference/epsilon.out");
  for (std::string line; std::getline(in, line);) {
    int iq;
    char name[64];
    double v;
    if (std::sscanf(line.c_str(), " q-pt %d: %63[^=]= %lf", &iq, name, &v) == 3) {
      std::string key(name);
      key.erase(key.find_last_not_of(' ') + 1);
      ref[iq][key] = v;
    }
  }
  ASSERT_EQ(ref.size(), 10u);
  quanta::io::H5File f(out / "quanta-gw.h5", quanta::io::H5File::Mode::Read);
  for (int iq = 1; iq <= 10; ++iq) {
    const std::string g = "epsilon/q" + std::to_string(iq) + "/";
    const double head = f.read_doubles(g + "eps_head")[0];
    const double ihead = f.read_doubles(g + "epsinv_head")[0];
    // The issue asks for 1e-3; the two codes agree to 3e-8 (the mean-field files were regenerated, so
    // not bit for bit), and 1e-6 keeps a regression from hiding under the looser bound.
    EXPECT_NEAR(head, ref[iq]["Head of Epsilon"], 1e-6 * ref[iq]["Head of Epsilon"]) << "q-pt " << iq;
    EXPECT_NEAR(ihead, ref[iq]["Head of Epsilon Inverse"], 1e-6 * ref[iq]["Head of Epsilon Inverse"]) << "q-pt " << iq;
  }
}

// quanta's eps^-1, every element of every q, against the one BerkeleyGW 3.0's epsilon.x wrote for the same
// mean-field files and input (bgw-epsmat/, read by read_bgw_epsmat): the same G-vectors in the same order,
// and every element within 1e-8 of the largest. Measured 2.7e-10 (the two codes sum and invert in different
// orders); a transposed matrix or a wrong sphere would differ at order 0.1 (eps^-1 is not symmetric here).
// With other mean-field files of the example (QUANTA_GW_SI_MEANFIELD: the Complex flavour QE makes on the
// spot, gw_silicon_complex_test) the two runs did not read the same states: 1e-5 (measured 7.2e-7).
TEST_F(GwSilicon, EpsilonInverseMatchesBerkeleyGWsEpsmat) {
  const auto bgw = read_bgw_epsmat(kSi + "bgw-epsmat/eps0mat.h5", kSi + "bgw-epsmat/epsmat.h5");
  ASSERT_EQ(bgw.eps.size(), 10u);
  quanta::io::H5File f(out / "quanta-gw.h5", quanta::io::H5File::Mode::Read);
  const double tol = std::getenv("QUANTA_GW_SI_MEANFIELD") ? 1e-5 : 1e-8;
  double worst = 0;
  for (int iq = 0; iq < 10; ++iq) {
    double rel = 0;
    compare_epsinv(f, iq, bgw.eps[iq], true, &rel);
    worst = std::max(worst, rel);
    EXPECT_LT(rel, tol) << "q-pt " << iq + 1;
  }
  std::printf("  eps^-1, quanta vs BerkeleyGW's epsmat: largest difference %.1e of the largest element\n", worst);
}

// Sigma from BerkeleyGW's eps0mat.h5 and epsmat.h5 instead of quanta's Epsilon: the same rows of
// sigma_hp.log within the same bounds as the run above.
TEST(GwSiliconFromEpsmat, SigmaMatchesSigmaHpLog) {
  const fs::path dir = fs::temp_directory_path() / ("quanta-gw-si-epsmat-" + std::to_string(::getpid()));
  RunOptions o;
  o.input_dir = kSi + "bgw-inputs";
  o.eps0mat = kSi + "bgw-epsmat/eps0mat.h5";
  o.epsmat = kSi + "bgw-epsmat/epsmat.h5";
  o.wfn = o.wfnq = "not-read";  // Epsilon does not run
  o.epsilon_input = "not-read.inp";
  o.wfn_inner = kSi + "mean-field/04-wfn_co/WFN_co";
  o.rho = kSi + "mean-field/04-wfn_co/RHO";
  o.vxc = kSi + "mean-field/04-wfn_co/vxc.dat";
  o.output_dir = dir;
  o.quiet = true;
  const auto summary = run(o);
  EXPECT_EQ(summary.nq, 10);
  const auto ours = sigma_rows((dir / "sigma_hp.log").string());
  const auto ref = sigma_rows(kSi + "bgw-reference/sigma_hp.log");
  ASSERT_EQ(ours.size(), ref.size());
  const double tol[11] = {0, 1e-5, 1e-5, 5e-3, 0.01, 0.01, 0.01, 1e-5, 0.01, 0.01, 1e-3};
  double worst_eqp1 = 0;
  for (std::size_t r = 0; r < ref.size(); ++r)
    for (int c = 1; c < 11; ++c) {
      EXPECT_NEAR(ours[r][c], ref[r][c], tol[c]) << "row " << r << " column " << c;
      if (c == 9) worst_eqp1 = std::max(worst_eqp1, std::abs(ours[r][c] - ref[r][c]));
    }
  std::printf("  Sigma from BerkeleyGW's epsmat: Eqp1 within %.1e eV of BerkeleyGW's sigma_hp.log\n", worst_eqp1);
  EXPECT_LT(worst_eqp1, 1e-4);
  fs::remove_all(dir);
}

TEST_F(GwSilicon, SigmaMatchesSigmaHpLog) {
  const auto ours = sigma_rows((out / "sigma_hp.log").string());
  const auto ref = sigma_rows(kSi + "bgw-reference/sigma_hp.log");
  ASSERT_EQ(ref.size(), 140u);
  ASSERT_EQ(ours.size(), ref.size());
  // Columns: n Emf Eo X SX-X CH Sig Vxc Eqp0 Eqp1 Znk. The tolerances (eV; Znk absolute).
  const double tol[11] = {0, 1e-5, 1e-5, 5e-3, 0.01, 0.01, 0.01, 1e-5, 0.01, 0.01, 1e-3};
  double worst[11] = {};
  for (std::size_t r = 0; r < ref.size(); ++r) {
    EXPECT_EQ(ours[r][0], ref[r][0]);
    for (int c = 1; c < 11; ++c) {
      EXPECT_NEAR(ours[r][c], ref[r][c], tol[c]) << "row " << r << " column " << c;
      worst[c] = std::max(worst[c], std::abs(ours[r][c] - ref[r][c]));
    }
  }
  const double worst_eqp1 = worst[9];
  std::printf("  largest |quanta - BerkeleyGW|: X %.1e, SX-X %.1e, CH %.1e, Sig %.1e, Eqp0 %.1e, Eqp1 %.1e eV, Znk %.1e\n", worst[3],
              worst[4], worst[5], worst[6], worst[8], worst[9], worst[10]);
  // Observed: Eqp1 within 1.0e-5 eV of BerkeleyGW's; 1e-4 leaves room for the regenerated mean field.
  EXPECT_LT(worst_eqp1, 1e-4);
}

// The eps0mat.h5 and epsmat.h5 quanta's Epsilon wrote, dataset by dataset against the ones BerkeleyGW 3.0's
// epsilon.x wrote for the same mean-field files and input: the same datasets with the same shapes and
// integer types; every integer equal (the G orders gind_eps2rho and gind_rho2eps over all 4573 G-vectors,
// nmtx, the mean field's header); the header's real numbers (energies, cell, k-points, efermi) within 1e-12
// relative, as they are read from the same WFN or computed from it in another order (ekin, vcoul, adot); the
// matrices within 1e-8 of their largest element, as in EpsilonInverseMatchesBerkeleyGWsEpsmat.
TEST_F(GwSilicon, WritesBerkeleyGWsEpsmatFiles) {
  if (std::getenv("QUANTA_GW_SI_MEANFIELD")) GTEST_SKIP() << "BerkeleyGW's files were made from the Real-flavour mean field";
  using quanta::io::H5File;
  const char* datasets[] = {
      "/eps_header/versionnumber", "/eps_header/flavor", "/eps_header/params/matrix_type", "/eps_header/params/matrix_flavor",
      "/eps_header/params/nmatrix", "/eps_header/params/has_advanced", "/eps_header/params/icutv", "/eps_header/params/ecuts",
      "/eps_header/params/nband", "/eps_header/params/efermi", "/eps_header/params/intraband_flag",
      "/eps_header/params/intraband_overlap_min", "/eps_header/params/subsample", "/eps_header/params/subspace",
      "/eps_header/freqs/freq_dep", "/eps_header/freqs/nfreq", "/eps_header/freqs/nfreq_imag", "/eps_header/freqs/freqs",
      "/eps_header/qpoints/nq", "/eps_header/qpoints/qpts", "/eps_header/qpoints/qgrid", "/eps_header/qpoints/qpt_done",
      "/eps_header/gspace/nmtx", "/eps_header/gspace/nmtx_max", "/eps_header/gspace/ekin", "/eps_header/gspace/gind_eps2rho",
      "/eps_header/gspace/gind_rho2eps", "/eps_header/gspace/vcoul", "/mf_header/versionnumber", "/mf_header/flavor",
      "/mf_header/kpoints/nspin", "/mf_header/kpoints/nspinor", "/mf_header/kpoints/nrk", "/mf_header/kpoints/mnband",
      "/mf_header/kpoints/ngkmax", "/mf_header/kpoints/ecutwfc", "/mf_header/kpoints/kgrid", "/mf_header/kpoints/shift",
      "/mf_header/kpoints/ngk", "/mf_header/kpoints/ifmin", "/mf_header/kpoints/ifmax", "/mf_header/kpoints/w",
      "/mf_header/kpoints/rk", "/mf_header/kpoints/el", "/mf_header/kpoints/occ", "/mf_header/gspace/ng",
      "/mf_header/gspace/ecutrho", "/mf_header/gspace/FFTgrid", "/mf_header/gspace/components", "/mf_header/symmetry/ntran",
      "/mf_header/symmetry/cell_symmetry", "/mf_header/symmetry/mtrx", "/mf_header/symmetry/tnp", "/mf_header/crystal/celvol",
      "/mf_header/crystal/recvol", "/mf_header/crystal/alat", "/mf_header/crystal/blat", "/mf_header/crystal/nat",
      "/mf_header/crystal/avec", "/mf_header/crystal/bvec", "/mf_header/crystal/adot", "/mf_header/crystal/bdot",
      "/mf_header/crystal/atyp", "/mf_header/crystal/apos"};
  double worst_header = 0, worst_matrix = 0;
  for (const char* name : {"eps0mat.h5", "epsmat.h5"}) {
    ASSERT_TRUE(fs::exists(out / name)) << name << " was not written";
    const H5File ours(out / name, H5File::Mode::Read), bgw(kSi + "bgw-epsmat/" + name, H5File::Mode::Read);
    for (const char* d : datasets) {
      const std::string where = std::string(name) + " " + d;
      ASSERT_TRUE(ours.exists(d)) << where;
      ASSERT_EQ(ours.dims(d), bgw.dims(d)) << where;
      const auto a = ours.read_doubles(d), b = bgw.read_doubles(d);
      bool integers = true;
      for (double x : b) integers &= x == std::floor(x);
      for (std::size_t i = 0; i < a.size(); ++i) {
        if (integers && std::string(d).find("ekin") == std::string::npos && std::string(d).find("vcoul") == std::string::npos &&
            std::string(d).find("/el") == std::string::npos) {
          ASSERT_EQ(a[i], b[i]) << where << " [" << i << "]";
        } else {
          const double rel = std::abs(a[i] - b[i]) / std::max(1.0, std::abs(b[i]));
          worst_header = std::max(worst_header, rel);
          EXPECT_LT(rel, 1e-12) << where << " [" << i << "]: " << a[i] << " vs " << b[i];
        }
      }
    }
    for (const char* d : {"/mats/matrix", "/mats/matrix-diagonal"}) {
      ASSERT_EQ(ours.dims(d), bgw.dims(d)) << name << " " << d;
      const auto a = ours.read_doubles(d), b = bgw.read_doubles(d);
      double largest = 0, diff = 0;
      for (std::size_t i = 0; i < a.size(); ++i) largest = std::max(largest, std::abs(b[i])), diff = std::max(diff, std::abs(a[i] - b[i]));
      worst_matrix = std::max(worst_matrix, diff / largest);
      EXPECT_LT(diff, 1e-8 * largest) << name << " " << d;
    }
  }
  std::printf("  eps0mat.h5 / epsmat.h5 against BerkeleyGW's: header within %.1e (relative), matrices within %.1e of the largest\n",
              worst_header, worst_matrix);
}

// The eps0mat.h5 and epsmat.h5 quanta wrote, read back as Sigma reads them (--eps0mat, --epsmat): the run's
// own eps^-1 on the same spheres. The Real flavour stores the real part; the imaginary parts quanta computed
// are rounding (a real-flavour mean field has real matrices), so the bound is 1e-14 of the largest element.
TEST_F(GwSilicon, ItsEpsmatFilesReadBack) {
  const auto back = read_bgw_epsmat(out / "eps0mat.h5", out / "epsmat.h5");
  ASSERT_EQ(back.eps.size(), 10u);
  EXPECT_EQ(back.params.nbands, 29);
  EXPECT_EQ(back.qgrid, (Vec3i{5, 5, 5}));
  quanta::io::H5File f(out / "quanta-gw.h5", quanta::io::H5File::Mode::Read);
  for (int iq = 0; iq < 10; ++iq) {
    EXPECT_EQ(back.eps[iq].q.q0, iq == 0);
    double rel = 0;
    compare_epsinv(f, iq, back.eps[iq], std::getenv("QUANTA_GW_SI_MEANFIELD") != nullptr, &rel);
    EXPECT_LE(rel, 1e-14) << "q-pt " << iq + 1;
  }
}

TEST_F(GwSilicon, EqpFilesHaveBerkeleyGWsLayout) {
  for (const char* name : {"eqp0.dat", "eqp1.dat"}) {
    std::ifstream a(out / name), b(kSi + "bgw-reference/" + std::string(name));
    std::string la, lb;
    int lines = 0;
    while (std::getline(b, lb)) {
      ASSERT_TRUE(std::getline(a, la)) << name << " ends early at line " << lines + 1;
      ASSERT_EQ(la.size(), lb.size()) << name << " line " << lines + 1 << ":\n" << la << "\n" << lb;
      std::istringstream sa(la), sb(lb);
      for (double x, y; sb >> y;) {
        ASSERT_TRUE(sa >> x);
        EXPECT_NEAR(x, y, 1e-4) << name << " line " << lines + 1;
      }
      ++lines;
    }
    EXPECT_EQ(lines, 150);
  }
}

}  // namespace
