// Four-phonon scattering, as FourPhonon computes it: for each irreducible mode and class (++, +-, --), the
// allowed processes (kernels/four_phonon.hpp), their count, phase space and, at up to eight temperatures in
// one pass, their rates and weighted phase spaces (exact, or FourPhonon's sampling estimator), and the
// collision rows of four_phonon_iteration. Nothing is stored per process: each is enumerated, tested and
// evaluated where it is found, on the CPU (OpenMP over modes) or the GPU (four_phonon_cuda.cu, its device
// copies made once per stage). The work goes in units (a pass over a block of modes), checkpointed as they
// complete and dealt over MPI ranks by their estimated cost.
#include <algorithm>
#include <cstdio>
#include <cmath>
#include <map>
#include <memory>
#include <numeric>
#include <optional>
#include <string>

#include "../kernels/four_phonon.hpp"
#include "quanta/core/comm.hpp"
#include "quanta/core/error.hpp"
#include "quanta/core/host_memory.hpp"
#include "quanta/core/progress.hpp"
#include "quanta/core/timer.hpp"
#include "quanta/core/units.hpp"
#include "quanta/phonon/scattering.hpp"
#include "four_phonon_checkpoint.hpp"
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

// The first-Brillouin-zone image of every mesh point, as FourPhonon's ws_cell finds it: among m + N g for
// g in [-3, 3]^3 the shortest in Cartesian length, the first found on a tie (g = 0 first, then g_1 outermost);
// integer coordinates in units of 1/N_d ([nptk][3]).
std::vector<int> zone_images(const Crystal& crystal, const QGrid& grid) {
  std::vector<int> ws(3 * static_cast<std::size_t>(grid.nptk));
  const auto length2 = [&](const int x[3]) {
    double v[3] = {0, 0, 0};
    for (int i = 0; i < 3; ++i)
      for (int d = 0; d < 3; ++d) v[d] += crystal.reciprocal[i][d] * x[i] / grid.n[i];
    return v[0] * v[0] + v[1] * v[1] + v[2] * v[2];
  };
  for (int q = 0; q < grid.nptk; ++q) {
    int m[3];
    kernels::mesh_coords(q, grid.n.data(), m);
    int best[3] = {m[0], m[1], m[2]};
    double shortest = length2(best);
    for (int g0 = -3; g0 <= 3; ++g0)
      for (int g1 = -3; g1 <= 3; ++g1)
        for (int g2 = -3; g2 <= 3; ++g2) {
          const int x[3] = {m[0] + g0 * grid.n[0], m[1] + g1 * grid.n[1], m[2] + g2 * grid.n[2]};
          const double l = length2(x);
          if (l < shortest) {
            shortest = l;
            for (int d = 0; d < 3; ++d) best[d] = x[d];
          }
        }
    for (int d = 0; d < 3; ++d) ws[3 * static_cast<std::size_t>(q) + d] = best[d];
  }
  return ws;
}

// Modes per unit of work (checkpoint record, MPI share).
constexpr int kBlockModes = 16;
constexpr std::size_t kSumDoubles = sizeof(kernels::FourSums) / sizeof(double);
static_assert(sizeof(kernels::FourSums) == kSumDoubles * sizeof(double), "FourSums travels as doubles");

// One pass over the irreducible modes: the exact sums at the temperatures t0..t0+nt-1 (with the collision
// rows when asked), or only the exact counts and P4, or a sample's sums. `rates`: it gives the rates and WP4
// at its temperatures; `space`: the counts and P4.
struct Pass {
  int t0 = 0, nt = 0;
  bool rates = false, space = false, rows = false, sampled = false;
  kernels::ProcessSample sample{};
};

