#pragma once
// The two-time propagation of the seed's Algorithm 1 on the CPU: the half-plane of G<> (see
// kernels/layout.hpp for the storage), one time row per advance(), with a predictor and corrector
// passes to self-consistency of h_HF, Sigma and the collision integral at each step.
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "quanta/core/backend.hpp"
#include "quanta/core/comm.hpp"
#include "quanta/core/complex.hpp"
#include "quanta/kbe/params.hpp"

namespace quanta::kbe {
namespace kernels {
struct M2;
}

// Observables at one time t_n (extensive: summed over the nk k-points).
struct Observables {
  double time = 0, field = 0, u = 0;
  double particles = 0;             // N = sum_k [n_v(k) + n_c(k)]
  double polarization = 0;          // sum_k 2 Re(d_k rho_vc(k)), rho_vc = <c+_c c_v>
  double energy_kinetic = 0;        // sum_k [eps_v n_v + eps_c n_c]
  double energy_interaction = 0;    // <-U sum_k n_ck + U sum_i n_vi n_ci>, the last by Galitskii-Migdal
  double energy_correlation = 0;    // the second-Born part of energy_interaction, (1/2i) sum_k tr I<(t,t)
  double energy_total = 0;          // kinetic + interaction = <H_s>
  double energy_field = 0;          // E(t) * polarization
  std::vector<double> n_valence, n_conduction;  // [nk]
};

// The state a checkpoint holds: enough to continue bit for bit.
struct PropagatorState {
  int step = 0;
  std::vector<cplx> g_less, g_greater;  // dense history: [tri_count(step+1)][4][nk]; compressed: empty
  std::vector<double> history;          // compressed history: its store (CompressedHistory::save); dense: empty
  std::vector<cplx> i_less, i_greater;  // [step+1][4][nk]  I<>(t_step, t_j)
  std::vector<double> times;            // [step+1] t_0..t_step
  double next_dt = 0;                   // adaptive steps: the step the controller proposes next
  std::vector<cplx> before;             // adaptive steps: I<(t_{step-1}, t_{step-1}) [4][nk], then the mean density there [4]
};

// What the finished history holds: complex and real numbers (the dense half-plane's count alongside), and for a
// compressed one its low-rank blocks and their largest rank.
struct HistoryFigures {
  std::string storage;                  // "dense" or "compressed"
  std::size_t numbers = 0, dense_numbers = 0;
  int blocks = 0, max_rank = 0;
};

struct StepStats {
  int corrector_passes = 0;
  double last_change = 0;           // max |G_new - G_old| of the last pass
  double error = 0;                 // adaptive steps: the accepted step's error estimate (0 on a fixed grid)
  int rejected = 0;                 // adaptive steps: tries of this step rejected before it
};

// The memory plan of a compressed history (this process's k-points, complex numbers): the store at the end of the run
// with every block factor of rank `rank`, the same at full rank (no compression: a bound), and the dense half-plane.
struct HistoryPlan {
  int rank = 0;
  std::size_t numbers = 0, full_rank_numbers = 0, dense_numbers = 0;
};

// Reads finished rows of the half-plane (rows <= step()) while the propagation goes on, from another
// thread: the checkpoint writer. On the CPU the pointers are into the half-plane itself; with CUDA the
// blocks are copied down on a stream of their own into a page-locked buffer of max_blocks() blocks.
class HalfPlaneReader {
 public:
  virtual ~HalfPlaneReader() = default;
  virtual std::size_t max_blocks() const = 0;
  // Blocks [first, first + count) of G< and G>, [count][4][nk] each; count <= max_blocks(). The pointers
  // stay valid until the next call.
  virtual std::pair<const cplx*, const cplx*> blocks(std::size_t first, std::size_t count) = 0;
};

// advance() allocates nothing: every array is taken in the constructor. With Backend::Cuda the half-plane
// and the work rows live on the device (kernels/cuda_propagation.hpp); the host keeps the diagonal blocks
// and the collision row the observables need, and the whole half-plane only after sync_host().
//
// With a distributed Comm each rank holds a contiguous range of k-points (src/distribution.hpp): nk() and
// every array below are this rank's; observe() and step statistics are already summed over all ranks.
// Every rank must call advance(), observe() and save() in the same order (they communicate).
class Propagator {
 public:
  Propagator(const Config& config, int threads, Backend backend = Backend::Cpu, const Comm& comm = Comm::world());
  ~Propagator();
  Propagator(const Propagator&) = delete;
  Propagator& operator=(const Propagator&) = delete;

