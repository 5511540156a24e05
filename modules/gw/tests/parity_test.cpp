// CUDA kernels against their CPU twins. First on random inputs, with device budgets small enough that
// every chunking path runs (a and b chunks in MTXEL, pair chunks in CHI_SUM, band chunks and energy
// launches in the GPP sum). Then on BerkeleyGW's silicon example: M, chi0 and Sigma from the two
// backends. Bound: 1e-10 relative to the largest element (the figure; FP64 sums of 10^3-10^6
// terms in different orders, cuFFT against FFTW, differ by ~1e-14; a wrong index or factor shows at
// order 1).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "../kernels/cd.hpp"
#include "../kernels/chi_freq.hpp"
#include "../kernels/chi_sum.hpp"
#include "../kernels/gpp.hpp"
#include "../kernels/gpp_matrix.hpp"
#include "../kernels/gpp_modes.hpp"
#include "../kernels/mtxel.hpp"
#include "../kernels/sigma_rows.hpp"
#include "../kernels/subspace.hpp"
#include "quanta/core/buffer.hpp"
#include "quanta/gw/epsilon.hpp"
#include "quanta/gw/inputs.hpp"
#include "quanta/gw/mean_field.hpp"
#include "quanta/gw/sigma.hpp"
#include "quanta/test/data.hpp"

using namespace quanta;
using namespace quanta::gw;

namespace {

const std::string kSi = quanta::test::data_path("gw/si-bgw").string() + "/";

double mag(double x) { return std::abs(x); }
double mag(cplx x) { return quanta::abs(x); }

// The largest difference over the largest element; printed, so that the test log records the figure.
template <class A, class B>
double rel_diff(const A& a, const B& b) {
  double m = 0, s = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    m = std::max(m, mag(a[i] - b[i]));
    s = std::max(s, mag(b[i]));
  }
  std::printf("  parity: max |cuda - cpu| / max |cpu| = %.2e over %zu values\n", m / s, a.size());
  return m / s;
}

std::vector<cplx> random_cplx(std::size_t n, std::mt19937_64& rng) {
  std::normal_distribution<double> g;
  std::vector<cplx> v(n);
  for (auto& x : v) x = cplx(g(rng), g(rng));
  return v;
}

// Distinct random box positions for a sphere of n coefficients.
std::vector<std::size_t> random_places(std::size_t n, std::size_t box, std::mt19937_64& rng) {
  std::vector<std::size_t> all(box);
  for (std::size_t i = 0; i < box; ++i) all[i] = i;
  std::shuffle(all.begin(), all.end(), rng);
  all.resize(n);
  return all;
}

}  // namespace

TEST(GwParity, MtxelCudaMatchesCpuWithAndWithoutChunks) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no GPU";
  std::mt19937_64 rng(11);
  kernels::Box box;
  box.n[0] = 12, box.n[1] = 15, box.n[2] = 10;
  kernels::MtxelJob job;
  job.box = box;
  job.na = 5, job.nb = 23, job.ngout = 97, job.nga = 301, job.ngb = 287;
  const auto where_a = random_places(job.nga, box.size(), rng), where_b = random_places(job.ngb, box.size(), rng),
             where_out = random_places(job.ngout, box.size(), rng);
  const auto a = random_cplx(job.na * job.nga, rng), b = random_cplx(job.nb * job.ngb, rng);
  job.where_a = where_a.data(), job.where_b = where_b.data(), job.where_out = where_out.data();
  job.a = a.data(), job.b = b.data();
  std::vector<cplx> m_cpu(static_cast<std::size_t>(job.na) * job.nb * job.ngout);
  job.m = m_cpu.data();
  kernels::MtxelEngine(Backend::Cpu, box).run(job);
  // The whole job at once; then a budget of the output and ~5 boxes: 1 a state and 1 b state per chunk.
  const std::size_t out_bytes = m_cpu.size() * sizeof(cplx);
  for (std::size_t budget : {std::size_t(0), out_bytes + 5 * box.size() * sizeof(cplx)}) {
    std::vector<cplx> m_gpu(m_cpu.size());
    job.m = m_gpu.data();
    kernels::MtxelEngine engine(Backend::Cuda, box, budget);
    engine.run(job);
    engine.run(job);  // a second job on the same engine (plans and work area reused)
    EXPECT_LT(rel_diff(m_gpu, m_cpu), 1e-10) << "budget " << budget;
    // The output left on the device (as Epsilon hands it to CHI_SUM).
    job.m = nullptr;
    engine.run(job);
    std::vector<cplx> m_dev(m_cpu.size());
    device::copy_to_host(m_dev.data(), engine.device_result(), m_dev.size() * sizeof(cplx));
    EXPECT_LT(rel_diff(m_dev, m_cpu), 1e-10) << "budget " << budget << ", output on the device";
  }
}

