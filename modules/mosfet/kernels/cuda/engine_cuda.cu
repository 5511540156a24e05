// The block's kernels on one GPU: the twin of src/engine_cpu.cpp. Every array lives on the device for the
// engine's lifetime (taken in the constructor, so that running out of device memory surfaces there as
// OutOfDeviceMemory); only the potential, the per-subband arrays and scalars cross the bus. Each stage is
// timed on the host clock after a device synchronization, under the CPU engine's names.
#include <span>
#include <string>

#include "../../src/engine.hpp"
#include "launch.cuh"
#include "quanta/core/buffer.hpp"
#include "quanta/core/cuda/check.cuh"
#include "quanta/core/error.hpp"
#include "quanta/core/timer.hpp"

namespace quanta::mosfet {
namespace {

template <class T>
DeviceBuffer<T> device_copy(const std::vector<T>& host, const char* what) {
  return DeviceBuffer<T>(std::span<const T>(host), what);
}

template <class T>
DeviceBuffer<T> device_zeros(std::size_t n, const char* what) {
  DeviceBuffer<T> b(n, what);
  b.zero();
  return b;
}

class CudaEngine final : public Engine {
 public:
  CudaEngine(const DeviceGrid& g, const BlockOptions& opt)
      : g_(g),
        opt_(opt),
        ns_(opt.states()),
        nodes_(static_cast<std::size_t>(g.nx) * g.nz),
        subbands_(static_cast<std::size_t>(g.nx) * kernels::valleys * opt.states()),
        omegas_(kernels::srj_schedule()),
        eps_r_(device_copy(g.eps_r, "mosfet eps_r")),
        doping_(device_copy(g.doping, "mosfet doping")),
        barrier_(device_copy(g.barrier, "mosfet barrier")),
        inv_mass_z_(device_copy(g.inv_mass_z, "mosfet inverse masses")),
        dirichlet_(device_copy(g.dirichlet, "mosfet Dirichlet mask")),
        boundary_value_(device_copy(g.boundary_value, "mosfet boundary values")),
        v_(device_zeros<double>(nodes_, "mosfet potential")),
        old_(device_zeros<double>(nodes_, "mosfet previous potential")),
        d_(device_zeros<double>(matrices() * n(), "mosfet Schroedinger diagonals")),
        e_(device_zeros<double>(matrices() * n(), "mosfet Schroedinger off-diagonals")),
        eps_(device_zeros<double>(subbands_, "mosfet eigenvalues")),
        psi_(device_zeros<double>(subbands_ * g.nz, "mosfet eigenvectors")),
        scratch_(device_zeros<double>(subbands_ * 2 * n(), "mosfet inverse-iteration scratch")),
        overlaps_(device_zeros<double>(static_cast<std::size_t>(g.nx) * kernels::valleys * opt.subbands * kernels::valleys * opt.subbands,
                                       "mosfet subband overlaps")),
        rho_(device_zeros<double>(subbands_, "mosfet populations")),
        drho_(device_zeros<double>(subbands_, "mosfet population derivatives")),
        density_(device_zeros<double>(nodes_, "mosfet density")),
        frechet_(device_zeros<double>(nodes_ * g.nz, "mosfet Frechet derivative")),
        rows_(device_zeros<double>(nodes_ * (g.nz + 2), "mosfet system rows")),
        rhs_(device_zeros<double>(nodes_, "mosfet system right-hand side")),
        diag_(device_zeros<double>(nodes_, "mosfet system diagonal")),
        reduce_(device_zeros<double>(kernels::reduction_scratch(), "mosfet reduction scratch")) {
    take_solver_work(opt.linear_solver);
  }

  void upload_potential(const std::vector<double>& v) override {
    QUANTA_REQUIRE(v.size() == nodes_, "mosfet CUDA engine: a potential of " + std::to_string(v.size()) +
                                           " values for " + std::to_string(nodes_) + " nodes");
    v_.upload(v);
  }
  std::vector<double> download_potential() override { return v_.to_host(); }

  void eigenstates(bool first) override {
    WallTimer t;
    kernels::build_schrodinger_cuda({g_.nx, g_.nz, g_.dz, v_.data(), barrier_.data(), inv_mass_z_.data(), d_.data(), e_.data()});
    finish("build_schrodinger", t);
    kernels::EigenProblem p = problem();
    p.warm = !first;
    t.reset();
    if (first) {
      kernels::eigenvalues_multisection_cuda(p);
      finish("eigenvalues_multisection", t);
    } else {
      kernels::eigenvalues_newton_cuda(p);
      finish("eigenvalues_NR", t);
    }
    t.reset();
    kernels::eigenvectors_cuda(p);
    finish("tridiag_Thomas", t);
  }
  std::vector<double> download_eigenvalues() override { return eps_.to_host(); }
  std::vector<double> download_eigenvectors() override { return psi_.to_host(); }
  std::vector<double> overlaps(double scale) override {
    kernels::overlaps_cuda({g_.nx, g_.nz, ns_, opt_.subbands, g_.dz, scale, psi_.data(), overlaps_.data()});
    return overlaps_.to_host();
  }

