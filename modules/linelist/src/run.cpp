// quanta linelist: the data flow of TROVE's intensity step, stage by stage.
#include "quanta/linelist/run.hpp"

#include "../io/outputs.hpp"
#include "../kernels/linestrength.hpp"
#include "quanta/core/comm.hpp"
#include "quanta/core/error.hpp"
#include "quanta/core/progress.hpp"
#include "quanta/core/threads.hpp"
#include "quanta/core/timer.hpp"
#include "quanta/linelist/linelist.hpp"

namespace quanta::linelist {

RunSummary run(const RunOptions& opt) {
  WallTimer total, t;
  set_threads(opt.threads);
  const Comm& comm = Comm::world();
  RunSummary s;
  RunMetadata meta;

  // 1. The input and the checkpoints: levels of every J and Gamma asked for, the dipole matrices.
  const IntensityInput input = read_trove_input(opt.input);
  if (!input.absorption) throw InputError(opt.input.string(), "emission: quanta linelist computes absorption line lists (as TROVE's symmetrized-vector path does)");
  const bool from_file = !opt.levels_file.empty();
  const Levels levels = from_file ? read_levels_h5(opt.levels_file, input) : read_levels(opt.checkpoint_dir, input);
  const DipoleMatrices dipole = from_file ? read_dipole_h5(opt.levels_file) : read_dipole_matrices(opt.checkpoint_dir / "j0_extfield.chk");
  meta.input_file = opt.input.string();
  meta.checkpoint_dir = from_file ? opt.levels_file.string() : opt.checkpoint_dir.string();
  meta.timings.emplace_back("read", t.seconds());
  s.levels = levels.levels.size();
  note("linelist", opt.quiet || !comm.root(),
       std::to_string(levels.levels.size()) + " levels, J = " + std::to_string(input.jmin) + ".." + std::to_string(input.jmax) + ", " +
           levels.group->name + ", " + std::to_string(dipole.n) + " vibrational functions, ZPE " + std::to_string(levels.zpe) + " cm-1");

  // 2. The engine: one GPU per process when CUDA is used.
  Backend backend = resolve_backend(opt.backend);
  if (backend == Backend::Cuda) select_device(comm.local_rank());
  EngineOptions eo;
  eo.method = parse_method(opt.method);
  eo.dipole_blocks = opt.dipole_blocks;
  eo.memory_limit_bytes = backend == Backend::Cuda ? GpuMemoryBudget{opt.gpu_mem_limit}.usable_bytes() : 0;
  eo.max_lower_states = opt.batch;
  LineListOptions lo;
  lo.backend = backend;
  lo.quiet = opt.quiet;

  // 3. Half-linestrengths and completions for every lower state, then A and intensities.
  t.reset();
  LineList list = compute_linelist(levels, input, dipole, lo, eo);
  meta.timings.emplace_back("linestrengths", t.seconds());
  meta.backend = to_string(backend);
  meta.device = device_description(backend);
  meta.engine = list.engine;
  s.backend = meta.backend;
  s.engine = list.engine;
  s.transitions = list.transitions.size();
  s.lower_states = list.lower_states;
  s.partition_function = list.partition_function;
  s.seconds_half = list.seconds_half;
  s.seconds_completion = list.seconds_completion;
  if (list.partition_from_states)
    note("linelist", opt.quiet || !comm.root(), "no QSTAT: Q(" + std::to_string(input.temperature) + " K) = " +
                                                    std::to_string(list.partition_function) + " from the levels read");

  // 4. Outputs, written once (by the first process).
  const std::string stem = (input.linelist_name.empty() ? opt.input.stem().string() : input.linelist_name) + "_" +
                           std::to_string(input.jmin) + "_" + std::to_string(input.jmax);
  s.states = opt.output_dir / (stem + ".states");
  s.trans = opt.output_dir / (stem + ".trans");
  s.results = opt.output_dir / "quanta-linelist.h5";
  s.seconds_total = total.seconds();
  meta.timings.emplace_back("total", s.seconds_total);
  if (comm.root()) {
    std::filesystem::create_directories(opt.output_dir);
    write_exomol_states(s.states, levels, input);
    write_exomol_trans(s.trans, levels, list);
    if (opt.gain_table) write_gain_table(opt.output_dir / (stem + ".gain.txt"), levels, list);
    write_results(s.results, levels, input, list, meta);
  }
  return s;
}

std::size_t convert_to_levels_file(const std::filesystem::path& input_file, const std::filesystem::path& dir,
                                   const std::filesystem::path& output, bool quiet) {
  const IntensityInput input = read_trove_input(input_file);
  const Levels levels = read_levels(dir, input);
  const DipoleMatrices dipole = read_dipole_matrices(dir / "j0_extfield.chk");
  write_levels_h5(output, levels, dipole);
  note("linelist-convert", quiet, std::to_string(levels.levels.size()) + " levels of J = " + std::to_string(input.jmin) + ".." +
                                      std::to_string(input.jmax) + " and " + std::to_string(dipole.n) + " vibrational functions -> " + output.string());
  return levels.levels.size();
}

}  // namespace quanta::linelist
