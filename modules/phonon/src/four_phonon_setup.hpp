#pragma once
// Host-side tables behind the four-phonon kernel views (kernels/four_phonon.hpp), built once per run and
// copied as they are to the device by the CUDA backend, and the CUDA entry point.
#include <array>
#include <vector>

#include "../kernels/four_phonon.hpp"
#include "quanta/phonon/force_constants.hpp"
#include "quanta/phonon/qgrid.hpp"
#include "quanta/phonon/scattering.hpp"

namespace quanta::phonon {

// The fourth-order constants grouped by atom quadruple (file order kept within a group), masses divided in,
// with the mesh's roots of unity.
struct Fc4Tables {
  std::vector<int> group_offset, group_atoms, cells;
  std::vector<double> phi;
  std::vector<cplx> roots;
  int roots_n = 1;
  int stride[3] = {1, 1, 1};
};
Fc4Tables make_fc4_tables(const FourthOrderFc& fc4, const Crystal& crystal, const std::array<int, 3>& mesh);
// A view whose arrays live at the given pointers (the host tables' own, or their device copies).
kernels::Fc4View make_fc4_view(const Fc4Tables& t, const int* group_offset, const int* group_atoms, const double* phi,
                               const int* cells, const cplx* roots);

// The sums of every irreducible mode and class ([nmodes][3], mode m = l * nb + band) for the temperatures of
// `in` (its pointers are host arrays: bose [nT][nptk * nb]); one thread block per mode and class, block
// reductions, no atomics. `mesh` is the host view.
#ifdef QUANTA_HAVE_CUDA
namespace kernels {
std::vector<FourSums> four_phonon_sums_cuda(const MeshView& mesh, const Fc4Tables& tables, const std::vector<int>& irreducible,
                                            const std::vector<double>& bose, const FourRateInputs& in, int nmodes, bool quiet);
}
#endif

}  // namespace quanta::phonon
