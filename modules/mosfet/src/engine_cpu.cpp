// The block's kernels on the host: the OpenMP oracle of the CUDA engine.
#include <algorithm>
#include <cmath>

#include "../kernels/frechet.hpp"
#include "../kernels/roughness.hpp"
#include "../kernels/schrodinger.hpp"
#include "engine.hpp"
#include "quanta/core/timer.hpp"

namespace quanta::mosfet {
namespace {

class CpuEngine final : public Engine {
 public:
  CpuEngine(const DeviceGrid& g, const BlockOptions& opt) : g_(g), opt_(opt), ns_(opt.states()) {
    const std::size_t nodes = static_cast<std::size_t>(g.nx) * g.nz, n = g.nz - 2;
    v_.assign(nodes, 0.0);
    d_.assign(g.nx * 3 * n, 0.0);
    e_.assign(g.nx * 3 * n, 0.0);
    eps_.assign(g.nx * 3 * ns_, 0.0);
    psi_.assign(g.nx * 3 * ns_ * g.nz, 0.0);
    scratch_.assign(g.nx * 3 * ns_ * 2 * n, 0.0);
    rho_.assign(g.nx * 3 * ns_, 0.0);
    density_.assign(nodes, 0.0);
    frechet_.assign(nodes * g.nz, 0.0);
    rows_.assign(nodes * (g.nz + 2), 0.0);
    rhs_.assign(nodes, 0.0);
    diag_.assign(nodes, 0.0);
  }

  void upload_potential(const std::vector<double>& v) override { v_ = v; }
  std::vector<double> download_potential() override { return v_; }

  void eigenstates(bool first) override {
    WallTimer t;
    kernels::SchrodingerBuild b{g_.nx, g_.nz, g_.dz, v_.data(), g_.barrier.data(), g_.inv_mass_z.data(), d_.data(), e_.data()};
    kernels::build_schrodinger_cpu(b);
    record("build_schrodinger", t.seconds());
    kernels::EigenProblem p = problem();
    p.warm = !first;
    t.reset();
    if (first) {
      kernels::eigenvalues_multisection_cpu(p);
      record("eigenvalues_multisection", t.seconds());
    } else {
      kernels::eigenvalues_newton_cpu(p);
      record("eigenvalues_NR", t.seconds());
    }
    t.reset();
    kernels::eigenvectors_cpu(p);
    record("tridiag_Thomas", t.seconds());
  }
  std::vector<double> download_eigenvalues() override { return eps_; }
  std::vector<double> download_eigenvectors() override { return psi_; }
  std::vector<double> overlaps(double scale) override {
    const std::size_t nvp = static_cast<std::size_t>(kernels::valleys) * opt_.subbands;
    std::vector<double> out(g_.nx * nvp * nvp);
    kernels::overlaps_cpu({g_.nx, g_.nz, ns_, opt_.subbands, g_.dz, scale, psi_.data(), out.data()});
    return out;
  }

  void upload_populations(const std::vector<double>& rho, const std::vector<double>& drho) override {
    rho_ = rho;
    drho_ = drho;
  }
  void density() override {
    WallTimer t;
    kernels::electron_density_cpu(density_input());
    record("density", t.seconds());
  }
  std::vector<double> download_density() override { return density_; }

  void assemble() override {
    WallTimer t;
    kernels::frechet_derivative_cpu(density_input());
    record("compute_frechet", t.seconds());
    t.reset();
    kernels::SystemBuild b{g_.nx, g_.nz, g_.dx, g_.dz, g_.eps_r.data(), g_.doping.data(), g_.dirichlet.data(),
                           g_.boundary_value.data(), v_.data(), density_.data(), frechet_.data(),
                           constants::q_over_eps0, system()};
    kernels::construct_system_cpu(b);
    record("constr_linsys", t.seconds());
    t.reset();
    residual_ = kernels::newton_residual_cpu(system(), v_.data());
    record("newton_residual", t.seconds());
  }

  StepNorms solve(LinearSolver solver, const BlockOptions& opt, kernels::SrjStats& stats) override {
    WallTimer t;
    old_ = v_;
    if (solver == LinearSolver::Srj) {
      stats = kernels::srj_solve_cpu(system(), v_.data(), opt.srj_tol, opt.srj_max_cycles, work_);
      record("srj_solve", t.seconds());
    } else {
      kernels::direct_solve_cpu(system(), v_.data(), work_);
      stats = {};
      record("direct_solve", t.seconds());
    }
    double change = 0.0;
    for (std::size_t k = 0; k < v_.size(); ++k) change = std::max(change, kernels::norm_term(v_[k] - old_[k]));
    return {residual_, change};
  }

  StepNorms chord_step() override {
    WallTimer t;
    const std::size_t nodes = v_.size();
    chord_rhs_.resize(nodes);
    du_.resize(nodes);
    kernels::SystemBuild b{g_.nx, g_.nz, g_.dx, g_.dz, g_.eps_r.data(), g_.doping.data(), g_.dirichlet.data(),
                           g_.boundary_value.data(), v_.data(), density_.data(), nullptr, constants::q_over_eps0,
                           {g_.nx, g_.nz, rows_.data(), chord_rhs_.data(), diag_.data()}};
    const double residual = kernels::chord_rhs_cpu(b);
    record("chord_rhs", t.seconds());
    t.reset();
    kernels::direct_resolve_cpu(g_.nx, g_.nz, chord_rhs_.data(), du_.data(), work_);
    double change = 0.0;
    for (std::size_t k = 0; k < nodes; ++k) {
      v_[k] += du_[k];
      change = std::max(change, kernels::norm_term(du_[k]));
    }
    record("direct_resolve", t.seconds());
    return {residual, change};
  }

