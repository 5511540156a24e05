#pragma once
// Stochastic pseudobands (Altman, Kundu, da Jornada, PRL 132, 086401 (2024)): the states far from the gap are
// grouped into energy slices S, and each slice is replaced by N_xi random combinations
//   xi_j = sum_{n in S} alpha_nj psi_n,   alpha_nj = exp(i theta_nj) / sqrt(N_xi)  (complex flavour)
//                                         alpha_nj = +-1 / sqrt(N_xi)            (Real flavour: random signs),
// all at the slice's mean energy, so that sum_j |xi_j><xi_j| = sum_{n in S} |psi_n><psi_n| on average (the
// stochastic resolution of the identity: its diagonal in the slice is exact for every draw, the off-diagonal
// part averages to zero). <xi_j|xi_j> = |S| / N_xi. Bands next to the gap (the protection window) are copied.
// Epsilon's and Sigma's sums over bands are linear in |psi_n><psi_n| at a given energy, so they take the
// compressed file unchanged (with dont_check_norms: the pseudobands are neither normalized nor orthogonal).
//
// The slices: band n's energy is its mean over the k-points, measured from the Fermi level (midgap, from WFN
// and WFNq). Past the protection window, the unprotected range [E0, Emax] of each side is cut into N_S slices
// of constant fractional width, edges E0 (Emax / E0)^(j / N_S) (the paper's constant-F partition: a slice's
// width grows with its distance from the gap), optionally preceded on the conduction side by slices of
// constant width uniform_width up to max_freq (for full-frequency Epsilon, whose real-axis grid must resolve
// them). Slices without bands are dropped.
#include <cstdint>
#include <string>
#include <vector>

#include "quanta/gw/mean_field.hpp"

namespace quanta::gw {

struct PseudobandsParams {
  int protected_val = -1;    // N_P_val: valence bands copied, counted down from the VBM; -1: all (no valence pseudobands)
  int protected_cond = 100;  // N_P_cond: conduction bands copied, counted up from the CBM; -1: all
  int slices_val = 10, slices_cond = 100;        // N_S_val, N_S_cond
  int per_slice_val = 2, per_slice_cond = 2;     // N_xi_val, N_xi_cond (at least 2)
  double max_freq = 0;       // Ry above the Fermi level: constant-width conduction slices up to here (with uniform_width)
  double uniform_width = 0;  // Ry; 0: none
  std::uint64_t seed = 1;    // the draws depend on (seed, file, k-point, band, pseudoband) only
};

struct PseudobandSlice {
  int first = 0, last = 0;   // 0-based bands of the input, inclusive
  double lower = 0, upper = 0;  // the slice's edges, Ry from the Fermi level (valence: below it, as positive numbers)
};

struct PseudobandsPlan {
  double fermi = 0;   // Ry, midgap
  int ifmax = 0;      // occupied bands of the input
  std::vector<PseudobandSlice> val;   // from the protection window downward
  std::vector<PseudobandSlice> cond;  // from the protection window upward
  int bands_out_val = 0, bands_out_cond = 0;  // bands of the output WFN below and above the gap
};

// The slices, from the headers of WFN and WFNq (read_wfn_header suffices). InputError naming `where`'s
// options (--N_P_cond, ...) or the file when they do not fit the files: counts beyond the bands there are,
// a protection window splitting a degenerate set, metallic or different occupations.
PseudobandsPlan plan_pseudobands(const Wavefunctions& wfn, const Wavefunctions& wfnq, const PseudobandsParams& p);

// The compressed wavefunctions. `conduction` false (for WFNq) leaves its conduction bands as they are and
// compresses only its valence bands; `stream` separates the draws of different files (0 WFN, 1 WFNq).
Wavefunctions make_pseudobands(const Wavefunctions& in, const PseudobandsPlan& plan, const PseudobandsParams& p, bool conduction,
                               std::uint64_t stream);

// The plan as lines for the log: slices, band ranges, energies, the output's band counts.
std::string describe(const PseudobandsPlan& plan, const PseudobandsParams& p);

}  // namespace quanta::gw
