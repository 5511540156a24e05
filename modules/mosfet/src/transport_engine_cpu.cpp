// The transport phase's right-hand side on the host (OpenMP), the oracle of the CUDA engine.
#include <algorithm>
#include <cmath>
#include <string>

#include "../kernels/roughness.hpp"
#include "quanta/core/error.hpp"
#include "transport_engine.hpp"

namespace quanta::mosfet {
namespace {

class CpuTransportEngine final : public TransportEngine {
 public:
  explicit CpuTransportEngine(const TransportSetup& s) : s_(s), speeds_(kernels::speed_tables(s.grid, s.valleys)) {
    check_phase_grid(s.grid);
    const auto& g = s.grid;
    n_ = static_cast<std::size_t>(kernels::kValleys) * g.nsbn * g.nx * g.nw * g.nphi;
    phi_.assign(n_, 0.0);
    rhs_.assign(n_, 0.0);
    pi_.assign(static_cast<std::size_t>(g.nx) * kernels::kValleys * g.nsbn * g.nw, 0.0);
  }
  void upload_distribution(const std::vector<double>& phi) override {
    if (phi.size() != n_) throw Error("transport: a distribution of the wrong size");
    phi_ = phi;
  }
  std::vector<double> download_distribution() override { return phi_; }
  void upload_block(const std::vector<double>& eps, const std::vector<double>& overlaps, const std::vector<double>& contact_scale) override {
    const auto& g = s_.grid;
    check_block_sizes(g, eps, overlaps, contact_scale);
    eps_ = eps;
    overlaps_ = overlaps;
    contact_ = contact_scale;
    slopes_ = block_slopes(s_, eps);
  }
  void upload_roughness(const std::vector<double>& form) override {
    check_roughness_sizes(s_, form);
    form_ = form;
  }
  // The terms in the GPU engine's order: the scattering term starts each cell's right-hand side.
  void evaluate_rhs() override {
    const auto& g = s_.grid;
    const int nvp = kernels::kValleys * g.nsbn;
#pragma omp parallel for collapse(2) schedule(static)
    for (int vp = 0; vp < nvp; ++vp)
      for (int il = 0; il < g.nx * g.nw; ++il) kernels::angle_integral(g, phi_.data(), pi_.data(), vp / g.nsbn, vp % g.nsbn, il / g.nw, il % g.nw);
#pragma omp parallel for collapse(2) schedule(static)
    for (int vp = 0; vp < nvp; ++vp)
      for (int il = 0; il < g.nx * g.nw; ++il)
        kernels::set_scattering(g, s_.scattering, s_.valleys, eps_.data(), overlaps_.data(), pi_.data(), phi_.data(), rhs_.data(),
                                vp / g.nsbn, vp % g.nsbn, il / g.nw, il % g.nw);
    if (s_.roughness()) {
      if (form_.empty()) throw Error("transport: surface roughness without form factors (upload_roughness)");
      const kernels::RoughnessInputs r{s_.roughness_constant, s_.roughness_kernel.data(), form_.data()};
#pragma omp parallel for collapse(2) schedule(static)
      for (int vp = 0; vp < nvp; ++vp)
        for (int il = 0; il < g.nx * g.nw; ++il) {
          const int v = vp / g.nsbn, p = vp % g.nsbn, i = il / g.nw, l = il % g.nw;
          for (int m = 0; m < g.nphi; ++m)
            rhs_[kernels::phase_index(g, v, p, i, l, m)] += kernels::roughness_term(g, s_.valleys[v], r, phi_.data(), v, p, i, l, m);
        }
    }
    const kernels::TransportInputs in{speeds_.velocity.data(), speeds_.angle_speed.data(), slopes_.deps_dx.data(), contact_.data(), slopes_.a3_max,
                                      s_.periodic_x};
    kernels::add_transport_cpu(g, in, phi_.data(), rhs_.data());
  }
  std::vector<double> download_rhs() override { return rhs_; }
  TransportMoments moments() override {
    const auto& g = s_.grid;
    const int lines = kernels::kValleys * g.nsbn * g.nx;
    TransportMoments out;
    for (auto* a : {&out.rho, &out.current, &out.energy, &out.top}) a->assign(lines, 0.0);
#pragma omp parallel for schedule(static)
    for (int k = 0; k < lines; ++k) {
      const int vp = k / g.nx, i = k % g.nx, v = vp / g.nsbn;
      kernels::CellMoments c;
      for (int l = 0; l < g.nw; ++l)
        for (int m = 0; m < g.nphi; ++m)
          kernels::add_cell_moments(g, speeds_.velocity[kernels::speed_index(g, v, l, m)], phi_[kernels::phase_index(g, v, vp % g.nsbn, i, l, m)], l, c);
      out.rho[k] = c.rho * g.dw * g.dphi;
      out.current[k] = c.current * g.dw * g.dphi;
      out.energy[k] = c.energy * g.dw * g.dphi;
      out.top[k] = c.top * g.dphi;
    }
    return out;
  }
  void save_step_start() override { phi_n_ = phi_; }
  void combine(double a, double b, double c) override {
    if (phi_n_.size() != n_) throw Error("transport: combine() before save_step_start()");
#pragma omp parallel for schedule(static)
    for (std::size_t k = 0; k < n_; ++k) phi_[k] = kernels::stage_combination(a, b, c, phi_n_[k], phi_[k], rhs_[k]);
  }

