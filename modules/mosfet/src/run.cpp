// quanta mosfet: the data flow of an equilibrium run, stage by stage.
#include "quanta/mosfet/run.hpp"

#include <cstdio>
#include <memory>

#include "../io/outputs.hpp"
#include "quanta/core/error.hpp"
#include "quanta/core/progress.hpp"
#include "quanta/core/threads.hpp"
#include "quanta/core/timer.hpp"
#include "quanta/mosfet/config.hpp"

namespace quanta::mosfet {

RunSummary run(const RunOptions& opt) {
  WallTimer total;
  set_threads(opt.threads);
  RunSummary s;

  // 1. Config, validated before anything is computed or written.
  const Config config = read_config(opt.config);
  Backend backend = resolve_backend(opt.backend);
  RunMetadata meta;
  meta.config_file = opt.config.string();
  std::filesystem::create_directories(opt.output_dir);
  s.results = opt.output_dir / "quanta-mosfet.h5";
  s.summary = opt.output_dir / "quanta-mosfet.txt";
  s.nx = config.grid.nx;
  s.nz = config.grid.nz;

  // 2. The device on the grid: the source contact's neutral potential, materials, doping, contacts, gates.
  WallTimer t;
  s.source_potential = neutral_contact_potential(config.device, config.grid, config.solver.subbands);
  const DeviceGrid grid = make_device_grid(config.device, config.grid, s.source_potential);
  note("mosfet", opt.quiet, "grid " + std::to_string(grid.nx) + " x " + std::to_string(grid.nz) + ", V_s = " +
                                std::to_string(s.source_potential) + " V, gates at V_s + " +
                                std::to_string(config.device.bias.gate_voltage) + " V");

  // 3. The block on the device (all arrays resident), or on the CPU when they do not fit.
  std::unique_ptr<SchrodingerPoisson> block;
  try {
    block = std::make_unique<SchrodingerPoisson>(grid, config.solver, backend);
  } catch (const OutOfDeviceMemory& e) {
    note("mosfet", opt.quiet, std::string(e.what()) + ": solving on the CPU");
    backend = Backend::Cpu;
    block = std::make_unique<SchrodingerPoisson>(grid, config.solver, backend);
  }
  meta.backend = to_string(backend);
  meta.device = device_description(backend);
  s.backend = meta.backend;
  s.linear_solver = to_string(config.solver.linear_solver);
  meta.timings.emplace_back("setup", t.seconds());

  // 4. Equilibrium: Fermi-Dirac subband populations and the potential iterated to self-consistency.
  t.reset();
  const BlockResult result = block->solve_equilibrium(0.0);
  s.seconds_block = t.seconds();
  meta.timings.emplace_back("equilibrium", s.seconds_block);
  s.converged = result.converged;
  s.newton_iterations = static_cast<int>(result.history.size());
  s.final_change = result.history.empty() ? 0.0 : result.history.back().change;
  // Not converged is not a result: nothing is written, and the command exits non-zero with the numbers.
  if (!result.converged) throw Error(not_converged_message(result, config.solver));

  // 5. Outputs, each under a temporary name renamed when complete.
  s.seconds_total = total.seconds();
  meta.timings.emplace_back("total", s.seconds_total);
  write_results(s.results, config, *block, result, meta);
  write_summary(s.summary, config, *block, result, meta);
  return s;
}

}  // namespace quanta::mosfet