TEST(GwParity, ChiSumCudaMatchesCpuAcrossCallsAndPairChunks) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no GPU";
  std::mt19937_64 rng(12);
  std::uniform_real_distribution<double> u(0.01, 1.0);
  const int ng = 137, calls = 3, npairs = 211;
  std::vector<std::vector<cplx>> m;
  std::vector<std::vector<double>> w;
  for (int c = 0; c < calls; ++c) {
    m.push_back(random_cplx(static_cast<std::size_t>(npairs) * ng, rng));
    w.emplace_back(npairs);
    for (double& x : w.back()) x = u(rng);
  }
  auto run = [&](Backend b, std::size_t budget) {
    kernels::ChiSumEngine engine(b, ng, budget);
    for (int c = 0; c < calls; ++c) {
      kernels::ChiSumJob j;
      j.npairs = npairs, j.ng = ng, j.m = m[c].data(), j.w = w[c].data();
      engine.add(j);
    }
    return engine.result();
  };
  const auto cpu = run(Backend::Cpu, 0);
  // A budget for chi0 and 50 pairs: five chunks per call.
  for (std::size_t budget : {std::size_t(0), (std::size_t(ng) * ng + 50 * ng) * sizeof(cplx) + 50 * sizeof(double)})
    EXPECT_LT(rel_diff(run(Backend::Cuda, budget), cpu), 1e-10) << "budget " << budget;
}

// The full-frequency CHI_SUM: complex weights at real (broadened) and imaginary frequencies, several calls, M from the
// host in one chunk and in several.
TEST(GwParity, ChiFreqCudaMatchesCpuAcrossCallsAndPairChunks) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no GPU";
  std::mt19937_64 rng(21);
  std::uniform_real_distribution<double> u(0.05, 1.0);
  const int ng = 97, calls = 3, npairs = 131;
  const std::vector<cplx> z = {{0, 0.007}, {0.2, 0.007}, {0.45, 0.007}, {0, 0}, {0, 0.3}, {0, 2.0}};
  std::vector<std::vector<cplx>> m;
  std::vector<std::vector<double>> de;
  for (int c = 0; c < calls; ++c) {
    m.push_back(random_cplx(static_cast<std::size_t>(npairs) * ng, rng));
    de.emplace_back(npairs);
    for (double& x : de.back()) x = u(rng);
  }
  auto run = [&](Backend b, std::size_t budget) {
    kernels::ChiFreqEngine engine(b, ng, z, 0.02, budget);
    for (int c = 0; c < calls; ++c) {
      kernels::ChiFreqJob j;
      j.npairs = npairs, j.ng = ng, j.m = m[c].data(), j.de = de[c].data();
      engine.add(j);
    }
    return engine.result();
  };
  const auto cpu = run(Backend::Cpu, 0);
  const std::size_t stack = z.size() * ng * ng * sizeof(cplx), per_pair = ((z.size() + 1) * ng + z.size()) * sizeof(cplx);
  for (std::size_t budget : {std::size_t(0), stack + 40 * per_pair})  // the second: four chunks per call
    EXPECT_LT(rel_diff(run(Backend::Cuda, budget), cpu), 1e-10) << "budget " << budget;
}

// The full-frequency contraction: all columns and a subset, one chunk of matrices and rows and several.
TEST(GwParity, CdContractCudaMatchesCpuAcrossChunks) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no GPU";
  std::mt19937_64 rng(22);
  const int ng = 113, nmat = 9, nrows = 157;
  const auto mats_all = random_cplx(static_cast<std::size_t>(ng) * ng * nmat, rng);
  const auto m = random_cplx(static_cast<std::size_t>(nrows) * ng, rng);
  std::vector<double> v(ng);
  for (int i = 0; i < ng; ++i) v[i] = 1.0 / (1 + i);
  for (const bool subset : {false, true}) {
    std::vector<int> cols;
    for (int c = subset ? 40 : 0; c < (subset ? 90 : ng); ++c) cols.push_back(c);
    const int ngp = static_cast<int>(cols.size());
    std::vector<cplx> mats;  // [nmat][ngp][ng]
    for (int f = 0; f < nmat; ++f)
      for (int c : cols) mats.insert(mats.end(), mats_all.begin() + (static_cast<std::size_t>(f) * ng + c) * ng, mats_all.begin() + (static_cast<std::size_t>(f) * ng + c + 1) * ng);
    auto run = [&](Backend b, std::size_t budget) {
      std::vector<cplx> s(static_cast<std::size_t>(nrows) * nmat);
      kernels::CdContractJob j;
      j.ng = ng, j.ngp = ngp, j.gp_index = cols.data(), j.nmat = nmat, j.mats = mats.data(), j.v = v.data(), j.nrows = nrows, j.m = m.data(), j.s = s.data();
      kernels::cd_contract(b, j, budget);
      return s;
    };
    const auto cpu = run(Backend::Cpu, 0);
    // The second budget: matrices in chunks of 2, rows in chunks of about 30.
    const std::size_t mat = static_cast<std::size_t>(ng) * ngp * sizeof(cplx);
    for (std::size_t budget : {std::size_t(0), 2 * (2 * mat + 30 * (ng + 2 * ngp + 2) * sizeof(cplx))})
      EXPECT_LT(rel_diff(run(Backend::Cuda, budget), cpu), 1e-10) << "subset " << subset << " budget " << budget;
  }
}

