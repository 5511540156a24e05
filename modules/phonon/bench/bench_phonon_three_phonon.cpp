// Three-phonon stage of quanta phonon for silicon (the bundled example's inputs) at several q-meshes: the
// scattering step (enumeration + |V|^2 of every allowed process) on the CPU and on the GPU with each
// strategy, its FLOP count and achieved rate, the device memory each strategy planned, and the whole run
// (harmonic stage, scattering, RTA + iterative BTE, outputs) end to end. Usage:
//   bench_phonon_three_phonon [--input DIR] [--meshes 16,24,32] [--cpu-meshes 16,24] [--cpu-e2e-meshes 16,24]
//                             [--gpu-meshes 16,24,32] [--out results.json]
// --cpu-meshes: meshes on which the CPU scattering step is also timed (it is the slow one);
// --cpu-e2e-meshes: meshes on which the whole CPU run is timed (default: the same as --cpu-meshes);
// --gpu-meshes: meshes on which the GPU cases run. Each takes a list, `all` or `none`.
#include <cstdio>
#include <fstream>
#include <set>
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
#include "quanta/phonon/run.hpp"
#include "quanta/phonon/scattering.hpp"
#include "quanta/phonon/spectrum.hpp"
#include "quanta/phonon/symmetry.hpp"

using namespace quanta;
using namespace quanta::phonon;

namespace {

std::vector<int> parse_list(const std::string& s) {
  std::vector<int> v;
  std::stringstream ss(s);
  std::string t;
  while (std::getline(ss, t, ',')) if (!t.empty()) v.push_back(std::stoi(t));
  return v;
}

// FLOPs of one |V|^2 as kernels/three_phonon.hpp evaluates it: per atom-triple group 36 complex products
// (6 flops each); per triplet 27 real x complex multiply-adds (4 flops each) and one complex
// multiply-add (8 flops); the final |V|^2 (3 flops).
double flops_per_process(const ThirdOrderFc& fc3, int ngroups) {
  return ngroups * 36.0 * 6 + fc3.triplets.size() * (27.0 * 4 + 8) + 3;
}

}  // namespace

