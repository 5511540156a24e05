#pragma once
// The Schroedinger-Poisson block (the seed's "iter" phase) as a module of its own: given the surface
// densities rho_{v,p}(x) it returns the subband energies eps_{v,p}(x), the wave functions psi_{v,p}(x, z)
// and the potential V(x, z) (entry a, what a transport solver calls every stage); or, at equilibrium, it
// takes the populations from Fermi-Dirac statistics of each subband's 2-D electron gas and iterates them
// to self-consistency together with V (entry b).
//
// The Newton-Raphson iteration on P[V] = -div(eps grad V) - q/eps0 (N_D - N[V]) (seed eqs. 4-12): each
// iteration re-solves the Schroedinger problems of all (x, valley) (multi-section at the first call,
// Newton-Raphson refinement afterwards; inverse iteration for the vectors), evaluates the Frechet
// derivative of the density, builds the linear system and solves it by SRJ or directly.
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "quanta/core/backend.hpp"
#include "quanta/mosfet/device.hpp"
#include "quanta/mosfet/statistics.hpp"

namespace quanta::mosfet {

enum class LinearSolver { Srj, Direct };
LinearSolver parse_linear_solver(const std::string& s);  // "srj" | "direct"
std::string to_string(LinearSolver s);

struct BlockOptions {
  int subbands = 6;             // N_sbn: populated subbands per valley
  int frechet_states = 0;       // eigenpairs entering the derivative's pair sum; 0: = subbands (the seed)
  LinearSolver linear_solver = LinearSolver::Direct;
  int max_newton = 60;
  double newton_tol = 1e-9;     // |V^{k+1} - V^k|_inf, V
  double srj_tol = 1e-12;       // the seed's |b - A u|_inf / |u|_inf
  int srj_max_cycles = 200000;
  double eigen_tol = 1e-13;     // eigenvalues, eV (absolute)
  double vector_tol = 1e-12;    // eigenvectors (unit vectors, inf norm)
  int n_multi = 33;             // multi-section sub-intervals
  // The subbands' statistics at equilibrium (entry b and the neutral contact): Fermi-Dirac, or Maxwell-Boltzmann
  // for the equilibrium that starts the Boltzmann transport phase.
  Statistics statistics = Statistics::FermiDirac;
  // Entry (a) with the direct solver: keep the factored matrix of the last full Newton step, across iterations
  // and calls, and take chord steps with it (kernels::chord_row): the Jacobian of a nearby potential, so the
  // iteration converges linearly to the same solution. A chord step that shrinks the potential change by less
  // than kChordContraction brings a full step (a new Frechet derivative and factorization) next.
  bool reuse_jacobian = false;
  static constexpr double kChordContraction = 0.1;
  int states() const { return frechet_states > subbands ? frechet_states : subbands; }
};

struct NewtonStep {
  double residual = 0;      // |P[V^k]|_inf before the step, V/nm^2
  double change = 0;        // |V^{k+1} - V^k|_inf, V
  int linear_steps = 0;     // SRJ relaxation steps (0 for the direct solver)
  double linear_residual = 0;
  bool chord = false;       // a chord step with the held matrix (BlockOptions::reuse_jacobian)
};

// A call's outcome. Reaching max_newton is returned (converged false; not_converged_message says so) so
// that a caller may decide; anything that is not a result throws Error naming the stage, the Newton
// iteration and the quantity: a non-finite potential, residual or eigenvalue, an eigenvalue refinement
// or inverse iteration at its iteration limit, SRJ at srj_max_cycles.
struct BlockResult {
  bool converged = false;
  std::vector<NewtonStep> history;
  double seconds = 0;
};
// "mosfet: Newton-Raphson did not converge: ..." with the limit, the last change and the tolerance;
// empty when converged.
std::string not_converged_message(const BlockResult& r, const BlockOptions& options);

// Wall time per kernel (the seed's Table 4 names), accumulated over the block's calls.
struct KernelTimes {
  std::vector<std::pair<std::string, double>> seconds;
  int calls = 0;
  void add(const std::string& name, double s);
};

struct RoughnessGrid;  // quanta/mosfet/roughness.hpp
class Engine;  // where the arrays live and the kernels run (src/engine.hpp)

class SchrodingerPoisson {
 public:
  // The backend must be resolved (Cpu or Cuda). Throws Error when the host memory the block needs
  // (host_bytes) is not available, OutOfDeviceMemory when the device arrays do not fit.
  SchrodingerPoisson(const DeviceGrid& grid, const BlockOptions& options, Backend backend);
  ~SchrodingerPoisson();
  SchrodingerPoisson(const SchrodingerPoisson&) = delete;
  SchrodingerPoisson& operator=(const SchrodingerPoisson&) = delete;

