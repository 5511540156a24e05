// The model's time- and k-dependent ingredients, and the digest that ties a checkpoint to its config.
#include <cmath>
#include <cstring>

#include "quanta/core/error.hpp"
#include "quanta/kbe/params.hpp"

namespace quanta::kbe {

double Band::energy(double k) const {
  double e = onsite;
  for (std::size_t n = 0; n < hopping.size(); ++n) e += 2.0 * hopping[n] * std::cos(static_cast<double>(n + 1) * k);
  return e;
}

double Pulse::at(double t) const {
  if (amplitude == 0.0) return 0.0;
  const double x = t - center;
  return amplitude * std::exp(-x * x / (2.0 * width * width)) * std::cos(frequency * x);
}

double Interaction::at(double t) const {
  if (ramp > 0.0 && t < ramp) {
    const double s = std::sin(0.5 * M_PI * t / ramp);
    return u * s * s;
  }
  return u;
}

SelfEnergyMethod parse_self_energy_method(const std::string& text) {
  if (text == "direct") return SelfEnergyMethod::Direct;
  if (text == "fft") return SelfEnergyMethod::Fft;
  throw Error("self-energy method: found \"" + text + "\", expected \"direct\" or \"fft\"");
}

std::string to_string(SelfEnergyMethod m) { return m == SelfEnergyMethod::Direct ? "direct" : "fft"; }

HistoryStorage parse_history_storage(const std::string& text) {
  if (text == "dense") return HistoryStorage::Dense;
  if (text == "compressed") return HistoryStorage::Compressed;
  throw Error("history storage: found \"" + text + "\", expected \"dense\" or \"compressed\"");
}

std::string to_string(HistoryStorage h) { return h == HistoryStorage::Dense ? "dense" : "compressed"; }

namespace {

struct Fnv {
  std::uint64_t h = 1469598103934665603ull;
  void bytes(const void* p, std::size_t n) {
    const auto* c = static_cast<const unsigned char*>(p);
    for (std::size_t i = 0; i < n; ++i) h = (h ^ c[i]) * 1099511628211ull;
  }
  void num(double x) { bytes(&x, sizeof x); }
  void num(int x) { bytes(&x, sizeof x); }
  void vec(const std::vector<double>& v) {
    num(static_cast<int>(v.size()));
    for (double x : v) num(x);
  }
};

}  // namespace

std::uint64_t Config::trajectory_digest() const {
  Fnv f;
  const Model& m = model;
  f.num(m.nk);
  f.num(m.valence.onsite);
  f.vec(m.valence.hopping);
  f.num(m.conduction.onsite);
  f.vec(m.conduction.hopping);
  f.num(m.dipole);
  f.num(m.interaction.u);
  f.num(m.interaction.ramp);
  f.num(m.pulse.amplitude);
  f.num(m.pulse.center);
  f.num(m.pulse.width);
  f.num(m.pulse.frequency);
  f.vec(m.n_valence);
  f.vec(m.n_conduction);
  f.num(time.dt);
  f.num(time.steps);
  f.num(static_cast<int>(solver.self_energy));
  f.num(static_cast<int>(solver.second_born));
  f.num(solver.corrector_iterations);
  f.num(solver.corrector_tolerance);
  if (time.adaptive) {  // a fixed grid's digest is the one it always had
    f.num(1);
    f.num(time.end);
    f.num(time.tolerance);
    f.num(time.largest_step());
  }
  if (solver.history == HistoryStorage::Compressed) {  // a dense run's digest is the one it always had
    f.num(static_cast<int>(solver.history));
    f.num(solver.history_tolerance);
    f.num(solver.history_leaf);
  }
  return f.h;
}

}  // namespace quanta::kbe
