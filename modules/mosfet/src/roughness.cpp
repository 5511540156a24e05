// Surface-roughness scattering's fixed data: the stretched device, the grid maps, the kernel table, the constant.
#include "quanta/mosfet/roughness.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "../kernels/roughness.hpp"
#include "quanta/core/error.hpp"

namespace quanta::mosfet {

namespace {
// Cell c of a uniform grid (spacing h, n nodes) holding x, and the fraction of the cell, clamped to the last cell.
void locate(double x, double h, int n, int& cell, double& frac) {
  cell = std::clamp(static_cast<int>(std::floor(x / h)), 0, n - 2);
  frac = (x - cell * h) / h;
}
}  // namespace

int extended_grid_nodes(const RoughnessOptions& opt, const Geometry& geo, int device_nz) {
  if (opt.nz > 0) return opt.nz;
  const double lz = geo.width(), total = lz + opt.displacement, dz = lz / (device_nz - 1);
  auto whole = [](double x) { return std::abs(x - std::round(x)) < 1e-6; };
  for (int k = static_cast<int>(std::ceil(geo.oxide_thickness / dz - 1e-9)); k <= 64 * (device_nz - 1); ++k) {
    const double h = geo.oxide_thickness / k;
    if (whole((geo.oxide_thickness + geo.silicon_thickness + opt.displacement) / h) && whole(total / h))
      return static_cast<int>(std::round(total / h)) + 1;
  }
  return static_cast<int>(std::round(total / dz)) + 1;
}

RoughnessGrid make_roughness_grid(const Device& device, const GridSize& grid, const ContactBoundary& contacts, const RoughnessOptions& opt) {
  const Geometry& geo = device.geometry;
  const double lz = geo.width(), delta = opt.displacement, band = opt.stretch * lz;
  const double a = 0.5 * (lz - band), top = 0.5 * (lz + band), b = top + delta;
  if (!(a >= geo.oxide_thickness && top <= geo.oxide_thickness + geo.silicon_thickness))
    throw Error("mosfet: transport.roughness.stretch = " + std::to_string(opt.stretch) + " stretches [" + std::to_string(a) + ", " +
                std::to_string(top) + "] nm, which is not inside the silicon film [" + std::to_string(geo.oxide_thickness) + ", " +
                std::to_string(geo.oxide_thickness + geo.silicon_thickness) + "] nm (stretch * the z extent must not exceed the film)");
  const int nze = extended_grid_nodes(opt, geo, grid.nz), nz = grid.nz;
  const double dz = lz / (nz - 1), dze = (lz + delta) / (nze - 1);
  auto sigma = [&](double z) {
    if (z <= a) return z;
    if (z <= b) return a + band / (band + delta) * (z - a);
    return z - delta;
  };
  RoughnessGrid r;
  r.displacement = delta;
  r.stretch_cell.resize(nze);
  r.stretch_frac.resize(nze);
  for (int J = 0; J < nze; ++J) locate(std::min(sigma(J * dze), lz), dz, nz, r.stretch_cell[J], r.stretch_frac[J]);
  r.sample_cell.resize(2 * nz);
  r.sample_frac.resize(2 * nz);
  for (int j = 0; j < nz; ++j) {
    locate(j * dz, dze, nze, r.sample_cell[j], r.sample_frac[j]);
    locate(j * dz + delta, dze, nze, r.sample_cell[nz + j], r.sample_frac[nz + j]);
  }
  // The displaced device: the film Delta_SR thicker; the contacts' profile (when not flat) read at sigma(Z_J).
  Device displaced = device;
  displaced.geometry.silicon_thickness += delta;
  ContactBoundary ext{{}, contacts.gate_reference};
  if (!contacts.profile.empty()) {
    ext.profile.resize(nze);
    for (int J = 0; J < nze; ++J) {
      const double* p = contacts.profile.data() + r.stretch_cell[J];
      ext.profile[J] = p[0] + (p[1] - p[0]) * r.stretch_frac[J];
    }
  }
  r.stretched = make_device_grid(displaced, GridSize{grid.nx, nze, grid.interfaces}, ext);
  return r;
}

std::vector<double> roughness_kernel_table(const kernels::PhaseGrid& g, const kernels::KaneValley* valleys, const RoughnessOptions& opt,
                                           const TransportScales& scales) {
  using namespace constants;
  const double kstar = std::sqrt(electron_mass * kB * scales.temperature) / hbar, L = opt.length * 1e-9, kL2 = kstar * kstar * L * L;
  const std::size_t nphi = static_cast<std::size_t>(g.nphi);
  std::vector<double> table(static_cast<std::size_t>(kernels::kValleys) * g.nw * nphi * nphi);
  for (int v = 0; v < kernels::kValleys; ++v)
    for (int l = 0; l < g.nw; ++l) {
      double* D = table.data() + (static_cast<std::size_t>(v) * g.nw + l) * nphi * nphi;
      for (std::size_t m = 0; m < nphi; ++m)
        for (std::size_t m2 = m; m2 < nphi; ++m2)
          D[m * nphi + m2] = D[m2 * nphi + m] = kernels::roughness_kernel(valleys[v], kL2, (l + 0.5) * g.dw, m * g.dphi, m2 * g.dphi);
    }
  return table;
}

double roughness_rate_constant(const RoughnessOptions& opt, const TransportScales& scales, RateConvention rates) {
  using namespace constants;
  const double kstar = std::sqrt(electron_mass * kB * scales.temperature) / hbar, L = opt.length * 1e-9;
  const double golden = scales.length_x * 1e-9 * kstar * kstar * kstar * L * L / 2;
  return rates == RateConvention::GoldenRule ? golden : golden / (2 * pi);
}

}  // namespace quanta::mosfet
