#pragma once
#include "quanta/core/progress.hpp"
// Host-side tables behind the three-phonon kernel views (kernels/three_phonon.hpp), built once per run and
// copied as they are to the device by the CUDA backend.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "../kernels/three_phonon.hpp"
#include "quanta/phonon/force_constants.hpp"
#include "quanta/phonon/qgrid.hpp"
#include "quanta/phonon/scattering.hpp"
#include "quanta/phonon/spectrum.hpp"

namespace quanta::phonon {

struct Fc3Tables {
  std::vector<int> group_offset, group_atoms, cells;
  std::vector<double> phi;
  std::vector<cplx> roots;
  int roots_n = 1;
  int stride[3] = {1, 1, 1};
};

// Groups the triplets by atom triple (file order kept within a group), divides the masses in and builds the
// table of roots of unity for the mesh.
// The roots of unity e^{2 pi i k / L}, L = lcm(N_1, N_2, N_3), of a mesh and the strides L / N_d: q.R of a
// mesh point and a lattice vector is an exact multiple of 2 pi / L (three- and four-phonon tables).
void fill_mesh_roots(const std::array<int, 3>& mesh, std::vector<cplx>& roots, int& roots_n, int stride[3]);

Fc3Tables make_fc3_tables(const ThirdOrderFc& fc3, const Crystal& crystal, const std::array<int, 3>& mesh);

// Views whose arrays live at the given pointers (the host tables' own, or their device copies). The mesh
// view's omega_max is 1e100 (no cut); the enumeration sets the run's.
kernels::Fc3View make_fc3_view(const Fc3Tables& t, const int* group_offset, const int* group_atoms, const double* phi,
                               const int* cells, const cplx* roots);
kernels::MeshView make_mesh_view(const Crystal& crystal, const QGrid& grid, const Spectrum& s, double scalebroad,
                                 const double* omega, const double* velocity, const cplx* eigenvectors);

// Per irreducible mode ([nlist][nb]): the sums over its absorption and emission processes of the weights
// (kernels::process_weight) and of the rates, before ShengBTE's normalization.
struct RateSums {
  std::vector<double> weight_plus, weight_minus, rate_plus, rate_minus;
};

// A range [m0, m1) of irreducible modes.
struct ModeRange {
  int m0 = 0, m1 = 0;
  int size() const { return m1 - m0; }
};

// CPU enumeration of the processes of irreducible modes [r.m0, r.m1), in two passes that visit the candidates
// in the same order (kernels::visit_item3: ShengBTE's (q', j, k) order, or the sample's draws): the number of
// processes of each mode, then the lists at the given offsets (relative to the range's first process).
// `progress`, when given, advances by one per mode.
std::vector<std::int64_t> count_processes_cpu(const kernels::MeshView& mesh, const std::vector<int>& irreducible,
                                              ModeRange r, bool plus, const kernels::ProcessSample& sample,
                                              Progress* progress = nullptr);
void fill_processes_cpu(const kernels::MeshView& mesh, const std::vector<int>& irreducible, ModeRange r, bool plus,
                        const kernels::ProcessSample& sample, const std::int64_t* offset, std::int32_t* mode2,
                        std::int32_t* mode3, Progress* progress = nullptr);
// The stage's plan, once the processes are counted and before their lists are allocated and their matrix
// elements evaluated: the host memory of the lists (refused with the numbers when the host lacks it) and,
// unless quiet, a note with the counts, that memory and `device_bytes` (0: the CPU backend).
void plan_three_phonon_lists(std::int64_t nplus, std::int64_t nminus, const ScatteringOptions& options, std::size_t device_bytes);
// The kernels' sample of the stage's options.
kernels::ProcessSample process_sample(const ScatteringOptions& options);
// Marks the lists of a sampled stage as such (ProcessList::draws, candidates).
void mark_sampled(ThreePhononProcesses& p, const ScatteringOptions& options, const QGrid& grid, int nb);
// Splits the modes of a list with offsets [nmodes + 1] into consecutive ranges of at most `capacity` processes
// each; throws OutOfDeviceMemory when a single mode has more.
std::vector<ModeRange> split_modes(const std::vector<std::int64_t>& offset, std::int64_t capacity);
// Offsets [n + 1] (exclusive prefix sums) from per-mode counts [n].
std::vector<std::int64_t> offsets_from_counts(const std::vector<std::int64_t>& count);

// Work shared out over MPI ranks (three- and four-phonon stages).
// The owner of each unit of work: the greedy longest-processing-time rule, the costliest unit first, each to
// the rank with the least estimated cost so far (then the fewest units, then the lowest rank). Deterministic,
// so every rank computes the same owners; at most 4/3 of the best split's largest cost (Graham, 1969).
std::vector<int> deal_units(const std::vector<double>& cost, int ranks);
// The note of a stage whose units were dealt (collective: every rank's busy time is gathered):
//   "<stage> over P ranks, U units dealt by estimated cost (the largest x%); per rank units, share of the
//   cost, busy time: 0: u, s%, t s; 1: ..."
std::string deal_note(const std::string& stage, const std::vector<int>& owner, const std::vector<double>& cost, double busy_seconds);
// Under MPI, the three-phonon stage's irreducible modes dealt by estimated cost from their counts (which
// every rank computes, cheaply): a mode costs its processes' matrix elements (`vertex_flop` each, none when
// the stage evaluates none) and the sweep of its candidates that writes its lists (one per sign, about 23
// FLOP-equivalents per candidate on the GPU). The counts of modes held by other ranks are set to 0, so this
// rank's lists hold its own modes only. Returns the owner of every mode, or nothing when not distributed.
std::vector<int> share_out_modes(std::vector<std::int64_t>& count_plus, std::vector<std::int64_t>& count_minus,
                                 const kernels::MeshView& mesh, const std::vector<int>& irreducible,
                                 const kernels::ProcessSample& sample, double vertex_flop, std::vector<double>* cost = nullptr);
// FLOP of one |V|^2 with these tables (kernels/three_phonon.hpp): 216 per atom triple and 116 per triplet.
double vertex_flop(const Fc3Tables& t);

}  // namespace quanta::phonon