// The static subspace's values in Sigma (do_sigma_subspace): D and D^T, the head correction, one chunk and several
// chunks of rows and frequencies.
TEST(GwParity, CdSubspaceCudaMatchesCpuAcrossChunks) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no GPU";
  std::mt19937_64 rng(24);
  const int ng = 97, nb = 23, nmat = 7, nrows = 131, g0 = 11;
  const auto L = random_cplx(static_cast<std::size_t>(ng) * nb, rng), rv = random_cplx(static_cast<std::size_t>(ng) * nb, rng);
  const auto d = random_cplx(static_cast<std::size_t>(nmat) * nb * nb, rng), m = random_cplx(static_cast<std::size_t>(nrows) * ng, rng);
  const auto head = random_cplx(nmat, rng);
  for (const bool transposed : {false, true}) {
    auto run = [&](Backend b, std::size_t budget) {
      std::vector<cplx> s(static_cast<std::size_t>(nrows) * nmat);
      kernels::CdSubspaceJob j;
      j.ng = ng, j.nb = nb, j.L = L.data(), j.Rv = rv.data(), j.nmat = nmat, j.d = d.data(), j.transposed = transposed, j.head = head.data(), j.g0 = g0,
      j.nrows = nrows, j.m = m.data(), j.s = s.data();
      kernels::cd_subspace(b, j, budget);
      return s;
    };
    const auto cpu = run(Backend::Cpu, 0);
    // 150,000 B: the basis takes 71 kB, frequencies in chunks of 4 (4 + 3), rows in chunks of 11.
    for (std::size_t budget : {std::size_t(0), std::size_t(150000)})
      EXPECT_LT(rel_diff(run(Backend::Cuda, budget), cpu), 1e-10) << "transposed " << transposed << " budget " << budget;
  }
}

// The static subspace's linear algebra: the eigen decomposition of a Hermitian matrix (eigenvalues against the CPU's,
// eigenvectors by their residual |A V - V diag(w)|, as their phases are free) and the expansion of eps^-1 (both forms).
TEST(GwParity, SubspaceEigenAndExpansionCudaMatchCpu) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no GPU";
  std::mt19937_64 rng(23);
  const int n = 151, nb = 37, nf = 5;
  auto a = random_cplx(static_cast<std::size_t>(n) * n, rng);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j <= i; ++j) a[i + n * j] = j == i ? cplx(a[i + n * j].re) : a[i + n * j], a[j + n * i] = conj(a[i + n * j]);
  std::vector<double> wc, wg;
  auto vc = a, vg = a;
  kernels::hermitian_eigen(Backend::Cpu, vc, n, wc, "cpu");
  kernels::hermitian_eigen(Backend::Cuda, vg, n, wg, "cuda");
  EXPECT_LT(rel_diff(wg, wc), 1e-10);
  double res = 0, big = 0;
  for (int c = 0; c < n; ++c)
    for (int r = 0; r < n; ++r) {
      cplx av;
      for (int k = 0; k < n; ++k) av += a[r + n * k] * vg[k + n * c];
      res = std::max(res, abs(av - wg[c] * vg[r + n * c]));
      big = std::max(big, abs(a[r + n * c]));
    }
  std::printf("  eigenvectors on the device: max |A v - w v| / max |A| = %.2e\n", res / big);
  EXPECT_LT(res / big, 1e-10);
  const auto basis = random_cplx(static_cast<std::size_t>(n) * nb, rng), c = random_cplx(static_cast<std::size_t>(nb) * nb * nf, rng);
  const auto einv0 = random_cplx(static_cast<std::size_t>(n) * n, rng);
  std::vector<double> sv(n);
  for (int i = 0; i < n; ++i) sv[i] = 0.5 + 0.01 * i;
  for (const bool keep : {true, false}) {
    kernels::SubspaceExpansion x;
    x.ng = n, x.nb = nb, x.nf = nf, x.basis = basis.data(), x.c = c.data(), x.f0 = 3, x.keep = keep, x.einv0 = einv0.data(), x.sv = sv.data();
    EXPECT_LT(rel_diff(kernels::subspace_expand(Backend::Cuda, x), kernels::subspace_expand(Backend::Cpu, x)), 1e-10) << "keep " << keep;
  }
}

