// Three-phonon processes: tables, enumeration and matrix elements on the CPU, and the dispatch to the
// CUDA backend (kernels/cuda/three_phonon_cuda.cu), which uses the same kernels/three_phonon.hpp functions.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>

#include "../kernels/cuda_three_phonon.hpp"
#include "quanta/core/comm.hpp"
#include "quanta/core/error.hpp"
#include "quanta/core/host_memory.hpp"
#include "quanta/core/timer.hpp"
#include "quanta/core/units.hpp"
#include "quanta/phonon/scattering.hpp"
#include "three_phonon_setup.hpp"

namespace quanta::phonon {

Fc3Tables make_fc3_tables(const ThirdOrderFc& fc3, const Crystal& crystal, const std::array<int, 3>& mesh) {
  Fc3Tables t;
  const int nat = crystal.natoms;
  std::vector<std::vector<int>> by_group(static_cast<std::size_t>(nat) * nat * nat);
  for (std::size_t i = 0; i < fc3.triplets.size(); ++i) {
    const auto& a = fc3.triplets[i].atom;
    by_group[(a[0] * nat + a[1]) * nat + a[2]].push_back(static_cast<int>(i));
  }
  t.group_offset.push_back(0);
  for (std::size_t g = 0; g < by_group.size(); ++g) {
    if (by_group[g].empty()) continue;
    const int A = static_cast<int>(g) / (nat * nat), B = (static_cast<int>(g) / nat) % nat, C = static_cast<int>(g) % nat;
    const double inv_mass = 1.0 / std::sqrt(crystal.masses[A] * crystal.masses[B] * crystal.masses[C]);
    t.group_atoms.insert(t.group_atoms.end(), {A, B, C});
    for (int i : by_group[g]) {
      const auto& tr = fc3.triplets[i];
      for (double x : tr.phi) t.phi.push_back(x * inv_mass);
      t.cells.insert(t.cells.end(), {tr.cell_j[0], tr.cell_j[1], tr.cell_j[2], tr.cell_k[0], tr.cell_k[1], tr.cell_k[2]});
    }
    t.group_offset.push_back(t.group_offset.back() + static_cast<int>(by_group[g].size()));
  }
  fill_mesh_roots(mesh, t.roots, t.roots_n, t.stride);
  return t;
}

void fill_mesh_roots(const std::array<int, 3>& mesh, std::vector<cplx>& roots, int& roots_n, int stride[3]) {
  roots_n = std::lcm(std::lcm(mesh[0], mesh[1]), mesh[2]);
  for (int d = 0; d < 3; ++d) stride[d] = roots_n / mesh[d];
  roots.resize(roots_n);
  for (int k = 0; k < roots_n; ++k) {
    const double x = 2.0 * units::pi * k / roots_n;
    roots[k] = cplx(std::cos(x), std::sin(x));
  }
}

kernels::Fc3View make_fc3_view(const Fc3Tables& t, const int* group_offset, const int* group_atoms, const double* phi,
                               const int* cells, const cplx* roots) {
  kernels::Fc3View v{};
  v.ngroups = static_cast<int>(t.group_atoms.size() / 3);
  v.group_offset = group_offset;
  v.group_atoms = group_atoms;
  v.phi = phi;
  v.cells = cells;
  v.roots_n = t.roots_n;
  for (int d = 0; d < 3; ++d) v.stride[d] = t.stride[d];
  v.roots = roots;
  return v;
}

kernels::MeshView make_mesh_view(const Crystal& crystal, const QGrid& grid, const Spectrum& s, double scalebroad,
                                 const double* omega, const double* velocity, const cplx* eigenvectors) {
  kernels::MeshView v{};
  for (int d = 0; d < 3; ++d) v.n[d] = grid.n[d];
  v.nptk = grid.nptk;
  v.nb = s.nb;
  v.omega = omega;
  v.velocity = velocity;
  v.eigenvectors = eigenvectors;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) v.reciprocal[i][j] = crystal.reciprocal[i][j];
  v.scalebroad = scalebroad;
  v.omega_max = 1e100;
  return v;
}

namespace {

// Calls emit(mode2, mode3) for each allowed process of irreducible mode m, in ShengBTE's (q', j, k) order
// (exact), or in the order of the mode's draws (sampled).
template <class Emit>
void visit_processes(const kernels::MeshView& mesh, const std::vector<int>& irreducible, int m, bool plus,
                     const kernels::ProcessSample& sample, Emit&& emit) {
  const int nb = mesh.nb;
  const int q = irreducible[m / nb];
  const double omega = mesh.omega[static_cast<long>(q) * nb + m % nb];
  if (!kernels::scatters(mesh, omega)) return;
  const unsigned long long stream = kernels::stream3(sample, m, plus);
  for (long long item = 0, n = kernels::items3(mesh, sample); item < n; ++item)
    kernels::visit_item3(mesh, q, omega, plus, sample, stream, item, emit);
}

}  // namespace

