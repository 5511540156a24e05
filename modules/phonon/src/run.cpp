// quanta phonon: the data flow of a ShengBTE/FourPhonon run, stage by stage.
#include "quanta/phonon/run.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "../io/outputs.hpp"
#include "four_phonon_checkpoint.hpp"
#include "quanta/core/comm.hpp"
#include "quanta/core/error.hpp"
#include "quanta/core/host_memory.hpp"
#include "quanta/core/progress.hpp"
#include "quanta/core/threads.hpp"
#include "quanta/core/timer.hpp"
#include "quanta/phonon/bte.hpp"
#include "quanta/phonon/control.hpp"
#include "quanta/phonon/force_constants.hpp"
#include "quanta/phonon/harmonic.hpp"
#include "quanta/phonon/qgrid.hpp"
#include "quanta/phonon/scattering.hpp"
#include "quanta/phonon/spectrum.hpp"
#include "quanta/phonon/symmetry.hpp"

namespace quanta::phonon {
namespace {

// The note announcing FourPhonon's sampling estimator for one process order ("three-phonon", per "sign").
std::string sampling_note(const char* order, const char* per, long long rates, long long space, unsigned long long seed) {
  return std::string(order) + " sampling estimator (seed " + std::to_string(seed) + "): " +
         (rates > 0 ? std::to_string(rates) + " draws per mode and " + per + " for the rates" : std::string("exact rates")) + ", " +
         (space > 0 ? std::to_string(space) + " for the counts and phase spaces" : std::string("exact counts and phase spaces"));
}

// "12.34 s", for the stage reports.
std::string seconds_text(double seconds) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f s", seconds);
  return text;
}

// The arrays that grow with the full mesh, each held until the outputs are written: the mesh (q in two
// forms, classes), the spectrum (frequencies, velocities, eigenvectors), the BTE's symmetry action (one
// mesh image per operation, with time reversal), symmetrizers and the DOS widths. Checked before the first
// of them is allocated, so a mesh too large for the machine is refused with the numbers instead of
// failing in an allocation (or being killed) minutes later.
void require_mesh_memory(const Control& control, const SymmetryInfo& sym) {
  const std::size_t nptk = static_cast<std::size_t>(control.ngrid[0]) * control.ngrid[1] * control.ngrid[2];
  const std::size_t nb = static_cast<std::size_t>(control.crystal.nbands());
  const std::size_t nops = 2 * std::max<std::size_t>(sym.operations.size(), 1);
  const std::size_t per_point = 3 * sizeof(double) * 2 + 3 * sizeof(int)        // qfrac, q, class/irreducible/multiplicity
                                + nb * (sizeof(double) * (1 + 3 + 1))           // omega, velocity, DOS width
                                + nb * nb * 2 * sizeof(double)                  // eigenvectors
                                + nops * sizeof(int) + 9 * sizeof(double) + sizeof(int);  // images, symmetrizer, op
  require_host_memory(bytes_of(per_point, nptk),
                      "the " + std::to_string(control.ngrid[0]) + "x" + std::to_string(control.ngrid[1]) + "x" +
                          std::to_string(control.ngrid[2]) + " q-mesh (" + std::to_string(nptk) + " points, " +
                          std::to_string(nb) + " branches: mesh, spectrum and symmetry tables)");
}

}  // namespace

