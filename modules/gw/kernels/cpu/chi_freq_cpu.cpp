#include <algorithm>

#include "../chi_freq.hpp"
#include "../../src/blas.hpp"
#include "quanta/core/error.hpp"

namespace quanta::gw::kernels {

namespace {
cplx inverse(cplx z) { return conj(z) / norm2(z); }
}  // namespace

std::vector<cplx> chi_freq_weights(const std::vector<cplx>& z, double s, const double* de, int np) {
  const std::size_t nf = z.size();
  std::vector<cplx> w(static_cast<std::size_t>(np) * nf);
  for (int p = 0; p < np; ++p) {
    if (!(de[p] > 0)) throw Error("chi_freq: a transition energy E_c - E_v = " + std::to_string(de[p]) + ": expected > 0 (insulators only)");
    for (std::size_t f = 0; f < nf; ++f) w[p * nf + f] = s * (inverse(z[f] - cplx(de[p])) - inverse(z[f] + cplx(de[p])));
  }
  return w;
}

std::vector<cplx> unstack_frequencies(const std::vector<cplx>& stack, int ng, int nf) {
  const std::size_t n = ng, ld = static_cast<std::size_t>(nf) * ng;
  std::vector<cplx> out(stack.size());
  for (int f = 0; f < nf; ++f)
    for (std::size_t j = 0; j < n; ++j)
      for (std::size_t i = 0; i < n; ++i) out[(f * n + j) * n + i] = stack[f * n + i + ld * j];
  return out;
}

ChiFreqEngine::ChiFreqEngine(Backend backend, int ng, std::vector<cplx> z, double s, std::size_t device_budget)
    : ng_(ng), z_(std::move(z)), s_(s) {
  if (backend == Backend::Cuda) {
#if QUANTA_GW_CUDA
    cuda_.reset(make_chi_freq_cuda(ng, nf(), device_budget));
#else
    (void)device_budget;
    throw Error("chi_freq: this build has no CUDA backend");
#endif
  } else {
    stack_.assign(static_cast<std::size_t>(nf()) * ng * ng, cplx());
  }
}

ChiFreqEngine::~ChiFreqEngine() = default;

#if !QUANTA_GW_CUDA
void ChiFreqEngine::CudaDeleter::operator()(Cuda*) const {}
#endif

void ChiFreqEngine::add(const ChiFreqJob& job) {
  if (job.ng != ng_) throw Error("chi_freq: the job's G-sphere differs from the engine's");
  if (job.npairs == 0) return;
  const auto w = chi_freq_weights(z_, s_, job.de, job.npairs);
  flops_ += 8.0 * nf() * static_cast<double>(ng_) * ng_ * job.npairs;
#if QUANTA_GW_CUDA
  if (cuda_) return chi_freq_cuda(*cuda_, job, w);
#endif
  if (job.m_device) throw Error("chi_freq: matrix elements on the device given to the CPU backend");
  // S in chunks of pairs of at most 64 MiB.
  const int nf_ = nf();
  const std::size_t ng = ng_, rows = static_cast<std::size_t>(nf_) * ng;
  const int chunk = static_cast<int>(std::clamp<std::size_t>((std::size_t{64} << 20) / (rows * sizeof(cplx)), 1, job.npairs));
  std::vector<cplx> S(rows * chunk);
  const cplx one(1.0);
  for (int p0 = 0; p0 < job.npairs; p0 += chunk) {
    const int np = std::min(chunk, job.npairs - p0);
    for (int p = 0; p < np; ++p)
      for (int f = 0; f < nf_; ++f) {
        const cplx wf = w[static_cast<std::size_t>(p0 + p) * nf_ + f];
        const cplx* mp = job.m + (p0 + p) * ng;
        cplx* sp = S.data() + p * rows + f * ng;
        for (std::size_t g = 0; g < ng; ++g) sp[g] = wf * mp[g];
      }
    const int m = static_cast<int>(rows), n = ng_, k = np, lds = static_cast<int>(rows), ldm = ng_;
    zgemm_("N", "C", &m, &n, &k, &one, S.data(), &lds, job.m + p0 * ng, &ldm, &one, stack_.data(), &lds);
  }
}

std::vector<cplx> ChiFreqEngine::result() const {
#if QUANTA_GW_CUDA
  if (cuda_) return unstack_frequencies(chi_freq_cuda_result(*cuda_), ng_, nf());
#endif
  return unstack_frequencies(stack_, ng_, nf());
}

}  // namespace quanta::gw::kernels
