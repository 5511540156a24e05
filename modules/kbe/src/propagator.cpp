// The seed's Algorithm 1 on the half-plane: predictor, then corrector passes of
// (h_HF, Sigma row, collision row, step) until the new time row stops changing.
#include "quanta/kbe/propagator.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>

#include "../kernels/collision_integral.hpp"
#include "../kernels/compressed_history.hpp"
#include "../kernels/cuda_propagation.hpp"
#include "../kernels/hamiltonian.hpp"
#include "../kernels/self_energy.hpp"
#include "../kernels/time_step.hpp"
#include "distribution.hpp"
#include "quanta/core/buffer.hpp"
#include "quanta/core/device_exchange.hpp"
#include "quanta/core/error.hpp"
#include "quanta/core/host_memory.hpp"
#include "quanta/core/timer.hpp"

namespace quanta::kbe {

using namespace kernels;

struct Propagator::Work {
  std::vector<M2> h_mid;                             // [nk]
  std::unique_ptr<SelfEnergyWorkspace> self_energy;  // CPU backend
#ifdef QUANTA_HAVE_CUDA
  std::unique_ptr<DevicePropagation> device;         // CUDA backend
#endif
  // k-split runs: the row transposition, this rank's time pairs of the row with every k (G<> in, Sigma<>
  // out, [max_pairs][4][nk_global]), and with CUDA the host copies of the local G<> row.
  std::unique_ptr<RowTranspose> transpose;
  std::unique_ptr<DeviceExchange> exchange;  // CUDA with NCCL: the transposition between devices
  std::vector<cplx> pairs_less, pairs_greater, pairs_sigma_less, pairs_sigma_greater;
  std::vector<cplx> row_less, row_greater;
  std::vector<PinnedHost> pinned;  // CUDA: the host arrays above and the Sigma row, page-locked
  std::unique_ptr<CompressedHistory> compressed;  // solver.history = compressed: the finished history
  explicit Work(int nk) : h_mid(nk) {}
};

Propagator::Propagator(const Config& config, int threads, Backend backend, const Comm& comm)
    : config_(config), comm_(comm), ntimes_(config.time.steps + 1), nk_global_(config.model.nk), backend_(backend) {
#ifndef QUANTA_HAVE_CUDA
  if (backend_ == Backend::Cuda) throw Error("kbe: the CUDA backend was requested but quanta was built without CUDA");
#endif
  QUANTA_REQUIRE(nk_global_ >= 1 && ntimes_ >= 1 && config.time.dt > 0, "kbe: nk >= 1, steps >= 0 and dt > 0 are required");
  if (nk_global_ < comm_.size())
    throw Error("kbe: nk = " + std::to_string(nk_global_) + " k-points cannot be split over " + std::to_string(comm_.size()) +
                " processes (at least one k-point each is needed)");
  const Split ks{nk_global_, comm_.size()};
  k0_ = ks.begin(comm_.rank());
  nk_ = ks.count(comm_.rank());
  const Model& m = config_.model;
  QUANTA_REQUIRE(static_cast<int>(m.n_valence.size()) == nk_global_ && static_cast<int>(m.n_conduction.size()) == nk_global_,
                 "kbe: initial occupations need nk values per band");
  eps_v_.resize(nk_);
  eps_c_.resize(nk_);
  for (int k = 0; k < nk_; ++k) {
    eps_v_[k] = m.valence.energy(k_value(k0_ + k, nk_global_));
    eps_c_[k] = m.conduction.energy(k_value(k0_ + k, nk_global_));
  }
  adaptive_ = config_.time.adaptive;
  u_grid_.assign(ntimes_, 0.0);
  times_.assign(ntimes_, 0.0);
  for (int n = 0; n < ntimes_; ++n) {  // adaptive steps set t_n > t_0 as they are taken
    times_[n] = adaptive_ && n > 0 ? 0.0 : n * config_.time.dt;
    u_grid_[n] = m.interaction.at(times_[n]);
  }
  if (adaptive_) {
    next_dt_ = config_.time.dt;
    predicted_.assign(block_size(nk_), cplx());
    collision_diag_before_.assign(block_size(nk_), cplx());
  }

  // Everything is taken here, once: the propagation itself allocates nothing. With CUDA the half-plane and
  // the Sigma and I rows live on the device; the host keeps the diagonal blocks and the I rows.
  const std::size_t bs = block_size(nk_);
  const bool on_device = backend_ == Backend::Cuda, split = comm_.distributed();
  // k-split rows travel through host memory unless the devices exchange them directly.
  const bool device_exchange = on_device && split && DeviceExchange::available(comm_);
  const bool host_rows = split && !device_exchange;
  compressed_ = config_.solver.history == HistoryStorage::Compressed;
  if (adaptive_ && on_device)
    throw Error("kbe: time.adaptive runs on the CPU backend in this version (its device twin is not built); use --backend cpu, "
                "or a fixed time grid on the GPU");
  if (compressed_ && on_device)
    throw Error("kbe: solver.history = \"compressed\" runs on the CPU backend in this version (its device twin is not built); "
                "use --backend cpu, or solver.history = \"dense\" on the GPU");
  // CUDA: block (0,0) to upload; a compressed history: the two rows being stepped (row n at (n % 2) ntimes).
  const std::size_t host_blocks = on_device ? 1 : compressed_ ? 2 * static_cast<std::size_t>(ntimes_) : tri_count(ntimes_);
  g_less_.assign(host_blocks * bs, cplx());
  g_greater_.assign(host_blocks * bs, cplx());
  for (auto* v : {&i_prev_less_, &i_prev_greater_})
    v->assign(ntimes_ * bs, cplx());
  if (!on_device || host_rows)
    for (auto* v : {&sigma_less_, &sigma_greater_}) v->assign(ntimes_ * bs, cplx());
  if (!on_device)
    for (auto* v : {&i_cur_less_, &i_cur_greater_}) v->assign(ntimes_ * bs, cplx());
  work_ = std::make_unique<Work>(nk_);
  if (split) {
    Work& w = *work_;
    w.transpose = std::make_unique<RowTranspose>(comm_, nk_global_, ntimes_, host_rows);
    const std::size_t pairs = static_cast<std::size_t>(w.transpose->max_pairs()) * block_size(nk_global_);
    if (host_rows)
      for (auto* v : {&w.pairs_less, &w.pairs_greater, &w.pairs_sigma_less, &w.pairs_sigma_greater}) v->assign(pairs, cplx());
    if (on_device && host_rows) {
      for (auto* v : {&w.row_less, &w.row_greater}) v->assign(ntimes_ * bs, cplx());
      for (auto* v : {&w.row_less, &w.row_greater, &w.pairs_less, &w.pairs_greater, &w.pairs_sigma_less, &w.pairs_sigma_greater,
                      &sigma_less_, &sigma_greater_})
        w.pinned.emplace_back(v->data(), v->size() * sizeof(cplx));
    }
  }
  if (!on_device)
    work_->self_energy = std::make_unique<SelfEnergyWorkspace>(config_.solver.self_energy, nk_global_, threads);

  // Uncorrelated initial state: G<(k;0,0) = i diag(n_v, n_c), G> = G< - i.
  for (int k = 0; k < nk_; ++k) {
    M2 gl{{cplx(0.0, m.n_valence[k0_ + k]), cplx(), cplx(), cplx(0.0, m.n_conduction[k0_ + k])}};
    M2 gg = gl;
    gg.m[0] -= cplx(0.0, 1.0);
    gg.m[3] -= cplx(0.0, 1.0);
    store_block(g_less_.data(), k, nk_, gl);
    store_block(g_greater_.data(), k, nk_, gg);
  }
  step_ = 0;  // I(t_0, t_0) = 0: both integrals have zero length.
  if (compressed_) {
    const double cut = config_.solver.history_tolerance;
    work_->compressed = std::make_unique<CompressedHistory>(nk_, config_.solver.history_leaf, cut, cut);
    work_->compressed->set_row(0, g_less_.data(), g_greater_.data());
  }
#ifdef QUANTA_HAVE_CUDA
  if (on_device) {
    // Every rank learns whether every device fits before anything collective follows.
    std::string out_of_memory;
    try {
      work_->device = std::make_unique<DevicePropagation>(nk_, ntimes_, config_.solver.self_energy, u_grid_,
                                                          split ? nk_global_ : 0, split ? work_->transpose->max_pairs() : 0);
    } catch (const OutOfDeviceMemory& e) {
      out_of_memory = e.what();
    }
    if (comm_.max(out_of_memory.empty() ? 0 : 1) > 0)
      throw OutOfDeviceMemory(out_of_memory.empty() ? "kbe: another rank's device is out of memory" : out_of_memory);
    if (device_exchange) work_->exchange = std::make_unique<DeviceExchange>(comm_);
    work_->device->upload(0, g_less_.data(), g_greater_.data(), i_prev_less_.data(), i_prev_greater_.data());
    diag_less_.assign(ntimes_ * bs, cplx());
    std::copy_n(g_less_.begin(), bs, diag_less_.begin());
  }
#endif
}

std::size_t Propagator::row_offset(int n) const {
  return (compressed_ ? static_cast<std::size_t>(n % 2) * ntimes_ : tri(n, 0)) * block_size(nk_);
}

// On the host: every row of a dense CPU run; rows step() and step() + 1 of a compressed one; with CUDA the copies.
const cplx* Propagator::diagonal_block(int n) const {
  const std::size_t bs = block_size(nk_);
  return backend_ == Backend::Cuda ? diag_less_.data() + n * bs : g_less_.data() + row_offset(n) + n * bs;
}

Propagator::~Propagator() = default;

M2 Propagator::mean_density(int n) const {
  const cplx* d = diagonal_block(n);
  double sums[8] = {};
  for (int p = 0; p < 4; ++p)
    for (int k = 0; k < nk_; ++k) {
      sums[2 * p] += d[in_block(p, k, nk_)].re;
      sums[2 * p + 1] += d[in_block(p, k, nk_)].im;
    }
  comm_.sum(sums, 8);
  M2 rho;
  for (int p = 0; p < 4; ++p) rho.m[p] = cplx(sums[2 * p + 1], -sums[2 * p]) / static_cast<double>(nk_global_);  // -i G<
  return rho;
}

// hb(k) = h0(k; t_{n-1/2}) + [Sigma_HF(t_{n-1}) + Sigma_HF(t_n)] / 2 from the current rows n-1 and n.
void Propagator::build_h_mid(int n) {
  const M2 hf = 0.5 * (hartree_fock(u_grid_[n - 1], mean_density(n - 1)) + hartree_fock(u_grid_[n], mean_density(n)));
  for (int k = 0; k < nk_; ++k) work_->h_mid[k] = h_mid(n, k, hf);
}

M2 Propagator::h_mid(int n, int k, const M2& hf) const {
  const Model& m = config_.model;
  const double t_mid = adaptive_ ? 0.5 * (times_[n - 1] + times_[n]) : (n - 0.5) * config_.time.dt;
  return bare_hamiltonian(eps_v_[k], eps_c_[k], m.pulse.at(t_mid), cplx(m.dipole), m.interaction.at(t_mid)) + hf;
}

void Propagator::self_energy_row(int n) {
  if (comm_.distributed()) return self_energy_row_split(n);
  if (backend_ == Backend::Cuda) {
#ifdef QUANTA_HAVE_CUDA
    work_->device->self_energy_row(n);
#endif
    return;
  }
  SelfEnergySlice s;
  s.nk = nk_;
  s.count = n + 1;
  s.g_less = g_less_.data() + row_offset(n);
  s.g_greater = g_greater_.data() + row_offset(n);
  s.u_t = u_grid_[n];
  s.u_tp = u_grid_.data();
  s.sigma_less = sigma_less_.data();
  s.sigma_greater = sigma_greater_.data();
  self_energy_slice_cpu(s, *work_->self_energy);
}

// A k-split row (src/distribution.hpp): the G<> row goes to the pair layout, this rank computes Sigma<> of
// its pairs with every k on its backend, and the Sigma<> row comes back to the k layout.
void Propagator::self_energy_row_split(int n) {
  Work& w = *work_;
  RowTranspose& tr = *w.transpose;
  const int count = n + 1, first = tr.pairs_begin(count), mine = tr.pairs_count(count);
  WallTimer t;
#ifdef QUANTA_HAVE_CUDA
  if (w.exchange) {
    w.device->self_energy_row_exchanged(n, tr.plan(count), *w.exchange);
    seconds_transpose_ += t.seconds();
    return;
  }
#endif
  const cplx* row_less = g_less_.data() + row_offset(n);
  const cplx* row_greater = g_greater_.data() + row_offset(n);
#ifdef QUANTA_HAVE_CUDA
  if (backend_ == Backend::Cuda) {
    w.device->download_row(n, w.row_less.data(), w.row_greater.data());
    row_less = w.row_less.data();
    row_greater = w.row_greater.data();
  }
#endif
  tr.to_pairs(row_less, count, w.pairs_less.data());
  tr.to_pairs(row_greater, count, w.pairs_greater.data());
  seconds_transpose_ += t.seconds();
  t.reset();
  if (backend_ == Backend::Cuda) {
#ifdef QUANTA_HAVE_CUDA
    w.device->self_energy_pairs(mine, first, u_grid_[n], w.pairs_less.data(), w.pairs_greater.data(), w.pairs_sigma_less.data(),
                                w.pairs_sigma_greater.data());
#endif
  } else if (mine > 0) {
    SelfEnergySlice s;
    s.nk = nk_global_;
    s.count = mine;
    s.g_less = w.pairs_less.data();
    s.g_greater = w.pairs_greater.data();
    s.u_t = u_grid_[n];
    s.u_tp = u_grid_.data() + first;
    s.sigma_less = w.pairs_sigma_less.data();
    s.sigma_greater = w.pairs_sigma_greater.data();
    self_energy_slice_cpu(s, *w.self_energy);
  }
  seconds_pair_self_energy_ += t.seconds();
  t.reset();
  tr.to_k(w.pairs_sigma_less.data(), count, sigma_less_.data());
  tr.to_k(w.pairs_sigma_greater.data(), count, sigma_greater_.data());
#ifdef QUANTA_HAVE_CUDA
  if (backend_ == Backend::Cuda) w.device->upload_sigma_row(count, sigma_less_.data(), sigma_greater_.data());
#endif
  seconds_transpose_ += t.seconds();
}

std::string Propagator::transpose_path() const {
  if (!comm_.distributed()) return "none";
  return work_->exchange ? "device (NCCL)" : "host (MPI)";
}

void Propagator::collision_row(int n) {
  if (backend_ == Backend::Cuda) {
#ifdef QUANTA_HAVE_CUDA
    work_->device->collision_row(n, config_.time.dt);
#endif
    return;
  }
  CollisionRow r;
  r.nk = nk_;
  r.n = n;
  r.dt = config_.time.dt;
  r.times = adaptive_ ? times_.data() : nullptr;
  r.g_less = g_less_.data();
  r.g_greater = g_greater_.data();
  r.sigma_less = sigma_less_.data();
  r.sigma_greater = sigma_greater_.data();
  r.i_less = i_cur_less_.data();
  r.i_greater = i_cur_greater_.data();
  if (CompressedHistory* h = work_->compressed.get()) {  // row n as it stands (set again on every pass), then the sums
    r.g_less = r.g_greater = nullptr;
    h->set_row(n, g_less_.data() + row_offset(n), g_greater_.data() + row_offset(n));
    h->collision_row(r);
    return;
  }
  collision_integral_cpu(r);
}

HistoryFigures Propagator::history_figures() const {
  HistoryFigures f;
  f.storage = to_string(config_.solver.history);
  const std::size_t rows = tri_count(step_ + 1) * 2 * block_size(nk_);
  f.dense_numbers = rows;
  if (const CompressedHistory* h = work_->compressed.get()) {
    f.numbers = h->stored_numbers();
    f.blocks = h->blocks();
    f.max_rank = h->max_rank();
  } else {
    f.numbers = rows;
  }
  return f;
}

bool Propagator::finished() const {
  if (step_ + 1 >= ntimes_) return true;
  return adaptive_ && times_[step_] >= config_.time.end;
}

double Propagator::step_size(int n) const { return adaptive_ ? times_[n] - times_[n - 1] : config_.time.dt; }

void Propagator::set_time(int n, double t) {
  times_[n] = t;
  u_grid_[n] = config_.model.interaction.at(t);
}

// The largest step from t: time.dt_max, and within the pulse (centre +- 5 widths) a quarter of its width and within
// the switch-on of U a tenth of the ramp, so that no step can pass over either (the error estimate samples the field
// only at the step's ends and middle).
double Propagator::largest_step_from(double t) const {
  const Model& m = config_.model;
  double h = config_.time.largest_step();
  if (m.pulse.amplitude != 0.0 && t + h > m.pulse.center - 5 * m.pulse.width && t < m.pulse.center + 5 * m.pulse.width)
    h = std::min(h, std::max(config_.time.dt, 0.25 * m.pulse.width));
  if (m.interaction.ramp > 0.0 && t < m.interaction.ramp) h = std::min(h, std::max(config_.time.dt, 0.1 * m.interaction.ramp));
  return h;
}

// The error estimate of row n on G<(t_n, t_n), the largest entry over k and band pairs (Milne's device): the converged
// corrector (trapezoidal in the collision term, second order) against an explicit second-order prediction of the same
// step, whose collision term I<(t_n, t_n) and mean density are extrapolated linearly from t_{n-2} and t_{n-1} (the
// Adams-Bashforth 2 predictor). Both are O(h^3) off the exact step, the predictor by 5/12 h^3 y^(3) and the trapezoidal
// rule by -1/12 h^3 y^(3), so the corrector's local error is about 1/6 of their difference. The first step has no
// t_{n-2}: there the first-order predictor of solve_row (everything frozen at t_{n-1}) stands in, a larger, O(h^2),
// estimate. Added: the mean field's quadrature over the step, h |d (E(t_mid) - (E(t_{n-1}) + E(t_n)) / 2)| +
// h |U(t_mid) - (U(t_{n-1}) + U(t_n)) / 2|, the midpoint rule against the trapezoid, which both passes share.
double Propagator::step_error(int n, const std::vector<cplx>& predicted) const {
  const cplx* d = diagonal_block(n);
  const std::size_t bs = block_size(nk_);
  double e = 0;
  if (n < 2) {
    for (std::size_t i = 0; i < predicted.size(); ++i) e = std::max(e, abs(d[i] - predicted[i]));
  } else {
    const double r = (times_[n] - times_[n - 1]) / (times_[n - 1] - times_[n - 2]), h = times_[n] - times_[n - 1];
    const M2 before{{mean_density_before_[0], mean_density_before_[1], mean_density_before_[2], mean_density_before_[3]}};
    const M2 rho_prev = mean_density(n - 1), rho_ext = rho_prev + r * (rho_prev - before);
    const M2 hf = 0.5 * (hartree_fock(u_grid_[n - 1], rho_prev) + hartree_fock(u_grid_[n], rho_ext));
    const cplx* g_prev = diagonal_block(n - 1);
    for (int k = 0; k < nk_; ++k) {
      const M2 ip = load_block(i_prev_less_.data() + (n - 1) * bs, k, nk_), ib = load_block(collision_diag_before_.data(), k, nk_);
      const M2 ie = ip + r * (ip - ib);
      const M2 c_avg = 0.5 * ((ip + dagger(ip)) + (ie + dagger(ie)));
      const M2 gp = step_diagonal(step_operators(h_mid(n, k, hf), h), load_block(g_prev, k, nk_), c_avg, h);
      e = std::max(e, max_abs_diff(gp, load_block(d, k, nk_)) / 6.0);
    }
  }
  const Model& m = config_.model;
  const double t0 = times_[n - 1], t1 = times_[n], h = t1 - t0, tm = 0.5 * (t0 + t1);
  const double field = std::abs(m.dipole * (m.pulse.at(tm) - 0.5 * (m.pulse.at(t0) + m.pulse.at(t1))));
  const double u = std::abs(m.interaction.at(tm) - 0.5 * (m.interaction.at(t0) + m.interaction.at(t1)));
  return comm_.max(std::max(e, h * (field + u)));
}

// The seed's Algorithm 1 for row n, at the time set for it: predictor, then corrector passes until the row stops
// changing. The backend-specific pieces are below; with CUDA only hb goes up and the new diagonal block comes down per
// pass.
StepStats Propagator::solve_row(int n) {
  // Predictor: Sigma_HF and I frozen at t_{n-1} (row n's diagonal starts as a copy of row n-1's, so that
  // build_h_mid sees rho(t_{n-1}) at both ends).
  start_row(n);
  build_h_mid(n);
  step_row(n, true);
  if (adaptive_) std::copy_n(diagonal_block(n), predicted_.size(), predicted_.begin());

  // Corrector passes. A row with U(t_n) = 0 has Sigma = 0 and I = 0 exactly; they are not computed
  // (nor in time-dependent Hartree-Fock runs, second_born = false).
  const bool interacting = u_grid_[n] != 0.0 && config_.solver.second_born;
  StepStats st;
  for (int pass = 0; pass < std::max(1, config_.solver.corrector_iterations); ++pass) {
    build_h_mid(n);
    if (interacting) {
      self_energy_row(n);
      collision_row(n);
    } else {
      zero_collision_row(n);
    }
    st.last_change = step_row(n, false);
    st.corrector_passes = pass + 1;
    if (st.last_change <= config_.solver.corrector_tolerance) break;
  }
  return st;
}

// Adaptive steps: the standard controller of a second-order step with an O(h^3) error estimate, h_new = h min(2,
// max(0.2, 0.9 (tol / err)^(1/3))); a step above the tolerance is tried again at h_new (at most 0.9 h), one below it is kept and
// the next tried at h_new (at most the largest step from there). The last step ends at time.end.
StepStats Propagator::advance() {
  QUANTA_REQUIRE(step_ + 1 < ntimes_, "kbe: advance() past the last time step");
  const int n = step_ + 1;
  StepStats st;
  if (!adaptive_) {
    st = solve_row(n);
  } else {
    const double tol = config_.time.tolerance, h_min = 1e-6 * config_.time.dt;
    for (int rejected = 0;; ++rejected) {
      const double t0 = times_[n - 1], h = std::min({next_dt_, largest_step_from(t0), config_.time.end - t0});
      set_time(n, t0 + h);
      st = solve_row(n);
      st.error = step_error(n, predicted_);
      st.rejected = rejected;
      if (!std::isfinite(st.error)) {  // a diverged row is reported at once, not retried down to the smallest step
        check_finite_row(n, st);
        throw Error("kbe: step " + std::to_string(n) + " (t = " + std::to_string(t0) + "): the adaptive error estimate is not finite");
      }
      const double factor = st.error > 0 ? std::min(2.0, std::max(0.2, 0.9 * std::cbrt(tol / st.error))) : 2.0;
      if (st.error <= tol) {
        next_dt_ = h * factor;
        break;
      }
      next_dt_ = h * std::min(factor, 0.9);
      if (next_dt_ < h_min)
        throw Error("kbe: step " + std::to_string(n) + " (t = " + std::to_string(t0) + "): the adaptive step fell below 1e-6 time.dt (" +
                    std::to_string(next_dt_) + ") with its error estimate " + std::to_string(st.error) + " still above time.tolerance = " +
                    std::to_string(tol) + " after " + std::to_string(rejected + 1) + " tries: the propagation cannot meet the tolerance here");
    }
  }
  finish_row(n);
  check_finite_row(n, st);
  step_ = n;
  return st;
}

// A diverged propagation turns the whole row into NaN or infinity within a step or two (every entry feeds
// the next row's collision integral and the mean field), so the new diagonal block, already on the host
// with either backend, is where it is caught: nk x 4 numbers per step.
void Propagator::check_finite_row(int n, const StepStats& st) const {
  const cplx* d = diagonal_block(n);
  int bad = INT_MAX;
  double value = 0;
  for (int k = 0; k < nk_ && bad == INT_MAX; ++k)
    for (int p = 0; p < 4; ++p) {
      const cplx g = d[in_block(p, k, nk_)];
      if (!std::isfinite(g.re) || !std::isfinite(g.im)) {
        bad = k0_ + k;
        value = std::isfinite(g.re) ? g.im : g.re;
        break;
      }
    }
  const int first_bad = comm_.min(bad);  // every rank stops together
  if (first_bad == INT_MAX) return;
  char buf[160];
  if (bad == first_bad)
    std::snprintf(buf, sizeof buf, "%g", value);
  else
    std::snprintf(buf, sizeof buf, "not finite");
  throw Error("kbe: step " + std::to_string(n) + " (t = " + std::to_string(times_[n]) +
              "): the time-diagonal G<(t, t) is " + buf + " at k index " + std::to_string(first_bad) + " after " +
              std::to_string(st.corrector_passes) + " corrector passes (last change " + std::to_string(st.last_change) +
              "): the propagation diverged; the time step is too large for this field and interaction (dt = " +
              std::to_string(config_.time.dt) + ", U = " + std::to_string(config_.model.interaction.u) +
              ", pulse amplitude = " + std::to_string(config_.model.pulse.amplitude) + ")");
}

void Propagator::start_row(int n) {
  const std::size_t bs = block_size(nk_);
  if (backend_ == Backend::Cuda) {
#ifdef QUANTA_HAVE_CUDA
    work_->device->copy_diagonal(n - 1, n);
    std::copy_n(diag_less_.begin() + (n - 1) * bs, bs, diag_less_.begin() + n * bs);
#endif
    return;
  }
  std::copy_n(g_less_.begin() + row_offset(n - 1) + (n - 1) * bs, bs, g_less_.begin() + row_offset(n) + n * bs);
}

void Propagator::zero_collision_row(int n) {
  if (backend_ == Backend::Cuda) {
#ifdef QUANTA_HAVE_CUDA
    work_->device->zero_collision_row(n);
#endif
    return;
  }
  const std::size_t row_elems = static_cast<std::size_t>(n + 1) * block_size(nk_);
  std::fill_n(i_cur_less_.begin(), row_elems, cplx());
  std::fill_n(i_cur_greater_.begin(), row_elems, cplx());
}

double Propagator::step_row(int n, bool predictor) {
  if (backend_ == Backend::Cuda) {
#ifdef QUANTA_HAVE_CUDA
    DevicePropagation& dev = *work_->device;
    dev.set_h_mid(work_->h_mid.data());
    const double change = dev.time_step(n, step_size(n), predictor);
    dev.download_diagonal(n, diag_less_.data() + n * block_size(nk_));  // rho(t_n) for the next hb
    return comm_.max(change);
#endif
  }
  StepRow row;
  row.nk = nk_;
  row.n = n;
  row.dt = step_size(n);
  row.h_mid = work_->h_mid.data();
  row.i_prev_less = i_prev_less_.data();
  row.i_prev_greater = i_prev_greater_.data();
  row.i_cur_less = i_cur_less_.data();
  row.i_cur_greater = i_cur_greater_.data();
  row.predictor = predictor;
  row.g_prev_less = g_less_.data() + row_offset(n - 1);
  row.g_prev_greater = g_greater_.data() + row_offset(n - 1);
  row.g_less = g_less_.data() + row_offset(n);
  row.g_greater = g_greater_.data() + row_offset(n);
  return comm_.max(time_step_cpu(row));
}

void Propagator::finish_row([[maybe_unused]] int n) {
  if (backend_ == Backend::Cuda) {
#ifdef QUANTA_HAVE_CUDA
    work_->device->finish_step();
    work_->device->download_collision_prev(n, i_prev_less_.data() + n * block_size(nk_));  // I<(t_n, t_n): energy
#endif
    return;
  }
  if (adaptive_) {  // what the next step's error estimate extrapolates from: I<(t_{n-1}, t_{n-1}) and the mean density
    std::copy_n(i_prev_less_.begin() + (n - 1) * block_size(nk_), block_size(nk_), collision_diag_before_.begin());
    const M2 rho = mean_density(n - 1);
    std::copy_n(rho.m, 4, mean_density_before_);
  }
  std::swap(i_prev_less_, i_cur_less_);
  std::swap(i_prev_greater_, i_cur_greater_);
  // The finished row into the compressed history (again, after the corrector's last pass; first, for a row without
  // collision integrals).
  if (CompressedHistory* h = work_->compressed.get()) h->set_row(n, g_less_.data() + row_offset(n), g_greater_.data() + row_offset(n));
}

void Propagator::sync_host() {
#ifdef QUANTA_HAVE_CUDA
  if (backend_ != Backend::Cuda) return;
  const std::size_t bs = block_size(nk_);
  g_less_.assign(tri_count(ntimes_) * bs, cplx());
  g_greater_.assign(tri_count(ntimes_) * bs, cplx());
  work_->device->download(step_, g_less_.data(), g_greater_.data(), i_prev_less_.data(), i_prev_greater_.data());
#endif
}

std::vector<cplx> Propagator::density_matrix() const {
  std::vector<cplx> rho(static_cast<std::size_t>(nk_) * 4);
  const cplx* d = diagonal_block(step_);
  for (int k = 0; k < nk_; ++k)
    for (int p = 0; p < 4; ++p) {
      const cplx g = d[in_block(p, k, nk_)];
      rho[4 * k + p] = cplx(g.im, -g.re);
    }
  return rho;
}

Observables Propagator::observe() const {
  const Model& m = config_.model;
  Observables o;
  const int n = step_;
  o.time = times_[n];
  o.field = m.pulse.at(o.time);
  o.u = u_grid_[n];
  std::vector<double> nv(nk_), nc(nk_);
  const auto rho = density_matrix();
  const cplx* il = i_prev_less_.data() + static_cast<std::size_t>(n) * block_size(nk_);  // I<(t_n, t_n)
  const M2 hf = hartree_fock(o.u, mean_density(n));
  // This rank's k-points, then the sum over ranks: particles, polarization, kinetic, HF, correlation, sum n_c.
  double sums[6] = {};
  for (int k = 0; k < nk_; ++k) {
    const M2 r{{rho[4 * k], rho[4 * k + 1], rho[4 * k + 2], rho[4 * k + 3]}};
    nv[k] = r.m[0].re;
    nc[k] = r.m[3].re;
    sums[0] += r.m[0].re + r.m[3].re;
    sums[1] += 2.0 * (cplx(m.dipole) * r.m[1]).re;
    sums[2] += eps_v_[k] * r.m[0].re + eps_c_[k] * r.m[3].re;
    sums[3] += 0.5 * trace(hf * r).re;
    // Galitskii-Migdal: <H_int> = (1/2) sum_k tr[Sigma_HF rho] + (1/2i) sum_k tr I<(t,t).
    sums[4] += 0.5 * (il[in_block(0, k, nk_)] + il[in_block(3, k, nk_)]).im;
  }
  for (int k = 0; k < nk_; ++k) sums[5] += nc[k];
  comm_.sum(sums, 6);
  o.particles = sums[0];
  o.polarization = sums[1];
  o.energy_kinetic = sums[2];
  o.energy_interaction = -o.u * sums[5] + sums[3] + sums[4];
  o.energy_correlation = sums[4];
  o.energy_total = o.energy_kinetic + o.energy_interaction;
  o.energy_field = o.field * o.polarization;
  // The occupations of every k-point, on every rank.
  const Split ks{nk_global_, comm_.size()};
  std::vector<std::size_t> counts(comm_.size()), displs(comm_.size());
  for (int r = 0; r < comm_.size(); ++r) {
    counts[r] = ks.count(r);
    displs[r] = ks.begin(r);
  }
  o.n_valence.resize(nk_global_);
  o.n_conduction.resize(nk_global_);
  comm_.allgatherv(nv.data(), o.n_valence.data(), counts, displs);
  comm_.allgatherv(nc.data(), o.n_conduction.data(), counts, displs);
  return o;
}

PropagatorState Propagator::save() const {
  PropagatorState s;
  s.step = step_;
  s.times.assign(times_.begin(), times_.begin() + step_ + 1);
  s.next_dt = next_dt_;
  s.before = adaptive_state_before();
  const std::size_t bs = block_size(nk_);
  if (compressed_) {
    s.history = compressed_history_state();
    collision_row_copy(s.i_less, s.i_greater);
    return s;
  }
#ifdef QUANTA_HAVE_CUDA
  if (backend_ == Backend::Cuda) {
    s.g_less.resize(tri_count(step_ + 1) * bs);
    s.g_greater.resize(s.g_less.size());
    s.i_less.resize((step_ + 1) * bs);
    s.i_greater.resize(s.i_less.size());
    work_->device->download(step_, s.g_less.data(), s.g_greater.data(), s.i_less.data(), s.i_greater.data());
    return s;
  }
#endif
  s.g_less.assign(g_less_.begin(), g_less_.begin() + tri_count(step_ + 1) * bs);
  s.g_greater.assign(g_greater_.begin(), g_greater_.begin() + tri_count(step_ + 1) * bs);
  s.i_less.assign(i_prev_less_.begin(), i_prev_less_.begin() + (step_ + 1) * bs);
  s.i_greater.assign(i_prev_greater_.begin(), i_prev_greater_.begin() + (step_ + 1) * bs);
  return s;
}

void Propagator::restore(const PropagatorState& s) {
  if (compressed_) {
    restore_compressed(s.step, s.history, s.i_less, s.i_greater, "kbe: the saved state");
    return restore_time_grid(s.times, s.next_dt, s.before);
  }
  const std::size_t bs = block_size(nk_);
  if (s.step < 0 || s.step >= ntimes_ || s.g_less.size() != tri_count(s.step + 1) * bs ||
      s.g_greater.size() != s.g_less.size() || s.i_less.size() != static_cast<std::size_t>(s.step + 1) * bs ||
      s.i_greater.size() != s.i_less.size())
    throw Error("kbe checkpoint: its arrays do not fit this config (step " + std::to_string(s.step) + ", nk " +
                std::to_string(nk_) + ")");
  std::copy(s.i_less.begin(), s.i_less.end(), i_prev_less_.begin());
  std::copy(s.i_greater.begin(), s.i_greater.end(), i_prev_greater_.begin());
  step_ = s.step;
#ifdef QUANTA_HAVE_CUDA
  if (backend_ == Backend::Cuda) {
    work_->device->upload(s.step, s.g_less.data(), s.g_greater.data(), s.i_less.data(), s.i_greater.data());
    for (int n = 0; n <= s.step; ++n) std::copy_n(s.g_less.begin() + tri(n, n) * bs, bs, diag_less_.begin() + n * bs);
    return;
  }
#endif
  std::copy(s.g_less.begin(), s.g_less.end(), g_less_.begin());
  std::copy(s.g_greater.begin(), s.g_greater.end(), g_greater_.begin());
  restore_time_grid(s.times, s.next_dt, s.before);
}

std::vector<cplx> Propagator::adaptive_state_before() const {
  if (!adaptive_) return {};
  std::vector<cplx> v = collision_diag_before_;
  v.insert(v.end(), mean_density_before_, mean_density_before_ + 4);
  return v;
}

void Propagator::restore_time_grid(const std::vector<double>& times, double next_dt, const std::vector<cplx>& before) {
  if (times.size() != static_cast<std::size_t>(step_ + 1))
    throw Error("kbe: a time grid of " + std::to_string(times.size()) + " times restored at step " + std::to_string(step_));
  if (!adaptive_) return;  // a fixed grid's times are n dt
  for (int n = 1; n <= step_; ++n)
    if (!(times[n] > times[n - 1]) || !std::isfinite(times[n]))
      throw Error("kbe: the restored time grid does not increase at step " + std::to_string(n));
  if (!(next_dt > 0) || !std::isfinite(next_dt)) throw Error("kbe: the restored adaptive step is " + std::to_string(next_dt));
  if (before.size() != block_size(nk_) + 4)
    throw Error("kbe: the restored adaptive state holds " + std::to_string(before.size()) + " values, expected " + std::to_string(block_size(nk_) + 4));
  for (int n = 0; n <= step_; ++n) set_time(n, times[n]);
  next_dt_ = next_dt;
  std::copy_n(before.begin(), block_size(nk_), collision_diag_before_.begin());
  std::copy_n(before.begin() + block_size(nk_), 4, mean_density_before_);
}

namespace {
// The CPU half-plane is read in place: its finished rows never change.
class HostHalfPlaneReader final : public HalfPlaneReader {
 public:
  HostHalfPlaneReader(const cplx* less, const cplx* greater, std::size_t bs, std::size_t blocks)
      : less_(less), greater_(greater), bs_(bs), blocks_(blocks) {}
  std::size_t max_blocks() const override { return blocks_; }
  std::pair<const cplx*, const cplx*> blocks(std::size_t first, std::size_t) override {
    return {less_ + first * bs_, greater_ + first * bs_};
  }

