// The device-resident state of a kbe propagation and the order of launches of one corrector pass
// (kernels/cuda_propagation.hpp). Every array is taken in the constructor; a pass allocates nothing.
#include <algorithm>

#include "../cuda_propagation.hpp"
#include "launch.cuh"
#include "quanta/core/buffer.hpp"
#include "quanta/core/cuda/check.cuh"
#include "quanta/core/error.hpp"

namespace quanta::kbe::kernels {

struct DevicePropagation::Impl {
  int nk = 0, ntimes = 0;
  SelfEnergyMethod method = SelfEnergyMethod::Fft;
  std::vector<double> u_host;
  // The self-energy's shape: se_batch time pairs of se_nk k-points. Single process: a whole row of the
  // half-plane (se_nk = nk, se_batch = ntimes); k-split: the pairs this rank computes, with every k.
  int se_nk = 0, se_batch = 0;
  bool split = false;
  // The half-plane, with `ntimes` spare blocks at the end: the FFT plan reads a fixed batch of blocks from
  // the start of any row, and the blocks past the row are read but not used.
  DeviceBuffer<cplx> g_less, g_greater;
  DeviceBuffer<cplx> sigma_less, sigma_greater;        // [ntimes][4][nk]
  DeviceBuffer<cplx> pair_g_less, pair_g_greater;      // k-split: [se_batch][4][se_nk] input pairs
  DeviceBuffer<cplx> pair_sigma_less, pair_sigma_greater;  // k-split: their Sigma
  DeviceBuffer<cplx> stage;                            // k-split: pieces in rank order, [se_batch][4][se_nk]
  DeviceBuffer<cplx> sites_less, sites_greater;        // FFT scratch [se_batch][4][se_nk]
  DeviceBuffer<cplx> pol;                              // direct: [se_batch][2][4][se_nk]
  DeviceBuffer<cplx> i_prev_less, i_prev_greater, i_cur_less, i_cur_greater;  // [ntimes][4][nk]
  DeviceBuffer<M2> h_mid;                              // [nk]
  DeviceBuffer<double> u_grid, block_max, change;
  cufftHandle plan = 0;
  bool have_plan = false;
  int device = 0;                    // the device of this propagation, for calls from other threads
  cudaStream_t side = nullptr;       // checkpoint copies: does not wait for the launches on the default stream

