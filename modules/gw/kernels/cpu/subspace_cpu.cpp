#include <algorithm>
#include <cmath>

#include "../../src/blas.hpp"
#include "../invert.hpp"
#include "../subspace.hpp"
#include "quanta/core/error.hpp"
#include "quanta/core/threads.hpp"
#include "quanta/core/timer.hpp"

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

StaticSubspace static_subspace(Backend backend, const std::vector<cplx>& chi0, const std::vector<double>& v, int n, const ChooseBasis& choose,
                               const std::string& what) {
  const std::size_t n2 = static_cast<std::size_t>(n) * n;
  if (chi0.size() != n2 || v.size() != static_cast<std::size_t>(n)) throw Error(what + ": static_subspace needs an n x n chi0 and n values of v");
  StaticSubspace s;
  s.sv = sqrt_of(v);
  const std::vector<double>& sv = s.sv;
  // Both n^2 matrices formed by the threads, column by column. (Their allocation still zero-fills from one thread:
  // invert and hermitian_eigen take std::vector.)
  WallTimer tf;
  std::vector<cplx> eps(n2), sym(n2);
#pragma omp parallel for schedule(static) num_threads(max_threads())
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) {
      const std::size_t ij = i + static_cast<std::size_t>(n) * j;
      eps[ij] = (i == j ? cplx(1.0) : cplx()) - v[i] * chi0[ij];
      sym[ij] = sv[i] * chi0[ij] * sv[j];
    }
  s.eps_head = eps[0].re;
  s.form = tf.seconds();
  WallTimer ti;
  {
    const auto inv = invert(backend, eps, n, what + ", static");
    eps = std::vector<cplx>();  // freed before the copy: at most three n^2 matrices at once (sym, inv, einv0)
    s.einv0 = HostVector<cplx>(n2);
#pragma omp parallel for schedule(static) num_threads(max_threads())
    for (int j = 0; j < n; ++j) std::copy_n(inv.begin() + static_cast<std::size_t>(n) * j, n, s.einv0.begin() + static_cast<std::size_t>(n) * j);
  }
  s.invert = ti.seconds();
  WallTimer te;
  std::vector<double> lambda;
  hermitian_eigen(backend, sym, n, lambda, what + ", the static chi0 v^1/2 chi0 v^1/2");
  const auto kept = choose(lambda);
  s.nb = static_cast<int>(kept.size());
  s.basis.resize(static_cast<std::size_t>(n) * s.nb);
  for (int c = 0; c < s.nb; ++c) {
    if (kept[c] < 0 || kept[c] >= n) throw Error(what + ": the subspace's basis names eigenvector " + std::to_string(kept[c]) + " of " + std::to_string(n));
    std::copy_n(sym.begin() + static_cast<std::size_t>(n) * kept[c], n, s.basis.begin() + static_cast<std::size_t>(n) * c);
  }
  s.eigen = te.seconds();
  return s;
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
