// Four-phonon scattering, as FourPhonon computes it: for each irreducible mode and class (++, +-, --), the
// allowed processes (kernels/four_phonon.hpp), their count, phase space and, at up to eight temperatures in
// one pass, their rates and weighted phase spaces. Nothing is stored per process: each is enumerated, tested
// and evaluated where it is found, on the CPU (OpenMP over modes) or the GPU (four_phonon_cuda.cu).
#include <algorithm>
#include <cstdio>
#include <cmath>
#include <map>
#include <numeric>

#include "../kernels/four_phonon.hpp"
#include "quanta/core/error.hpp"
#include "quanta/core/host_memory.hpp"
#include "quanta/core/progress.hpp"
#include "quanta/core/units.hpp"
#include "quanta/phonon/scattering.hpp"
#include "four_phonon_setup.hpp"
#include "three_phonon_setup.hpp"

namespace quanta::phonon {
namespace {

namespace su = units::shengbte;
using kernels::FourClass;

constexpr FourClass kClasses[3] = {FourClass::PlusPlus, FourClass::PlusMinus, FourClass::MinusMinus};

// The sums of one irreducible mode and class on the CPU: for each mode 2 (q2, branch j), stage 1 of the matrix
// element (W) once the first process that needs it is found, then every q3, in FourPhonon's order; `keep` as
// for kernels::NoProcessSink.
template <class Sink = kernels::NoProcessSink>
kernels::FourSums mode_sums_cpu(const kernels::MeshView& mesh, const kernels::Fc4View& f, const kernels::FourRateInputs& in,
                                int mode1, FourClass c, Sink&& keep = Sink{}) {
  kernels::FourSums acc{};
  if (!kernels::scatters(mesh, mesh.omega[mode1])) return acc;
  std::vector<cplx> W(static_cast<std::size_t>(f.ngroups) * 9);
  double rates[kernels::kMaxTemperatures4];
  for (int mode2 = 0; mode2 < mesh.nptk * mesh.nb; ++mode2) {
    bool have_w = false;
    for (int q3 = 0; q3 < mesh.nptk; ++q3)
      kernels::visit_branch4(mesh, mode1, mode2, q3, c, [&](int mode3, int mode4, double delta, double sigma) {
        if (!kernels::count_process4(mesh, in, mode2, mode3, mode4, delta, sigma, acc)) return;
        if (!have_w && in.with_rates) kernels::contract12_all(mesh, f, mode1, mode2, c, W.data());
        have_w = true;
        const double v2 = in.with_rates ? kernels::vertex4(mesh, f, W.data(), f.roots, mode3, mode4, c) : 0.0;
        kernels::rate_process4(mesh, in, mode1, mode2, mode3, mode4, c, v2, acc, rates);
        keep(mode2, mode3, mode4, rates);
      });
  }
  return acc;
}

// The unscaled sums of one irreducible mode (index m) and class from a sample (kernels::visit_draw4).
kernels::FourSums sample_sums_cpu(const kernels::MeshView& mesh, const kernels::Fc4View& f, const kernels::FourRateInputs& in,
                                  const QGrid& grid, int m, FourClass c, const kernels::FourSample& sample) {
  kernels::FourSums acc{};
  const int mode1 = grid.irreducible[m / mesh.nb] * mesh.nb + m % mesh.nb;
  if (!kernels::scatters(mesh, mesh.omega[mode1])) return acc;
  const unsigned long long stream = kernels::sample_stream(sample.seed, sample.purpose, m, c);
  std::vector<cplx> W(static_cast<std::size_t>(f.ngroups) * 9);
  double rates[kernels::kMaxTemperatures4];
  for (long long n = 0; n < sample.draws; ++n)
    kernels::visit_draw4(mesh, mode1, c, stream, n, [&](int mode2, int mode3, int mode4, double delta, double sigma) {
      if (!kernels::count_process4(mesh, in, mode2, mode3, mode4, delta, sigma, acc) || in.nT == 0) return;
      double v2 = 0;
      if (in.with_rates) {
        kernels::contract12_all(mesh, f, mode1, mode2, c, W.data());
        v2 = kernels::vertex4(mesh, f, W.data(), f.roots, mode3, mode4, c);
      }
      kernels::rate_process4(mesh, in, mode1, mode2, mode3, mode4, c, v2, acc, rates);
    });
  return acc;
}

}  // namespace

Fc4Tables make_fc4_tables(const FourthOrderFc& fc4, const Crystal& crystal, const std::array<int, 3>& mesh) {
  // Groups keyed by (C, D, R_k - R_l), in that order; quadruplets in file order within a group.
  std::map<std::array<int, 5>, std::vector<int>> by_group;
  for (std::size_t i = 0; i < fc4.quadruplets.size(); ++i) {
    const auto& q = fc4.quadruplets[i];
    by_group[{q.atom[2], q.atom[3], q.cell_k[0] - q.cell_l[0], q.cell_k[1] - q.cell_l[1], q.cell_k[2] - q.cell_l[2]}].push_back(
        static_cast<int>(i));
  }
  Fc4Tables t;
  t.group_offset.push_back(0);
  for (const auto& [key, members] : by_group) {
    t.group_atoms.insert(t.group_atoms.end(), {key[0], key[1]});
    t.group_cell.insert(t.group_cell.end(), {key[2], key[3], key[4]});
    for (int i : members) {
      const auto& q = fc4.quadruplets[i];
      const double inv_mass = 1.0 / std::sqrt(crystal.masses[q.atom[0]] * crystal.masses[q.atom[1]] * crystal.masses[q.atom[2]] *
                                              crystal.masses[q.atom[3]]);
      for (double x : q.phi) t.phi.push_back(x * inv_mass);
      t.quad_atoms.insert(t.quad_atoms.end(), {q.atom[0], q.atom[1]});
      t.quad_cells.insert(t.quad_cells.end(), {q.cell_l[0], q.cell_l[1], q.cell_l[2], q.cell_j[0] - q.cell_l[0],
                                                q.cell_j[1] - q.cell_l[1], q.cell_j[2] - q.cell_l[2]});
    }
    t.group_offset.push_back(t.group_offset.back() + static_cast<int>(members.size()));
  }
  fill_mesh_roots(mesh, t.roots, t.roots_n, t.stride);
  return t;
}

kernels::Fc4View make_fc4_view(const Fc4Tables& t, const Fc4Pointers& p) {
  kernels::Fc4View v{};
  v.ngroups = static_cast<int>(t.group_atoms.size() / 2);
  v.group_offset = p.group_offset;
  v.group_atoms = p.group_atoms;
  v.group_cell = p.group_cell;
  v.quad_atoms = p.quad_atoms;
  v.quad_cells = p.quad_cells;
  v.phi = p.phi;
  v.roots_n = t.roots_n;
  for (int d = 0; d < 3; ++d) v.stride[d] = t.stride[d];
  v.roots = p.roots;
  return v;
}

FourPhononScattering four_phonon_scattering(const Crystal& crystal, const QGrid& grid, const Spectrum& s, const FourthOrderFc& fc4,
                                            double scalebroad, const std::vector<double>& temperatures,
                                            const ScatteringOptions& opt, bool collision_rows,
                                            const FourPhononSampling& sampling) {
  kernels::MeshView mesh = make_mesh_view(crystal, grid, s, scalebroad, s.omega.data(), s.velocity.data(), s.eigenvectors.data());
  mesh.omega_max = opt.omega_max;
  std::vector<double> width(4 * s.omega.size());
  for (std::size_t mode = 0; mode < s.omega.size(); ++mode) kernels::width_terms(mesh, static_cast<int>(mode), &width[4 * mode]);
  mesh.width_terms = width.data();
  const Fc4Tables tables = make_fc4_tables(fc4, crystal, grid.n);
  const kernels::Fc4View f = make_fc4_view(tables, host_pointers(tables));
  const int nb = s.nb, nmodes = grid.nlist() * nb, nT = static_cast<int>(temperatures.size());
  const double N = grid.nptk;
  const std::size_t nfull = s.omega.size();
  // FourPhonon's normalizations: P4 divides by N^3 nb^4; a rate is hbar_p^2 pi / 8 |V|^2 F G / (w1 w2 w3 w4),
  // times 3.37617087e9 (its single-precision literal) taking (eV/A^4/amu^2)^2 / (rad/ps)^4 to 1/ps, over N^2.
  const double rate_units = double(3.37617087f) * 1e9 / N / N;

  // The memory of the stage, before it starts: the mesh, the occupations, the constants, the sums and the
  // collision rows of four_phonon_iteration; no process is stored.
  const std::size_t mesh_bytes = nfull * (8 * sizeof(double) + nb * sizeof(cplx));
  const std::size_t table_bytes = tables.phi.size() * sizeof(double) + (tables.quad_cells.size() + tables.quad_atoms.size()) * sizeof(int);
  const std::size_t per_t_bytes = std::min(nT, kernels::kMaxTemperatures4) * nfull * sizeof(double);
  const std::size_t sums_bytes = static_cast<std::size_t>(nmodes) * 3 * sizeof(kernels::FourSums);
  const std::size_t result_bytes = static_cast<std::size_t>(nmodes) * 3 * (2 + 2 * std::max(nT, 1)) * sizeof(double);
  const std::size_t rows_bytes = collision_rows ? bytes_of(static_cast<std::size_t>(nT) * nmodes * sizeof(double), nfull) : 0;
  const std::size_t rows_group_bytes = collision_rows ? bytes_of(static_cast<std::size_t>(std::min(nT, kernels::kMaxTemperatures4)) * nmodes * sizeof(double), nfull) : 0;
  require_host_memory(per_t_bytes + sums_bytes + result_bytes + rows_bytes,
                      collision_rows ? "the four-phonon stage's occupations, sums and collision rows (four_phonon_iteration)"
                                     : "the four-phonon stage's occupations and sums");
  char plan[300];
  std::snprintf(plan, sizeof plan, "four-phonon stage: %.1f MiB of host memory%s%s; no process is stored",
                double(per_t_bytes + sums_bytes + result_bytes + rows_bytes) / (1 << 20),
                collision_rows ? (" (collision rows " + std::to_string(rows_bytes >> 20) + " MiB)").c_str() : "",
                opt.backend == Backend::Cuda
                    ? (", about " + std::to_string((mesh_bytes + table_bytes + per_t_bytes + 64 * sums_bytes + rows_group_bytes) >> 20) +
                       " MiB on the device")
                          .c_str()
                    : "");
  note("phonon", opt.quiet, plan);

  FourPhononScattering r;
  for (int c = 0; c < 3; ++c) {
    r.count[c].assign(nmodes, 0);
    r.phase_space[c].assign(nmodes, 0.0);
  }
  r.per_t.resize(nT);
  if (collision_rows) {
    r.nfull = nfull;
    r.rows.assign(static_cast<std::size_t>(nT) * nmodes * nfull, 0.0);
  }
  for (auto& at : r.per_t)
    for (int c = 0; c < 3; ++c) {
      at.gamma[c].assign(nmodes, 0.0);
      at.wp4[c].assign(nmodes, 0.0);
    }
  std::vector<double> bose;  // [nt][nfull] of the current group of temperatures
  // Every process of every irreducible mode and class; with `rows`, the collision rows of the nt temperatures.
  const auto exact_sums = [&](const kernels::FourRateInputs& in, int nt, double* rows) {
    std::vector<kernels::FourSums> sums(static_cast<std::size_t>(nmodes) * 3);
    if (opt.backend == Backend::Cuda) {
#ifdef QUANTA_HAVE_CUDA
      sums = kernels::four_phonon_sums_cuda(mesh, tables, grid.irreducible, bose, in, nmodes, opt.quiet, rows);
#else
      throw Error("four-phonon scattering: the CUDA backend was requested but quanta was built without CUDA");
#endif
      return sums;
    }
    Progress progress("four-phonon scattering", static_cast<std::size_t>(nmodes), opt.quiet);
#pragma omp parallel for schedule(dynamic, 1)
    for (int m = 0; m < nmodes; ++m) {
      const int mode1 = grid.irreducible[m / nb] * nb + m % nb;
      for (int c = 0; c < 3; ++c) {
        const FourClass cls = kClasses[c];
        const auto add_to_row = [&](int mode2, int mode3, int mode4, const double* rates) {
          for (int it = 0; it < nt; ++it) {
            double* row = rows + (static_cast<std::size_t>(it) * nmodes + m) * nfull;
            row[mode4] += rates[it];
            row[mode2] += kernels::collision_sign2(cls) * rates[it];
            row[mode3] += kernels::collision_sign3(cls) * rates[it];
          }
        };
        sums[static_cast<std::size_t>(m) * 3 + c] =
            rows ? mode_sums_cpu(mesh, f, in, mode1, cls, add_to_row) : mode_sums_cpu(mesh, f, in, mode1, cls);
      }
      progress.advance(1);
    }
    progress.finish();
    return sums;
  };
  // FourPhonon's estimate from a sample of every mode and class: the sample's sums times Nq^2 nb^3 / Ns.
  const double candidates = N * N * double(nb) * nb * nb;
  const auto sampled_sums = [&](const kernels::FourRateInputs& in, const kernels::FourSample& sample) {
    std::vector<kernels::FourSums> sums(static_cast<std::size_t>(nmodes) * 3);
    if (opt.backend == Backend::Cuda) {
#ifdef QUANTA_HAVE_CUDA
      sums = kernels::four_phonon_sums_cuda(mesh, tables, grid.irreducible, bose, in, nmodes, opt.quiet, nullptr, &sample);
#endif
    } else {
      Progress progress("four-phonon scattering, sampled", static_cast<std::size_t>(nmodes), opt.quiet);
#pragma omp parallel for schedule(dynamic, 1)
      for (int m = 0; m < nmodes; ++m) {
        for (int c = 0; c < 3; ++c) sums[static_cast<std::size_t>(m) * 3 + c] = sample_sums_cpu(mesh, f, in, grid, m, kClasses[c], sample);
        progress.advance(1);
      }
      progress.finish();
    }
    const double scale = candidates / double(sample.draws);
    for (auto& a : sums) {
      a.count *= scale;
      a.p4 *= scale;
      for (int it = 0; it < in.nT; ++it) {
        a.gamma[it] *= scale;
        a.wp4[it] *= scale;
      }
    }
    return sums;
  };
  // Temperatures in groups of at most kMaxTemperatures4 (each group evaluates every process again).
  for (int t0 = 0; t0 < std::max(nT, 1); t0 += kernels::kMaxTemperatures4) {
    const int nt = std::min(kernels::kMaxTemperatures4, nT - t0);
    bose.assign(static_cast<std::size_t>(std::max(nt, 1)) * nfull, 0.0);
    for (int it = 0; it < nt; ++it)
      for (std::size_t m = 0; m < nfull; ++m)
        if (s.omega[m] != 0) bose[it * nfull + m] = 1.0 / (std::exp(su::hbar * s.omega[m] / su::kB / temperatures[t0 + it]) - 1.0);
    kernels::FourRateInputs in{};
    in.bose = bose.data();
    in.bose_stride = static_cast<long>(nfull);
    in.nT = std::max(nt, 0);
    in.p4_norm = std::sqrt(units::pi) * N * N * N * std::pow(double(nb), 4);
    in.prefactor = su::hbar_p * su::hbar_p * units::pi / 8;
    in.with_rates = !fc4.quadruplets.empty();
    double* rows = collision_rows ? r.rows.data() + static_cast<std::size_t>(t0) * nmodes * nfull : nullptr;  // [nt][nmodes][nfull]
    // The exact sums: everything, or only the counts and P4 (once) when the rates are sampled.
    std::vector<kernels::FourSums> exact, sampled_rates, sampled_space;  // [nmodes][3]
    if (sampling.rates < 0 || (sampling.phase_space < 0 && t0 == 0)) {
      kernels::FourRateInputs counts_only = in;
      counts_only.nT = 0;
      counts_only.with_rates = false;
      exact = exact_sums(sampling.rates < 0 ? in : counts_only, nt, rows);
    }
    if (sampling.rates > 0) sampled_rates = sampled_sums(in, {sampling.rates, sampling.seed, 1 + t0 / kernels::kMaxTemperatures4});
    if (sampling.phase_space > 0 && t0 == 0) {
      kernels::FourRateInputs counts_only = in;
      counts_only.nT = 0;
      counts_only.with_rates = false;
      sampled_space = sampled_sums(counts_only, {sampling.phase_space, sampling.seed, 0});
    }
    if (rows)  // FourPhonon's final factor, as for the rates
      for (std::size_t i = 0; i < static_cast<std::size_t>(nt) * nmodes * nfull; ++i) rows[i] *= rate_units;
    const auto& space_sums = sampling.phase_space > 0 ? sampled_space : exact;
    const auto& rate_sums = sampling.rates > 0 ? sampled_rates : exact;
    for (int m = 0; m < nmodes; ++m)
      for (int c = 0; c < 3; ++c) {
        const std::size_t mc = static_cast<std::size_t>(m) * 3 + c;
        if (t0 == 0) {
          r.count[c][m] = static_cast<std::int64_t>(space_sums[mc].count);  // truncated, as FourPhonon's estimate
          r.phase_space[c][m] = space_sums[mc].p4;
        }
        for (int it = 0; it < nt; ++it) {
          r.per_t[t0 + it].gamma[c][m] = rate_sums[mc].gamma[it] * rate_units;
          r.per_t[t0 + it].wp4[c][m] = rate_sums[mc].wp4[it] / N / N;
        }
      }
  }
  for (const auto& at : r.per_t)
    for (int c = 0; c < 3; ++c)
      for (double g : at.gamma[c])
        if (!std::isfinite(g)) throw Error("four-phonon scattering: a non-finite rate (check the force constants and the spectrum)");
  return r;
}

}  // namespace quanta::phonon
