// The transport phase's right-hand side on one GPU: the twin of src/transport_engine_cpu.cpp, the same
// kernels/transport_terms.hpp and phonon_scattering.hpp functions, each kernel laid out so that neighbouring
// threads touch neighbouring words: angle integrals and scattering by energy cell (the scattering's angles
// written by the whole block), x lines and chunks of w lines by thread, phi lines staged in shared memory by
// block. The distribution and the right-hand side stay on the device; the Schroedinger-Poisson state (a few
// thousand numbers) comes up once per evaluation of the block.
#include <algorithm>
#include <span>
#include <string>

#include "../../src/transport_engine.hpp"
#include "../roughness.hpp"
#include "launch.cuh"
#include "quanta/core/buffer.hpp"
#include "quanta/core/cuda/check.cuh"
#include "quanta/core/error.hpp"

namespace quanta::mosfet {
namespace {

constexpr int kThreads = 128;
unsigned blocks(long n) { return static_cast<unsigned>((n + kThreads - 1) / kThreads); }

struct Valleys {
  kernels::KaneValley v[kernels::kValleys];
};

// Thread t of a launch over the energy cells (v p, i, l), l fastest; false past the last.
__device__ bool energy_cell(const kernels::PhaseGrid& g, int& vp, int& i, int& l) {
  const long t = blockIdx.x * static_cast<long>(blockDim.x) + threadIdx.x;
  if (t >= static_cast<long>(kernels::kValleys) * g.nsbn * g.nx * g.nw) return false;
  l = static_cast<int>(t % g.nw);
  i = static_cast<int>((t / g.nw) % g.nx);
  vp = static_cast<int>(t / (static_cast<long>(g.nw) * g.nx));
  return true;
}

__global__ void angle_integral_kernel(kernels::PhaseGrid g, const double* phi, double* pi) {
  int vp, i, l;
  if (!energy_cell(g, vp, i, l)) return;
  kernels::angle_integral(g, phi, pi, vp / g.nsbn, vp % g.nsbn, i, l);
}

// A block of kThreads consecutive energy cells (consecutive in memory, nphi angles each): each thread forms its cell's gain
// and loss rate into shared memory, then the block writes the scattering terms of all the cells' angles, neighbouring
// threads on neighbouring words (a thread per cell walking its own angles left each warp access spread over 32 lines).
// At most 64 registers (8 blocks per multiprocessor): unbounded, the compiler took 88 and the kernel, whose energy cells
// wait on long chains of divisions and interpolations, ran at 27% occupancy.
__global__ void __launch_bounds__(kThreads, 8) scattering_kernel(kernels::PhaseGrid g, kernels::PhononScattering s, Valleys val, const double* eps, const double* overlaps,
                                  const double* pi, const double* phi, double* rhs) {
  __shared__ double gain[kThreads], loss[kThreads];
  int vp, i, l;
  if (energy_cell(g, vp, i, l)) kernels::cell_scattering(g, s, val.v, eps, overlaps, pi, vp / g.nsbn, vp % g.nsbn, i, l, gain[threadIdx.x], loss[threadIdx.x]);
  __syncthreads();
  const long first = blockIdx.x * static_cast<long>(kThreads), cells = static_cast<long>(kernels::kValleys) * g.nsbn * g.nx * g.nw;
  const int count = static_cast<int>(min(static_cast<long>(kThreads), cells - first)), n = count * g.nphi;
  const long base = first * g.nphi;  // phase_index of (first cell, angle 0): the cells are [v][p][i][l], the angles fastest
  for (int k = threadIdx.x; k < n; k += kThreads) {
    const int c = k / g.nphi;
    rhs[base + k] = kernels::scattering_term(gain[c], loss[c], phi[base + k]);
  }
}

// Surface roughness: one block per (energy cell l, valley v, group of `columns` (p, i) columns). The angular kernel
// D_v(w_l) and the group's angle lines of Phi are staged in shared memory (coalesced reads), then one thread per
// (column, angle) sums over the angles from shared memory alone and adds its term (coalesced writes). D is read as
// D[m'][m], the same numbers as D[m][m'] (the table is exactly symmetric), so that neighbouring threads read
// neighbouring words; the sum runs in kernels::roughness_term's order.
constexpr int kRoughnessThreads = 256;
constexpr int kRoughnessMaxAngles = 128;  // nphi^2 doubles of shared memory: 128 KiB, plus the lines
int roughness_columns(const kernels::PhaseGrid& g, std::size_t shared_limit) {
  const std::size_t kernel = static_cast<std::size_t>(g.nphi) * g.nphi * sizeof(double), line = static_cast<std::size_t>(g.nphi) * sizeof(double);
  return static_cast<int>(std::min<std::size_t>(64, (shared_limit - kernel) / line));
}
__global__ void roughness_kernel(kernels::PhaseGrid g, kernels::RoughnessInputs in, Valleys val, int columns, const double* phi, double* rhs) {
  extern __shared__ double shared[];
  double* D = shared;                           // [nphi][nphi]
  double* lines = shared + g.nphi * g.nphi;     // [columns][nphi]
  const int l = blockIdx.x, v = blockIdx.y, c0 = blockIdx.z * columns, count = min(columns, g.nsbn * g.nx - c0);
  const double* table = in.kernel + (static_cast<long>(v) * g.nw + l) * g.nphi * g.nphi;
  for (int k = threadIdx.x; k < g.nphi * g.nphi; k += blockDim.x) D[k] = table[k];
  for (int k = threadIdx.x; k < count * g.nphi; k += blockDim.x) {
    const int c = c0 + k / g.nphi;
    lines[k] = phi[kernels::phase_index(g, v, c / g.nx, c % g.nx, l, k % g.nphi)];
  }
  __syncthreads();
  const double s = kernels::kane_jacobian(val.v[v], (l + 0.5) * g.dw);
  for (int k = threadIdx.x; k < count * g.nphi; k += blockDim.x) {
    const int c = c0 + k / g.nphi, m = k % g.nphi, p = c / g.nx, i = c % g.nx;
    const double* line = lines + (k / g.nphi) * g.nphi;
    const double self = line[m];
    double sum = 0;
    for (int m2 = 0; m2 < g.nphi; ++m2) sum += D[m2 * g.nphi + m] * (line[m2] - self);
    const double form = in.form[static_cast<std::size_t>(i) * kernels::kValleys * g.nsbn + v * g.nsbn + p];
    rhs[kernels::phase_index(g, v, p, i, l, m)] += in.C * form * s * g.dphi * sum;
  }
}

__global__ void x_transport_kernel(kernels::PhaseGrid g, kernels::TransportInputs in, const double* phi, double* rhs) {
  const long t = blockIdx.x * static_cast<long>(blockDim.x) + threadIdx.x, n = static_cast<long>(kernels::kValleys) * g.nsbn * g.nw * g.nphi;
  if (t >= n) return;
  const int m = t % g.nphi, l = (t / g.nphi) % g.nw, vp = static_cast<int>(t / (static_cast<long>(g.nphi) * g.nw));
  kernels::add_x_transport(g, in, phi, rhs, vp / g.nsbn, vp % g.nsbn, l, m);
}

// One thread per (v p, i, chunk of kWChunk energy cells, angle), the angle fastest (neighbouring threads read and
// write neighbouring words): kernels::add_w_line over the chunk. Chunks put N_w / 64 threads on each line (5 on the
// seed's grid), each with its own window of point fluxes.
constexpr int kWChunk = 64;
__global__ void w_transport_kernel(kernels::PhaseGrid g, kernels::TransportInputs in, const double* phi, double* rhs) {
  const int chunks = (g.nw + kWChunk - 1) / kWChunk;
  const long t = blockIdx.x * static_cast<long>(blockDim.x) + threadIdx.x, n = static_cast<long>(kernels::kValleys) * g.nsbn * g.nx * chunks * g.nphi;
  if (t >= n) return;
  const int m = static_cast<int>(t % g.nphi), rest = static_cast<int>(t / g.nphi), chunk = rest % chunks, vi = rest / chunks;
  const int i = vi % g.nx, vp = vi / g.nx, l0 = chunk * kWChunk;
  kernels::add_w_line(g, in, phi, rhs, vp / g.nsbn, vp % g.nsbn, i, m, l0, min(g.nw, l0 + kWChunk));
}

// A Runge-Kutta stage's combination done by the phi kernel, the last to add to the right-hand side (on: Phi = a Phi^n
// + b Phi + c rhs in place of writing rhs).
struct StageCombine {
  bool on;
  double a, b, c;
  const double* phi_n;
};

// Blocks of `lines` phi lines (v p, i, l .. l + lines - 1): the split point fluxes of the lines (periodic ghosts
// included) into shared memory, then one thread per face, then one per cell. The same split fluxes and
// reconstruction as kernels::add_phi_transport, so the same numbers. With the stage's combination on, each cell's
// Phi is overwritten in place: a block reads only its own lines, all of them before its first write.
__global__ void phi_transport_kernel(kernels::PhaseGrid g, kernels::TransportInputs in, int lines, StageCombine stage, double* phi, double* rhs) {
  extern __shared__ double shared[];
  const int stencil = g.nphi + 6, chunks = (g.nw + lines - 1) / lines;
  double* plus = shared;                    // [lines][nphi + 6]: angles -3 .. nphi + 2
  double* minus = plus + lines * stencil;   // [lines][nphi + 6]
  double* faces = minus + lines * stencil;  // [lines][nphi + 1]
  const int chunk = blockIdx.x % chunks, vi = blockIdx.x / chunks, i = vi % g.nx, vp = vi / g.nx, v = vp / g.nsbn, p = vp % g.nsbn;
  const int l0 = chunk * lines, count = min(lines, g.nw - l0);
  const double eps_x = in.deps_dx[vp * g.nx + i], a3 = in.a3_max;
  const double* cells = phi + kernels::phase_index(g, v, p, i, l0, 0);  // the block's lines, [count][nphi]
  const double* speed = in.angle_speed + kernels::speed_index(g, v, l0, 0);
#pragma unroll 4
  for (int k = threadIdx.x; k < count * stencil; k += blockDim.x) {
    const int line = k / stencil, m = k - line * stencil - 3, mm = m < 0 ? m + g.nphi : (m >= g.nphi ? m - g.nphi : m);
    const double value = cells[line * g.nphi + mm];
    const double rate = eps_x * speed[line * g.nphi + mm];
    plus[k] = 0.5 * (rate + a3) * value;
    minus[k] = 0.5 * (rate - a3) * value;
  }
  __syncthreads();
  for (int k = threadIdx.x; k < count * (g.nphi + 1); k += blockDim.x) {
    const int line = k / (g.nphi + 1), f = k - line * (g.nphi + 1);
    const double* gp = plus + line * stencil + 3;
    const double* gm = minus + line * stencil + 3;
    faces[k] = kernels::weno_face([&](int c) { return gp[c]; }, f, true) + kernels::weno_face([&](int c) { return gm[c]; }, f, false);
  }
  __syncthreads();
  for (int k = threadIdx.x; k < count * g.nphi; k += blockDim.x) {
    const int line = k / g.nphi, m = k - line * g.nphi;
    const double* face = faces + line * (g.nphi + 1);
    const long at = kernels::phase_index(g, v, p, i, l0 + line, m);
    const double r = rhs[at] - (face[m + 1] - face[m]) / g.dphi;
    if (stage.on)
      phi[at] = kernels::stage_combination(stage.a, stage.b, stage.c, stage.phi_n[at], phi[at], r);
    else
      rhs[at] = r;
  }
}

// One block per (v p, i): the moments of its nw x nphi cells, reduced in shared memory (kThreads threads).
__global__ void moments_kernel(kernels::PhaseGrid g, const double* velocity, const double* phi, double* rho, double* current, double* energy,
                               double* top) {
  __shared__ double sum[4][kThreads];
  const int k = blockIdx.x, vp = k / g.nx, i = k % g.nx, v = vp / g.nsbn;
  kernels::CellMoments c;
  const long base = kernels::phase_index(g, v, vp % g.nsbn, i, 0, 0);
  for (int t = threadIdx.x; t < g.nw * g.nphi; t += blockDim.x)
    kernels::add_cell_moments(g, velocity[kernels::speed_index(g, v, 0, 0) + t], phi[base + t], t / g.nphi, c);
  sum[0][threadIdx.x] = c.rho;
  sum[1][threadIdx.x] = c.current;
  sum[2][threadIdx.x] = c.energy;
  sum[3][threadIdx.x] = c.top;
  __syncthreads();
  for (int half = kThreads / 2; half > 0; half /= 2) {
    if (threadIdx.x < half)
      for (int q = 0; q < 4; ++q) sum[q][threadIdx.x] += sum[q][threadIdx.x + half];
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    rho[k] = sum[0][0] * g.dw * g.dphi;
    current[k] = sum[1][0] * g.dw * g.dphi;
    energy[k] = sum[2][0] * g.dw * g.dphi;
    top[k] = sum[3][0] * g.dphi;
  }
}

__global__ void combine_kernel(long n, double a, double b, double c, const double* phi_n, const double* rhs, double* phi) {
  const long t = blockIdx.x * static_cast<long>(blockDim.x) + threadIdx.x;
  if (t < n) phi[t] = kernels::stage_combination(a, b, c, phi_n[t], phi[t], rhs[t]);
}

class CudaTransportEngine final : public TransportEngine {
 public:
  explicit CudaTransportEngine(const TransportSetup& s)
      : s_(s),
        n_(static_cast<std::size_t>(kernels::kValleys) * s.grid.nsbn * s.grid.nx * s.grid.nw * s.grid.nphi),
        nvp_(static_cast<std::size_t>(kernels::kValleys) * s.grid.nsbn),
        phi_(n_, "transport distribution"),
        phi_n_(n_, "transport distribution at the step's start"),
        rhs_(n_, "transport right-hand side"),
        pi_(nvp_ * s.grid.nx * s.grid.nw, "transport angle integrals"),
        eps_(nvp_ * s.grid.nx, "subband energies"),
        overlaps_(nvp_ * nvp_ * s.grid.nx, "subband overlaps"),
        deps_(nvp_ * s.grid.nx, "subband energy slopes"),
        contact_(nvp_ * 2, "contact rescaling"),
        moments_(4 * nvp_ * s.grid.nx, "transport moments"),
        velocity_(static_cast<std::size_t>(kernels::kValleys) * s.grid.nw * s.grid.nphi, "x velocities"),
        angle_speed_(static_cast<std::size_t>(kernels::kValleys) * s.grid.nw * s.grid.nphi, "angle speeds") {
    check_phase_grid(s.grid);
    for (int v = 0; v < kernels::kValleys; ++v) val_.v[v] = s.valleys[v];
    const kernels::SpeedTables speeds = kernels::speed_tables(s.grid, s.valleys);
    velocity_.upload(std::span<const double>(speeds.velocity));
    angle_speed_.upload(std::span<const double>(speeds.angle_speed));
    phi_.zero();
    if (s.roughness()) {
      if (s.grid.nphi > kRoughnessMaxAngles)
        throw Error("transport (GPU): surface roughness with nphi = " + std::to_string(s.grid.nphi) + "; at most " +
                    std::to_string(kRoughnessMaxAngles) + " (the nphi x nphi angular kernel of an energy cell is held in shared memory)");
      roughness_kernel_ = DeviceBuffer<double>(std::span<const double>(s.roughness_kernel), "roughness angular kernel");
      form_ = DeviceBuffer<double>(nvp_ * s.grid.nx, "roughness form factors");
      roughness_columns_ = roughness_columns(s.grid, kernels::shared_memory_optin());
      roughness_shared_ = (static_cast<std::size_t>(s.grid.nphi) + roughness_columns_) * s.grid.nphi * sizeof(double);
      QUANTA_CUDA_CHECK(cudaFuncSetAttribute(roughness_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(roughness_shared_)));
    }
  }
  void upload_distribution(const std::vector<double>& phi) override {
    if (phi.size() != n_) throw Error("transport: a distribution of the wrong size");
    phi_.upload(std::span<const double>(phi));
  }
  std::vector<double> download_distribution() override { return phi_.to_host(); }
  void upload_block(const std::vector<double>& eps, const std::vector<double>& overlaps, const std::vector<double>& contact_scale) override {
    check_block_sizes(s_.grid, eps, overlaps, contact_scale);
    const BlockSlopes slopes = block_slopes(s_, eps);
    a3_max_ = slopes.a3_max;
    eps_.upload(std::span<const double>(eps));
    overlaps_.upload(std::span<const double>(overlaps));
    contact_.upload(std::span<const double>(contact_scale));
    deps_.upload(std::span<const double>(slopes.deps_dx));
  }
  void upload_roughness(const std::vector<double>& form) override {
    check_roughness_sizes(s_, form);
    form_.upload(std::span<const double>(form));
    have_form_ = true;
  }
  void evaluate_rhs() override {
    launch_rhs(StageCombine{false, 0, 0, 0, nullptr});
    rhs_complete_ = true;
  }
  void stage(double a, double b, double c) override {
    if (!saved_) throw Error("transport: stage() before save_step_start()");
    launch_rhs(StageCombine{true, a, b, c, phi_n_.data()});
    rhs_complete_ = false;  // the phi term went into Phi, not into rhs
  }
  std::vector<double> download_rhs() override {
    require_complete_rhs("download_rhs()");
    return rhs_.to_host();
  }
  TransportMoments moments() override {
    const std::size_t lines = nvp_ * s_.grid.nx;
    double* m = moments_.data();
    moments_kernel<<<static_cast<unsigned>(lines), kThreads>>>(s_.grid, velocity_.data(), phi_.data(), m, m + lines, m + 2 * lines, m + 3 * lines);
    QUANTA_CUDA_LAUNCH_CHECK("moments_kernel");
    const std::vector<double> all = moments_.to_host();
    TransportMoments out;
    out.rho.assign(all.begin(), all.begin() + lines);
    out.current.assign(all.begin() + lines, all.begin() + 2 * lines);
    out.energy.assign(all.begin() + 2 * lines, all.begin() + 3 * lines);
    out.top.assign(all.begin() + 3 * lines, all.end());
    return out;
  }
  void save_step_start() override {
    QUANTA_CUDA_CHECK(cudaMemcpyAsync(phi_n_.data(), phi_.data(), n_ * sizeof(double), cudaMemcpyDeviceToDevice));
    saved_ = true;
  }
  void combine(double a, double b, double c) override {
    if (!saved_) throw Error("transport: combine() before save_step_start()");
    require_complete_rhs("combine()");
    combine_kernel<<<blocks(static_cast<long>(n_)), kThreads>>>(static_cast<long>(n_), a, b, c, phi_n_.data(), rhs_.data(), phi_.data());
    QUANTA_CUDA_LAUNCH_CHECK("combine_kernel");
  }
  void finish() override { QUANTA_CUDA_CHECK(cudaDeviceSynchronize()); }