  void upload_populations(const std::vector<double>& rho, const std::vector<double>& drho) override {
    QUANTA_REQUIRE(rho.size() == subbands_ && (drho.empty() || drho.size() == subbands_),
                   "mosfet CUDA engine: populations of " + std::to_string(rho.size()) + " and " +
                       std::to_string(drho.size()) + " values for " + std::to_string(subbands_) + " subbands");
    rho_.upload(rho);
    have_drho_ = !drho.empty();
    if (have_drho_) drho_.upload(drho);
  }
  void density() override {
    WallTimer t;
    kernels::electron_density_cuda(density_input());
    finish("density", t);
  }
  std::vector<double> download_density() override { return density_.to_host(); }

  void assemble() override {
    WallTimer t;
    kernels::frechet_derivative_cuda(density_input());
    finish("compute_frechet", t);
    t.reset();
    kernels::SystemBuild b{g_.nx, g_.nz, g_.dx, g_.dz, eps_r_.data(), doping_.data(), dirichlet_.data(),
                           boundary_value_.data(), v_.data(), density_.data(), frechet_.data(),
                           constants::q_over_eps0, system()};
    kernels::construct_system_cuda(b);
    finish("constr_linsys", t);
    t.reset();
    kernels::newton_residual_cuda(system(), v_.data(), reduce_.data());  // fetched with the change, in solve()
    finish("newton_residual", t);
  }

  StepNorms solve(LinearSolver solver, const BlockOptions& opt, kernels::SrjStats& stats) override {
    take_solver_work(solver);  // normally taken in the constructor already
    WallTimer t;
    QUANTA_CUDA_CHECK(cudaMemcpy(old_.data(), v_.data(), v_.bytes(), cudaMemcpyDeviceToDevice));
    if (solver == LinearSolver::Srj) {
      stats = kernels::srj_solve_cuda(system(), v_.data(), opt.srj_tol, opt.srj_max_cycles, omegas_,
                                      {srj_other_.data(), srj_residual_.data(), srj_scratch_.data()}, srj_graphs_);
      finish("srj_solve", t);
    } else {
      kernels::direct_solve_cuda(system(), v_.data(), direct_work(), direct_plan_);
      stats = {};
      finish("direct_solve", t);
    }
    kernels::StepResults out;  // the residual, the change and the direct solver's status, fetched together
    kernels::step_norms_cuda(nodes_, v_.data(), old_.data(), reduce_.data(), &out);
    kernels::check_direct_status(out.status);
    return {out.residual, out.change};
  }

  StepNorms chord_step() override {
    WallTimer t;
    QUANTA_CUDA_CHECK(cudaMemcpy(old_.data(), v_.data(), v_.bytes(), cudaMemcpyDeviceToDevice));
    kernels::SystemBuild b{g_.nx, g_.nz, g_.dx, g_.dz, eps_r_.data(), doping_.data(), dirichlet_.data(),
                           boundary_value_.data(), v_.data(), density_.data(), nullptr, constants::q_over_eps0,
                           {g_.nx, g_.nz, rows_.data(), chord_rhs_.data(), diag_.data()}};
    kernels::chord_rhs_cuda(b, reduce_.data());  // fetched with the change below
    finish("chord_rhs", t);
    t.reset();
    kernels::direct_resolve_cuda(chord_rhs_.data(), du_.data(), direct_work(), direct_plan_);
    kernels::add_cuda(nodes_, du_.data(), v_.data());
    finish("direct_resolve", t);
    kernels::StepResults out;
    kernels::step_norms_cuda(nodes_, v_.data(), old_.data(), reduce_.data(), &out);
    kernels::check_direct_status(out.status);
    return {out.residual, out.change};
  }

  void set_roughness(const RoughnessGrid& r) override {
    displaced_.factor(r.displaced);
    undisplaced_ = ExtendedSolver{};
    if (r.undisplaced.grid.nz > 0) undisplaced_.factor(r.undisplaced);
    rough_form_ = device_zeros<double>(static_cast<std::size_t>(g_.nx) * kernels::valleys * opt_.subbands, "mosfet roughness form factors");
  }
  std::vector<double> roughness_form_factors(double kT) override {
    WallTimer t;
    const kernels::ExtendedMaps displaced = displaced_.maps(g_), undisplaced = undisplaced_.maps(g_);
    displaced_.solve(displaced, density_.data());
    if (undisplaced.n > 0) undisplaced_.solve(undisplaced, density_.data());
    kernels::form_factors_cuda({displaced, undisplaced, ns_, opt_.subbands, g_.dz, 1 / kT, psi_.data(), v_.data(), displaced_.v.data(),
                                undisplaced_.v.data(), rough_form_.data()});
    std::vector<double> out = rough_form_.to_host();
    record("roughness_form_factors", t.seconds());
    return out;
  }
  std::vector<double> download_extended_potentials() override {
    std::vector<double> out = displaced_.v.to_host();
    if (undisplaced_.n > 0) {
      const std::vector<double> u = undisplaced_.v.to_host();
      out.insert(out.end(), u.begin(), u.end());
    }
    return out;
  }

