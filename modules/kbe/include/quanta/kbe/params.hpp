#pragma once
// Parameters of a kbe run: the seed's two-band model (eqs. (3)-(4)), the time grid, the solver and the
// outputs. Filled from a TOML config by read_config (config.hpp); docs/kbe.md lists the keys.
#include <cstdint>
#include <string>
#include <vector>

namespace quanta::kbe {

// Tight-binding band: eps(k) = onsite + 2 sum_{n>=1} hopping[n-1] cos(n k).
struct Band {
  double onsite = 0.0;
  std::vector<double> hopping;
  double energy(double k) const;
};

// E(t) = amplitude exp(-(t - center)^2 / (2 width^2)) cos(frequency (t - center)).
struct Pulse {
  double amplitude = 0.0, center = 0.0, width = 1.0, frequency = 0.0;
  double at(double t) const;
};

// U(t) = u, or switched on smoothly, u sin^2(pi t / (2 ramp)) for t < ramp, when ramp > 0.
struct Interaction {
  double u = 0.0, ramp = 0.0;
  double at(double t) const;
};

struct Model {
  int nk = 0;                       // k-points, k_i = 2 pi (i - floor(nk/2)) / nk
  Band valence, conduction;
  double dipole = 1.0;              // d_k, the same for every k as in the seed
  Interaction interaction;
  Pulse pulse;
  std::vector<double> n_valence;    // [nk] initial occupations (uncorrelated initial state)
  std::vector<double> n_conduction; // [nk]
};

// The time grid: fixed, t_n = n dt, n = 0..steps; or adaptive, each step chosen by an error estimate (the step of the
// predictor against the converged corrector, and the mean field's quadrature over the step) from dt up to the end
// time, with steps the most that may be taken (the arrays' size).
struct TimeGrid {
  double dt = 0.0;                  // the step; adaptive: the first step
  int steps = 0;                    // fixed: the steps; adaptive: the most steps
  bool adaptive = false;
  double end = 0.0;                 // adaptive: the final time
  double tolerance = 1e-6;          // adaptive: the error allowed per step (absolute, on the density matrix)
  double dt_max = 0.0;              // adaptive: the largest step (0: 10 dt)
  double largest_step() const { return dt_max > 0 ? dt_max : 10 * dt; }
};

enum class SelfEnergyMethod { Direct, Fft };
SelfEnergyMethod parse_self_energy_method(const std::string& text);  // "direct" | "fft"
std::string to_string(SelfEnergyMethod m);

// How the finished two-time history G<>(t, t'), t' <= t, is held: whole (the dense half-plane, O(nt^2)), or
// compressed (kernels/compressed_history.hpp: dense diagonal leaves and low-rank dyadic blocks, about O(nt log nt)).
enum class HistoryStorage { Dense, Compressed };
HistoryStorage parse_history_storage(const std::string& text);  // "dense" | "compressed"
std::string to_string(HistoryStorage h);

struct SolverOptions {
  SelfEnergyMethod self_energy = SelfEnergyMethod::Fft;
  HistoryStorage history = HistoryStorage::Dense;
  double history_tolerance = 1e-8;  // compressed: singular values at or below it dropped (absolute; |G<>| <= 1)
  int history_leaf = 32;            // compressed: times per dense diagonal leaf (the smallest block side)
  bool second_born = true;          // false: time-dependent Hartree-Fock only (no collision integrals)
  int corrector_iterations = 20;    // most corrector passes per step (seed Algorithm 1, "max")
  double corrector_tolerance = 1e-11;  // stop when max |G_new - G_old| over the row is below this
};

struct OutputOptions {
  bool write_green = false;         // the full half-plane G<> into quanta-kbe.h5
  int checkpoint_every = 0;         // steps between checkpoints; 0: none
};

struct Config {
  Model model;
  TimeGrid time;
  SolverOptions solver;
  OutputOptions output;
  std::string source;               // the file it was read from
  // FNV-1a 64 over every value that shapes the trajectory (not the output settings); a checkpoint is
  // resumed only under the same digest.
  std::uint64_t trajectory_digest() const;
};

}  // namespace quanta::kbe
