#pragma once
// Where the Schroedinger-Poisson block's arrays live and its kernels run: the host (OpenMP, the oracle)
// or one GPU (everything resident; only the small per-subband arrays and scalars cross the bus).
// SchrodingerPoisson (schrodinger_poisson.cpp) drives either through this interface.
#include <memory>
#include <vector>

#include "../kernels/linear_system.hpp"
#include "../kernels/schrodinger.hpp"
#include "quanta/mosfet/roughness.hpp"
#include "quanta/mosfet/schrodinger_poisson.hpp"

namespace quanta::mosfet {

class Engine {
 public:
  virtual ~Engine() = default;
  virtual void upload_potential(const std::vector<double>& v) = 0;    // [nx][nz]
  virtual std::vector<double> download_potential() = 0;
  // Schroedinger matrices for the current V, then the eigenvalues (multi-section when `first`, else
  // Newton-Raphson from the previous ones) and the eigenvectors (from the previous ones when not first).
  virtual void eigenstates(bool first) = 0;
  virtual std::vector<double> download_eigenvalues() = 0;             // [nx][3][states]
  virtual std::vector<double> download_eigenvectors() = 0;            // [nx][3][states][nz]
  // The overlaps of the populated subbands' eigenvectors (the first BlockOptions::subbands of each valley),
  // times `scale` (kernels::Overlaps), [nx][3 subbands][3 subbands]: computed where the eigenvectors are, so
  // that only the overlaps cross the bus.
  virtual std::vector<double> overlaps(double scale) = 0;
  // rho, drho: [nx][3][states]; drho empty: populations held (entry a).
  virtual void upload_populations(const std::vector<double>& rho, const std::vector<double>& drho) = 0;
  virtual void density() = 0;
  virtual std::vector<double> download_density() = 0;
  // Frechet derivative, the linear system and |P[V]|_inf at the current V.
  virtual void assemble() = 0;
  // Solve for the next V in place; returns |P[V]|_inf of the assembled V and |V_new - V_old|_inf (the GPU
  // fetches the two together).
  struct StepNorms {
    double residual = 0, change = 0;
  };
  virtual StepNorms solve(LinearSolver solver, const BlockOptions& opt, kernels::SrjStats& stats) = 0;
  // The chord (simplified Newton) step: with the matrix of the last direct solve(), V += dV where
  // rows dV = -P[V] / diag at the current V and density (kernels::chord_row). Returns |P[V]|_inf before the
  // step and |dV|_inf.
  virtual StepNorms chord_step() = 0;

  // Surface roughness (kernels/roughness.hpp): the extended Poisson problems, assembled and factored once here
  // (r is the block's and outlives the engine's use of it); then, for the current potential, density and
  // eigenvectors, their re-solves and the form factors of the populated subbands, [nx][3 subbands] in (k_B T)^2
  // (kT: k_B T in eV).
  virtual void set_roughness(const RoughnessGrid& r) = 0;
  virtual std::vector<double> roughness_form_factors(double kT) = 0;
  // The extended problems' solutions of the last roughness_form_factors() call: V_ext [nx][n displaced], then
  // (RoughnessShift::SameGrid) V_ref [nx][n undisplaced], V.
  virtual std::vector<double> download_extended_potentials() = 0;

  KernelTimes times;
  bool timing = true;  // time each stage (the GPU engine synchronizes for it)
  void record(const char* stage, double seconds) {
    if (timing) times.add(stage, seconds);
  }
};

// The eigenproblems of a grid with the block's tolerances; the arrays are the engine's (host or device).
inline kernels::EigenProblem eigen_problem(const DeviceGrid& g, const BlockOptions& opt, const double* d, const double* e,
                                           double* eigenvalues, double* eigenvectors, double* scratch) {
  kernels::EigenProblem p = kernels::eigen_problem(g.nx, g.nz, opt.states(), g.dz, d, e, eigenvalues, eigenvectors, scratch);
  p.tol = opt.eigen_tol;
  p.vector_tol = opt.vector_tol;
  p.n_multi = opt.n_multi;
  return p;
}

std::unique_ptr<Engine> make_cpu_engine(const DeviceGrid& grid, const BlockOptions& opt);
#ifdef QUANTA_HAVE_CUDA
std::unique_ptr<Engine> make_cuda_engine(const DeviceGrid& grid, const BlockOptions& opt);
#endif

}  // namespace quanta::mosfet
