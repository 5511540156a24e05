// Harmonic stage of quanta phonon for silicon at several q-meshes on each backend: the spectrum
// (dynamical matrices, eigenpairs, velocities) and the whole stage (plus symmetrization, specific heat
// and DOS). Median of repeats after a warm-up. Usage:
//   bench_phonon_harmonic [--input DIR] [--meshes 16,32,64] [--repeats 3] [--out results.json]
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "quanta/core/backend.hpp"
#include "quanta/core/threads.hpp"
#include "quanta/core/timer.hpp"
#include "quanta/phonon/control.hpp"
#include "quanta/phonon/force_constants.hpp"
#include "quanta/phonon/harmonic.hpp"
#include "quanta/phonon/qgrid.hpp"
#include "quanta/phonon/spectrum.hpp"
#include "quanta/phonon/symmetry.hpp"

using namespace quanta;
using namespace quanta::phonon;

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  std::string input = std::string(QUANTA_SOURCE_DIR) + "/examples/phonon/si", out, meshes = "16,32,64";
  int repeats = 3;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--input") input = argv[i + 1];
    else if (a == "--meshes") meshes = argv[i + 1];
    else if (a == "--repeats") repeats = std::stoi(argv[i + 1]);
    else if (a == "--out") out = argv[i + 1];
  }
  Control ctl = read_control(input + "/CONTROL");
  const HarmonicModel model = ctl.espresso ? read_espresso_ifc2(input + "/espresso.ifc2", ctl) : read_phonopy_fc2(input + "/FORCE_CONSTANTS_2ND", ctl);
  const SymmetryInfo sym = find_symmetry(ctl.crystal);
  std::vector<Backend> backends = {Backend::Cpu};
  if (cuda_device_count() > 0) backends.push_back(Backend::Cuda);
  const auto dev = device_info();

  std::ostringstream json;
  json << "{\n  \"benchmark\": \"phonon_harmonic\", \"input\": \"" << input << "\", \"cpu_threads\": " << max_threads()
       << ", \"gpu\": \"" << (dev ? dev->name : "none") << "\", \"force_constant_terms\": " << model.terms.size()
       << ",\n  \"results\": [\n";
  std::printf("%-6s %-5s %10s %12s %12s %14s\n", "mesh", "back", "q-points", "spectrum_s", "stage_s", "q-points/s");
  bool first = true;
  std::stringstream ss(meshes);
  for (std::string tok; std::getline(ss, tok, ',');) {
    const int n = std::stoi(tok);
    ctl.ngrid = {n, n, n};
    const QGrid grid = build_qgrid(ctl.ngrid, sym);
    std::vector<Vec3> q(grid.nptk);
    for (int i = 0; i < grid.nptk; ++i) q[i] = qfrac_to_cart(ctl.crystal, grid.qfrac[i]);
    for (Backend b : backends) {
      SpectrumOptions so;
      so.backend = b;
      compute_spectrum(model, q, so);  // warm-up: context, handles, caches
      std::vector<double> ts, tt;
      for (int r = 0; r < repeats; ++r) {
        WallTimer t;
        Spectrum s = compute_spectrum(model, q, so);
        ts.push_back(t.seconds());
        symmetrize_and_fix_gamma(ctl.crystal, sym, grid, s);
        specific_heat(ctl.crystal, s, 300.0);
        density_of_states(ctl.crystal, grid, s, ctl.nticks);
        tt.push_back(t.seconds());
      }
      const double sp = median(ts), st = median(tt);
      std::printf("%-6d %-5s %10d %12.4f %12.4f %14.0f\n", n, to_string(b).c_str(), grid.nptk, sp, st, grid.nptk / sp);
      json << (first ? "" : ",\n") << "    {\"mesh\": " << n << ", \"backend\": \"" << to_string(b) << "\", \"nptk\": " << grid.nptk
           << ", \"spectrum_s\": " << sp << ", \"stage_s\": " << st << "}";
      first = false;
    }
  }
  json << "\n  ]\n}\n";
  if (!out.empty()) std::ofstream(out) << json.str();
  return 0;
}
