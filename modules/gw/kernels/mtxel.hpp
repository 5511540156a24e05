#pragma once
// Plane-wave matrix elements (MTXEL) by FFT, the seed's first stage:
//   M_ab(G) = <a, k_a| e^{i(q+G).r} |b, k_b> = sum_g conj(a(g + G)) b(g),   k_a = k_b + q,
// with a(g), b(g) the coefficients of each state relative to its own k. On the FFT box:
//   M_ab(G) = (1/N) sum_r conj(a(r)) b(r) e^{+i G.r},   a(r) = sum_g a(g) e^{+i g.r},
// exact when the box holds every difference g1 - g2 - G without aliasing (fft_box_for).
// Epsilon uses a = valence at k+q, b = conduction at k; Sigma uses a = band n at k, b = band m at k-q.
#include <memory>
#include <vector>

#include "quanta/core/backend.hpp"
#include "quanta/core/complex.hpp"

namespace quanta::gw::kernels {

struct Box {
  int n[3] = {0, 0, 0};
  std::size_t size() const { return static_cast<std::size_t>(n[0]) * n[1] * n[2]; }
  // Linear index of a reciprocal-lattice vector on the box, wrapped (the fastest index is the third).
  std::size_t index(int g0, int g1, int g2) const {
    auto w = [](int g, int m) { return ((g % m) + m) % m; };
    return (static_cast<std::size_t>(w(g0, n[0])) * n[1] + w(g1, n[1])) * n[2] + w(g2, n[2]);
  }
};

// The smallest FFT-friendly (2^a 3^b 5^c) box with n_i >= 2 gw_i + gm_i + 1: gw_i bounds |g_i| of the
// states, gm_i bounds |G_i| of the matrix elements wanted.
Box fft_box_for(const int gw[3], const int gm[3]);

struct MtxelJob {
  Box box;
  int na = 0, nb = 0, ngout = 0;
  std::size_t nga = 0, ngb = 0;
  const std::size_t* where_a = nullptr;   // [nga] box index of each g of the a states
  const std::size_t* where_b = nullptr;   // [ngb]
  const std::size_t* where_out = nullptr; // [ngout] box index of each output G
  const cplx* a = nullptr;                // [na][nga]
  const cplx* b = nullptr;                // [nb][ngb]
  cplx* m = nullptr;                      // [na][nb][ngout] written (host); null on the CUDA backend:
                                          // left on the device, at MtxelEngine::device_result()
};

// Runs MTXEL jobs on one box, keeping the FFT plans and buffers between calls (one engine per run stage).
// On the CUDA backend the whole output M is assembled on the device (and copied to job.m when given);
// the states go through in chunks that fit the rest of device_budget bytes (the a states of a chunk and
// the b states of a chunk in real space, one batch of products and the cuFFT work area); everything
// fits in one chunk each when the budget allows.
class MtxelEngine {
 public:
  MtxelEngine(Backend backend, const Box& box, std::size_t device_budget = 0);
  ~MtxelEngine();
  MtxelEngine(const MtxelEngine&) = delete;
  MtxelEngine& operator=(const MtxelEngine&) = delete;
  void run(const MtxelJob& job);  // job.box must be the engine's box
  // CUDA backend: the last job's M on the device ([na][nb][ngout]), valid until the next run; the
  // caller may overwrite it (CHI_SUM scales it in place).
  cplx* device_result();

  struct Cpu;
  struct Cuda;
  struct CudaDeleter {
    void operator()(Cuda* p) const;  // defined with the CUDA implementation (or as a no-op without it)
  };

 private:
  Backend backend_;
  Box box_;
  std::unique_ptr<Cpu> cpu_;
  std::unique_ptr<Cuda, CudaDeleter> cuda_;
};

// Device bytes a job's output takes, for callers that size their blocks to a budget.
inline std::size_t mtxel_output_bytes(int na, int nb, int ngout) { return static_cast<std::size_t>(na) * nb * ngout * sizeof(cplx); }

void mtxel_cpu(MtxelEngine::Cpu& ws, const MtxelJob& job);
#if QUANTA_GW_CUDA
void mtxel_cuda(MtxelEngine::Cuda& ws, const MtxelJob& job);
MtxelEngine::Cuda* make_mtxel_cuda(const Box& box, std::size_t device_budget);
cplx* mtxel_cuda_result(MtxelEngine::Cuda& ws);
#endif

}  // namespace quanta::gw::kernels
