// The modes inside degenerate sets (spectrum.hpp, DegenerateBasis::Canonical). Any unitary combination of a
// degenerate set's eigenvectors is an equally valid eigensolver output; these tests hand the pipeline such a
// combination, chosen at random in every set, and check that canonicalize_degenerate_modes makes every
// result independent of it: Stillinger-Weber silicon at 4x4x4 (pairs at X and W whose velocities are +-v
// only in the right basis) for the three-phonon stage and kappa, and at 3x3x3 (Gamma's optical triplet, the
// pairs on Gamma-L) for the four-phonon rates, whose identical-partner terms depend on the basis even where
// the velocities do not.
#include <cmath>
#include <random>

#include "quanta/core/backend.hpp"
#include "quanta/phonon/bte.hpp"
#include "quanta/phonon/force_constants.hpp"
#include "quanta/phonon/scattering.hpp"
#include "test_support.hpp"

namespace quanta::phonon::test {
namespace {

// FourPhonon's Stillinger-Weber silicon inputs (tests/data/si-sw-4ph) on an n x n x n mesh.
struct SiSw {
  Control control;
  HarmonicModel model;
  SymmetryInfo sym;
  QGrid grid;
  std::vector<Vec3> q;
  explicit SiSw(int n) {
    const auto dir = quanta::test::data_path("phonon/si-sw-4ph");
    control = read_control(dir / "CONTROL");
    control.ngrid = {n, n, n};
    model = read_phonopy_fc2(dir / "FORCE_CONSTANTS_2ND", control);
    sym = find_symmetry(control.crystal);
    grid = build_qgrid(control.ngrid, sym);
    q.resize(grid.nptk);
    for (int i = 0; i < grid.nptk; ++i) q[i] = qfrac_to_cart(control.crystal, grid.qfrac[i]);
  }
  Spectrum spectrum(DegenerateBasis basis) const {
    SpectrumOptions o;
    o.degenerate_basis = basis;
    return compute_spectrum(model, q, o);
  }
};

const SiSw& si4() {
  static const SiSw s(4);
  return s;
}

// Every mode the same up to a phase: |<a|b>| = 1 to 1e-10; velocities to 1e-10 of the largest.
void expect_same_modes(const Spectrum& a, const Spectrum& b) {
  ASSERT_EQ(a.eigenvectors.size(), b.eigenvectors.size());
  double vmax = 0;
  for (double v : a.velocity) vmax = std::max(vmax, std::abs(v));
  for (int q = 0; q < a.nq; ++q)
    for (int n = 0; n < a.nb; ++n) {
      const std::size_t m = static_cast<std::size_t>(q) * a.nb + n;
      if (q == 0 && n < 3) continue;  // Gamma's acoustic modes: omega and v at rounding level, zeroed later
      cplx overlap;
      for (int k = 0; k < a.nb; ++k) overlap += conj(a.eigenvectors[m * a.nb + k]) * b.eigenvectors[m * a.nb + k];
      EXPECT_NEAR(abs(overlap), 1.0, 1e-10) << "q " << q << " mode " << n;
      for (int c = 0; c < 3; ++c) EXPECT_NEAR(b.velocity[3 * m + c], a.velocity[3 * m + c], 1e-10 * vmax) << "q " << q << " mode " << n;
    }
}

// The three-phonon stage and the BTE at 300 K, as run() chains them (no isotopes in this CONTROL).
struct ThreePhonon {
  std::int64_t nplus = 0, nminus = 0;
  std::vector<double> sigma;  // adaptive width of every process, plus then minus
  ThreePhononRates rates;
  double kappa_rta = 0, kappa_converged = 0;
};
ThreePhonon three_phonon(const SiSw& s, Spectrum spectrum) {
  const Crystal& c = s.control.crystal;
  symmetrize_and_fix_gamma(c, s.sym, s.grid, spectrum);
  const ThirdOrderFc fc3 = read_fc3(quanta::test::data_path("phonon/si-sw-4ph/FORCE_CONSTANTS_3RD"), s.control);
  const ThreePhononProcesses p = three_phonon_processes(c, s.grid, spectrum, fc3, s.control.scalebroad, ScatteringOptions{});
  ThreePhonon out;
  out.nplus = static_cast<std::int64_t>(p.plus.size());
  out.nminus = static_cast<std::int64_t>(p.minus.size());
  // FourPhonon's width sqrt(max_d ((b_d . (v' - v'')) / N_d)^2 / 2), written out here (kernels/three_phonon.hpp).
  for (const ProcessList* list : {&p.plus, &p.minus})
    for (std::size_t k = 0; k < list->size(); ++k) {
      const double* v2 = &spectrum.velocity[3 * static_cast<std::size_t>(list->mode2[k])];
      const double* v3 = &spectrum.velocity[3 * static_cast<std::size_t>(list->mode3[k])];
      double mx = 0;
      for (int d = 0; d < 3; ++d) {
        double x = 0;
        for (int i = 0; i < 3; ++i) x += c.reciprocal[d][i] * (v2[i] - v3[i]);
        mx = std::max(mx, x * x / (s.grid.n[d] * s.grid.n[d]));
      }
      out.sigma.push_back(std::sqrt(mx / 2));
    }
  RateOptions ro;
  ro.keep_process_rates = true;
  out.rates = three_phonon_rates(c, s.grid, spectrum, p, s.control.scalebroad, 300, ro);
  std::vector<double> total(out.rates.gamma_plus.size());
  for (std::size_t m = 0; m < total.size(); ++m) total[m] = out.rates.gamma_plus[m] + out.rates.gamma_minus[m];
  BteOptions bo;
  bo.eps = s.control.eps;
  const BteSolution sol = solve_bte(c, s.grid, spectrum, bte_symmetry(c, s.sym, s.grid), total, p, out.rates, 300, bo);
  auto scalar = [&](const std::vector<double>& kb) {
    double k = 0;
    for (int b = 0; b < spectrum.nb; ++b) k += (kb[9 * b] + kb[9 * b + 4] + kb[9 * b + 8]) / 3;
    return k;
  };
  out.kappa_rta = scalar(sol.kappa_band.front());
  out.kappa_converged = scalar(sol.kappa_band.back());
  return out;
}

void expect_near_all(const std::vector<double>& b, const std::vector<double>& a, double rel, const char* what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  double amax = 0;
  for (double x : a) amax = std::max(amax, std::abs(x));
  for (std::size_t k = 0; k < a.size(); ++k) EXPECT_NEAR(b[k], a[k], rel * amax) << what << " " << k;
}

// The canonical modes do not depend on the basis they start from: the eigensolver's, or a random one in
// every degenerate set (three seeds). Velocities, widths, rates and kappa follow to 1e-10.
TEST(DegenerateModes, RandomBasisGivesTheSameThreePhononResults) {
  const SiSw& s = si4();
  const Spectrum canonical = s.spectrum(DegenerateBasis::Canonical);
  const ThreePhonon ref = three_phonon(s, canonical);
  std::printf("4x4x4 three-phonon kappa, canonical modes: RTA %.10f, converged %.10f W/mK (%lld + %lld processes)\n",
              ref.kappa_rta, ref.kappa_converged, static_cast<long long>(ref.nplus), static_cast<long long>(ref.nminus));
  for (unsigned seed : {1u, 2u, 3u}) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    Spectrum s2 = s.spectrum(DegenerateBasis::Solver);
    std::mt19937 rng(seed);
    EXPECT_EQ(rotate_degenerate_sets(s2, rng, true), 52);  // at Gamma, on Gamma-L, at L, X and W
    canonicalize_degenerate_modes(s.model, s.q, s2);
    expect_same_modes(canonical, s2);
    const ThreePhonon got = three_phonon(s, s2);
    EXPECT_EQ(got.nplus, ref.nplus);
    EXPECT_EQ(got.nminus, ref.nminus);
    expect_near_all(got.sigma, ref.sigma, 1e-10, "sigma");
    expect_near_all(got.rates.gamma_plus, ref.rates.gamma_plus, 1e-10, "gamma+");
    expect_near_all(got.rates.gamma_minus, ref.rates.gamma_minus, 1e-10, "gamma-");
    EXPECT_NEAR(got.kappa_rta, ref.kappa_rta, 1e-10 * ref.kappa_rta);
    EXPECT_NEAR(got.kappa_converged, ref.kappa_converged, 1e-10 * ref.kappa_converged);
  }
}

// LAPACK (CPU) and cuSOLVER (CUDA) return different bases inside degenerate sets; the canonical modes are
// the same, and so is the three-phonon stage run on either spectrum: counts, rates and kappa to 1e-10.
// Skips without a GPU.
TEST(DegenerateModes, CpuAndCudaEigensolversGiveTheSameKappa) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device: cuSOLVER's basis not tested here";
  const SiSw& s = si4();
  SpectrumOptions gpu;
  gpu.backend = Backend::Cuda;
  gpu.degenerate_basis = DegenerateBasis::Canonical;
  const ThreePhonon a = three_phonon(s, s.spectrum(DegenerateBasis::Canonical));
  const ThreePhonon b = three_phonon(s, compute_spectrum(s.model, s.q, gpu));
  EXPECT_EQ(b.nplus, a.nplus);
  EXPECT_EQ(b.nminus, a.nminus);
  expect_near_all(b.rates.gamma_plus, a.rates.gamma_plus, 1e-10, "gamma+");
  expect_near_all(b.rates.gamma_minus, a.rates.gamma_minus, 1e-10, "gamma-");
  EXPECT_NEAR(b.kappa_rta, a.kappa_rta, 1e-10 * a.kappa_rta);
  EXPECT_NEAR(b.kappa_converged, a.kappa_converged, 1e-10 * a.kappa_converged);
}

