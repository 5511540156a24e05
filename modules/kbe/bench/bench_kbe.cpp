// Benchmark of the kbe kernels: the self-energy of one time slice (direct vs FFT), the collision integral
// of one time row, and whole propagation steps, on the CPU; with a GPU, the same kernels on the device for
// one time row of the seed's size (--gpu-nk, --gpu-row; the direct form on --gpu-direct-pairs pairs).
// Median of repeats after a warm-up.
//   bench_kbe [--nk-direct 32,64,128] [--nk-fft 256,1024,4096] [--slice 16] [--row 200] [--nk-step 256]
//             [--steps 40] [--repeats 3] [--gpu-nk 1024] [--gpu-row 499] [--gpu-direct-pairs 32]
//             [--cpu 0|1] [--out bench.json]
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "bench_options.hpp"
#include "../kernels/collision_integral.hpp"
#include "../kernels/cuda_propagation.hpp"
#include "quanta/core/backend.hpp"
#include "../kernels/self_energy.hpp"
#include "quanta/core/threads.hpp"
#include "quanta/core/timer.hpp"
#include "quanta/kbe/propagator.hpp"

using namespace quanta;
using namespace quanta::kbe::kernels;
using quanta::kbe::bench::parse_list;

namespace {

template <class F>
double median_seconds(int repeats, F&& f) {
  f();  // warm-up
  std::vector<double> t;
  for (int r = 0; r < repeats; ++r) {
    WallTimer w;
    f();
    t.push_back(w.seconds());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

std::vector<cplx> random_blocks(std::size_t n, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> d(-1, 1);
  std::vector<cplx> v(n);
  for (auto& x : v) x = cplx(d(rng), d(rng));
  return v;
}

struct Record {
  std::string kernel;
  int nk, count;
  double seconds;
};

}  // namespace

int main(int argc, char** argv) {
  std::vector<int> nk_direct = {32, 64, 128}, nk_fft = {256, 1024, 4096};
  int slice = 16, row = 200, nk_step = 256, steps = 40, repeats = 3;
  int gpu_nk = 1024, gpu_row = 499, gpu_direct_pairs = 32, cpu = 1;
  std::string out;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i], v = argv[i + 1];
    if (a == "--nk-direct") nk_direct = parse_list(v);
    else if (a == "--nk-fft") nk_fft = parse_list(v);
    else if (a == "--slice") slice = std::stoi(v);
    else if (a == "--row") row = std::stoi(v);
    else if (a == "--nk-step") nk_step = std::stoi(v);
    else if (a == "--steps") steps = std::stoi(v);
    else if (a == "--repeats") repeats = std::stoi(v);
    else if (a == "--out") out = v;
    else if (a == "--gpu-nk") gpu_nk = std::stoi(v);
    else if (a == "--gpu-row") gpu_row = std::stoi(v);
    else if (a == "--gpu-direct-pairs") gpu_direct_pairs = std::stoi(v);
    else if (a == "--cpu") cpu = std::stoi(v);
    else {
      std::fprintf(stderr, "bench_kbe: unknown option %s\n", a.c_str());
      return 2;
    }
  }
  const int threads = max_threads();
  std::vector<Record> rec;

#ifdef QUANTA_HAVE_CUDA
  // 0. The device kernels for one time row at the seed's size (zeroed half-plane: the cost does not depend
  // on the values). A one-block download after each call waits for the device.
  if (cuda_device_count() > 0) {
    std::vector<cplx> sink(block_size(gpu_nk));
    auto gpu_row_bench = [&](SelfEnergyMethod m, int ntimes, const char* what, auto&& work) {
      DevicePropagation d(gpu_nk, ntimes, m, std::vector<double>(ntimes, 0.5));
      const std::vector<M2> h(gpu_nk);
      d.set_h_mid(h.data());
      const double t = median_seconds(repeats, [&] {
        work(d, ntimes - 1);
        d.download_diagonal(0, sink.data());
      });
      rec.push_back({what, gpu_nk, ntimes, t});
      std::printf("%-28s nk = %5d, row of %d pairs: %.4e s (%.3e s per pair)\n", what, gpu_nk, ntimes, t, t / ntimes);
    };
    gpu_row_bench(SelfEnergyMethod::Fft, gpu_row + 1, "gpu_self_energy_fft", [](DevicePropagation& d, int n) { d.self_energy_row(n); });
    gpu_row_bench(SelfEnergyMethod::Direct, gpu_direct_pairs, "gpu_self_energy_direct", [](DevicePropagation& d, int n) { d.self_energy_row(n); });
    gpu_row_bench(SelfEnergyMethod::Fft, gpu_row + 1, "gpu_collision_integral_row", [](DevicePropagation& d, int n) { d.collision_row(n, 0.02); });
    gpu_row_bench(SelfEnergyMethod::Fft, gpu_row + 1, "gpu_time_step_row", [](DevicePropagation& d, int n) { d.time_step(n, 0.02, false); });
  }
#endif
  if (!cpu) nk_direct.clear(), nk_fft.clear();

