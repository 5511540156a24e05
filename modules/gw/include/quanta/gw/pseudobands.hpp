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
// The slices are energy windows, the same at every k-point: at each k-point a band beyond the protection window
// goes to the window its energy (from the Fermi level at midgap, from WFN and WFNq) falls in, so that a set of
// degenerate levels is never shared by two slices (a band degenerate with the one below it joins that one's slice),
// and the pseudobands of a slice at k are made of that k-point's bands in it (none: zero states, at energies between
// their neighbours'). The windows span [E0, Emax], E0 the lowest energy of the first unprotected band over the k-points, Emax
// the highest of the last: N_S windows of constant fractional width, edges E0 (Emax / E0)^(j / N_S) (the paper's
// constant-F partition: a slice's width grows with its distance from the gap); with uniform_width,
// floor(max_freq / uniform_width) - 1 windows of that width come first, from E0 (as BerkeleyGW's script counts them;
// for full-frequency Epsilon, whose real-axis grid must resolve them). Windows without bands are dropped.
// (BerkeleyGW's script slices by band index, from k-averaged energies; binning each k-point's energies is closer to
// the states' energies and keeps the slices' sums symmetric.)
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "quanta/gw/mean_field.hpp"

namespace quanta::gw {

struct PseudobandsParams {
  int protected_val = -1;    // N_P_val: valence bands copied, counted down from the VBM; -1: all (no valence pseudobands)
  int protected_cond = 100;  // N_P_cond: conduction bands copied, counted up from the CBM; -1: all
  int slices_val = 10, slices_cond = 100;        // N_S_val, N_S_cond
  int per_slice_val = 2, per_slice_cond = 2;     // N_xi_val, N_xi_cond (at least 2)
  double max_freq = 0;       // Ry: floor(max_freq / uniform_width) - 1 constant-width slices from the window outward (both sides)
  double uniform_width = 0;  // Ry; 0: none (then max_freq must be 0 too)
  std::uint64_t seed = 1;    // the draws depend on (seed, file, k-point, band, pseudoband) only
};

struct PseudobandSlice {
  double lower = 0, upper = 0;  // edges, Ry from the Fermi level (valence: below it, as positive numbers)
  int bands_min = 0, bands_max = 0;  // the bands it holds at a k-point of WFN, fewest and most
};

struct PseudobandsPlan {
  double fermi = 0;   // Ry, midgap
  int ifmax = 0;      // occupied bands of the input
  int nprot_val = -1, nprot_cond = -1;  // protected bands (-1: that side is copied whole)
  std::vector<PseudobandSlice> val;   // from the protection window outward (downward)
  std::vector<PseudobandSlice> cond;  // from the protection window outward (upward)
  int bands_out_val = 0, bands_out_cond = 0;  // bands of the output WFN below and above the gap
};

// The slices, from the headers of WFN and WFNq (read_wfn_header suffices). InputError naming `where`'s
// options (--N_P_cond, ...) or the file when they do not fit the files: counts beyond the bands there are,
// a protection window splitting a degenerate set, metallic or different occupations.
PseudobandsPlan plan_pseudobands(const Wavefunctions& wfn, const Wavefunctions& wfnq, const PseudobandsParams& p);

// The input bands of each slice of one side at k-point k of `w` (WFN or WFNq): {first band (0-based), count}, ascending;
// count 0 where the slice holds none there.
std::vector<std::pair<int, int>> slice_bands(const Wavefunctions& w, const PseudobandsPlan& plan, bool valence, int k);

// The compressed wavefunctions. `conduction` false (for WFNq) leaves its conduction bands as they are and
// compresses only its valence bands; `stream` separates the draws of different files (0 WFN, 1 WFNq).
Wavefunctions make_pseudobands(const Wavefunctions& in, const PseudobandsPlan& plan, const PseudobandsParams& p, bool conduction,
                               std::uint64_t stream);

// The plan as lines for the log: slices, band ranges, energies, the output's band counts.
std::string describe(const PseudobandsPlan& plan, const PseudobandsParams& p);

}  // namespace quanta::gw
