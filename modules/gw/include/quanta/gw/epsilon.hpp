#pragma once
// The static RPA dielectric matrix (BerkeleyGW's Epsilon): chi0(q; G, G'), eps = 1 - v chi0 and its
// inverse on the sphere |q + G|^2 < epsilon_cutoff, for each q of the input.
#include <filesystem>
#include <limits>
#include <vector>

#include "quanta/core/backend.hpp"
#include "quanta/core/host_vector.hpp"
#include "quanta/gw/mean_field.hpp"

namespace quanta::gw {

struct QPoint {
  Vec3 q{};          // crystal coordinates
  bool q0 = false;   // the small shift that stands for q -> 0 (valence states from WFNq)
};

// The frequencies of a full-frequency Epsilon (BerkeleyGW's frequency_dependence 2 with the contour-deformation
// method, frequency_dependence_method 2): the real axis from init_frequency to frequency_low_cutoff in steps of
// delta_frequency, each broadened by +i broadening (the retarded response), then number_imaginary_freqs points
// i w_j on the imaginary axis, w_j = plasma_freq z / (1 - z) with z = j / number_imaginary_freqs, j = 0, 1, ...
// (BerkeleyGW's grid). All in eV.
struct FrequencyGrid {
  // BerkeleyGW's defaults for methods 0 and 2 (Epsilon/inread.f90): frequency_low_cutoff 200 eV; broadening has none that
  // works (0, which read_epsilon_inp refuses), delta_frequency the broadening.
  double broadening = 0.25, init = 0, delta = 0.25, low_cutoff = 200, plasma = 27.21138506;
  int n_imag = 15;
  // frequency_dependence_method: 2, contour deformation (the real axis to low_cutoff, then n_imag imaginary points);
  // 0, BerkeleyGW's real-axis method (no imaginary points; past low_cutoff the steps grow by step_increase up to
  // high_cutoff, default 4 low_cutoff, accumulated as BerkeleyGW does).
  int method = 2;
  double high_cutoff = -1, step_increase = 1.0;
  std::vector<double> listed;  // the real axis as read from eps0mat.h5 (real-axis method): real_axis() returns it as is
  std::vector<double> real_axis() const;       // w_i
  std::vector<double> imaginary_axis() const;  // w_j (the points are i w_j)
  std::vector<cplx> all() const;               // w_i + i broadening, then i w_j
};

struct EpsilonParams {
  double ecut = 0;            // epsilon_cutoff, Ry
  int nbands = 0;             // number_bands: valence + conduction bands in the sum
  std::vector<QPoint> qpoints;
  bool degeneracy_check_override = false;  // number_bands may split a degenerate set (warned, not refused)
  bool check_norms = true;    // false: dont_check_norms (WFN, WFNq of stochastic pseudobands are not orthonormal)
  int valence_block = 0;
  int frequency_dependence = 0;  // 0: static; 2: full frequency (contour deformation) on `frequencies`
  FrequencyGrid frequencies;
  // The static subspace approximation (full frequency only; BerkeleyGW's chi_eigenvalue_cutoff, nbasis_subspace,
  // subspace_dont_keep_full_eps_omega0): chi0 at the frequencies in the basis of the eigenvectors B of the symmetrized
  // static chi0 v^1/2 chi0(0) v^1/2 whose eigenvalues reach subspace_cutoff times the largest in magnitude (at most
  // subspace_nbasis of them, when > 0); eps^-1 expanded back to the G basis as eps^-1(0) + v^-1/2 B [C(z) - C(0)] B^H v^1/2
  // with the whole static eps^-1(0) (keep_full_static) or as 1 + v^-1/2 B C(z) B^H v^1/2, C = (1 - chi_s)^-1 - 1.
  bool subspace = false;
  double subspace_cutoff = 1e-6;
  int subspace_nbasis = -1;
  bool subspace_keep_full_static = true;
  // What the subspace run keeps: eps^-1 expanded to the G basis at every frequency (epsinv_ff; Sigma's G-basis sums)
  // and/or the basis itself (DielectricMatrix::sub_*; Sigma's sums in the subspace, do_sigma_subspace).
  bool subspace_expand = true;
  bool subspace_keep_basis = false;
  bool quiet = false;         // no progress lines
  // chi0 and eps kept in the DielectricMatrix. Else only eps^-1 and the head of eps are kept, and on one device
  // (one process, CUDA) chi0 and eps never leave it: eps is formed and inverted there.
  bool keep_matrices = false;
  Backend backend = Backend::Cpu;
  std::size_t gpu_mem_limit = 0;  // bytes the CUDA backend may plan to use; 0: the free memory less a margin
};

struct DielectricMatrix {
  QPoint q;
  std::vector<Vec3i> gvec;    // [ng] the sphere, in order of |q+G|^2 (q0: of |G|^2), ties lexicographic
  std::vector<double> qg2;    // [ng] |q+G|^2, bohr^-2
  std::vector<cplx> chi0;     // [ng][ng] column-major: (G, G') at G + ng G'; Ry^-1 bohr^-3 (empty unless keep_matrices)
  std::vector<cplx> eps;      // [ng][ng] eps(G,G') = delta - 8 pi / |q+G|^2 chi0(G,G') (empty unless keep_matrices)
  HostVector<cplx> epsinv;    // [ng][ng]
  double eps_head = std::numeric_limits<double>::quiet_NaN();  // Re eps(0, 0); NaN when only eps^-1 is known (files)
  // Full frequency: eps^-1 at each of the frequencies `freq` (eV; FrequencyGrid::all(), n_real on the real axis
  // first), [nf][ng][ng] column-major per frequency. epsinv is then the first of them (w = init_frequency).
  std::vector<cplx> freq;
  int n_real = 0;
  HostVector<cplx> epsinv_ff;  // (allocated without a serial fill: gigabytes at Si64 and beyond)
  int subspace_nbasis = 0;    // the static subspace's basis size (0: the G basis)
  // With EpsilonParams::subspace_keep_basis: eps^-1(z) = base + diag(sub_sv) B D(z) B^H diag(1 / sub_sv), base = the static
  // eps^-1 (sub_einv0, z = 0; sub_keep) or 1, D = sub_c[f] (already C(z) - C(0) when sub_keep).
  std::vector<cplx> sub_basis;  // B, [nb][ng] (column-major ng x nb)
  std::vector<cplx> sub_c;      // [nf][nb][nb]
  std::vector<cplx> sub_einv0;  // [ng][ng]; empty when epsinv is that same static eps^-1 (the subspace not expanded)
  const cplx* sub_static_einv() const { return sub_einv0.empty() ? epsinv.data() : sub_einv0.data(); }
  std::vector<double> sub_sv;   // [ng] v^1/2
  bool sub_keep = true;
  int nfreq() const { return static_cast<int>(freq.size()); }
  const cplx* epsinv_at(int f) const { return epsinv_ff.data() + static_cast<std::size_t>(f) * ng() * ng(); }
  int nk = 0;                 // k-points of the full zone summed
  int ng() const { return static_cast<int>(gvec.size()); }
  template <class Matrix>
  cplx at(const Matrix& m, int i, int j) const { return m[i + static_cast<std::size_t>(ng()) * j]; }
};

// Stage timings, seconds, and the work done (for rates in the benchmarks).
struct EpsilonTimings {
  double states = 0, mtxel = 0, chi_sum = 0, inversion = 0;
  double chi0_result = 0;     // of chi_sum: chi0 completed (upper triangle) and, on the device, downloaded (0 when
                              // chi0 stays on the device: its completion is then in inversion)
  double chi0_sum = 0;        // of chi_sum: the processes' parts of chi0 added (between the devices with NCCL, else
                              // through the host with MPI; 0 for one process)
  double eps_form = 0;        // of inversion: eps = 1 - v chi0 formed on the host (0 when formed on the device)
  double subspace_form = 0, subspace_invert = 0, subspace_eigen = 0;  // of subspace: eps and v^1/2 chi0 v^1/2 formed,
                              // eps(0) inverted, the symmetrized matrix diagonalized
  double ffts = 0;            // 3D transforms on the box (states and products)
  std::size_t box_points = 0; // points of the FFT box
  double chi_sum_flops = 0;   // 4 ng (ng + 1) per pair (ZHERK: complex multiply-adds of the lower triangle), summed
  double subspace = 0;        // the static subspace: the eigen decomposition and the expansion of eps^-1 (of it, in inversion)
};

// The largest epsilon_cutoff a wavefunction file allows, Ry: the cutoff of its density's G-vectors, from
// which the dielectric matrix's sphere is taken (as in BerkeleyGW, whose G-space is the density's).
double max_epsilon_cutoff(const Wavefunctions& wfn);

// wfnq may be null when no q-point is q0. Throws InputError when a k+q state is in neither file.
std::vector<DielectricMatrix> compute_epsilon(const Wavefunctions& wfn, const Wavefunctions* wfnq, const EpsilonParams& params,
                                              EpsilonTimings* timings = nullptr);

// BerkeleyGW's Epsilon output (eps0mat.h5 and, unless the q-grid is Gamma only, epsmat.h5; HDF5, eps_header
// version 3): the eps^-1 of each q-point on its sphere, q0 first, static or (full frequency, contour deformation) at
// every frequency of the file, with what Sigma needs of Epsilon's parameters (the frequency grid included). Only
// eps^-1 is in the files (chi0 and eps are left empty). Refused, naming the file and the dataset: another matrix type,
// the real-axis methods' advanced matrices, the subspace-basis layout, a frequency grid that is not the
// contour-deformation one, spin-polarized matrices, sizes or indexes out of range, non-finite elements, two files of
// different runs. io/bgw_epsmat.cpp gives the layout.
struct EpsilonFromFiles {
  EpsilonParams params;             // ecut (ecuts), nbands (nband), qpoints (q0 first)
  std::vector<DielectricMatrix> eps;
  Vec3i qgrid{};                    // the q-grid of the run
  double celvol = 0;                // bohr^3, of the mean field the run read
};
// epsmat may be empty (no other q-point).
EpsilonFromFiles read_bgw_epsmat(const std::filesystem::path& eps0mat, const std::filesystem::path& epsmat);

// Writes Epsilon's eps^-1 in that layout, as BerkeleyGW's epsilon.x does: with q0 true the q0 point
// (eps0mat.h5), else every other q-point (epsmat.h5), in the order of `eps`; full frequency (params.frequency_dependence
// 2) at every frequency, which needs eps^-1 in the G basis (not the subspace basis alone of do_sigma_subspace). `wfn` is WFN's header (every
// band; its /mf_header is copied, and its energies give the Fermi level, midgap over bands 1..number_bands, as
// BerkeleyGW finds it); a Real-flavour WFN gives the real matrices BerkeleyGW's real-flavour Sigma reads. The
// file goes through a temporary name. Returns the q-points written (none: no file).
int write_bgw_epsmat(const std::filesystem::path& file, const std::vector<DielectricMatrix>& eps, bool q0, const EpsilonParams& params,
                     const Wavefunctions& wfn);

// The density's G list in order of |q+G|^2 (ties: lexicographic G), as indexes into gvec_rho; qg2, when
// given, receives |q+G|^2 (bohr^-2) of each G in the list's own order.
std::vector<int> g_order(const Crystal& crystal, const std::vector<Vec3i>& gvec_rho, const Vec3& q, std::vector<double>* qg2 = nullptr);
// The sphere |q+G|^2 <= ecut from the density's G list, in g_order's order.
std::vector<Vec3i> g_sphere(const Crystal& crystal, const std::vector<Vec3i>& gvec_rho, const Vec3& q, double ecut);

}  // namespace quanta::gw