std::vector<std::int64_t> count_processes_cpu(const kernels::MeshView& mesh, const std::vector<int>& irreducible,
                                              ModeRange r, bool plus, const kernels::ProcessSample& sample, Progress* progress) {
  std::vector<std::int64_t> count(r.size(), 0);
#pragma omp parallel for schedule(dynamic, 1)
  for (int m = r.m0; m < r.m1; ++m) {
    std::int64_t n = 0;
    visit_processes(mesh, irreducible, m, plus, sample, [&](int, int) { ++n; });
    count[m - r.m0] = n;
    if (progress) progress->advance();
  }
  return count;
}

void fill_processes_cpu(const kernels::MeshView& mesh, const std::vector<int>& irreducible, ModeRange r, bool plus,
                        const kernels::ProcessSample& sample, const std::int64_t* offset, std::int32_t* mode2, std::int32_t* mode3,
                        Progress* progress) {
#pragma omp parallel for schedule(dynamic, 1)
  for (int m = r.m0; m < r.m1; ++m) {
    std::int64_t p = offset[m - r.m0];
    if (offset[m - r.m0 + 1] > p)  // else no processes, or a mode another MPI rank holds
      visit_processes(mesh, irreducible, m, plus, sample, [&](int a, int b) {
        mode2[p] = a;
        mode3[p] = b;
        ++p;
      });
    if (progress) progress->advance();
  }
}

// Offsets [n + 1] from per-mode counts [n].
std::vector<std::int64_t> offsets_from_counts(const std::vector<std::int64_t>& count) {
  std::vector<std::int64_t> offset(count.size() + 1, 0);
  std::partial_sum(count.begin(), count.end(), offset.begin() + 1);
  return offset;
}

std::vector<int> deal_units(const std::vector<double>& cost, int ranks) {
  std::vector<int> order(cost.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return cost[a] > cost[b]; });
  std::vector<double> load(ranks, 0.0);
  std::vector<int> units(ranks, 0), owner(cost.size());
  for (int u : order) {
    int r = 0;
    for (int k = 1; k < ranks; ++k)
      if (load[k] < load[r] || (load[k] == load[r] && units[k] < units[r])) r = k;
    owner[u] = r;
    load[r] += cost[u];
    ++units[r];
  }
  return owner;
}

std::string deal_note(const std::string& stage, const std::vector<int>& owner, const std::vector<double>& cost, double busy_seconds) {
  const Comm& comm = Comm::world();
  std::vector<double> seconds(comm.size(), 0.0);
  seconds[comm.rank()] = busy_seconds;
  comm.sum(seconds.data(), seconds.size());
  std::vector<int> units(comm.size(), 0);
  std::vector<double> load(comm.size(), 0.0);
  for (std::size_t u = 0; u < owner.size(); ++u) {
    ++units[owner[u]];
    load[owner[u]] += cost[u];
  }
  const double total = std::accumulate(cost.begin(), cost.end(), 0.0);
  const double largest = cost.empty() ? 0.0 : *std::max_element(cost.begin(), cost.end());
  const auto percent = [&](double x) { return total > 0 ? 100 * x / total : 0.0; };
  char part[200];
  std::snprintf(part, sizeof part, "%s over %d ranks, %zu units dealt by estimated cost (the largest %.1f%%)", stage.c_str(), comm.size(),
                owner.size(), percent(largest));
  std::string line = std::string(part) + "; per rank units, share of the cost, busy time:";
  for (int k = 0; k < comm.size(); ++k) {
    std::snprintf(part, sizeof part, "%s %d: %d, %.1f%%, %.2f s", k ? ";" : "", k, units[k], percent(load[k]), seconds[k]);
    line += part;
  }
  return line;
}

double vertex_flop(const Fc3Tables& t) {
  return 216.0 * static_cast<double>(t.group_atoms.size() / 3) + 116.0 * static_cast<double>(t.phi.size() / 27) + 3;
}