  int step() const { return step_; }       // last completed time row
  int nk() const { return nk_; }           // k-points of this rank
  int k_begin() const { return k0_; }      // global index of this rank's first k-point
  int ntimes() const { return ntimes_; }   // steps + 1
  double time() const { return times_[step_]; }  // t_step()
  // Whether the propagation has reached its end: the last step of a fixed grid, time.end with adaptive steps.
  bool finished() const;
  // Computes row step()+1. With adaptive steps (time.adaptive) the step is tried at the controller's size, and
  // repeated smaller while its error estimate exceeds time.tolerance (throws Error when the step would fall below
  // 1e-6 time.dt, or the grid has no row left); on a fixed grid it is time.dt.
  StepStats advance();

  Observables observe() const;             // at t_step()
  // rho(k; t_step) = -i G<(k; t_step, t_step) of this rank's k-points: [nk][4] in band-pair order.
  std::vector<cplx> density_matrix() const;

  // Half-plane storage, [tri_count(ntimes)][4][nk]; rows beyond step() are not yet meaningful. With the
  // CUDA backend, call sync_host() first. A compressed history holds no half-plane (these are its two row buffers).
  void sync_host();
  Backend backend() const { return backend_; }
  const std::vector<cplx>& g_less() const { return g_less_; }
  const std::vector<cplx>& g_greater() const { return g_greater_; }

  // k-split runs: wall seconds spent so far in the self-energy's row transpositions (host copies, MPI and,
  // with CUDA, the transfers to and from the device) and in the self-energy of this rank's pairs.
  double seconds_transpose() const { return seconds_transpose_; }
  // How the self-energy rows travel: "none" (one process), "host (MPI)" or "device (NCCL)".
  std::string transpose_path() const;
  double seconds_pair_self_energy() const { return seconds_pair_self_energy_; }

  PropagatorState save() const;
  void restore(const PropagatorState& s);  // throws Error when shapes do not fit this config
  // The grid t_0..t_step, the next proposed step and the values at t_{step-1} the error estimate extrapolates from
  // (adaptive_state_before), of adaptive steps: checkpoints restore them after the rows; a fixed grid only checks the
  // count. Throws Error when they do not fit.
  void restore_time_grid(const std::vector<double>& times, double next_dt, const std::vector<cplx>& before);
  double next_dt() const { return next_dt_; }
  std::vector<cplx> adaptive_state_before() const;  // empty on a fixed grid

  HistoryFigures history_figures() const;

  // solver.history = "compressed" (CPU backend): the finished history lives in a CompressedHistory
  // (kernels/compressed_history.hpp) and only the rows being stepped are dense. Its checkpoint is the store's state
  // (compressed_history_state) and the collision row; restore_compressed takes them back and rebuilds row `step`
  // from the store. Throws Error when the shapes do not fit this config (`where` names the source).
  bool compressed_history() const { return compressed_; }
  std::vector<double> compressed_history_state() const;
  void restore_compressed(int step, const std::vector<double>& history, const std::vector<cplx>& i_less, const std::vector<cplx>& i_greater,
                          const std::string& where);

  // Checkpoints of a dense history without copying it: a reader of the finished rows (see HalfPlaneReader), the
  // collision row I<>(t_step, t_j), j <= step, [step+1][4][nk] each, and a restore that fills the
  // half-plane piece by piece (fill(first, count, less, greater) writes blocks [first, first + count) into
  // the arrays it is given) and then sets the collision row and the step. Throws Error when the shapes do
  // not fit this config.
  using BlockFill = std::function<void(std::size_t first, std::size_t count, cplx* less, cplx* greater)>;
  std::unique_ptr<HalfPlaneReader> half_plane_reader() const;
  void collision_row_copy(std::vector<cplx>& i_less, std::vector<cplx>& i_greater) const;
  void restore_rows(int step, const BlockFill& fill, const std::vector<cplx>& i_less, const std::vector<cplx>& i_greater);