// The passes of a run: per group of up to kMaxTemperatures4 temperatures, the exact rates or a sample of
// them; the counts and P4 from the first exact pass, from a pass of their own (rates sampled), or from a
// sample. The samples' purposes (kernels::sample_stream): 0 the counts and P4, 1 + g the rates of temperature
// group g.
std::vector<Pass> plan_passes(int nT, const FourPhononSampling& sampling, bool collision_rows) {
  std::vector<Pass> passes;
  for (int t0 = 0; t0 < std::max(nT, 1); t0 += kernels::kMaxTemperatures4) {
    Pass p;
    p.t0 = t0;
    p.nt = std::max(0, std::min(kernels::kMaxTemperatures4, nT - t0));
    p.rates = true;
    if (sampling.rates > 0) {
      p.sampled = true;
      p.sample = {sampling.rates, sampling.seed, 1 + t0 / kernels::kMaxTemperatures4};
    } else {
      p.space = t0 == 0 && sampling.phase_space < 0;
      p.rows = collision_rows;
    }
    passes.push_back(p);
  }
  if (sampling.rates > 0 && sampling.phase_space < 0) {
    Pass p;
    p.space = true;
    passes.push_back(p);
  }
  if (sampling.phase_space > 0) {
    Pass p;
    p.space = p.sampled = true;
    p.sample = {sampling.phase_space, sampling.seed, 0};
    passes.push_back(p);
  }
  return passes;
}