std::vector<int> share_out_modes(std::vector<std::int64_t>& count_plus, std::vector<std::int64_t>& count_minus,
                                 const kernels::MeshView& mesh, const std::vector<int>& irreducible,
                                 const kernels::ProcessSample& sample, double flop_per_vertex, std::vector<double>* cost_out) {
  const Comm& comm = Comm::world();
  if (!comm.distributed()) return {};
  const int nb = mesh.nb, nmodes = static_cast<int>(count_plus.size());
  const double candidates = kernels::sampled(sample) ? double(sample.draws) : double(mesh.nptk) * nb * nb;
  constexpr double kSweepFlop = 23;  // per candidate tested (GPU enumeration against the vertex kernel, docs/performance.md)
  std::vector<double> cost(nmodes, 0.0);
  for (int m = 0; m < nmodes; ++m)
    if (kernels::scatters(mesh, mesh.omega[static_cast<long>(irreducible[m / nb]) * nb + m % nb]))
      cost[m] = double(count_plus[m] + count_minus[m]) * flop_per_vertex + 2 * candidates * kSweepFlop;
  std::vector<int> owner = deal_units(cost, comm.size());
  for (int m = 0; m < nmodes; ++m)
    if (owner[m] != comm.rank()) count_plus[m] = count_minus[m] = 0;
  if (cost_out) *cost_out = std::move(cost);
  return owner;
}

bool ThreePhononProcesses::holds(int m) const { return owner.empty() || owner[m] == Comm::world().rank(); }

std::int64_t joined_total_count(const ProcessList& l) {
  double n = static_cast<double>(l.total_count());  // exact below 2^53
  Comm::world().sum(&n, 1);
  return static_cast<std::int64_t>(n);
}

std::vector<ModeRange> split_modes(const std::vector<std::int64_t>& offset, std::int64_t capacity) {
  std::vector<ModeRange> out;
  const int nmodes = static_cast<int>(offset.size()) - 1;
  int m0 = 0;
  while (m0 < nmodes) {
    int m1 = m0 + 1;
    if (offset[m1] - offset[m0] > capacity)
      throw OutOfDeviceMemory("three-phonon scattering: one mode has " + std::to_string(offset[m1] - offset[m0]) +
                              " processes, more than the " + std::to_string(capacity) + " the device memory budget holds");
    while (m1 < nmodes && offset[m1 + 1] - offset[m0] <= capacity) ++m1;
    out.push_back({m0, m1});
    m0 = m1;
  }
  return out;
}

namespace {

// `progress` advances by one per mode, weighted by the mode's number of processes.
void vertices_cpu(const kernels::MeshView& mesh, const kernels::Fc3View& fc, const std::vector<int>& irreducible,
                  ProcessList& list, bool plus, Progress& progress) {
  const int nb = mesh.nb;
  const int nmodes = static_cast<int>(list.offset.size()) - 1;
  list.v2.resize(list.size());
#pragma omp parallel for schedule(dynamic, 1)
  for (int m = 0; m < nmodes; ++m) {
    const int mode1 = irreducible[m / nb] * nb + m % nb;
    for (std::int64_t p = list.offset[m]; p < list.offset[m + 1]; ++p)
      list.v2[p] = kernels::vertex2(mesh, fc, mode1, list.mode2[p], list.mode3[p], plus);
    progress.advance(1, static_cast<double>(list.offset[m + 1] - list.offset[m]));
  }
}

}  // namespace

void plan_three_phonon_lists(std::int64_t nplus, std::int64_t nminus, const ScatteringOptions& opt, std::size_t device_bytes) {
  // Per process: modes 2 and 3 (int32 each) and |V|^2 (double).
  const std::size_t per_process = 2 * sizeof(std::int32_t) + (opt.matrix_elements ? sizeof(double) : 0);
  const std::size_t bytes = bytes_of(per_process, static_cast<std::size_t>(nplus + nminus));
  const char* what = opt.sample.draws > 0 ? "sampled" : "allowed";
  require_host_memory(bytes, "the three-phonon process lists (" + std::to_string(nplus + nminus) + " " + what + " processes)");
  if (opt.quiet) return;
  char line[256];
  std::snprintf(line, sizeof line, "three-phonon stage: %lld absorption and %lld emission processes %s%s; lists %.1f MiB of host memory%s",
                static_cast<long long>(nplus), static_cast<long long>(nminus), opt.sample.draws > 0 ? "in the sample" : "allowed",
                Comm::world().distributed() ? " in this rank's modes" : "",
                double(bytes) / (1 << 20),
                device_bytes ? (", about " + std::to_string(device_bytes >> 20) + " MiB on the device").c_str() : "");
  note("phonon", false, line);
}

kernels::ProcessSample process_sample(const ScatteringOptions& opt) {
  return {opt.sample.draws, opt.sample.seed, opt.sample.purpose};
}

void mark_sampled(ThreePhononProcesses& p, const ScatteringOptions& opt, const QGrid& grid, int nb) {
  if (opt.sample.draws <= 0) return;
  for (ProcessList* l : {&p.plus, &p.minus}) {
    l->draws = opt.sample.draws;
    l->candidates = double(grid.nptk) * nb * nb;
  }
}

