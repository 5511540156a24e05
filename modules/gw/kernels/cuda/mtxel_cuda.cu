// MTXEL on the device: the states are scattered onto the FFT box and transformed by batched cuFFT
// (Z2Z, CUFFT_INVERSE = e^{+i g.r} and unnormalized, as FFTW_BACKWARD on the CPU), the products
// conj(a(r)) b(r) of one a state with a chunk of b states are transformed as one batch, and the output
// G are gathered and scaled by 1/N. Chunks: the a states of a chunk stay in real space while every b
// chunk passes; the sizes come from the engine's budget (mtxel.hpp).
#include <cufft.h>

#include <algorithm>
#include <map>
#include <string>

#include "../mtxel.hpp"
#include "quanta/core/buffer.hpp"
#include "quanta/core/cuda/check.cuh"
#include "quanta/core/error.hpp"

namespace quanta::gw::kernels {
namespace {

constexpr int kThreads = 256;

// f[s][where[i]] = c[s][i] for the n states of a chunk (f zeroed before).
__global__ void scatter_kernel(const cplx* __restrict__ c, std::size_t ng, const std::size_t* __restrict__ where, std::size_t box,
                               cplx* __restrict__ f) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  const std::size_t s = blockIdx.y;
  if (i < ng) f[s * box + where[i]] = c[s * ng + i];
}

// prod[j][r] = conj(a[r]) b[j][r].
__global__ void product_kernel(const cplx* __restrict__ a, const cplx* __restrict__ b, std::size_t box, cplx* __restrict__ prod) {
  const std::size_t r = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  const std::size_t j = blockIdx.y;
  if (r < box) prod[j * box + r] = conj(a[r]) * b[j * box + r];
}

// out[j][g] = prod[j][where[g]] / N.
__global__ void gather_kernel(const cplx* __restrict__ prod, std::size_t box, const std::size_t* __restrict__ where, int ngout,
                              double inv_n, cplx* __restrict__ out) {
  const int g = blockIdx.x * blockDim.x + threadIdx.x;
  const std::size_t j = blockIdx.y;
  if (g < ngout) out[j * ngout + g] = prod[j * box + where[g]] * inv_n;
}

unsigned blocks_for(std::size_t n) { return static_cast<unsigned>((n + kThreads - 1) / kThreads); }

}  // namespace

struct MtxelEngine::Cuda {
  Cuda(const Box& b, std::size_t budget_bytes) : box(b), budget(budget_bytes) {}
  ~Cuda() { drop_plans(); }
  void drop_plans() {
    for (auto& [n, h] : plans) cufftDestroy(h);
    plans.clear();
    work = DeviceBuffer<char>();
    m = DeviceBuffer<cplx>();
  }

  // A batched 3D plan of `batch` transforms; the plans share one work area, grown to the largest.
  cufftHandle plan(int batch) {
    auto it = plans.find(batch);
    if (it != plans.end()) return it->second;
    cufftHandle h;
    QUANTA_CUDA_LIB_CHECK("cuFFT", cufftCreate(&h));
    QUANTA_CUDA_LIB_CHECK("cuFFT", cufftSetAutoAllocation(h, 0));
    int n[3] = {box.n[0], box.n[1], box.n[2]};
    std::size_t work_bytes = 0;
    const cufftResult st = cufftMakePlanMany(h, 3, n, nullptr, 1, 0, nullptr, 1, 0, CUFFT_Z2Z, batch, &work_bytes);
    if (st != CUFFT_SUCCESS) {
      cufftDestroy(h);
      if (st == CUFFT_ALLOC_FAILED) throw OutOfDeviceMemory("mtxel: cuFFT could not plan " + std::to_string(batch) + " transforms");
      QUANTA_CUDA_LIB_CHECK("cuFFT", st);
    }
    if (work_bytes > work.bytes()) {
      work = DeviceBuffer<char>();
      work = DeviceBuffer<char>(work_bytes, "mtxel cuFFT work area");
      for (auto& [m, other] : plans) QUANTA_CUDA_LIB_CHECK("cuFFT", cufftSetWorkArea(other, work.data()));
    }
    QUANTA_CUDA_LIB_CHECK("cuFFT", cufftSetWorkArea(h, work.data()));
    plans.emplace(batch, h);
    return h;
  }