int main(int argc, char** argv) {
  std::string input = std::string(QUANTA_SOURCE_DIR) + "/examples/phonon/si", out, meshes = "16,24,32", cpu_meshes = "16";
  std::string gpu_meshes = "all", cpu_e2e_meshes = "same";
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--input") input = argv[i + 1];
    else if (a == "--meshes") meshes = argv[i + 1];
    else if (a == "--cpu-meshes") cpu_meshes = argv[i + 1];
    else if (a == "--gpu-meshes") gpu_meshes = argv[i + 1];
    else if (a == "--cpu-e2e-meshes") cpu_e2e_meshes = argv[i + 1];
    else if (a == "--out") out = argv[i + 1];
  }
  auto mesh_set = [&](const std::string& list) {
    const std::vector<int> v = parse_list(list == "all" ? meshes : list == "none" ? "" : list);
    return std::set<int>(v.begin(), v.end());
  };
  const std::set<int> on_cpu = mesh_set(cpu_meshes), on_gpu = mesh_set(gpu_meshes);
  const std::set<int> on_cpu_e2e = mesh_set(cpu_e2e_meshes == "same" ? cpu_meshes : cpu_e2e_meshes);
  const std::string control_text = [&] {
    std::ifstream f(input + "/CONTROL");
    std::stringstream s;
    s << f.rdbuf();
    return s.str();
  }();
  const bool have_gpu = cuda_device_count() > 0;
  const auto dev = device_info();
  std::ostringstream json;
  json << "{\n  \"device\": \"" << (dev ? dev->name : "none") << "\", \"cpu_threads\": " << max_threads() << ",\n  \"meshes\": [\n";
  bool first_mesh = true;
  for (int n : parse_list(meshes)) {
    // The example's CONTROL with this mesh.
    const auto dir = std::filesystem::temp_directory_path() / ("quanta-bench-3ph-" + std::to_string(n));
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    std::string ctl_text = control_text;
    const auto at = ctl_text.find("ngrid(:)");
    const auto eol = ctl_text.find('\n', at);
    ctl_text.replace(at, eol - at, "ngrid(:)= " + std::to_string(n) + " " + std::to_string(n) + " " + std::to_string(n));
    { std::ofstream(dir / "CONTROL") << ctl_text; }
    for (const char* f : {"espresso.ifc2", "FORCE_CONSTANTS_3RD"}) std::filesystem::copy_file(input + "/" + f, dir / f);

    const Control ctl = read_control(dir / "CONTROL");
    const HarmonicModel model = read_espresso_ifc2(dir / "espresso.ifc2", ctl);
    const SymmetryInfo sym = find_symmetry(ctl.crystal);
    const QGrid grid = build_qgrid(ctl.ngrid, sym);
    std::vector<Vec3> q(grid.nptk);
    for (int i = 0; i < grid.nptk; ++i) q[i] = qfrac_to_cart(ctl.crystal, grid.qfrac[i]);
    SpectrumOptions so;
    const bool gpu = have_gpu && on_gpu.count(n);
    so.backend = have_gpu ? Backend::Cuda : Backend::Cpu;
    Spectrum s = compute_spectrum(model, q, so);
    symmetrize_and_fix_gamma(ctl.crystal, sym, grid, s);
    const ThirdOrderFc fc3 = read_fc3(dir / "FORCE_CONSTANTS_3RD", ctl);
    std::set<std::array<int, 3>> groups;
    for (const auto& t : fc3.triplets) groups.insert({t.atom[0], t.atom[1], t.atom[2]});
    const double fpp = flops_per_process(fc3, static_cast<int>(groups.size()));

    struct Case {
      std::string name;
      Backend backend;
      ScatteringStrategy strategy;
      Enumeration enumeration;
      std::size_t batch_modes;
    };
    std::vector<Case> cases;
    if (on_cpu.count(n)) cases.push_back({"cpu", Backend::Cpu, ScatteringStrategy::Auto, Enumeration::Cpu, 0});
    if (gpu) {
      cases.push_back({"gpu-all-modes-gpu-enum", Backend::Cuda, ScatteringStrategy::AllModes, Enumeration::Gpu, 0});
      cases.push_back({"gpu-all-modes-cpu-enum", Backend::Cuda, ScatteringStrategy::AllModes, Enumeration::Cpu, 0});
      cases.push_back({"gpu-batched-cpu-enum-overlap", Backend::Cuda, ScatteringStrategy::Batched, Enumeration::Cpu, 64});
      cases.push_back({"gpu-mode-by-mode", Backend::Cuda, ScatteringStrategy::Batched, Enumeration::Gpu, 1});
    }
    json << (first_mesh ? "" : ",\n") << "    {\"n\": " << n << ", \"nlist\": " << grid.nlist() << ", \"flops_per_process\": " << fpp
         << ", \"scattering\": [";
    first_mesh = false;
    bool first = true;
    for (const auto& c : cases) {
      ScatteringOptions o;
      o.backend = c.backend;
      o.strategy = c.strategy;
      o.enumeration = c.enumeration;
      o.batch_modes = c.batch_modes;
      ScatteringStats st;
      WallTimer t;
      const auto p = three_phonon_processes(ctl.crystal, grid, s, fc3, ctl.scalebroad, o, &st);
      const double sec = t.seconds();
      const double nproc = static_cast<double>(p.plus.size() + p.minus.size());
      const double gflops = nproc * fpp / sec / 1e9;
      std::printf("%2d^3 %-30s %10.0f processes  %8.3f s (enumeration %.3f s)  %8.1f GFLOP/s  %d batches  device %.2f GB\n", n,
                  c.name.c_str(), nproc, sec, st.seconds_enumerate, gflops, st.batches, st.peak_device_bytes / 1e9);
      std::fflush(stdout);
      json << (first ? "" : ",") << "\n      {\"case\": \"" << c.name << "\", \"processes\": " << nproc << ", \"seconds\": " << sec
           << ", \"seconds_enumerate\": " << st.seconds_enumerate << ", \"gflops\": " << gflops << ", \"batches\": " << st.batches
           << ", \"peak_device_bytes\": " << st.peak_device_bytes << "}";
      first = false;
    }
    json << "],\n      \"end_to_end\": [";
    first = true;
    std::vector<Backend> e2e;
    if (on_cpu_e2e.count(n)) e2e.push_back(Backend::Cpu);
    if (gpu) e2e.push_back(Backend::Cuda);
    for (Backend b : e2e) {
      RunOptions ro;
      ro.input_dir = dir;
      ro.output_dir = dir / ("out-" + to_string(b));
      ro.backend = b;
      ro.quiet = true;
      WallTimer t;
      const auto r = run(ro);
      const double sec = t.seconds();
      std::printf("%2d^3 end to end %-5s %8.2f s (scattering %.2f s, BTE %.2f s) kappa RTA %.4f iterative %.4f W/mK\n", n,
                  to_string(b).c_str(), sec, r.seconds_scattering, r.seconds_bte, r.kappa_rta.at(0), r.kappa_converged.at(0));
      std::fflush(stdout);
      json << (first ? "" : ",") << "\n        {\"backend\": \"" << to_string(b) << "\", \"seconds\": " << sec
           << ", \"seconds_scattering\": " << r.seconds_scattering << ", \"seconds_bte\": " << r.seconds_bte
           << ", \"kappa_rta\": " << r.kappa_rta.at(0) << ", \"kappa_iterative\": " << r.kappa_converged.at(0) << "}";
      first = false;
    }
    json << "]}";
    std::filesystem::remove_all(dir);
  }
  json << "\n  ]\n}\n";
  if (!out.empty()) std::ofstream(out) << json.str();
  return 0;
}
