// quanta-mosfet.h5 and quanta-mosfet.txt, each written under a temporary name and renamed when complete.
#include <cstdio>
#include <fstream>

#include "outputs.hpp"
#include "quanta/core/io/atomic_file.hpp"
#include "quanta/core/io/hdf5.hpp"
#include "quanta/core/version.hpp"

namespace quanta::mosfet {
namespace {

// [nx][3][ns][inner] -> [3][ns][nx][inner]
std::vector<double> valley_major(const std::vector<double>& a, int nx, int ns, int inner) {
  std::vector<double> out(a.size());
  for (int i = 0; i < nx; ++i)
    for (int v = 0; v < 3; ++v)
      for (int p = 0; p < ns; ++p)
        for (int k = 0; k < inner; ++k)
          out[((static_cast<std::size_t>(v) * ns + p) * nx + i) * inner + k] =
              a[((static_cast<std::size_t>(i) * 3 + v) * ns + p) * inner + k];
  return out;
}

}  // namespace

void write_results(const std::filesystem::path& path, const Config& config, const SchrodingerPoisson& block,
                   const BlockResult& result, const RunMetadata& meta) {
  const DeviceGrid& g = block.grid();
  const int ns = block.options().subbands;
  const std::size_t nx = g.nx, nz = g.nz, nv = 3, nsb = ns;
  io::TemporaryPath temp(path);  // removed unless committed: an error below leaves nothing behind
  {
    io::H5File f(temp.path(), io::H5File::Mode::Create);
    std::vector<double> x(nx), z(nz);
    for (std::size_t i = 0; i < nx; ++i) x[i] = i * g.dx;
    for (std::size_t j = 0; j < nz; ++j) z[j] = j * g.dz;
    f.write("grid/x", x, {nx});
    f.write("grid/z", z, {nz});
    f.write_attribute("grid/x", "units", "nm");
    f.write_attribute("grid/z", "units", "nm");
    f.write("device/doping", g.doping, {nx, nz});
    f.write_attribute("device/doping", "units", "nm^-3");
    f.write("device/eps_r", g.eps_r, {nx, nz});
    std::vector<double> dir(g.dirichlet.begin(), g.dirichlet.end());
    f.write("device/dirichlet", dir, {nx, nz});
    f.write_scalar("device/source_potential", g.source_potential);
    f.write_scalar("device/gate_voltage", config.device.bias.gate_voltage);
    f.write_scalar("device/temperature", config.device.temperature);
    f.write("potential", block.potential(), {nx, nz});
    f.write_attribute("potential", "units", "V");
    f.write("density", block.density(), {nx, nz});
    f.write_attribute("density", "units", "nm^-3 (electrons)");
    f.write("subbands/energies", valley_major(block.eigenvalues(), g.nx, ns, 1), {nv, nsb, nx});
    f.write_attribute("subbands/energies", "units", "eV (relative to the Fermi level of the contacts)");
    f.write("subbands/populations", valley_major(block.populations(), g.nx, ns, 1), {nv, nsb, nx});
    f.write_attribute("subbands/populations", "units", "nm^-2 per valley (both spins); N = 2 sum rho |psi|^2");
    f.write("subbands/wavefunctions", valley_major(block.eigenvectors(), g.nx, ns, g.nz), {nv, nsb, nx, nz});
    f.write_attribute("subbands/wavefunctions", "units", "nm^-1/2, dz sum_j psi^2 = 1");
    std::vector<double> res, change, lin;
    for (const auto& s : result.history) {
      res.push_back(s.residual);
      change.push_back(s.change);
      lin.push_back(s.linear_steps);
    }
    const std::size_t n = result.history.size();
    f.write("convergence/residual", res, {n});
    f.write_attribute("convergence/residual", "units", "V/nm^2, |P[V^k]|_inf before iteration k");
    f.write("convergence/change", change, {n});
    f.write_attribute("convergence/change", "units", "V, |V^{k+1} - V^k|_inf");
    f.write("convergence/linear_steps", lin, {n});
    f.write_scalar("convergence/converged", result.converged ? 1.0 : 0.0);
    f.write_string("metadata/quanta_version", version());
    f.write_string("metadata/config_file", meta.config_file);
    f.write_string("metadata/backend", meta.backend);
    f.write_string("metadata/device", meta.device);
    f.write_string("metadata/linear_solver", to_string(block.options().linear_solver));
    for (const auto& [name, s] : meta.timings) f.write_scalar("metadata/timings/" + name, s);
    for (const auto& [name, s] : block.kernel_times().seconds) f.write_scalar("metadata/kernel_seconds/" + name, s);
    f.close();
  }
  temp.commit();
}

void write_summary(const std::filesystem::path& path, const Config& config, const SchrodingerPoisson& block,
                   const BlockResult& result, const RunMetadata& meta) {
  io::AtomicFile out(path);
  auto& s = out.stream();
  const DeviceGrid& g = block.grid();
  char line[256];
  s << "# quanta " << version() << " mosfet: equilibrium of the double-gate MOSFET (" << config.source << ")\n";
  s << "# backend " << meta.backend << " (" << meta.device << "), grid " << g.nx << " x " << g.nz << ", linear solver "
    << to_string(block.options().linear_solver) << "\n";
  std::snprintf(line, sizeof line, "# V_s (neutral source contact) = %.9f V, gate voltage %.4f V, T = %.1f K\n",
                g.source_potential, config.device.bias.gate_voltage, config.device.temperature);
  s << line;
  s << "# newton  residual[V/nm^2]  change[V]  linear_steps\n";
  for (std::size_t k = 0; k < result.history.size(); ++k) {
    std::snprintf(line, sizeof line, "%6zu  %.6e  %.6e  %d\n", k, result.history[k].residual, result.history[k].change,
                  result.history[k].linear_steps);
    s << line;
  }
  s << (result.converged ? "# converged\n" : "# NOT converged\n");
  const auto eps = block.eigenvalues();
  const int ns = block.options().subbands;
  s << "# lowest subband energies [eV] along x: x[nm]  valley1 valley2 valley3\n";
  for (int i = 0; i < g.nx; ++i) {
    std::snprintf(line, sizeof line, "%9.4f  %.6f  %.6f  %.6f\n", i * g.dx, eps[(i * 3 + 0) * ns], eps[(i * 3 + 1) * ns],
                  eps[(i * 3 + 2) * ns]);
    s << line;
  }
  for (const auto& [name, t] : meta.timings) {
    std::snprintf(line, sizeof line, "# time %s %.6f s\n", name.c_str(), t);
    s << line;
  }
  out.commit();
}

}  // namespace quanta::mosfet
