// The Schroedinger-Poisson block: the Newton-Raphson iteration of the seed's Fig. 2, stage by stage.
#include "quanta/mosfet/schrodinger_poisson.hpp"

#include <algorithm>
#include <cmath>
#include <utility>
#include <cstdio>

#include "../kernels/roughness.hpp"
#include "../kernels/schrodinger.hpp"
#include "engine.hpp"
#include "quanta/core/error.hpp"
#include "quanta/core/host_memory.hpp"
#include "quanta/core/timer.hpp"
#include "quanta/mosfet/statistics.hpp"

namespace quanta::mosfet {

LinearSolver parse_linear_solver(const std::string& s) {
  if (s == "srj") return LinearSolver::Srj;
  if (s == "direct") return LinearSolver::Direct;
  throw Error("mosfet: unknown linear solver \"" + s + "\" (expected \"srj\" or \"direct\")");
}
std::string to_string(LinearSolver s) { return s == LinearSolver::Srj ? "srj" : "direct"; }

void KernelTimes::add(const std::string& name, double s) {
  for (auto& [n, t] : seconds)
    if (n == name) {
      t += s;
      return;
    }
  seconds.emplace_back(name, s);
}

std::size_t host_bytes(const DeviceGrid& g, const BlockOptions& opt, Backend backend) {
  const std::size_t nx = g.nx, nz = g.nz, ns = opt.states(), n = nz > 2 ? nz - 2 : 0, d = sizeof(double);
  std::size_t total = 0;
  auto add = [&](std::size_t b) { total = b > SIZE_MAX - total ? SIZE_MAX : total + b; };
  // The starting potential (laplace_start): the rows, rhs, diagonal and potential, the direct solver's
  // blocks; and the block's copy of the device grid (5 doubles a node).
  add(bytes_of(d, nx, nz, nz + 2));
  add(kernels::CyclicReduction::doubles(g.nx, g.nz) * d);
  add(bytes_of(d, nx, nz, 8));
  add(bytes_of(d, nx, 3, ns, 4));  // the populations and their derivatives, the host eigenvalues
  if (backend == Backend::Cpu) {
    // The CPU engine's arrays (engine_cpu.cpp) beside them: Frechet derivative, rows, eigenpairs, scratch.
    add(bytes_of(d, nx, nz, nz));
    add(bytes_of(d, nx, nz, nz + 2));
    add(bytes_of(d, nx, nz, 8));
    add(bytes_of(d, nx, 3, n, 2));
    add(bytes_of(d, nx, 3, ns, nz + 2 * n + 3));
  } else {
    add(bytes_of(d, nx, 3, ns, nz));  // the eigenvectors, downloaded for the outputs
  }
  return total;
}

namespace {
std::string sci(double x) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3e", x);
  return text;
}

// The starting potential: the neutral Laplace problem (N = N_D) with the contact and gate values.
std::vector<double> laplace_start(const DeviceGrid& g) {
  const std::size_t nodes = static_cast<std::size_t>(g.nx) * g.nz;
  std::vector<double> v(nodes, g.source_potential), rows(nodes * (g.nz + 2)), rhs(nodes), diag(nodes), work;
  kernels::LinearSystem s{g.nx, g.nz, rows.data(), rhs.data(), diag.data()};
  kernels::SystemBuild b{g.nx, g.nz, g.dx, g.dz, g.eps_r.data(), g.doping.data(), g.dirichlet.data(),
                         g.boundary_value.data(), v.data(), g.doping.data(), nullptr, constants::q_over_eps0, s};
  kernels::construct_system_cpu(b);
  kernels::direct_solve_cpu(s, v.data(), work);
  return v;
}
}  // namespace

SchrodingerPoisson::SchrodingerPoisson(const DeviceGrid& grid, const BlockOptions& options, Backend backend)
    : grid_(grid), opt_(options), backend_(backend) {
  if (opt_.subbands < 1 || opt_.states() > grid_.nz - 2)
    throw Error("mosfet: " + std::to_string(opt_.states()) + " eigenpairs asked of matrices of order " +
                std::to_string(grid_.nz - 2) + " (nz - 2)");
  require_host_memory(host_bytes(grid_, opt_, backend),
                      "mosfet: the Schroedinger-Poisson block on a " + std::to_string(grid_.nx) + " x " +
                          std::to_string(grid_.nz) + " grid (" + to_string(backend) + " backend)");
#ifdef QUANTA_HAVE_CUDA
  if (backend == Backend::Cuda) engine_ = make_cuda_engine(grid_, opt_);
#endif
  if (!engine_) {
    if (backend == Backend::Cuda) throw Error("mosfet: built without the CUDA backend");
    engine_ = make_cpu_engine(grid_, opt_);
  }
  const std::size_t sub = static_cast<std::size_t>(grid_.nx) * 3 * opt_.states();
  rho_.assign(sub, 0.0);
  engine_->upload_potential(laplace_start(grid_));
}

