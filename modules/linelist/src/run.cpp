// quanta linelist: the data flow of TROVE's intensity step, stage by stage.
#include "quanta/linelist/run.hpp"

#include <algorithm>
#include <limits>
#include <optional>

#include "../io/outputs.hpp"
#include "../kernels/linestrength.hpp"
#include "quanta/core/comm.hpp"
#include "quanta/core/error.hpp"
#include "quanta/core/io/output_folder.hpp"
#include "quanta/core/progress.hpp"
#include "quanta/core/threads.hpp"
#include "quanta/core/timer.hpp"
#include "quanta/linelist/linelist.hpp"
#include "quanta/linelist/xsec.hpp"

namespace quanta::linelist {

namespace {

// A group of the run's transitions into the cross sections: nu = E_f - E_i, g_f = g_ns (2J'+1), E_i above the ZPE (as the
// .states file gives them to ExoCross).
void add_to_cross_sections(XsecAccumulator& acc, const std::vector<Transition>& ts, const Levels& levels, const IntensityInput& input) {
  LineBatch b;
  for (std::size_t i = 0; i < ts.size(); ++i) {
    const Transition& t = ts[i];
    const Level &up = levels.levels[t.upper], &lo = levels.levels[t.lower];
    b.push(t.wavenumber, t.einstein_a, input.gns[up.gamma - 1] * (2 * up.J + 1), lo.energy - levels.zpe, lo.J);
    if (b.size() == (std::size_t(1) << 20) || i + 1 == ts.size()) {
      acc.add(b);
      b.clear();
    }
  }
}

// The conditions' Q from PF or pffile, else from the levels (as ExoCross sums the .states file).
void set_conditions_from_levels(ExoCrossInput& x, const Levels& levels, const IntensityInput& input) {
  StateTable table;
  for (const Level& l : levels.levels) {
    table.energy.push_back(l.energy - levels.zpe);
    table.g.push_back(input.gns[l.gamma - 1] * (2 * l.J + 1));
    table.j.push_back(l.J);
  }
  set_conditions(x, &table);
}

// The grids added over the processes (each fed its own transitions when they are streamed), written by the first.
std::vector<std::filesystem::path> write_cross_sections(const ExoCrossInput& x, const XsecAccumulator& acc, const std::filesystem::path& out_dir,
                                                        bool sum_over_processes) {
  const Comm& comm = Comm::world();
  const auto nu = acc.wavenumbers();
  auto sig = acc.results();
  if (sum_over_processes)
    for (auto& g : sig) comm.sum(g.data(), g.size());
  std::vector<std::filesystem::path> files;
  if (!comm.root()) return files;
  for (std::size_t c = 0; c < sig.size(); ++c) {
    files.push_back(out_dir / xsec_file_name(x, c, ".xsec"));
    write_xsec(files.back(), nu, sig[c]);
  }
  return files;
}

}  // namespace

std::vector<std::filesystem::path> run_cross_sections(const XsecRunOptions& opt) {
  set_threads(opt.threads);
  Backend backend = resolve_backend(opt.backend);
  if (backend == Backend::Cuda) select_device(0);
  io::require_writable_folder(opt.output_dir, "the output folder (-o)");
  const auto r = run_exocross(opt.input, opt.output_dir, backend, opt.quiet);
  note("linelist", opt.quiet, std::to_string(r.lines_read) + " lines read, " + std::to_string(r.lines_used) + " in the range and above the threshold; " +
                                  std::to_string(r.seconds_read) + " s reading the states, " + std::to_string(r.seconds_grid) + " s for the lines (" +
                                  to_string(backend) + ")");
  return r.files;
}

RunSummary run(const RunOptions& opt) {
  WallTimer total, t;
  set_threads(opt.threads);
  const Comm& comm = Comm::world();
  RunSummary s;
  RunMetadata meta;

  // 1. The input, and the output folder checked writable before anything long starts; then the
  //    checkpoints: levels of every J and Gamma asked for, the dipole matrices.
  const IntensityInput input = read_trove_input(opt.input);
  // The cross sections' settings (an ExoCross input) are read now, before anything long, so that a mistake there stops
  // the run at once; the lines come from this run (its States/Transitions keywords are not used).
  std::optional<ExoCrossInput> xsec;
  if (!opt.cross_sections.empty()) {
    xsec = read_exocross_input(opt.cross_sections, false);
    if (xsec->stick) throw InputError(opt.cross_sections.string(), "'stick' with a line-list run: the .trans file is the stick list");
    for (const auto& n : xsec->notes) note("linelist", opt.quiet || !comm.root(), n);
    if (!xsec->states.empty() || !xsec->transitions.empty())
      note("linelist", opt.quiet || !comm.root(), opt.cross_sections.string() + ": its States/Transitions are not read: the lines come from this run");
  } else if (opt.no_trans) {
    throw Error("--no-trans leaves out the .trans file only when --cross-sections gives the run another output");
  }
  // Streamed: the transitions go to their outputs as they are computed and are not kept (the range-split .trans, the
  // cross sections without a .trans); with several processes each streams its own, and the first joins them.
  const bool streamed = opt.trans_split > 0 || (xsec && opt.no_trans);
  if (opt.trans_split > 0 && opt.no_trans) throw Error("--trans-split and --no-trans: give one");
  if (opt.bzip2 && opt.trans_split <= 0) throw Error("--bzip2 compresses the range files of --trans-split: give --trans-split W too");
  if (opt.bzip2) SplitTransWriter::require_bzip2();  // before anything is read
  if (opt.trans_split > 0 && input.states_only) throw Error("--trans-split with STATES-ONLY: there are no transitions to write");
  if (opt.lifetimes && input.states_only) throw Error("--lifetimes with STATES-ONLY: the lifetimes need the transitions, which STATES-ONLY leaves out");
  if (streamed && (opt.gain_table || input.gain)) throw Error("GAIN's table (--gain-table or GAIN) needs the transitions in memory: not with --trans-split or --no-trans");
  const std::string stem = (input.linelist_name.empty() ? opt.input.stem().string() : input.linelist_name) + "_" +
                           std::to_string(input.jmin) + "_" + std::to_string(input.jmax);
  s.states = opt.output_dir / (stem + ".states");
  s.trans = opt.output_dir / (stem + ".trans");
  s.results = opt.output_dir / "quanta-linelist.h5";
  const std::filesystem::path gain = opt.output_dir / (stem + ".gain.txt");
  const bool gain_table = opt.gain_table || input.gain;  // --gain-table or the INTENSITY block's GAIN
  if (comm.root()) {
    io::require_writable_folder(opt.output_dir, "the output folder (-o)");
    std::vector<std::filesystem::path> outputs{s.states};
    if (!input.states_only) outputs.insert(outputs.end(), {s.trans, s.results});
    if (opt.no_trans || opt.trans_split > 0) outputs.erase(std::find(outputs.begin(), outputs.end(), s.trans));
    if (gain_table && !input.states_only) outputs.push_back(gain);
    io::warn_replaced("linelist", outputs);
  }
  const bool from_file = !opt.levels_file.empty();
  const Levels levels = from_file ? read_levels_h5(opt.levels_file, input) : read_levels(opt.checkpoint_dir, input);
  s.levels = levels.levels.size();
  // The selection pairs and their GNS are TROVE's input checks: made here too, so that STATES-ONLY refuses what
  // TROVE refuses (compute_linelist makes them again for library callers).
  check_gns_of_pairs(*levels.group, selection_pairs(*levels.group, input.selection, input.file.string()), input.gns, input.file.string());
  if (input.states_only) {  // TROVE's STATES-ONLY: the states, no transitions (and no dipole read)
    note("linelist", opt.quiet || !comm.root(), std::to_string(levels.levels.size()) + " levels; STATES-ONLY: no transitions computed");
    if (comm.root()) write_exomol_states(s.states, levels, input);
    if (comm.root() && opt.pf_tmax > 0) write_exomol_pf(s.pf = opt.output_dir / (stem + ".pf"), levels, input, opt.pf_tmax);
    s.trans.clear();
    s.results.clear();
    s.seconds_total = total.seconds();
    return s;
  }
  const DipoleMatrices dipole = from_file ? read_dipole_h5(opt.levels_file) : read_trove_dipole(opt.checkpoint_dir, input);
  meta.input_file = opt.input.string();
  meta.checkpoint_dir = from_file ? opt.levels_file.string() : opt.checkpoint_dir.string();
  meta.timings.emplace_back("read", t.seconds());
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
  // TROVE's `mem`: the host memory of the run. Half of it may hold expanded upper vectors; those beyond
  // are read again from the checkpoints for each group of lower states.
  if (input.mem_bytes > 0) lo.upper_cache_bytes = input.mem_bytes / 2;

  // 3. Half-linestrengths and completions for every lower state, then A and intensities; streamed to the range-split
  //    .trans and the cross sections as they come, or kept.
  std::optional<SplitTransWriter> split;
  // Streamed, every process has its writer and grids; kept, the transitions are complete on every process and the first
  // alone adds them to the grids.
  if (opt.trans_split > 0) split.emplace(opt.output_dir, stem, opt.trans_split, levels, comm, opt.bzip2);
  std::optional<XsecAccumulator> cross;
  if (xsec && (streamed || comm.root())) {
    set_conditions_from_levels(*xsec, levels, input);
    cross.emplace(backend, xsec->spec);
  }
  // --lifetimes: the sum of A of each level's lines down, as they come (streamed) or from the lines kept.
  std::vector<double> decay(opt.lifetimes ? levels.levels.size() : 0, 0.0);
  if (streamed)
    lo.sink = [&](std::vector<Transition>& group) {
      if (split) split->add(group);
      if (cross) add_to_cross_sections(*cross, group, levels, input);
      if (opt.lifetimes) add_decay_rates(group, decay);
    };
  t.reset();
  LineList list = compute_linelist(levels, input, dipole, lo, eo);
  meta.timings.emplace_back("linestrengths", t.seconds());
  for (const auto& [part, seconds] : {std::pair{"half", list.seconds_half}, {"completion", list.seconds_completion}, {"digest", list.seconds_digest},
                                      {"set_lower", list.seconds_set_lower}, {"vectors_wait", list.seconds_vectors_wait}, {"sink_wait", list.seconds_sink_wait}})
    meta.timings.emplace_back(std::string("linestrengths_") + part, seconds);
  meta.backend = to_string(backend);
  meta.device = device_description(backend);
  meta.engine = list.engine;
  meta.processes = comm.size();
  s.backend = meta.backend;
  s.engine = list.engine;
  if (streamed) {
    double n[1] = {static_cast<double>(list.streamed)};
    comm.sum(n, 1);
    s.transitions = static_cast<std::size_t>(n[0]);
  } else {
    s.transitions = list.transitions.size();
  }
  if (opt.lifetimes) {
    if (!streamed) add_decay_rates(list.transitions, decay);  // every process holds every line
    else comm.sum(decay.data(), static_cast<int>(decay.size()));  // each process streamed its own
  }
  s.lower_states = list.lower_states;
  s.partition_function = list.partition_function;
  s.seconds_half = list.seconds_half;
  s.seconds_completion = list.seconds_completion;
  s.upper_cached_bytes = list.upper_cached_bytes;
  if (list.partition_from_states)
    note("linelist", opt.quiet || !comm.root(), "no QSTAT: Q(" + std::to_string(input.temperature) + " K) = " +
                                                    std::to_string(list.partition_function) + " from the levels read");

  // 4. The cross sections (fed as computed, or now from the transitions kept) and the range-split .trans, joined over
  //    the processes and written by the first.
  if (cross) {
    t.reset();
    if (!streamed) add_to_cross_sections(*cross, list.transitions, levels, input);
    s.cross_sections = write_cross_sections(*xsec, *cross, opt.output_dir, streamed);
    meta.timings.emplace_back("cross_sections", t.seconds());
  }
  if (split) {
    t.reset();
    s.trans_files = split->finish();
    meta.timings.emplace_back("trans_split", t.seconds());
    const SplitTransWriter::Times& w = split->times();
    for (const auto& [stage, seconds] : {std::pair{"spill", w.spill}, {"read", w.read}, {"sort", w.sort}, {"format", w.format}, {"write", w.write}, {"wait", w.wait}})
      meta.timings.emplace_back(std::string("trans_split_") + stage, seconds);
  }

  // 5. Outputs, written once (by the first process); the times recorded are all but quanta-linelist.h5's own.
  t.reset();
  if (comm.root()) {
    write_exomol_states(s.states, levels, input, opt.lifetimes ? &decay : nullptr);
    if (opt.def) {
      // What the .trans file(s) hold: the lines above TROVE's small A, their largest wavenumber.
      DefInfo d;
      d.dataset = stem;
      d.xsec_files = static_cast<int>(s.cross_sections.size());
      d.max_temperature = opt.pf_tmax > 0 ? opt.pf_tmax : input.temperature;
      d.lifetimes = opt.lifetimes;
      double emax = 0;
      for (const Level& l : levels.levels) emax = std::max(emax, l.energy - levels.zpe);
      d.complete_energy = std::min(input.lower.max, emax);
      if (split) {
        d.transitions = static_cast<long long>(split->lines());
        d.trans_files = static_cast<int>(s.trans_files.size());
        d.max_wavenumber = split->max_wavenumber();
      } else if (streamed) {
        d.trans_files = 0;
      } else {
        for (const Transition& tr : list.transitions)
          if (in_trans_file(tr)) ++d.transitions, d.max_wavenumber = std::max(d.max_wavenumber, tr.wavenumber);
      }
      write_exomol_def(s.def = opt.output_dir / (stem + ".def"), levels, input, d);
    }
    if (opt.pf_tmax > 0) write_exomol_pf(s.pf = opt.output_dir / (stem + ".pf"), levels, input, opt.pf_tmax);
    if (streamed) s.trans.clear();
    else write_exomol_trans(s.trans, levels, list);
    if (gain_table) write_gain_table(gain, levels, list);
  }
  meta.timings.emplace_back("outputs", t.seconds());
  s.seconds_total = total.seconds();
  meta.timings.emplace_back("total", s.seconds_total);
  if (comm.root()) write_results(s.results, levels, input, list, meta);
  return s;
}

std::size_t convert_to_levels_file(const std::filesystem::path& input_file, const std::filesystem::path& dir,
                                   const std::filesystem::path& output, bool quiet) {
  const IntensityInput input = read_trove_input(input_file);
  // The output is checked before the checkpoints are read: a file name (not a folder) in a writable folder.
  const auto name = output.filename();
  if (output.empty() || name.empty() || name == "." || name == ".." || std::filesystem::is_directory(output))
    throw InputError("-o '" + output.string() + "'", "is a folder; -o names the levels file to write (e.g. '" +
                                                         (output / "levels.h5").lexically_normal().string() + "')");
  io::require_writable_folder(output.has_parent_path() ? output.parent_path() : std::filesystem::path("."), "the folder of the levels file (-o)");
  io::warn_replaced("linelist-convert", {output});
  const Levels levels = read_levels(dir, input);
  const DipoleMatrices dipole = read_trove_dipole(dir, input);
  write_levels_h5(output, levels, dipole);
  note("linelist-convert", quiet, std::to_string(levels.levels.size()) + " levels of J = " + std::to_string(input.jmin) + ".." +
                                      std::to_string(input.jmax) + " and " + std::to_string(dipole.n) + " vibrational functions -> " + output.string());
  return levels.levels.size();
}

}  // namespace quanta::linelist