// The static subspace's first step from chi0 left on the device (static_subspace_cuda) against its host twin
// (static_subspace on the CPU, and with the inversion and decomposition uploaded): eps^-1(0) and eps(0, 0) to 1e-10, the
// same kept columns and each kept eigenvector equal up to its free phase (|<b_cpu|b_cuda>| = 1 to 1e-10). chi0 is a
// random negative definite Hermitian matrix whose spectrum has no degenerate pair, so the kept set is unambiguous.
TEST(GwParity, StaticSubspaceOnTheDeviceMatchesTheHost) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no GPU";
  std::mt19937_64 rng(29);
  const int n = 173, keep = 41, k = 2 * n;
  const auto x = random_cplx(static_cast<std::size_t>(n) * k, rng);
  std::vector<cplx> chi(static_cast<std::size_t>(n) * n);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) {
      cplx s;
      for (int p = 0; p < k; ++p) s += x[i + static_cast<std::size_t>(n) * p] * conj(x[j + static_cast<std::size_t>(n) * p]);
      chi[i + static_cast<std::size_t>(n) * j] = -s / (4.0 * k);
    }
  std::vector<double> v(n);
  std::uniform_real_distribution<double> u(0.05, 2.0);
  for (auto& vi : v) vi = u(rng);
  const kernels::ChooseBasis choose = [&](const std::vector<double>& lambda) {
    std::vector<int> order(n);
    for (int i = 0; i < n; ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return std::abs(lambda[a]) > std::abs(lambda[b]); });
    order.resize(keep);
    return order;
  };
  const auto cpu = kernels::static_subspace(Backend::Cpu, chi, v, n, choose, "cpu");
  const auto uploaded = kernels::static_subspace(Backend::Cuda, chi, v, n, choose, "cuda, uploaded");
  DeviceBuffer<cplx> chi_dev(std::span<const cplx>(chi), "chi0");
  const auto device = kernels::static_subspace_cuda(chi_dev.data(), v, n, choose, "cuda, on the device");
  for (const auto* s : {&uploaded, &device}) {
    EXPECT_LT(rel_diff(s->einv0, cpu.einv0), 1e-10);
    EXPECT_NEAR(s->eps_head, cpu.eps_head, 1e-12 * std::abs(cpu.eps_head));
    ASSERT_EQ(s->nb, keep);
    double worst = 0;
    for (int c = 0; c < keep; ++c) {
      cplx overlap;
      for (int g = 0; g < n; ++g) overlap += conj(cpu.basis[g + static_cast<std::size_t>(n) * c]) * s->basis[g + static_cast<std::size_t>(n) * c];
      worst = std::max(worst, std::abs(quanta::abs(overlap) - 1.0));
    }
    std::printf("  kept eigenvectors: max ||<b_cpu|b_cuda>| - 1| = %.2e\n", worst);
    EXPECT_LT(worst, 1e-10);
  }
}

// Random I and mode frequencies spread over every branch of the GPP terms: energies of bands m straddle the
// evaluation energies, some frequencies are zero (skipped) and some sit within 0.5 eV of |E - E_m|; real
// and complex mode frequencies, all columns and a subset of them (as one process of several holds), one
// band chunk and several, one energy launch and two.
TEST(GwParity, GppCudaMatchesCpuOnEveryBranchAndChunk) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no GPU";
  std::mt19937_64 rng(13);
  std::uniform_real_distribution<double> u(0, 1);
  const int ng = 83, nn = 3, nm = 41, nocc = 12;
  auto i_eps = random_cplx(static_cast<std::size_t>(ng) * ng, rng);
  std::vector<double> wt(i_eps.size()), v(ng), e_m(nm);
  std::vector<cplx> wtc(i_eps.size());
  for (auto& x : i_eps) x = x * 0.1;
  for (double& x : wt) x = u(rng) < 0.1 ? 0.0 : 2.0 + 30.0 * u(rng);
  for (std::size_t i = 0; i < wt.size(); ++i) wtc[i] = cplx(wt[i], wt[i] == 0.0 ? 0.0 : 3.0 * (u(rng) - 0.5));
  for (double& x : v) x = 0.1 + u(rng);
  for (int b = 0; b < nm; ++b) e_m[b] = -12.0 + 40.0 * b / nm;
  const auto m = random_cplx(static_cast<std::size_t>(nn) * nm * ng, rng);
  std::vector<int> some;  // every third G' (the first 28 columns of the arrays)
  for (int g = 1; g < ng; g += 3) some.push_back(g);
  for (bool complex_modes : {false, true})
    for (int ncol : {0, static_cast<int>(some.size())})
      for (int ne : {2, 5}) {
        std::vector<double> e_eval(nn * ne);
        for (double& x : e_eval) x = -10.0 + 25.0 * u(rng);
        e_eval[0] = e_m[3];  // w = 0 exactly: the clamp to 1e-12
        kernels::GppJob j;
        j.ng = ng, j.i_eps = i_eps.data(), j.v = v.data();
        if (complex_modes) j.wt_complex = wtc.data();
        else j.wt = wt.data();
        if (ncol) j.ngp = ncol, j.gp_index = some.data();
        j.nn = nn, j.nm = nm, j.ne = ne, j.nocc = nocc, j.m = m.data(), j.e_m = e_m.data(), j.e_eval = e_eval.data();
        j.weight = 3.0;
        std::vector<cplx> sx_cpu(nn * ne, cplx(0.5, 0.1)), ch_cpu(nn * ne, cplx(-0.25, 0.2));
        j.sx = sx_cpu.data(), j.ch = ch_cpu.data();
        kernels::gpp(Backend::Cpu, j);
        // Whole; then room for the resident arrays and 7 bands m per chunk.
        const std::size_t cols = ncol ? ncol : ng, blocks = (cols + 7) / 8, outputs = std::size_t(nn) * ne * 4;
        const std::size_t fixed = cols * ng * (complex_modes ? 32 : 24) + ng * 8 + cols * 4 + nn * ne * 8 + outputs * (blocks + 1) * 8;
        for (std::size_t budget : {std::size_t(0), fixed + 7 * (std::size_t(nn) * ng * 16 + 8)}) {
          std::vector<cplx> sx(nn * ne, cplx(0.5, 0.1)), ch(nn * ne, cplx(-0.25, 0.2));
          j.sx = sx.data(), j.ch = ch.data();
          kernels::gpp(Backend::Cuda, j, budget);
          const std::string what = std::string(complex_modes ? "complex" : "real") + " modes, " + std::to_string(cols) + " columns, ne " +
                                   std::to_string(ne) + ", budget " + std::to_string(budget);
          EXPECT_LT(rel_diff(sx, sx_cpu), 1e-10) << what;
          EXPECT_LT(rel_diff(ch, ch_cpu), 1e-10) << what;
        }
      }
}

