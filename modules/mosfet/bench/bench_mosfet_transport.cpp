// Benchmark of the transport phase's right-hand side (src/transport_engine.hpp): one evaluation is the
// angle integrals, the phonon scattering and the WENO5 transport along x, w and phi of every subband, as a
// Runge-Kutta stage makes it. On the seed's grid by default (3 valleys x 6 subbands, N_x = 65, N_w = 300,
// N_phi = 48: 16.8 million unknowns) with a device-like state (a Maxwellian per subband, energies varying
// along x). For each backend: the median wall time of `--calls` evaluations (the GPU synchronized after
// each), the memory-traffic floor of one evaluation and the achieved fraction of it. Prints one JSON
// object per line.
//   bench_mosfet_transport [--nx 65] [--nw 300] [--nphi 48] [--nsbn 6] [--backends cpu,cuda] [--calls 10]
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include "../src/transport_engine.hpp"
#include "quanta/core/backend.hpp"
#include "quanta/core/threads.hpp"
#include "quanta/core/timer.hpp"
#include "quanta/mosfet/transport.hpp"

using namespace quanta;
using namespace quanta::mosfet;

int main(int argc, char** argv) {
  int nx = 65, nw = 300, nphi = 48, nsbn = 6, calls = 10;
  std::string backends = cuda_device_count() > 0 ? "cpu,cuda" : "cpu";
  for (int a = 1; a + 1 < argc; a += 2) {
    const std::string k = argv[a], v = argv[a + 1];
    if (k == "--nx") nx = std::stoi(v);
    else if (k == "--nw") nw = std::stoi(v);
    else if (k == "--nphi") nphi = std::stoi(v);
    else if (k == "--nsbn") nsbn = std::stoi(v);
    else if (k == "--backends") backends = v;
    else if (k == "--calls") calls = std::stoi(v);
  }
  const std::array<Valley, 3> valleys = {Valley{0.98, 0.19, 0.19, 0.5}, Valley{0.19, 0.98, 0.19, 0.5}, Valley{0.19, 0.19, 0.98, 0.5}};
  const TransportScales sc;
  TransportSetup setup;
  const double w_max = 15 * 0.063 / sc.kT_eV();
  setup.grid = {nsbn, nx, nw, nphi, 1.0 / (nx - 1), w_max / (nw - 1), 2 * constants::pi / nphi};
  for (int v = 0; v < 3; ++v) setup.valleys[v] = kane_valley(valleys[v], sc);
  setup.scattering = make_phonon_scattering(PhononParameters{}, valleys, sc);
  const auto& g = setup.grid;
  const int nvp = 3 * nsbn;
  std::vector<double> eps(static_cast<std::size_t>(nx) * nvp), overlaps(static_cast<std::size_t>(nx) * nvp * nvp, 1.5), contact(nvp * 2, 1.0);
  for (int i = 0; i < nx; ++i)
    for (int vp = 0; vp < nvp; ++vp) eps[i * nvp + vp] = 2.0 * (vp % nsbn) + 8 * std::exp(-std::pow((i * g.dx - 0.5) / 0.2, 2));
  std::vector<double> phi(static_cast<std::size_t>(nvp) * nx * nw * nphi);
  for (int v = 0; v < 3; ++v)
    for (int p = 0; p < nsbn; ++p)
      for (int i = 0; i < nx; ++i)
        for (int l = 0; l < nw; ++l)
          for (int m = 0; m < nphi; ++m) {
            const double w = (l + 0.5) * g.dw;
            phi[kernels::phase_index(g, v, p, i, l, m)] = kernels::kane_jacobian(setup.valleys[v], w) * std::exp(-w - eps[i * nvp + v * nsbn + p]);
          }
  // Memory floor of one evaluation: the distribution read by the angle integrals, the scattering and the three
  // transport directions (5 passes), the right-hand side written by the scattering (which starts it) and read and
  // written by the three directions (1 + 6 passes).
  const double bytes = double(phi.size()) * sizeof(double) * (5 + 1 + 6);
  std::stringstream list(backends);
  std::string name;
  while (std::getline(list, name, ',')) {
    const Backend backend = parse_backend(name);
    std::unique_ptr<TransportEngine> engine;
#ifdef QUANTA_HAVE_CUDA
    if (backend == Backend::Cuda) engine = make_cuda_transport_engine(setup);
#endif
    if (!engine) engine = make_cpu_transport_engine(setup);
    engine->upload_distribution(phi);
    engine->upload_block(eps, overlaps, contact);
    engine->evaluate_rhs();  // warm-up
    engine->finish();
    std::vector<double> times;
    for (int c = 0; c < calls; ++c) {
      WallTimer t;
      engine->evaluate_rhs();
      engine->finish();
      times.push_back(t.seconds());
    }
    std::sort(times.begin(), times.end());
    const double median = times[times.size() / 2];
    std::printf("{\"bench\": \"mosfet_transport_rhs\", \"backend\": \"%s\", \"threads\": %d, \"nx\": %d, \"nw\": %d, \"nphi\": %d, \"nsbn\": %d, "
                "\"unknowns\": %zu, \"rhs_median_s\": %.6f, \"rhs_min_s\": %.6f, \"floor_bytes\": %.4e, \"achieved_GBps\": %.1f}\n",
                name.c_str(), backend == Backend::Cpu ? max_threads() : 0, nx, nw, nphi, nsbn, phi.size(), median, times.front(), bytes,
                bytes / median / 1e9);
  }
  return 0;
}
