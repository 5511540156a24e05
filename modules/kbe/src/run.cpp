// quanta kbe: the data flow of a run, stage by stage.
#include "quanta/kbe/run.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>

#include "../io/checkpoint.hpp"
#include "../io/outputs.hpp"
#include "distribution.hpp"
#include "quanta/core/comm.hpp"
#include "quanta/core/error.hpp"
#include "quanta/core/host_memory.hpp"
#include "quanta/core/io/output_folder.hpp"
#include "quanta/core/progress.hpp"
#include "quanta/core/threads.hpp"
#include "quanta/core/timer.hpp"
#include "quanta/kbe/config.hpp"
#include "quanta/kbe/propagator.hpp"

namespace quanta::kbe {
namespace {
// One checkpoint file per rank of a k-split run; a single process keeps the plain name.
std::filesystem::path checkpoint_path(const std::filesystem::path& dir, const Comm& comm) {
  if (!comm.distributed()) return dir / "quanta-kbe.checkpoint.h5";
  return dir / ("quanta-kbe.checkpoint.rank" + std::to_string(comm.rank()) + "-of-" + std::to_string(comm.size()) + ".h5");
}

// Before anything is allocated: the host memory this process's share of the run needs.
void require_memory(const Config& c, Backend backend, const Comm& comm, bool green) {
  const std::size_t bytes = Propagator::host_bytes(c, backend, comm, max_threads(), green);
  const bool compressed = c.solver.history == HistoryStorage::Compressed;
  require_host_memory(bytes, "kbe (nk = " + std::to_string(c.model.nk) + ", " + std::to_string(c.time.steps) + " steps, " +
                                 (backend == Backend::Cuda ? "CUDA backend: collision rows and checkpoint buffers"
                                  : compressed ? "CPU backend: the compressed history at rank " + std::to_string(Propagator::kPlanRank) +
                                                     " per block, rows and workspaces"
                                               : "CPU backend: the half-plane of G< and G>, rows and workspaces") +
                                 (green ? ", the half-plane for write_green" : "") +
                                 (comm.distributed() ? ", this process's share" : "") + ")");
}

// The relative cost of step n (row n has n + 1 time pairs): the collision integral is O(n^2 nk) per pass,
// the self-energy and the time step O(n nk) (the 8 weighs the FFTs against one term of the collision sum).
double step_work(const Config& c, int n) {
  const bool collisions = c.solver.second_born && c.model.interaction.at(n * c.time.dt) != 0.0;
  return (n + 1.0) * (collisions ? n + 1.0 + 8.0 : 1.0);
}

// The CPU path's time for the whole run, from a short run of the same model timed on this host (the first
// min(steps, 32) steps, one process) scaled by step_work: its time grows as the steps cubed, so the first steps
// set the rate and the rest follow the model. An estimate: the corrector's passes per step vary along the run.
// Only where the whole CPU run would fit the host's memory and the short run takes a small part of it; else, or when
// the short run fails, a negative value ("not estimated").
constexpr int kEstimateSteps = 32;
double estimated_cpu_seconds(const Config& config, const Comm& comm) {
  Config c = config;
  c.time.steps = std::min(config.time.steps, kEstimateSteps);
  c.output = OutputOptions{};
  const std::size_t available = host_memory_available();
  if (Propagator::host_bytes(config, Backend::Cpu, comm, max_threads(), false) > available ||
      Propagator::host_bytes(c, Backend::Cpu, comm, max_threads(), false) > available / 8)
    return -1;
  try {
    Propagator p(c, max_threads(), Backend::Cpu);
    WallTimer t;
    double timed = 0, all = 0;
    while (p.step() < c.time.steps) {
      p.advance();
      timed += step_work(c, p.step());
    }
    const double seconds = t.seconds();
    for (int n = 1; n <= config.time.steps; ++n) all += step_work(config, n);
    return timed > 0 ? seconds * all / timed : -1;
  } catch (const std::exception&) {  // the message this serves must not be replaced by the estimate's failure
    return -1;
  }
}

std::string number(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", x);
  return buf;
}

std::string gib(double numbers_of_complex) { return number(numbers_of_complex * sizeof(cplx) / 1073741824.0) + " GiB"; }

// A compressed history, before the run: what it plans to hold and the dense half-plane it replaces.
std::string history_plan_text(const Config& c, const Comm& comm) {
  const HistoryPlan p = Propagator::compressed_history_plan(c, comm);
  return "history compressed (tolerance " + number(c.solver.history_tolerance) + ", leaf " + std::to_string(c.solver.history_leaf) +
         "): planned " + gib(static_cast<double>(p.numbers)) + " at rank " + std::to_string(p.rank) + " per block (at most " +
         gib(static_cast<double>(p.full_rank_numbers)) + " at full rank) against " + gib(static_cast<double>(p.dense_numbers)) +
         " dense" + (comm.distributed() ? ", per process" : "");
}

// A diverged propagation must not pass as a result: every observable of step n is checked as it is made.
void check_observables(const Observables& o, int n) {
  const std::pair<const char*, double> quantities[] = {
      {"the particle number N(t)", o.particles},       {"the polarization", o.polarization},
      {"the kinetic energy", o.energy_kinetic},        {"the interaction energy", o.energy_interaction},
      {"the correlation energy", o.energy_correlation}};
  for (const auto& [name, value] : quantities)
    if (!std::isfinite(value))
      throw Error("kbe: step " + std::to_string(n) + " (t = " + number(o.time) + "): " + name + " is " + number(value) +
                  ": the propagation diverged; reduce time.dt or check the field and interaction strengths");
  for (std::size_t k = 0; k < o.n_valence.size(); ++k)
    if (!std::isfinite(o.n_valence[k]) || !std::isfinite(o.n_conduction[k]))
      throw Error("kbe: step " + std::to_string(n) + " (t = " + number(o.time) + "): the occupation at k index " + std::to_string(k) +
                  " is not finite: the propagation diverged; reduce time.dt or check the field and interaction strengths");
}

// Steps whose corrector stopped at its pass limit with the row still changing by more than the tolerance.
struct CorrectorLimit {
  int steps = 0, hits = 0, worst_step = 0;
  double worst_change = 0;
};

CorrectorLimit corrector_limit(const Config& c, const History& h) {
  CorrectorLimit r;
  for (std::size_t n = 1; n < h.size(); ++n) {
    ++r.steps;
    if (h.corrector_passes[n] < c.solver.corrector_iterations || h.corrector_change[n] <= c.solver.corrector_tolerance) continue;
    ++r.hits;
    if (!(h.corrector_change[n] <= r.worst_change)) {
      r.worst_change = h.corrector_change[n];
      r.worst_step = static_cast<int>(n);
    }
  }
  return r;
}

std::string corrector_limit_text(const Config& c, const CorrectorLimit& r) {
  return "the corrector stopped at its limit of " + std::to_string(c.solver.corrector_iterations) + " passes with the row still changing (max |G_new - G_old| above corrector_tolerance = " +
         number(c.solver.corrector_tolerance) + ") at " + std::to_string(r.hits) + " of " + std::to_string(r.steps) +
         " steps; the largest remaining change is " + number(r.worst_change) + " at step " + std::to_string(r.worst_step) +
         " (solver/corrector_change in the results has every step's): reduce time.dt or raise solver.corrector_iterations";
}
}  // namespace

RunSummary run(const RunOptions& opt) {
  WallTimer total;
  set_threads(opt.threads);
  RunSummary s;
  // Several processes (mpirun) split the k-points (src/distribution.hpp), one GPU each; the root reports
  // and writes the results.
  const Comm& comm = Comm::world();
  const bool quiet = opt.quiet || !comm.root();

  // 1. Config, validated before anything is computed or written.
  const Config config = read_config(opt.config);
  Backend backend = resolve_backend(opt.backend);
  const bool compressed = config.solver.history == HistoryStorage::Compressed;
  if (compressed && (config.output.write_green || opt.write_green))
    throw Error("kbe: " + config.source + ": write_green writes the whole half-plane, which a run with solver.history = \"compressed\" "
                "never holds; leave write_green out or use solver.history = \"dense\"");
  // Settings whose device twin is not built: refused under --backend cuda, run on the CPU under auto.
  const char* cpu_only = config.time.adaptive ? "time.adaptive" : compressed ? "solver.history = \"compressed\"" : nullptr;
  if (cpu_only && backend == Backend::Cuda) {
    if (opt.backend == Backend::Cuda)
      throw Error(std::string("kbe: ") + cpu_only + " runs on the CPU backend in this version (its device twin is not built): use "
                  "--backend cpu, or leave it out on the GPU");
    note("kbe", quiet, std::string(cpu_only) + " runs on the CPU backend in this version: propagating on the CPU");
    backend = Backend::Cpu;
  }
  if (backend == Backend::Cuda) select_device(comm.local_rank());
  RunMetadata meta;
  meta.config_file = opt.config.string();
  meta.digest = config.trajectory_digest();
  s.nk = config.model.nk;
  s.steps = config.time.steps;
  s.self_energy = to_string(config.solver.self_energy);
  std::filesystem::create_directories(opt.output_dir);
  s.results = opt.output_dir / "quanta-kbe.h5";
  s.summary = opt.output_dir / "quanta-kbe.txt";
  s.checkpoint = checkpoint_path(opt.output_dir, comm);
  s.ranks = comm.size();

  // 2. The half-plane and all work arrays, allocated once (on the device with CUDA; a half-plane too large
  // for the device is refused under --backend cuda and goes to the CPU under auto, on every rank when any rank's
  // does not fit); the uncorrelated initial state.
  WallTimer t;
  const bool green = config.output.write_green || opt.write_green;
  // An explicit --backend cuda runs on the device or not at all; with auto a run that does not fit the device goes
  // to the CPU, saying so. One process knows before anything is allocated (the device plan against the free memory).
  const bool cuda_asked = opt.backend == Backend::Cuda;
  if (opt.gpu_mem_limit > 0 && comm.distributed())
    throw Error("--gpu-mem-limit: a run over several processes (mpirun) is planned by its allocations, not by a limit; it applies "
                "to a one-process run");
  const std::string cpu_instead = "the CPU path would need " +
                                  number(Propagator::host_bytes(config, Backend::Cpu, comm, max_threads(), green) / 1073741824.0) +
                                  " GiB of host memory and is much slower (its time grows as the steps cubed)";
  if (backend == Backend::Cuda && !comm.distributed()) {
    const std::size_t need = Propagator::device_bytes(config), have = GpuMemoryBudget{opt.gpu_mem_limit}.usable_bytes();
    if (need > have) {
      std::string what = "the CUDA propagation of nk = " + std::to_string(config.model.nk) + " for " + std::to_string(config.time.steps) +
                               " steps needs " + number(need / 1073741824.0) + " GiB of device memory; the device has " +
                               number(have / 1073741824.0) + " GiB free to use" + (opt.gpu_mem_limit > 0 ? std::string(" (--gpu-mem-limit)") : std::string()) + ". " + std::to_string(Propagator::device_steps_within(config, have)) +
                               " steps would fit, or the k-points split over several GPUs (mpirun, one process per GPU); " + cpu_instead;
      const double cpu_seconds = estimated_cpu_seconds(config, comm);
      what += cpu_seconds >= 0 ? ": about " + format_duration(cpu_seconds) + " on this host's " + std::to_string(max_threads()) + " threads (the first " +
                                     std::to_string(std::min(config.time.steps, kEstimateSteps)) + " steps timed and scaled)"
                               : " (its time not estimated: the CPU run would not fit this host's memory, or a short timed run was not possible)";
      if (cuda_asked) throw Error("kbe: " + what + " (--backend cuda was asked: the run is not moved to the CPU)");
      warn("kbe", what + ": propagating on the CPU (--backend auto)");
      backend = Backend::Cpu;
    }
  }
  require_memory(config, backend, comm, green);
  std::unique_ptr<Propagator> owned;
  try {
    owned = std::make_unique<Propagator>(config, max_threads(), backend, comm);
  } catch (const OutOfDeviceMemory& e) {  // thrown on every rank together
    if (cuda_asked) throw Error("kbe: " + std::string(e.what()) + ": the CUDA backend does not fit the device; " + cpu_instead +
                                " (--backend cuda was asked: the run is not moved to the CPU)");
    // The CPU path holds the whole half-plane in host memory: said, and refused when it does not fit.
    warn("kbe", std::string(e.what()) + ": the CUDA backend does not fit the device, propagating on the CPU (--backend auto); " + cpu_instead);
    backend = Backend::Cpu;
    require_memory(config, backend, comm, green);
    owned = std::make_unique<Propagator>(config, max_threads(), backend, comm);
  }
  Propagator& prop = *owned;
  if (compressed) note("kbe", quiet, history_plan_text(config, comm));
  meta.backend = to_string(backend);
  meta.device = device_description(backend);
  meta.processes = comm.size();
  s.backend = meta.backend;
  History history;
  meta.transpose = prop.transpose_path();
  note("kbe", quiet, std::to_string(config.model.nk) + " k-points" +
                        (comm.distributed() ? " over " + std::to_string(comm.size()) + " processes (rows through " + meta.transpose + ")"
                                            : std::string()) + ", " + std::to_string(config.time.steps) + " steps of " +
                      std::to_string(config.time.dt) + ", U = " + std::to_string(config.model.interaction.u) +
                      ", self-energy " + s.self_energy);

  // 3. Resume from the checkpoint, or start at t = 0.
  CheckpointPosition resumed;
  if (opt.resume) {
    resumed = read_checkpoint_position(s.checkpoint, meta.digest);
    if (comm.min(resumed.step) != comm.max(resumed.step))
      throw Error("kbe: the ranks' checkpoints (" + s.checkpoint.string() + " and the others) are at different steps; the run "
                  "was stopped while writing them: start it again without --resume");
    restore_checkpoint(s.checkpoint, resumed, prop, history);
    s.resumed_from = resumed.step;
    note("kbe", quiet, "resumed from step " + std::to_string(resumed.step) + " of " + s.checkpoint.string());
  } else {
    history.append(prop.observe(), StepStats{});
  }
  check_observables(prop.observe(), prop.step());
  meta.timings.emplace_back("setup", t.seconds());

  // 4. Propagation: one time row per step (Algorithm 1), observables after each, checkpoints every N steps.
  // A checkpoint appends the rows since the last one, from a thread of its own (io/checkpoint.hpp).
  t.reset();
  std::unique_ptr<CheckpointWriter> checkpoints;
  if (config.output.checkpoint_every > 0) {
    // Every process's checkpoint goes to the output folder, one file system: their sum is checked, on every process, and
    // all stop together when one finds too little. A resumed file's blocks already on disk are not needed again.
    const std::uintmax_t file =
        checkpoint_bytes(prop.nk(), config.time.steps, history.nk, compressed ? 2 * Propagator::compressed_history_plan(config, comm).numbers : 0);
    const std::uintmax_t there = opt.resume ? io::allocated_bytes(s.checkpoint) : 0;
    double need[1] = {static_cast<double>(file > there ? file - there : 0)};
    comm.sum(need, 1);
    std::string refused;
    try {
      io::require_disk_space(opt.output_dir, static_cast<std::uintmax_t>(need[0]),
                             "kbe: the checkpoint" + std::string(comm.distributed() ? "s of the " + std::to_string(comm.size()) + " processes" : " " + s.checkpoint.filename().string()) +
                                 " (output.checkpoint_every = " + std::to_string(config.output.checkpoint_every) + ")");
    } catch (const Error& e) {
      refused = e.what();
    }
    if (comm.max(refused.empty() ? 0 : 1) != 0)
      throw Error(refused.empty() ? "kbe: another process found too little disk for the checkpoints (its message says how much)" : refused);
  }
  if (config.output.checkpoint_every > 0)
    checkpoints = std::make_unique<CheckpointWriter>(s.checkpoint, meta.digest, prop.nk(), config.time.steps, prop.half_plane_reader(),
                                                     opt.resume ? &resumed : nullptr);
  Progress progress("kbe propagation", static_cast<std::size_t>(config.time.steps - prop.step()), quiet);
  double work = 0;
  for (int n = prop.step() + 1; n <= config.time.steps; ++n) work += step_work(config, n);
  progress.set_total_work(work);
  bool limit_reported = false;
  int due = -1, late = 0, most_late = 0;  // the step a checkpoint is due since; checkpoints started late
  while (!prop.finished()) {
    const StepStats st = prop.advance();  // throws when the new time-diagonal is not finite
    const int n = prop.step();
    const Observables o = prop.observe();
    check_observables(o, n);
    history.append(o, st);
    progress.advance(1, step_work(config, n));
    if (!limit_reported && st.corrector_passes >= config.solver.corrector_iterations &&
        !(st.last_change <= config.solver.corrector_tolerance)) {
      limit_reported = true;
      warn("kbe", "step " + std::to_string(n) + ": the corrector stopped at its limit of " +
                        std::to_string(config.solver.corrector_iterations) + " passes with max |G_new - G_old| = " +
                        number(st.last_change) + " > corrector_tolerance = " + number(config.solver.corrector_tolerance) +
                        "; such steps are counted and reported at the end");
    }
    // A checkpoint never stalls a single-process propagation: one due while the previous is still being
    // written (a disk slower than the rows are made) starts at the first step after that one is done. The
    // ranks of a k-split run each decide alone, so there every checkpoint starts at its due step (waiting
    // for the writer if need be): the ranks' checkpoints must hold the same step to be resumed.
    if (checkpoints && n % config.output.checkpoint_every == 0 && due < 0) due = n;
    if (checkpoints && due >= 0 && !prop.finished() && (comm.distributed() || !checkpoints->busy())) {
      std::vector<cplx> i_less, i_greater;
      prop.collision_row_copy(i_less, i_greater);
      checkpoints->begin(n, std::move(i_less), std::move(i_greater), history,
                         compressed ? prop.compressed_history_state() : std::vector<double>{}, prop.next_dt(), prop.adaptive_state_before());
      if (n > due) ++late, most_late = std::max(most_late, n - due);
      due = -1;
    }
    if (opt.stop_after >= 0 && n >= opt.stop_after) {
      if (checkpoints) checkpoints->wait();
      s.stopped = true;
      return s;
    }
  }
  // The propagation is complete: a checkpoint still in progress is not needed (the ranks of a k-split run
  // finish theirs, so that their files keep holding one step).
  if (checkpoints) comm.distributed() ? checkpoints->wait() : checkpoints->abandon();
  progress.finish();
  if (late > 0 && comm.root())
    note("kbe", quiet, std::to_string(late) + " checkpoint(s) started up to " + std::to_string(most_late) +
                           " steps after they were due: the previous one was still being written (the disk is slower than the propagation)");
  s.seconds_propagation = t.seconds();
  meta.timings.emplace_back("propagation", s.seconds_propagation);
  if (checkpoints) {
    meta.timings.emplace_back("checkpoint_wait", checkpoints->seconds_waited());
    meta.timings.emplace_back("checkpoint_write", checkpoints->seconds_writing());
  }
  meta.history = prop.history_figures();
  if (compressed)
    note("kbe", quiet, "history compressed: " + gib(static_cast<double>(meta.history.numbers)) + " held (" +
                           number(static_cast<double>(meta.history.numbers) / meta.history.dense_numbers) + " of dense), " +
                           std::to_string(meta.history.blocks) + " blocks, largest rank " + std::to_string(meta.history.max_rank));
  if (comm.distributed()) {  // the root's share; the other ranks' are alike
    meta.timings.emplace_back("propagation_transpose", prop.seconds_transpose());
    meta.timings.emplace_back("propagation_pair_self_energy", prop.seconds_pair_self_energy());
  }

  // 5. Outputs: quanta-kbe.h5 (the full G<> on request) and the text summary; the checkpoint is done with.
  for (std::size_t n = 0; n < history.size(); ++n) {
    const double drift = std::abs(history.particles[n] - history.particles[0]);
    if (std::isnan(drift) || std::isnan(s.particles_drift)) s.particles_drift = NAN;  // NaN compares false: kept explicitly
    else s.particles_drift = std::max(s.particles_drift, drift);
    s.max_corrector_passes = std::max(s.max_corrector_passes, static_cast<int>(history.corrector_passes[n]));
  }
  const CorrectorLimit limit = corrector_limit(config, history);
  s.steps = prop.step();
  s.end_time = prop.time();
  for (std::size_t n = 0; n < history.size(); ++n) {
    s.rejected_steps += static_cast<int>(history.rejected_steps[n]);
    s.max_step_error = std::max(s.max_step_error, history.step_error[n]);
  }
  if (config.time.adaptive)
    note("kbe", quiet, "adaptive steps: " + std::to_string(s.steps) + " taken to t = " + number(s.end_time) + ", " + std::to_string(s.rejected_steps) +
                           " rejected; error estimate of the last step " + number(history.step_error.back()) + ", largest " +
                           number(s.max_step_error) + " (time.tolerance = " + number(config.time.tolerance) + ")");
  s.corrector_limit_steps = limit.hits;
  s.max_corrector_change = limit.worst_change;
  s.seconds_total = total.seconds();
  meta.timings.emplace_back("total", s.seconds_total);
  std::vector<cplx> full_less, full_greater;  // a k-split run's half-plane, gathered on the root
  const std::vector<cplx>* green_less = nullptr;
  const std::vector<cplx>* green_greater = nullptr;
  if (green) {
    prop.sync_host();
    green_less = &prop.g_less();
    green_greater = &prop.g_greater();
    if (comm.distributed()) {
      gather_half_plane(comm, config.model.nk, config.time.steps + 1, prop.g_less().data(), full_less);
      gather_half_plane(comm, config.model.nk, config.time.steps + 1, prop.g_greater().data(), full_greater);
      green_less = &full_less;
      green_greater = &full_greater;
    }
  }
  if (comm.root()) {
    write_results(s.results, config, history, green_less, green_greater, meta);
    write_summary(s.summary, config, history, meta);
  }
  checkpoints.reset();
  remove_checkpoint(s.checkpoint);
  // A run whose every step stopped at the pass limit has no converged step: its outputs are kept for a
  // look, but it is not a result. Some steps at the limit: a warning with the count and the residual.
  if (config.time.adaptive && prop.time() < config.time.end)
    throw Error("kbe: the adaptive steps used all time.steps = " + std::to_string(config.time.steps) + " rows at t = " + number(prop.time()) +
                " before time.end = " + number(config.time.end) + ": raise time.steps (the most steps, the arrays' size) or time.tolerance. " +
                s.results.string() + " is written for inspection but does not reach time.end");
  if (limit.hits > 0 && limit.hits == limit.steps)
    throw Error("kbe: " + corrector_limit_text(config, limit) + ". No step converged: " + s.results.string() +
                " is written for inspection but is not a converged result");
  if (limit.hits > 0) warn("kbe", corrector_limit_text(config, limit));  // warn() prints on rank 0
  return s;
}

}  // namespace quanta::kbe