  void inverse(int batch, cplx* data) {
    auto* d = reinterpret_cast<cufftDoubleComplex*>(data);
    QUANTA_CUDA_LIB_CHECK("cuFFT", cufftExecZ2Z(plan(batch), d, d, CUFFT_INVERSE));
  }

  // The chunk sizes for a job: a quarter of the budget for the a states in real space, the rest for b
  // chunks (each b state: itself and its product in real space, its outputs, and about as much again of
  // cuFFT work area).
  // The output is resident; the chunks share what is left.
  void plan_chunks(const MtxelJob& job) {
    const std::size_t state = box.size() * sizeof(cplx);
    const std::size_t out_bytes = mtxel_output_bytes(job.na, job.nb, job.ngout);
    const std::size_t left = budget > out_bytes ? budget - out_bytes : 0;
    // Chunks are a grid's y dimension in the kernels below: at most 65535.
    na_chunk = static_cast<int>(std::clamp<std::size_t>(left / 4 / (state + job.nga * sizeof(cplx)), 1, std::min(job.na, 65535)));
    const std::size_t a_bytes = static_cast<std::size_t>(na_chunk) * (state + job.nga * sizeof(cplx));
    const std::size_t per_b = 3 * state + job.ngb * sizeof(cplx);
    const std::size_t rest = left > a_bytes ? left - a_bytes : 0;
    nb_chunk = static_cast<int>(std::min<std::size_t>(rest / per_b, std::min(job.nb, 65535)));
    if (nb_chunk < 1)
      throw OutOfDeviceMemory("mtxel: a device budget of " + std::to_string(budget >> 20) + " MiB cannot hold the " +
                              std::to_string(out_bytes >> 20) + " MiB of matrix elements and one state pair on the " + std::to_string(box.n[0]) +
                              "x" + std::to_string(box.n[1]) + "x" + std::to_string(box.n[2]) + " FFT box");
  }

  Box box;
  std::size_t budget;
  int na_chunk = 0, nb_chunk = 0;
  std::map<int, cufftHandle> plans;
  DeviceBuffer<char> work;
  DeviceBuffer<cplx> m;  // the last job's output
};

void MtxelEngine::CudaDeleter::operator()(Cuda* p) const { delete p; }

MtxelEngine::Cuda* make_mtxel_cuda(const Box& box, std::size_t device_budget) {
  const std::size_t budget = device_budget ? device_budget : GpuMemoryBudget{}.usable_bytes();
  return new MtxelEngine::Cuda(box, budget);
}