SchrodingerPoisson::~SchrodingerPoisson() = default;

void SchrodingerPoisson::set_potential(const std::vector<double>& v) {
  if (v.size() != static_cast<std::size_t>(grid_.nx) * grid_.nz)
    throw Error("mosfet: a potential of " + std::to_string(v.size()) + " values for a grid of " +
                std::to_string(grid_.nx) + " x " + std::to_string(grid_.nz));
  engine_->upload_potential(v);
  have_eigenstates_ = false;
  factored_ = false;
}

void SchrodingerPoisson::update_eigenstates(int iteration) {
  engine_->eigenstates(!have_eigenstates_);
  have_eigenstates_ = true;
  // A refinement or an inverse iteration that reached its limit leaves a NaN eigenvalue (kernels/
  // schrodinger.hpp), as does a potential that is not finite: stop here, naming the eigenpair.
  eigenvalues_ = engine_->download_eigenvalues();
  const int ns = opt_.states();
  for (std::size_t k = 0; k < eigenvalues_.size(); ++k)
    if (!std::isfinite(eigenvalues_[k])) {
      const std::size_t i = k / (3 * ns), v = k / ns % 3, p = k % ns;
      char where[160];
      std::snprintf(where, sizeof where, "x node %zu (x = %.4g nm), valley %zu, level %zu", i, i * grid_.dx, v + 1, p);
      throw Error("mosfet: Schroedinger stage " + std::string(iteration < 0 ? "before the first Newton-Raphson iteration"
                                                                             : "after Newton-Raphson iteration " + std::to_string(iteration + 1)) +
                  ": the eigenpair of " + where + " is not a result (eigenvalue " + sci(eigenvalues_[k]) +
                  "; the eigenvalue refinement or inverse iteration reached its iteration limit, or the potential is not finite)");
    }
}

void SchrodingerPoisson::equilibrium_populations(double fermi_level) {
  const std::vector<double>& eps = eigenvalues_;
  const int ns = opt_.states();
  drho_.assign(rho_.size(), 0.0);
  for (int i = 0; i < grid_.nx; ++i)
    for (int v = 0; v < 3; ++v)
      for (int p = 0; p < opt_.subbands; ++p) {
        const std::size_t k = (static_cast<std::size_t>(i) * 3 + v) * ns + p;
        const SubbandPopulation s = subband_population(opt_.statistics, eps[k], fermi_level, grid_.kT, grid_.dos2d[v], grid_.alpha[v]);
        rho_[k] = s.rho;
        drho_[k] = s.drho;
      }
  engine_->upload_populations(rho_, drho_);
}

BlockResult SchrodingerPoisson::solve(const std::vector<double>& rho) {
  const int ns = opt_.states(), nsb = opt_.subbands;
  if (rho.size() != static_cast<std::size_t>(grid_.nx) * 3 * nsb)
    throw Error("mosfet: " + std::to_string(rho.size()) + " surface densities given; the block expects nx * 3 * subbands = " +
                std::to_string(grid_.nx * 3 * nsb));
  for (std::size_t k = 0; k < rho.size(); ++k)
    if (!(std::isfinite(rho[k]) && rho[k] >= 0.0))
      throw Error("mosfet: surface density " + std::to_string(k) + " (x node " + std::to_string(k / (3 * nsb)) + ", valley " +
                  std::to_string(k / nsb % 3 + 1) + ", subband " + std::to_string(k % nsb) + ") is " + sci(rho[k]) +
                  "; the block expects finite densities >= 0 (nm^-2)");
  std::fill(rho_.begin(), rho_.end(), 0.0);
  for (std::size_t iv = 0; iv < static_cast<std::size_t>(grid_.nx) * 3; ++iv)
    for (int p = 0; p < nsb; ++p) rho_[iv * ns + p] = rho[iv * nsb + p];
  drho_.clear();
  engine_->upload_populations(rho_, drho_);
  return newton(false, 0.0);
}

BlockResult SchrodingerPoisson::solve_equilibrium(double fermi_level) { return newton(true, fermi_level); }