  // The starting potential [nx][nz] (default: the boundary values spread over each x column).
  void set_potential(const std::vector<double>& v);
  // With BlockOptions::reuse_jacobian: the next call starts with a full Newton step (a new factored matrix).
  // The transport phase calls it at every time step, so a run resumed between steps repeats the
  // uninterrupted one step for step.
  void renew_jacobian() { factored_ = false; }

  // Entry (a): rho [nx][3][subbands] surface densities per valley, nm^-2.
  BlockResult solve(const std::vector<double>& rho);
  // Entry (b): equilibrium at the given Fermi level (eV; the contacts' level is 0).
  BlockResult solve_equilibrium(double fermi_level = 0.0);

  // The state after the last call.
  std::vector<double> potential() const;     // [nx][nz] V
  std::vector<double> eigenvalues() const;   // [nx][3][subbands] eV
  std::vector<double> eigenvectors() const;  // [nx][3][subbands][nz] nm^-1/2
  // scale * int psi_a^2 psi_b^2 dz of the subbands' eigenvectors, [nx][3 subbands][3 subbands] (nm^-1 times
  // scale's unit), computed where the eigenvectors are (kernels::Overlaps).
  std::vector<double> overlaps(double scale) const;
  // Surface roughness: the displaced device's Poisson problem (quanta/mosfet/roughness.hpp), set once per
  // device and bias; then the form factors of the state after the last call, [nx][3 subbands] in (k_B T)^2.
  void set_roughness(RoughnessGrid r);  // kept (moved in) for the extended problems
  std::vector<double> roughness_form_factors() const;
  // The potential shifts of that call, [2][nx][nz] V: dV_up = V0 - V_ext(z), dV_low = V0 - V_ext(z + Delta_SR), V0 the
  // unperturbed potential (RoughnessShift).
  std::vector<double> roughness_potential_shifts() const;
  std::vector<double> populations() const;   // [nx][3][subbands] nm^-2 (the last rho used)
  std::vector<double> density() const;       // [nx][nz] N in nm^-3

  const DeviceGrid& grid() const { return grid_; }
  const BlockOptions& options() const { return opt_; }
  Backend backend() const { return backend_; }
  const KernelTimes& kernel_times() const;
  // Per-kernel timing (on by default). The GPU engine synchronizes after every stage to time it; off, the
  // stages run back to back and a kernel's error surfaces at the next synchronization (the Newton residual
  // or the potential change of the same iteration), named after that stage.
  void set_kernel_timing(bool on);
  void reset_kernel_times();

 private:
  BlockResult newton(bool equilibrium, double fermi_level);
  void update_eigenstates(int iteration);  // iteration: the Newton step just taken (0-based), -1 before the first
  void equilibrium_populations(double fermi_level);

  DeviceGrid grid_;
  BlockOptions opt_;
  Backend backend_;
  std::unique_ptr<Engine> engine_;
  bool have_eigenstates_ = false;
  std::unique_ptr<RoughnessGrid> roughness_;  // the maps, when set
  bool factored_ = false;  // the engine holds the factored matrix of an entry (a) Newton step
  std::vector<double> rho_, drho_;  // [nx][3][states]
  std::vector<double> eigenvalues_;  // [nx][3][states] the engine's, checked after every update
};

// Host memory the block takes on the grid: its arrays on the CPU backend, the starting potential's
// direct solve and the outputs' copies on either (bytes; saturates rather than wrapping).
std::size_t host_bytes(const DeviceGrid& grid, const BlockOptions& options, Backend backend);

// The source contact's potential V_s: the flat-potential column of the contact holds exactly the
// donors of the film, g sum_{v,p} rho_{v,p} = N_D t_si (subband statistics at Fermi level 0).
double neutral_contact_potential(const Device& device, const GridSize& grid, int subbands,
                                 Statistics statistics = Statistics::FermiDirac);

}  // namespace quanta::mosfet