// The unscaled sums of one irreducible mode (index m) and class from a sample (kernels::visit_draw4).
kernels::FourSums sample_sums_cpu(const kernels::MeshView& mesh, const kernels::Fc4View& f, const kernels::FourRateInputs& in,
                                  const QGrid& grid, int m, FourClass c, const kernels::ProcessSample& sample) {
  kernels::FourSums acc{};
  const int mode1 = grid.irreducible[m / mesh.nb] * mesh.nb + m % mesh.nb;
  if (!kernels::scatters(mesh, mesh.omega[mode1])) return acc;
  const unsigned long long stream = kernels::sample_stream(sample.seed, sample.purpose, m, static_cast<int>(c));
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

// The probe's hits of every irreducible mode and class ([nmodes][3]): the processes among `probe.draws` draws
// (sample_sums_cpu counting only). Integers, so that every rank has the very same numbers.
std::vector<long long> probe_hits(const kernels::MeshView& mesh, const kernels::Fc4View& f, const QGrid& grid, int nmodes,
                                  const kernels::ProcessSample& probe) {
  kernels::FourRateInputs counts_only{};
  counts_only.p4_norm = 1;
  std::vector<long long> hits(static_cast<std::size_t>(nmodes) * 3);
#pragma omp parallel for schedule(dynamic, 1)
  for (int m = 0; m < nmodes; ++m)
    for (int c = 0; c < 3; ++c)
      hits[3 * static_cast<std::size_t>(m) + c] = static_cast<long long>(sample_sums_cpu(mesh, f, counts_only, grid, m, kClasses[c], probe).count);
  return hits;
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
                                            const FourPhononSampling& sampling, const FourPhononCheckpointSpec* checkpoint) {
  kernels::MeshView mesh = make_mesh_view(crystal, grid, s, scalebroad, s.omega.data(), s.velocity.data(), s.eigenvectors.data());
  mesh.omega_max = opt.omega_max;
  std::vector<double> width(4 * s.omega.size());
  for (std::size_t mode = 0; mode < s.omega.size(); ++mode) kernels::width_terms(mesh, static_cast<int>(mode), &width[4 * mode]);
  mesh.width_terms = width.data();
  const std::vector<int> ws = zone_images(crystal, grid);
  mesh.ws_image = ws.data();
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
  // The CUDA backend's device copies, once for the stage: a GPU without the shared memory for these constants
  // is refused here, before any work.
#ifdef QUANTA_HAVE_CUDA
  std::optional<kernels::FourPhononDevice> device;
  if (opt.backend == Backend::Cuda) device.emplace(mesh, tables, grid.irreducible);
#else
  if (opt.backend == Backend::Cuda) throw Error("four-phonon scattering: the CUDA backend was requested but quanta was built without CUDA");
#endif
  // The number of processes, before the expensive stage: the sampling estimator with 4096 draws per mode and
  // class (a few percent; well under a second on the CPU at 16^3). Under MPI its hits also weigh the units.
  const Comm& comm = Comm::world();
  const double candidates = N * N * double(nb) * nb * nb;
  const kernels::ProcessSample probe{4096, 0x5eedull, 1000};
  std::vector<long long> hits;  // [nmodes][3]
  if (!opt.quiet || comm.distributed()) hits = probe_hits(mesh, f, grid, nmodes, probe);
  if (!opt.quiet) {
    const double estimate = static_cast<double>(std::accumulate(hits.begin(), hits.end(), 0LL));
    char line[160];
    std::snprintf(line, sizeof line, "four-phonon stage: about %.2e processes (estimated from %lld draws per mode and class)",
                  estimate * candidates / double(probe.draws), probe.draws);
    note("phonon", false, line);
  }

  FourPhononScattering r;
  for (int c = 0; c < 3; ++c) {
    r.count[c].assign(nmodes, 0);
    r.phase_space[c].assign(nmodes, 0.0);
  }
  r.per_t.resize(nT);
  for (auto& at : r.per_t)
    for (int c = 0; c < 3; ++c) {
      at.gamma[c].assign(nmodes, 0.0);
      at.gamma_umklapp[c].assign(nmodes, 0.0);
      at.wp4[c].assign(nmodes, 0.0);
    }
  if (collision_rows) {
    r.nfull = nfull;
    r.rows.assign(static_cast<std::size_t>(nT) * nmodes * nfull, 0.0);
  }

  // The stage's work: passes over the irreducible modes, each in blocks of kBlockModes modes.
  const std::vector<Pass> passes = plan_passes(nT, sampling, collision_rows);
  const int nblocks = (nmodes + kBlockModes - 1) / kBlockModes;
  std::vector<std::vector<kernels::FourSums>> sums(passes.size(), std::vector<kernels::FourSums>(static_cast<std::size_t>(nmodes) * 3));
  std::vector<double> bose;  // [nt][nfull] of the current pass's temperatures
  int bose_t0 = -1;
  // One unit: the pass's sums of the block's modes (and its collision rows), as a flat payload.
  const auto compute = [&](const Pass& pass, int first, int last) {
    if (pass.t0 != bose_t0) {
      bose.assign(static_cast<std::size_t>(std::max(pass.nt, 1)) * nfull, 0.0);
      for (int it = 0; it < pass.nt; ++it)
        for (std::size_t m = 0; m < nfull; ++m)
          if (s.omega[m] != 0) bose[it * nfull + m] = 1.0 / (std::exp(su::hbar * s.omega[m] / su::kB / temperatures[pass.t0 + it]) - 1.0);
      bose_t0 = pass.t0;
#ifdef QUANTA_HAVE_CUDA
      if (device) device->set_occupations(bose);
#endif
    }
    kernels::FourRateInputs in{};
    in.bose = bose.data();
    in.bose_stride = static_cast<long>(nfull);
    in.nT = pass.rates ? pass.nt : 0;
    in.p4_norm = std::sqrt(units::pi) * N * N * N * std::pow(double(nb), 4);
    in.prefactor = su::hbar_p * su::hbar_p * units::pi / 8;
    in.with_rates = pass.rates && !fc4.quadruplets.empty();
    const int n = last - first;
    const std::size_t nsums = static_cast<std::size_t>(n) * 3 * kSumDoubles;
    std::vector<double> payload(nsums + (pass.rows ? static_cast<std::size_t>(pass.nt) * n * nfull : 0), 0.0);
    auto* block_sums = reinterpret_cast<kernels::FourSums*>(payload.data());
    double* rows = pass.rows ? payload.data() + nsums : nullptr;  // [nt][n][nfull]
    const kernels::ProcessSample* sample = pass.sampled ? &pass.sample : nullptr;
#ifdef QUANTA_HAVE_CUDA
    if (device) {
      const auto d = device->sums(in, first, last, true, rows, sample);
      std::copy(d.begin(), d.end(), block_sums);
      return payload;
    }
#endif
#pragma omp parallel for schedule(dynamic, 1)
    for (int m = first; m < last; ++m) {
      const int mode1 = grid.irreducible[m / nb] * nb + m % nb;
      for (int c = 0; c < 3; ++c) {
        const FourClass cls = kClasses[c];
        kernels::FourSums& out = block_sums[static_cast<std::size_t>(m - first) * 3 + c];
        if (sample) {
          out = sample_sums_cpu(mesh, f, in, grid, m, cls, *sample);
        } else if (rows) {
          out = mode_sums_cpu(mesh, f, in, mode1, cls, [&](int mode2, int mode3, int mode4, const double* rates) {
            for (int it = 0; it < pass.nt; ++it) {
              double* row = rows + (static_cast<std::size_t>(it) * n + (m - first)) * nfull;
              row[mode4] += rates[it];
              row[mode2] += kernels::collision_sign2(cls) * rates[it];
              row[mode3] += kernels::collision_sign3(cls) * rates[it];
            }
          });
        } else {
          out = mode_sums_cpu(mesh, f, in, mode1, cls);
        }
      }
    }
    return payload;
  };
  // A unit's payload into the stage's sums and rows.
  const auto place = [&](std::size_t p, int block, const std::vector<double>& payload) {
    const Pass& pass = passes[p];
    const int first = block * kBlockModes, n = std::min(kBlockModes, nmodes - first);
    const std::size_t nsums = static_cast<std::size_t>(n) * 3 * kSumDoubles;
    if (payload.size() != nsums + (pass.rows ? static_cast<std::size_t>(pass.nt) * n * nfull : 0))
      throw Error("four-phonon checkpoint: a unit of the wrong size (pass " + std::to_string(p) + ", block " + std::to_string(block) + ")");
    std::copy_n(reinterpret_cast<const kernels::FourSums*>(payload.data()), static_cast<std::size_t>(n) * 3, &sums[p][static_cast<std::size_t>(first) * 3]);
    if (pass.rows)
      for (int it = 0; it < pass.nt; ++it)
        std::copy_n(payload.data() + nsums + static_cast<std::size_t>(it) * n * nfull, static_cast<std::size_t>(n) * nfull,
                    r.rows.data() + (static_cast<std::size_t>(pass.t0 + it) * nmodes + first) * nfull);
  };

  // Units done by an earlier run (the root takes them in), then the missing ones, each checkpointed when
  // complete.
  std::unique_ptr<FourPhononCheckpoint> ckpt;
  if (checkpoint) ckpt = std::make_unique<FourPhononCheckpoint>(checkpoint->dir, checkpoint->fingerprint, checkpoint->resume, opt.quiet);
  std::vector<std::pair<int, int>> missing;
  for (int p = 0; p < static_cast<int>(passes.size()); ++p)
    for (int b = 0; b < nblocks; ++b) {
      if (ckpt && ckpt->done().count({p, b})) {
        if (comm.root()) place(static_cast<std::size_t>(p), b, ckpt->done().at({p, b}));
        continue;
      }
      missing.emplace_back(p, b);
    }
  // Under MPI, the missing units dealt by their estimated cost in FLOP (docs/performance.md, "FLOP per
  // process"), since modes differ by orders of magnitude in processes. Per mode and class: its processes,
  // estimated from the probe's hits, at 80 FLOP per group of constants + 216 (2.9 kFLOP for silicon's 34
  // groups), and in a pass with rates stage 1 for each mode 2 with omega != 0 at 612 FLOP per quadruplet (403
  // kFLOP for silicon's 658). A sample costs its draws' share of that: each process drawn has its own stage 1.
  // The selection counts too: about 34 FLOP-equivalents per candidate tested (on the GPU at 16^3 it costs
  // about as much as the evaluation, with 85 candidates per process), over all Nq^2 nb^3 candidates for +-
  // and about half of them for ++ and -- (q3 >= q2).
  std::vector<double> cost(missing.size(), 0.0);
  std::vector<int> owner(missing.size(), 0);
  if (comm.distributed()) {
    const double process_flop = 80.0 * f.ngroups + 216, stage1_flop = 612.0 * static_cast<double>(fc4.quadruplets.size()),
                 select_flop = 34;
    const double nonzero = static_cast<double>(std::count_if(s.omega.begin(), s.omega.end(), [](double w) { return w != 0; }));
    for (std::size_t u = 0; u < missing.size(); ++u) {
      const Pass& pass = passes[missing[u].first];
      const int first = missing[u].second * kBlockModes, last = std::min(nmodes, first + kBlockModes);
      for (int m = first; m < last; ++m) {
        if (!kernels::scatters(mesh, mesh.omega[grid.irreducible[m / nb] * nb + m % nb])) continue;
        for (int c = 0; c < 3; ++c) {
          const double fraction = static_cast<double>(hits[3 * static_cast<std::size_t>(m) + c]) / double(probe.draws);
          const double scanned = c == 1 ? candidates : candidates / 2;
          cost[u] += pass.sampled ? double(pass.sample.draws) * (fraction * (process_flop + (pass.rates ? stage1_flop : 0)) + select_flop)
                                  : fraction * candidates * process_flop + (pass.rates ? nonzero * stage1_flop : 0) + scanned * select_flop;
        }
      }
    }
    owner = deal_units(cost, comm.size());
  }
  std::vector<std::pair<int, int>> mine;
  for (std::size_t u = 0; u < missing.size(); ++u)
    if (owner[u] == comm.rank()) mine.push_back(missing[u]);
  Progress progress(comm.distributed() ? "four-phonon scattering (this rank's blocks of modes)" : "four-phonon scattering (blocks of modes)",
                    mine.size(), opt.quiet);
  WallTimer busy;
  for (const auto& [p, b] : mine) {
    const int first = b * kBlockModes, last = std::min(nmodes, first + kBlockModes);
    const std::vector<double> payload = compute(passes[p], first, last);
    place(static_cast<std::size_t>(p), b, payload);
    if (ckpt) ckpt->append(p, b, payload);
    progress.advance(1);
  }
  progress.finish();
  if (comm.distributed()) {  // each unit is held by one rank, zeros elsewhere: the sum joins them
    // Per rank: its units, their share of the estimated cost (every rank knows the owners) and its busy time.
    const std::string line = deal_note("four-phonon stage", owner, cost, busy.seconds());
    note("phonon", opt.quiet || !comm.root(), line);
    for (auto& ps : sums) comm.sum(reinterpret_cast<double*>(ps.data()), ps.size() * kSumDoubles);
    if (!r.rows.empty()) comm.sum(r.rows.data(), r.rows.size());
  }

  // FourPhonon's final factors; a sample's sums scaled by the candidates over the draws.
  for (std::size_t p = 0; p < passes.size(); ++p) {
    const Pass& pass = passes[p];
    const double scale = pass.sampled ? candidates / double(pass.sample.draws) : 1.0;
    for (int m = 0; m < nmodes; ++m)
      for (int c = 0; c < 3; ++c) {
        const kernels::FourSums& a = sums[p][static_cast<std::size_t>(m) * 3 + c];
        if (pass.space) {
          r.count[c][m] = static_cast<std::int64_t>(a.count * scale);  // truncated, as FourPhonon's estimate
          r.phase_space[c][m] = a.p4 * scale;
        }
        if (pass.rates)
          for (int it = 0; it < pass.nt; ++it) {
            r.per_t[pass.t0 + it].gamma[c][m] = a.gamma[it] * scale * rate_units;
            r.per_t[pass.t0 + it].gamma_umklapp[c][m] = a.gamma_umklapp[it] * scale * rate_units;
            r.per_t[pass.t0 + it].wp4[c][m] = a.wp4[it] * scale / N / N;
          }
      }
  }
  for (double& x : r.rows) {
    x *= rate_units;  // FourPhonon's final factor, as for the rates
    if (!std::isfinite(x)) throw Error("four-phonon scattering: a non-finite collision-row entry (check the force constants and the spectrum)");
  }
  for (const auto& at : r.per_t)
    for (int c = 0; c < 3; ++c)
      for (double g : at.gamma[c])
        if (!std::isfinite(g)) throw Error("four-phonon scattering: a non-finite rate (check the force constants and the spectrum)");
  return r;
}

}  // namespace quanta::phonon