 private:
  TransportSetup s_;
  kernels::SpeedTables speeds_;
  std::size_t n_ = 0;
  std::vector<double> phi_, phi_n_, rhs_, pi_, eps_, overlaps_, contact_, form_;
  BlockSlopes slopes_;
};

}  // namespace

BlockSlopes block_slopes(const TransportSetup& setup, const std::vector<double>& eps) {
  const auto& g = setup.grid;
  BlockSlopes b;
  b.deps_dx.resize(static_cast<std::size_t>(kernels::kValleys) * g.nsbn * g.nx);
  for (int v = 0; v < kernels::kValleys; ++v) {
    const double rate_max = kernels::angle_rate_max(g, setup.valleys[v]);
    for (int p = 0; p < g.nsbn; ++p)
      for (int i = 0; i < g.nx; ++i) {
        const double d = kernels::energy_slope(g, eps.data(), v, p, i);
        b.deps_dx[(v * g.nsbn + p) * g.nx + i] = d;
        b.a3_max = std::max(b.a3_max, std::abs(d) * rate_max);
      }
  }
  return b;
}

void check_phase_grid(const kernels::PhaseGrid& g) {
  if (g.nsbn < 1 || g.nx < 2 || g.nw < 6 || g.nphi < 6 || g.nphi % 2 != 0)
    throw Error("transport: a phase grid of " + std::to_string(g.nsbn) + " subbands, " + std::to_string(g.nx) + " x nodes, " + std::to_string(g.nw) +
                " energy cells and " + std::to_string(g.nphi) + " angles; expected at least 1, 2, 6 and an even number of at least 6");
}

void check_block_sizes(const kernels::PhaseGrid& g, const std::vector<double>& eps, const std::vector<double>& overlaps,
                       const std::vector<double>& contact_scale) {
  const std::size_t nvp = static_cast<std::size_t>(kernels::kValleys) * g.nsbn;
  if (g.nx < 2) throw Error("transport: " + std::to_string(g.nx) + " x node; eps' needs at least 2");
  if (eps.size() != nvp * g.nx || overlaps.size() != nvp * nvp * g.nx || contact_scale.size() != nvp * 2)
    throw Error("transport: a Schroedinger-Poisson state of the wrong size (" + std::to_string(eps.size()) + " energies, " +
                std::to_string(overlaps.size()) + " overlaps, " + std::to_string(contact_scale.size()) + " contact factors; expected " +
                std::to_string(nvp * g.nx) + ", " + std::to_string(nvp * nvp * g.nx) + ", " + std::to_string(nvp * 2) + ")");
}

void check_roughness_sizes(const TransportSetup& s, const std::vector<double>& form) {
  const std::size_t want = static_cast<std::size_t>(s.grid.nx) * kernels::kValleys * s.grid.nsbn;
  if (!s.roughness()) throw Error("transport: form factors given to a setup without surface roughness");
  if (form.size() != want)
    throw Error("transport: " + std::to_string(form.size()) + " roughness form factors; expected nx * 3 * subbands = " + std::to_string(want));
  for (std::size_t k = 0; k < form.size(); ++k)
    if (!std::isfinite(form[k]) || form[k] < 0)
      throw Error("transport: the roughness form factor of x node " + std::to_string(k / (kernels::kValleys * s.grid.nsbn)) + ", valley " +
                  std::to_string(k / s.grid.nsbn % kernels::kValleys + 1) + ", subband " + std::to_string(k % s.grid.nsbn) + " is " +
                  std::to_string(form[k]) + " (expected a finite value >= 0)");
}

std::unique_ptr<TransportEngine> make_cpu_transport_engine(const TransportSetup& setup) {
  return std::make_unique<CpuTransportEngine>(setup);
}

}  // namespace quanta::mosfet
