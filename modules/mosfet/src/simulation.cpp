// The Boltzmann-Schroedinger-Poisson simulation, stage by stage (docs/mosfet-transport-model.md, sections 4
// and 6): the equilibrium start, the Runge-Kutta step with the block after every stage, the CFL step.
#include "quanta/mosfet/simulation.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "quanta/core/error.hpp"
#include "quanta/core/io/atomic_file.hpp"
#include "quanta/core/io/hdf5.hpp"
#include "quanta/core/timer.hpp"
#include "quanta/mosfet/roughness.hpp"
#include "transport_engine.hpp"

namespace quanta::mosfet {

struct Simulation::Setup {
  TransportSetup transport;
  DeviceGrid grid;          // the biased device
  double a1_max = 0;        // max |a^1| over the valleys and the (w, phi) grid
  double rho_star_nm2 = 0;  // the dimensionless surface density's unit, nm^-2
  double current_star = 0;  // the dimensionless current's unit, A/m
  double velocity_star = 0;  // m/s
};

namespace {

std::string sci(double x) {
  char text[32];
  std::snprintf(text, sizeof text, "%.4e", x);
  return text;
}

// [3][nsbn][nx] <-> [nx][3][nsbn]
std::vector<double> node_major(const std::vector<double>& a, int nvp, int nx) {
  std::vector<double> out(a.size());
  for (int vp = 0; vp < nvp; ++vp)
    for (int i = 0; i < nx; ++i) out[static_cast<std::size_t>(i) * nvp + vp] = a[static_cast<std::size_t>(vp) * nx + i];
  return out;
}
std::vector<double> subband_major(const std::vector<double>& a, int nvp, int nx) {
  std::vector<double> out(a.size());
  for (int vp = 0; vp < nvp; ++vp)
    for (int i = 0; i < nx; ++i) out[static_cast<std::size_t>(vp) * nx + i] = a[static_cast<std::size_t>(i) * nvp + vp];
  return out;
}

Device without_drain_bias(Device d) {
  d.bias.drain_voltage = 0;
  return d;
}

}  // namespace

double intervals_to_steady(const std::vector<double>& changes, double tolerance) {
  if (!changes.empty() && changes.back() <= tolerance) return 0;
  const std::size_t n = std::min<std::size_t>(changes.size(), 6);
  if (n < 3) return -1;
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (std::size_t k = 0; k < n; ++k) {
    const double c = changes[changes.size() - n + k];
    if (!(c > 0)) return -1;
    const double x = static_cast<double>(k), y = std::log(c);
    sx += x;
    sy += y;
    sxx += x * x;
    sxy += x * y;
  }
  const double slope = (n * sxy - sx * sy) / (n * sxx - sx * sx);  // log of the change's factor per interval
  if (!(slope < 0)) return -1;
  return std::max(0.0, (std::log(tolerance) - std::log(changes.back())) / slope);
}

Simulation::Simulation(const Config& config, const TransportOptions& options, Backend backend)
    : config_(config), opt_(options), backend_(backend), setup_(std::make_unique<Setup>()) {
  config_.solver.statistics = Statistics::MaxwellBoltzmann;
  // With the populations held, the Frechet derivative's pair sum over the populated subbands alone (the seed)
  // leaves the Newton iteration slow and, on coarse z grids, oscillating: measured on the 17 x 25 test grid
  // with 3 subbands, 8-9 iterations per stage and no convergence by step 132; with 6 states 3-4, with 12 2-3.
  // On the seed's grid (6 subbands) 12 states stalled once at step 2565 (changes wandering between 5e-8 and
  // 7e-7 V for 60 iterations); 24 states converge there in 2 iterations: 4 x subbands.
  config_.solver.reuse_jacobian = opt_.reuse_jacobian;
  if (config_.solver.frechet_states == 0) config_.solver.frechet_states = std::min(config_.grid.nz - 2, 4 * config_.solver.subbands);
  const Device& d = config_.device;
  scales_ = TransportScales{d.temperature, d.geometry.length(), d.geometry.width()};
  if (opt_.nphi < 6 || opt_.nphi % 2 != 0 || opt_.nw < 6)
    throw Error("mosfet: the transport grid needs an even nphi >= 6 and nw >= 6 (nw " + std::to_string(opt_.nw) + ", nphi " +
                std::to_string(opt_.nphi) + ")");
  const double w_max = opt_.w_max > 0 ? opt_.w_max : 15 * 0.063 / scales_.kT_eV();
  const int ns = config_.solver.subbands, nx = config_.grid.nx;
  TransportSetup& ts = setup_->transport;
  ts.grid = kernels::PhaseGrid{ns, nx, opt_.nw, opt_.nphi, 1.0 / (nx - 1), w_max / (opt_.nw - 1), 2 * constants::pi / opt_.nphi};
  for (int v = 0; v < kernels::kValleys; ++v) ts.valleys[v] = kane_valley(d.materials.valleys[v], scales_);
  ts.scattering = make_phonon_scattering(opt_.phonons, d.materials.valleys, scales_, opt_.rates, opt_.occupation);
  if (opt_.roughness.enabled) {
    ts.roughness_constant = roughness_rate_constant(opt_.roughness, scales_, opt_.rates);
    ts.roughness_kernel = roughness_kernel_table(ts.grid, ts.valleys, opt_.roughness, scales_);
  }
  for (int v = 0; v < kernels::kValleys; ++v)
    for (int l = 0; l < opt_.nw; ++l)
      for (int m = 0; m < opt_.nphi; ++m)
        setup_->a1_max = std::max(setup_->a1_max, std::abs(kernels::velocity_x(ts.valleys[v], (l + 0.5) * ts.grid.dw, m * ts.grid.dphi)));
  using namespace constants;
  const double kT = kB * d.temperature, rho_star = electron_mass * kT / (hbar * hbar);
  setup_->rho_star_nm2 = rho_star * 1e-18;
  setup_->velocity_star = std::sqrt(kT / electron_mass);
  setup_->current_star = eV * rho_star * setup_->velocity_star;
#ifdef QUANTA_HAVE_CUDA
  if (backend_ == Backend::Cuda) engine_ = make_cuda_transport_engine(ts);
#endif
  if (!engine_) {
    if (backend_ == Backend::Cuda) throw Error("mosfet: built without the CUDA backend");
    engine_ = make_cpu_transport_engine(ts);
  }
}

Simulation::~Simulation() = default;

double Simulation::time() const { return t_ * scales_.time(); }
double Simulation::next_dt() const { return dt_ * scales_.time(); }
std::vector<double> Simulation::distribution() const { return engine_->download_distribution(); }
void Simulation::set_distribution(const std::vector<double>& phi) { engine_->upload_distribution(phi); }

void Simulation::start() {
  const Device& d = config_.device;
  const kernels::PhaseGrid& g = setup_->transport.grid;
  const int nvp = kernels::kValleys * g.nsbn;
  // 1. The zero-bias equilibrium: the contacts' potentials and Fermi level, and the self-consistent
  //    Maxwell-Boltzmann subbands.
  equilibrium_contacts();
  const std::vector<double> potential = zero_bias_equilibrium();
  // 2. The distribution: each subband's discrete Maxwellian at its equilibrium density.
  std::vector<double> phi(static_cast<std::size_t>(nvp) * g.nx * g.nw * g.nphi);
  for (int v = 0; v < kernels::kValleys; ++v) {
    const kernels::KaneValley& val = setup_->transport.valleys[v];
    double norm = 0;
    for (int l = 0; l < g.nw; ++l) norm += kernels::kane_jacobian(val, (l + 0.5) * g.dw) * std::exp(-(l + 0.5) * g.dw);
    norm *= g.dw * g.dphi * g.nphi;
    for (int p = 0; p < g.nsbn; ++p)
      for (int i = 0; i < g.nx; ++i)
        for (int l = 0; l < g.nw; ++l) {
          const double w = (l + 0.5) * g.dw, value = rho_eq_[(v * g.nsbn + p) * g.nx + i] * kernels::kane_jacobian(val, w) * std::exp(-w) / norm;
          std::fill_n(phi.begin() + kernels::phase_index(g, v, p, i, l, 0), g.nphi, value);
        }
  }
  engine_->upload_distribution(phi);
  // 3. The bias: the block of the biased device, from the equilibrium potential, on the equilibrium densities.
  setup_->grid = make_device_grid(d, config_.grid, contacts_);
  make_block(potential);
  t_ = 0;
  step_ = 0;
  solve_block("the biased device at t = 0");
  dt_ = cfl_step();
  transport_seconds_ = block_seconds_ = 0;
}

void Simulation::equilibrium_contacts() {
  const Device d = without_drain_bias(config_.device);
  const int nsbn = config_.solver.subbands;
  if (opt_.contacts == ContactModel::Flat) {
    // The flat potential V_s that makes the source column neutral at the Fermi level 0; the gates at V_s + V_G.
    contacts_ = ContactBoundary::flat(neutral_contact_potential(d, config_.grid, nsbn, Statistics::MaxwellBoltzmann), config_.grid.nz);
    fermi_level_ = 0;
    return;
  }
  // The seed's code: open contacts, the gates at V_G, parabolic Fermi-Dirac subbands at the Fermi level 0; the
  // source column's potential becomes the contacts' profile V_b(z).
  BlockOptions options = config_.solver;
  options.statistics = Statistics::FermiDiracParabolic;
  SchrodingerPoisson open(make_device_grid(d, config_.grid, ContactBoundary{{}, 0.0}), options, backend_);
  const BlockResult r = open.solve_equilibrium(0.0);
  if (!r.converged) throw Error("mosfet: the contact profile (open contacts, contacts = \"seed_code\"): " + not_converged_message(r, options));
  const std::vector<double> v = open.potential();
  contacts_ = ContactBoundary{std::vector<double>(v.begin(), v.begin() + config_.grid.nz), 0.0};
  // The Maxwell-Boltzmann Fermi level at which the source column's subbands of that solve hold its donors,
  // g sum_{v,p} D_v kT (1 + 2 alpha_v kT) e^{(E_F - eps_{v,p}) / kT} = int N_D dz (the seed's code's prefactor).
  const DeviceGrid& g = open.grid();
  const std::vector<double> eps = open.eigenvalues();  // [nx][3][nsbn]; x node 0 first
  double donors = 0;
  for (int j = 0; j < g.nz; ++j) donors += g.doping[j] * g.dz;
  const double lowest = *std::min_element(eps.begin(), eps.begin() + 3 * nsbn);
  double states = 0;  // at E_F = lowest
  for (int v = 0; v < kernels::kValleys; ++v)
    for (int p = 0; p < nsbn; ++p)
      states += g.valley_degeneracy * subband_population_boltzmann(eps[v * nsbn + p], lowest, g.kT, g.dos2d[v], g.alpha[v]).rho;
  fermi_level_ = lowest + g.kT * std::log(donors / states);
}

std::vector<double> Simulation::zero_bias_equilibrium() {
  const int nvp = kernels::kValleys * config_.solver.subbands, nx = config_.grid.nx;
  SchrodingerPoisson eq(make_device_grid(without_drain_bias(config_.device), config_.grid, contacts_), config_.solver, backend_);
  const BlockResult r = eq.solve_equilibrium(fermi_level_);
  if (!r.converged) throw Error("mosfet: the zero-bias equilibrium that starts the transport phase: " + not_converged_message(r, config_.solver));
  rho_eq_ = eq.populations();  // [nx][3][nsbn] nm^-2
  for (double& rho : rho_eq_) rho /= setup_->rho_star_nm2;
  rho_eq_ = subband_major(rho_eq_, nvp, nx);
  return eq.potential();
}

void Simulation::set_bias(const Bias& bias) {
  if (!block_) throw Error("mosfet: set_bias() before start()");
  const std::vector<double> potential = block_->potential();
  const bool new_gate = bias.gate_voltage != config_.device.bias.gate_voltage;
  config_.device.bias = bias;
  if (new_gate) {
    equilibrium_contacts();
    zero_bias_equilibrium();
  }
  setup_->grid = make_device_grid(config_.device, config_.grid, contacts_);
  make_block(potential);
  char where[96];
  std::snprintf(where, sizeof where, "the bias V_GS = %.4g V, V_DS = %.4g V at t = %.6g ps", bias.gate_voltage, bias.drain_voltage, time() * 1e12);
  solve_block(where);
  dt_ = cfl_step();
}

void Simulation::make_block(const std::vector<double>& potential) {
  block_ = std::make_unique<SchrodingerPoisson>(setup_->grid, config_.solver, backend_);
  block_->set_potential(potential);
  if (opt_.roughness.enabled) block_->set_roughness(make_roughness_grid(config_.device, config_.grid, contacts_, opt_.roughness));
}

void Simulation::solve_block(const std::string& where) {
  const kernels::PhaseGrid& g = setup_->transport.grid;
  const int nvp = kernels::kValleys * g.nsbn;
  WallTimer timer;
  TransportMoments m = engine_->moments();
  transport_seconds_ += timer.seconds();
  for (std::size_t k = 0; k < m.rho.size(); ++k)
    if (!std::isfinite(m.rho[k]) || !std::isfinite(m.current[k]))
      throw Error("mosfet: " + where + ": the distribution of valley " + std::to_string(k / (g.nsbn * g.nx) + 1) + ", subband " +
                  std::to_string(k / g.nx % g.nsbn) + " at x node " + std::to_string(k % g.nx) + " is not finite (surface density " +
                  sci(m.rho[k]) + ", current " + sci(m.current[k]) + ")");
  rho_ = std::move(m.rho);
  current_ = std::move(m.current);
  energy_ = std::move(m.energy);
  top_ = std::move(m.top);
  // WENO5 is not positivity-preserving: a subband that is empty in practice (densities of 1e-22 of the node's
  // total were seen in its highest subbands near the drain) can dip below zero by round-off. The block is
  // given zero there; a negative density above 1e-9 of the node's total (the size of the block's own Newton
  // tolerance in relative density) is not round-off, and stops the run.
  std::vector<double> rho_nm2 = node_major(rho_, nvp, g.nx);
  double worst = 0;  // the most negative density relative to its column's total, and where
  int worst_i = 0, worst_vp = 0;
  for (int i = 0; i < g.nx; ++i) {
    double* column = rho_nm2.data() + static_cast<std::size_t>(i) * nvp;
    double total = 0;
    for (int vp = 0; vp < nvp; ++vp) total += std::abs(column[vp]);
    for (int vp = 0; vp < nvp; ++vp) {
      if (column[vp] < 0 && column[vp] / total < worst) {
        worst = column[vp] / total;
        worst_i = i;
        worst_vp = vp;
      }
      column[vp] = std::max(column[vp], 0.0) * setup_->rho_star_nm2;
    }
  }
  if (worst < -1e-9)
    throw Error("mosfet: " + where + ": the surface density of valley " + std::to_string(worst_vp / g.nsbn + 1) + ", subband " +
                std::to_string(worst_vp % g.nsbn) + " at x node " + std::to_string(worst_i) + " is negative (" + sci(worst) +
                " of the column's total): the distribution has lost positivity beyond round-off");
  timer.reset();
  BlockResult r;
  try {
    r = block_->solve(rho_nm2);
  } catch (const Error& e) {
    throw Error("mosfet: " + where + ": " + e.what());
  }
  block_seconds_ += timer.seconds();
  if (!r.converged) {
    // The closest pair of subbands of one valley, where populations held per level are most sensitive.
    const std::vector<double> levels = block_->eigenvalues();
    double gap = 1e300;
    int at = 0;
    for (int k = 0; k < g.nx * kernels::kValleys; ++k)
      for (int p = 0; p + 1 < g.nsbn; ++p) {
        const double d = levels[k * g.nsbn + p + 1] - levels[k * g.nsbn + p];
        if (d < gap) {
          gap = d;
          at = k;
        }
      }
    throw Error("mosfet: " + where + ": " + not_converged_message(r, config_.solver) + " (closest subbands of one valley: " + sci(gap) +
                " eV apart at x node " + std::to_string(at / kernels::kValleys) + ", valley " + std::to_string(at % kernels::kValleys + 1) + ")");
  }
  newton_iterations_ = static_cast<int>(r.history.size());
  eps_ = block_->eigenvalues();
  const double kT = scales_.kT_eV();
  for (double& e : eps_) e /= kT;
  // The overlaps int chi^2 chi'^2 dz / L_z (docs/mosfet-transport-model.md, section 3.2), [nx][3 nsbn][3 nsbn].
  overlaps_ = block_->overlaps(scales_.length_z);
  // The roughness form factors I_{v,p}(x) of the same state, (k_B T)^2, [nx][3 nsbn].
  if (opt_.roughness.enabled) form_factors_ = block_->roughness_form_factors();
}

// The inflow factors rho_eq / rho of every subband at the source (x node 0) and the drain (nx - 1), [3][nsbn][2].
std::vector<double> Simulation::contact_scale() const {
  const int nx = setup_->transport.grid.nx, nvp = kernels::kValleys * setup_->transport.grid.nsbn;
  std::vector<double> s(2 * nvp);
  for (int vp = 0; vp < nvp; ++vp)
    for (int side = 0; side < 2; ++side) {
      const std::size_t k = static_cast<std::size_t>(vp) * nx + (side == 0 ? 0 : nx - 1);
      s[2 * vp + side] = rho_[k] > 0 ? rho_eq_[k] / rho_[k] : 1.0;
    }
  return s;
}

// dt = CFL / (A1/dx + A2/dw + A3/dphi) (section 4.5), from the current state's eps'.
double Simulation::cfl_step() const {
  const kernels::PhaseGrid& g = setup_->transport.grid;
  const BlockSlopes s = block_slopes(setup_->transport, eps_);
  double slope = 0;
  for (double d : s.deps_dx) slope = std::max(slope, std::abs(d));
  const double a1 = setup_->a1_max, a2 = slope * a1;
  return opt_.cfl / (a1 / g.dx + a2 / g.dw + s.a3_max / g.dphi);
}

// Phi^(1) = Phi^n + dt L(Phi^n),  Phi^(2) = 3/4 Phi^n + 1/4 Phi^(1) + 1/4 dt L(Phi^(1)),
// Phi^{n+1} = 1/3 Phi^n + 2/3 Phi^(2) + 2/3 dt L(Phi^(2)); the block after every stage (section 4.4).
void Simulation::step(double at_most) {
  static constexpr double a[3] = {1.0, 0.75, 1.0 / 3}, b[3] = {0.0, 0.25, 2.0 / 3}, c[3] = {1.0, 0.25, 2.0 / 3};
  const double dt = std::min(dt_, at_most / scales_.time());
  if (!(dt > 0)) throw Error("mosfet: a time step of " + sci(dt * scales_.time()) + " s (the CFL step " + sci(dt_ * scales_.time()) + " s)");
  WallTimer timer;
  engine_->save_step_start();
  block_->renew_jacobian();  // every step: held over 4 to 64 steps, the chord iterations took 3 iterations, not 2, and no time was saved
  const bool timed = step_ % kTimedEvery == kTimedEvery - 1;  // not the first, whose block calls start from the initial state
  if (timed && timed_steps_ == 0) block_->reset_kernel_times();  // not the start's or an earlier run's solves
  block_->set_kernel_timing(timed);
  timed_steps_ += timed;
  for (int s = 0; s < 3; ++s) {
    timer.reset();
    engine_->upload_block(eps_, overlaps_, contact_scale());
    if (opt_.roughness.enabled) engine_->upload_roughness(form_factors_);
    engine_->stage(a[s], b[s], c[s] * dt);
    transport_seconds_ += timer.seconds();
    char where[96];
    std::snprintf(where, sizeof where, "step %ld, Runge-Kutta stage %d (t = %.6g ps)", step_ + 1, s + 1, (t_ + dt) * scales_.time() * 1e12);
    solve_block(where);
  }
  t_ += dt;
  ++step_;
  dt_ = cfl_step();
}

Observables Simulation::observe() const {
  const kernels::PhaseGrid& g = setup_->transport.grid;
  const int nx = g.nx, ns = g.nsbn;
  Observables o;
  o.time = time();
  o.step = step_;
  const double dx_nm = config_.device.geometry.length() / (nx - 1), rho_si = setup_->rho_star_nm2 * 1e18, kT = scales_.kT_eV();
  o.x.resize(nx);
  for (int i = 0; i < nx; ++i) o.x[i] = i * dx_nm;
  o.subband_density = rho_;
  o.subband_current = current_;
  for (double& r : o.subband_density) r *= rho_si;
  for (double& j : o.subband_current) j *= setup_->current_star;
  o.density.assign(nx, 0.0);
  o.current.assign(nx, 0.0);
  o.valley_velocity.assign(3 * nx, 0.0);
  o.valley_energy.assign(3 * nx, 0.0);
  for (int v = 0; v < kernels::kValleys; ++v)
    for (int i = 0; i < nx; ++i) {
      double r = 0, j = 0, e = 0;
      for (int p = 0; p < ns; ++p) {
        const std::size_t k = static_cast<std::size_t>(v * ns + p) * nx + i;
        r += rho_[k];
        j += current_[k];
        e += energy_[k];
      }
      o.density[i] += 2 * r * rho_si;
      o.current[i] += 2 * j * setup_->current_star;
      o.valley_velocity[v * nx + i] = r > 0 ? j / r * setup_->velocity_star : 0.0;
      o.valley_energy[v * nx + i] = r > 0 ? e / r * kT : 0.0;
    }
  // Trapezoid over the nodes for the means and the mass.
  double mean = 0, mass = 0;
  for (int i = 0; i < nx; ++i) {
    const double weight = (i == 0 || i == nx - 1) ? 0.5 : 1.0;
    mean += weight * o.current[i] / (nx - 1);
    mass += weight * o.density[i] * dx_nm * 1e-9;
  }
  o.drain_current = mean;
  o.mass = mass;
  if (mean != 0)
    for (int i = 0; i < nx; ++i) o.current_spread = std::max(o.current_spread, std::abs(o.current[i] - mean) / std::abs(mean));
  for (double t : top_) o.top_cell = std::max(o.top_cell, std::abs(t));
  const DeviceGrid& dg = setup_->grid;
  for (int side = 0; side < 2; ++side) {
    const int i = side == 0 ? 0 : nx - 1;
    double donors = 0;
    for (int j = 0; j < dg.nz; ++j) donors += dg.doping[static_cast<std::size_t>(i) * dg.nz + j] * dg.dz;  // nm^-2
    o.contact_excess[side] = o.density[i] - donors * 1e18;
  }
  return o;
}

// What must match for a resume: the device, the bias, the grids and the physics.
std::vector<std::pair<std::string, double>> Simulation::run_keys() const {
  const Device& d = config_.device;
  const kernels::PhaseGrid& g = setup_->transport.grid;
  const kernels::PhononScattering& s = setup_->transport.scattering;
  const RoughnessOptions& r = opt_.roughness;
  return {{"gate_voltage", d.bias.gate_voltage}, {"drain_voltage", d.bias.drain_voltage}, {"temperature", d.temperature},
          {"length", d.geometry.length()},       {"width", d.geometry.width()},          {"nz", static_cast<double>(setup_->grid.nz)},
          {"w_max", g.dw * (g.nw - 1)},          {"cfl", opt_.cfl},                      {"rate_constant_0", s.C[0]},
          {"rate_constant_5", s.C[5]},           {"occupation_0_2_4", s.occupation[0][2][4]},
          {"contacts", opt_.contacts == ContactModel::SeedCode ? 1.0 : 0.0},
          {"interface_nodes", config_.grid.interfaces == InterfaceNodes::SeedCode ? 1.0 : 0.0},
          // Surface roughness (0 when off; a checkpoint from before these keys were recorded has it off).
          {"roughness_length", r.enabled ? r.length : 0.0},
          {"roughness_displacement", r.enabled ? r.displacement : 0.0},
          {"roughness_stretch", r.enabled ? r.stretch : 0.0},
          {"roughness_nz", r.enabled ? static_cast<double>(extended_grid_nodes(r, d.geometry, config_.grid.nz)) : 0.0},
          {"roughness_seed_code_shift", r.enabled && r.shift == RoughnessShift::SeedCode ? 1.0 : 0.0}};
}

void Simulation::save_checkpoint(const std::filesystem::path& file, const std::function<void(io::H5File&)>& extra) const {
  const kernels::PhaseGrid& g = setup_->transport.grid;
  io::TemporaryPath temp(file);
  {
    io::H5File f(temp.path(), io::H5File::Mode::Create);
    const std::vector<std::size_t> full{3, static_cast<std::size_t>(g.nsbn), static_cast<std::size_t>(g.nx), static_cast<std::size_t>(g.nw),
                                        static_cast<std::size_t>(g.nphi)};
    f.write("distribution", engine_->download_distribution(), full);
    f.write_scalar("time", t_);
    f.write_scalar("dt", dt_);
    f.write_scalar("step", static_cast<double>(step_));
    f.write("potential", block_->potential(), {static_cast<std::size_t>(setup_->grid.nx), static_cast<std::size_t>(setup_->grid.nz)});
    f.write("rho_eq", rho_eq_, {rho_eq_.size()});
    f.write("eps", eps_, {eps_.size()});
    f.write("overlaps", overlaps_, {overlaps_.size()});
    if (opt_.roughness.enabled) f.write("roughness_form_factors", form_factors_, {form_factors_.size()});
    for (const auto& [name, a] : {std::pair{"rho", &rho_}, {"current", &current_}, {"energy", &energy_}, {"top", &top_}})
      f.write(std::string("moments/") + name, *a, {a->size()});
    for (const auto& [k, v] : run_keys()) f.write_scalar("run/" + k, v);
    if (extra) extra(f);
    f.close();
  }
  temp.commit();
}

void Simulation::load_checkpoint(const std::filesystem::path& file, const std::function<void(const io::H5File&)>& extra) {
  if (!block_) throw Error("mosfet: load_checkpoint() before start()");
  const kernels::PhaseGrid& g = setup_->transport.grid;
  const io::H5File f(file, io::H5File::Mode::Read);
  for (const auto& [k, v] : run_keys()) {
    if (!f.exists("run/" + k) && k.rfind("roughness_", 0) == 0 && v == 0) continue;  // recorded since; such a run had it off
    if (!f.exists("run/" + k))
      throw InputError(file.string(), 0, "run/" + k, "no such key (a checkpoint written before this setting was recorded)",
                       "this run's " + sci(v) + "; run again without --resume");
    const double stored = f.read_doubles("run/" + k).at(0);
    if (std::abs(stored - v) > 1e-12 * std::max(1.0, std::abs(v)))
      throw InputError(file.string(), 0, "run/" + k, "the checkpoint's " + sci(stored), "this run's " + sci(v) + " (a checkpoint of the same config)");
  }
  const std::vector<std::size_t> dims = f.dims("distribution");
  const std::vector<std::size_t> want{3, static_cast<std::size_t>(g.nsbn), static_cast<std::size_t>(g.nx), static_cast<std::size_t>(g.nw),
                                      static_cast<std::size_t>(g.nphi)};
  if (dims != want)
    throw InputError(file.string(), "the checkpoint's distribution has another shape than this run's grid (subbands, nx, nw, nphi)");
  engine_->upload_distribution(f.read_doubles("distribution"));
  t_ = f.read_doubles("time").at(0);
  dt_ = f.read_doubles("dt").at(0);
  step_ = static_cast<long>(f.read_doubles("step").at(0));
  block_->set_potential(f.read_doubles("potential"));
  rho_eq_ = f.read_doubles("rho_eq");
  eps_ = f.read_doubles("eps");
  overlaps_ = f.read_doubles("overlaps");
  if (opt_.roughness.enabled) form_factors_ = f.read_doubles("roughness_form_factors");
  rho_ = f.read_doubles("moments/rho");
  current_ = f.read_doubles("moments/current");
  energy_ = f.read_doubles("moments/energy");
  top_ = f.read_doubles("moments/top");
  if (extra) extra(f);
}

}  // namespace quanta::mosfet