namespace {

void run_chunks(MtxelEngine::Cuda& ws, const MtxelJob& job) {
  const std::size_t N = ws.box.size();
  ws.plan_chunks(job);
  const int nac = ws.na_chunk, nbc = ws.nb_chunk;
  DeviceBuffer<std::size_t> where_a(std::span<const std::size_t>(job.where_a, job.nga), "mtxel where_a");
  DeviceBuffer<std::size_t> where_b(std::span<const std::size_t>(job.where_b, job.ngb), "mtxel where_b");
  DeviceBuffer<std::size_t> where_out(std::span<const std::size_t>(job.where_out, job.ngout), "mtxel where_out");
  DeviceBuffer<cplx> a_coeff(static_cast<std::size_t>(nac) * job.nga, "mtxel a coefficients");
  DeviceBuffer<cplx> b_coeff(static_cast<std::size_t>(nbc) * job.ngb, "mtxel b coefficients");
  DeviceBuffer<cplx> ar(static_cast<std::size_t>(nac) * N, "mtxel a states");
  DeviceBuffer<cplx> br(static_cast<std::size_t>(nbc) * N, "mtxel b states");
  DeviceBuffer<cplx> prod(static_cast<std::size_t>(nbc) * N, "mtxel products");
  const std::size_t out_size = static_cast<std::size_t>(job.na) * job.nb * job.ngout;
  if (ws.m.size() < out_size) {
    ws.m = DeviceBuffer<cplx>();
    ws.m = DeviceBuffer<cplx>(out_size, "mtxel output");
  }
  const double inv_n = 1.0 / static_cast<double>(N);

  // Scatters n states' coefficients (host) onto the box and transforms them to real space.
  auto to_real_space = [&](const cplx* host, std::size_t ng, const DeviceBuffer<std::size_t>& where, int n, DeviceBuffer<cplx>& coeff,
                           DeviceBuffer<cplx>& f) {
    QUANTA_CUDA_CHECK(cudaMemcpy(coeff.data(), host, static_cast<std::size_t>(n) * ng * sizeof(cplx), cudaMemcpyHostToDevice));
    QUANTA_CUDA_CHECK(cudaMemset(f.data(), 0, static_cast<std::size_t>(n) * N * sizeof(cplx)));
    scatter_kernel<<<dim3(blocks_for(ng), n), kThreads>>>(coeff.data(), ng, where.data(), N, f.data());
    QUANTA_CUDA_LAUNCH_CHECK("mtxel scatter_kernel");
    ws.inverse(n, f.data());
  };

  for (int a0 = 0; a0 < job.na; a0 += nac) {
    const int na = std::min(nac, job.na - a0);
    to_real_space(job.a + static_cast<std::size_t>(a0) * job.nga, job.nga, where_a, na, a_coeff, ar);
    for (int b0 = 0; b0 < job.nb; b0 += nbc) {
      const int nb = std::min(nbc, job.nb - b0);
      to_real_space(job.b + static_cast<std::size_t>(b0) * job.ngb, job.ngb, where_b, nb, b_coeff, br);
      for (int ia = 0; ia < na; ++ia) {
        product_kernel<<<dim3(blocks_for(N), nb), kThreads>>>(ar.data() + ia * N, br.data(), N, prod.data());
        QUANTA_CUDA_LAUNCH_CHECK("mtxel product_kernel");
        ws.inverse(nb, prod.data());
        cplx* m = ws.m.data() + (static_cast<std::size_t>(a0 + ia) * job.nb + b0) * job.ngout;
        gather_kernel<<<dim3(blocks_for(job.ngout), nb), kThreads>>>(prod.data(), N, where_out.data(), job.ngout, inv_n, m);
        QUANTA_CUDA_LAUNCH_CHECK("mtxel gather_kernel");
      }
    }
  }
  // Synchronous either way, so that the callers' stage timings are the device's.
  if (job.m) QUANTA_CUDA_CHECK(cudaMemcpy(job.m, ws.m.data(), out_size * sizeof(cplx), cudaMemcpyDeviceToHost));
  else QUANTA_CUDA_CHECK(cudaDeviceSynchronize());
}

}  // namespace

// When the device runs out of memory anyway (the budget is a plan made from the free memory at the
// start; other work may take some since), the job is run again with half the budget: the outputs are
// overwritten, never accumulated, so a repeat is safe.
cplx* mtxel_cuda_result(MtxelEngine::Cuda& ws) { return ws.m.data(); }

void mtxel_cuda(MtxelEngine::Cuda& ws, const MtxelJob& job) {
  if (job.na == 0 || job.nb == 0 || job.ngout == 0) return;
  for (;;) {
    try {
      return run_chunks(ws, job);
    } catch (const OutOfDeviceMemory&) {
      if (ws.na_chunk == 1 && ws.nb_chunk == 1) throw;
      ws.budget /= 2;
      ws.drop_plans();
    }
  }
}

}  // namespace quanta::gw::kernels
