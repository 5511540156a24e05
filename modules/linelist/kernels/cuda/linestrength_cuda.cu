// CUDA engine: the dipole matrices, the lower states and their half-linestrengths stay on the device;
// the matrix products run in cuBLAS (FP64 tensor cores on sm_80+), the rotational reduction and the
// seed's cache-and-reduce kernel are below. When the stacked dipole does not fit the memory budget it
// is split into p column blocks by v and streamed through one staging buffer (the seed's blocked CR).
#include <cublas_v2.h>

#include <algorithm>
#include <map>

#include "../linestrength.hpp"
#include "quanta/core/buffer.hpp"
#include "quanta/core/cuda/check.cuh"
#include "quanta/core/error.hpp"

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

class CudaEngine final : public LinestrengthEngine {
 public:
  CudaEngine(const DipoleMatrices& d, const EngineOptions& o) : n_(d.n), method_(o.method), host_stacked_(stacked_dipole(d)) {
    check_cublas(cublasCreate(&blas_), "cublasCreate");
    const std::size_t dipole_bytes = host_stacked_.size() * sizeof(double);
    budget_ = o.memory_limit_bytes;
    blocks_ = o.dipole_blocks > 0 ? o.dipole_blocks
                                  : (budget_ == 0 || dipole_bytes <= budget_ / 2 ? 1 : int((dipole_bytes + budget_ / 4 - 1) / (budget_ / 4)));
    blocks_ = std::min(blocks_, n_);
    block_cols_ = (n_ + blocks_ - 1) / blocks_;
    if (blocks_ == 1) {
      dipole_ = DeviceBuffer<double>(std::span<const double>(host_stacked_), "stacked dipole matrices");
    } else {
      dipole_ = DeviceBuffer<double>(std::size_t(block_cols_) * 3 * n_, "dipole staging block");
      pinned_ = PinnedHost(host_stacked_.data(), dipole_bytes);
    }
    used_ = dipole_.bytes();
  }
  ~CudaEngine() override { cublasDestroy(blas_); }

