// Jacobi step of the linearized BTE on the GPU: one warp per mesh mode sums the processes of its irreducible
// mode, and its four-phonon collision row if any, carried to its point (lanes split the list, a shuffle
// reduction joins them: no atomics), and forms
// the new F in a second buffer.
#include "../bte_iteration.hpp"
#include "../cuda_bte.hpp"
#include "quanta/core/buffer.hpp"
#include "quanta/core/cuda/check.cuh"

namespace quanta::phonon::kernels {
namespace {

__global__ void step_kernel(IterationView v, long nfull, int nptk, const int* __restrict__ irreducible_mode,
                            const int* __restrict__ image, const int* __restrict__ op_of_point,
                            const double* __restrict__ vw, const double* __restrict__ tau,
                            const double* __restrict__ symmetrizer, double* __restrict__ Fnew) {
  const long m = (blockIdx.x * static_cast<long>(blockDim.x) + threadIdx.x) / 32;
  const int lane = threadIdx.x % 32;
  if (m >= nfull) return;
  const long q = m / v.nb;
  double D[3] = {0, 0, 0};
  const int* img = image + static_cast<long>(op_of_point[q]) * nptk;
  scattering_sum(v, irreducible_mode[m], img, lane, 32, D);
  if (v.rows4) scattering_sum4(v, nfull, irreducible_mode[m], img, lane, 32, D);
  for (int c = 0; c < 3; ++c)
    for (int o = 16; o > 0; o /= 2) D[c] += __shfl_down_sync(0xffffffffu, D[c], o);
  if (lane == 0) updated_F(vw + 3 * m, tau[m], D, symmetrizer + 9 * q, Fnew + 3 * m);
}

template <class T>
DeviceBuffer<T> up(const std::vector<T>& h, const char* what) {
  return DeviceBuffer<T>(std::span<const T>(h), what);
}

}  // namespace

struct BteIterationCuda::Impl {
  int nb = 0, nptk = 0;
  long nfull = 0;
  DeviceBuffer<std::int64_t> off_p, off_m;
  DeviceBuffer<int> m2p, m3p, m2m, m3m, irr, image, op_of_point;
  DeviceBuffer<double> gp, gm, vw, tau, sym, F, Fnew, rows4;
};

BteIterationCuda::BteIterationCuda(const ThreePhononProcesses& p, const ThreePhononRates& r, const std::vector<double>& vw,
                                   const std::vector<double>& tau, const std::vector<double>& symmetrizer,
                                   const std::vector<int>& irreducible_mode, const std::vector<int>& image,
                                   const std::vector<int>& op_of_point, int nb, const double* rows4, std::size_t nmodes)
    : impl_(std::make_unique<Impl>()) {
  Impl& d = *impl_;
  d.nb = nb;
  d.nfull = static_cast<long>(tau.size());
  d.nptk = static_cast<int>(op_of_point.size());
  d.off_p = up(p.plus.offset, "BTE offsets");
  d.off_m = up(p.minus.offset, "BTE offsets");
  d.m2p = up(p.plus.mode2, "BTE process list");
  d.m3p = up(p.plus.mode3, "BTE process list");
  d.m2m = up(p.minus.mode2, "BTE process list");
  d.m3m = up(p.minus.mode3, "BTE process list");
  d.gp = up(r.process_plus, "BTE process rates");
  d.gm = up(r.process_minus, "BTE process rates");
  d.vw = up(vw, "BTE driving term");
  d.tau = up(tau, "BTE lifetimes");
  d.sym = up(symmetrizer, "BTE symmetrizers");
  d.irr = up(irreducible_mode, "BTE classes");
  d.image = up(image, "BTE symmetry images");
  d.op_of_point = up(op_of_point, "BTE symmetry operations");
  d.F = DeviceBuffer<double>(3 * static_cast<std::size_t>(d.nfull), "BTE F");
  d.Fnew = DeviceBuffer<double>(3 * static_cast<std::size_t>(d.nfull), "BTE F");
  if (rows4) d.rows4 = DeviceBuffer<double>(std::span<const double>(rows4, nmodes * d.nfull), "four-phonon collision rows");
}

BteIterationCuda::~BteIterationCuda() = default;

void BteIterationCuda::step(std::vector<double>& F) {
  Impl& d = *impl_;
  d.F.upload(F);
  const IterationView v{d.nb, d.off_p.data(), d.off_m.data(), d.m2p.data(), d.m3p.data(), d.m2m.data(), d.m3m.data(),
                        d.gp.data(), d.gm.data(), d.F.data(), d.rows4.size() ? d.rows4.data() : nullptr};
  constexpr int block = 256;
  step_kernel<<<static_cast<unsigned>((32L * d.nfull + block - 1) / block), block>>>(
      v, d.nfull, d.nptk, d.irr.data(), d.image.data(), d.op_of_point.data(), d.vw.data(), d.tau.data(), d.sym.data(), d.Fnew.data());
  QUANTA_CUDA_LAUNCH_CHECK("step_kernel");
  d.Fnew.download(F);
}

}  // namespace quanta::phonon::kernels