BlockResult SchrodingerPoisson::newton(bool equilibrium, double fermi_level) {
  WallTimer total;
  BlockResult r;
  // The eigenpairs are those of the current potential unless it was set since (every Newton step below
  // ends with them), so a call from the previous call's state starts without re-solving them.
  if (!have_eigenstates_) update_eigenstates(-1);
  const bool chord_allowed = !equilibrium && opt_.reuse_jacobian && opt_.linear_solver == LinearSolver::Direct;
  bool full = !(chord_allowed && factored_);
  for (int k = 0; k < opt_.max_newton; ++k) {
    if (equilibrium) equilibrium_populations(fermi_level);
    engine_->density();
    NewtonStep step;
    kernels::SrjStats srj;
    Engine::StepNorms norms;
    if (full) {
      engine_->assemble();
      norms = engine_->solve(opt_.linear_solver, opt_, srj);
      factored_ = chord_allowed;
    } else {
      norms = engine_->chord_step();
      step.chord = true;
    }
    step.residual = norms.residual;
    step.change = norms.change;
    step.linear_steps = srj.steps;
    step.linear_residual = srj.residual;
    r.history.push_back(step);
    // The norms map a NaN to +infinity (kernels::norm_term): either not finite means V or P[V] is not.
    const std::string at = "Newton-Raphson iteration " + std::to_string(k + 1) + " of at most " + std::to_string(opt_.max_newton);
    if (!std::isfinite(step.residual))
      throw Error("mosfet: " + at + ": the residual |P[V]|_inf is not finite (the potential, the density or the "
                  "Frechet derivative holds a NaN or an infinity)");
    if (opt_.linear_solver == LinearSolver::Srj && !srj.converged)
      throw Error("mosfet: " + at + ": the SRJ linear solver stopped after " + std::to_string(srj.cycles) + " cycles (srj_max_cycles " +
                  std::to_string(opt_.srj_max_cycles) + ") at relative residual " + sci(srj.residual) +
                  ", above srj_tolerance " + sci(opt_.srj_tol) +
                  (std::isfinite(srj.residual) ? std::string() : std::string(" (the iterate is not finite)")));
    if (!std::isfinite(step.change))
      throw Error("mosfet: " + at + ": the potential change |V^{k+1} - V^k|_inf is not finite (residual before the step " +
                  sci(step.residual) + " V/nm^2)");
    update_eigenstates(k);
    if (step.change < opt_.newton_tol) {
      r.converged = true;
      break;
    }
    // A chord step that shrank the change by less than kChordContraction (or let it grow) asks for a new matrix.
    full = !chord_allowed || (step.chord && k > 0 && step.change > BlockOptions::kChordContraction * r.history[k - 1].change);
  }
  if (equilibrium) equilibrium_populations(fermi_level);
  engine_->density();
  engine_->times.calls++;
  r.seconds = total.seconds();
  return r;
}

std::string not_converged_message(const BlockResult& r, const BlockOptions& opt) {
  if (r.converged) return {};
  char text[400];
  const NewtonStep last = r.history.empty() ? NewtonStep{} : r.history.back();
  std::snprintf(text, sizeof text,
                "mosfet: Newton-Raphson did not converge: it reached max_newton = %d iterations with the last potential "
                "change %.3e V above newton_tolerance %.3e V (residual before the last step %.3e V/nm^2)",
                opt.max_newton, last.change, opt.newton_tol, last.residual);
  // The last changes show whether the iteration stalled or cycled.
  std::string out = text;
  const std::size_t n = r.history.size(), from = n > 6 ? n - 6 : 0;
  out += "; the last changes:";
  for (std::size_t k = from; k < n; ++k) {
    std::snprintf(text, sizeof text, " %.3e", r.history[k].change);
    out += text;
  }
  out += " V";
  return out;
}

namespace {
// Keeps the first `subbands` of the `states` per (i, v).
std::vector<double> first_subbands(const std::vector<double>& a, std::size_t groups, int states, int subbands, int inner) {
  std::vector<double> out(groups * subbands * inner);
  for (std::size_t g = 0; g < groups; ++g)
    std::copy_n(a.begin() + g * states * inner, subbands * inner, out.begin() + g * subbands * inner);
  return out;
}
}  // namespace