  void set_lower(const double* c, int nstates, int nrot) override {
    ns_ = nstates;
    nrot_ = nrot;
    ensure(lower_, std::size_t(ns_) * nrot_ * n_, "lower-state coefficients");
    lower_.upload(std::span<const double>(c, std::size_t(ns_) * nrot_ * n_));
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

  void completions(int key, const double* upper, int nupper, double* amp) override {
    if (nupper == 0 || ns_ == 0) return;
    const int dim = nrot_up_ * n_;
    const std::size_t vec_bytes = std::size_t(dim) * sizeof(double);
    ensure(amplitudes_, std::size_t(ns_) * nupper, "amplitudes");
    auto it = uppers_.find(key);
    if (it == uppers_.end() && fits(std::size_t(nupper) * vec_bytes)) {
      it = uppers_.emplace(key, DeviceBuffer<double>(std::span<const double>(upper, std::size_t(nupper) * dim), "upper-state vectors")).first;
      used_ += it->second.bytes();
    }
    const double one = 1.0, zero = 0.0;
    if (it != uppers_.end()) {
      check_cublas(cublasDgemm(blas_, CUBLAS_OP_T, CUBLAS_OP_N, nupper, ns_, dim, &one, it->second.data(), dim, half_.data(), dim, &zero,
                               amplitudes_.data(), nupper), "cublasDgemm (completion)");
    } else {
      // Upper vectors streamed in chunks through one buffer: amplitudes of chunk [f0, f0 + m) land in
      // columns f0.. of the ns x nupper result (leading dimension nupper).
      const int chunk = std::max(1, int(std::min<std::size_t>(nupper, (budget_ > used_ ? (budget_ - used_) / 2 : vec_bytes) / vec_bytes)));
      ensure(stream_, std::size_t(chunk) * dim, "upper-state chunk");
      for (int f0 = 0; f0 < nupper; f0 += chunk) {
        const int m = std::min(chunk, nupper - f0);
        stream_.upload(std::span<const double>(upper + std::size_t(f0) * dim, std::size_t(m) * dim));
        check_cublas(cublasDgemm(blas_, CUBLAS_OP_T, CUBLAS_OP_N, m, ns_, dim, &one, stream_.data(), dim, half_.data(), dim, &zero,
                                 amplitudes_.data() + f0, nupper), "cublasDgemm (completion, streamed)");
      }
    }
    amplitudes_.download(std::span<double>(amp, std::size_t(ns_) * nupper));
  }

  void synchronize() override { QUANTA_CUDA_CHECK(cudaDeviceSynchronize()); }

  std::string description() const override {
    return "CUDA (" + to_string(method_) + (blocks_ > 1 ? ", dipole in " + std::to_string(blocks_) + " blocks" : std::string()) + ")";
  }

 private:
  bool fits(std::size_t bytes) const { return budget_ == 0 || used_ + bytes <= budget_; }

  void ensure(DeviceBuffer<double>& b, std::size_t n, const char* what) {
    if (b.size() >= n) return;
    used_ -= b.bytes();
    b = DeviceBuffer<double>();
    b = DeviceBuffer<double>(n, what);
    used_ += b.bytes();
  }

  // The coupling's arrays into buffers that grow only when needed (no allocation per call).
  template <class T>
  static void upload_into(DeviceBuffer<T>& b, const std::vector<T>& v, const char* what) {
    if (b.size() < v.size()) b = DeviceBuffer<T>(v.size(), what);
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

  void half_gemm() {
    const int cols = ns_ * nrot_;
    if (!have_products_) {
      ensure(products_, std::size_t(3) * n_ * cols, "dipole products");
      for (int b = 0; b < blocks_; ++b) {
        int v0, nb;
        const double* mu = dipole_block(b, v0, nb);
        const double one = 1.0, beta = b == 0 ? 0.0 : 1.0;
        check_cublas(cublasDgemm(blas_, CUBLAS_OP_N, CUBLAS_OP_N, 3 * n_, cols, nb, &one, mu, 3 * n_, lower_.data() + v0, n_, &beta,
                                 products_.data(), 3 * n_), "cublasDgemm (dipole products)");
      }
      have_products_ = true;
    }
    if (nnz_ == 0) {
      half_.zero();
      return;
    }
    const dim3 grid((n_ + kThreads - 1) / kThreads, nrot_up_, ns_);
    rotational_reduction_kernel<<<grid, kThreads>>>(products_.data(), first_.data(), rot_lower_.data(), component_.data(),
                                                    factor_.data(), n_, nrot_, nrot_up_, half_.data());
    QUANTA_CUDA_LAUNCH_CHECK("rotational_reduction_kernel");
  }

  void half_cache_reduce() {
    half_.zero();
    if (nnz_ == 0) return;
    for (int b = 0; b < blocks_; ++b) {
      int v0, nb;
      const double* mu = dipole_block(b, v0, nb);
      for (int s = 0; s < ns_; ++s) {
        const dim3 grid((n_ + kThreads - 1) / kThreads, nrot_up_);
        cache_reduce_kernel<<<grid, kThreads>>>(mu, lower_.data() + std::size_t(s) * nrot_ * n_, first_.data(), rot_lower_.data(),
                                                component_.data(), factor_.data(), n_, v0, nb,
                                                half_.data() + std::size_t(s) * nrot_up_ * n_);
        QUANTA_CUDA_LAUNCH_CHECK("cache_reduce_kernel");
      }
    }
  }

  int n_;
  Method method_;
  cublasHandle_t blas_ = nullptr;
  std::vector<double> host_stacked_;  // [n][3n] column-major
  PinnedHost pinned_;
  DeviceBuffer<double> dipole_, lower_, products_, half_, amplitudes_, stream_, factor_;
  DeviceBuffer<int> first_, rot_lower_, component_;
  std::map<int, DeviceBuffer<double>> uppers_;
  std::size_t budget_ = 0, used_ = 0, nnz_ = 0;
  int blocks_ = 1, block_cols_ = 0;
  int ns_ = 0, nrot_ = 0, nrot_up_ = 0;
  bool have_products_ = false;
};

}  // namespace

std::unique_ptr<LinestrengthEngine> make_cuda_engine(const DipoleMatrices& dipole, const EngineOptions& options) {
  return std::make_unique<CudaEngine>(dipole, options);
}

}  // namespace quanta::linelist
