#pragma once
#include <array>
#include <vector>

#include "quanta/core/backend.hpp"
#include "quanta/phonon/harmonic.hpp"
#include "quanta/phonon/scattering.hpp"

namespace quanta::phonon {

// What the linearized BTE needs of the symmetry: the mesh-compatible operations (with time reversal), their
// action on the mesh, for every mesh point p the operation that carries its class representative to p, and
// p's symmetrizer.
struct BteSymmetry {
  std::vector<Mat3> tensor_ops;    // [nops] Cartesian parts, for averaging tensors
  std::vector<int> image;          // [nops][nptk] mesh index of R q
  std::vector<int> op_of_point;    // [nptk] an operation with R (class representative) = p
  std::vector<Mat3> symmetrizer;   // [nptk]
};
BteSymmetry bte_symmetry(const Crystal& c, const SymmetryInfo& sym, const QGrid& grid);

struct BteOptions {
  Backend backend = Backend::Cpu;  // resolved
  bool iterate = true;             // CONTROL convergence
  int maxiter = 1000;
  double eps = 1e-5;
  std::size_t gpu_mem_limit = 0;
  bool quiet = true;               // no iteration report on stderr
};

struct BteSolution {
  // Per iteration (0: RTA), the conductivity of each band, [nb][9] row-major (W/mK), symmetrized.
  std::vector<std::vector<double>> kappa_band;
  std::vector<double> F;          // [nptk][nb][3] final mean-free-displacement function (nm rad/ps ... ShengBTE's F_n)
  int last_iteration = 0;         // ShengBTE's counter at exit (maxiter + 1 when not converged)
  bool converged = false;
  std::string backend;
};

// RTA, then (when asked) the iterative solution of the linearized BTE, ShengBTE's equations:
//   F0(p, i) = tau(i) v(p, i) omega(p, i),
//   F(p, i)  = S_p [ tau(i) ( v(p, i) omega(p, i) + D(p, i) ) ],
//   D(p, i)  = sum_+ G (F(R q'' k) - F(R q' j)) + 1/2 sum_- G (F(R q'' k) + F(R q' j)),
// over the processes (G, q' j, q'' k) of the irreducible mode (q, i), p = R q, tau from its total rate (0
// where the rate is 0). The update is Jacobi (all of D from the previous F; ShengBTE updates in place,
// which changes the path but not the fixed point), run on the GPU for the CUDA backend. Stops when the 2-norm of the change of the
// total kappa tensor, relative to the previous one, falls below eps.
// With `four` (four_phonon_iteration), the four-phonon processes enter D too (FourPhonon's iteration_4ph):
// ++ G (F4 - F2 - F3), +- G (F4 - F2 + F3), -- G (F4 + F2 + F3), through the collision rows of
// FourPhononScattering at this temperature (rows [nmodes][nfull]), carried by the same operation as the
// three-phonon processes.
struct FourPhononIteration {
  const double* rows = nullptr;
};
BteSolution solve_bte(const Crystal& c, const QGrid& grid, const Spectrum& s, const BteSymmetry& sym,
                      const std::vector<double>& total_rate, const ThreePhononProcesses& p, const ThreePhononRates& r,
                      double temperature, const BteOptions& options, const FourPhononIteration& four = {});

// Conductivity of each band from F, [nb][9], symmetrized over the tensor operations (Gamma skipped).
std::vector<double> kappa_from_F(const Crystal& c, const QGrid& grid, const Spectrum& s, const BteSymmetry& sym,
                                 const std::vector<double>& F, double temperature);

struct CumulativeKappa {
  std::vector<double> mfp_ticks;                   // nm
  std::vector<std::array<double, 9>> vs_mfp;       // total tensor with every mode of MFP < tick
  std::vector<double> omega_ticks;                 // rad/ps
  std::vector<std::array<double, 9>> vs_omega;     // total tensor with every mode below the tick
};
CumulativeKappa cumulative_kappa(const Crystal& c, const QGrid& grid, const Spectrum& s, const BteSymmetry& sym,
                                 const std::vector<double>& F, double temperature, int nticks);

}  // namespace quanta::phonon
