#include <cmath>
#include <vector>

#include "../chi_sum.hpp"
#include "../invert.hpp"
#include "quanta/core/error.hpp"

extern "C" void zherk_(const char* uplo, const char* trans, const int* n, const int* k, const double* alpha, const void* a, const int* lda,
                       const double* beta, void* c, const int* ldc);

namespace quanta::gw::kernels {

void chi_sum_cpu(const ChiSumJob& job) {
  if (job.npairs == 0) return;
  const std::size_t ng = job.ng;
  std::vector<cplx> x(ng * job.npairs);
  for (int p = 0; p < job.npairs; ++p) {
    const double s = std::sqrt(job.w[p]);
    for (std::size_t g = 0; g < ng; ++g) x[p * ng + g] = job.m[p * ng + g] * s;
  }
  const double alpha = -1.0, beta = 1.0;
  const int n = job.ng, k = job.npairs;
  // Column-major X is (ng x npairs); chi -= X X^H on the lower triangle.
  zherk_("L", "N", &n, &k, &alpha, x.data(), &n, &beta, job.chi, &n);
}

void fill_upper_triangle(std::vector<cplx>& chi, int ng) {
  const std::size_t n = ng;
  for (std::size_t j = 1; j < n; ++j)
    for (std::size_t i = 0; i < j; ++i) chi[i + n * j] = conj(chi[j + n * i]);
}

ChiSumEngine::ChiSumEngine(Backend backend, int ng, std::size_t device_budget) : ng_(ng) {
  if (backend == Backend::Cuda) {
#if QUANTA_GW_CUDA
    cuda_.reset(make_chi_sum_cuda(ng, device_budget));
#else
    (void)device_budget;
    throw Error("chi_sum: this build has no CUDA backend");
#endif
  } else {
    chi_.assign(static_cast<std::size_t>(ng) * ng, cplx());
  }
}

ChiSumEngine::~ChiSumEngine() = default;

#if !QUANTA_GW_CUDA
void ChiSumEngine::CudaDeleter::operator()(Cuda*) const {}
#endif

void ChiSumEngine::add(const ChiSumJob& job) {
  if (job.ng != ng_) throw Error("chi_sum: the job's G-sphere differs from the engine's");
  if (spent_) throw Error("chi_sum: add() after epsilon_inverse() turned chi0 into eps");
#if QUANTA_GW_CUDA
  if (cuda_) return chi_sum_cuda(*cuda_, job);
#endif
  if (job.m_device) throw Error("chi_sum: matrix elements on the device given to the CPU backend");
  ChiSumJob j = job;
  j.chi = chi_.data();
  chi_sum_cpu(j);
}

HostVector<cplx> ChiSumEngine::epsilon_inverse(const std::vector<double>& v, const std::string& what, cplx* eps_head) {
  if (v.size() != static_cast<std::size_t>(ng_)) throw Error("chi_sum: epsilon_inverse needs one v per G-vector");
#if QUANTA_GW_CUDA
  if (cuda_) {
    if (spent_) throw Error("chi_sum: epsilon_inverse called twice");
    try {
      auto inv = epsilon_inverse_cuda(chi_sum_cuda_complete(*cuda_), v, ng_, what, eps_head);
      spent_ = true;
      return inv;
    } catch (const OutOfDeviceMemory&) {
      // Raised only before chi0 was touched (epsilon_inverse_cuda turns later ones into Error): the caller
      // downloads chi0 and inverts elsewhere.
    }
  }
#else
  (void)what;
  (void)eps_head;
#endif
  return {};
}

std::optional<StaticSubspace> ChiSumEngine::static_subspace(const std::vector<double>& v, const ChooseBasis& choose, const std::string& what) {
  if (v.size() != static_cast<std::size_t>(ng_)) throw Error("chi_sum: static_subspace needs one v per G-vector");
#if QUANTA_GW_CUDA
  if (cuda_) {
    if (spent_) throw Error("chi_sum: static_subspace after chi0 was turned into eps");
    try {
      auto s = static_subspace_cuda(chi_sum_cuda_complete(*cuda_), v, ng_, choose, what);
      spent_ = true;
      return s;
    } catch (const OutOfDeviceMemory&) {
      // Raised only before chi0 was touched: the caller downloads chi0 and does the step on the host.
    }
  }
#else
  (void)choose;
  (void)what;
#endif
  return std::nullopt;
}

bool ChiSumEngine::sum_on_devices(DeviceExchange& exchange) {
  if (spent_) throw Error("chi_sum: sum_on_devices() after epsilon_inverse() turned chi0 into eps");
#if QUANTA_GW_CUDA
  if (cuda_) {
    chi_sum_cuda_sum_on_devices(*cuda_, exchange);
    return true;
  }
#endif
  (void)exchange;
  return false;
}

std::vector<cplx> ChiSumEngine::result() const {
  if (spent_) throw Error("chi_sum: result() after epsilon_inverse() turned chi0 into eps");
#if QUANTA_GW_CUDA
  if (cuda_) return chi_sum_cuda_result(*cuda_);  // filled on the device
#endif
  auto chi = chi_;
  fill_upper_triangle(chi, ng_);
  return chi;
}

}  // namespace quanta::gw::kernels
