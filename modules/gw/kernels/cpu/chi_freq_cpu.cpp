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

ChiFreqEngine::ChiFreqEngine(Backend backend, int ng, std::vector<cplx> z, double s, std::size_t device_budget, std::vector<cplx> basis, int nb)
    : ng_(ng), n_(basis.empty() ? ng : nb), z_(std::move(z)), basis_(std::move(basis)), s_(s) {
  if (!basis_.empty() && (nb < 1 || basis_.size() != static_cast<std::size_t>(ng) * nb))
    throw Error("chi_freq: a basis of " + std::to_string(basis_.size()) + " values for " + std::to_string(nb) + " vectors of " + std::to_string(ng));
  if (backend == Backend::Cuda) {
#if QUANTA_GW_CUDA
    cuda_.reset(make_chi_freq_cuda(ng, n_, nf(), basis_, device_budget));
#else
    (void)device_budget;
    throw Error("chi_freq: this build has no CUDA backend");
#endif
  } else {
    stack_.assign(static_cast<std::size_t>(nf()) * n_ * n_, cplx());
  }
}

ChiFreqEngine::~ChiFreqEngine() = default;

#if !QUANTA_GW_CUDA
void ChiFreqEngine::CudaDeleter::operator()(Cuda*) const {}
#endif

void ChiFreqEngine::add(const ChiFreqJob& job) {
  if (spent_) throw Error("chi_freq: add() after epsilon_inverse() turned chi0 into eps");
  if (job.ng != ng_) throw Error("chi_freq: the job's G-sphere differs from the engine's");
  if (job.npairs == 0) return;
  const auto w = chi_freq_weights(z_, s_, job.de, job.npairs);
  flops_ += (8.0 * nf() * n_ * n_ + (basis_.empty() ? 0.0 : 8.0 * ng_ * n_)) * job.npairs;
#if QUANTA_GW_CUDA
  if (cuda_) return chi_freq_cuda(*cuda_, job, w);
#endif
  if (job.m_device) throw Error("chi_freq: matrix elements on the device given to the CPU backend");
  // S in chunks of pairs of at most 64 MiB (with a basis, of the projected M~ = P^H M).
  const int nf_ = nf();
  const std::size_t n = n_, rows = static_cast<std::size_t>(nf_) * n;
  const int chunk = static_cast<int>(std::clamp<std::size_t>((std::size_t{64} << 20) / (rows * sizeof(cplx)), 1, job.npairs));
  std::vector<cplx> S(rows * chunk), projected(basis_.empty() ? 0 : n * chunk);
  const cplx one(1.0), zero;
  for (int p0 = 0; p0 < job.npairs; p0 += chunk) {
    const int np = std::min(chunk, job.npairs - p0);
    const cplx* m = job.m + static_cast<std::size_t>(p0) * ng_;
    if (!basis_.empty()) {
      const int nb = n_, ng = ng_, k = np;
      zgemm_("C", "N", &nb, &k, &ng, &one, basis_.data(), &ng, m, &ng, &zero, projected.data(), &nb);
      m = projected.data();
    }
    for (int p = 0; p < np; ++p)
      for (int f = 0; f < nf_; ++f) {
        const cplx wf = w[static_cast<std::size_t>(p0 + p) * nf_ + f];
        const cplx* mp = m + p * n;
        cplx* sp = S.data() + p * rows + f * n;
        for (std::size_t g = 0; g < n; ++g) sp[g] = wf * mp[g];
      }
    const int mm = static_cast<int>(rows), nn = n_, k = np, lds = static_cast<int>(rows), ldm = n_;
    zgemm_("N", "C", &mm, &nn, &k, &one, S.data(), &lds, m, &ldm, &one, stack_.data(), &lds);
  }
}

bool ChiFreqEngine::sum_on_devices(DeviceExchange& exchange) {
  if (spent_) throw Error("chi_freq: sum_on_devices() after epsilon_inverse() turned chi0 into eps");
#if QUANTA_GW_CUDA
  if (cuda_) {
    chi_freq_cuda_sum_on_devices(*cuda_, exchange);
    return true;
  }
#endif
  (void)exchange;
  return false;
}

std::vector<cplx> ChiFreqEngine::result() const {
  if (spent_) throw Error("chi_freq: result() after epsilon_inverse() turned chi0 into eps");
#if QUANTA_GW_CUDA
  if (cuda_) return chi_freq_cuda_result(*cuda_);
#endif
  return unstack_frequencies(stack_, n_, nf());
}

HostVector<cplx> ChiFreqEngine::epsilon_inverse(const std::vector<double>& v, const std::string& what, double* heads) {
  if (v.size() != static_cast<std::size_t>(ng_)) throw Error("chi_freq: epsilon_inverse needs one v per G-vector");
  if (!basis_.empty()) return {};  // the subspace's matrices are the caller's to invert and expand
#if QUANTA_GW_CUDA
  if (cuda_) {
    if (spent_) throw Error("chi_freq: epsilon_inverse called twice");
    try {
      auto inv = chi_freq_cuda_epsilon_inverse(*cuda_, v, what, heads);
      spent_ = true;
      return inv;
    } catch (const OutOfDeviceMemory&) {
      // Only from the first frequency's buffers, before its chi0 was touched (later ones are Errors): the caller
      // downloads chi0 and inverts elsewhere.
    }
  }
#else
  (void)what;
  (void)heads;
#endif
  return {};
}

}  // namespace quanta::gw::kernels
