#pragma once
// Where the Boltzmann distribution lives and the right-hand side of its equations is evaluated: the host
// (OpenMP, the oracle) or one GPU (everything resident; only the Schroedinger-Poisson state crosses the bus,
// once per Runge-Kutta stage). The transport phase drives either through this interface.
#include <memory>
#include <vector>

#include "../kernels/phonon_scattering.hpp"
#include "../kernels/transport_terms.hpp"

namespace quanta::mosfet {

// What the right-hand side needs besides the distribution: the grid, the valleys in energy-angle variables
// and the scattering constants.
struct TransportSetup {
  kernels::PhaseGrid grid;
  kernels::KaneValley valleys[kernels::kValleys];
  kernels::PhononScattering scattering;
  bool periodic_x = false;  // tests: x periodic instead of the contacts
  // Surface roughness (kernels/roughness.hpp), on when the kernel table is not empty: the rate constant (1/t*
  // per (k_B T)^2) and D [3][nw][nphi][nphi].
  double roughness_constant = 0;
  std::vector<double> roughness_kernel;
  bool roughness() const { return !roughness_kernel.empty(); }
};

// The moments of the distribution per subband and x node, each [3][nsbn][nx] (the layout of eps'),
// dimensionless (docs/mosfet-transport-model.md, section 5.1): surface density rho = dw dphi sum Phi,
// current j = dw dphi sum a^1 Phi, kinetic energy dw dphi sum w Phi, and the angle integral of the last
// energy cell, dphi sum_m Phi(w_{nw-1}).
struct TransportMoments {
  std::vector<double> rho, current, energy, top;
};

class TransportEngine {
 public:
  virtual ~TransportEngine() = default;
  virtual void upload_distribution(const std::vector<double>& phi) = 0;  // [3][nsbn][nx][nw][nphi]
  virtual std::vector<double> download_distribution() = 0;
  // The Schroedinger-Poisson state the right-hand side uses: subband energies eps [nx][3][nsbn] (k_B T),
  // overlaps int chi^2 chi'^2 dz [nx][3 nsbn][3 nsbn], and the contacts' rescaling rho_eq / rho [3][nsbn][2].
  // eps' (centred differences, one-sided at the ends) and the Lax-Friedrichs speed along phi follow.
  virtual void upload_block(const std::vector<double>& eps, const std::vector<double>& overlaps, const std::vector<double>& contact_scale) = 0;
  // With surface roughness: the form factors of the same state, [nx][3 nsbn] in (k_B T)^2.
  virtual void upload_roughness(const std::vector<double>& form) = 0;
  // rhs = scattering + transport terms of the current distribution.
  virtual void evaluate_rhs() = 0;
  virtual std::vector<double> download_rhs() = 0;
  virtual TransportMoments moments() = 0;
  // A Runge-Kutta step: keep the distribution Phi^n at the step's start, then after each evaluation of the
  // right-hand side Phi = a Phi^n + b Phi + c rhs.
  virtual void save_step_start() = 0;
  virtual void combine(double a, double b, double c) = 0;
  // One stage: evaluate_rhs() then combine(a, b, c). The GPU engine does the combination in the last kernel of
  // the right-hand side and leaves download_rhs() without its last term.
  virtual void stage(double a, double b, double c) {
    evaluate_rhs();
    combine(a, b, c);
  }
  // Waits for the work queued so far (the GPU's kernels run asynchronously); for timing.
  virtual void finish() {}
};

// From a Schroedinger-Poisson state's energies eps [nx][3][nsbn]: eps' [3][nsbn][nx] (kernels::energy_slope)
// and the Lax-Friedrichs speed along phi, A3 = max |eps'| |sin phi| / (sqrt(m_x) R(w)).
struct BlockSlopes {
  std::vector<double> deps_dx;
  double a3_max = 0;
};
BlockSlopes block_slopes(const TransportSetup& setup, const std::vector<double>& eps);

// Refuses a phase grid the terms cannot take: fewer than 2 x nodes, 6 energy cells or 6 angles, an odd number of
// angles (the w = 0 face pairs each angle with its opposite), or no subband. Both engines' constructors call it.
void check_phase_grid(const kernels::PhaseGrid& g);

// Refuses a Schroedinger-Poisson state whose arrays do not have the grid's sizes.
void check_block_sizes(const kernels::PhaseGrid& g, const std::vector<double>& eps, const std::vector<double>& overlaps,
                       const std::vector<double>& contact_scale);
// Refuses form factors without roughness in the setup, or of another size than [nx][3 nsbn], or not finite.
void check_roughness_sizes(const TransportSetup& s, const std::vector<double>& form);

std::unique_ptr<TransportEngine> make_cpu_transport_engine(const TransportSetup& setup);
#ifdef QUANTA_HAVE_CUDA
std::unique_ptr<TransportEngine> make_cuda_transport_engine(const TransportSetup& setup);
#endif

}  // namespace quanta::mosfet