  // Host bytes this process needs for a run of `config` on `backend` (the half-plane, the rows and
  // workspaces, the observables' history, checkpoint staging and, with write_green, the output copies),
  // before anything is allocated: run() compares it with the memory available.
  static std::size_t host_bytes(const Config& config, Backend backend, const Comm& comm, int threads, bool write_green);
  // Device bytes of a one-process CUDA run of `config` (kernels/cuda_propagation.hpp's plan), and the most steps
  // whose run takes at most `bytes` (0 when not even one step does).
  static std::size_t device_bytes(const Config& config);
  // The planning rank of a compressed history: above the largest per-band-pair rank measured (21, side 512, tolerance
  // 1e-10, nt = 800: docs/kbe.md, "Compressed history"); the run reports the ranks reached.
  static constexpr int kPlanRank = 32;
  static HistoryPlan compressed_history_plan(const Config& config, const Comm& comm);
  static int device_steps_within(const Config& config, std::size_t bytes);

 private:
  struct Work;
  // The steps of advance(), each on the run's backend.
  void build_h_mid(int n);
  void start_row(int n);
  void self_energy_row(int n);
  void collision_row(int n);
  void zero_collision_row(int n);
  double step_row(int n, bool predictor);
  void finish_row(int n);
  kernels::M2 mean_density(int n) const;   // (1/nk) sum_k rho(k; t_n), all ranks
  void self_energy_row_split(int n);       // self_energy_row of a k-split run
  std::size_t row_offset(int n) const;      // where row n starts in g_less_, g_greater_ (elements)
  const cplx* diagonal_block(int n) const;  // G<(t_n, t_n), [4][nk], on the host
  void check_finite_row(int n, const StepStats& st) const;  // throws Error naming the step when G<(t_n,t_n) is not finite
  StepStats solve_row(int n);              // predictor and corrector passes of row n at the time set for it
  void set_time(int n, double t);          // t_n (and U(t_n)) for adaptive steps
  double step_size(int n) const;           // t_n - t_{n-1}: time.dt on a fixed grid
  double largest_step_from(double t) const;  // adaptive: time.dt_max, smaller across the pulse and the U ramp
  double step_error(int n, const std::vector<cplx>& predicted) const;  // adaptive: the error estimate of row n
  kernels::M2 h_mid(int n, int k, const kernels::M2& hf) const;  // hb(k) of step n with the mean field hf

  Config config_;
  const Comm& comm_;
  int nk_ = 0, ntimes_ = 0, step_ = 0;
  int nk_global_ = 0, k0_ = 0;
  std::vector<double> eps_v_, eps_c_, u_grid_;      // [nk], [nk], [ntimes]
  std::vector<double> times_;                        // [ntimes] t_n (adaptive: set as the steps are taken)
  bool adaptive_ = false;
  double next_dt_ = 0;                               // adaptive: the next step to try
  std::vector<cplx> predicted_;                      // adaptive: [4][nk] the predictor's G<(t_n, t_n)
  std::vector<cplx> collision_diag_before_;          // adaptive: [4][nk] I<(t_{step-1}, t_{step-1})
  cplx mean_density_before_[4] = {};                 // adaptive: the mean density at t_{step-1}, a 2x2 matrix
  std::vector<cplx> g_less_, g_greater_;             // half-plane
  std::vector<cplx> sigma_less_, sigma_greater_;     // [ntimes][4][nk] Sigma row
  std::vector<cplx> i_prev_less_, i_prev_greater_;   // [ntimes][4][nk] I row t_{n-1}
  std::vector<cplx> i_cur_less_, i_cur_greater_;     // [ntimes][4][nk] I row t_n
  Backend backend_ = Backend::Cpu;
  bool compressed_ = false;                          // solver.history = compressed
  std::vector<cplx> diag_less_;                      // CUDA: [ntimes][4][nk] G<(t_n, t_n) on the host
  double seconds_transpose_ = 0, seconds_pair_self_energy_ = 0;
  std::unique_ptr<Work> work_;
};


}  // namespace quanta::kbe
