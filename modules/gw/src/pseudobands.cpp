// Stochastic pseudobands: the slices (plan_pseudobands) and the compressed wavefunctions (make_pseudobands).
#include "quanta/gw/pseudobands.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "blas.hpp"
#include "states.hpp"
#include "quanta/core/error.hpp"
#include "quanta/core/host_memory.hpp"
#include "quanta/core/progress.hpp"

namespace quanta::gw {
namespace {

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

// Band i of one side counted outward from the gap (valence: band ifmax - 1 - i, conduction: ifmax + i, 0-based) and
// its energy from the Fermi level, positive on both sides.
int side_band(int ifmax, bool valence, int i) { return valence ? ifmax - 1 - i : ifmax + i; }
double outward(const Wavefunctions& w, const PseudobandsPlan& plan, bool valence, int k, int i) {
  const double e = w.energy(k, side_band(plan.ifmax, valence, i));
  return valence ? plan.fermi - e : e - plan.fermi;
}

// The edges of one side: with uniform_width, floor(max_freq / width) - 1 slices of that width from E0 (BerkeleyGW's
// script's count), then nslice geometric ones to Emax.
std::vector<double> slice_edges(double e0, double emax, int nslice, double max_freq, double width) {
  std::vector<double> edges{e0};
  if (width > 0) {
    const long n_uniform = static_cast<long>(std::floor(max_freq / width)) - 1;
    for (long i = 1; i <= n_uniform && edges.back() < emax; ++i) edges.push_back(std::min(emax, e0 + static_cast<double>(i) * width));
  }
  const double start = edges.back();
  if (start < emax)
    for (int j = 1; j <= nslice; ++j) edges.push_back(j == nslice ? emax : start * std::pow(emax / start, static_cast<double>(j) / nslice));
  if (edges.size() == 1) edges.push_back(emax);
  return edges;
}

// The slice (index into `lowers`, ascending lower edges) of each unprotected band of one side at k: the last slice
// whose lower edge its energy reaches; a band degenerate with the one before it joins that one's slice.
std::vector<int> assign(const Wavefunctions& w, const PseudobandsPlan& plan, bool valence, int nprot, const std::vector<double>& lowers, int k) {
  const int n = valence ? plan.ifmax : w.nbands_file - plan.ifmax;
  std::vector<int> slice(n, -1);
  for (int i = nprot; i < n; ++i) {
    const double x = outward(w, plan, valence, k, i);
    int j = static_cast<int>(std::upper_bound(lowers.begin(), lowers.end(), x) - lowers.begin()) - 1;
    if (i > nprot && std::abs(w.energy(k, side_band(plan.ifmax, valence, i)) - w.energy(k, side_band(plan.ifmax, valence, i - 1))) < kDegenerateRy)
      j = slice[i - 1];
    slice[i] = std::max(j, i > nprot ? slice[i - 1] : 0);
  }
  return slice;
}

// The slices of one side over the k-points of `files`: E0 the lowest energy of the first unprotected band, Emax the
// highest of the last band; slices that hold no band at any k-point are dropped.
std::vector<PseudobandSlice> make_slices(const std::vector<const Wavefunctions*>& files, const PseudobandsPlan& plan, bool valence, int nprot,
                                         int nslice, double max_freq, double width, const char* option) {
  double e0 = 1e300, emax = -1e300;
  for (const Wavefunctions* w : files) {
    const int n = valence ? plan.ifmax : w->nbands_file - plan.ifmax;
    for (int k = 0; k < w->nk(); ++k) {
      e0 = std::min(e0, outward(*w, plan, valence, k, nprot));
      emax = std::max(emax, outward(*w, plan, valence, k, n - 1));
    }
  }
  if (!(e0 > 0)) throw InputError(option, "the first band outside the protection window lies " + str(e0) + " Ry from the Fermi level: expected beyond it (an insulator)");
  const auto edges = slice_edges(e0, emax, nslice, max_freq, width);
  const std::vector<double> lowers(edges.begin(), edges.end() - 1);
  std::vector<int> used(lowers.size(), 0);
  for (const Wavefunctions* w : files)
    for (int k = 0; k < w->nk(); ++k)
      for (const int j : assign(*w, plan, valence, nprot, lowers, k))
        if (j >= 0) used[j] = 1;
  std::vector<PseudobandSlice> slices;
  for (std::size_t j = 0; j < lowers.size(); ++j)
    if (used[j]) slices.push_back({edges[j], edges[j + 1]});
  return slices;
}

// Whether protecting `nprot` bands on one side splits a degenerate set of `w` (-1: no; else the k-point).
int window_split(const Wavefunctions& w, int ifmax, int nprot, bool valence) {
  if (nprot <= 0) return -1;
  const int below = valence ? ifmax - nprot : ifmax + nprot;  // 1-based: the last band below the cut
  if (below < 1 || below >= w.nbands_file) return -1;
  return split_at(w, below);
}

void check_window(const Wavefunctions& w, int ifmax, int nprot, bool valence, const char* option) {
  const int k = window_split(w, ifmax, nprot, valence);
  if (k < 0) return;
  const int below = valence ? ifmax - nprot : ifmax + nprot;
  const int most = valence ? ifmax : w.nbands_file - ifmax;
  int fewer = nprot - 1, more = nprot + 1;
  while (fewer > 0 && window_split(w, ifmax, fewer, valence) >= 0) --fewer;
  while (more < most && window_split(w, ifmax, more, valence) >= 0) ++more;
  throw InputError(option, std::to_string(nprot) + " splits a degenerate set: bands " + std::to_string(below) + " and " + std::to_string(below + 1) +
                               " of " + w.file + " at k-point " + std::to_string(k + 1) + " are at " + str(w.energy(k, below - 1)) + " and " +
                               str(w.energy(k, below)) + " Ry: expected a count that keeps degenerate sets whole (the nearest: " +
                               std::to_string(fewer) + " or " + std::to_string(more) + ")");
}

int occupied(const Wavefunctions& w) {
  if (w.nspin != 1) throw InputError(w.file, "nspin " + std::to_string(w.nspin) + ": pseudobands are made for spin-unpolarized files only (expected 1)");
  return occupied_bands(w);
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
  for (const Wavefunctions* w : {&wfn, &wfnq})
    if (w->pseudobands.present)
      throw InputError(w->file, "already stochastic pseudobands (its /pseudobands group): expected the deterministic states to compress");
  PseudobandsPlan plan;
  plan.ifmax = occupied(wfn);
  if (occupied(wfnq) != plan.ifmax)
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
  if (!(p.uniform_width >= 0) || !(p.max_freq >= 0)) throw InputError("--uniform_width, --max_freq", "expected values >= 0 Ry");
  if ((p.max_freq > 0) != (p.uniform_width > 0))
    throw InputError(p.max_freq > 0 ? "--max_freq" : "--uniform_width", "given without " + std::string(p.max_freq > 0 ? "--uniform_width" : "--max_freq") +
                                                                              ": expected both (constant slices of width uniform_width up to max_freq) or neither");
  if (p.uniform_width > 0) {
    const double n_uniform = std::floor(p.max_freq / p.uniform_width) - 1;
    if (n_uniform < 1)
      throw InputError("--max_freq", str(p.max_freq) + " Ry with --uniform_width " + str(p.uniform_width) + " Ry: no constant slice (expected max_freq >= 2 uniform_width)");
    if (n_uniform > 1e6)
      throw InputError("--uniform_width", str(p.uniform_width) + " Ry: " + str(n_uniform) + " constant slices below --max_freq " + str(p.max_freq) +
                                              " Ry (expected at most 1e6: a width of the order of Epsilon's frequency step)");
  }
  if (compress_val) {
    check_window(wfn, plan.ifmax, p.protected_val, true, "--N_P_val");
    check_window(wfnq, plan.ifmax, p.protected_val, true, "--N_P_val");
  }
  if (compress_cond) check_window(wfn, plan.ifmax, p.protected_cond, false, "--N_P_cond");

  // The Fermi level at midgap, from both files (BerkeleyGW's script does the same).
  const BandEdges e = band_edges(wfn), eq = band_edges(wfnq);
  const double vbm = std::max(e.vbm, eq.vbm), cbm = std::min(e.cbm, eq.cbm);
  plan.fermi = 0.5 * (vbm + cbm);

  auto nothing_saved = [](const char* side, int out, int in) {
    if (out >= in) warn("gw-pseudobands", std::to_string(out) + " " + side + " bands out for " + std::to_string(in) + " in: nothing is saved");
  };
  plan.bands_out_val = nv;
  plan.bands_out_cond = nc;
  if (compress_val) {
    plan.nprot_val = p.protected_val;
    plan.val = make_slices({&wfn, &wfnq}, plan, true, p.protected_val, p.slices_val, p.max_freq, p.uniform_width, "--N_P_val");
    plan.bands_out_val = p.protected_val + static_cast<int>(plan.val.size()) * p.per_slice_val;
    nothing_saved("valence", plan.bands_out_val, nv);
  }
  if (compress_cond) {
    plan.nprot_cond = p.protected_cond;
    plan.cond = make_slices({&wfn}, plan, false, p.protected_cond, p.slices_cond, p.max_freq, p.uniform_width, "--N_P_cond");
    plan.bands_out_cond = p.protected_cond + static_cast<int>(plan.cond.size()) * p.per_slice_cond;
    nothing_saved("conduction", plan.bands_out_cond, nc);
  }
  for (const bool val : {true, false})
    for (auto& sl : val ? plan.val : plan.cond) sl.bands_min = 1 << 30;
  for (int k = 0; k < wfn.nk(); ++k)
    for (const bool val : {true, false}) {
      auto& slices = val ? plan.val : plan.cond;
      if (slices.empty()) continue;
      const auto bands = slice_bands(wfn, plan, val, k);
      for (std::size_t j = 0; j < slices.size(); ++j) {
        slices[j].bands_min = std::min(slices[j].bands_min, bands[j].second);
        slices[j].bands_max = std::max(slices[j].bands_max, bands[j].second);
      }
    }
  return plan;
}

std::vector<std::pair<int, int>> slice_bands(const Wavefunctions& w, const PseudobandsPlan& plan, bool valence, int k) {
  const auto& slices = valence ? plan.val : plan.cond;
  std::vector<std::pair<int, int>> out(slices.size(), {0, 0});
  if (slices.empty()) return out;
  std::vector<double> lowers;
  for (const auto& sl : slices) lowers.push_back(sl.lower);
  const auto slice = assign(w, plan, valence, valence ? plan.nprot_val : plan.nprot_cond, lowers, k);
  for (int i = 0; i < static_cast<int>(slice.size()); ++i) {
    if (slice[i] < 0) continue;
    auto& r = out[slice[i]];
    const int band = side_band(plan.ifmax, valence, i);
    r.first = r.second == 0 ? band : std::min(r.first, band);
    ++r.second;
  }
  return out;
}

Wavefunctions make_pseudobands(const Wavefunctions& in, const PseudobandsPlan& plan, const PseudobandsParams& p, bool conduction, std::uint64_t stream) {
  if (in.coeffs.empty() || in.nbands != in.nbands_file)
    throw Error("pseudobands: " + in.file + " must be read whole (every band's coefficients)");
  if (in.nspin != 1) throw InputError(in.file, "nspin " + std::to_string(in.nspin) + ": pseudobands are made for spin-unpolarized files only (expected 1)");
  const int ifmax = plan.ifmax;
  const bool val = !plan.val.empty(), cond = conduction && !plan.cond.empty();
  const int nprot_val = val ? plan.nprot_val : ifmax;
  const int nprot_cond = cond ? plan.nprot_cond : in.nbands - ifmax;
  const int out_val = val ? plan.bands_out_val : ifmax;
  const int out_cond = cond ? plan.bands_out_cond : in.nbands - ifmax;
  const int nb = out_val + out_cond;
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
  w.pseudobands.nprot_val = val ? plan.nprot_val : -1;
  w.pseudobands.nslice_val = val ? static_cast<int>(plan.val.size()) : 0;
  w.pseudobands.per_slice_val = val ? p.per_slice_val : 0;
  w.pseudobands.nprot_cond = cond ? plan.nprot_cond : -1;
  w.pseudobands.nslice_cond = cond ? static_cast<int>(plan.cond.size()) : 0;
  w.pseudobands.per_slice_cond = cond ? p.per_slice_cond : 0;
  w.pseudobands.max_freq = p.max_freq;
  w.pseudobands.uniform_width = p.uniform_width;

  for (int k = 0; k < in.nk(); ++k) {
    const int ng = static_cast<int>(in.gvec[k].size());
    std::vector<cplx>& out = w.coeffs[k];
    out.assign(static_cast<std::size_t>(nb) * ng, cplx());
    const auto occ = [&](int n) { return in.occupations[static_cast<std::size_t>(k) * in.nbands + n]; };
    int b = 0;
    std::vector<char> empty(nb, 0);  // zero states (a slice without bands at this k-point)
    auto copy = [&](int n) {
      std::copy(in.band(k, n), in.band(k, n) + ng, out.begin() + static_cast<std::size_t>(b) * ng);
      w.energies[static_cast<std::size_t>(k) * nb + b] = in.energy(k, n);
      w.occupations[static_cast<std::size_t>(k) * nb + b] = occ(n);
      ++b;
    };
    // A slice's N_xi pseudobands at this k-point: xi[G][j] = sum_n c_n[G] alpha[n][j] (one ZGEMM) over its bands
    // first .. first + count - 1; where it holds none here, zero states (their energies set below).
    auto slice = [&](std::pair<int, int> bands, bool valence) {
      const int nxi = valence ? p.per_slice_val : p.per_slice_cond;
      const auto [first, n_s] = bands;
      double e = 0;
      for (int i = 0; i < n_s; ++i) e += in.energy(k, first + i);
      for (int j = 0; j < nxi; ++j) {
        empty[b + j] = n_s == 0;
        w.energies[static_cast<std::size_t>(k) * nb + b + j] = n_s > 0 ? e / n_s : 0.0;
        w.occupations[static_cast<std::size_t>(k) * nb + b + j] = valence ? occ(ifmax - 1) : occ(ifmax);
      }
      if (n_s > 0) {
        std::vector<cplx> alpha(static_cast<std::size_t>(n_s) * nxi);
        const double norm = 1.0 / std::sqrt(static_cast<double>(nxi));
        for (int i = 0; i < n_s; ++i)
          for (int j = 0; j < nxi; ++j) {
            const std::uint64_t r = draw(p.seed, stream, k, first + i, j);
            if (in.complex_flavour) {
              const double theta = kTwoPi * static_cast<double>(r >> 11) * 0x1.0p-53;
              alpha[i + static_cast<std::size_t>(n_s) * j] = cplx(norm * std::cos(theta), norm * std::sin(theta));
            } else {
              alpha[i + static_cast<std::size_t>(n_s) * j] = cplx((r >> 63) ? norm : -norm, 0.0);
            }
          }
        const cplx one(1.0), zero(0.0);
        zgemm_("N", "N", &ng, &nxi, &n_s, &one, in.band(k, first), &ng, alpha.data(), &n_s, &zero, out.data() + static_cast<std::size_t>(b) * ng, &ng);
      }
      b += nxi;
    };
    if (val) {
      const auto bands = slice_bands(in, plan, true, k);
      for (int j = static_cast<int>(plan.val.size()) - 1; j >= 0; --j) slice(bands[j], true);  // deepest first
    }
    for (int n = ifmax - nprot_val; n < ifmax + nprot_cond; ++n) copy(n);
    if (cond) {
      const auto bands = slice_bands(in, plan, false, k);
      for (std::size_t j = 0; j < plan.cond.size(); ++j) slice(bands[j], false);
    }
    if (b != nb) throw Error("pseudobands: internal band count mismatch at k-point " + std::to_string(k + 1));
    // Zero states take energies strictly between their neighbours', so that the energies stay ascending and no
    // degenerate set is made with a real band.
    double* e = w.energies.data() + static_cast<std::size_t>(k) * nb;
    for (int i = 0; i < nb;) {
      if (!empty[i]) {
        ++i;
        continue;
      }
      int j = i;
      while (j < nb && empty[j]) ++j;  // zero states i .. j - 1
      const int run = j - i;
      for (int r = 0; r < run; ++r) {
        if (i > 0 && j < nb) e[i + r] = e[i - 1] + (e[j] - e[i - 1]) * (r + 1) / (run + 1);
        else if (i > 0) e[i + r] = e[i - 1] + 1e-3 * (r + 1);
        else e[i + r] = e[j] - 1e-3 * (run - r);
      }
      i = j;
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
    const int nprot = val ? plan.nprot_val : plan.nprot_cond, nxi = val ? p.per_slice_val : p.per_slice_cond;
    s += std::string(side) + ": " + std::to_string(nprot) + " protected bands, " + std::to_string(slices.size()) + " slices x " + std::to_string(nxi) +
         " pseudobands -> " + std::to_string(val ? plan.bands_out_val : plan.bands_out_cond) + " bands\n";
    for (std::size_t i = 0; i < slices.size(); ++i) {
      const auto& sl = slices[i];
      char line[160];
      std::snprintf(line, sizeof line, "  slice %3zu: %.6f .. %.6f Ry %s the Fermi level, %d..%d bands per k-point\n", i + 1, sl.lower, sl.upper,
                    val ? "below" : "above", sl.bands_min, sl.bands_max);
      s += line;
    }
  }
  return s;
}

}  // namespace quanta::gw
