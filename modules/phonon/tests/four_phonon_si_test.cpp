// quanta phonon against FourPhonon's three- plus four-phonon runs on Stillinger-Weber silicon at 3x3x3
// (tests/data/si-sw-4ph-3x3x3/README.md): process counts, four-phonon rates of each class, weighted phase
// spaces, phase spaces and the conductivity, RTA and iterated, from FourPhonon's own input folder.
#include <cmath>
#include <numeric>
#include <random>

#include "quanta/core/error.hpp"
#include "quanta/core/io/hdf5.hpp"
#include "quanta/phonon/force_constants.hpp"
#include "quanta/phonon/harmonic.hpp"
#include "quanta/phonon/qgrid.hpp"
#include "quanta/phonon/run.hpp"
#include "quanta/phonon/scattering.hpp"
#include "quanta/phonon/spectrum.hpp"
#include "quanta/phonon/symmetry.hpp"
#include "test_support.hpp"

namespace quanta::phonon::test {
namespace {

std::filesystem::path reference_4ph(const std::string& run) { return quanta::test::data_path("phonon/si-sw-4ph-3x3x3/" + run); }

// FourPhonon's input folder for one reference run: its CONTROL, and the force constants of the set.
void stage_inputs(const std::filesystem::path& dir, const std::string& run) {
  std::filesystem::copy_file(reference_4ph(run) / "CONTROL", dir / "CONTROL");
  for (const char* f : {"FORCE_CONSTANTS_2ND", "FORCE_CONSTANTS_3RD", "FORCE_CONSTANTS_4TH"})
    std::filesystem::copy_file(quanta::test::data_path(std::string("phonon/si-sw-4ph/") + f), dir / f);
}

// The first and last conductivity of T300K/BTE.kappa_scalar (RTA, converged).
std::pair<double, double> kappa(const std::filesystem::path& dir) {
  const auto rows = read_table(dir / "T300K" / "BTE.kappa_scalar");
  return {rows.front().back(), rows.back().back()};
}

RunSummary run_case(const std::filesystem::path& dir, const std::string& run) {
  stage_inputs(dir, run);
  RunOptions o;
  o.input_dir = dir;
  o.output_dir = dir;
  o.backend = Backend::Cpu;
  o.quiet = true;
  return phonon::run(o);
}

// What two codes can agree on. FourPhonon counts each unordered pair (or triple) of partners once, the
// pairs of identical partners included with weight 1. Where such a pair lies in a degenerate set, the
// restricted sum of |V|^2 depends on which basis of the set the eigensolver returned (the full sum over
// the set would not; the identical-pair terms are what moves). `BasisOfDegenerateSetsMovesTheRates` below
// measures it within quanta alone: a random basis in every degenerate set moves a degenerate set's rate by
// up to 6% at this mesh (the identical-pair terms are ~1/N of the processes, so the effect fades on denser
// meshes). quanta and FourPhonon both take their bases from a Hermitian eigensolver applied to nearly the
// same matrices, and their rates differ by at most 2.7e-4 away from Gamma; the tolerance below (3e-3)
// holds that observation, not a bound that two eigensolvers must meet. The weighted phase spaces WP4 involve
// no eigenvectors: they agree to the printed digits.
// At Gamma, the triply degenerate optical modes have zero velocity: a +- process with both final
// partners there has sigma = 0 and is allowed only when its energy mismatch is exactly 0.0 in floating
// point, so its presence depends on the last bit of the frequencies (FourPhonon itself counts 11150,
// 11149, 11150 for the three modes). quanta counts one such process more; with sigma replaced by
// 1/sqrt(pi) it carries the weight of a whole Gaussian, which moves the Gamma rates by 2e-3.
TEST(FourPhononSi, DefaultModeMatchesFourPhonon) {
  TempDir dir;
  run_case(dir.path, "output");
  const auto ref = reference_4ph("output");
  const int nb = 6;
  // Process counts per irreducible mode (rows q-major, band fastest): identical away from Gamma.
  const auto a = read_table(ref / "BTE.Numprocess_4ph"), b = read_table(dir.path / "BTE.Numprocess_4ph");
  ASSERT_EQ(a.size(), b.size());
  double total_ref[3] = {0, 0, 0}, total[3] = {0, 0, 0};
  for (std::size_t r = 0; r < a.size(); ++r)
    for (int c = 0; c < 3; ++c) {
      total_ref[c] += a[r][c], total[c] += b[r][c];
      if (r >= static_cast<std::size_t>(nb)) EXPECT_EQ(b[r][c], a[r][c]) << "mode " << r << " class " << c;
    }
  EXPECT_EQ(total_ref[0] + total_ref[1] + total_ref[2], 16797 + 277231 + 9416);
  EXPECT_EQ(total[0], total_ref[0]);
  EXPECT_NEAR(total[1], total_ref[1], 1);  // one sigma = 0 process at Gamma (above)
  EXPECT_EQ(total[2], total_ref[2]);
  // Phase spaces: ++ and -- to rounding; +- within the weight of that one process, 1 / (N^3 nb^4).
  const double one_process = 1.0 / (27.0 * 27 * 27 * nb * nb * nb * nb);
  for (const char* f : {"BTE.P4_plusplus_total", "BTE.P4_minusminus_total", "BTE.P4_plusminus_total", "BTE.P4_total"}) {
    const double sa = read_table(ref / f).front().front(), sb = read_table(dir.path / f).front().front();
    EXPECT_NEAR(sb, sa, 1e-12 * sa + (std::string(f).find("plusplus") == std::string::npos &&
                                              std::string(f).find("minusminus") == std::string::npos
                                          ? 1.0001 * one_process
                                          : 0.0))
        << f;
  }
  // Weighted phase spaces (no eigenvectors): to the 5 printed digits, Gamma's extra process aside.
  const auto T = std::filesystem::path("T300K");
  for (const char* f : {"BTE.WP4_plusplus", "BTE.WP4_minusminus"}) expect_rates_match(ref / T / f, dir.path / T / f, nb, 1e-5);
  // Rates of each class and in all: within the eigenvector-basis spread (above), per degenerate set.
  for (const char* f : {"BTE.w_4ph", "BTE.w_4ph_plusplus", "BTE.w_4ph_plusminus", "BTE.w_4ph_minusminus", "BTE.w"})
    expect_rates_match(ref / T / f, dir.path / T / f, nb, 3e-3);
  // Conductivity: 4ph in the relaxation time, 3ph processes iterated. Observed: RTA 3.7e-6, converged 5e-6.
  const auto [rta_ref, conv_ref] = kappa(ref);
  const auto [rta, conv] = kappa(dir.path);
  EXPECT_NEAR(rta, rta_ref, 1e-5 * rta_ref);
  EXPECT_NEAR(conv, conv_ref, 1e-5 * conv_ref);
}

// The outputs beyond FourPhonon's: the Normal and Umklapp parts of BTE.w_4ph add up to it, and
// quanta-phonon.h5 holds the counts, rates and weighted phase spaces of the text files.
TEST(FourPhononSi, SplitAndHdf5OutputsAgreeWithTheTextFiles) {
  TempDir dir;
  run_case(dir.path, "output");
  const auto T = dir.path / "T300K";
  const auto w = read_table(T / "BTE.w_4ph"), n = read_table(T / "BTE.w_4ph_normal"), u = read_table(T / "BTE.w_4ph_Umklapp");
  ASSERT_EQ(w.size(), n.size());
  ASSERT_EQ(w.size(), u.size());
  double umklapp = 0, total = 0;
  for (std::size_t i = 0; i < w.size(); ++i) {
    EXPECT_NEAR(n[i][1] + u[i][1], w[i][1], 1e-9 * w[i][1] + 1e-300) << "row " << i;  // 10 printed digits
    EXPECT_GE(u[i][1], 0.0);
    umklapp += u[i][1], total += w[i][1];
  }
  EXPECT_GT(umklapp, 0.05 * total);  // both kinds present at 3x3x3
  EXPECT_LT(umklapp, 0.95 * total);

  const io::H5File h5(dir.path / "quanta-phonon.h5", io::H5File::Mode::Read);
  const auto counts = h5.read_ints("scattering/four_phonon/process_counts");  // [class][irreducible q][band]
  const auto numprocess = read_table(dir.path / "BTE.Numprocess_4ph");      // [irreducible mode][class]
  ASSERT_EQ(counts.size(), 3 * numprocess.size());
  for (std::size_t m = 0; m < numprocess.size(); ++m)
    for (int c = 0; c < 3; ++c) EXPECT_EQ(counts[c * numprocess.size() + m], static_cast<std::int64_t>(numprocess[m][c])) << m;
  const auto rates = h5.read_doubles("scattering/T300K/four_phonon/w_4ph_per_ps");
  const auto rates_u = h5.read_doubles("scattering/T300K/four_phonon/w_4ph_umklapp_per_ps");
  const auto wp4 = h5.read_doubles("scattering/T300K/four_phonon/WP4");
  const std::size_t nmodes = numprocess.size();
  ASSERT_EQ(rates.size(), 3 * nmodes);
  ASSERT_EQ(wp4.size(), 3 * nmodes);
  // BTE.w_4ph is band-major over the irreducible points ([band][q]); the HDF5 layout is [class][q][band].
  const int nb = 6;
  const std::size_t nq = nmodes / nb;
  for (std::size_t q = 0; q < nq; ++q)
    for (int b = 0; b < nb; ++b) {
      const std::size_t m = q * nb + b, row = b * nq + q;
      const double sum = rates[m] + rates[nmodes + m] + rates[2 * nmodes + m];
      const double sum_u = rates_u[m] + rates_u[nmodes + m] + rates_u[2 * nmodes + m];
      EXPECT_NEAR(sum, w[row][1], 1e-9 * w[row][1] + 1e-300) << "q " << q << " band " << b;
      EXPECT_NEAR(sum_u, u[row][1], 1e-9 * w[row][1] + 1e-300) << "q " << q << " band " << b;
    }
}

// An iterative solution that reaches maxiter without converging ends the run with an error naming the
// temperature, after writing the last iteration's outputs (as ShengBTE writes them).
TEST(FourPhononSi, IterationAtMaxiterIsAnError) {
  TempDir dir;
  stage_inputs(dir.path, "output");
  std::string control = read_text(dir.path / "CONTROL");
  control.replace(control.find("&parameters"), 11, "&parameters\n\tmaxiter=2");
  write_text(dir.path / "CONTROL", control);
  RunOptions o;
  o.input_dir = dir.path;
  o.output_dir = dir.path;
  o.quiet = true;
  try {
    phonon::run(o);
    ADD_FAILURE() << "an unconverged iteration was reported as a success";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("did not converge within maxiter = 2"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("300"), std::string::npos) << e.what();
  }
  EXPECT_EQ(read_table(dir.path / "T300K" / "BTE.kappa_scalar").size(), 3u);  // RTA and the two iterations
}

// FourPhonon's fully iterative solution (four_phonon_iteration): the four-phonon processes in the
// collision operator too. The relaxation times are those of the default mode; the converged kappa moves
// from 237.558 to 235.996 W/mK in FourPhonon.
TEST(FourPhononSi, FullyIterativeMatchesFourPhonon) {
  TempDir dir;
  run_case(dir.path, "output-4ph-iterative");
  const auto ref = reference_4ph("output-4ph-iterative");
  const auto [rta_ref, conv_ref] = kappa(ref);
  const auto [rta, conv] = kappa(dir.path);
  EXPECT_NEAR(rta, rta_ref, 1e-5 * rta_ref);
  EXPECT_NEAR(conv, conv_ref, 1e-5 * conv_ref);
  expect_rates_match(ref / "T300K" / "BTE.w_4ph", dir.path / "T300K" / "BTE.w_4ph", 6, 3e-3);
}

// An independent evaluation of FourPhonon's rate formula for a few modes: plain loops over every (q2, j),
// (q3, k), l with the canonical order of the partners written out, q4 found by searching the mesh, and |V|^2
// summed straight from the quadruplets of FORCE_CONSTANTS_4TH with Cartesian phases e^{i q.R} (no grouping,
// no table of roots, no mass division in advance), and its Umklapp part from the shortest Cartesian images of
// the four q-points. Against four_phonon_scattering to 1e-11.
TEST(FourPhononSi, RatesMatchABruteForceSum) {
  TempDir dir;
  stage_inputs(dir.path, "output");
  const Harmonic h = harmonic_stage(dir.path);
  const FourthOrderFc fc4 = read_fc4(dir.path / "FORCE_CONSTANTS_4TH", h.control);
  const Crystal& cr = h.control.crystal;
  const Spectrum& sp = h.spectrum;
  const int nb = sp.nb, N = h.grid.nptk;
  const double T = 300;
  ScatteringOptions so;
  so.quiet = true;
  const auto fast = four_phonon_scattering(cr, h.grid, sp, fc4, h.control.scalebroad, {T}, so);

  const double pi = 3.141592653589793, hbar = 1.05457172647e-22, kB = 1.380648813e-23;
  const auto n_of = [&](int mode) { return sp.omega[mode] == 0 ? 0.0 : 1.0 / (std::exp(hbar * sp.omega[mode] / kB / T) - 1.0); };
  const auto find_q = [&](const Vec3& f) {
    for (int i = 0; i < N; ++i) {
      bool same = true;
      for (int d = 0; d < 3; ++d) {
        const double x = f[d] - h.grid.qfrac[i][d];
        same = same && std::abs(x - std::round(x)) < 1e-9;
      }
      if (same) return i;
    }
    return -1;
  };
  const auto cart = [&](const int cell[3]) {
    Vec3 r{};
    for (int i = 0; i < 3; ++i)
      for (int d = 0; d < 3; ++d) r[d] += cell[i] * cr.lattice[i][d];
    return r;
  };
  const auto dot = [](const Vec3& a, const Vec3& b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; };
  // V for class c: signs s2, s3 of q2 and q3 (and whether e2, e3 are conjugated), -q4 always.
  const auto vertex = [&](int cls, int m1, int m2, int m3, int m4) {
    const int s2 = cls == 2 ? -1 : 1, s3 = cls == 0 ? 1 : -1;
    const Vec3 q2 = qfrac_to_cart(cr, h.grid.qfrac[m2 / nb]), q3 = qfrac_to_cart(cr, h.grid.qfrac[m3 / nb]),
               q4 = qfrac_to_cart(cr, h.grid.qfrac[m4 / nb]);
    cplx v;
    for (const auto& t : fc4.quadruplets) {
      const double phase = s2 * dot(q2, cart(t.cell_j)) + s3 * dot(q3, cart(t.cell_k)) - dot(q4, cart(t.cell_l));
      cplx sum;
      for (int a = 0; a < 3; ++a)
        for (int b = 0; b < 3; ++b)
          for (int c = 0; c < 3; ++c)
            for (int d = 0; d < 3; ++d) {
              cplx e2 = sp.eigenvectors[static_cast<std::size_t>(m2) * nb + 3 * t.atom[1] + b];
              cplx e3 = sp.eigenvectors[static_cast<std::size_t>(m3) * nb + 3 * t.atom[2] + c];
              if (s2 < 0) e2 = conj(e2);
              if (s3 < 0) e3 = conj(e3);
              sum += sp.eigenvectors[static_cast<std::size_t>(m1) * nb + 3 * t.atom[0] + a] * e2 * e3 *
                     conj(sp.eigenvectors[static_cast<std::size_t>(m4) * nb + 3 * t.atom[3] + d]) * t.phi[27 * a + 9 * b + 3 * c + d];
            }
      const double mass = std::sqrt(cr.masses[t.atom[0]] * cr.masses[t.atom[1]] * cr.masses[t.atom[2]] * cr.masses[t.atom[3]]);
      v += cplx(std::cos(phase), std::sin(phase)) * sum * (1 / mass);
    }
    return norm2(v);
  };
  const auto sigma_of = [&](int m3, int m4) {
    double mx = 0;
    for (int d = 0; d < 3; ++d) {
      double p = 0;
      for (int x = 0; x < 3; ++x) p += cr.reciprocal[d][x] * (sp.velocity[3 * m3 + x] - sp.velocity[3 * m4 + x]);
      p /= h.grid.n[d];
      mx = std::max(mx, p * p);
    }
    return h.control.scalebroad * std::sqrt(mx / 2);
  };
  // Normal or Umklapp: q1 + s2 q2 + s3 q3 - q4 between the shortest Cartesian images of the four points
  // (searched here over shifts of -2..2 reciprocal vectors) is zero for a Normal process.
  const auto image = [&](int q) {
    Vec3 best{};
    double shortest = 1e300;
    for (int a = -2; a <= 2; ++a)
      for (int b = -2; b <= 2; ++b)
        for (int c = -2; c <= 2; ++c) {
          const Vec3 f{h.grid.qfrac[q][0] + a, h.grid.qfrac[q][1] + b, h.grid.qfrac[q][2] + c};
          const Vec3 x = qfrac_to_cart(cr, f);
          const double l = dot(x, x);
          if (l < shortest - 1e-9 * (1 + l)) shortest = l, best = x;
        }
    return best;
  };
  std::vector<Vec3> images(N);
  for (int q = 0; q < N; ++q) images[q] = image(q);
  const auto umklapp = [&](int cls, int q1, int q2, int q3, int q4) {
    const int s2 = cls == 2 ? -1 : 1, s3 = cls == 0 ? 1 : -1;
    double off = 0;
    for (int d = 0; d < 3; ++d) off += std::abs(images[q1][d] + s2 * images[q2][d] + s3 * images[q3][d] - images[q4][d]);
    return off > 1e-9;
  };
  int with_umklapp = 0, with_normal = 0;
  // A few modes of each irreducible point but Gamma, and every class.
  for (int l = 1; l < h.grid.nlist(); ++l)
    for (int i : {0, 5}) {  // an acoustic and an optical branch
      const int m = l * nb + i, m1 = h.grid.irreducible[l] * nb + i;
      const double w1 = sp.omega[m1];
      for (int cls = 0; cls < 3; ++cls) {
        double gamma = 0, gamma_u = 0;
        long count = 0;
        for (int q2 = 0; q2 < N; ++q2)
          for (int q3 = 0; q3 < N; ++q3) {
            Vec3 f4;
            const int s2 = cls == 2 ? -1 : 1, s3 = cls == 0 ? 1 : -1;
            for (int d = 0; d < 3; ++d)
              f4[d] = h.grid.qfrac[m1 / nb][d] + s2 * h.grid.qfrac[q2][d] + s3 * h.grid.qfrac[q3][d];
            const int q4 = find_q(f4);
            ASSERT_GE(q4, 0);
            for (int j = 0; j < nb; ++j)
              for (int k = 0; k < nb; ++k)
                for (int ll = 0; ll < nb; ++ll) {
                  const int m2 = q2 * nb + j, m3 = q3 * nb + k, m4 = q4 * nb + ll;
                  // FourPhonon's canonical order of identical-class partners.
                  const bool order23 = m3 >= m2, order34 = m4 >= m3;
                  if ((cls == 0 && !order23) || (cls == 1 && !order34) || (cls == 2 && !(order23 && order34))) continue;
                  if (cls == 1 && (m3 == m1 || m4 == m1 || m3 == m2 || m4 == m2)) continue;
                  const double w2 = sp.omega[m2], w3 = sp.omega[m3], w4 = sp.omega[m4];
                  if (w2 == 0 || w3 == 0 || w4 == 0) continue;
                  double sg = sigma_of(m3, m4);
                  const double delta = cls == 0 ? w1 + w2 + w3 - w4 : cls == 1 ? w1 + w2 - w3 - w4 : w1 - w2 - w3 - w4;
                  if (!(std::abs(delta) <= sg)) continue;
                  ++count;
                  if (sg <= double(0.001f)) sg = 1 / std::sqrt(pi);
                  if (w2 <= 1.25 || w3 <= 1.25 || w4 <= 1.25) continue;
                  const double n2 = n_of(m2), n3 = n_of(m3), n4 = n_of(m4);
                  const double occ = cls == 0   ? n2 * n3 * (1 + n4) - (1 + n2) * (1 + n3) * n4
                                     : cls == 1 ? n2 * (1 + n3) * (1 + n4) - (1 + n2) * n3 * n4
                                                : (1 + n2) * (1 + n3) * (1 + n4) - n2 * n3 * n4;
                  const double gauss = std::exp(-delta * delta / (sg * sg)) / (sg * std::sqrt(pi));
                  const double g = std::pow(hbar * double(1e22f), 2) * pi / 8 * occ * gauss / (w1 * w2 * w3 * w4) * vertex(cls, m1, m2, m3, m4);
                  gamma += g;
                  if (umklapp(cls, m1 / nb, q2, q3, q4)) gamma_u += g;
                }
          }
        gamma *= double(3.37617087f) * 1e9 / N / N;
        gamma_u *= double(3.37617087f) * 1e9 / N / N;
        EXPECT_EQ(fast.count[cls][m], count) << "mode " << m << " class " << cls;
        EXPECT_NEAR(fast.per_t[0].gamma[cls][m], gamma, 1e-11 * std::abs(gamma) + 1e-300) << "mode " << m << " class " << cls;
        EXPECT_NEAR(fast.per_t[0].gamma_umklapp[cls][m], gamma_u, 1e-11 * std::abs(gamma) + 1e-300) << "mode " << m << " class " << cls;
        with_umklapp += gamma_u > 0;
        with_normal += gamma - gamma_u > 1e-6 * gamma;
      }
    }
  EXPECT_GT(with_umklapp, 5);  // both parts are exercised
  EXPECT_GT(with_normal, 5);
}

// FourPhonon's restricted sums depend on the basis of degenerate sets: rotating every set at random moves
// the rates (summed over the degenerate sets of the scattered mode) by up to 6% here; the process counts
// and weighted phase spaces do not move. This records the size of the effect (docs/phonon.md);
// --degenerate-basis canonical removes it (test_phonon_degenerate_modes).
TEST(FourPhononSi, BasisOfDegenerateSetsMovesTheRates) {
  TempDir dir;
  stage_inputs(dir.path, "output");
  Harmonic h = harmonic_stage(dir.path);
  const FourthOrderFc fc4 = read_fc4(dir.path / "FORCE_CONSTANTS_4TH", h.control);
  ScatteringOptions so;
  so.quiet = true;
  const auto base = four_phonon_scattering(h.control.crystal, h.grid, h.spectrum, fc4, h.control.scalebroad, {300.0}, so);
  std::mt19937 rng(7);
  rotate_degenerate_sets(h.spectrum, rng, false);
  const auto rotated = four_phonon_scattering(h.control.crystal, h.grid, h.spectrum, fc4, h.control.scalebroad, {300.0}, so);
  const int nb = h.spectrum.nb;
  double spread = 0;
  for (int c = 0; c < 3; ++c) {
    EXPECT_EQ(rotated.count[c], base.count[c]);
    for (int l = 1; l < h.grid.nlist(); ++l) {  // Gamma's sigma = 0 processes aside
      const double* w = &h.spectrum.omega[static_cast<std::size_t>(h.grid.irreducible[l]) * nb];
      for (int n0 = 0; n0 < nb;) {
        int n1 = n0 + 1;
        while (n1 < nb && std::abs(w[n1] - w[n0]) < 1e-6 * w[n0]) ++n1;
        double a = 0, b = 0, pa = 0, pb = 0;
        for (int n = n0; n < n1; ++n) {
          a += base.per_t[0].gamma[c][l * nb + n], b += rotated.per_t[0].gamma[c][l * nb + n];
          pa += base.per_t[0].wp4[c][l * nb + n], pb += rotated.per_t[0].wp4[c][l * nb + n];
        }
        EXPECT_NEAR(pb, pa, 1e-12 * pa);
        if (a > 0) spread = std::max(spread, std::abs(b - a) / a);
        n0 = n1;
      }
    }
  }
  std::printf("largest change of a degenerate set's four-phonon rate under a random basis: %.2e\n", spread);
  EXPECT_GT(spread, 1e-3);  // measured 6.16e-2 with this seed (exact degenerate sets rotated)
  EXPECT_LT(spread, 0.2);
}

}  // namespace
}  // namespace quanta::phonon::test
