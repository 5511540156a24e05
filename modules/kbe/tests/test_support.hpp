#pragma once
// Shared pieces of the kbe tests: a small model config and the equal-time density matrix.
#include <cmath>
#include <complex>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "quanta/kbe/params.hpp"
#include "quanta/kbe/propagator.hpp"

namespace kbe_test {

using Z = std::complex<double>;

// Two cosine bands with a gap of about 2 and width 1, d_k = 1, filled valence band.
inline quanta::kbe::Config small_config(int nk, double u, double dt, int steps) {
  quanta::kbe::Config c;
  auto& m = c.model;
  m.nk = nk;
  m.valence.onsite = -1.0;
  m.valence.hopping = {-0.25};
  m.conduction.onsite = 1.0;
  m.conduction.hopping = {0.25};
  m.dipole = 1.0;
  m.interaction.u = u;
  m.pulse.amplitude = 0.5;
  m.pulse.center = 1.0;
  m.pulse.width = 0.3;
  m.pulse.frequency = 2.0;
  m.n_valence.assign(nk, 1.0);
  m.n_conduction.assign(nk, 0.0);
  c.time.dt = dt;
  c.time.steps = steps;
  c.solver.corrector_tolerance = 1e-12;
  c.solver.corrector_iterations = 50;
  return c;
}

// rho(k)_{ab} = <c+_b c_a> at the propagator's current step, [nk][4].
inline std::vector<Z> density(const quanta::kbe::Propagator& p) {
  std::vector<Z> out;
  for (const auto& x : p.density_matrix()) out.emplace_back(x.re, x.im);
  return out;
}

inline double max_abs_diff(const std::vector<Z>& a, const std::vector<Z>& b) {
  double d = 0;
  for (std::size_t i = 0; i < a.size(); ++i) d = std::max(d, std::abs(a[i] - b[i]));
  return d;
}

inline std::vector<Z> propagate_to_end(const quanta::kbe::Config& c, int threads = 2) {
  quanta::kbe::Propagator p(c, threads);
  while (p.step() < c.time.steps) p.advance();
  return density(p);
}

// A fresh folder under the temporary directory holding config.toml: the small model above with a second
// neighbour in the conduction band, the full G<> written, for the tests that run whole `quanta kbe` runs.
// compressed_history: solver.history = "compressed" (tolerance 1e-6, leaf 8), and no write_green (it refuses it).
inline std::filesystem::path make_run_case(const std::string& name, int nk, int steps, const char* self_energy,
                                           int checkpoint_every, bool compressed_history = false) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / ("quanta-kbe-" + name);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  char buf[1024];
  std::snprintf(buf, sizeof buf, R"(
[model]
nk = %d
[model.valence]
onsite = -1.0
hopping = [-0.25]
[model.conduction]
onsite = 1.0
hopping = [0.25, 0.05]
[interaction]
u = 0.6
[pulse]
amplitude = 0.5
center = 1.0
width = 0.3
frequency = 2.0
[time]
dt = 0.05
steps = %d
[solver]
self_energy = "%s"
%s
[output]
checkpoint_every = %d
write_green = %s
)",
                nk, steps, self_energy, compressed_history ? "history = \"compressed\"\nhistory_tolerance = 1e-6\nhistory_leaf = 8" : "",
                checkpoint_every, compressed_history ? "false" : "true");
  std::ofstream(dir / "config.toml") << buf;
  return dir;
}

}  // namespace kbe_test
