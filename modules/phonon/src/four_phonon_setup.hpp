#pragma once
// Host-side tables behind the four-phonon kernel views (kernels/four_phonon.hpp), built once per run and
// copied as they are to the device by the CUDA backend, and that backend's state for one stage.
#include <array>
#include <memory>
#include <vector>

#include "../kernels/four_phonon.hpp"
#include "quanta/phonon/force_constants.hpp"
#include "quanta/phonon/qgrid.hpp"
#include "quanta/phonon/scattering.hpp"

namespace quanta::phonon {

// The fourth-order constants grouped as kernels::Fc4View describes (masses divided in), with the mesh's roots
// of unity.
struct Fc4Tables {
  std::vector<int> group_offset, group_atoms, group_cell, quad_atoms, quad_cells;
  std::vector<double> phi;
  std::vector<cplx> roots;
  int roots_n = 1;
  int stride[3] = {1, 1, 1};
};
Fc4Tables make_fc4_tables(const FourthOrderFc& fc4, const Crystal& crystal, const std::array<int, 3>& mesh);

// Where a view's arrays live: the host tables' own (host_pointers) or their device copies.
struct Fc4Pointers {
  const int *group_offset, *group_atoms, *group_cell, *quad_atoms, *quad_cells;
  const double* phi;
  const cplx* roots;
};
inline Fc4Pointers host_pointers(const Fc4Tables& t) {
  return {t.group_offset.data(), t.group_atoms.data(), t.group_cell.data(), t.quad_atoms.data(), t.quad_cells.data(),
          t.phi.data(), t.roots.data()};
}
kernels::Fc4View make_fc4_view(const Fc4Tables& t, const Fc4Pointers& p);

#ifdef QUANTA_HAVE_CUDA
namespace kernels {
// The CUDA backend's state for one four-phonon stage, built once before its units: the mesh (frequencies,
// velocities, eigenvectors, width terms, zone images), the constants and the irreducible q-points copied to
// the current device, the kernels' shared memory checked and set. `mesh` is the host view. Throws, before any
// work, when the constants form too many groups for stage 1 in shared memory.
class FourPhononDevice {
 public:
  FourPhononDevice(const MeshView& mesh, const Fc4Tables& tables, const std::vector<int>& irreducible);
  ~FourPhononDevice();
  FourPhononDevice(const FourPhononDevice&) = delete;
  FourPhononDevice& operator=(const FourPhononDevice&) = delete;

  // The occupations of the units that follow (host, [nT][nptk * nb]): uploaded when a pass's temperatures change.
  void set_occupations(const std::vector<double>& bose);

  // The sums of the irreducible modes first..last-1 and every class ([last - first][3], mode m = l * nb + band)
  // for the temperatures of `in` (in.bose is ignored: the occupations are set_occupations'); block
  // reductions. With `rows` (host, [nT][last - first][nfull], zeroed), the collision rows of
  // four_phonon_iteration too (FourPhononScattering::rows, before the final factor), summed on the device with
  // atomics. With `sample`, the unscaled sums of that sample instead (kernels::visit_draw4; no rows).
  std::vector<FourSums> sums(const FourRateInputs& in, int first, int last, bool quiet, double* rows,
                             const ProcessSample* sample = nullptr);

 private:
  struct State;
  std::unique_ptr<State> state_;
};
}  // namespace kernels
#endif

}  // namespace quanta::phonon
