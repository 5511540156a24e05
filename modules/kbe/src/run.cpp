// quanta kbe: the data flow of a run, stage by stage.
#include "quanta/kbe/run.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>

#include "../io/outputs.hpp"
#include "distribution.hpp"
#include "quanta/core/comm.hpp"
#include "quanta/core/error.hpp"
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
  // for the device falls back to the CPU, on every rank when any rank's does not fit); the uncorrelated
  // initial state.
  WallTimer t;
  std::unique_ptr<Propagator> owned;
  try {
    owned = std::make_unique<Propagator>(config, max_threads(), backend, comm);
  } catch (const OutOfDeviceMemory& e) {  // thrown on every rank together
    note("kbe", quiet, std::string(e.what()) + ": propagating on the CPU");
    backend = Backend::Cpu;
    owned = std::make_unique<Propagator>(config, max_threads(), backend, comm);
  }
  Propagator& prop = *owned;
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
  if (opt.resume) {
    PropagatorState state;
    read_checkpoint(s.checkpoint, meta.digest, state, history);
    if (comm.min(state.step) != comm.max(state.step))
      throw Error("kbe: the ranks' checkpoints (" + s.checkpoint.string() + " and the others) are at different steps; the run "
                  "was stopped while writing them: start it again without --resume");
    prop.restore(state);
    s.resumed_from = state.step;
    note("kbe", quiet, "resumed from step " + std::to_string(state.step) + " of " + s.checkpoint.string());
  } else {
    history.append(prop.observe(), 0);
  }
  meta.timings.emplace_back("setup", t.seconds());

  // 4. Propagation: one time row per step (Algorithm 1), observables after each, checkpoints every N steps.
  t.reset();
  Progress progress("kbe propagation", static_cast<std::size_t>(config.time.steps - prop.step()), quiet);
  while (prop.step() < config.time.steps) {
    const StepStats st = prop.advance();
    history.append(prop.observe(), st.corrector_passes);
    progress.advance();
    const int n = prop.step();
    if (config.output.checkpoint_every > 0 && n % config.output.checkpoint_every == 0 && n < config.time.steps)
      write_checkpoint(s.checkpoint, prop.save(), history, meta.digest);
    if (opt.stop_after >= 0 && n >= opt.stop_after) {
      s.stopped = true;
      return s;
    }
  }
  progress.finish();
  s.seconds_propagation = t.seconds();
  meta.timings.emplace_back("propagation", s.seconds_propagation);
  if (comm.distributed()) {  // the root's share; the other ranks' are alike
    meta.timings.emplace_back("propagation_transpose", prop.seconds_transpose());
    meta.timings.emplace_back("propagation_pair_self_energy", prop.seconds_pair_self_energy());
  }

  // 5. Outputs: quanta-kbe.h5 (the full G<> on request) and the text summary; the checkpoint is done with.
  for (std::size_t n = 0; n < history.size(); ++n) {
    s.particles_drift = std::max(s.particles_drift, std::abs(history.particles[n] - history.particles[0]));
    s.max_corrector_passes = std::max(s.max_corrector_passes, static_cast<int>(history.corrector_passes[n]));
  }
  s.seconds_total = total.seconds();
  meta.timings.emplace_back("total", s.seconds_total);
  const bool green = config.output.write_green || opt.write_green;
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
  std::filesystem::remove(s.checkpoint);
  return s;
}

}  // namespace quanta::kbe