ScatteringStrategy parse_strategy(const std::string& s) {
  if (s == "auto") return ScatteringStrategy::Auto;
  if (s == "all-modes") return ScatteringStrategy::AllModes;
  if (s == "batched") return ScatteringStrategy::Batched;
  throw Error("scattering strategy: found '" + s + "', expected auto, all-modes or batched");
}

Enumeration parse_enumeration(const std::string& s) {
  if (s == "auto") return Enumeration::Auto;
  if (s == "cpu") return Enumeration::Cpu;
  if (s == "gpu") return Enumeration::Gpu;
  throw Error("process enumeration: found '" + s + "', expected auto, cpu or gpu");
}

ThreePhononProcesses three_phonon_processes(const Crystal& crystal, const QGrid& grid, const Spectrum& s,
                                            const ThirdOrderFc& fc3, double scalebroad, const ScatteringOptions& opt,
                                            ScatteringStats* stats) {
  WallTimer total;
  const Fc3Tables tables = make_fc3_tables(fc3, crystal, grid.n);
  ThreePhononProcesses out;
  ScatteringStats st;
  if (opt.backend == Backend::Cuda) {
#ifdef QUANTA_HAVE_CUDA
    out = kernels::three_phonon_processes_cuda(crystal, grid, s, tables, scalebroad, opt, st);
#else
    throw Error("three-phonon scattering: the CUDA backend was requested but quanta was built without CUDA");
#endif
  } else {
    auto mesh = make_mesh_view(crystal, grid, s, scalebroad, s.omega.data(), s.velocity.data(), s.eigenvectors.data());
    mesh.omega_max = opt.omega_max;
    const auto fc = make_fc3_view(tables, tables.group_offset.data(), tables.group_atoms.data(), tables.phi.data(),
                                  tables.cells.data(), tables.roots.data());
    const ModeRange all{0, grid.nlist() * s.nb};
    const kernels::ProcessSample sample = process_sample(opt);
    WallTimer t;
    {
      // Every mode costs the same to enumerate (a sweep of the mesh): two passes for each of + and -.
      Progress progress(kernels::sampled(sample) ? "three-phonon processes (sampled)" : "three-phonon processes (enumeration)", 4 * static_cast<std::size_t>(all.size()), opt.quiet);
      std::vector<std::int64_t> count_plus = count_processes_cpu(mesh, grid.irreducible, all, true, sample, &progress);
      std::vector<std::int64_t> count_minus = count_processes_cpu(mesh, grid.irreducible, all, false, sample, &progress);
      out.owner = share_out_modes(count_plus, count_minus, mesh, grid.irreducible, sample,
                                  opt.matrix_elements ? vertex_flop(tables) : 0, &st.mode_cost);
      out.plus.offset = offsets_from_counts(count_plus);
      out.minus.offset = offsets_from_counts(count_minus);
      plan_three_phonon_lists(out.plus.offset.back(), out.minus.offset.back(), opt, 0);
      for (bool plus : {true, false}) {
        ProcessList& l = plus ? out.plus : out.minus;
        l.mode2.resize(l.offset.back());
        l.mode3.resize(l.offset.back());
        fill_processes_cpu(mesh, grid.irreducible, all, plus, sample, l.offset.data(), l.mode2.data(), l.mode3.data(), &progress);
      }
      progress.finish();
    }
    st.seconds_enumerate = t.seconds();
    t.reset();
    if (opt.matrix_elements) {
      // A mode's matrix elements cost in proportion to its number of processes, which varies by orders of
      // magnitude between modes.
      Progress progress("three-phonon matrix elements", 2 * static_cast<std::size_t>(all.size()), opt.quiet);
      progress.set_total_work(static_cast<double>(out.plus.size() + out.minus.size()));
      vertices_cpu(mesh, fc, grid.irreducible, out.plus, true, progress);
      vertices_cpu(mesh, fc, grid.irreducible, out.minus, false, progress);
      progress.finish();
    }
    st.seconds_vertex = t.seconds();
    st.strategy = "cpu";
    st.enumeration = "cpu";
    st.batches = 1;
  }
  mark_sampled(out, opt, grid, s.nb);
  st.seconds_total = total.seconds();
  if (!out.owner.empty())  // under MPI: how the modes were dealt and what each rank's share took
    note("phonon", opt.quiet || !Comm::world().root(),
         deal_note(kernels::sampled(process_sample(opt)) ? "three-phonon stage (sampled)" : "three-phonon stage", out.owner, st.mode_cost,
                   st.seconds_total));
  if (stats) *stats = st;
  return out;
}

}  // namespace quanta::phonon