// Sigma's plasmon-pole modes on the device against the host's, on random eps^-1 with a permuted and phased rotation, the
// wings scaled, both flavours, a time-reversed image, q = 0 and q != 0, all columns and a process's block of them, two
// q-points through one engine (the second with another matrix, which must be uploaded again). Some entries take
// each branch: skipped (|I| small), static (wt^2 < 0), and the q = 0 head.
TEST(GwParity, GppModesCudaMatchCpu) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no GPU";
  std::mt19937_64 rng(31);
  std::uniform_real_distribution<double> u(0, 1);
  std::uniform_int_distribution<int> gi(-3, 3);
  const int ng_irr = 97, ng = 89, gmax = 7, side = 2 * gmax + 1;
  std::vector<cplx> eps_a = random_cplx(std::size_t(ng_irr) * ng_irr, rng), eps_b = random_cplx(std::size_t(ng_irr) * ng_irr, rng);
  for (auto* e : {&eps_a, &eps_b})
    for (int i = 0; i < ng_irr; ++i)
      for (int k = 0; k < ng_irr; ++k) {
        cplx& x = (*e)[i + std::size_t(ng_irr) * k];
        x = (i == k ? cplx(0.6) : cplx()) + 0.05 * x;
        if (u(rng) < 0.05) x = i == k ? cplx(1.0) : cplx();  // |I| = 0: skipped
      }
  std::vector<int> perm(ng_irr);
  for (int i = 0; i < ng_irr; ++i) perm[i] = i;
  std::shuffle(perm.begin() + 1, perm.end(), rng);
  std::vector<int> keep(perm.begin(), perm.begin() + ng), g(3 * ng);
  for (int a = 1; a < ng; ++a)
    for (int i = 0; i < 3; ++i) g[3 * a + i] = gi(rng);  // a = 0 is G = 0
  std::vector<cplx> phase(ng), rho_cube = random_cplx(std::size_t(side) * side * side, rng);
  for (auto& x : phase) x = expi(6.283 * u(rng));
  rho_cube[(std::size_t(gmax) * side + gmax) * side + gmax] = cplx(8.0);
  std::vector<double> vbar(ng);
  for (double& x : vbar) x = 0.1 + 10 * u(rng);
  kernels::GppModes host(Backend::Cpu, rho_cube, gmax), device(Backend::Cuda, rho_cube, gmax);
  for (bool complex_flavour : {false, true})
    for (bool q_zero : {true, false})
      for (int part : {0, 1}) {
        kernels::GppModesJob j;
        j.ng_irr = ng_irr, j.epsinv = part ? eps_b.data() : eps_a.data(), j.ng = ng;
        j.col_lo = part ? 30 : 0, j.ncol = part ? 41 : ng;
        j.keep = keep.data(), j.phase = phase.data(), j.g = g.data(), j.vbar = vbar.data();
        j.i0 = 0, j.wing_row = q_zero ? 0.0 : 0.7, j.wing_col = q_zero ? 0.0 : 1.3;
        j.time_reversed = part == 1, j.q_zero = q_zero;
        if (!q_zero) j.q[0] = 0.1, j.q[1] = -0.2, j.q[2] = 0.05;
        const double metric[9] = {0.4, 0.1, 0.0, 0.1, 0.5, -0.05, 0.0, -0.05, 0.45};
        std::copy(metric, metric + 9, j.metric);
        j.nel = 8.0, j.wp2 = 280.0, j.complex_flavour = complex_flavour;
        host.run(j, part);
        device.run(j, part);
        const std::size_t n = j.entries();
        std::vector<cplx> i_cpu(host.i_eps(), host.i_eps() + n), i_gpu(n);
        std::vector<double> w_cpu(host.wt(), host.wt() + n), w_gpu(n);
        device::copy_to_host(i_gpu.data(), device.i_eps(), n * sizeof(cplx));
        device::copy_to_host(w_gpu.data(), device.wt(), n * sizeof(double));
        int skipped = 0, statics = 0;
        for (double w : w_cpu) skipped += w == 0, statics += w == 1e12;
        const std::string what = std::string(complex_flavour ? "complex" : "real") + (q_zero ? ", q = 0" : ", q != 0") + ", part " + std::to_string(part);
        std::printf("  modes %s: %d skipped, %d static of %zu\n", what.c_str(), skipped, statics, n);
        EXPECT_GT(skipped, 0) << what;
        EXPECT_GT(statics, 0) << what;
        EXPECT_LT(rel_diff(i_gpu, i_cpu), 1e-12) << what;
        double worst = 0;  // wt relative per entry: its values span 1 .. 1e12
        for (std::size_t i = 0; i < n; ++i)
          if (w_cpu[i] != 0) worst = std::max(worst, std::abs(w_gpu[i] - w_cpu[i]) / w_cpu[i]);
          else EXPECT_EQ(w_gpu[i], 0.0) << what << ", entry " << i;
        EXPECT_LT(worst, 1e-12) << what;
      }
}

