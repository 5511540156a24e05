#include <fftw3.h>
#include <omp.h>

#include <algorithm>
#include <mutex>
#include <vector>

#include "../../src/region_failure.hpp"
#include "../mtxel.hpp"
#include "quanta/core/error.hpp"

namespace quanta::gw::kernels {
namespace {

int fft_friendly(int n) {
  for (;; ++n) {
    int m = n;
    for (int p : {2, 3, 5})
      while (m % p == 0) m /= p;
    if (m == 1) return n;
  }
}

// FFTW's planner is not thread-safe; plans are made under one lock and executed on per-thread arrays.
std::mutex planner_mutex;

struct Plan {
  fftw_plan p = nullptr;
  explicit Plan(const Box& box) {
    std::lock_guard<std::mutex> lock(planner_mutex);
    std::vector<fftw_complex> tmp(box.size());
    p = fftw_plan_dft_3d(box.n[0], box.n[1], box.n[2], tmp.data(), tmp.data(), FFTW_BACKWARD, FFTW_ESTIMATE | FFTW_UNALIGNED);
    if (!p) throw Error("mtxel: FFTW could not plan a " + std::to_string(box.n[0]) + "x" + std::to_string(box.n[1]) + "x" +
                        std::to_string(box.n[2]) + " transform");
  }
  ~Plan() {
    std::lock_guard<std::mutex> lock(planner_mutex);
    fftw_destroy_plan(p);
  }
  void run(cplx* data) const {
    auto* d = reinterpret_cast<fftw_complex*>(data);
    fftw_execute_dft(p, d, d);
  }
};

// a(r) = sum_g a(g) e^{+i g.r} for each of n states, into [n][box].
void to_real_space(const Plan& plan, const Box& box, const cplx* coeff, std::size_t ng, const std::size_t* where, int n,
                   std::vector<cplx>& out) {
  if (out.size() < box.size() * n) out.resize(box.size() * n);
  // Nothing here throws (the FFT runs on memory already held).
#pragma omp parallel for schedule(static)
  for (int s = 0; s < n; ++s) {
    cplx* f = out.data() + box.size() * s;
    std::fill(f, f + box.size(), cplx());
    const cplx* c = coeff + ng * s;
    for (std::size_t i = 0; i < ng; ++i) f[where[i]] = c[i];
    plan.run(f);
  }
}

}  // namespace

Box fft_box_for(const int gw[3], const int gm[3]) {
  Box b;
  for (int i = 0; i < 3; ++i) b.n[i] = fft_friendly(2 * gw[i] + gm[i] + 1);
  return b;
}

// The buffers live as long as the engine: fresh multi-megabyte arrays per call cost page faults.
struct MtxelEngine::Cpu {
  explicit Cpu(const Box& box) : plan(box) {}
  Plan plan;
  std::vector<cplx> ar, br;
  std::vector<std::vector<cplx>> prod;  // one per thread
};

MtxelEngine::MtxelEngine(Backend backend, const Box& box, std::size_t device_budget) : backend_(backend), box_(box) {
  if (backend == Backend::Cuda) {
#if QUANTA_GW_CUDA
    cuda_.reset(make_mtxel_cuda(box, device_budget));
#else
    (void)device_budget;
    throw Error("mtxel: this build has no CUDA backend");
#endif
  } else {
    cpu_ = std::make_unique<Cpu>(box);
  }
}

MtxelEngine::~MtxelEngine() = default;

#if !QUANTA_GW_CUDA
void MtxelEngine::CudaDeleter::operator()(Cuda*) const {}
#endif

void MtxelEngine::run(const MtxelJob& job) {
  for (int i = 0; i < 3; ++i)
    if (job.box.n[i] != box_.n[i]) throw Error("mtxel: the job's FFT box differs from the engine's");
#if QUANTA_GW_CUDA
  if (cuda_) return mtxel_cuda(*cuda_, job);
#endif
  mtxel_cpu(*cpu_, job);
}

cplx* MtxelEngine::device_result() {
#if QUANTA_GW_CUDA
  if (cuda_) return mtxel_cuda_result(*cuda_);
#endif
  throw Error("mtxel: device_result() on an engine of the CPU backend");
}

void mtxel_cpu(MtxelEngine::Cpu& ws, const MtxelJob& job) {
  if (!job.m) throw Error("mtxel: the CPU backend needs an output array");
  const Box& box = job.box;
  const std::size_t N = box.size();
  const Plan& plan = ws.plan;
  auto& ar = ws.ar;
  auto& br = ws.br;
  to_real_space(plan, box, job.a, job.nga, job.where_a, job.na, ar);
  to_real_space(plan, box, job.b, job.ngb, job.where_b, job.nb, br);
  ws.prod.resize(omp_get_max_threads());
  for (auto& prod : ws.prod) prod.resize(N);  // here, not in the region: an allocation may throw
  const double inv_n = 1.0 / static_cast<double>(N);
  const long pairs = static_cast<long>(job.na) * job.nb;
#pragma omp parallel
  {
    auto& prod = ws.prod[omp_get_thread_num()];
#pragma omp for schedule(dynamic)
    for (long p = 0; p < pairs; ++p) {
      const int ia = static_cast<int>(p / job.nb), ib = static_cast<int>(p % job.nb);
      const cplx* fa = ar.data() + N * ia;
      const cplx* fb = br.data() + N * ib;
      for (std::size_t r = 0; r < N; ++r) prod[r] = conj(fa[r]) * fb[r];
      plan.run(prod.data());
      cplx* m = job.m + static_cast<std::size_t>(p) * job.ngout;
      for (int g = 0; g < job.ngout; ++g) m[g] = prod[job.where_out[g]] * inv_n;
    }
  }
}

}  // namespace quanta::gw::kernels
