#include <algorithm>
#include <vector>

#include "../../src/blas.hpp"
#include "../cd.hpp"
#include "quanta/core/error.hpp"

namespace quanta::gw::kernels {
namespace {
constexpr std::size_t kThreadedWork = 1 << 16;  // elements below which a loop runs on one thread
}

// Y^T in chunks of rows of at most 64 MiB, one ZGEMM (threaded BLAS) each; the row dots threaded over rows.
void cd_contract_cpu(const CdContractJob& j) {
  if (j.mats_on_device) throw Error("cd_contract: the CPU backend needs the matrices on the host, not on the device");
  if (j.nrows == 0 || j.nmat == 0) return;
  const std::size_t ng = j.ng, ngp = j.ngp, cols = ngp * j.nmat;
  if (cols == 0) {
    std::fill(j.s, j.s + static_cast<std::size_t>(j.nrows) * j.nmat, cplx());
    return;
  }
  const int chunk = static_cast<int>(std::clamp<std::size_t>((std::size_t{64} << 20) / (cols * sizeof(cplx)), 1, j.nrows));
  std::vector<cplx> y(static_cast<std::size_t>(chunk) * cols);
  std::vector<int> gp(ngp);
  for (std::size_t c = 0; c < ngp; ++c) gp[c] = j.gp_index ? j.gp_index[c] : static_cast<int>(c);
  const cplx one(1.0), zero;
  for (int r0 = 0; r0 < j.nrows; r0 += chunk) {
    const int nr = std::min(chunk, j.nrows - r0);
    const int mm = static_cast<int>(cols), nn = nr, kk = j.ng, lda = j.ng, ldb = j.ng, ldc = static_cast<int>(cols);
    // Y^T (cols x nr) = B^T A, B = the matrices (ng x cols), A = M (ng x nr): each row's values contiguous.
    zgemm_("T", "N", &mm, &nn, &kk, &one, j.mats, &lda, j.m + r0 * ng, &ldb, &zero, y.data(), &ldc);
    // Threads only for work worth waking them (small matrices are summed many times, one call per (k, q)).
#pragma omp parallel for schedule(static) if (static_cast<std::size_t>(nr) * cols > kThreadedWork)
    for (int r = 0; r < nr; ++r) {
      const cplx* mr = j.m + (r0 + r) * ng;
      for (int f = 0; f < j.nmat; ++f) {
        cplx acc;
        const cplx* yr = y.data() + r * cols + f * ngp;
        for (std::size_t c = 0; c < ngp; ++c) acc += yr[c] * (conj(mr[gp[c]]) * j.v[gp[c]]);
        j.s[static_cast<std::size_t>(r0 + r) * j.nmat + f] = acc;
      }
    }
  }
}

void cd_rotate_cpu(const CdRotateJob& j, const cplx* raw, cplx* out) {
  // Arithmetic on memory already held: nothing in the loop throws.
#pragma omp parallel for schedule(static) if (static_cast<std::size_t>(j.ngs) * j.ncol > kThreadedWork)
  for (int c = 0; c < j.ncol; ++c)
    for (int a = 0; a < j.ngs; ++a) out[a + static_cast<std::size_t>(j.ngs) * c] = cd_rotated(j, raw, a, j.col_lo + c);
}

// alpha and beta for all rows (one ZGEMM each), then per frequency T = alpha D'_j and the row dots.
void cd_subspace_cpu(const CdSubspaceJob& j) {
  std::fill(j.s, j.s + static_cast<std::size_t>(j.nrows) * j.nmat, cplx());
  if (j.nrows == 0 || j.nmat == 0 || j.nb == 0) return;
  const int nr = j.nrows, nb = j.nb, ng = j.ng;
  const std::size_t rb = static_cast<std::size_t>(nr) * nb, b2 = static_cast<std::size_t>(nb) * nb;
  std::vector<cplx> alpha(rb), beta(rb), t(rb);
  const cplx one(1.0), zero;
  zgemm_("T", "N", &nr, &nb, &ng, &one, j.m, &ng, j.L, &ng, &zero, alpha.data(), &nr);
  zgemm_("T", "N", &nr, &nb, &ng, &one, j.m, &ng, j.Rv, &ng, &zero, beta.data(), &nr);
  for (int f = 0; f < j.nmat; ++f) {
    zgemm_("N", j.transposed ? "T" : "N", &nr, &nb, &nb, &one, alpha.data(), &nr, j.d + f * b2, &nb, &zero, t.data(), &nr);
#pragma omp parallel for schedule(static) if (rb > kThreadedWork)
    for (int r = 0; r < nr; ++r) {
      cplx acc;
      for (int b = 0; b < nb; ++b) acc += t[r + static_cast<std::size_t>(nr) * b] * conj(beta[r + static_cast<std::size_t>(nr) * b]);
      if (j.head && j.g0 >= 0) acc += j.head[f] * norm2(j.m[static_cast<std::size_t>(r) * ng + j.g0]);
      j.s[static_cast<std::size_t>(r) * j.nmat + f] = acc;
    }
  }
}

void cd_subspace(Backend backend, const CdSubspaceJob& job, std::size_t device_budget) {
#if QUANTA_GW_CUDA
  if (backend == Backend::Cuda) return cd_subspace_cuda(job, device_budget);
#else
  (void)device_budget;
#endif
  if (backend == Backend::Cuda) throw Error("cd_subspace: this build has no CUDA backend");
  cd_subspace_cpu(job);
}

void cd_contract(Backend backend, const CdContractJob& job, std::size_t device_budget) {
#if QUANTA_GW_CUDA
  if (backend == Backend::Cuda) return cd_contract_cuda(job, device_budget);
#else
  (void)device_budget;
#endif
  if (backend == Backend::Cuda) throw Error("cd_contract: this build has no CUDA backend");
  cd_contract_cpu(job);
}

}  // namespace quanta::gw::kernels
