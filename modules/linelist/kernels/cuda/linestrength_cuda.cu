// CUDA engine: the dipole matrices, the lower states and their half-linestrengths stay on the device;
// the matrix products run in cuBLAS (FP64 tensor cores on sm_80+), the rotational reduction and the
// seed's cache-and-reduce kernel are below. When the stacked dipole does not fit the memory budget it
// is split into p column blocks by v and streamed through one staging buffer (the seed's blocked CR).
#include <cublas_v2.h>

#include <algorithm>

#include "../linestrength.hpp"
#include "quanta/core/buffer.hpp"
#include "quanta/core/cuda/check.cuh"
#include "quanta/core/error.hpp"
#include "quanta/core/timer.hpp"

namespace quanta::linelist {
namespace {

constexpr int kThreads = 256;

// h[s][r'][v] = sum_j T_j P[s][r_j][a_j][v] (Gemm method, after P = [mu_x; mu_y; mu_z] C).
__global__ void rotational_reduction_kernel(const double* __restrict__ products,  // [ns][nrot][3][n]
                                            const int* __restrict__ first,        // [nrot' + 1]
                                            const int* __restrict__ rot_lower,    // [nnz]
                                            const int* __restrict__ component,    // [nnz]
                                            const double* __restrict__ factor,    // [nnz]
                                            int n, int nrot, int nrot_up,
                                            double* __restrict__ half) {          // [ns][nrot'][n]
  const int v = blockIdx.x * blockDim.x + threadIdx.x;
  const int rf = blockIdx.y, s = blockIdx.z;
  if (v >= n) return;
  double acc = 0;
  for (int j = first[rf]; j < first[rf + 1]; ++j)
    acc += factor[j] * products[((static_cast<size_t>(s) * nrot + rot_lower[j]) * 3 + component[j]) * n + v];
  half[(static_cast<size_t>(s) * nrot_up + rf) * n + v] = acc;
}

// The seed's Cache-and-Reduce kernel (eqs. 18-19) for one lower state and the dipole columns
// v0 .. v0+nb-1: a block per (upper rotational function r', 256 upper v'); for each lower block r it
// couples to, the block's coefficients are cached in shared memory tile by tile and every thread reads
// its dipole row coalesced (the matrices are symmetric, so row v' is read as column v'); the K terms of
// the (r, component) pairs are reduced into h (accumulated over dipole blocks).
__global__ void cache_reduce_kernel(const double* __restrict__ mu,       // [nb][3][n]: column block of the stacked dipole
                                    const double* __restrict__ coeff,    // [nrot][n] the lower state
                                    const int* __restrict__ first, const int* __restrict__ rot_lower,
                                    const int* __restrict__ component, const double* __restrict__ factor,
                                    int n, int v0, int nb, double* __restrict__ half) {  // [nrot'][n]
  __shared__ double cache[kThreads];
  const int vf = blockIdx.x * blockDim.x + threadIdx.x;
  const int rf = blockIdx.y;
  double acc = 0;
  for (int j = first[rf]; j < first[rf + 1]; ++j) {
    const double* c = coeff + static_cast<size_t>(rot_lower[j]) * n + v0;
    const double* m = mu + static_cast<size_t>(component[j]) * n + vf;
    double k = 0;
    for (int t0 = 0; t0 < nb; t0 += kThreads) {
      const int len = min(kThreads, nb - t0);
      __syncthreads();
      if (threadIdx.x < len) cache[threadIdx.x] = c[t0 + threadIdx.x];
      __syncthreads();
      if (vf < n)
        for (int t = 0; t < len; ++t) k += m[static_cast<size_t>(t0 + t) * 3 * n] * cache[t];
    }
    acc += factor[j] * k;
  }
  if (vf < n) half[static_cast<size_t>(rf) * n + vf] += acc;
}

void check_cublas(cublasStatus_t st, const char* call) {
  if (st != CUBLAS_STATUS_SUCCESS) ::quanta::cuda::throw_library_error("cuBLAS", static_cast<int>(st), call, __FILE__, __LINE__);
}

// A host array allocated page-locked (cudaMallocHost) so that asynchronous copies to and from it
// overlap device work; plain memory when the system refuses (the copies then stay pageable).
class PinnedArray {
 public:
  PinnedArray() = default;
  PinnedArray(const PinnedArray&) = delete;
  PinnedArray& operator=(const PinnedArray&) = delete;
  ~PinnedArray() { release(); }
  double* ensure(std::size_t n) {
    if (n <= size_) return data_;
    release();
    if (cudaMallocHost(reinterpret_cast<void**>(&data_), n * sizeof(double)) == cudaSuccess) {
      pinned_ = true;
    } else {
      cudaGetLastError();
      data_ = new double[n];
      pinned_ = false;
    }
    size_ = n;
    return data_;
  }
  double* data() { return data_; }
  bool pinned() const { return pinned_; }