// Sigma's screened rows of M and its bare exchange on the device against the host's, on random M over a bare sphere
// of 301 G (a screened subset of 97 in scrambled order), 5 bands n, 70 bands m of which 23 occupied; the row gather
// is exact, the exchange sums within 1e-12 relative (per-thread partial sums in another order).
TEST(GwParity, SigmaRowsAndExchangeCudaMatchCpu) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no GPU";
  std::mt19937_64 rng(37);
  const int nn = 5, nb = 70, nocc = 23, ngb = 301, ngs = 97;
  const auto m = random_cplx(std::size_t(nn) * nb * ngb, rng);
  std::vector<int> where(ngb);
  for (int i = 0; i < ngb; ++i) where[i] = i;
  std::shuffle(where.begin(), where.end(), rng);
  where.resize(ngs);
  std::vector<double> v(ngb);
  std::uniform_real_distribution<double> u(0.1, 5.0);
  for (double& x : v) x = u(rng);
  const std::size_t rows = std::size_t(nn) * nb;
  std::vector<cplx> ms_cpu(rows * ngs), ms_gpu(rows * ngs);
  kernels::screened_rows_cpu(m.data(), rows, ngb, where.data(), ngs, ms_cpu.data());
  std::vector<double> s_cpu(std::size_t(nn) * nocc), s_gpu(s_cpu.size());
  kernels::bare_exchange_cpu(m.data(), nn, nb, nocc, ngb, v.data(), s_cpu.data());
  DeviceBuffer<cplx> md(std::span<const cplx>(m), "M"), out(rows * ngs, "rows");
  DeviceBuffer<int> wd(std::span<const int>(where), "where");
  DeviceBuffer<double> vd(std::span<const double>(v), "v");
  kernels::screened_rows_cuda(md.data(), rows, ngb, wd.data(), ngs, out.data());
  out.download(ms_gpu);
  kernels::bare_exchange_cuda(md.data(), nn, nb, nocc, ngb, vd.data(), s_gpu.data());
  for (std::size_t i = 0; i < ms_cpu.size(); ++i) ASSERT_TRUE(ms_cpu[i].re == ms_gpu[i].re && ms_cpu[i].im == ms_gpu[i].im) << "row element " << i;
  EXPECT_LT(rel_diff(s_gpu, s_cpu), 1e-12);
  EXPECT_EQ(ms_cpu[ngs + 3].re, m[std::size_t(ngb) + where[3]].re);  // row 1, element 3: M[1][where[3]]
}

// Full frequency's rotation of eps^-1 to q on the device against the host's: a permuted, phased sphere of 83 of 97
// G-vectors with the wings scaled, plain and time-reversed, all columns and a block of them; the same arithmetic per
// element, so equal to the last bit but for the compiler's contractions (bound 1e-15 of the largest).
TEST(GwParity, FullFrequencyRotationCudaMatchesCpu) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no GPU";
  std::mt19937_64 rng(41);
  std::uniform_real_distribution<double> u(0, 1);
  const int ld = 97, ngs = 83;
  const auto raw = random_cplx(std::size_t(ld) * ld, rng);
  std::vector<int> keep(ld);
  for (int i = 0; i < ld; ++i) keep[i] = i;
  std::shuffle(keep.begin(), keep.end(), rng);
  keep.resize(ngs);
  std::vector<cplx> phase(ngs);
  for (auto& x : phase) x = expi(6.283 * u(rng));
  DeviceBuffer<cplx> rd(std::span<const cplx>(raw), "raw"), pd(std::span<const cplx>(phase), "phase");
  DeviceBuffer<int> kd(std::span<const int>(keep), "keep");
  for (bool reversed : {false, true})
    for (int part : {0, 1}) {
      kernels::CdRotateJob j;
      j.ld = ld, j.keep = keep.data(), j.phase = phase.data(), j.ngs = ngs;
      j.col_lo = part ? 20 : 0, j.ncol = part ? 31 : ngs;
      j.i0 = keep[5], j.wing_row = 0.7, j.wing_col = 1.3, j.time_reversed = reversed;
      const std::size_t n = std::size_t(ngs) * j.ncol;
      std::vector<cplx> cpu(n), gpu(n);
      kernels::cd_rotate_cpu(j, raw.data(), cpu.data());
      DeviceBuffer<cplx> out(n, "out");
      kernels::CdRotateJob jd = j;
      jd.keep = kd.data(), jd.phase = pd.data();
      kernels::cd_rotate_cuda(jd, rd.data(), out.data());
      out.download(gpu);
      EXPECT_LT(rel_diff(gpu, cpu), 1e-15) << (reversed ? "time-reversed" : "plain") << ", part " << part;
      // One element by hand: the row wing (a = 5, G = 0) against column b = col_lo + 1.
      const int b = j.col_lo + 1;
      const cplx e = reversed ? raw[keep[b] + std::size_t(ld) * keep[5]] * conj(phase[5]) * phase[b]
                              : raw[keep[5] + std::size_t(ld) * keep[b]] * phase[5] * conj(phase[b]);
      EXPECT_NEAR(abs(cpu[5 + std::size_t(ngs)] - (b == 5 ? e - cplx(1.0) : e * 0.7)), 0.0, 1e-15);
    }
}