 private:
  void require_complete_rhs(const char* what) const {
    if (!rhs_complete_) throw Error(std::string("transport: ") + what + " needs evaluate_rhs() first (after stage(), the right-hand side lacks its phi term)");
  }
  // The right-hand side's kernels in order; the scattering kernel starts the right-hand side, the others add to it,
  // and the phi kernel, the last, does the stage's combination when it is on.
  void launch_rhs(const StageCombine& stage) {
    const auto& g = s_.grid;
    const long cells = static_cast<long>(nvp_) * g.nx * g.nw;
    angle_integral_kernel<<<blocks(cells), kThreads>>>(g, phi_.data(), pi_.data());
    QUANTA_CUDA_LAUNCH_CHECK("angle_integral_kernel");
    scattering_kernel<<<blocks(cells), kThreads>>>(g, s_.scattering, val_, eps_.data(), overlaps_.data(), pi_.data(), phi_.data(), rhs_.data());
    QUANTA_CUDA_LAUNCH_CHECK("scattering_kernel");
    if (s_.roughness()) {
      if (!have_form_) throw Error("transport: surface roughness without form factors (upload_roughness)");
      const dim3 grid(static_cast<unsigned>(g.nw), kernels::kValleys,
                      static_cast<unsigned>((g.nsbn * g.nx + roughness_columns_ - 1) / roughness_columns_));
      roughness_kernel<<<grid, kRoughnessThreads, roughness_shared_>>>(g, {s_.roughness_constant, roughness_kernel_.data(), form_.data()}, val_,
                                                                       roughness_columns_, phi_.data(), rhs_.data());
      QUANTA_CUDA_LAUNCH_CHECK("roughness_kernel");
    }
    const kernels::TransportInputs in{velocity_.data(), angle_speed_.data(), deps_.data(), contact_.data(), a3_max_, s_.periodic_x};
    x_transport_kernel<<<blocks(static_cast<long>(nvp_) * g.nw * g.nphi), kThreads>>>(g, in, phi_.data(), rhs_.data());
    QUANTA_CUDA_LAUNCH_CHECK("x_transport_kernel");
    const long w_threads = static_cast<long>(nvp_) * g.nx * ((g.nw + kWChunk - 1) / kWChunk) * g.nphi;
    w_transport_kernel<<<blocks(w_threads), kThreads>>>(g, in, phi_.data(), rhs_.data());
    QUANTA_CUDA_LAUNCH_CHECK("w_transport_kernel");
    const int lines = std::max(1, 256 / g.nphi), chunks = (g.nw + lines - 1) / lines;
    const std::size_t phi_shared = static_cast<std::size_t>(lines) * (3 * g.nphi + 13) * sizeof(double);
    phi_transport_kernel<<<static_cast<unsigned>(nvp_ * g.nx * chunks), 256, phi_shared>>>(g, in, lines, stage, phi_.data(), rhs_.data());
    QUANTA_CUDA_LAUNCH_CHECK("phi_transport_kernel");
  }

  TransportSetup s_;
  std::size_t n_, nvp_;
  Valleys val_{};
  double a3_max_ = 0;
  bool saved_ = false, have_form_ = false, rhs_complete_ = false;
  std::size_t roughness_shared_ = 0;
  int roughness_columns_ = 0;
  DeviceBuffer<double> roughness_kernel_, form_;  // surface roughness: D [3][nw][nphi][nphi], I [nx][3 nsbn]
  DeviceBuffer<double> phi_, phi_n_, rhs_, pi_, eps_, overlaps_, deps_, contact_, moments_, velocity_, angle_speed_;
};

}  // namespace

std::unique_ptr<TransportEngine> make_cuda_transport_engine(const TransportSetup& setup) {
  return std::make_unique<CudaTransportEngine>(setup);
}

}  // namespace quanta::mosfet