  std::size_t bs() const { return block_size(nk); }
  // Sigma<> of `count` pairs whose G<> start at gl, gg (a batch of the plan's shape), U(t'_l) from u_tp.
  void self_energy_batch(int count, const cplx* gl, const cplx* gg, double u_t, const double* u_tp, cplx* sigma_l, cplx* sigma_g) {
    if (method == SelfEnergyMethod::Fft)
      self_energy_fft_cuda(plan, se_nk, count, gl, gg, u_t, u_tp, sites_less.data(), sites_greater.data(), sigma_l, sigma_g);
    else
      self_energy_direct_cuda(se_nk, count, gl, gg, u_t, u_tp, pol.data(), sigma_l, sigma_g);
  }
  ~Impl() {
    if (have_plan) cufftDestroy(plan);
    if (side) cudaStreamDestroy(side);
  }
};

DevicePropagation::DevicePropagation(int nk, int ntimes, SelfEnergyMethod method, const std::vector<double>& u_grid,
                                     int pair_nk, int pair_batch)
    : impl_(std::make_unique<Impl>()) {
  Impl& d = *impl_;
  d.nk = nk;
  d.ntimes = ntimes;
  d.method = method;
  d.u_host = u_grid;
  d.split = pair_nk > 0;
  d.se_nk = d.split ? pair_nk : nk;
  d.se_batch = d.split ? pair_batch : ntimes;
  const DeviceArraySizes sizes = device_array_sizes(nk, ntimes, pair_nk, pair_batch);  // device_propagation_bytes's
  const std::size_t half = sizes.half, row = sizes.row, se = sizes.se;
  d.g_less = DeviceBuffer<cplx>(half, "kbe half-plane G<");
  d.g_greater = DeviceBuffer<cplx>(half, "kbe half-plane G>");
  d.g_less.zero();
  d.g_greater.zero();
  d.sigma_less = DeviceBuffer<cplx>(row, "kbe Sigma< row");
  d.sigma_greater = DeviceBuffer<cplx>(row, "kbe Sigma> row");
  if (d.split) {
    for (auto* b : {&d.pair_g_less, &d.pair_g_greater, &d.pair_sigma_less, &d.pair_sigma_greater, &d.stage}) {
      *b = DeviceBuffer<cplx>(se, "kbe self-energy pairs");
      b->zero();  // the FFT plan also transforms the batch's unused blocks
    }
  }
  if (method == SelfEnergyMethod::Fft) {
    d.sites_less = DeviceBuffer<cplx>(se, "kbe FFT scratch");
    d.sites_greater = DeviceBuffer<cplx>(se, "kbe FFT scratch");
    int n[1] = {d.se_nk};
    const cufftResult r = cufftPlanMany(&d.plan, 1, n, nullptr, 1, d.se_nk, nullptr, 1, d.se_nk, CUFFT_Z2Z, 4 * d.se_batch);
    if (r == CUFFT_ALLOC_FAILED)
      throw OutOfDeviceMemory("kbe: cuFFT plan for " + std::to_string(4 * d.se_batch) + " transforms of " + std::to_string(d.se_nk));
    if (r != CUFFT_SUCCESS) throw Error("kbe: cuFFT plan failed (error " + std::to_string(r) + ")");
    d.have_plan = true;
  } else {
    d.pol = DeviceBuffer<cplx>(2 * se, "kbe polarization");
  }
  for (auto* b : {&d.i_prev_less, &d.i_prev_greater, &d.i_cur_less, &d.i_cur_greater}) {
    *b = DeviceBuffer<cplx>(row, "kbe collision row");
    b->zero();
  }
  d.h_mid = DeviceBuffer<M2>(static_cast<std::size_t>(nk), "kbe mean-field Hamiltonian");
  d.u_grid = DeviceBuffer<double>(std::span<const double>(u_grid), "kbe U(t)");
  d.block_max = DeviceBuffer<double>(time_step_scratch(nk, ntimes), "kbe step maxima");
  d.change = DeviceBuffer<double>(1, "kbe step change");
  QUANTA_CUDA_CHECK(cudaGetDevice(&d.device));
  QUANTA_CUDA_CHECK(cudaStreamCreateWithFlags(&d.side, cudaStreamNonBlocking));
}

DevicePropagation::~DevicePropagation() = default;

void DevicePropagation::upload(int step, const cplx* g_less, const cplx* g_greater, const cplx* i_less, const cplx* i_greater) {
  Impl& d = *impl_;
  const std::size_t half = tri_count(step + 1) * d.bs() * sizeof(cplx), row = (step + 1) * d.bs() * sizeof(cplx);
  device::copy_to_device(d.g_less.data(), g_less, half);
  device::copy_to_device(d.g_greater.data(), g_greater, half);
  device::copy_to_device(d.i_prev_less.data(), i_less, row);
  device::copy_to_device(d.i_prev_greater.data(), i_greater, row);
}

void DevicePropagation::download(int step, cplx* g_less, cplx* g_greater, cplx* i_less, cplx* i_greater) const {
  const Impl& d = *impl_;
  const std::size_t half = tri_count(step + 1) * d.bs() * sizeof(cplx), row = (step + 1) * d.bs() * sizeof(cplx);
  device::copy_to_host(g_less, d.g_less.data(), half);
  device::copy_to_host(g_greater, d.g_greater.data(), half);
  device::copy_to_host(i_less, d.i_prev_less.data(), row);
  device::copy_to_host(i_greater, d.i_prev_greater.data(), row);
}

void DevicePropagation::download_blocks(std::size_t first, std::size_t count, cplx* less, cplx* greater) const {
  const Impl& d = *impl_;
  const std::size_t offset = first * d.bs(), bytes = count * d.bs() * sizeof(cplx);
  QUANTA_CUDA_CHECK(cudaSetDevice(d.device));  // this thread may not have used the device yet
  QUANTA_CUDA_CHECK(cudaMemcpyAsync(less, d.g_less.data() + offset, bytes, cudaMemcpyDeviceToHost, d.side));
  QUANTA_CUDA_CHECK(cudaMemcpyAsync(greater, d.g_greater.data() + offset, bytes, cudaMemcpyDeviceToHost, d.side));
  QUANTA_CUDA_CHECK(cudaStreamSynchronize(d.side));
}

void DevicePropagation::upload_blocks(std::size_t first, std::size_t count, const cplx* less, const cplx* greater) {
  Impl& d = *impl_;
  const std::size_t offset = first * d.bs(), bytes = count * d.bs() * sizeof(cplx);
  device::copy_to_device(d.g_less.data() + offset, less, bytes);
  device::copy_to_device(d.g_greater.data() + offset, greater, bytes);
}

void DevicePropagation::download_collision_row(int step, cplx* i_less, cplx* i_greater) const {
  const Impl& d = *impl_;
  const std::size_t row = (step + 1) * d.bs() * sizeof(cplx);
  device::copy_to_host(i_less, d.i_prev_less.data(), row);
  device::copy_to_host(i_greater, d.i_prev_greater.data(), row);
}

void DevicePropagation::upload_collision_row(int step, const cplx* i_less, const cplx* i_greater) {
  Impl& d = *impl_;
  const std::size_t row = (step + 1) * d.bs() * sizeof(cplx);
  device::copy_to_device(d.i_prev_less.data(), i_less, row);
  device::copy_to_device(d.i_prev_greater.data(), i_greater, row);
}

void DevicePropagation::copy_diagonal(int from, int to) {
  Impl& d = *impl_;
  const std::size_t bytes = d.bs() * sizeof(cplx);
  QUANTA_CUDA_CHECK(cudaMemcpy(d.g_less.data() + tri(to, to) * d.bs(), d.g_less.data() + tri(from, from) * d.bs(), bytes,
                               cudaMemcpyDeviceToDevice));
}

void DevicePropagation::set_h_mid(const M2* h_mid) {
  impl_->h_mid.upload(std::span<const M2>(h_mid, static_cast<std::size_t>(impl_->nk)));
}

void DevicePropagation::self_energy_row(int n) {
  Impl& d = *impl_;
  d.self_energy_batch(n + 1, d.g_less.data() + tri(n, 0) * d.bs(), d.g_greater.data() + tri(n, 0) * d.bs(), d.u_host[n],
                    d.u_grid.data(), d.sigma_less.data(), d.sigma_greater.data());
}

void DevicePropagation::download_row(int n, cplx* g_less, cplx* g_greater) const {
  const Impl& d = *impl_;
  const std::size_t bytes = (n + 1) * d.bs() * sizeof(cplx);
  device::copy_to_host(g_less, d.g_less.data() + tri(n, 0) * d.bs(), bytes);
  device::copy_to_host(g_greater, d.g_greater.data() + tri(n, 0) * d.bs(), bytes);
}

void DevicePropagation::self_energy_pairs(int count, int first, double u_t, const cplx* g_less, const cplx* g_greater,
                                          cplx* sigma_less, cplx* sigma_greater) {
  Impl& d = *impl_;
  QUANTA_REQUIRE(d.split && count <= d.se_batch, "kbe: self_energy_pairs needs a k-split DevicePropagation and count <= its batch");
  if (count == 0) return;
  const std::size_t bytes = count * block_size(d.se_nk) * sizeof(cplx);
  device::copy_to_device(d.pair_g_less.data(), g_less, bytes);
  device::copy_to_device(d.pair_g_greater.data(), g_greater, bytes);
  d.self_energy_batch(count, d.pair_g_less.data(), d.pair_g_greater.data(), u_t, d.u_grid.data() + first,
                    d.pair_sigma_less.data(), d.pair_sigma_greater.data());
  device::copy_to_host(sigma_less, d.pair_sigma_less.data(), bytes);
  device::copy_to_host(sigma_greater, d.pair_sigma_greater.data(), bytes);
}

void DevicePropagation::upload_sigma_row(int count, const cplx* sigma_less, const cplx* sigma_greater) {
  Impl& d = *impl_;
  const std::size_t bytes = count * d.bs() * sizeof(cplx);
  device::copy_to_device(d.sigma_less.data(), sigma_less, bytes);
  device::copy_to_device(d.sigma_greater.data(), sigma_greater, bytes);
}

namespace {
// Strided device copy of `rows` rows of `width` complex numbers.
void copy_rows(cplx* dst, std::size_t dst_pitch, const cplx* src, std::size_t src_pitch, std::size_t width, std::size_t rows) {
  if (rows == 0 || width == 0) return;
  QUANTA_CUDA_CHECK(cudaMemcpy2D(dst, dst_pitch * sizeof(cplx), src, src_pitch * sizeof(cplx), width * sizeof(cplx), rows,
                                 cudaMemcpyDeviceToDevice));
}
}  // namespace

void DevicePropagation::self_energy_row_exchanged(int n, const TransposePlan& p, DeviceExchange& exchange) {
  Impl& d = *impl_;
  QUANTA_REQUIRE(d.split && p.mine <= d.se_batch, "kbe: self_energy_row_exchanged needs a k-split DevicePropagation");
  const int ranks = static_cast<int>(p.k_begin.size());
  const std::size_t planes = 4 * static_cast<std::size_t>(p.mine);  // band-pair planes of this rank's pairs
  const cplx* rows[2] = {d.g_less.data() + tri(n, 0) * d.bs(), d.g_greater.data() + tri(n, 0) * d.bs()};
  cplx* pairs[2] = {d.pair_g_less.data(), d.pair_g_greater.data()};
  for (int which = 0; which < 2; ++which) {
    exchange.alltoallv(rows[which], p.row_counts, p.row_displs, d.stage.data(), p.pair_counts, p.pair_displs);
    for (int r = 0; r < ranks; ++r)
      copy_rows(pairs[which] + p.k_begin[r], d.se_nk, d.stage.data() + p.pair_displs[r], p.k_count[r], p.k_count[r], planes);
  }
  if (p.mine > 0)
    d.self_energy_batch(p.mine, d.pair_g_less.data(), d.pair_g_greater.data(), d.u_host[n], d.u_grid.data() + p.first,
                        d.pair_sigma_less.data(), d.pair_sigma_greater.data());
  const cplx* sigma_pairs[2] = {d.pair_sigma_less.data(), d.pair_sigma_greater.data()};
  cplx* sigma_rows[2] = {d.sigma_less.data(), d.sigma_greater.data()};
  for (int which = 0; which < 2; ++which) {
    for (int r = 0; r < ranks; ++r)
      copy_rows(d.stage.data() + p.pair_displs[r], p.k_count[r], sigma_pairs[which] + p.k_begin[r], d.se_nk, p.k_count[r], planes);
    exchange.alltoallv(d.stage.data(), p.pair_counts, p.pair_displs, sigma_rows[which], p.row_counts, p.row_displs);
  }
}

void DevicePropagation::collision_row(int n, double dt) {
  Impl& d = *impl_;
  CollisionRow r;
  r.nk = d.nk;
  r.n = n;
  r.dt = dt;
  r.g_less = d.g_less.data();
  r.g_greater = d.g_greater.data();
  r.sigma_less = d.sigma_less.data();
  r.sigma_greater = d.sigma_greater.data();
  r.i_less = d.i_cur_less.data();
  r.i_greater = d.i_cur_greater.data();
  collision_integral_cuda(r);
}

void DevicePropagation::zero_collision_row(int n) {
  Impl& d = *impl_;
  const std::size_t bytes = (n + 1) * d.bs() * sizeof(cplx);
  device::fill_zero(d.i_cur_less.data(), bytes);
  device::fill_zero(d.i_cur_greater.data(), bytes);
}

double DevicePropagation::time_step(int n, double dt, bool predictor) {
  Impl& d = *impl_;
  StepRow r;
  r.nk = d.nk;
  r.n = n;
  r.dt = dt;
  r.h_mid = d.h_mid.data();
  r.i_prev_less = d.i_prev_less.data();
  r.i_prev_greater = d.i_prev_greater.data();
  r.i_cur_less = d.i_cur_less.data();
  r.i_cur_greater = d.i_cur_greater.data();
  r.predictor = predictor;
  set_rows(r, d.g_less.data(), d.g_greater.data());
  return time_step_cuda(r, d.block_max.data(), d.change.data());
}

void DevicePropagation::finish_step() {
  Impl& d = *impl_;
  std::swap(d.i_prev_less, d.i_cur_less);
  std::swap(d.i_prev_greater, d.i_cur_greater);
}

void DevicePropagation::download_diagonal(int n, cplx* block) const {
  const Impl& d = *impl_;
  device::copy_to_host(block, d.g_less.data() + tri(n, n) * d.bs(), d.bs() * sizeof(cplx));
}

void DevicePropagation::download_collision_prev(int j, cplx* block) const {
  const Impl& d = *impl_;
  device::copy_to_host(block, d.i_prev_less.data() + j * d.bs(), d.bs() * sizeof(cplx));
}

}  // namespace quanta::kbe::kernels
