#pragma once
// CHI_SUM at several complex frequencies z_f (the full-frequency Epsilon), for the valence-conduction pairs p of one
// k-point and valence block:
//   chi0(z_f; G, G') += sum_p w_pf M_p(G) conj(M_p(G')),   w_pf = s [1 / (z_f - D_p) - 1 / (z_f + D_p)],
// s = 2 / (N_k Omega) (spin), D_p = E_c - E_v > 0: the retarded response for z_f = w + i eta, and on the imaginary
// axis (z_f = i w) the real w_pf = -2 s D_p / (D_p^2 + w^2). At z = 0 it is the static CHI_SUM's -4 / (N_k Omega D_p).
// As one product for all frequencies (the seed's stacked ZGEMM): with S(f ng + G, p) = w_pf M_p(G), a (nf ng) x np
// matrix, chi_stack = S M^H is (nf ng) x ng and chi0(z_f; G, G') = chi_stack(f ng + G, G') (the CPU's layout; the
// device computes the same products as a strided batch, one contiguous ng x ng matrix per frequency).
// The pairs go through in chunks whose S fits the budget (host or device).
// With a basis P (ng x nb, column-major; the static subspace: P = v^1/2 B, B the leading eigenvectors of the
// symmetrized static chi0), each pair's M is first projected, M~_p = P^H M_p, and the engine sums the nb x nb
// chi_s(z_f) = sum_p w_pf M~_p M~_p^H = B^H v^1/2 chi0(z_f) v^1/2 B instead.
#include <memory>
#include <string>
#include <vector>

#include "quanta/core/backend.hpp"
#include "quanta/core/complex.hpp"
#include "quanta/core/host_vector.hpp"

namespace quanta {
class DeviceExchange;
}

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
  // z: the frequencies (same units as ChiFreqJob::de); s: the prefactor of the weights; basis: empty, or P (ng x nb).
  ChiFreqEngine(Backend backend, int ng, std::vector<cplx> z, double s, std::size_t device_budget = 0, std::vector<cplx> basis = {}, int nb = 0);
  ~ChiFreqEngine();
  ChiFreqEngine(const ChiFreqEngine&) = delete;
  ChiFreqEngine& operator=(const ChiFreqEngine&) = delete;
  void add(const ChiFreqJob& job);
  // chi0 at each frequency, [nf][n][n], column-major per frequency (n: ng, or nb with a basis).
  std::vector<cplx> result() const;
  // As ChiSumEngine::sum_on_devices: every frequency's chi0 summed over the processes' devices (false on the CPU backend).
  bool sum_on_devices(DeviceExchange& exchange);
  // On the CUDA backend: eps = 1 - diag(v) chi0 formed and inverted on the device at each frequency (as
  // ChiSumEngine::epsilon_inverse does for the static chi0); returns eps^-1 [nf][ng][ng] and Re eps(0, 0) of each
  // frequency in heads[nf], and the engine is spent. Empty, chi0 untouched, on the CPU backend or when the device lacks
  // the memory for the first inversion's buffers (then result() and invert() do it).
  HostVector<cplx> epsilon_inverse(const std::vector<double>& v, const std::string& what, double* heads);
  int nf() const { return static_cast<int>(z_.size()); }
  double flops() const { return flops_; }  // of the products so far: 8 nf n^2 per pair (and 8 ng nb for a projection)
  int n() const { return n_; }

  struct Cuda;
  struct CudaDeleter {
    void operator()(Cuda* p) const;
  };

 private:
  int ng_, n_;
  std::vector<cplx> z_;
  std::vector<cplx> basis_;  // P, ng x n (empty: n = ng, no projection)
  double s_;
  double flops_ = 0;
  bool spent_ = false;
  std::vector<cplx> stack_;  // CPU backend: chi_stack, (nf ng) x ng column-major
  std::unique_ptr<Cuda, CudaDeleter> cuda_;
};

#if QUANTA_GW_CUDA
ChiFreqEngine::Cuda* make_chi_freq_cuda(int ng, int n, int nf, const std::vector<cplx>& basis, std::size_t device_budget);
void chi_freq_cuda(ChiFreqEngine::Cuda& ws, const ChiFreqJob& job, const std::vector<cplx>& w);
std::vector<cplx> chi_freq_cuda_result(const ChiFreqEngine::Cuda& ws);  // already [nf][ng][ng]
void chi_freq_cuda_sum_on_devices(ChiFreqEngine::Cuda& ws, DeviceExchange& exchange);
HostVector<cplx> chi_freq_cuda_epsilon_inverse(ChiFreqEngine::Cuda& ws, const std::vector<double>& v, const std::string& what, double* heads);
#endif

// chi_stack ((nf ng) x ng) reordered to [nf][ng][ng] (each frequency's matrix column-major).
std::vector<cplx> unstack_frequencies(const std::vector<cplx>& stack, int ng, int nf);

}  // namespace quanta::gw::kernels
