#pragma once
// CHI_SUM at several complex frequencies z_f (the full-frequency Epsilon), for the valence-conduction pairs p of one
// k-point and valence block:
//   chi0(z_f; G, G') += sum_p w_pf M_p(G) conj(M_p(G')),   w_pf = s [1 / (z_f - D_p) - 1 / (z_f + D_p)],
// s = 2 / (N_k Omega) (spin), D_p = E_c - E_v > 0: the retarded response for z_f = w + i eta, and on the imaginary
// axis (z_f = i w) the real w_pf = -2 s D_p / (D_p^2 + w^2). At z = 0 it is the static CHI_SUM's -4 / (N_k Omega D_p).
// As one product for all frequencies (the seed's stacked ZGEMM): with S(f ng + G, p) = w_pf M_p(G), a (nf ng) x np
// matrix, chi_stack = S M^H is (nf ng) x ng and chi0(z_f; G, G') = chi_stack(f ng + G, G').
// The pairs go through in chunks whose S fits the budget (host or device).
#include <memory>
#include <vector>

#include "quanta/core/backend.hpp"
#include "quanta/core/complex.hpp"

namespace quanta::gw::kernels {

struct ChiFreqJob {
  int npairs = 0, ng = 0;
  const cplx* m = nullptr;     // [npairs][ng] M_p(G) (host memory), or
  cplx* m_device = nullptr;    // M on the device (CUDA engine only, e.g. MtxelEngine::device_result())
  const double* de = nullptr;  // [npairs] D_p = E_c - E_v > 0, in the units of the engine's z
};

// The weights w_pf of the pairs of `job` for the frequencies z, [np][nf].
std::vector<cplx> chi_freq_weights(const std::vector<cplx>& z, double s, const double* de, int np);

class ChiFreqEngine {
 public:
  // z: the frequencies (same units as ChiFreqJob::de); s: the prefactor of the weights.
  ChiFreqEngine(Backend backend, int ng, std::vector<cplx> z, double s, std::size_t device_budget = 0);
  ~ChiFreqEngine();
  ChiFreqEngine(const ChiFreqEngine&) = delete;
  ChiFreqEngine& operator=(const ChiFreqEngine&) = delete;
  void add(const ChiFreqJob& job);
  // chi0 at each frequency, [nf][ng][ng], column-major per frequency.
  std::vector<cplx> result() const;
  int nf() const { return static_cast<int>(z_.size()); }
  double flops() const { return flops_; }  // of the products so far: 8 nf ng^2 per pair

  struct Cuda;
  struct CudaDeleter {
    void operator()(Cuda* p) const;
  };

 private:
  int ng_;
  std::vector<cplx> z_;
  double s_;
  double flops_ = 0;
  std::vector<cplx> stack_;  // CPU backend: chi_stack, (nf ng) x ng column-major
  std::unique_ptr<Cuda, CudaDeleter> cuda_;
};

#if QUANTA_GW_CUDA
ChiFreqEngine::Cuda* make_chi_freq_cuda(int ng, int nf, std::size_t device_budget);
void chi_freq_cuda(ChiFreqEngine::Cuda& ws, const ChiFreqJob& job, const std::vector<cplx>& w);
std::vector<cplx> chi_freq_cuda_result(const ChiFreqEngine::Cuda& ws);
#endif

// chi_stack ((nf ng) x ng) reordered to [nf][ng][ng] (each frequency's matrix column-major).
std::vector<cplx> unstack_frequencies(const std::vector<cplx>& stack, int ng, int nf);

}  // namespace quanta::gw::kernels