 private:
  void release() {
    if (!data_) return;
    if (pinned_) cudaFreeHost(data_);
    else delete[] data_;
    data_ = nullptr;
    size_ = 0;
  }
  double* data_ = nullptr;
  std::size_t size_ = 0;
  bool pinned_ = false;
};

template <class T>
void ensure(DeviceBuffer<T>& b, std::size_t n, const char* what) {
  if (b.size() >= n) return;
  b = DeviceBuffer<T>();
  b = DeviceBuffer<T>(n, what);
}

// One completion slot: its stream and cuBLAS handle, the upper chunk and the amplitudes on both sides.
// The streams are blocking ones, so work on the legacy default stream (the half-linestrengths, plain
// copies) is ordered against them.
struct Slot {
  cudaStream_t stream = nullptr;
  cublasHandle_t blas = nullptr;
  PinnedArray upper_host, amp_host;
  DeviceBuffer<double> upper, amp;
  std::size_t upper_host_size = 0;
  bool upper_host_pinned = false;
  // EngineOptions::timeline: events before the upload and after the upload, product and download; the
  // pending record (filled when the slot is finished).
  cudaEvent_t marks[4] = {};
  ChunkTimes pending;
  bool recorded = false;
};

class CudaEngine final : public LinestrengthEngine {
 public:
  CudaEngine(const DipoleMatrices& d, const EngineOptions& o)
      : n_(d.n), method_(o.method), options_(o), host_stacked_(stacked_dipole(d)) {
    check_cublas(cublasCreate(&blas_), "cublasCreate");
    for (Slot& s : slots_) {
      QUANTA_CUDA_CHECK(cudaStreamCreate(&s.stream));
      check_cublas(cublasCreate(&s.blas), "cublasCreate");
      check_cublas(cublasSetStream(s.blas, s.stream), "cublasSetStream");
      if (o.timeline)
        for (cudaEvent_t& e : s.marks) QUANTA_CUDA_CHECK(cudaEventCreate(&e));
    }
    if (o.timeline) QUANTA_CUDA_CHECK(cudaEventCreate(&origin_));
    budget_ = o.memory_limit_bytes;
    if (budget_ == 0) {
      std::size_t free = 0, total = 0;
      QUANTA_CUDA_CHECK(cudaMemGetInfo(&free, &total));
      budget_ = free / 10 * 9;  // room for the libraries' workspaces
    }
    const std::size_t dipole_bytes = host_stacked_.size() * sizeof(double);
    blocks_ = o.dipole_blocks > 0 ? o.dipole_blocks : (dipole_bytes <= budget_ / 2 ? 1 : int((dipole_bytes + budget_ / 4 - 1) / (budget_ / 4)));
    blocks_ = std::min(blocks_, n_);
    block_cols_ = (n_ + blocks_ - 1) / blocks_;
    if (blocks_ == 1) {
      dipole_ = DeviceBuffer<double>(std::span<const double>(host_stacked_), "stacked dipole matrices");
    } else {
      dipole_ = DeviceBuffer<double>(std::size_t(block_cols_) * 3 * n_, "dipole staging block");
      pinned_ = PinnedHost(host_stacked_.data(), dipole_bytes);
    }
  }
  ~CudaEngine() override {
    cudaDeviceSynchronize();
    for (Slot& s : slots_) {
      for (cudaEvent_t e : s.marks)
        if (e) cudaEventDestroy(e);
      cublasDestroy(s.blas);
      cudaStreamDestroy(s.stream);
    }
    if (origin_) cudaEventDestroy(origin_);
    cublasDestroy(blas_);
  }

