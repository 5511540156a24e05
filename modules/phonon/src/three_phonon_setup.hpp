#pragma once
#include "quanta/core/progress.hpp"
// Host-side tables behind the three-phonon kernel views (kernels/three_phonon.hpp), built once per run and
// copied as they are to the device by the CUDA backend.
#include <array>
#include <cstdint>
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

}  // namespace quanta::phonon
