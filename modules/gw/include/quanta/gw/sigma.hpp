#pragma once
// The diagonal G0W0 self-energy in the generalized plasmon-pole model (Hybertsen-Louie, BerkeleyGW's
// static GPP): bare exchange X, the screened-exchange remainder SX-X and the Coulomb hole CH at the
// mean-field energy and one step above it, the quasiparticle energies Eqp0, Eqp1 and the renormalization Znk.
#include <cmath>
#include <string>
#include <vector>

#include "quanta/core/backend.hpp"
#include "quanta/gw/epsilon.hpp"
#include "quanta/gw/mean_field.hpp"

namespace quanta::gw {

// BerkeleyGW's Rydberg in eV (CODATA 2010), so that mean-field energies print as it prints them.
inline constexpr double kRydbergEV = 13.60569253;

struct SigmaParams {
  int nbands = 0;                  // number_bands: bands of the sum over states
  int band_min = 1, band_max = 1;  // band_index_min, band_index_max (1-based)
  std::vector<Vec3> kpoints;       // crystal coordinates; each must be a k-point of WFN_inner
  double ecut_screened = 0;        // screened_coulomb_cutoff, Ry (0: the dielectric matrix's)
  double ecut_bare = 0;            // bare_coulomb_cutoff, Ry (0: the wavefunctions' cutoff)
  double fd_spacing = 1.0;         // finite_difference_spacing, eV (finite_difference_form 2: forward)
  bool q_symmetry = true;          // sum over the q of the irreducible wedge of k's little group
  bool degeneracy_check_override = false;  // number_bands or the band range may split a degenerate set
  bool check_norms = true;         // false: dont_check_norms (WFN_inner of stochastic pseudobands is not orthonormal)
  // Off-diagonal elements <n|Sigma(E_l)|m> (BerkeleyGW's sigma_matrix l t, or number_offdiag and its block),
  // bands 1-based within band_index_min..max; they need the whole q grid (q_symmetry is then turned off).
  struct OffdiagElement {
    int n = 0, m = 0, l = 0;
  };
  std::vector<OffdiagElement> offdiag;
  int sigma_matrix_l = 0, sigma_matrix_t = 0;  // as given (sigma_hp.log repeats them)
  bool use_vxc_dat = true;         // false: dont_use_vxcdat (the potential VXC, not vxc.dat)
  // <n|Sigma|m> = 0 when n and m have degenerate sets of different sizes (different irreducible representations),
  // as BerkeleyGW sets it; no_symmetries_offdiagonals computes them.
  bool offdiag_symmetry = true;
  // sigma_matrix_frequency_grid nw margin (quanta's keyword): the matrix Sigma(w) over band_index_min..max on nw
  // uniform frequencies from the lowest mean-field energy of the window less margin to the highest plus margin
  // (eV), and the self-consistent eigenvalues of E_mf + Sigma(E) - Vxc (solve_dyson_grid). 0: none.
  int grid_nw = 0;
  double grid_margin = 0;
  // frequency_dependence: 1, the generalized plasmon pole; 2, full frequency by contour deformation
  // (frequency_dependence_method 2) from Epsilon's full-frequency eps^-1: Sigma(E) on BerkeleyGW's evaluation grid
  // (frequency_grid_shift 2) of 2 round(max_frequency_eval / delta_frequency_eval) + 1 energies centred on each
  // E_mf, the imaginary-axis integral by cd_integration_method 0 (piecewise constant) or 2 (piecewise quadratic).
  int frequency_dependence = 1;
  int cd_integration_method = 0;
  // frequency_dependence_method: 2, contour deformation; 0, integration along the real axis (BerkeleyGW's sigma_ra:
  // SX-X from eps^-1 interpolated at |E - E_m|, CH and Cor from its spectral function; needs Epsilon's method-0 grid).
  int ff_method = 2;
  // do_sigma_subspace: Epsilon's matrices must come from the static subspace approximation; Sigma uses them expanded
  // to the G basis (its sums run there).
  bool subspace = false;
  double delta_frequency_eval = 0.2, max_frequency_eval = 2.0;  // eV
  int eval_points() const { return 2 * static_cast<int>(std::lround(max_frequency_eval / delta_frequency_eval)) + 1; }
  int pools = 0;                   // number_sigma_pools (0: chosen from the processes and the (k, q) pairs)
  bool quiet = false;              // no progress lines
  Backend backend = Backend::Cpu;
  std::size_t gpu_mem_limit = 0;   // bytes the CUDA backend may plan to use; 0: the free memory less a margin
};

struct SigmaBand {
  int n = 0;                       // 1-based band
  double emf = 0, eo = 0, vxc = 0; // eV
  double x = 0;                    // bare exchange
  double sx_x[2] = {0, 0};         // at Eo and Eo + spacing
  double ch[2] = {0, 0};
  double sig = 0, eqp0 = 0, eqp1 = 0, znk = 0;
  // Full frequency: Sigma(E) = X + residue (SX-X's column) + integral (CH's column) on the evaluation grid
  // E_mf + (i - (npts - 1) / 2) delta_frequency_eval, complex; sx_x[0], ch[0] and sig are their real parts at E_mf,
  // eqp1 the root of E_mf + Re Sigma(E) - Vxc - E on the grid (linear between its points, the one nearest Eqp0,
  // as BerkeleyGW finds it; NaN when there is none), znk and eqp_lin from the slope of Re Sigma at E_mf (the
  // grid's central difference): eqp_lin = E_mf + znk (Re Sigma(E_mf) - Vxc), the linearized solution.
  std::vector<double> ff_omega;
  std::vector<cplx> ff_res, ff_int;
  double eqp_lin = 0;
  // The real-axis method (ff_method 0): ff_res holds SX-X and ff_int CH on the grid (Sigma = X + SX-X + CH gives
  // Eqp0), ff_cor the retarded correlation BerkeleyGW prints as "Cor", ff_cor4 its eta -> 0 form, from which Eqp1 is
  // solved (X + Cor4; src/contour.hpp); eqp1_im the imaginary part at that root and soln BerkeleyGW's word for how the
  // root was found (unique, MULT:n, extrap-, extrap+, NO_SOLN!).
  int ff_method = 2;
  std::vector<cplx> ff_cor, ff_cor4;
  double eqp1_im = 0;
  std::string soln;
};

// One off-diagonal element <n|Sigma(E)|m> at E = E_l (and E_l + spacing), eV; complex in general (real, up to
// rounding, for BerkeleyGW's real flavour).
struct SigmaOffdiag {
  int n = 0, m = 0, l = 0;         // 1-based bands
  double eo = 0;                   // E_l, eV
  cplx vxc, x;
  cplx sx_x[2], ch[2];             // at E_l and E_l + spacing
  cplx sig;                        // X + SX-X + CH at E_l
};

struct SigmaK {
  Vec3 k{};
  int ik = 0;                      // 1-based index among WFN_inner's k-points (sigma_hp.log's "ik")
  int nq = 0;                      // q-points summed (after the little-group reduction)
  std::vector<SigmaBand> bands;
  std::vector<SigmaOffdiag> offdiag;  // in the order of SigmaParams::offdiag
  std::vector<cplx> qp_matrix_energies;  // eigenvalues of the quasiparticle Hamiltonian (solve_dyson_matrix), eV
  std::vector<double> grid_omega;        // sigma_matrix_frequency_grid: the frequencies, eV
  std::vector<cplx> grid_sigma;          // [nw][n][m] <n|Sigma(w)|m> = X + SX-X + CH over band_index_min..max, eV
  std::vector<cplx> dyson_energies;      // the self-consistent solutions E_i = lambda_i(E_i), by real part, eV
  std::vector<int> dyson_iterations;     // eigen decompositions each took after the grid's
};

// Stage timings, seconds, and the work done (for rates in the benchmarks).
struct SigmaTimings {
  double setup = 0, states = 0, mtxel = 0, exchange = 0, gpp = 0;
  double setup_modes = 0;     // of setup: the plasmon-pole modes of each (k, q) (their arrays allocated and filled)
  bool modes_on_device = false;  // the modes were computed and kept on the device (CUDA backend, when they fit)
  bool m_on_device = false;      // M stayed on the device from MTXEL to the exchange and GPP kernels (likewise)
  bool ff_on_device = false;     // full frequency: eps^-1 rotated to each q on the device (CUDA backend, when it fits)
  double gpp_kernel = 0;      // of gpp: the device kernels alone (CUDA events; 0 on the CPU)
  double ffts = 0;            // 3D transforms on the box (states and products)
  std::size_t box_points = 0;
  double gpp_terms = 0;       // (G, G', m, E) terms of the GPP sums, summed over n, k and q
  double gpp_matrix = 0;      // the off-diagonal elements' GPP matrices (prep + ZGEMMs + transfers), seconds
  double gpp_matrix_kernel = 0;  // of gpp_matrix: the device work alone (CUDA events; 0 on the CPU)
  double gpp_matrix_flops = 0;   // of their ZGEMMs, as the seed's eq. 8 counts them
  double cd_kernel = 0;       // full frequency: the device work of the contractions alone (CUDA events; 0 on the CPU)
  double cd_flops = 0;        // of the contractions' products: 8 rows ng ng' per frequency (kernels/cd.hpp)
};

// How the P processes of a run share Sigma's work. With number_sigma_pools N (BerkeleyGW's keyword), the
// processes form N pools of P/N: each pool takes a contiguous block of the bands n (band_index_min..max) and
// its members share out the columns G' of every (k, q) pair (MTXEL of the pool's bands on each member, the
// bare exchange by the first). Without it: whole (k, q) pairs, every P-th from the rank, when there are at
// least P pairs; else one pool of all P processes. One process takes everything.
struct SigmaShare {
  bool by_pairs = false;
  int pools = 1, pool = 0, pool_size = 1, member = 0;
  int n_lo = 0, n_hi = 0;          // this process's bands n: band_index_min + n_lo .. + n_hi - 1
};
// Throws Error when N does not divide P or exceeds the bands (run() checks this before Epsilon).
SigmaShare sigma_share(int processes, int rank, int pools, std::size_t pairs, int nbands);
// What is wrong with number_sigma_pools for P processes and the bands of band_index_min..max ("" if nothing).
std::string sigma_pools_problem(int processes, int pools, int nbands);

// Full frequency: how far along the real axis (eV) the residues of band_index_min..max reach, from each evaluation
// energy across the gap (to the highest valence or lowest conduction energy of WFN_inner): frequency_low_cutoff must
// reach it.
double cd_real_axis_reach(const Wavefunctions& inner, const SigmaParams& params);

// The diagonal <nk|Vxc|nk> (eV) for the k-points and bands of a Sigma run, from BerkeleyGW's binary VXC
// (read_vxc): what Sigma uses when there is no vxc.dat.
VxcTable vxc_from_potential(const Wavefunctions& inner, const Density& vxc, const SigmaParams& params);

// eps: the dielectric matrices of the irreducible q of the grid (q0 first), from compute_epsilon.
std::vector<SigmaK> compute_sigma(const Wavefunctions& inner, const Density& rho, const VxcTable& vxc,
                                  const std::vector<DielectricMatrix>& eps, const SigmaParams& params,
                                  SigmaTimings* timings = nullptr);

// With sigma_matrix: the eigenvalues of each k-point's quasiparticle Hamiltonian E_n delta_nm + <n|Sigma(E0)|m>
// - <n|Vxc|m> over band_index_min..max (the full solution of Dyson's equation, as BerkeleyGW's offdiag.x makes
// it), sorted by their real parts, into SigmaK::qp_matrix_energies.
void solve_dyson_matrix(std::vector<SigmaK>& sigma, const SigmaParams& params);
// With sigma_matrix_frequency_grid: the quasiparticle energies that solve Dyson's equation self-consistently,
// E_i = Re lambda_i(E_mf + Sigma(E_i) - Vxc), lambda_i the i-th eigenvalue by real part and Sigma(E) interpolated
// between the grid's frequencies by a cubic, into SigmaK::dyson_energies. Throws Error naming the k-point and the
// eigenvalue when a solution lies outside the grid or the iteration does not converge.
void solve_dyson_grid(std::vector<SigmaK>& sigma, const SigmaParams& params);

}  // namespace quanta::gw
