// CUDA engine against the CPU engine on random inputs: half-linestrengths and completions, both
// methods, with the dipole resident and split into blocks by v. Bound: 1e-12 relative to the largest
// element (FP64 sums of ~10^3 terms in different orders differ by ~1e-15; 1e-12 leaves room and would
// still catch any wrong index or factor).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "quanta/core/backend.hpp"
#include "random_inputs.hpp"

using namespace linelist_test;

TEST(LinelistParity, CudaMatchesCpuBothMethodsAndDipoleBlocks) {
  if (quanta::cuda_device_count() == 0) GTEST_SKIP() << "no GPU";
  std::mt19937_64 rng(7);
  std::normal_distribution<double> g;
  const int n = 301, J = 4, ns = 5, nup = 23;
  const DipoleMatrices d = random_dipole(n, rng);
  const RotVibBasis lo = top(J, n);
  std::vector<double> c(ns * lo.size());
  for (double& x : c) x = g(rng);
  // The CPU's half-linestrengths and amplitudes for J' = J-1, J, J+1.
  struct Ref {
    RotationalCoupling rc;
    std::vector<double> upper, half, amp;
  };
  std::vector<Ref> refs;
  auto cpu = make_cpu_engine(d, EngineOptions{});
  cpu->set_lower(c, ns, lo.nrot());
  for (int Jp = J - 1; Jp <= J + 1; ++Jp) {
    Ref r;
    const RotVibBasis up = top(Jp, n);
    r.rc = rotational_coupling(lo, up, -1);
    r.upper.resize(nup * up.size());
    for (double& x : r.upper) x = g(rng);
    cpu->half_linestrengths(r.rc);
    r.half = cpu->half_linestrengths_host();
    r.amp.resize(ns * nup);
    cpu->completions(r.upper.data(), nup, r.amp.data());
    refs.push_back(std::move(r));
  }
  // One engine per configuration, its lower states set once and used for the three J' in turn (the
  // products are kept across J' when they fit, recomputed per sub-batch when not). Limit 1 MiB: the
  // products take one lower state at a time.
  for (Method m : {Method::Gemm, Method::CacheReduce})
    for (int blocks : {1, 3})
      for (std::size_t limit : {std::size_t(0), std::size_t(1) << 20}) {
        EngineOptions o;
        o.method = m;
        o.dipole_blocks = blocks;
        o.memory_limit_bytes = limit;
        auto gpu = make_cuda_engine(d, o);
        gpu->set_lower(c, ns, lo.nrot());
        for (const Ref& r : refs) {
          const std::string what = to_string(m) + ", " + std::to_string(blocks) + " blocks, limit " + std::to_string(limit) + ", nrot' " +
                                    std::to_string(r.rc.nrot_upper);
          gpu->half_linestrengths(r.rc);
          EXPECT_LT(rel_diff(gpu->half_linestrengths_host(), r.half), 1e-12) << what;
          std::vector<double> amp(ns * nup);
          gpu->completions(r.upper.data(), nup, amp.data());
          EXPECT_LT(rel_diff(amp, r.amp), 1e-12) << what;
          // Both slots in flight at once, on two chunks of the upper vectors (as the line list streams them).
          const std::size_t dim = gpu->upper_dim();
          const int first = nup / 2;
          std::copy_n(r.upper.data(), first * dim, gpu->upper_buffer(0, first * dim));
          std::copy_n(r.upper.data() + first * dim, (nup - first) * dim, gpu->upper_buffer(1, (nup - first) * dim));
          gpu->start_completions(0, first);
          gpu->start_completions(1, nup - first);
          const double* a1 = gpu->finish_completions(1);
          const double* a0 = gpu->finish_completions(0);
          for (int i = 0; i < ns; ++i)
            for (int f = 0; f < nup; ++f) amp[i * nup + f] = f < first ? a0[i * first + f] : a1[i * (nup - first) + f - first];
          EXPECT_LT(rel_diff(amp, r.amp), 1e-12) << "two slots, " << what;
        }
      }
  // CPU cache-and-reduce against CPU gemm (the two orders of eq. 14).
  EngineOptions cr;
  cr.method = Method::CacheReduce;
  auto cpu_cr = make_cpu_engine(d, cr);
  cpu_cr->set_lower(c, ns, lo.nrot());
  for (const Ref& r : refs) {
    cpu_cr->half_linestrengths(r.rc);
    EXPECT_LT(rel_diff(cpu_cr->half_linestrengths_host(), r.half), 1e-12);
  }
}

