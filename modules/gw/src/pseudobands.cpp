// Stochastic pseudobands: the slices (plan_pseudobands) and the compressed wavefunctions (make_pseudobands).
#include "quanta/gw/pseudobands.hpp"

#include <cmath>
#include <cstdio>

#include "blas.hpp"
#include "quanta/core/error.hpp"
#include "quanta/core/host_memory.hpp"
#include "quanta/core/progress.hpp"

namespace quanta::gw {
namespace {

constexpr double kDegenerate = 1e-6;  // Ry, BerkeleyGW's TOL_Degeneracy (as checks.cpp)
constexpr double kTwoPi = 6.283185307179586476925286766559;

std::string str(double x) {
  char b[32];
  std::snprintf(b, sizeof b, "%.6g", x);
  return b;
}

// SplitMix64's finalizer: a counter-based draw, the same whatever the order the bands are built in.
std::uint64_t mix(std::uint64_t z) {
  z += 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

std::uint64_t draw(std::uint64_t seed, std::uint64_t stream, std::uint64_t k, std::uint64_t band, std::uint64_t xi) {
  std::uint64_t h = mix(seed);
  for (const std::uint64_t x : {stream, k, band, xi}) h = mix(h ^ x);
  return h;
}

// Band energies of one side, averaged over the k-points of the files given, from the Fermi level (valence:
// fermi - E, so that both sides count upward from the gap), in the order outward from the gap.
std::vector<double> outward_energies(const std::vector<const Wavefunctions*>& files, int ifmax, bool valence, double fermi) {
  const int nb = valence ? ifmax : files[0]->nbands_file - ifmax;
  std::vector<double> e(nb, 0.0);
  int nk = 0;
  for (const Wavefunctions* w : files) {
    for (int k = 0; k < w->nk(); ++k)
      for (int i = 0; i < nb; ++i) e[i] += valence ? fermi - w->energy(k, ifmax - 1 - i) : w->energy(k, ifmax + i) - fermi;
    nk += w->nk();
  }
  for (double& x : e) x /= nk;
  return e;
}

// The slices of one side: bands `nprot` .. end of `e` (outward order), edges as the header says.
std::vector<PseudobandSlice> make_slices(const std::vector<double>& e, int nprot, int nslice, double max_freq, double width, const char* option) {
  const double e0 = e[nprot], emax = e.back();
  if (!(e0 > 0)) throw InputError(option, "the first band outside the protection window lies " + str(e0) + " Ry from the Fermi level: expected above it (an insulator)");
  std::vector<double> edges{e0};
  if (width > 0)
    while (edges.back() + width <= max_freq && edges.back() + width < emax) edges.push_back(edges.back() + width);
  const double start = edges.back();
  for (int j = 1; j <= nslice; ++j) edges.push_back(start * std::pow(emax / start, static_cast<double>(j) / nslice));
  edges.back() = emax;
  std::vector<PseudobandSlice> slices;
  std::size_t n = nprot;
  for (std::size_t j = 0; j + 1 < edges.size() && n < e.size(); ++j) {
    const bool top = j + 2 == edges.size();
    std::size_t m = n;
    while (m < e.size() && (e[m] < edges[j + 1] || top)) ++m;
    if (m == n) continue;  // no band in this slice
    slices.push_back({static_cast<int>(n), static_cast<int>(m - 1), edges[j], edges[j + 1]});
    n = m;
  }
  return slices;
}

// Whether protecting `nprot` bands on one side splits a degenerate set of `w` at some k-point (-1: none).
int window_split(const Wavefunctions& w, int ifmax, int nprot, bool valence) {
  if (nprot <= 0) return -1;
  // bands a (last protected) and b (first compressed), 0-based
  const int a = valence ? ifmax - nprot : ifmax + nprot - 1, b = valence ? a - 1 : a + 1;
  if (b < 0 || b >= w.nbands_file) return -1;
  for (int k = 0; k < w.nk(); ++k)
    if (std::abs(w.energy(k, a) - w.energy(k, b)) < kDegenerate) return k;
  return -1;
}

void check_window(const Wavefunctions& w, int ifmax, int nprot, bool valence, const char* option) {
  const int k = window_split(w, ifmax, nprot, valence);
  if (k < 0) return;
  const int a = valence ? ifmax - nprot : ifmax + nprot - 1, b = valence ? a - 1 : a + 1;
  const int most = valence ? ifmax : w.nbands_file - ifmax;
  int below = nprot - 1, above = nprot + 1;
  while (below > 0 && window_split(w, ifmax, below, valence) >= 0) --below;
  while (above < most && window_split(w, ifmax, above, valence) >= 0) ++above;
  throw InputError(option, std::to_string(nprot) + " splits a degenerate set: bands " + std::to_string(std::min(a, b) + 1) + " and " +
                               std::to_string(std::max(a, b) + 1) + " of " + w.file + " at k-point " + std::to_string(k + 1) + " are at " +
                               str(w.energy(k, a)) + " and " + str(w.energy(k, b)) + " Ry: expected a count that keeps degenerate sets whole (the nearest: " +
                               std::to_string(below) + " or " + std::to_string(above) + ")");
}

int uniform_ifmax(const Wavefunctions& w) {
  if (w.nspin != 1) throw InputError(w.file, "nspin " + std::to_string(w.nspin) + ": pseudobands are made for spin-unpolarized files only (expected 1)");
  const int ifmax = w.ifmax.at(0);
  for (int k = 0; k < w.nk(); ++k)
    if (w.ifmax[k] != ifmax)
      throw InputError(w.file, "ifmax " + std::to_string(w.ifmax[k]) + " at k-point " + std::to_string(k + 1) + " and " + std::to_string(ifmax) +
                                   " at k-point 1: expected the same occupied bands at every k-point (an insulator)");
  return ifmax;
}

// Everything of `in` but its coefficients (the gvec lists are kept: the output has the same k-points).
Wavefunctions header_of(const Wavefunctions& in) {
  Wavefunctions w;
  w.file = in.file;
  w.complex_flavour = in.complex_flavour;
  w.nspin = in.nspin;
  w.crystal = in.crystal;
  w.ecutrho = in.ecutrho, w.ecutwfc = in.ecutwfc;
  w.kgrid = in.kgrid, w.kshift = in.kshift;
  w.nbands = in.nbands, w.nbands_file = in.nbands_file;
  w.kpoints = in.kpoints, w.kweights = in.kweights, w.ngk = in.ngk;
  w.ifmin = in.ifmin, w.ifmax = in.ifmax;
  w.energies = in.energies, w.occupations = in.occupations;
  w.gvec_rho = in.gvec_rho, w.gvec = in.gvec;
  w.pseudobands = in.pseudobands;
  return w;
}

}  // namespace

PseudobandsPlan plan_pseudobands(const Wavefunctions& wfn, const Wavefunctions& wfnq, const PseudobandsParams& p) {
  PseudobandsPlan plan;
  plan.ifmax = uniform_ifmax(wfn);
  if (uniform_ifmax(wfnq) != plan.ifmax)
    throw InputError(wfnq.file, "ifmax " + std::to_string(wfnq.ifmax[0]) + ": expected " + std::to_string(plan.ifmax) + ", the occupied bands of " + wfn.file);
  const int nv = plan.ifmax, nc = wfn.nbands_file - plan.ifmax;
  if (nc < 1 || wfnq.nbands_file <= plan.ifmax)
    throw InputError(nc < 1 ? wfn.file : wfnq.file, "no conduction band: expected at least one above the " + std::to_string(plan.ifmax) + " occupied bands");
  if (p.protected_val < -1 || p.protected_val > nv)
    throw InputError("--N_P_val", std::to_string(p.protected_val) + ": expected -1 (all) .. " + std::to_string(nv) + ", the valence bands of " + wfn.file);
  if (p.protected_cond < -1 || p.protected_cond > nc)
    throw InputError("--N_P_cond", std::to_string(p.protected_cond) + ": expected -1 (all) .. " + std::to_string(nc) + ", the conduction bands of " + wfn.file);
  const bool compress_val = p.protected_val >= 0 && p.protected_val < nv;
  const bool compress_cond = p.protected_cond >= 0 && p.protected_cond < nc;
  if (!compress_val && !compress_cond)
    throw InputError("--N_P_val, --N_P_cond", "every band is protected: nothing to compress (expected N_P_cond below " + std::to_string(nc) +
                                                  " or N_P_val below " + std::to_string(nv) + ")");
  if (compress_val && p.per_slice_val < 2) throw InputError("--N_xi_val", std::to_string(p.per_slice_val) + ": expected at least 2 pseudobands per slice");
  if (compress_cond && p.per_slice_cond < 2) throw InputError("--N_xi_cond", std::to_string(p.per_slice_cond) + ": expected at least 2 pseudobands per slice");
  if (compress_val && p.slices_val < 1) throw InputError("--N_S_val", std::to_string(p.slices_val) + ": expected at least 1 slice");
  if (compress_cond && p.slices_cond < 1) throw InputError("--N_S_cond", std::to_string(p.slices_cond) + ": expected at least 1 slice");
  if (p.uniform_width < 0) throw InputError("--uniform_width", str(p.uniform_width) + ": expected a width >= 0 Ry");
  if (p.max_freq > 0 && !(p.uniform_width > 0))
    throw InputError("--max_freq", str(p.max_freq) + " Ry without --uniform_width: expected the width of the constant slices below it (half the "
                                                     "spacing of Epsilon's real-frequency grid)");
  if (compress_val) check_window(wfn, plan.ifmax, p.protected_val, true, "--N_P_val");
  if (compress_cond) check_window(wfn, plan.ifmax, p.protected_cond, false, "--N_P_cond");

  // The Fermi level at midgap, from both files (BerkeleyGW's script does the same).
  double vbm = -1e300, cbm = 1e300;
  for (const Wavefunctions* w : {&wfn, &wfnq})
    for (int k = 0; k < w->nk(); ++k) {
      vbm = std::max(vbm, w->energy(k, plan.ifmax - 1));
      cbm = std::min(cbm, w->energy(k, plan.ifmax));
    }
  plan.fermi = 0.5 * (vbm + cbm);

  plan.bands_out_val = nv;
  plan.bands_out_cond = nc;
  if (compress_val) {
    plan.val = make_slices(outward_energies({&wfn, &wfnq}, plan.ifmax, true, plan.fermi), p.protected_val, p.slices_val, 0, 0, "--N_P_val");
    plan.bands_out_val = p.protected_val + static_cast<int>(plan.val.size()) * p.per_slice_val;
    if (plan.bands_out_val >= nv)
      throw InputError("--N_P_val, --N_S_val, --N_xi_val", std::to_string(plan.bands_out_val) + " valence bands out (" + std::to_string(p.protected_val) +
                                                               " protected + " + std::to_string(plan.val.size()) + " slices x " + std::to_string(p.per_slice_val) +
                                                               "): expected fewer than the " + std::to_string(nv) + " there are");
  }
  if (compress_cond) {
    plan.cond = make_slices(outward_energies({&wfn}, plan.ifmax, false, plan.fermi), p.protected_cond, p.slices_cond, p.max_freq, p.uniform_width,
                            "--N_P_cond");
    plan.bands_out_cond = p.protected_cond + static_cast<int>(plan.cond.size()) * p.per_slice_cond;
    if (plan.bands_out_cond >= nc)
      warn("gw-pseudobands", std::to_string(plan.bands_out_cond) + " conduction bands out (" + std::to_string(p.protected_cond) + " protected + " +
                                 std::to_string(plan.cond.size()) + " slices x " + std::to_string(p.per_slice_cond) + ") for " + std::to_string(nc) +
                                 " in: nothing is saved");
  }
  return plan;
}

Wavefunctions make_pseudobands(const Wavefunctions& in, const PseudobandsPlan& plan, const PseudobandsParams& p, bool conduction, std::uint64_t stream) {
  if (in.coeffs.empty() || in.nbands != in.nbands_file)
    throw Error("pseudobands: " + in.file + " must be read whole (every band's coefficients)");
  const int ifmax = plan.ifmax;
  const bool val = !plan.val.empty(), cond = conduction && !plan.cond.empty();
  const int out_val = val ? plan.bands_out_val : ifmax;
  const int out_cond = cond ? plan.bands_out_cond : in.nbands - ifmax;
  // The output's bands: where each comes from. A copied band: its index; a pseudoband: slice and draw.
  struct Source {
    int band = -1;                         // copied band, or -1
    const PseudobandSlice* slice = nullptr;
    int xi = 0;
  };
  std::vector<Source> src;
  if (val)
    for (auto s = plan.val.rbegin(); s != plan.val.rend(); ++s)  // deepest slice first: ascending energy
      for (int j = 0; j < p.per_slice_val; ++j) src.push_back({-1, &*s, j});
  for (int n = val ? ifmax - p.protected_val : 0; n < ifmax; ++n) src.push_back({n});
  for (int n = ifmax; n < (cond ? ifmax + p.protected_cond : in.nbands); ++n) src.push_back({n});
  if (cond)
    for (const auto& s : plan.cond)
      for (int j = 0; j < p.per_slice_cond; ++j) src.push_back({-1, &s, j});
  const int nb = static_cast<int>(src.size());
  if (nb != out_val + out_cond) throw Error("pseudobands: internal band count mismatch");

  std::size_t ngtot = 0;
  for (const auto& g : in.gvec) ngtot += g.size();
  require_host_memory(bytes_of(sizeof(cplx), nb, ngtot), "the pseudobands of " + in.file + " (" + std::to_string(nb) + " bands x " +
                                                              std::to_string(ngtot) + " coefficients, beside the input's)");
  Wavefunctions w = header_of(in);
  w.nbands = w.nbands_file = nb;
  w.coeffs.assign(in.nk(), {});
  w.energies.assign(static_cast<std::size_t>(in.nk()) * nb, 0.0);
  w.occupations.assign(static_cast<std::size_t>(in.nk()) * nb, 0.0);
  for (int k = 0; k < in.nk(); ++k) w.ifmax[k] = out_val;
  w.pseudobands = {};
  w.pseudobands.present = true;
  w.pseudobands.nprot_val = val ? p.protected_val : -1;
  w.pseudobands.nslice_val = val ? static_cast<int>(plan.val.size()) : 0;
  w.pseudobands.per_slice_val = val ? p.per_slice_val : 0;
  w.pseudobands.nprot_cond = cond ? p.protected_cond : -1;
  w.pseudobands.nslice_cond = cond ? static_cast<int>(plan.cond.size()) : 0;
  w.pseudobands.per_slice_cond = cond ? p.per_slice_cond : 0;
  w.pseudobands.max_freq = p.max_freq;
  w.pseudobands.uniform_width = p.uniform_width;

  for (int k = 0; k < in.nk(); ++k) {
    const int ng = static_cast<int>(in.gvec[k].size());
    std::vector<cplx>& out = w.coeffs[k];
    out.assign(static_cast<std::size_t>(nb) * ng, cplx());
    for (int b = 0; b < nb;) {
      const Source& s = src[b];
      if (s.band >= 0) {
        std::copy(in.band(k, s.band), in.band(k, s.band) + ng, out.begin() + static_cast<std::size_t>(b) * ng);
        w.energies[static_cast<std::size_t>(k) * nb + b] = in.energy(k, s.band);
        w.occupations[static_cast<std::size_t>(k) * nb + b] = in.occupations[static_cast<std::size_t>(k) * in.nbands + s.band];
        ++b;
        continue;
      }
      // A slice's N_xi pseudobands at once: xi[G][j] = sum_n c_n[G] alpha[n][j] (one ZGEMM).
      const bool valence_slice = b < out_val;
      const int nxi = valence_slice ? p.per_slice_val : p.per_slice_cond;
      const PseudobandSlice& sl = *s.slice;
      const int n_s = sl.last - sl.first + 1;
      const int first_band = valence_slice ? ifmax - 1 - sl.last : ifmax + sl.first;  // input bands first_band .. first_band + n_s - 1
      std::vector<cplx> alpha(static_cast<std::size_t>(n_s) * nxi);
      const double norm = 1.0 / std::sqrt(static_cast<double>(nxi));
      double e = 0, occ = 0;
      for (int i = 0; i < n_s; ++i) {
        const int n = first_band + i;
        e += in.energy(k, n);
        occ += in.occupations[static_cast<std::size_t>(k) * in.nbands + n];
        for (int j = 0; j < nxi; ++j) {
          const std::uint64_t r = draw(p.seed, stream, k, n, j);
          if (in.complex_flavour) {
            const double theta = kTwoPi * static_cast<double>(r >> 11) * 0x1.0p-53;
            alpha[i + static_cast<std::size_t>(n_s) * j] = cplx(norm * std::cos(theta), norm * std::sin(theta));
          } else {
            alpha[i + static_cast<std::size_t>(n_s) * j] = cplx((r >> 63) ? norm : -norm, 0.0);
          }
        }
      }
      const cplx one(1.0), zero(0.0);
      zgemm_("N", "N", &ng, &nxi, &n_s, &one, in.band(k, first_band), &ng, alpha.data(), &n_s, &zero,
             out.data() + static_cast<std::size_t>(b) * ng, &ng);
      for (int j = 0; j < nxi; ++j) {
        w.energies[static_cast<std::size_t>(k) * nb + b + j] = e / n_s;
        w.occupations[static_cast<std::size_t>(k) * nb + b + j] = occ / n_s;
      }
      b += nxi;
    }
  }
  return w;
}

std::string describe(const PseudobandsPlan& plan, const PseudobandsParams& p) {
  std::string s = "Fermi level (midgap) " + str(plan.fermi) + " Ry; " + std::to_string(plan.ifmax) + " occupied bands\n";
  for (const bool val : {true, false}) {
    const auto& slices = val ? plan.val : plan.cond;
    const char* side = val ? "valence" : "conduction";
    if (slices.empty()) {
      s += std::string(side) + ": no pseudobands, every band copied\n";
      continue;
    }
    const int nprot = val ? p.protected_val : p.protected_cond, nxi = val ? p.per_slice_val : p.per_slice_cond;
    s += std::string(side) + ": " + std::to_string(nprot) + " protected bands, " + std::to_string(slices.size()) + " slices x " + std::to_string(nxi) +
         " pseudobands -> " + std::to_string(val ? plan.bands_out_val : plan.bands_out_cond) + " bands\n";
    for (std::size_t i = 0; i < slices.size(); ++i) {
      const auto& sl = slices[i];
      const int a = val ? plan.ifmax - sl.last : plan.ifmax + sl.first + 1, b = val ? plan.ifmax - sl.first : plan.ifmax + sl.last + 1;
      char line[160];
      std::snprintf(line, sizeof line, "  slice %3zu: bands %5d..%-5d (%4d) %s %.6f .. %.6f Ry from the Fermi level\n", i + 1, a, b, sl.last - sl.first + 1,
                    val ? "below" : "above", sl.lower, sl.upper);
      s += line;
    }
  }
  return s;
}

}  // namespace quanta::gw
