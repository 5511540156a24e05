// quanta phonon: the data flow of a ShengBTE/FourPhonon run, stage by stage.
#include "quanta/phonon/run.hpp"

#include "../io/outputs.hpp"
#include "quanta/core/error.hpp"
#include "quanta/core/progress.hpp"
#include "quanta/core/threads.hpp"
#include "quanta/core/timer.hpp"
#include "quanta/phonon/control.hpp"
#include "quanta/phonon/force_constants.hpp"
#include "quanta/phonon/harmonic.hpp"
#include "quanta/phonon/qgrid.hpp"
#include "quanta/phonon/spectrum.hpp"
#include "quanta/phonon/symmetry.hpp"

namespace quanta::phonon {
namespace {

void note(bool quiet, const std::string& msg) {
  if (!quiet) std::fprintf(stderr, "[phonon] %s\n", msg.c_str());
}

}  // namespace

RunSummary run(const RunOptions& opt) {
  WallTimer total;
  set_threads(opt.threads);
  const Backend backend = resolve_backend(opt.backend);
  RunMetadata meta;
  meta.backend = to_string(backend);
  if (backend == Backend::Cuda) {
    const auto info = device_info();
    meta.device = info ? info->name : "unknown";
  } else {
    meta.device = "CPU, " + std::to_string(max_threads()) + " OpenMP threads";
  }

  // 1. Inputs: CONTROL and the second-order force constants, all validated before anything is written.
  WallTimer t;
  const auto control_file = opt.input_dir / "CONTROL";
  const Control control = read_control(control_file);
  const auto fc_file = opt.input_dir / (control.espresso ? "espresso.ifc2" : "FORCE_CONSTANTS_2ND");
  const HarmonicModel model = control.espresso ? read_espresso_ifc2(fc_file, control) : read_phonopy_fc2(fc_file, control);
  meta.force_constants_file = fc_file.filename().string();
  meta.input_hashes = {{"CONTROL", file_digest(control_file)}, {meta.force_constants_file, file_digest(fc_file)}};
  meta.timings.emplace_back("read_inputs", t.seconds());

  // 2. Symmetry and the q-mesh with its irreducible wedge.
  t.reset();
  const Crystal& crystal = control.crystal;
  const SymmetryInfo sym = find_symmetry(crystal);
  meta.symmetry_finder = sym.finder;
  int dropped = 0;
  const QGrid grid = build_qgrid(control.ngrid, sym, &dropped);
  note(opt.quiet, std::to_string(sym.operations.size()) + " symmetry operations (" + sym.finder + "), " +
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

  // 5. Outputs: ShengBTE's files and quanta-phonon.h5, each renamed into place when complete.
  t.reset();
  write_bte_files(opt.output_dir, r);
  meta.timings.emplace_back("write_text", t.seconds());
  write_phonon_h5(opt.output_dir / "quanta-phonon.h5", r, meta);

  RunSummary s;
  s.nptk = grid.nptk;
  s.nlist = grid.nlist();
  s.nbands = spectrum.nb;
  s.backend = meta.backend;
  s.seconds_spectrum = t_spectrum;
  s.seconds_total = total.seconds();
  return s;
}

}  // namespace quanta::phonon
