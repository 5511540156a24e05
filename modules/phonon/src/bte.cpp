// The linearized BTE: RTA and iterative solutions, conductivity and cumulative conductivity, with
// ShengBTE's formulas and constants (single-precision literals kept where ShengBTE has them).
#include "quanta/phonon/bte.hpp"

#include "quanta/core/comm.hpp"
#include "quanta/core/progress.hpp"
#include "quanta/core/timer.hpp"

#include <lapacke.h>

#include <cmath>
#include <cstdio>
#include <functional>
#include <memory>

#include "../kernels/bte_iteration.hpp"
#include "../kernels/cuda_bte.hpp"
#include "quanta/core/error.hpp"
#include "quanta/core/units.hpp"

namespace quanta::phonon {
namespace {

namespace su = units::shengbte;

// Image of mesh point (m) under a q-rotation Q, or -1 when Q does not map the mesh onto itself there.
int image(const QGrid& g, const Mat3& q, int id) {
  const int m[3] = {id % g.n[0], (id / g.n[0]) % g.n[1], id / (g.n[0] * g.n[1])};
  int out[3];
  for (int i = 0; i < 3; ++i) {
    double v = 0;
    for (int j = 0; j < 3; ++j) v += q[i][j] * m[j] / g.n[j];
    v *= g.n[i];
    const double r = std::nearbyint(v);
    if (std::abs(v - r) > 1e-2) return -1;
    out[i] = static_cast<int>(r);
  }
  return g.index(out[0], out[1], out[2]);
}

double two_norm(const std::array<double, 9>& a) {  // largest singular value
  double m[9], s[3], u[9], vt[9], superb[2];
  for (int i = 0; i < 9; ++i) m[i] = a[i];
  if (LAPACKE_dgesvd(LAPACK_ROW_MAJOR, 'N', 'N', 3, 3, m, 3, s, u, 3, vt, 3, superb) != 0)
    throw Error("BTE: SVD of the conductivity tensor failed");
  return s[0];
}

std::array<double, 9> band_total(const std::vector<double>& kb, int nb) {
  std::array<double, 9> t{};
  for (int b = 0; b < nb; ++b)
    for (int k = 0; k < 9; ++k) t[k] += kb[9 * b + k];
  return t;
}

std::array<double, 9> symmetrize_tensor(const BteSymmetry& sym, const double* k) {
  std::array<double, 9> out{};
  for (const Mat3& c : sym.tensor_ops)
    for (int a = 0; a < 3; ++a)
      for (int b = 0; b < 3; ++b) {
        double x = 0;
        for (int i = 0; i < 3; ++i)
          for (int j = 0; j < 3; ++j) x += c[a][i] * k[3 * i + j] * c[b][j];
        out[3 * a + b] += x;
      }
  for (double& x : out) x /= static_cast<double>(sym.tensor_ops.size());
  return out;
}

double bose(double omega, double t) { return 1.0 / (std::exp(su::hbar * omega / su::kB / t) - 1.0); }

// 1e21 hbar^2 / (kB T^2 V nptk): ShengBTE's prefactor of sum n(n+1) omega v F, to W/(m K).
double kappa_prefactor(const Crystal& c, const QGrid& g, double t) {
  return double(1e21f) * su::hbar * su::hbar / (su::kB * t * t * c.volume * g.nptk);
}

std::vector<double> flatten(const std::vector<Mat3>& m) {
  std::vector<double> out;
  out.reserve(9 * m.size());
  for (const auto& x : m)
    for (const auto& row : x)
      for (double v : row) out.push_back(v);
  return out;
}

}  // namespace

BteSymmetry bte_symmetry(const Crystal& c, const SymmetryInfo& sym, const QGrid& grid) {
  BteSymmetry b;
  const auto ops = mesh_operations(c, sym);
  b.symmetrizer = point_symmetrizers(c, sym, grid);
  for (const auto& op : ops) {
    std::vector<int> img(grid.nptk);
    bool ok = true;
    for (int id = 0; id < grid.nptk && ok; ++id) ok = (img[id] = image(grid, op.q, id)) >= 0;
    if (!ok) continue;
    b.tensor_ops.push_back(op.cart);
    b.image.insert(b.image.end(), img.begin(), img.end());
  }
  b.op_of_point.assign(grid.nptk, -1);
  const int nops = static_cast<int>(b.tensor_ops.size());
  for (int l = 0; l < grid.nlist(); ++l)
    for (int k = 0; k < nops; ++k) {
      const int p = b.image[static_cast<std::size_t>(k) * grid.nptk + grid.irreducible[l]];
      if (b.op_of_point[p] < 0) b.op_of_point[p] = k;
    }
  for (int p = 0; p < grid.nptk; ++p)
    if (b.op_of_point[p] < 0) throw Error("BTE: mesh point " + std::to_string(p + 1) + " is not the image of its class representative");
  return b;
}

std::vector<double> kappa_from_F(const Crystal& c, const QGrid& grid, const Spectrum& s, const BteSymmetry& sym,
                                 const std::vector<double>& F, double t) {
  const int nb = s.nb;
  std::vector<double> out(9 * nb);
  const double pre = kappa_prefactor(c, grid, t);
  for (int b = 0; b < nb; ++b) {
    double k[9] = {};
    for (int q = 1; q < grid.nptk; ++q) {  // Gamma skipped, as ShengBTE does
      const std::size_t m = static_cast<std::size_t>(q) * nb + b;
      const double w = s.omega[m], n = bose(w, t);
      const double* v = &s.velocity[3 * m];
      const double* f = &F[3 * m];
      for (int a = 0; a < 3; ++a)
        for (int bb = 0; bb < 3; ++bb) k[3 * a + bb] += n * (n + 1) * w * v[a] * f[bb];
    }
    for (double& x : k) x *= pre;
    const auto sk = symmetrize_tensor(sym, k);
    for (int i = 0; i < 9; ++i) out[9 * b + i] = sk[i];
  }
  return out;
}

namespace {

// Host arrays of one Jacobi step, shared by the CPU loop and the CUDA backend's upload.
struct IterationData {
  std::vector<double> vw, tau, symmetrizer;  // [nptk*nb][3], [nptk*nb], [nptk][9]
  std::vector<int> irreducible_mode;         // [nptk*nb] irreducible mode of each mesh mode
  std::vector<int> image, op_of_point;       // [nops][nptk] mesh action of each operation, [nptk]
};

IterationData iteration_data(const QGrid& grid, const Spectrum& s, const BteSymmetry& sym, const std::vector<double>& rate) {
  const int nb = s.nb;
  const std::size_t n = static_cast<std::size_t>(grid.nptk) * nb;
  IterationData d;
  d.vw.resize(3 * n);
  d.tau.resize(n);
  d.irreducible_mode.resize(n);
  for (int p = 0; p < grid.nptk; ++p)
    for (int i = 0; i < nb; ++i) {
      const std::size_t m = static_cast<std::size_t>(p) * nb + i;
      const int irr = grid.class_of[p] * nb + i;
      d.irreducible_mode[m] = irr;
      d.tau[m] = rate[irr] != 0 ? 1.0 / rate[irr] : 0.0;
      for (int a = 0; a < 3; ++a) d.vw[3 * m + a] = s.velocity[3 * m + a] * s.omega[m];
    }
  d.symmetrizer = flatten(sym.symmetrizer);
  d.image = sym.image;
  d.op_of_point = sym.op_of_point;
  return d;
}

}  // namespace

BteSolution solve_bte(const Crystal& c, const QGrid& grid, const Spectrum& s, const BteSymmetry& sym,
                      const std::vector<double>& total_rate, const ThreePhononProcesses& p, const ThreePhononRates& r,
                      double t, const BteOptions& opt, const FourPhononIteration& four) {
  const int nb = s.nb;
  const std::size_t nfull = static_cast<std::size_t>(grid.nptk) * nb;
  const IterationData d = iteration_data(grid, s, sym, total_rate);
  BteSolution sol;
  sol.backend = to_string(opt.backend);
  sol.F.resize(3 * nfull);
  for (std::size_t m = 0; m < nfull; ++m)
    for (int a = 0; a < 3; ++a) sol.F[3 * m + a] = d.tau[m] * d.vw[3 * m + a];
  sol.kappa_band.push_back(kappa_from_F(c, grid, s, sym, sol.F, t));
  if (!opt.iterate) return sol;

  // One Jacobi step: F <- step(F). The CUDA backend keeps everything on the device between steps.
  std::function<void(std::vector<double>&)> step;
#ifdef QUANTA_HAVE_CUDA
  std::unique_ptr<kernels::BteIterationCuda> gpu;
  if (opt.backend == Backend::Cuda) {
    try {
      gpu = std::make_unique<kernels::BteIterationCuda>(p, r, d.vw, d.tau, d.symmetrizer, d.irreducible_mode, d.image, d.op_of_point, nb,
                                                        four.rows, static_cast<std::size_t>(grid.nlist()) * nb);
    } catch (const OutOfDeviceMemory& e) {
      // The lists of a dense mesh may not fit next to nothing else; the CPU step computes the same thing.
      std::fprintf(stderr, "[phonon] %s: iterating on the CPU\n", e.what());
      sol.backend = "cpu (device memory)";
    }
  }
#endif
  // Under MPI each rank holds the processes of its share of the irreducible modes (ThreePhononProcesses::
  // owner): it updates the mesh modes of those, zeros the others, and the sum over the ranks joins them.
  const Comm& comm = Comm::world();
  const auto join = [&](std::vector<double>& F) {
    if (p.owner.empty()) return;
    for (std::size_t m = 0; m < nfull; ++m)
      if (!p.holds(d.irreducible_mode[m])) F[3 * m] = F[3 * m + 1] = F[3 * m + 2] = 0;
    comm.sum(F.data(), F.size());
  };
  step = [&](std::vector<double>& F) {
#ifdef QUANTA_HAVE_CUDA
    if (gpu) {
      gpu->step(F);
      return join(F);
    }
#endif
    const std::vector<double> old = F;
    const kernels::IterationView v{nb, p.plus.offset.data(), p.minus.offset.data(), p.plus.mode2.data(), p.plus.mode3.data(),
                                   p.minus.mode2.data(), p.minus.mode3.data(), r.process_plus.data(), r.process_minus.data(), old.data(),
                                   four.rows};
#pragma omp parallel for schedule(dynamic, 64)
    for (std::int64_t m = 0; m < static_cast<std::int64_t>(nfull); ++m) {
      if (!p.holds(d.irreducible_mode[m])) continue;  // another rank's (join)
      const std::size_t q = m / nb;
      double D[3] = {0, 0, 0};
      const int* image = &d.image[static_cast<std::size_t>(d.op_of_point[q]) * grid.nptk];
      kernels::scattering_sum(v, d.irreducible_mode[m], image, 0, 1, D);
      if (four.rows) kernels::scattering_sum4(v, static_cast<long>(nfull), d.irreducible_mode[m], image, 0, 1, D);
      kernels::updated_F(&d.vw[3 * m], d.tau[m], D, &d.symmetrizer[9 * q], &F[3 * m]);
    }
    join(F);
  };
  // How far the iteration is, as ShengBTE reports it (iteration, relative change against eps): the number
  // of iterations is not known in advance, so the report is the change per iteration and the time each takes,
  // at most every 2 s and at the end.
  WallTimer clock;
  double last_report = 0;
  const auto report = [&](int it, double change, bool last) {
    if (opt.quiet || (!last && clock.seconds() - last_report < 2.0)) return;
    last_report = clock.seconds();
    char line[200];
    std::snprintf(line, sizeof line, "iterative BTE at %g K: iteration %d (at most %d), relative change %.3e (stops below %.1e), %.2f s per iteration",
                  t, it, opt.maxiter, change, opt.eps, clock.seconds() / it);
    note("phonon", false, line);
  };
  for (int it = 1; it <= opt.maxiter; ++it) {
    const auto old = band_total(sol.kappa_band.back(), nb);
    step(sol.F);
    sol.kappa_band.push_back(kappa_from_F(c, grid, s, sym, sol.F, t));
    const auto now = band_total(sol.kappa_band.back(), nb);
    std::array<double, 9> diff{};
    for (int k = 0; k < 9; ++k) diff[k] = now[k] - old[k];
    sol.last_iteration = it;
    const double change = two_norm(diff) / two_norm(old);
    report(it, change, change < opt.eps || it == opt.maxiter);
    if (change < opt.eps) {
      sol.converged = true;
      return sol;
    }
  }
  sol.last_iteration = opt.maxiter + 1;
  return sol;
}

CumulativeKappa cumulative_kappa(const Crystal& c, const QGrid& grid, const Spectrum& s, const BteSymmetry& sym,
                                 const std::vector<double>& F, double t, int nticks) {
  const int nb = s.nb;
  CumulativeKappa ck;
  // Mean-free-path axis, 1e-2 .. 1e6 nm, computed in single precision as ShengBTE does.
  for (int i = 1; i <= nticks; ++i) {
    const float x = 8.f * (float(i) - 1.f) / (float(nticks) - 1.f) - 2.f;
    ck.mfp_ticks.push_back(static_cast<double>(std::pow(10.f, x)));
  }
  double emin = 1e10, emax = -1e10;
  for (double w : s.omega) emin = std::min(emin, w), emax = std::max(emax, w);
  emax *= 1.1;
  for (int i = 1; i <= nticks; ++i) ck.omega_ticks.push_back(emin + (emax - emin) * i / nticks);
  ck.vs_mfp.assign(nticks, {});
  ck.vs_omega.assign(nticks, {});
  const double pre = kappa_prefactor(c, grid, t);
  for (int q = 1; q < grid.nptk; ++q)
    for (int b = 0; b < nb; ++b) {
      const std::size_t m = static_cast<std::size_t>(q) * nb + b;
      const double w = s.omega[m], n = bose(w, t);
      const double* v = &s.velocity[3 * m];
      const double* f = &F[3 * m];
      const double vn = std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
      const double mfp = (f[0] * v[0] + f[1] * v[1] + f[2] * v[2]) / ((w + 1e-12) * vn);
      double k[9];
      for (int a = 0; a < 3; ++a)
        for (int bb = 0; bb < 3; ++bb) k[3 * a + bb] = pre * n * (n + 1) * w * v[a] * f[bb];
      for (int i = 0; i < nticks; ++i) {
        if (ck.mfp_ticks[i] > mfp)
          for (int e = 0; e < 9; ++e) ck.vs_mfp[i][e] += k[e];
        if (ck.omega_ticks[i] > w)
          for (int e = 0; e < 9; ++e) ck.vs_omega[i][e] += k[e];
      }
    }
  for (auto& x : ck.vs_mfp) x = symmetrize_tensor(sym, x.data());
  for (auto& x : ck.vs_omega) x = symmetrize_tensor(sym, x.data());
  return ck;
}

}  // namespace quanta::phonon
