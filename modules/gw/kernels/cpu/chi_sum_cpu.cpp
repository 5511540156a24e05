#include <cmath>
#include <vector>

#include "../chi_sum.hpp"
#include "quanta/core/error.hpp"

extern "C" void zgemm_(const char* transa, const char* transb, const int* m, const int* n, const int* k, const void* alpha,
                       const void* a, const int* lda, const void* b, const int* ldb, const void* beta, void* c, const int* ldc);

namespace quanta::gw::kernels {

void chi_sum_cpu(const ChiSumJob& job) {
  if (job.npairs == 0) return;
  const std::size_t ng = job.ng;
  std::vector<cplx> x(ng * job.npairs);
  for (int p = 0; p < job.npairs; ++p) {
    const double s = std::sqrt(job.w[p]);
    for (std::size_t g = 0; g < ng; ++g) x[p * ng + g] = job.m[p * ng + g] * s;
  }
  const cplx alpha(-1.0), beta(1.0);
  const int n = job.ng, k = job.npairs;
  // Column-major X is (ng x npairs); chi -= X X^H.
  zgemm_("N", "C", &n, &n, &k, &alpha, x.data(), &n, x.data(), &n, &beta, job.chi, &n);
}

void chi_sum(Backend backend, const ChiSumJob& job) {
#if QUANTA_GW_CUDA
  if (backend == Backend::Cuda) return chi_sum_cuda(job);
#endif
  if (backend == Backend::Cuda) throw Error("chi_sum: the CUDA kernels of the gw module are not implemented yet");
  chi_sum_cpu(job);
}

}  // namespace quanta::gw::kernels