std::vector<double> SchrodingerPoisson::potential() const { return engine_->download_potential(); }
std::vector<double> SchrodingerPoisson::eigenvalues() const {
  // Fetched with every update of the eigenstates; before the first, the engine's (zeros).
  return first_subbands(eigenvalues_.empty() ? engine_->download_eigenvalues() : eigenvalues_, grid_.nx * 3, opt_.states(), opt_.subbands, 1);
}
std::vector<double> SchrodingerPoisson::overlaps(double scale) const { return engine_->overlaps(scale); }
std::vector<double> SchrodingerPoisson::eigenvectors() const {
  return first_subbands(engine_->download_eigenvectors(), grid_.nx * 3, opt_.states(), opt_.subbands, grid_.nz);
}
void SchrodingerPoisson::set_roughness(RoughnessGrid r) {
  if (r.displaced.grid.nx != grid_.nx || r.displaced.sample_cell.size() != 2 * static_cast<std::size_t>(grid_.nz))
    throw Error("mosfet: a surface-roughness grid of another device grid");
  roughness_ = std::make_unique<RoughnessGrid>(std::move(r));
  engine_->set_roughness(*roughness_);
}
std::vector<double> SchrodingerPoisson::roughness_form_factors() const {
  if (!roughness_) throw Error("mosfet: roughness_form_factors() before set_roughness()");
  return engine_->roughness_form_factors(grid_.kT);
}
std::vector<double> SchrodingerPoisson::roughness_potential_shifts() const {
  if (!roughness_) throw Error("mosfet: roughness_potential_shifts() before set_roughness()");
  const std::vector<double> v = potential(), e = engine_->download_extended_potentials();
  const ExtendedProblem &d = roughness_->displaced, &u = roughness_->undisplaced;
  const std::size_t nodes = v.size(), displaced = static_cast<std::size_t>(grid_.nx) * d.grid.nz;
  kernels::FormFactors f{{grid_.nx, grid_.nz, d.grid.nz, d.density_cell.data(), d.density_frac.data(), d.sample_cell.data(), d.sample_frac.data()},
                         {grid_.nx, grid_.nz, u.grid.nz, u.density_cell.data(), u.density_frac.data(), u.sample_cell.data(), u.sample_frac.data()}};
  f.potential = v.data();
  f.stretched = e.data();
  f.reference = e.data() + displaced;
  std::vector<double> out(2 * nodes);
  for (int s = 0; s < 2; ++s)
    for (int i = 0; i < grid_.nx; ++i)
      for (int j = 0; j < grid_.nz; ++j) out[(static_cast<std::size_t>(s) * grid_.nx + i) * grid_.nz + j] = kernels::interface_shift(f, s, i, j);
  return out;
}
std::vector<double> SchrodingerPoisson::populations() const {
  return first_subbands(rho_, grid_.nx * 3, opt_.states(), opt_.subbands, 1);
}
std::vector<double> SchrodingerPoisson::density() const { return engine_->download_density(); }
const KernelTimes& SchrodingerPoisson::kernel_times() const { return engine_->times; }
void SchrodingerPoisson::set_kernel_timing(bool on) { engine_->timing = on; }
void SchrodingerPoisson::reset_kernel_times() { engine_->times = {}; }

double neutral_contact_potential(const Device& device, const GridSize& size, int subbands, Statistics statistics) {
  const DeviceGrid g = make_device_grid(device, size, 0.0);
  const int n = g.nz - 2;
  // The contact column's matrices at V = 0; a flat V_s lowers every level by V_s.
  std::vector<double> zero(static_cast<std::size_t>(g.nz), 0.0), d(3 * n), e(3 * n), eps(3 * subbands),
      psi(3 * subbands * g.nz), scratch(3 * subbands * 2 * n);
  kernels::build_schrodinger_cpu({1, g.nz, g.dz, zero.data(), g.barrier.data(), g.inv_mass_z.data(), d.data(), e.data()});
  kernels::eigenvalues_multisection_cpu(
      kernels::eigen_problem(1, g.nz, subbands, g.dz, d.data(), e.data(), eps.data(), psi.data(), scratch.data()));
  double donors = 0.0;  // nm^-2
  for (int j = 0; j < g.nz; ++j) donors += g.doping[j] * g.dz;
  auto electrons = [&](double vs) {
    double s = 0.0;
    for (int v = 0; v < 3; ++v)
      for (int q = 0; q < subbands; ++q)
        s += g.valley_degeneracy * subband_population(statistics, eps[v * subbands + q] - vs, 0.0, g.kT, g.dos2d[v], g.alpha[v]).rho;
    return s;
  };
  double lo = -5.0, hi = 5.0;  // V; electrons(V_s) grows with V_s
  if (!(electrons(lo) < donors && electrons(hi) > donors))
    throw Error("mosfet: no contact potential in [-5, 5] V neutralises the source (doping " +
                std::to_string(device.doping.source_drain) + " m^-3)");
  for (int it = 0; it < 200 && hi - lo > 1e-15; ++it) {
    const double mid = 0.5 * (lo + hi);
    (electrons(mid) < donors ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

}  // namespace quanta::mosfet
