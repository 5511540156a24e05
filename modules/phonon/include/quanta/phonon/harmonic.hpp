#pragma once
#include <array>
#include <vector>

#include "quanta/phonon/control.hpp"
#include "quanta/phonon/qgrid.hpp"
#include "quanta/phonon/spectrum.hpp"
#include "quanta/phonon/symmetry.hpp"

namespace quanta::phonon {

// Each space-group operation as it acts on Cartesian vectors (cart) and on q in reciprocal-lattice
// coordinates (q), followed by the same operations combined with time reversal (-cart, -q).
struct MeshOp {
  Mat3 cart, q;
};
std::vector<MeshOp> mesh_operations(const Crystal& c, const SymmetryInfo& sym);
// Per mesh point, the average of the Cartesian parts of the operations that leave it unchanged (no
// reciprocal-lattice shift allowed), ShengBTE's symmetrizer of vectors attached to q.
std::vector<Mat3> point_symmetrizers(const Crystal& c, const SymmetryInfo& sym, const QGrid& grid);

// ShengBTE's post-processing of the spectrum on the full mesh: each velocity is averaged over the
// operations (with time reversal) that leave its q-point unchanged, then the three lowest modes at Gamma
// get exactly zero frequency and velocity.
void symmetrize_and_fix_gamma(const Crystal& c, const SymmetryInfo& sym, const QGrid& grid, Spectrum& s);

// (x / sinh x)^2 with x = hbar omega / (2 kB T): a mode's heat capacity in units of kB (1 at omega = 0).
double mode_heat_capacity(double omega, double temperature);
// Specific heat, J/(m^3 K): kB/(V nptk) sum_{q,modes} (x/sinh x)^2 with x = hbar omega / (2 kB T).
double specific_heat(const Crystal& c, const Spectrum& s, double temperature);
// Small-grain-limit thermal conductivity per unit grain size, W/(m K nm), [3][3] row-major.
std::array<double, 9> kappa_small_grain(const Crystal& c, const Spectrum& s, double temperature);

struct DensityOfStates {
  std::vector<double> energy;  // [nticks] rad/ps
  std::vector<double> dos;     // [nticks] states per (rad/ps) per cell
  std::vector<double> pdos;    // [nticks][natoms]
};
// FourPhonon's adaptive width of every full-mesh mode ([nq][nb], rad/ps) for the DOS and isotope sums:
// base_sigma(v) without scalebroad, floored at exp(p25 - 1.5 (p75 - p25)) of the log-widths.
std::vector<double> refined_sigma(const Crystal& c, const QGrid& grid, const Spectrum& s);

// Adaptive-Gaussian DOS and per-atom projected DOS on the full mesh, as ShengBTE computes them.
DensityOfStates density_of_states(const Crystal& c, const QGrid& grid, const Spectrum& s, int nticks);

}  // namespace quanta::phonon