// Four-phonon rates at 3x3x3, where FourPhonon's pairs of identical partners make even the sums over a
// degenerate set depend on the basis (FourPhononSi.BasisOfDegenerateSetsMovesTheRates: up to 7%): with
// canonical modes, every mode's rate of each class to 1e-10, and the counts exactly.
TEST(DegenerateModes, RandomBasisGivesTheSameFourPhononRates) {
  const SiSw s(3);
  const FourthOrderFc fc4 = read_fc4(quanta::test::data_path("phonon/si-sw-4ph/FORCE_CONSTANTS_4TH"), s.control);
  auto rates = [&](Spectrum sp) {
    symmetrize_and_fix_gamma(s.control.crystal, s.sym, s.grid, sp);
    return four_phonon_scattering(s.control.crystal, s.grid, sp, fc4, s.control.scalebroad, {300.0}, ScatteringOptions{});
  };
  const FourPhononScattering ref = rates(s.spectrum(DegenerateBasis::Canonical));
  Spectrum rotated = s.spectrum(DegenerateBasis::Solver);
  std::mt19937 rng(11);
  EXPECT_GT(rotate_degenerate_sets(rotated, rng, true), 5);
  canonicalize_degenerate_modes(s.model, s.q, rotated);
  const FourPhononScattering got = rates(rotated);
  for (int c = 0; c < 3; ++c) {
    EXPECT_EQ(got.count[c], ref.count[c]) << "class " << c;
    expect_near_all(got.per_t[0].gamma[c], ref.per_t[0].gamma[c], 1e-10, "four-phonon rate");
    expect_near_all(got.per_t[0].wp4[c], ref.per_t[0].wp4[c], 1e-10, "WP4");
  }
}

// Without canonicalization the same random bases move kappa: the test above can fail. The eigensolver's
// own basis (FourPhonon's behaviour) gives another value again.
TEST(DegenerateModes, RandomBasisMovesKappaWithoutCanonicalModes) {
  const SiSw& s = si4();
  const ThreePhonon canonical = three_phonon(s, s.spectrum(DegenerateBasis::Canonical));
  const ThreePhonon solver = three_phonon(s, s.spectrum(DegenerateBasis::Solver));
  std::printf("4x4x4 three-phonon kappa RTA: canonical %.6f, eigensolver's basis %.6f W/mK\n", canonical.kappa_rta, solver.kappa_rta);
  EXPECT_GT(std::abs(solver.kappa_rta - canonical.kappa_rta), 1e-2 * canonical.kappa_rta);
}

}  // namespace
}  // namespace quanta::phonon::test
