// The CPU engine's two methods (gemm and cache-and-reduce, the two orders of eq. 14) on random inputs.
// The CUDA engine against the CPU one is backend_parity_cuda_test.cpp.
#include <gtest/gtest.h>

#include "random_inputs.hpp"

using namespace linelist_test;

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
  a->set_lower(c, ns, lo.nrot());
  b->set_lower(c, ns, lo.nrot());
  for (int Jp = J - 1; Jp <= J + 1; ++Jp) {
    const RotationalCoupling rc = rotational_coupling(lo, top(Jp, n), -1);
    a->half_linestrengths(rc);
    b->half_linestrengths(rc);
    EXPECT_LT(rel_diff(b->half_linestrengths_host(), a->half_linestrengths_host()), 1e-12);
  }
}