  void set_roughness(const RoughnessGrid& r) override {
    rough_ = &r;
    displaced_.factor(r.displaced.grid);
    undisplaced_ = {};
    if (r.undisplaced.grid.nz > 0) undisplaced_.factor(r.undisplaced.grid);
  }
  std::vector<double> roughness_form_factors(double kT) override {
    WallTimer t;
    const kernels::ExtendedMaps displaced = maps(rough_->displaced), undisplaced = maps(rough_->undisplaced);
    displaced_.solve(displaced, rough_->displaced.grid, density_.data());
    if (undisplaced.n > 0) undisplaced_.solve(undisplaced, rough_->undisplaced.grid, density_.data());
    const int nvp = kernels::valleys * opt_.subbands;
    std::vector<double> out(static_cast<std::size_t>(g_.nx) * nvp);
    const kernels::FormFactors f{displaced, undisplaced, ns_, opt_.subbands, g_.dz, 1 / kT, psi_.data(), v_.data(), displaced_.v.data(),
                                 undisplaced_.v.data(), out.data()};
#pragma omp parallel for schedule(static)
    for (int i = 0; i < g_.nx; ++i)
      for (int vp = 0; vp < nvp; ++vp) kernels::form_factor_entry(f, i, vp);
    record("roughness_form_factors", t.seconds());
    return out;
  }
  std::vector<double> download_extended_potentials() override {
    std::vector<double> out = displaced_.v;
    out.insert(out.end(), undisplaced_.v.begin(), undisplaced_.v.end());
    return out;
  }

 private:
  // An extended Poisson problem: its rows factored once, re-solved for each density.
  struct ExtendedSolver {
    std::vector<double> rows, rhs, diag, v, work;
    void factor(const DeviceGrid& e) {
      const std::size_t nodes = static_cast<std::size_t>(e.nx) * e.nz;
      std::vector<double> zeros(nodes, 0.0);
      rows.assign(nodes * (e.nz + 2), 0.0);
      rhs.assign(nodes, 0.0);
      diag.assign(nodes, 0.0);
      v.assign(nodes, 0.0);
      const kernels::LinearSystem s{e.nx, e.nz, rows.data(), rhs.data(), diag.data()};
      kernels::construct_system_cpu({e.nx, e.nz, e.dx, e.dz, e.eps_r.data(), e.doping.data(), e.dirichlet.data(), e.boundary_value.data(),
                                     zeros.data(), zeros.data(), nullptr, constants::q_over_eps0, s});
      kernels::direct_solve_cpu(s, v.data(), work);
    }
    void solve(const kernels::ExtendedMaps& m, const DeviceGrid& e, const double* density) {
      const kernels::ExtendedRhs b{m, density, e.doping.data(), e.dirichlet.data(), e.boundary_value.data(), diag.data(), constants::q_over_eps0,
                                    rhs.data()};
#pragma omp parallel for schedule(static)
      for (int i = 0; i < m.nx; ++i)
        for (int J = 0; J < m.n; ++J) kernels::extended_rhs_entry(b, i, J);
      kernels::direct_resolve_cpu(e.nx, e.nz, rhs.data(), v.data(), work);
    }
  };
  kernels::ExtendedMaps maps(const ExtendedProblem& p) const {
    return {g_.nx, g_.nz, p.grid.nz, p.density_cell.data(), p.density_frac.data(), p.sample_cell.data(), p.sample_frac.data()};
  }

  kernels::EigenProblem problem() {
    return eigen_problem(g_, opt_, d_.data(), e_.data(), eps_.data(), psi_.data(), scratch_.data());
  }
  kernels::DensityInput density_input() {
    return {g_.nx, g_.nz, ns_, g_.valley_degeneracy, eps_.data(), psi_.data(), rho_.data(),
            drho_.empty() ? nullptr : drho_.data(), density_.data(), frechet_.data()};
  }
  kernels::LinearSystem system() { return {g_.nx, g_.nz, rows_.data(), rhs_.data(), diag_.data()}; }

  const DeviceGrid& g_;
  BlockOptions opt_;
  int ns_;
  std::vector<double> v_, old_, d_, e_, eps_, psi_, scratch_, rho_, drho_, density_, frechet_, rows_, rhs_, diag_;
  std::vector<double> work_;  // the linear solver's scratch (the direct solver's factored blocks)
  std::vector<double> chord_rhs_, du_;  // the chord step's right-hand side and potential change
  double residual_ = 0;       // |P[V]|_inf at the last assembly
  const RoughnessGrid* rough_ = nullptr;  // surface roughness: the block's extended problems and their maps
  ExtendedSolver displaced_, undisplaced_;
};

}  // namespace

std::unique_ptr<Engine> make_cpu_engine(const DeviceGrid& grid, const BlockOptions& opt) {
  return std::make_unique<CpuEngine>(grid, opt);
}

}  // namespace quanta::mosfet
