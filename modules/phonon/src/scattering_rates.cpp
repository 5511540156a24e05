// Temperature-dependent three-phonon rates and weighted phase spaces from the process lists, the
// temperature-independent phase spaces, and isotope scattering, as ShengBTE/FourPhonon define them.
#include <cmath>
#include <cstdio>

#include "quanta/core/comm.hpp"
#include "quanta/core/units.hpp"
#include "quanta/phonon/harmonic.hpp"
#include "quanta/phonon/scattering.hpp"
#include "../kernels/cuda_three_phonon.hpp"
#include "quanta/core/error.hpp"
#include "quanta/core/progress.hpp"
#include "three_phonon_setup.hpp"

namespace quanta::phonon {
namespace {

namespace su = units::shengbte;

double occupation(double omega, double temperature) { return 1.0 / (std::exp(su::hbar * omega / su::kB / temperature) - 1.0); }

kernels::MeshView host_mesh(const Crystal& c, const QGrid& g, const Spectrum& s, double scalebroad) {
  return make_mesh_view(c, g, s, scalebroad, s.omega.data(), s.velocity.data(), s.eigenvectors.data());
}

}  // namespace

ThreePhononRates three_phonon_rates(const Crystal& crystal, const QGrid& grid, const Spectrum& s,
                                    const ThreePhononProcesses& p, double scalebroad, double temperature,
                                    const RateOptions& opt) {
  const auto mesh = host_mesh(crystal, grid, s, scalebroad);
  const int nb = s.nb, nmodes = grid.nlist() * nb;
  // A process's rate is factor * weight * |V|^2 (1/ps): hbar pi / 4 with ShengBTE's hbar, and 5.60626442e8
  // taking (eV/A^3)^2/amu^3/(rad/ps)^3 to 1/ps (ShengBTE's single-precision literals kept), over nptk.
  const double factor = su::hbar_p * units::pi / 4 * (double(5.60626442f) * 1e8 / grid.nptk);
  std::vector<double> bose(s.omega.size());
  for (std::size_t m = 0; m < bose.size(); ++m) bose[m] = s.omega[m] != 0 ? occupation(s.omega[m], temperature) : 0.0;
  if (opt.keep_process_rates && (p.plus.draws > 0 || p.minus.draws > 0))
    throw Error("three-phonon rates: the iterative BTE needs every process, not a sample (num_sample_process_3ph)");
  ThreePhononRates r;
  RateSums sums;
  sums.weight_plus.assign(nmodes, 0.0);
  sums.weight_minus.assign(nmodes, 0.0);
  sums.rate_plus.assign(nmodes, 0.0);
  sums.rate_minus.assign(nmodes, 0.0);
  if (opt.keep_process_rates) {
    r.process_plus.resize(p.plus.size());
    r.process_minus.resize(p.minus.size());
  }
  bool done = false;
  if (opt.backend == Backend::Cuda) {
#ifdef QUANTA_HAVE_CUDA
    try {
      kernels::three_phonon_rates_cuda(mesh, grid.irreducible, bose, p, factor, opt, sums, r);
      done = true;
    } catch (const OutOfDeviceMemory& e) {
      std::fprintf(stderr, "[phonon] %s: three-phonon rates on the CPU\n", e.what());
    }
#else
    throw Error("three-phonon rates: the CUDA backend was requested but quanta was built without CUDA");
#endif
  }
  if (!done) {
    // A mode costs in proportion to its number of processes.
    char stage[64];
    std::snprintf(stage, sizeof stage, "three-phonon rates at %g K", temperature);
    Progress progress(stage, static_cast<std::size_t>(nmodes), opt.quiet);
    progress.set_total_work(static_cast<double>(p.plus.size() + p.minus.size()));
#pragma omp parallel for schedule(dynamic, 1)
    for (int m = 0; m < nmodes; ++m) {
      const double omega = s.omega[grid.irreducible[m / nb] * nb + m % nb];
      for (bool plus : {true, false}) {
        const ProcessList& l = plus ? p.plus : p.minus;
        double* kept = opt.keep_process_rates ? (plus ? r.process_plus : r.process_minus).data() : nullptr;
        double w_sum = 0, g_sum = 0;
        for (std::int64_t k = l.offset[m]; k < l.offset[m + 1]; ++k) {
          const double w = kernels::process_weight(mesh, bose.data(), omega, l.mode2[k], l.mode3[k], plus);
          const double g = factor * w * l.v2[k];
          w_sum += w;
          g_sum += g;
          if (kept) kept[k] = g;
        }
        (plus ? sums.weight_plus : sums.weight_minus)[m] = w_sum;
        (plus ? sums.rate_plus : sums.rate_minus)[m] = g_sum;
      }
      progress.advance(1, static_cast<double>(p.plus.offset[m + 1] - p.plus.offset[m] + p.minus.offset[m + 1] - p.minus.offset[m]));
    }
    progress.finish();
  }
  // Under MPI each rank summed the modes it holds (zeros elsewhere): the sum over the ranks joins them.
  if (!p.owner.empty())
    for (auto* v : {&sums.weight_plus, &sums.weight_minus, &sums.rate_plus, &sums.rate_minus}) Comm::world().sum(v->data(), v->size());
  // The emission sums count each final pair twice (q' <-> q''); ShengBTE halves them here. A sample's sums
  // are scaled to the whole (ProcessList::scale).
  const double sp = p.plus.scale(), sm = p.minus.scale();
  r.wp3_plus.resize(nmodes);
  r.wp3_minus.resize(nmodes);
  r.gamma_plus = std::move(sums.rate_plus);
  r.gamma_minus = std::move(sums.rate_minus);
  for (int m = 0; m < nmodes; ++m) {
    r.wp3_plus[m] = sums.weight_plus[m] / grid.nptk * sp;
    r.wp3_minus[m] = 0.5 * sums.weight_minus[m] / grid.nptk * sm;
    r.gamma_plus[m] *= sp;
    r.gamma_minus[m] *= 0.5 * sm;
    if (!std::isfinite(r.gamma_plus[m] + r.gamma_minus[m] + r.wp3_plus[m] + r.wp3_minus[m]))
      throw Error("three-phonon rates at " + std::to_string(temperature) + " K: a non-finite rate or weighted phase space at irreducible mode " +
                  std::to_string(m) + " (check the force constants and the spectrum)");
  }
  return r;
}

PhaseSpace three_phonon_phase_space(const QGrid& grid, const Spectrum& s, const ThreePhononProcesses& p,
                                    double scalebroad, const Crystal& crystal) {
  const auto mesh = host_mesh(crystal, grid, s, scalebroad);
  const int nb = s.nb, nmodes = grid.nlist() * nb;
  // ShengBTE divides by nptk^2 nbands^3 (its int32 nptk**2 overflows above 46340 points; quanta does not).
  const double norm = static_cast<double>(grid.nptk) * grid.nptk * nb * nb * nb;
  PhaseSpace ps;
  ps.plus.assign(nmodes, 0.0);
  ps.minus.assign(nmodes, 0.0);
#pragma omp parallel for schedule(dynamic, 1)
  for (int m = 0; m < nmodes; ++m) {
    const int mode1 = grid.irreducible[m / nb] * nb + m % nb;
    for (bool plus : {true, false}) {
      const ProcessList& l = plus ? p.plus : p.minus;
      double sum = 0;
      for (std::int64_t k = l.offset[m]; k < l.offset[m + 1]; ++k)
        sum += kernels::process_gaussian(mesh, s.omega[mode1], l.mode2[k], l.mode3[k], plus) / norm;
      (plus ? ps.plus : ps.minus)[m] = sum * l.scale();
    }
  }
  if (!p.owner.empty())  // each rank's modes, zeros elsewhere
    for (auto* v : {&ps.plus, &ps.minus}) Comm::world().sum(v->data(), v->size());
  return ps;
}

std::vector<double> isotope_rates(const Control& control, const QGrid& grid, const Spectrum& s) {
  const Crystal& c = control.crystal;
  const int nb = s.nb, nat = c.natoms, nmodes = grid.nlist() * nb;
  std::vector<double> rate(nmodes, 0.0);
  if (!control.isotopes) return rate;
  const std::vector<double> sigma = refined_sigma(c, grid, s);
  const double sqrt_pi = std::sqrt(units::pi);
  // Every mode costs a sweep of the mesh: under MPI each rank takes every size-th, and the sum joins them.
  const Comm& comm = Comm::world();
  const int first = comm.rank(), stride = comm.size();
#pragma omp parallel for schedule(dynamic, 1)
  for (int m = first; m < nmodes; m += stride) {
    const std::size_t mode1 = static_cast<std::size_t>(grid.irreducible[m / nb]) * nb + m % nb;
    const double omega = s.omega[mode1];
    if (omega == 0) continue;
    const cplx* e1 = &s.eigenvectors[mode1 * nb];
    double sum = 0;
    for (int q2 = 0; q2 < grid.nptk; ++q2)
      for (int j = 0; j < nb; ++j) {
        const std::size_t mode2 = static_cast<std::size_t>(q2) * nb + j;
        const double d = omega - s.omega[mode2], sg = sigma[mode2];
        if (!(std::abs(d) < 2.5 * sg)) continue;
        const cplx* e2 = &s.eigenvectors[mode2 * nb];
        double overlap = 0;
        for (int a = 0; a < nat; ++a) {
          cplx dot;
          for (int k = 0; k < 3; ++k) dot += conj(e1[3 * a + k]) * e2[3 * a + k];
          overlap += control.gfactors[c.types[a]] * norm2(dot);
        }
        sum += overlap * std::exp(-d * d / (sg * sg)) / sg / sqrt_pi;
      }
    rate[m] = sum / (2.0 * grid.nptk) * units::pi * omega * omega;
  }
  comm.sum(rate.data(), rate.size());
  return rate;
}

}  // namespace quanta::phonon
