// The plasmon-pole modes on the host, and the engine that runs them on either backend (its device part holds
// DeviceBuffers and calls the CUDA kernel; without CUDA a GppModes on the CUDA backend throws on construction).
#include <span>
#include <type_traits>

#include "../gpp_modes.hpp"
#include "quanta/core/buffer.hpp"
#include "quanta/core/error.hpp"

namespace quanta::gw::kernels {

void gpp_modes_cpu(const GppModesJob& j) {
  // Arithmetic on memory already held: nothing in the loop throws.
#pragma omp parallel for schedule(static)
  for (int c = 0; c < j.ncol; ++c)
    for (int a = 0; a < j.ng; ++a) {
      const std::size_t at = a + static_cast<std::size_t>(j.ng) * c;
      gpp_mode(j, a, j.col_lo + c, j.i_eps[at], j.wt[at]);
    }
}

struct GppModes::Device {
  DeviceBuffer<cplx> rho;
  DeviceBuffer<cplx> epsinv;
  int epsinv_id = -1;
  DeviceBuffer<int> keep, g;
  DeviceBuffer<cplx> phase;
  DeviceBuffer<double> vbar;
  DeviceBuffer<cplx> i_eps;
  DeviceBuffer<double> wt;
};

GppModes::GppModes(Backend backend, const std::vector<cplx>& rho_cube, int rho_gmax) : backend_(backend), rho_gmax_(rho_gmax) {
  if (backend_ != Backend::Cuda) {
    rho_host_ = rho_cube;
    return;
  }
#if !QUANTA_GW_CUDA
  throw Error("gpp modes: this build has no CUDA backend");
#else
  device_ = std::make_unique<Device>();
  device_->rho = DeviceBuffer<cplx>(std::span<const cplx>(rho_cube), "gpp modes rho(G)");
#endif
}

GppModes::~GppModes() = default;

// eps^-1, I and wt, the per-G lists (keep, G's three components, phase, vbar) and rho(G).
std::size_t GppModes::device_bytes(std::size_t ng_irr, std::size_t ng, std::size_t ncol, std::size_t rho_cube) {
  return ng_irr * ng_irr * sizeof(cplx) + ng * ncol * (sizeof(cplx) + sizeof(double)) + ng * (4 * sizeof(int) + sizeof(cplx) + sizeof(double)) +
         rho_cube * sizeof(cplx);
}

const cplx* GppModes::i_eps() const { return device_ ? device_->i_eps.data() : i_eps_host_.data(); }
const double* GppModes::wt() const { return device_ ? device_->wt.data() : wt_host_.data(); }

void GppModes::run(GppModesJob job, int epsinv_id) {
  if (!device_) {
    job.rho_cube = rho_host_.data();
    job.rho_gmax = rho_gmax_;
    i_eps_host_.resize(job.entries());
    wt_host_.resize(job.entries());
    job.i_eps = i_eps_host_.data();
    job.wt = wt_host_.data();
    gpp_modes_cpu(job);
    return;
  }
#if QUANTA_GW_CUDA
  Device& d = *device_;
  const std::size_t ng = job.ng, irr2 = static_cast<std::size_t>(job.ng_irr) * job.ng_irr;
  if (epsinv_id != d.epsinv_id || d.epsinv.size() != irr2) {
    d.epsinv = DeviceBuffer<cplx>();  // the old matrix goes before the new one comes
    d.epsinv = DeviceBuffer<cplx>(std::span<const cplx>(job.epsinv, irr2), "gpp modes eps^-1");
    d.epsinv_id = epsinv_id;
  }
  auto put = [](auto& buf, const auto* host, std::size_t n, const char* what) {
    using T = std::remove_cvref_t<decltype(*host)>;
    if (buf.size() < n) buf = DeviceBuffer<T>(n, what);
    buf.upload(std::span<const T>(host, n));
  };
  put(d.keep, job.keep, ng, "gpp modes keep");
  put(d.g, job.g, 3 * ng, "gpp modes G");
  put(d.phase, job.phase, ng, "gpp modes phases");
  put(d.vbar, job.vbar, ng, "gpp modes vbar");
  if (d.i_eps.size() < job.entries()) {
    d.i_eps = DeviceBuffer<cplx>();
    d.wt = DeviceBuffer<double>();
    d.i_eps = DeviceBuffer<cplx>(job.entries(), "gpp modes I");
    d.wt = DeviceBuffer<double>(job.entries(), "gpp modes wt");
  }
  job.epsinv = d.epsinv.data();
  job.keep = d.keep.data();
  job.g = d.g.data();
  job.phase = d.phase.data();
  job.vbar = d.vbar.data();
  job.rho_cube = d.rho.data();
  job.rho_gmax = rho_gmax_;
  job.i_eps = d.i_eps.data();
  job.wt = d.wt.data();
  gpp_modes_cuda(job);
#else
  (void)epsinv_id;
#endif
}

}  // namespace quanta::gw::kernels