  // The budget less the dipole and the product sub-batch (plan_within shares the rest).
  EnginePlan plan(std::size_t dim_lower, std::size_t dim_upper) const override {
    const std::size_t taken = dipole_.bytes() + product_states(dim_lower, 1 << 30) * 4 * dim_lower * sizeof(double);
    return plan_within(budget_ > taken ? budget_ - taken : 0, 0, dim_upper, options_);
  }

  void set_lower(std::vector<double> c, int nstates, int nrot) override {
    ns_ = nstates;
    nrot_ = nrot;
    lower_pin_ = PinnedHost();
    lower_host_ = std::move(c);
    lower_pin_ = PinnedHost(lower_host_.data(), lower_host_.size() * sizeof(double));
    sub_ = product_states(std::size_t(nrot_) * n_, ns_);
    have_products_ = false;
  }

  void half_linestrengths(const RotationalCoupling& rc) override {
    nrot_up_ = rc.nrot_upper;
    ensure(half_, std::size_t(ns_) * nrot_up_ * n_, "half-linestrengths");
    upload_coupling(rc);
    if (method_ == Method::Gemm) half_gemm();
    else half_cache_reduce();
  }

  std::vector<double> half_linestrengths_host() const override {
    std::vector<double> h(std::size_t(ns_) * nrot_up_ * n_);
    half_.download(h);
    return h;
  }

  double* upper_buffer(int slot, std::size_t count) override {
    Slot& s = slots_[slot];
    double* p = s.upper_host.ensure(count);
    s.upper_host_size = std::max(s.upper_host_size, count);
    s.upper_host_pinned = s.upper_host.pinned();
    return p;
  }

  // Chunk up, product, amplitudes down, all queued on the slot's stream.
  void start_completions(int slot, int nupper) override {
    Slot& s = slots_[slot];
    if (nupper == 0 || ns_ == 0) return;
    const std::size_t dim = upper_dim();
    ensure(s.upper, std::size_t(nupper) * dim, "upper-state chunk");
    ensure(s.amp, std::size_t(ns_) * nupper, "amplitudes");
    double* amp_host = s.amp_host.ensure(std::size_t(ns_) * nupper);
    const bool timed = options_.timeline;
    if (timed) {
      if (!clock_started_) {
        QUANTA_CUDA_CHECK(cudaEventRecord(origin_, s.stream));
        clock_.reset();
        clock_started_ = true;
      }
      s.pending = ChunkTimes{};
      s.pending.slot = slot;
      s.pending.queued = clock_.seconds();
      QUANTA_CUDA_CHECK(cudaEventRecord(s.marks[0], s.stream));
    }
    QUANTA_CUDA_CHECK(cudaMemcpyAsync(s.upper.data(), s.upper_host.data(), std::size_t(nupper) * dim * sizeof(double),
                                      cudaMemcpyHostToDevice, s.stream));
    if (timed) QUANTA_CUDA_CHECK(cudaEventRecord(s.marks[1], s.stream));
    const double one = 1.0, zero = 0.0;
    check_cublas(cublasDgemm(s.blas, CUBLAS_OP_T, CUBLAS_OP_N, nupper, ns_, int(dim), &one, s.upper.data(), int(dim), half_.data(),
                             int(dim), &zero, s.amp.data(), nupper), "cublasDgemm (completion)");
    if (timed) QUANTA_CUDA_CHECK(cudaEventRecord(s.marks[2], s.stream));
    QUANTA_CUDA_CHECK(cudaMemcpyAsync(amp_host, s.amp.data(), std::size_t(ns_) * nupper * sizeof(double), cudaMemcpyDeviceToHost, s.stream));
    if (timed) {
      QUANTA_CUDA_CHECK(cudaEventRecord(s.marks[3], s.stream));
      s.recorded = true;
    }
  }

