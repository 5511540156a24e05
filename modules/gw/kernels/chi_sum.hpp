#pragma once
// CHI_SUM: the static RPA polarizability as a matrix product over valence-conduction pairs,
//   chi0(q; G, G') += -(4 / (N_k Omega)) sum_{v,c} M_vc(G) conj(M_vc(G')) / (E_c(k) - E_v(k+q)),
// (2 for spin, 2 for the resonant and antiresonant terms at omega = 0), one k-point and one block of valence bands per call (the seed's NV-block): with
// X[(v,c)][G] = M_vc(G) sqrt(w_vc), w_vc = (4 / (N_k Omega)) / (E_c - E_v) > 0, it is chi0 -= X^T conj(X),
// a Hermitian rank-nvc update (ZHERK: the lower triangle G >= G', half a ZGEMM's work; the engine's result()
// fills the upper triangle from it, on the host or on the device).
// Preconditions: E_c > E_v for every pair (an insulator); chi is Hermitian, [ng][ng] with chi(G, G') at
// G + ng G' (column-major).
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "quanta/core/backend.hpp"
#include "quanta/core/complex.hpp"
#include "quanta/core/host_vector.hpp"
#include "subspace.hpp"

namespace quanta {
class DeviceExchange;
}

namespace quanta::gw::kernels {

struct ChiSumJob {
  int npairs = 0, ng = 0;
  const cplx* m = nullptr;       // [npairs][ng] M_vc(G), pairs (v, c) in any order (host memory)
  cplx* m_device = nullptr;      // or M on the device (CUDA engine only, e.g. MtxelEngine::device_result()),
                                 // scaled by sqrt(w) in place
  const double* w = nullptr;     // [npairs] w_vc > 0 (host memory)
  cplx* chi = nullptr;           // [ng][ng] accumulated (chi_sum_cpu only; the engine holds its own)
};

void chi_sum_cpu(const ChiSumJob& job);  // accumulates the lower triangle of job.chi
// chi(G, G') = conj(chi(G', G)) for G < G': the upper triangle from the lower one.
void fill_upper_triangle(std::vector<cplx>& chi, int ng);

// Accumulates chi0 of one q over k-points and valence blocks. On the CUDA backend chi0 stays on the
// device until result(), each call's X goes up in chunks of pairs that fit device_budget bytes, and the
// products run in cuBLAS ZHERK.
class ChiSumEngine {
 public:
  ChiSumEngine(Backend backend, int ng, std::size_t device_budget = 0);
  ~ChiSumEngine();
  ChiSumEngine(const ChiSumEngine&) = delete;
  ChiSumEngine& operator=(const ChiSumEngine&) = delete;
  void add(const ChiSumJob& job);  // job.ng must be the engine's; job.chi is ignored
  std::vector<cplx> result() const;
  // On the CUDA backend: the partial chi0 of every process summed between their devices (DeviceExchange::sum), so that
  // each holds the whole sum on its device. Returns false, nothing done, on the CPU backend (the caller sums on the host).
  bool sum_on_devices(DeviceExchange& exchange);
  // On the CUDA backend: eps = 1 - diag(v) chi0 (v_i = 8 pi / |q + G_i|^2) formed over the engine's chi0 on the
  // device and inverted there (epsilon_inverse_cuda), so that chi0 and eps never come to the host; returns eps^-1
  // and eps(0, 0) in *eps_head, and the engine is spent (add() and result() then throw). Returns an empty vector,
  // chi0 untouched, on the CPU backend or when the device lacks the memory for the inversion's buffers (then
  // result() and invert() do it).
  HostVector<cplx> epsilon_inverse(const std::vector<double>& v, const std::string& what, cplx* eps_head);
  // On the CUDA backend: the static subspace's first step over the engine's chi0 on the device (static_subspace_cuda:
  // only eps^-1, the eigenvalues and the kept eigenvectors come to the host), after which the engine is spent. Empty,
  // chi0 untouched, on the CPU backend or when the device lacks the memory (then result() and static_subspace() on the
  // host do it).
  std::optional<StaticSubspace> static_subspace(const std::vector<double>& v, const ChooseBasis& choose, const std::string& what);

  struct Cuda;
  struct CudaDeleter {
    void operator()(Cuda* p) const;
  };

 private:
  int ng_;
  bool spent_ = false;     // chi0 was turned into eps on the device (epsilon_inverse, static_subspace)
  std::vector<cplx> chi_;  // CPU backend
  std::unique_ptr<Cuda, CudaDeleter> cuda_;
};

#if QUANTA_GW_CUDA
ChiSumEngine::Cuda* make_chi_sum_cuda(int ng, std::size_t device_budget);
void chi_sum_cuda(ChiSumEngine::Cuda& ws, const ChiSumJob& job);
std::vector<cplx> chi_sum_cuda_result(const ChiSumEngine::Cuda& ws);
// chi0 completed on the device (the upper triangle filled) and its address there.
cplx* chi_sum_cuda_complete(ChiSumEngine::Cuda& ws);
void chi_sum_cuda_sum_on_devices(ChiSumEngine::Cuda& ws, DeviceExchange& exchange);
#endif

}  // namespace quanta::gw::kernels