 private:
  const cplx *less_, *greater_;
  std::size_t bs_, blocks_;
};

// Checkpoint pieces travel through page-locked buffers of this many bytes per G (at least one block).
constexpr std::size_t kStagingBytes = std::size_t(64) << 20;
std::size_t staging_blocks(std::size_t bs) { return std::max<std::size_t>(1, kStagingBytes / (bs * sizeof(cplx))); }

#ifdef QUANTA_HAVE_CUDA
class DeviceHalfPlaneReader final : public HalfPlaneReader {
 public:
  DeviceHalfPlaneReader(const DevicePropagation& device, std::size_t bs)
      : device_(device), bs_(bs), blocks_(staging_blocks(bs)), less_(blocks_ * bs), greater_(blocks_ * bs),
        pin_less_(less_.data(), less_.size() * sizeof(cplx)), pin_greater_(greater_.data(), greater_.size() * sizeof(cplx)) {}
  std::size_t max_blocks() const override { return blocks_; }
  std::pair<const cplx*, const cplx*> blocks(std::size_t first, std::size_t count) override {
    device_.download_blocks(first, count, less_.data(), greater_.data());
    return {less_.data(), greater_.data()};
  }

 private:
  const DevicePropagation& device_;
  std::size_t bs_, blocks_;
  std::vector<cplx> less_, greater_;
  PinnedHost pin_less_, pin_greater_;
};
#endif

std::size_t add_bytes(std::size_t a, std::size_t b) { return a > SIZE_MAX - b ? SIZE_MAX : a + b; }
}  // namespace

std::unique_ptr<HalfPlaneReader> Propagator::half_plane_reader() const {
  if (compressed_) return nullptr;  // its checkpoints hold the store (compressed_history_state)
  const std::size_t bs = block_size(nk_);
#ifdef QUANTA_HAVE_CUDA
  if (backend_ == Backend::Cuda) return std::make_unique<DeviceHalfPlaneReader>(*work_->device, bs);
#endif
  return std::make_unique<HostHalfPlaneReader>(g_less_.data(), g_greater_.data(), bs, tri_count(ntimes_));
}

void Propagator::collision_row_copy(std::vector<cplx>& i_less, std::vector<cplx>& i_greater) const {
  const std::size_t row = static_cast<std::size_t>(step_ + 1) * block_size(nk_);
  i_less.resize(row);
  i_greater.resize(row);
#ifdef QUANTA_HAVE_CUDA
  if (backend_ == Backend::Cuda) return work_->device->download_collision_row(step_, i_less.data(), i_greater.data());
#endif
  std::copy_n(i_prev_less_.begin(), row, i_less.begin());
  std::copy_n(i_prev_greater_.begin(), row, i_greater.begin());
}

void Propagator::restore_rows(int step, const BlockFill& fill, const std::vector<cplx>& i_less, const std::vector<cplx>& i_greater) {
  const std::size_t bs = block_size(nk_);
  if (step < 0 || step >= ntimes_ || i_less.size() != static_cast<std::size_t>(step + 1) * bs || i_greater.size() != i_less.size())
    throw Error("kbe checkpoint: its arrays do not fit this config (step " + std::to_string(step) + ", nk " + std::to_string(nk_) +
                ")");
  if (compressed_) throw Error("kbe: restore_rows fills a dense half-plane; this run's history is compressed");
  const std::size_t total = tri_count(step + 1);
  if (backend_ == Backend::Cpu) {
    fill(0, total, g_less_.data(), g_greater_.data());  // straight into the half-plane
  } else {
#ifdef QUANTA_HAVE_CUDA
    const std::size_t piece = staging_blocks(bs);
    std::vector<cplx> less(piece * bs), greater(piece * bs);
    for (std::size_t first = 0; first < total; first += piece) {
      const std::size_t count = std::min(piece, total - first);
      fill(first, count, less.data(), greater.data());
      work_->device->upload_blocks(first, count, less.data(), greater.data());
      for (int n = 0; n <= step; ++n)  // the diagonal blocks the host keeps
        if (tri(n, n) >= first && tri(n, n) < first + count)
          std::copy_n(less.begin() + (tri(n, n) - first) * bs, bs, diag_less_.begin() + n * bs);
    }
    work_->device->upload_collision_row(step, i_less.data(), i_greater.data());
#endif
  }
  std::copy(i_less.begin(), i_less.end(), i_prev_less_.begin());
  std::copy(i_greater.begin(), i_greater.end(), i_prev_greater_.begin());
  step_ = step;
}

HistoryPlan Propagator::compressed_history_plan(const Config& config, const Comm& comm) {
  const std::size_t ranks = static_cast<std::size_t>(std::max(1, comm.size()));
  const int nk_local = static_cast<int>((static_cast<std::size_t>(config.model.nk) + ranks - 1) / ranks);
  HistoryPlan p;
  p.rank = kPlanRank;
  p.numbers = CompressedHistory::planned_numbers(nk_local, config.time.steps + 1, config.solver.history_leaf, kPlanRank);
  p.full_rank_numbers = CompressedHistory::planned_numbers(nk_local, config.time.steps + 1, config.solver.history_leaf, INT_MAX);
  p.dense_numbers = 2 * tri_count(config.time.steps + 1) * block_size(nk_local);
  return p;
}

std::vector<double> Propagator::compressed_history_state() const {
  QUANTA_REQUIRE(compressed_, "kbe: compressed_history_state() of a dense history");
  return work_->compressed->save();
}

void Propagator::restore_compressed(int step, const std::vector<double>& history, const std::vector<cplx>& i_less,
                                    const std::vector<cplx>& i_greater, const std::string& where) {
  const std::size_t bs = block_size(nk_);
  if (!compressed_) throw Error(where + ": holds a compressed history; this run's history is dense");
  if (step < 0 || step >= ntimes_ || i_less.size() != static_cast<std::size_t>(step + 1) * bs || i_greater.size() != i_less.size())
    throw Error(where + ": its arrays do not fit this config (step " + std::to_string(step) + ", nk " + std::to_string(nk_) + ")");
  CompressedHistory& h = *work_->compressed;
  h.restore(history, where);
  if (h.rows() != step + 1)
    throw Error(where + ": its compressed history holds " + std::to_string(h.rows()) + " rows at step " + std::to_string(step));
  // Row `step`, the one the next step starts from, is dense in the store (its leaf and the filling strip).
  cplx* less = g_less_.data() + row_offset(step);
  cplx* greater = g_greater_.data() + row_offset(step);
  for (int j = 0; j <= step; ++j)
    for (int k = 0; k < nk_; ++k) {
      store_block(less + j * bs, k, nk_, h.load(false, step, j, k));
      store_block(greater + j * bs, k, nk_, h.load(true, step, j, k));
    }
  std::copy(i_less.begin(), i_less.end(), i_prev_less_.begin());
  std::copy(i_greater.begin(), i_greater.end(), i_prev_greater_.begin());
  step_ = step;
}

std::size_t Propagator::device_bytes(const Config& config) {
  return kernels::device_propagation_bytes(config.model.nk, config.time.steps + 1, config.solver.self_energy);
}

int Propagator::device_steps_within(const Config& config, std::size_t bytes) {
  auto fits = [&](int steps) { return kernels::device_propagation_bytes(config.model.nk, steps + 1, config.solver.self_energy) <= bytes; };
  if (!fits(1)) return 0;
  int lo = 1, hi = config.time.steps;  // fits(lo); the answer is in [lo, hi]
  if (fits(hi)) return hi;
  while (hi - lo > 1) {
    const int mid = lo + (hi - lo) / 2;
    (fits(mid) ? lo : hi) = mid;
  }
  return lo;
}

std::size_t Propagator::host_bytes(const Config& config, Backend backend, const Comm& comm, int threads, bool write_green) {
  const std::size_t nk = static_cast<std::size_t>(config.model.nk), ntimes = static_cast<std::size_t>(config.time.steps) + 1;
  const std::size_t ranks = static_cast<std::size_t>(std::max(1, comm.size()));
  const std::size_t nk_local = (nk + ranks - 1) / ranks;
  const std::size_t blocks = tri_count(ntimes) > SIZE_MAX / 2 ? SIZE_MAX : tri_count(ntimes);
  const std::size_t half_plane = bytes_of(sizeof(cplx), 2, blocks, 4, nk_local);  // G< and G>
  const std::size_t row = bytes_of(sizeof(cplx), ntimes, 4, nk_local);
  const std::size_t t = static_cast<std::size_t>(std::max(1, threads));
  std::size_t bytes = bytes_of(sizeof(double), 2, ntimes, nk);  // the occupations' history
  if (backend == Backend::Cuda) {
    bytes = add_bytes(bytes, bytes_of(1, 3, row));  // I< and I> rows, the diagonal blocks
    bytes = add_bytes(bytes, bytes_of(sizeof(cplx), 2, staging_blocks(4 * nk_local), 4, nk_local));  // checkpoint staging
    if (comm.distributed()) bytes = add_bytes(bytes, bytes_of(1, 4, row));  // Sigma rows and the G rows through the host
    if (write_green) bytes = add_bytes(bytes, half_plane);  // downloaded for the output
  } else if (config.solver.history == HistoryStorage::Compressed) {
    // The two rows being stepped, the store at the planning rank and, with checkpoints, its saved copy.
    const std::size_t store = bytes_of(sizeof(cplx), compressed_history_plan(config, comm).numbers);
    bytes = add_bytes(bytes, bytes_of(1, 2, 2, row));
    bytes = add_bytes(bytes, config.output.checkpoint_every > 0 ? bytes_of(1, 2, store) : store);
  } else {
    bytes = add_bytes(bytes, half_plane);
  }
  if (backend != Backend::Cuda) {
    bytes = add_bytes(bytes, bytes_of(1, 6, row));  // Sigma, I now, I before
    const std::size_t se = config.solver.self_energy == SelfEnergyMethod::Fft ? bytes_of(sizeof(cplx), t, 16, nk)
                                                                               : bytes_of(sizeof(cplx), t, 4, nk);
    bytes = add_bytes(bytes, se);
  }
  if (comm.distributed()) {  // the pairs of a row with every k, in and out
    const std::size_t pairs = (ntimes + ranks - 1) / ranks;
    bytes = add_bytes(bytes, bytes_of(sizeof(cplx), 4 + 1, pairs, 4, nk));
    if (write_green && comm.root()) bytes = add_bytes(bytes, bytes_of(sizeof(cplx), 2, blocks, 4, nk));  // gathered
  }
  return bytes;
}

}  // namespace quanta::kbe