RunSummary run(const RunOptions& options) {
  WallTimer total;
  // Under MPI every rank runs the stages; the three- and four-phonon stages and the iterative BTE share the
  // irreducible modes out over them, and only the root reports and writes.
  const Comm& comm = Comm::world();
  RunOptions opt = options;
  opt.quiet = opt.quiet || !comm.root();
  set_threads(opt.threads);
  const Backend backend = resolve_backend(opt.backend);
  if (backend == Backend::Cuda) select_device(comm.local_rank());
  RunMetadata meta;
  std::string not_converged;  // temperatures whose iterative BTE reached maxiter
  meta.backend = to_string(backend);
  meta.device = device_description(backend);

  // 1. Inputs: CONTROL and the second-order force constants, all validated before anything is written.
  WallTimer t;
  const auto control_file = opt.input_dir / "CONTROL";
  const Control control = read_control(control_file);
  const auto fc_file = opt.input_dir / (control.espresso ? "espresso.ifc2" : "FORCE_CONSTANTS_2ND");
  const HarmonicModel model = control.espresso ? read_espresso_ifc2(fc_file, control) : read_phonopy_fc2(fc_file, control);
  meta.force_constants_file = fc_file.filename().string();
  meta.input_hashes = {{"CONTROL", file_digest(control_file)}, {meta.force_constants_file, file_digest(fc_file)}};
  meta.timings.emplace_back("read_inputs", t.seconds());
  // Before the long stages: an output folder that cannot be written fails now, not after them.
  if (comm.root()) prepare_output_dir(opt.output_dir);
  comm.max(0);  // the folder exists before any rank writes a checkpoint there

  // 2. Symmetry and the q-mesh with its irreducible wedge.
  t.reset();
  const Crystal& crystal = control.crystal;
  const SymmetryInfo sym = find_symmetry(crystal);
  meta.symmetry_finder = sym.finder;
  require_mesh_memory(control, sym);
  int dropped = 0;
  const QGrid grid = build_qgrid(control.ngrid, sym, &dropped);
  note("phonon", opt.quiet, std::to_string(sym.operations.size()) + " symmetry operations (" + sym.finder + "), " +
                      std::to_string(grid.nptk) + " q-points, " + std::to_string(grid.nlist()) + " irreducible" +
                      (dropped ? ", " + std::to_string(dropped) + " rotations incompatible with the mesh" : ""));
  meta.timings.emplace_back("symmetry", t.seconds());

  // 3. Spectrum on the full mesh, then ShengBTE's velocity symmetrization and Gamma fix.
  t.reset();
  std::vector<Vec3> q(grid.nptk);
  for (int i = 0; i < grid.nptk; ++i) q[i] = qfrac_to_cart(crystal, grid.qfrac[i]);
  SpectrumOptions so;
  so.backend = backend;
  so.gpu_mem_limit = opt.gpu_mem_limit;
  so.degenerate_basis = opt.degenerate_basis;
  so.quiet = opt.quiet;
  Spectrum spectrum = compute_spectrum(model, q, so);
  const double t_spectrum = t.seconds();
  meta.timings.emplace_back("spectrum", t_spectrum);
  t.reset();
  symmetrize_and_fix_gamma(crystal, sym, grid, spectrum);

  // 4. Thermodynamics and DOS.
  HarmonicResults r;
  r.control = &control;
  r.grid = &grid;
  r.spectrum = &spectrum;
  r.temperatures = control.temperatures;
  for (double T : r.temperatures) {
    r.cv.push_back(specific_heat(crystal, spectrum, T));
    r.kappa_sg.push_back(kappa_small_grain(crystal, spectrum, T));
  }
  r.dos = density_of_states(crystal, grid, spectrum, control.nticks);
  meta.timings.emplace_back("thermal_and_dos", t.seconds());

  RunSummary s;
  ScatteringResults sc;
  sc.harmonic_only = control.onlyharmonic;
  {
    // 5. Three-phonon processes and matrix elements (temperature independent), phase spaces, isotopes and
    // Grueneisen parameters. With onlyharmonic, FourPhonon stops after the phase spaces (P3, and WP3 per
    // temperature below), which need no force constants: FORCE_CONSTANTS_3RD is not read, |V|^2 stays 0.
    t.reset();
    ThirdOrderFc fc3;
    if (!control.onlyharmonic) {
      const auto fc3_file = opt.input_dir / "FORCE_CONSTANTS_3RD";
      fc3 = read_fc3(fc3_file, control);
      meta.input_hashes.emplace_back("FORCE_CONSTANTS_3RD", file_digest(fc3_file));
    }
    ScatteringOptions so3;
    so3.backend = backend;
    so3.strategy = opt.strategy;
    so3.enumeration = opt.enumeration;
    so3.gpu_mem_limit = opt.gpu_mem_limit;
    so3.batch_modes = opt.batch_modes;
    so3.omega_max = control.omega_max;
    so3.quiet = opt.quiet;
    // FourPhonon's sampling estimator (num_sample_process_3ph*): the rates from a sample of each mode's
    // candidates, the counts and phase spaces from another sample or from every candidate.
    const bool sampled3 = control.sample_3ph > 0 || control.sample_3ph_phase_space > 0;
    if (sampled3)
      note("phonon", opt.quiet, sampling_note("three-phonon", "sign", control.sample_3ph, control.sample_3ph_phase_space, opt.sample_seed));
    so3.sample = {control.sample_3ph, opt.sample_seed, 1};
    const ThreePhononProcesses processes = three_phonon_processes(crystal, grid, spectrum, fc3, control.scalebroad, so3, &s.scattering);
    ThreePhononProcesses space_sample;
    if (sampled3) {
      ScatteringOptions space = so3;
      space.sample = {control.sample_3ph_phase_space, opt.sample_seed, 0};
      space.matrix_elements = false;
      space_sample = three_phonon_processes(crystal, grid, spectrum, fc3, control.scalebroad, space);
    }
    const ThreePhononProcesses& counted = sampled3 ? space_sample : processes;
    s.nplus = sc.nplus = joined_total_count(counted.plus);
    s.nminus = sc.nminus = joined_total_count(counted.minus);
    note("phonon", opt.quiet, std::to_string(fc3.triplets.size()) + " anharmonic triplets; " + std::to_string(sc.nplus) + " absorption and " +
                        std::to_string(sc.nminus) + " emission processes" + (counted.plus.draws > 0 ? " (estimated)" : "") + " (" +
                        s.scattering.strategy + ", enumeration on " + s.scattering.enumeration + ", " +
                        std::to_string(s.scattering.batches) + " batches) in " + seconds_text(t.seconds()));
    sc.p3 = three_phonon_phase_space(grid, spectrum, counted, control.scalebroad, crystal);
    sc.isotopic = isotope_rates(control, grid, spectrum);
    const int nb = spectrum.nb;
    sc.boundary.assign(static_cast<std::size_t>(grid.nlist()) * nb, 0.0);
    if (control.boundaries)
      for (int l = 0; l < grid.nlist(); ++l)
        for (int n = 0; n < nb; ++n) {
          const double* v = &spectrum.velocity[(static_cast<std::size_t>(grid.irreducible[l]) * nb + n) * 3];
          sc.boundary[static_cast<std::size_t>(l) * nb + n] = std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]) / control.boundary_length;
        }
    if (!control.onlyharmonic) sc.gruneisen = mode_gruneisen(crystal, grid, spectrum, fc3);
    s.seconds_scattering = t.seconds();
    meta.timings.emplace_back("three_phonon_processes", s.seconds_scattering);

    // 5b. Four-phonon processes (four_phonon = .true.): counts and phase spaces, and the rates at every
    // temperature in the same pass; with onlyharmonic, FORCE_CONSTANTS_4TH is not read and the rates are 0.
    if (control.four_phonon) {
      t.reset();
      FourthOrderFc fc4;
      if (!control.onlyharmonic) {
        const auto fc4_file = opt.input_dir / "FORCE_CONSTANTS_4TH";
        fc4 = read_fc4(fc4_file, control);
        meta.input_hashes.emplace_back("FORCE_CONSTANTS_4TH", file_digest(fc4_file));
      }
      sc.four_phonon = true;
      const FourPhononSampling sampling{control.sample_4ph, control.sample_4ph_phase_space, opt.sample_seed};
      if (sampling.rates > 0 || sampling.phase_space > 0)
        note("phonon", opt.quiet, sampling_note("four-phonon", "class", sampling.rates, sampling.phase_space, sampling.seed));
      // Checkpoints of the stage belong to these inputs and to the options that change its results.
      FourPhononCheckpointSpec checkpoint{opt.output_dir, "", opt.resume};
      for (const auto& [file, digest] : meta.input_hashes) checkpoint.fingerprint += file + "=" + digest + ";";
      checkpoint.fingerprint += "seed=" + std::to_string(opt.sample_seed) + ";basis=" +
                                (opt.degenerate_basis == DegenerateBasis::Canonical ? "canonical" : "solver") + ";";
      sc.p4 = four_phonon_scattering(crystal, grid, spectrum, fc4, control.scalebroad, r.temperatures, so3,
                                     control.four_phonon_iteration && !control.onlyharmonic, sampling, &checkpoint);
      std::int64_t n[3] = {0, 0, 0};
      for (int c = 0; c < 3; ++c)
        for (std::int64_t x : sc.p4.count[c]) n[c] += x;
      meta.timings.emplace_back("four_phonon_processes", t.seconds());
      const std::string took = " in " + seconds_text(meta.timings.back().second);
      note("phonon", opt.quiet, std::to_string(fc4.quadruplets.size()) + " fourth-order quadruplets; " + std::to_string(n[0]) +
                                    " ++, " + std::to_string(n[1]) + " +- and " + std::to_string(n[2]) + " -- processes" +
                                    " (" + to_string(backend) + ")" + took);
      s.seconds_scattering += meta.timings.back().second;
    }

    // 6. Per temperature: rates, then the BTE (RTA, iterative when asked) and cumulative conductivities.
    t.reset();
    const BteSymmetry bsym = bte_symmetry(crystal, sym, grid);
    BteOptions bo;
    bo.backend = backend;
    bo.iterate = control.convergence;
    bo.maxiter = control.maxiter;
    bo.eps = control.eps;
    bo.gpu_mem_limit = opt.gpu_mem_limit;
    bo.quiet = opt.quiet;
    for (std::size_t it = 0; it < r.temperatures.size(); ++it) {
      const double T = r.temperatures[it];
      TemperatureResults tr;
      tr.temperature = T;
      RateOptions ro;
      ro.backend = backend;
      ro.gpu_mem_limit = opt.gpu_mem_limit;
      ro.keep_process_rates = control.convergence && !sc.harmonic_only;
      ro.quiet = opt.quiet;
      tr.rates = three_phonon_rates(crystal, grid, spectrum, processes, control.scalebroad, T, ro);
      if (sc.harmonic_only) {  // the weighted phase spaces are all FourPhonon writes per temperature
        sc.per_t.push_back(std::move(tr));
        continue;
      }
      tr.gruneisen_total = total_gruneisen(spectrum, sc.gruneisen, T);
      tr.total_rate.resize(tr.rates.gamma_plus.size());
      for (std::size_t m = 0; m < tr.total_rate.size(); ++m)
        tr.total_rate[m] = tr.rates.gamma_plus[m] + tr.rates.gamma_minus[m] + sc.isotopic[m] + sc.boundary[m];
      if (sc.four_phonon)  // FourPhonon's default: four-phonon scattering enters through the relaxation time only
        for (std::size_t m = 0; m < tr.total_rate.size(); ++m)
          for (int c = 0; c < 3; ++c) tr.total_rate[m] += sc.p4.per_t[it].gamma[c][m];
      FourPhononIteration four;
      if (sc.four_phonon && control.four_phonon_iteration)
        four.rows = sc.p4.rows.data() + it * (sc.p4.rows.size() / r.temperatures.size());
      tr.bte = solve_bte(crystal, grid, spectrum, bsym, tr.total_rate, processes, tr.rates, T, bo, four);
      tr.rates.process_plus = {};
      tr.rates.process_minus = {};
      tr.cumulative = cumulative_kappa(crystal, grid, spectrum, bsym, tr.bte.F, T, control.nticks);
      auto scalar = [&](const std::vector<double>& kb) {
        double k = 0;
        for (int b = 0; b < nb; ++b) k += (kb[9 * b] + kb[9 * b + 4] + kb[9 * b + 8]) / 3;
        return k;
      };
      s.kappa_rta.push_back(scalar(tr.bte.kappa_band.front()));
      s.kappa_converged.push_back(scalar(tr.bte.kappa_band.back()));
      note("phonon", opt.quiet, "T = " + std::to_string(T) + " K: kappa RTA " + std::to_string(s.kappa_rta.back()) + " W/mK" +
                          (control.convergence ? ", iterative " + std::to_string(s.kappa_converged.back()) + " W/mK after " +
                                                     std::to_string(tr.bte.last_iteration) + " iterations (" + tr.bte.backend + ")"
                                               : ""));
      if (control.convergence && !tr.bte.converged) {
        if (!not_converged.empty()) not_converged += ", ";
        not_converged += std::to_string(T) + " K";
      }
      sc.per_t.push_back(std::move(tr));
    }
    s.seconds_bte = t.seconds();
    meta.timings.emplace_back("bte", s.seconds_bte);
  }

  // 7. Outputs: ShengBTE's files and quanta-phonon.h5, each renamed into place when complete.
  t.reset();
  if (comm.root()) {
    write_bte_files(opt.output_dir, r);
    write_scattering_files(opt.output_dir, r, sc);
    meta.timings.emplace_back("write_text", t.seconds());
    write_phonon_h5(opt.output_dir / "quanta-phonon.h5", r, meta, &sc);
    FourPhononCheckpoint::remove_all(opt.output_dir);  // the outputs are complete: nothing to resume
  }
  // An iterative solution that reached maxiter: the outputs hold its last iteration (as ShengBTE writes
  // them), and the run ends with an error naming the temperatures.
  if (!not_converged.empty())
    throw Error("the iterative BTE did not converge within maxiter = " + std::to_string(control.maxiter) + " iterations (eps = " +
                std::to_string(control.eps) + ") at " + not_converged +
                "; the outputs written are those of the last iteration: raise maxiter in CONTROL's &parameters");

  std::string stages = comm.distributed() ? "stage times on rank 0:" : "stage times:";
  for (const auto& [stage, seconds] : meta.timings) stages += " " + stage + " " + seconds_text(seconds) + ",";
  stages.pop_back();
  note("phonon", opt.quiet, stages);
  s.nptk = grid.nptk;
  s.nlist = grid.nlist();
  s.nbands = spectrum.nb;
  s.backend = meta.backend;
  s.seconds_spectrum = t_spectrum;
  s.seconds_total = total.seconds();
  return s;
}

}  // namespace quanta::phonon
