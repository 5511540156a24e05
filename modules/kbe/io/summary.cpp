// quanta-kbe.txt: the run's parameters and the observables per time step, as plain columns.
#include <algorithm>
#include <cstdio>

#include "outputs.hpp"
#include "quanta/core/io/atomic_file.hpp"
#include "quanta/core/version.hpp"

namespace quanta::kbe {

void write_summary(const std::filesystem::path& file, const Config& c, const History& h, const RunMetadata& meta) {
  io::AtomicFile out(file);
  auto& s = out.stream();
  char line[512];
  const Model& m = c.model;
  s << "# quanta " << version() << " kbe: two-band lattice model, second-Born Kadanoff-Baym propagation\n";
  s << "# config " << meta.config_file << " (digest " << hex_digest(meta.digest) << "), backend " << meta.backend
    << " (" << meta.device << "), self-energy " << to_string(c.solver.self_energy) << "\n";
  std::snprintf(line, sizeof line, "# nk = %d, dt = %.6g, steps = %d, U = %.6g (ramp %.6g), pulse E0 = %.6g at t = %.6g, width %.6g, carrier %.6g\n",
                m.nk, c.time.dt, c.time.steps, m.interaction.u, m.interaction.ramp, m.pulse.amplitude, m.pulse.center,
                m.pulse.width, m.pulse.frequency);
  s << line;
  if (h.size()) {
    const double drift = h.particles.back() - h.particles.front();
    std::snprintf(line, sizeof line, "# N(0) = %.15g, N(end) - N(0) = %.3e; E_total(0) = %.15g, E_total(end) = %.15g\n",
                  h.particles.front(), drift, h.energy_total.front(), h.energy_total.back());
    s << line;
  }
  if (c.time.adaptive && h.size()) {
    double rejected = 0, largest = 0;
    for (std::size_t n = 0; n < h.size(); ++n) {
      rejected += h.rejected_steps[n];
      largest = std::max(largest, h.step_error[n]);
    }
    std::snprintf(line, sizeof line, "# adaptive steps (tolerance %.3g, dt %.6g to %.6g): %zu taken to t = %.6g, %.0f rejected, largest error estimate %.3g, last %.3g\n",
                  c.time.tolerance, c.time.dt, c.time.largest_step(), h.size() - 1, h.time.back(), rejected, largest, h.step_error.back());
    s << line;
  }
  if (c.solver.history == HistoryStorage::Compressed) {
    std::snprintf(line, sizeof line, "# history compressed (tolerance %.3g, leaf %d): %.4g numbers held, %.4f of the dense half-plane; %d blocks, largest rank %d\n",
                  c.solver.history_tolerance, c.solver.history_leaf, static_cast<double>(meta.history.numbers),
                  meta.history.dense_numbers ? static_cast<double>(meta.history.numbers) / meta.history.dense_numbers : 0.0, meta.history.blocks,
                  meta.history.max_rank);
    s << line;
  }
  for (const auto& [name, seconds] : meta.timings) {
    std::snprintf(line, sizeof line, "# time %s: %.3f s\n", name.c_str(), seconds);
    s << line;
  }
  s << "# extensive quantities (sums over the nk k-points); n_c_mean = (1/nk) sum_k n_c(k)\n";
  s << "#          t            E(t)               N    polarization        E_kinetic    E_interaction         E_total       n_c_mean  passes\n";
  for (std::size_t n = 0; n < h.size(); ++n) {
    double nc = 0;
    for (int k = 0; k < h.nk; ++k) nc += h.n_conduction[n * h.nk + k];
    std::snprintf(line, sizeof line, "%12.6f %15.8e %15.10f %15.8e %16.10f %16.10f %16.10f %14.8e %7lld\n", h.time[n],
                  h.field[n], h.particles[n], h.polarization[n], h.energy_kinetic[n], h.energy_interaction[n],
                  h.energy_total[n], nc / h.nk, static_cast<long long>(h.corrector_passes[n]));
    s << line;
  }
  out.commit();
}

}  // namespace quanta::kbe
