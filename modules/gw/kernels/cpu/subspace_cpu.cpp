#include <algorithm>

#include "../../src/blas.hpp"
#include "../subspace.hpp"
#include "quanta/core/error.hpp"
#include "quanta/core/threads.hpp"

extern "C" void zheevd_(const char* jobz, const char* uplo, const int* n, void* a, const int* lda, double* w, void* work, const int* lwork,
                        double* rwork, const int* lrwork, int* iwork, const int* liwork, int* info);

namespace quanta::gw::kernels {

namespace {

void hermitian_eigen_cpu(std::vector<cplx>& a, int n, std::vector<double>& w, const std::string& what) {
  w.assign(n, 0.0);
  int info = 0, lwork = -1, lrwork = -1, liwork = -1, iquery = 0;
  cplx query;
  double rquery = 0;
  zheevd_("V", "L", &n, a.data(), &n, w.data(), &query, &lwork, &rquery, &lrwork, &iquery, &liwork, &info);
  lwork = std::max(1, static_cast<int>(query.re)), lrwork = std::max(1, static_cast<int>(rquery)), liwork = std::max(1, iquery);
  std::vector<cplx> work(lwork);
  std::vector<double> rwork(lrwork);
  std::vector<int> iwork(liwork);
  zheevd_("V", "L", &n, a.data(), &n, w.data(), work.data(), &lwork, rwork.data(), &lrwork, iwork.data(), &liwork, &info);
  if (info != 0) throw Error(what + ": the eigen decomposition failed (LAPACK zheevd info " + std::to_string(info) + ")");
}

}  // namespace

void hermitian_eigen(Backend backend, std::vector<cplx>& a, int n, std::vector<double>& w, const std::string& what) {
#if QUANTA_GW_CUDA
  if (backend == Backend::Cuda) return hermitian_eigen_cuda(a, n, w, what);
#endif
  if (backend == Backend::Cuda) throw Error("hermitian_eigen: this build has no CUDA backend");
  hermitian_eigen_cpu(a, n, w, what);
}

HostVector<cplx> subspace_expand_cpu(const SubspaceExpansion& j) {
  const std::size_t ng = j.ng, nb = j.nb, n2 = ng * ng, b2 = nb * nb;
  auto out = host_vector_zeroed<cplx>(n2 * j.nf);
  std::vector<cplx> d(b2), t(ng * nb), e(n2);
  const cplx one(1.0), zero;
  const int m = j.ng, k = j.nb;
  for (int f = 0; f < j.nf; ++f) {
    for (std::size_t i = 0; i < b2; ++i) d[i] = j.c[f * b2 + i] - (j.keep ? j.c[j.f0 * b2 + i] : cplx());
    zgemm_("N", "N", &m, &k, &k, &one, j.basis, &m, d.data(), &k, &zero, t.data(), &m);
    zgemm_("N", "C", &m, &m, &k, &one, t.data(), &m, j.basis, &m, &zero, e.data(), &m);
    cplx* o = out.data() + f * n2;
#pragma omp parallel for schedule(static) num_threads(max_threads())
    for (int c = 0; c < j.ng; ++c)
      for (int r = 0; r < j.ng; ++r) {
        const std::size_t rc = r + ng * c;
        const cplx base = j.keep ? j.einv0[rc] : (r == c ? cplx(1.0) : cplx());
        o[rc] = base + e[rc] * (j.sv[r] / j.sv[c]);
      }
  }
  return out;
}

HostVector<cplx> subspace_expand(Backend backend, const SubspaceExpansion& job) {
#if QUANTA_GW_CUDA
  if (backend == Backend::Cuda) return subspace_expand_cuda(job);
#endif
  if (backend == Backend::Cuda) throw Error("subspace_expand: this build has no CUDA backend");
  return subspace_expand_cpu(job);
}

}  // namespace quanta::gw::kernels