// The matrix path (off-diagonal elements) on the device against the host's, the same random inputs over
// every branch: all columns and every third, the whole problem at once and in chunks of one frequency and
// three bands m (a budget just above the resident arrays).
TEST(GwParity, GppMatrixCudaMatchesCpuAcrossChunks) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no GPU";
  std::mt19937_64 rng(29);
  std::uniform_real_distribution<double> u(0, 1);
  const int ng = 71, nn = 5, nm = 23, nocc = 8;
  auto i_eps = random_cplx(static_cast<std::size_t>(ng) * ng, rng);
  std::vector<double> wt(i_eps.size()), v(ng), e_m(nm);
  for (auto& x : i_eps) x = x * 0.1;
  for (double& x : wt) x = u(rng) < 0.1 ? 0.0 : 2.0 + 30.0 * u(rng);
  for (double& x : v) x = 0.1 + u(rng);
  for (int b = 0; b < nm; ++b) e_m[b] = -12.0 + 40.0 * b / nm;
  const auto m = random_cplx(static_cast<std::size_t>(nn) * nm * ng, rng);
  std::vector<double> omega = {e_m[4], -9.0, -1.5, 0.7, 3.3, 11.0, 24.0};  // the first gives w = 0 exactly
  std::vector<int> some;
  for (int g = 1; g < ng; g += 3) some.push_back(g);
  for (int ncol : {0, static_cast<int>(some.size())}) {
    kernels::GppMatrixJob j;
    j.ng = ng, j.i_eps = i_eps.data(), j.wt = wt.data(), j.v = v.data();
    if (ncol) j.ngp = ncol, j.gp_index = some.data();
    j.nn = nn, j.nm = nm, j.nocc = nocc, j.m = m.data(), j.e_m = e_m.data();
    j.nw = static_cast<int>(omega.size()), j.omega = omega.data(), j.weight = 3.0;
    const std::size_t out = omega.size() * nn * nn;
    std::vector<cplx> sx_cpu(out, cplx(0.5, 0.1)), ch_cpu(out, cplx(-0.25, 0.2));
    j.sx = sx_cpu.data(), j.ch = ch_cpu.data();
    kernels::gpp_matrix(Backend::Cpu, j);
    const std::size_t cols = ncol ? ncol : ng, entries = cols * ng;
    const std::size_t fixed = entries * 24 + ng * 8 + cols * 4 + omega.size() * 8 + 2 * out * 16 + cols * nn * 16;
    const std::size_t per_w = 2 * (entries + std::size_t(ng) * nn) * 16, per_m = std::size_t(nn) * ng * 16;
    for (std::size_t budget : {std::size_t(0), fixed + per_w + 3 * per_m}) {
      std::vector<cplx> sx(out, cplx(0.5, 0.1)), ch(out, cplx(-0.25, 0.2));
      j.sx = sx.data(), j.ch = ch.data();
      kernels::gpp_matrix(Backend::Cuda, j, budget);
      const std::string what = std::to_string(cols) + " columns, budget " + std::to_string(budget);
      EXPECT_LT(rel_diff(sx, sx_cpu), 1e-10) << what;
      EXPECT_LT(rel_diff(ch, ch_cpu), 1e-10) << what;
      std::printf("  gpp_matrix %s: SX-X %.1e, CH %.1e relative\n", what.c_str(), rel_diff(sx, sx_cpu), rel_diff(ch, ch_cpu));
    }
  }
}

// The device's reciprocal (the hardware's estimate and two Newton steps) within 2 ulp of the division, over
// the magnitudes the GPP terms meet and beyond.
TEST(GwParity, GppDeviceReciprocalIsWithinTwoUlp) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no GPU";
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(-30, 30);
  std::vector<double> x(100000), r(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = (i % 2 ? -1.0 : 1.0) * std::pow(10.0, u(rng)) * (1.0 + 1e-3 * (i % 7));
  kernels::gpp_rcp_cuda(x.data(), r.data(), x.size());
  double worst = 0;
  for (std::size_t i = 0; i < x.size(); ++i) worst = std::max(worst, std::abs(r[i] - 1.0 / x[i]) / std::abs(1.0 / x[i]));
  std::printf("device reciprocal: largest relative difference from the division %.3e\n", worst);
  EXPECT_LE(worst, 2.3e-16);
}

