// What can be known wrong before Epsilon starts (minutes to hours before Sigma reads its files): the
// keywords against the wavefunction files' headers, as BerkeleyGW's Epsilon and Sigma check them.
#include <cmath>
#include <cstdio>
#include <string>

#include "quanta/core/error.hpp"
#include "quanta/core/progress.hpp"
#include "quanta/gw/inputs.hpp"
#include "bz.hpp"
#include "states.hpp"

namespace quanta::gw {
namespace {

std::string str(double x) {
  char b[32];
  std::snprintf(b, sizeof b, "%.10g", x);
  return b;
}

std::string kstr(const Vec3& k) {
  char b[96];
  std::snprintf(b, sizeof b, "(%.10g, %.10g, %.10g)", k[0], k[1], k[2]);
  return b;
}

// A degenerate set split by `what`: an error, or with degeneracy_check_override a warning (as BerkeleyGW).
void degenerate_split(const std::filesystem::path& input, const std::string& what, const Wavefunctions& w, int ik, int below, bool override_set) {
  const std::string msg = what + " splits a degenerate set: bands " + std::to_string(below) + " and " + std::to_string(below + 1) + " of " +
                          w.file + " at k-point " + std::to_string(ik + 1) + " " + kstr(w.kpoints[ik]) + " are at " +
                          str(w.energy(ik, below - 1)) + " and " + str(w.energy(ik, below)) + " Ry (within " + str(kDegenerateRy) + " Ry)";
  if (override_set) {
    warn("gw", input.string() + ": " + msg + "; degeneracy_check_override is set, so the run goes on");
    return;
  }
  throw InputError(input.string(), msg + ": expected a band count that keeps degenerate sets whole, or the keyword degeneracy_check_override "
                                         "to run anyway (as in BerkeleyGW)");
}

// number_bands against a wavefunction file: at most the file's bands less one (the band above is
// needed to see whether the cut splits a degenerate set), and no split.
void check_number_bands(const std::filesystem::path& input, int nbands, const Wavefunctions& w, bool override_set) {
  if (nbands > w.nbands_file)
    throw InputError(input.string(), "number_bands " + std::to_string(nbands) + " exceeds the " + std::to_string(w.nbands_file) +
                                         " bands of " + w.file + ": expected number_bands <= " + std::to_string(w.nbands_file - 1));
  if (nbands == w.nbands_file) {
    if (!override_set)
      throw InputError(input.string(), "number_bands " + std::to_string(nbands) + " equals the bands of " + w.file +
                                           ": expected at most " + std::to_string(nbands - 1) +
                                           " (one more band is needed to check that the sum does not split a degenerate set), or "
                                           "degeneracy_check_override");
    warn("gw", input.string() + ": number_bands " + std::to_string(nbands) + " is every band of " + w.file +
                   "; whether it splits a degenerate set cannot be checked (degeneracy_check_override is set)");
    return;
  }
  if (const int ik = split_at(w, nbands); ik >= 0) degenerate_split(input, "number_bands " + std::to_string(nbands), w, ik, nbands, override_set);
}

// Stochastic pseudobands are not orthonormal: the orthonormality check, made when the coefficients are read (after
// Epsilon, for WFN_inner), would refuse them; say so now, from the header.
void require_norm_check_off(const std::filesystem::path& input, const Wavefunctions& w, bool check_norms) {
  if (w.pseudobands.present && check_norms)
    throw InputError(input.string(), w.file + " holds stochastic pseudobands, which are not orthonormal: expected the keyword dont_check_norms "
                                                "(as BerkeleyGW asks)");
}

void require_one_spin(const Wavefunctions& w) {
  if (w.nspin != 1) throw InputError(w.file, "nspin " + std::to_string(w.nspin) + ": only spin-unpolarized runs are supported (expected 1)");
}

}  // namespace

void check_epsilon_inputs(const std::filesystem::path& input, const EpsilonParams& p, const Wavefunctions& wfn, const Wavefunctions* wfnq) {
  require_one_spin(wfn);
  require_norm_check_off(input, wfn, p.check_norms);
  if (wfnq) require_norm_check_off(input, *wfnq, p.check_norms);
  const int nv = occupied_bands(wfn);
  if (p.nbands <= nv)
    throw InputError(input.string(), "number_bands " + std::to_string(p.nbands) + ": expected more than the " + std::to_string(nv) +
                                         " valence bands of " + wfn.file);
  check_number_bands(input, p.nbands, wfn, p.degeneracy_check_override);
  if (p.ecut > max_epsilon_cutoff(wfn))
    throw InputError(input.string(), "epsilon_cutoff " + str(p.ecut) + " Ry exceeds the cutoff of the density's G-vectors of " + wfn.file +
                                         " (ecutrho " + str(max_epsilon_cutoff(wfn)) + " Ry), the largest sphere there is: expected 0 < epsilon_cutoff <= " +
                                         str(max_epsilon_cutoff(wfn)));
  bool need_q0 = false;
  for (const auto& q : p.qpoints) need_q0 |= q.q0;
  if (need_q0) {
    if (!wfnq) throw InputError(input.string(), "a q-point is flagged as q0, but no WFNq was given");
    require_one_spin(*wfnq);
    if (occupied_bands(*wfnq) != nv)
      throw InputError(wfnq->file, "ifmax " + std::to_string(occupied_bands(*wfnq)) + ": expected the " + std::to_string(nv) + " valence bands of " +
                                       wfn.file);
    // The valence states at k + q0 must close their degenerate sets at the valence edge, as in BerkeleyGW.
    if (wfnq->nbands_file > nv)
      if (const int ik = split_at(*wfnq, nv); ik >= 0)
        degenerate_split(input, "the valence count " + std::to_string(nv), *wfnq, ik, nv, p.degeneracy_check_override);
  }
}

void check_sigma_inputs(const std::filesystem::path& input, const SigmaParams& p, const EpsilonParams& ep, const Wavefunctions& inner) {
  require_one_spin(inner);
  require_norm_check_off(input, inner, p.check_norms);
  check_number_bands(input, p.nbands, inner, p.degeneracy_check_override);
  // The k-points of sigma.inp, each one of WFN_inner's.
  std::vector<int> ks;
  for (const auto& k : p.kpoints) {
    int found = -1;
    for (int i = 0; i < inner.nk() && found < 0; ++i) {
      bool same = true;
      for (int c = 0; c < 3; ++c) same &= std::abs(inner.kpoints[i][c] - k[c] - std::round(inner.kpoints[i][c] - k[c])) < 1e-6;
      if (same) found = i;
    }
    if (found < 0) throw InputError(input.string(), "k-point " + kstr(k) + " is not one of the " + std::to_string(inner.nk()) + " k-points of " + inner.file);
    ks.push_back(found);
  }
  // Stochastic pseudobands: Sigma's bands must be states of the mean field (the protection window), and the
  // occupied states whole (valence pseudobands in Sigma's exchange and Coulomb-hole sums err by up to an eV,
  // as the method's authors warn; they are meant for Epsilon only).
  if (const PseudobandsInfo& pb = inner.pseudobands; pb.present) {
    const int nv = occupied_bands(inner);
    if (pb.nprot_val >= 0)
      throw InputError(inner.file, "valence pseudobands (" + std::to_string(pb.nslice_val) + " slices): expected a WFN_inner whose valence bands are all "
                                   "copied (pseudobands with N_P_val -1); valence pseudobands are for Epsilon only");
    if (pb.nprot_cond >= 0 && p.band_max > nv + pb.nprot_cond)
      throw InputError(input.string(), "band_index_max " + std::to_string(p.band_max) + " is a stochastic pseudoband of " + inner.file +
                                           ": expected at most " + std::to_string(nv + pb.nprot_cond) + ", the last protected band");
  }
  // The band range: Sigma averages over degenerate levels, which must lie whole inside it.
  if (p.band_min > 1)
    if (const int ik = split_at(inner, p.band_min - 1, ks); ik >= 0)
      degenerate_split(input, "band_index_min " + std::to_string(p.band_min), inner, ik, p.band_min - 1, p.degeneracy_check_override);
  if (p.band_max < inner.nbands_file)
    if (const int ik = split_at(inner, p.band_max, ks); ik >= 0)
      degenerate_split(input, "band_index_max " + std::to_string(p.band_max), inner, ik, p.band_max, p.degeneracy_check_override);
  // Cutoffs: the screened sphere lies in the dielectric matrix's and in the bare one; the bare sphere in
  // the density's.
  if (p.ecut_screened > ep.ecut)
    throw InputError(input.string(), "screened_coulomb_cutoff " + str(p.ecut_screened) + " Ry exceeds epsilon_cutoff " + str(ep.ecut) +
                                         " Ry: expected 0 (the dielectric matrix's) to " + str(ep.ecut));
  const double screened = p.ecut_screened > 0 ? p.ecut_screened : ep.ecut;
  const double bare = p.ecut_bare > 0 ? p.ecut_bare : inner.ecutwfc;
  if (bare > inner.ecutrho)
    throw InputError(input.string(), "bare_coulomb_cutoff " + str(bare) + " Ry exceeds the cutoff of the density's G-vectors of " + inner.file +
                                         " (" + str(inner.ecutrho) + " Ry): expected at most " + str(inner.ecutrho));
  if (bare < screened)
    throw InputError(input.string(), std::string(p.ecut_bare > 0 ? "bare_coulomb_cutoff " : "the bare cutoff (the wavefunctions' ecutwfc) ") + str(bare) +
                                         " Ry is below the screened cutoff " + str(screened) + " Ry: expected bare_coulomb_cutoff >= " + str(screened));
  // Full-frequency Sigma needs full-frequency matrices, the plasmon-pole model static ones.
  if (p.frequency_dependence == 2 && ep.frequency_dependence != 2)
    throw InputError(input.string(), "frequency_dependence 2 (full frequency) needs Epsilon's full-frequency matrices: expected frequency_dependence 2 in "
                                     "epsilon.inp (or eps0mat.h5 / epsmat.h5 of a full-frequency run)");
  if (p.subspace && !ep.subspace)
    throw InputError(input.string(), "do_sigma_subspace needs Epsilon's static subspace: expected chi_eigenvalue_cutoff or nbasis_subspace in epsilon.inp");
  if (p.frequency_dependence == 1 && ep.frequency_dependence != 0)
    throw InputError(input.string(), "frequency_dependence 1 (generalized plasmon pole) needs the static matrices: expected frequency_dependence 0 in epsilon.inp "
                                     "(or eps0mat.h5 / epsmat.h5 of a static run)");
  if (p.frequency_dependence == 2 && p.ff_method != ep.frequencies.method)
    throw InputError(input.string(), "frequency_dependence_method " + std::to_string(p.ff_method) + " needs Epsilon's matrices of the same method, but " +
                                         (ep.frequencies.method == 0 ? "Epsilon's grid is the real-axis method's (0)" : "Epsilon's grid is contour deformation's (2)") +
                                         ": expected the same frequency_dependence_method in epsilon.inp and sigma.inp");
  if (p.frequency_dependence == 2 && ep.frequencies.init > 0)
    throw InputError(input.string(), "frequency_dependence 2: Sigma needs W on the real axis from 0 eV (" +
                                         std::string(p.ff_method == 2 ? "the residues" : "SX-X and CH at every |E - E_m|") +
                                         "), but epsilon.inp's init_frequency is " + str(ep.frequencies.init) + " eV (expected 0)");
  if (p.frequency_dependence == 2 && p.ff_method == 2) {  // the real-axis method extrapolates past its grid, with a warning, as BerkeleyGW
    const FrequencyGrid& g = ep.frequencies;
    const auto real = g.real_axis();
    const double reach = cd_real_axis_reach(inner, p), have = real.empty() ? 0 : real.back();
    if (reach > have + 1e-9)
      throw InputError(input.string(), "the residues of bands " + std::to_string(p.band_min) + ".." + std::to_string(p.band_max) + " within max_frequency_eval " +
                                           str(p.max_frequency_eval) + " eV reach " + str(reach) + " eV along the real axis, but epsilon.inp's grid ends at " +
                                           str(have) + " eV: expected frequency_low_cutoff >= " + str(std::ceil(reach)) + " eV");
  }
  // The q-points of the dielectric matrices must generate WFN_inner's k-grid.
  std::vector<Vec3> qirr;
  for (const auto& q : ep.qpoints) qirr.push_back(q.q0 ? Vec3{0, 0, 0} : q.q);
  if (ep.qpoints.empty() || !ep.qpoints[0].q0)
    throw InputError(input.string(), "Sigma needs the q0 point first in epsilon.inp's qpoints (flag 1 on the first row)");
  const auto qfull = unfold(inner.crystal, qirr, all_operations(inner.crystal));
  const auto& g = inner.kgrid;
  if (static_cast<long>(qfull.size()) != static_cast<long>(g[0]) * g[1] * g[2])
    throw InputError(input.string(), "epsilon.inp's q-points unfold to " + std::to_string(qfull.size()) + " points, expected the " + std::to_string(g[0]) +
                                         "x" + std::to_string(g[1]) + "x" + std::to_string(g[2]) + " grid of " + inner.file);
}

}  // namespace quanta::gw
