// CUDA engine against the CPU engine on random inputs: half-linestrengths and completions, both
// methods, with the dipole resident and split into blocks by v. Bound: 1e-12 relative to the largest
// element (FP64 sums of ~10^3 terms in different orders differ by ~1e-15; 1e-12 leaves room and would
// still catch any wrong index or factor).
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "../kernels/linestrength.hpp"

using namespace quanta::linelist;

namespace {

RotVibBasis top(int J, int nvib) { return symmetric_top_basis(J, nvib); }

// Three random symmetric n x n matrices.
DipoleMatrices random_dipole(int n, std::mt19937_64& rng) {
  std::normal_distribution<double> g;
  DipoleMatrices d;
  d.n = n;
  d.mu.resize(3 * std::size_t(n) * n);
  for (int a = 0; a < 3; ++a)
    for (int i = 0; i < n; ++i)
      for (int j = 0; j <= i; ++j) d.mu[(std::size_t(a) * n + i) * n + j] = d.mu[(std::size_t(a) * n + j) * n + i] = g(rng);
  return d;
}

double rel_diff(const std::vector<double>& a, const std::vector<double>& b) {
  double m = 0, s = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    m = std::max(m, std::abs(a[i] - b[i]));
    s = std::max(s, std::abs(b[i]));
  }
  return m / s;
}

}  // namespace

TEST(LinelistParity, CudaMatchesCpuBothMethodsAndDipoleBlocks) {
  if (quanta::cuda_device_count() == 0) GTEST_SKIP() << "no GPU";
  std::mt19937_64 rng(7);
  std::normal_distribution<double> g;
  const int n = 301, J = 4, ns = 5, nup = 23;
  const DipoleMatrices d = random_dipole(n, rng);
  const RotVibBasis lo = top(J, n);
  std::vector<double> c(ns * lo.size());
  for (double& x : c) x = g(rng);
  auto cpu = make_cpu_engine(d, EngineOptions{});
  cpu->set_lower(c.data(), ns, lo.nrot());
  for (int Jp = J - 1; Jp <= J + 1; ++Jp) {
    const RotVibBasis up = top(Jp, n);
    const RotationalCoupling rc = rotational_coupling(lo, up, -1);
    std::vector<double> u(nup * up.size());
    for (double& x : u) x = g(rng);
    cpu->half_linestrengths(rc);
    const std::vector<double> h_ref = cpu->half_linestrengths_host();
    std::vector<double> amp_ref(ns * nup);
    cpu->completions(Jp, u.data(), nup, amp_ref.data());
    for (Method m : {Method::Gemm, Method::CacheReduce})
      for (int blocks : {1, 3}) {
        EngineOptions o;
        o.method = m;
        o.dipole_blocks = blocks;
        auto gpu = make_cuda_engine(d, o);
        gpu->set_lower(c.data(), ns, lo.nrot());
        gpu->half_linestrengths(rc);
        EXPECT_LT(rel_diff(gpu->half_linestrengths_host(), h_ref), 1e-12) << to_string(m) << ", " << blocks << " blocks, J' " << Jp;
        std::vector<double> amp(ns * nup);
        gpu->completions(Jp, u.data(), nup, amp.data());
        EXPECT_LT(rel_diff(amp, amp_ref), 1e-12) << to_string(m) << ", " << blocks << " blocks, J' " << Jp;
        // A second completion from the resident copy of the same upper block, and a streamed one.
        gpu->completions(Jp, u.data(), nup, amp.data());
        EXPECT_LT(rel_diff(amp, amp_ref), 1e-12);
      }
    // CPU cache-and-reduce against CPU gemm (the two orders of eq. 14).
    EngineOptions cr;
    cr.method = Method::CacheReduce;
    auto cpu_cr = make_cpu_engine(d, cr);
    cpu_cr->set_lower(c.data(), ns, lo.nrot());
    cpu_cr->half_linestrengths(rc);
    EXPECT_LT(rel_diff(cpu_cr->half_linestrengths_host(), h_ref), 1e-12);
  }
}

// The CPU's two methods agree without a GPU too.
TEST(LinelistParity, CpuMethodsAgree) {
  std::mt19937_64 rng(3);
  std::normal_distribution<double> g;
  const int n = 57, J = 3, ns = 4;
  const DipoleMatrices d = random_dipole(n, rng);
  const RotVibBasis lo = top(J, n);
  std::vector<double> c(ns * lo.size());
  for (double& x : c) x = g(rng);
  EngineOptions cr;
  cr.method = Method::CacheReduce;
  auto a = make_cpu_engine(d, EngineOptions{});
  auto b = make_cpu_engine(d, cr);
  a->set_lower(c.data(), ns, lo.nrot());
  b->set_lower(c.data(), ns, lo.nrot());
  for (int Jp = J - 1; Jp <= J + 1; ++Jp) {
    const RotationalCoupling rc = rotational_coupling(lo, top(Jp, n), -1);
    a->half_linestrengths(rc);
    b->half_linestrengths(rc);
    EXPECT_LT(rel_diff(b->half_linestrengths_host(), a->half_linestrengths_host()), 1e-12);
  }
}