 private:
  // An extended Poisson problem on the device: its maps and grid arrays, its rows factored once, re-solved per density.
  struct ExtendedSolver {
    int nx = 0, n = 0;
    DeviceBuffer<int> density_cell, sample_cell;
    DeviceBuffer<double> density_frac, sample_frac, eps_r, doping, boundary, rows, rhs, diag, v, status, cyclic;
    DeviceBuffer<unsigned char> dirichlet;
    kernels::DirectPlan plan;
    void factor(const ExtendedProblem& p) {
      const DeviceGrid& e = p.grid;
      nx = e.nx;
      n = e.nz;
      const std::size_t nodes = static_cast<std::size_t>(e.nx) * e.nz;
      density_cell = device_copy(p.density_cell, "mosfet roughness density cells");
      density_frac = device_copy(p.density_frac, "mosfet roughness density fractions");
      sample_cell = device_copy(p.sample_cell, "mosfet roughness sample cells");
      sample_frac = device_copy(p.sample_frac, "mosfet roughness sample fractions");
      eps_r = device_copy(e.eps_r, "mosfet roughness eps_r");
      doping = device_copy(e.doping, "mosfet roughness doping");
      dirichlet = device_copy(e.dirichlet, "mosfet roughness Dirichlet mask");
      boundary = device_copy(e.boundary_value, "mosfet roughness boundary values");
      rows = device_zeros<double>(nodes * (e.nz + 2), "mosfet roughness system rows");
      rhs = device_zeros<double>(nodes, "mosfet roughness right-hand side");
      diag = device_zeros<double>(nodes, "mosfet roughness diagonal");
      v = device_zeros<double>(nodes, "mosfet roughness potential");
      status = device_zeros<double>(3, "mosfet roughness solver status");
      cyclic = DeviceBuffer<double>(kernels::CyclicReduction::doubles(e.nx, e.nz), "mosfet roughness direct solver blocks");
      plan = kernels::plan_direct_solve(e.nx, e.nz);
      const kernels::LinearSystem s{e.nx, e.nz, rows.data(), rhs.data(), diag.data()};
      // The rows; density and potential do not enter them (no Frechet term), the zeroed v stands in.
      kernels::construct_system_cuda({e.nx, e.nz, e.dx, e.dz, eps_r.data(), doping.data(), dirichlet.data(), boundary.data(), v.data(), v.data(),
                                      nullptr, constants::q_over_eps0, s});
      kernels::direct_solve_cuda(s, v.data(), work(), plan);  // factors the matrix for the re-solves
      const std::vector<double> st = status.to_host();
      kernels::check_direct_status(st.data());
    }
    kernels::DirectWork work() { return {kernels::CyclicReduction::carve(nx, n, cyclic.data()), status.data()}; }
    kernels::ExtendedMaps maps(const DeviceGrid& g) {
      if (n == 0) return {g.nx, g.nz, 0, nullptr, nullptr, nullptr, nullptr};
      return {g.nx, g.nz, n, density_cell.data(), density_frac.data(), sample_cell.data(), sample_frac.data()};
    }
    void solve(const kernels::ExtendedMaps& m, const double* density) {
      kernels::extended_rhs_cuda({m, density, doping.data(), dirichlet.data(), boundary.data(), diag.data(), constants::q_over_eps0, rhs.data()});
      kernels::direct_resolve_cuda(rhs.data(), v.data(), work(), plan);
    }
  };

  std::size_t n() const { return static_cast<std::size_t>(g_.nz - 2); }
  std::size_t matrices() const { return static_cast<std::size_t>(g_.nx) * kernels::valleys; }