  // 1. Self-energy of a time slice of `slice` pairs: direct (seed Algorithm 2) and FFT.
  auto slice_bench = [&](SelfEnergyMethod m, int nk) {
    const std::size_t n = block_size(nk) * slice;
    auto gl = random_blocks(n, 1), gg = random_blocks(n, 2);
    std::vector<cplx> sl(n), sg(n);
    std::vector<double> u(slice, 0.5);
    SelfEnergyWorkspace ws(m, nk, threads);
    SelfEnergySlice s{nk, slice, gl.data(), gg.data(), 0.5, u.data(), sl.data(), sg.data()};
    const double t = median_seconds(repeats, [&] { self_energy_slice_cpu(s, ws); });
    rec.push_back({m == SelfEnergyMethod::Direct ? "self_energy_direct" : "self_energy_fft", nk, slice, t});
    std::printf("%-20s nk = %5d, %d pairs: %.4e s (%.3e s per (t,t') pair)\n", rec.back().kernel.c_str(), nk, slice, t, t / slice);
  };
  for (int nk : nk_direct) slice_bench(SelfEnergyMethod::Direct, nk);
  for (int nk : nk_direct) slice_bench(SelfEnergyMethod::Fft, nk);
  for (int nk : nk_fft) slice_bench(SelfEnergyMethod::Fft, nk);

  // 2. Collision integral of time row n = `row` (O(n^2 nk)), on random half-plane data.
  if (cpu) {
    const int nk = nk_step;
    const std::size_t bs = block_size(nk);
    auto gl = random_blocks(tri_count(row + 1) * bs, 3), gg = random_blocks(tri_count(row + 1) * bs, 4);
    auto sl = random_blocks((row + 1) * bs, 5), sg = random_blocks((row + 1) * bs, 6);
    std::vector<cplx> il((row + 1) * bs), ig((row + 1) * bs);
    CollisionRow r{.nk = nk, .n = row, .dt = 0.05, .g_less = gl.data(), .g_greater = gg.data(), .sigma_less = sl.data(), .sigma_greater = sg.data(),
                   .i_less = il.data(), .i_greater = ig.data()};
    const double t = median_seconds(repeats, [&] { collision_integral_cpu(r); });
    rec.push_back({"collision_integral_row", nk, row + 1, t});
    std::printf("%-20s nk = %5d, row n = %d: %.4e s\n", "collision_integral", nk, row, t);
  }

  // 3. Whole steps of a propagation (FFT self-energy): mean per step over the first `steps` steps.
  if (cpu) {
    kbe::Config c;
    auto& m = c.model;
    m.nk = nk_step;
    m.valence = {-1.0, {-0.25}};
    m.conduction = {1.0, {0.25}};
    m.interaction.u = 0.5;
    m.pulse = {0.4, 0.5, 0.3, 2.0};
    m.n_valence.assign(nk_step, 1.0);
    m.n_conduction.assign(nk_step, 0.0);
    c.time = {0.05, steps};
    kbe::Propagator p(c, threads);
    WallTimer w;
    int passes = 0;
    while (p.step() < steps) passes += p.advance().corrector_passes;
    const double t = w.seconds();
    rec.push_back({"propagation_steps", nk_step, steps, t});
    std::printf("%-20s nk = %5d, %d steps: %.4e s (%.2f corrector passes per step)\n", "propagation", nk_step, steps, t,
                static_cast<double>(passes) / steps);
  }

  if (!out.empty()) {
    std::ofstream f(out);
    f << "{\n  \"machine_threads\": " << threads << ",\n  \"records\": [\n";
    for (std::size_t i = 0; i < rec.size(); ++i)
      f << "    {\"kernel\": \"" << rec[i].kernel << "\", \"nk\": " << rec[i].nk << ", \"count\": " << rec[i].count
        << ", \"seconds\": " << rec[i].seconds << "}" << (i + 1 < rec.size() ? "," : "") << "\n";
    f << "  ]\n}\n";
  }
  return 0;
}