  const double* finish_completions(int slot) override {
    Slot& s = slots_[slot];
    QUANTA_CUDA_CHECK(cudaStreamSynchronize(s.stream));
    if (s.recorded) {
      QUANTA_CUDA_CHECK(cudaEventSynchronize(origin_));  // recorded on the first chunk's stream, maybe not this one
      double* at[4] = {&s.pending.stream_start, &s.pending.upload_end, &s.pending.product_end, &s.pending.download_end};
      for (int i = 0; i < 4; ++i) {
        float ms = 0;
        QUANTA_CUDA_CHECK(cudaEventElapsedTime(&ms, origin_, s.marks[i]));
        *at[i] = ms / 1e3;
      }
      timeline_.push_back(s.pending);
      s.recorded = false;
    }
    return s.amp_host.data();
  }

  std::vector<ChunkTimes> timeline() const override { return timeline_; }

  int lower_states() const override { return ns_; }
  std::size_t upper_dim() const override { return std::size_t(nrot_up_) * n_; }
  void synchronize() override { QUANTA_CUDA_CHECK(cudaDeviceSynchronize()); }

  std::string description() const override {
    std::string d = "CUDA (" + to_string(method_) + (blocks_ > 1 ? ", dipole in " + std::to_string(blocks_) + " blocks" : std::string());
    for (const Slot& s : slots_)
      if (s.upper_host_size > 0 && !s.upper_host_pinned) d += ", upper chunks pageable";
    return d + ")";
  }

 private:
  // Lower states whose coefficients and dipole products are on the device at once: an eighth of the budget.
  int product_states(std::size_t dim_lower, int nstates) const {
    return int(std::clamp<std::size_t>(budget_ / 8 / (4 * dim_lower * sizeof(double)), 1, std::max(nstates, 1)));
  }

  // The coupling's arrays into buffers that grow only when needed (no allocation per call).
  template <class T>
  static void upload_into(DeviceBuffer<T>& b, const std::vector<T>& v, const char* what) {
    ensure(b, v.size(), what);
    b.upload(v);
  }
  void upload_coupling(const RotationalCoupling& rc) {
    nnz_ = rc.rot_lower.size();
    upload_into(first_, rc.first, "coupling offsets");
    upload_into(rot_lower_, rc.rot_lower, "coupling blocks");
    upload_into(component_, rc.component, "coupling components");
    upload_into(factor_, rc.factor, "coupling factors");
  }

  // Dipole block b: columns v0 .. v0+nb-1 of the stacked matrix, on the device.
  const double* dipole_block(int b, int& v0, int& nb) {
    v0 = b * block_cols_;
    nb = std::min(block_cols_, n_ - v0);
    if (blocks_ > 1)
      device::copy_to_device(dipole_.data(), host_stacked_.data() + std::size_t(v0) * 3 * n_, std::size_t(nb) * 3 * n_ * sizeof(double));
    return dipole_.data();
  }

  // Coefficients of lower states s0 .. s0+m-1 to the device.
  void upload_lower(int s0, int m) {
    const std::size_t dim = std::size_t(nrot_) * n_;
    ensure(lower_, std::size_t(sub_) * dim, "lower-state coefficients");
    device::copy_to_device(lower_.data(), lower_host_.data() + std::size_t(s0) * dim, std::size_t(m) * dim * sizeof(double));
  }