  // The solver's scratch, as the CPU engine's work_ vector: the SRJ iterate pair and residual, or the
  // direct solver's reduction arrays (5 nx nz^2 doubles, five times the Frechet derivative; so only the
  // solver in use holds its arrays).
  void take_solver_work(LinearSolver solver) {
    if (solver == LinearSolver::Srj && srj_other_.size() == 0) {
      srj_other_ = DeviceBuffer<double>(nodes_, "mosfet SRJ iterate");
      srj_residual_ = DeviceBuffer<double>(nodes_, "mosfet SRJ residual");
      // Its own reduction scratch: reduce_ holds the step's Newton residual until solve() fetches it.
      srj_scratch_ = DeviceBuffer<double>(kernels::reduction_scratch(), "mosfet SRJ reduction scratch");
    }
    if (solver == LinearSolver::Direct && cyclic_.size() == 0) {
      direct_plan_ = kernels::plan_direct_solve(g_.nx, g_.nz);
      cyclic_ = DeviceBuffer<double>(kernels::CyclicReduction::doubles(g_.nx, g_.nz), "mosfet direct solver blocks");
      chord_rhs_ = DeviceBuffer<double>(nodes_, "mosfet chord right-hand side");
      du_ = DeviceBuffer<double>(nodes_, "mosfet chord potential change");
    }
  }
  kernels::DirectWork direct_work() {
    return {kernels::CyclicReduction::carve(g_.nx, g_.nz, cyclic_.data()), kernels::direct_status(reduce_.data())};
  }

  // Waits for the stage's kernels (surfacing their errors under the stage's name) and records its time.
  void finish(const char* stage, const WallTimer& t) {
    if (!timing) return;
    const cudaError_t err = cudaDeviceSynchronize();
    if (err != cudaSuccess)
      cuda::throw_cuda_error(err, (std::string("cudaDeviceSynchronize after mosfet ") + stage).c_str(), __FILE__, __LINE__);
    record(stage, t.seconds());
  }

  kernels::EigenProblem problem() {
    return eigen_problem(g_, opt_, d_.data(), e_.data(), eps_.data(), psi_.data(), scratch_.data());
  }
  kernels::DensityInput density_input() {
    return {g_.nx, g_.nz, ns_, g_.valley_degeneracy, eps_.data(), psi_.data(), rho_.data(),
            have_drho_ ? drho_.data() : nullptr, density_.data(), frechet_.data()};
  }
  kernels::LinearSystem system() { return {g_.nx, g_.nz, rows_.data(), rhs_.data(), diag_.data()}; }

  const DeviceGrid& g_;
  BlockOptions opt_;
  int ns_;
  std::size_t nodes_, subbands_;  // nx*nz and nx*3*ns
  std::vector<double> omegas_;    // the SRJ cycle's 93 factors
  bool have_drho_ = false;
  DeviceBuffer<double> eps_r_, doping_, barrier_, inv_mass_z_;  // the grid: [nx][nz], [nx][nz], [nz], [3][nz]
  DeviceBuffer<unsigned char> dirichlet_;                       // [nx][nz]
  DeviceBuffer<double> boundary_value_;                         // [nx][nz]
  DeviceBuffer<double> v_, old_;                                // [nx][nz]
  DeviceBuffer<double> d_, e_;                                  // [nx][3][nz-2]
  DeviceBuffer<double> eps_, psi_, scratch_;                    // [nx][3][ns], [..][nz], [..][2 (nz-2)]
  DeviceBuffer<double> overlaps_;                               // [nx][3 subbands][3 subbands]
  DeviceBuffer<double> rho_, drho_;                             // [nx][3][ns]
  DeviceBuffer<double> density_, frechet_;                      // [nx][nz], [nx][nz][nz]
  DeviceBuffer<double> rows_, rhs_, diag_;                      // [nx*nz][nz+2], [nx*nz], [nx*nz]
  DeviceBuffer<double> reduce_;                                 // [reduction_scratch()]
  DeviceBuffer<double> srj_other_, srj_residual_;               // [nx*nz] each
  DeviceBuffer<double> srj_scratch_;                            // [reduction_scratch()]
  kernels::SrjCycleGraphs srj_graphs_;                          // recorded on the first SRJ solve
  DeviceBuffer<double> cyclic_;                                 // CyclicReduction::doubles(nx, nz)
  DeviceBuffer<double> chord_rhs_, du_;                         // [nx*nz] each: the chord step's
  kernels::DirectPlan direct_plan_;                             // its launch configuration
  // Surface roughness: the extended problems and the form factors [nx][3 subbands].
  ExtendedSolver displaced_, undisplaced_;
  DeviceBuffer<double> rough_form_;
};

}  // namespace

std::unique_ptr<Engine> make_cuda_engine(const DeviceGrid& grid, const BlockOptions& opt) {
  // The derivative's kernel keeps one valley's pair weights of a row in shared memory (kernels/cuda/frechet_cuda.cu).
  if (opt.states() > 78)
    throw Error("mosfet: " + std::to_string(opt.states()) + " eigenpairs in the Frechet derivative on the GPU; at most 78 (their pair weights, " +
                std::to_string(opt.states() * opt.states() * 8 / 1024) + " KiB, must fit 48 KiB of shared memory): lower frechet_states");
  return std::make_unique<CudaEngine>(grid, opt);
}

}  // namespace quanta::mosfet
