// Surface-roughness scattering's fixed data: the stretched device, the grid maps, the kernel table, the constant.
#include "quanta/mosfet/roughness.hpp"

#include <algorithm>
#include <cmath>
#include <initializer_list>
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
    if (whole((geo.oxide_thickness + geo.silicon_thickness + opt.displacement) / h) && whole(total / h) &&
        (opt.shift == RoughnessShift::SeedCode || whole(opt.displacement / h)))
      return static_cast<int>(std::round(total / h)) + 1;
  }
  return static_cast<int>(std::round(total / dz)) + 1;
}

namespace {
// The device (its film `extra` thicker) on n nodes over [0, L_z + extra], the density read at map(Z_J), the contacts'
// profile (when not flat) read there too; the device's nodes located at z_j + shift for each shift.
template <class Map>
ExtendedProblem extended_problem(const Device& device, const GridSize& grid, const ContactBoundary& contacts, double extra, int n, Map&& map,
                                 std::initializer_list<double> shifts) {
  const double lz = device.geometry.width(), dz = lz / (grid.nz - 1), h = (lz + extra) / (n - 1);
  ExtendedProblem p;
  p.density_cell.resize(n);
  p.density_frac.resize(n);
  for (int J = 0; J < n; ++J) locate(std::min(map(J * h), lz), dz, grid.nz, p.density_cell[J], p.density_frac[J]);
  for (double shift : shifts)
    for (int j = 0; j < grid.nz; ++j) {
      int c;
      double f;
      locate(j * dz + shift, h, n, c, f);
      p.sample_cell.push_back(c);
      p.sample_frac.push_back(f);
    }
  Device d = device;
  d.geometry.silicon_thickness += extra;
  ContactBoundary ext{{}, contacts.gate_reference};
  if (!contacts.profile.empty()) {
    ext.profile.resize(n);
    for (int J = 0; J < n; ++J) {
      const double* v = contacts.profile.data() + p.density_cell[J];
      ext.profile[J] = v[0] + (v[1] - v[0]) * p.density_frac[J];
    }
  }
  try {
    p.grid = make_device_grid(d, GridSize{grid.nx, n, grid.interfaces}, ext);
  } catch (const Error& e) {
    throw Error("mosfet: the extended z grid of transport.roughness (" + std::to_string(n) + " nodes; the key nz): " + e.what());
  }
  return p;
}
}  // namespace

RoughnessGrid make_roughness_grid(const Device& device, const GridSize& grid, const ContactBoundary& contacts, const RoughnessOptions& opt) {
  const Geometry& geo = device.geometry;
  const double lz = geo.width(), delta = opt.displacement, band = opt.stretch * lz;
  const double a = 0.5 * (lz - band), top = 0.5 * (lz + band), b = top + delta;
  if (!(a >= geo.oxide_thickness && top <= geo.oxide_thickness + geo.silicon_thickness))
    throw Error("mosfet: transport.roughness.stretch = " + std::to_string(opt.stretch) + " stretches [" + std::to_string(a) + ", " +
                std::to_string(top) + "] nm, which is not inside the silicon film [" + std::to_string(geo.oxide_thickness) + ", " +
                std::to_string(geo.oxide_thickness + geo.silicon_thickness) + "] nm (stretch * the z extent must not exceed the film)");
  const int nze = extended_grid_nodes(opt, geo, grid.nz);
  auto sigma = [&](double z) {
    if (z <= a) return z;
    if (z <= b) return a + band / (band + delta) * (z - a);
    return z - delta;
  };
  RoughnessGrid r;
  r.displacement = delta;
  r.displaced = extended_problem(device, grid, contacts, delta, nze, sigma, {0.0, delta});
  if (opt.shift == RoughnessShift::SameGrid) {
    const double h = (lz + delta) / (nze - 1);
    const int n = static_cast<int>(std::round(lz / h)) + 1;
    r.undisplaced = extended_problem(device, grid, contacts, 0.0, n, [](double z) { return z; }, {0.0});
  }
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