  // P = [mu_x; mu_y; mu_z] C for a sub-batch of lower states (kept across J' when one sub-batch holds
  // them all), then the rotational reduction into h.
  void half_gemm() {
    ensure(products_, std::size_t(3) * n_ * nrot_ * sub_, "dipole products");
    for (int s0 = 0; s0 < ns_; s0 += sub_) {
      const int m = std::min(sub_, ns_ - s0);
      if (!have_products_) {
        upload_lower(s0, m);
        for (int b = 0; b < blocks_; ++b) {
          int v0, nb;
          const double* mu = dipole_block(b, v0, nb);
          const double one = 1.0, beta = b == 0 ? 0.0 : 1.0;
          check_cublas(cublasDgemm(blas_, CUBLAS_OP_N, CUBLAS_OP_N, 3 * n_, m * nrot_, nb, &one, mu, 3 * n_, lower_.data() + v0, n_, &beta,
                                   products_.data(), 3 * n_), "cublasDgemm (dipole products)");
        }
      }
      double* half = half_.data() + std::size_t(s0) * nrot_up_ * n_;
      if (nnz_ == 0) {
        device::fill_zero(half, std::size_t(m) * nrot_up_ * n_ * sizeof(double));
        continue;
      }
      const dim3 grid((n_ + kThreads - 1) / kThreads, nrot_up_, m);
      rotational_reduction_kernel<<<grid, kThreads>>>(products_.data(), first_.data(), rot_lower_.data(), component_.data(),
                                                      factor_.data(), n_, nrot_, nrot_up_, half);
      QUANTA_CUDA_LAUNCH_CHECK("rotational_reduction_kernel");
    }
    have_products_ = sub_ >= ns_;
  }

  void half_cache_reduce() {
    half_.zero();
    if (nnz_ == 0) return;
    for (int s0 = 0; s0 < ns_; s0 += sub_) {
      const int m = std::min(sub_, ns_ - s0);
      upload_lower(s0, m);
      for (int b = 0; b < blocks_; ++b) {
        int v0, nb;
        const double* mu = dipole_block(b, v0, nb);
        for (int s = 0; s < m; ++s) {
          const dim3 grid((n_ + kThreads - 1) / kThreads, nrot_up_);
          cache_reduce_kernel<<<grid, kThreads>>>(mu, lower_.data() + std::size_t(s) * nrot_ * n_, first_.data(), rot_lower_.data(),
                                                  component_.data(), factor_.data(), n_, v0, nb,
                                                  half_.data() + std::size_t(s0 + s) * nrot_up_ * n_);
          QUANTA_CUDA_LAUNCH_CHECK("cache_reduce_kernel");
        }
      }
    }
  }

  int n_;
  Method method_;
  EngineOptions options_;
  cublasHandle_t blas_ = nullptr;
  std::vector<double> host_stacked_;  // [n][3n] column-major
  PinnedHost pinned_;
  DeviceBuffer<double> dipole_, lower_, products_, half_, factor_;
  DeviceBuffer<int> first_, rot_lower_, component_;
  Slot slots_[2];
  std::vector<double> lower_host_;  // [ns][nrot][n]
  PinnedHost lower_pin_;            // declared after lower_host_: unpinned before it is freed
  std::size_t budget_ = 0, nnz_ = 0;
  int blocks_ = 1, block_cols_ = 0;
  int ns_ = 0, nrot_ = 0, nrot_up_ = 0, sub_ = 1;
  bool have_products_ = false;
  // EngineOptions::timeline: the device event and host clock of the first start_completions, and the records.
  cudaEvent_t origin_ = nullptr;
  WallTimer clock_;
  bool clock_started_ = false;
  std::vector<ChunkTimes> timeline_;
};

}  // namespace

std::unique_ptr<LinestrengthEngine> make_cuda_engine(const DipoleMatrices& dipole, const EngineOptions& options) {
  return std::make_unique<CudaEngine>(dipole, options);
}

}  // namespace quanta::linelist