// The silicon example on both backends: chi0 of every q and the Sigma columns of every k and band.
TEST(GwParity, SiliconChiAndSigmaCudaMatchCpu) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no GPU";
  EpsilonParams ep = read_epsilon_inp(kSi + "bgw-inputs/epsilon.inp");
  SigmaParams sp = read_sigma_inp(kSi + "bgw-inputs/sigma.inp");
  const auto wfn = read_wfn(kSi + "mean-field/02-wfn/WFN", ep.nbands);
  const auto wfnq = read_wfn(kSi + "mean-field/03-wfnq/WFNq");
  const auto inner = read_wfn(kSi + "mean-field/04-wfn_co/WFN_co", sp.nbands);
  const auto rho = read_rho(kSi + "mean-field/04-wfn_co/RHO");
  const auto vxc = read_vxc_dat(kSi + "mean-field/04-wfn_co/vxc.dat");
  std::vector<std::vector<DielectricMatrix>> eps;
  std::vector<std::vector<SigmaK>> sigma;
  ep.keep_matrices = true;  // chi0 comes to the host on both backends, to be compared
  for (Backend b : {Backend::Cpu, Backend::Cuda}) {
    ep.backend = sp.backend = b;
    // The device run in valence blocks of 3 (3 + 1 for silicon's 4 bands), the CPU's in one.
    ep.valence_block = b == Backend::Cuda ? 3 : 0;
    eps.push_back(compute_epsilon(wfn, &wfnq, ep));
    // Both backends' Sigma from the CPU's eps^-1, so that the comparison isolates Sigma's kernels.
    sigma.push_back(compute_sigma(inner, rho, vxc, eps[0], sp));
  }
  // And as a run does it: chi0 and eps formed and inverted on the device (epsilon_inverse_cuda), only eps^-1 and
  // the head of eps brought back.
  ep.keep_matrices = false;
  const auto on_device = compute_epsilon(wfn, &wfnq, ep);
  ASSERT_EQ(eps[0].size(), eps[1].size());
  ASSERT_EQ(on_device.size(), eps[0].size());
  for (std::size_t iq = 0; iq < eps[0].size(); ++iq) {
    EXPECT_LT(rel_diff(eps[1][iq].chi0, eps[0][iq].chi0), 1e-10) << "chi0 of q-point " << iq + 1;
    EXPECT_LT(rel_diff(eps[1][iq].epsinv, eps[0][iq].epsinv), 1e-10) << "eps^-1 of q-point " << iq + 1;
    EXPECT_TRUE(on_device[iq].chi0.empty() && on_device[iq].eps.empty()) << "q-point " << iq + 1;
    EXPECT_LT(rel_diff(on_device[iq].epsinv, eps[0][iq].epsinv), 1e-10) << "eps^-1 formed on the device, q-point " << iq + 1;
    EXPECT_NEAR(on_device[iq].eps_head, eps[0][iq].eps_head, 1e-10 * eps[0][iq].eps_head) << "q-point " << iq + 1;
    EXPECT_EQ(eps[0][iq].eps_head, eps[0][iq].eps[0].re);
  }
  std::vector<double> cols[2];
  for (int b = 0; b < 2; ++b)
    for (const auto& k : sigma[b])
      for (const auto& band : k.bands)
        cols[b].insert(cols[b].end(), {band.x, band.sx_x[0], band.sx_x[1], band.ch[0], band.ch[1], band.eqp1, band.znk});
  ASSERT_EQ(cols[0].size(), cols[1].size());
  EXPECT_LT(rel_diff(cols[1], cols[0]), 1e-10);
  // Per column as well: X is largest and would hide a smaller column's error in the joint bound.
  for (int c = 0; c < 7; ++c) {
    std::vector<double> a, b;
    for (std::size_t i = c; i < cols[0].size(); i += 7) a.push_back(cols[1][i]), b.push_back(cols[0][i]);
    EXPECT_LT(rel_diff(a, b), 1e-10) << "column " << c;
  }
}

// Full frequency on the silicon example (a short grid): eps^-1 at every frequency and Sigma's residue and integral on
// the evaluation grid, CUDA against CPU.
TEST(GwParity, SiliconFullFrequencyCudaMatchesCpu) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no GPU";
  EpsilonParams ep = read_epsilon_inp(kSi + "bgw-inputs/epsilon.inp");
  SigmaParams sp = read_sigma_inp(kSi + "bgw-inputs/sigma.inp");
  ep.frequency_dependence = 2;
  ep.frequencies.delta = 0.5, ep.frequencies.low_cutoff = 14, ep.frequencies.n_imag = 8;
  sp.frequency_dependence = 2, sp.cd_integration_method = 2, sp.band_min = 1, sp.band_max = 8, sp.max_frequency_eval = 0.4;
  sp.kpoints.resize(2);
  const auto wfn = read_wfn(kSi + "mean-field/02-wfn/WFN", ep.nbands);
  const auto wfnq = read_wfn(kSi + "mean-field/03-wfnq/WFNq");
  const auto inner = read_wfn(kSi + "mean-field/04-wfn_co/WFN_co", sp.nbands);
  const auto rho = read_rho(kSi + "mean-field/04-wfn_co/RHO");
  const auto vxc = read_vxc_dat(kSi + "mean-field/04-wfn_co/vxc.dat");
  std::vector<std::vector<DielectricMatrix>> eps;
  std::vector<std::vector<SigmaK>> sigma;
  for (Backend b : {Backend::Cpu, Backend::Cuda}) {
    ep.backend = sp.backend = b;
    eps.push_back(compute_epsilon(wfn, &wfnq, ep));
    sigma.push_back(compute_sigma(inner, rho, vxc, eps[0], sp));
  }
  for (std::size_t iq = 0; iq < eps[0].size(); ++iq) EXPECT_LT(rel_diff(eps[1][iq].epsinv_ff, eps[0][iq].epsinv_ff), 1e-10) << "q-point " << iq + 1;
  std::vector<cplx> a, b;
  for (int i = 0; i < 2; ++i)
    for (const auto& k : sigma[i])
      for (const auto& band : k.bands) {
        auto& out = i == 0 ? a : b;
        out.insert(out.end(), band.ff_res.begin(), band.ff_res.end());
        out.insert(out.end(), band.ff_int.begin(), band.ff_int.end());
      }
  ASSERT_EQ(a.size(), b.size());
  EXPECT_LT(rel_diff(b, a), 1e-10);
}
