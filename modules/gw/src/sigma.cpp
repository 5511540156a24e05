// Sigma, stage by stage for each k: the q-points of the full grid reduced by k's little group; for each,
// the screened interaction (the irreducible q's eps^-1 rotated to q, its wings fixed as BerkeleyGW does,
// the plasmon-pole modes), the states at k-q, their matrix elements with the states at k (MTXEL), the bare
// exchange and the GPP sums. Then band averaging over degenerate levels and the quasiparticle energies.
#include <algorithm>
#include <array>
#include <cstdint>
#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <span>

#include "../kernels/cd.hpp"
#include "../kernels/gpp.hpp"
#include "../kernels/gpp_matrix.hpp"
#include "../kernels/gpp_modes.hpp"
#include "../kernels/mtxel.hpp"
#include "../kernels/sigma_rows.hpp"
#include "coulomb.hpp"
#include "quanta/core/buffer.hpp"
#include "quanta/core/comm.hpp"
#include "quanta/core/error.hpp"
#include "quanta/core/host_memory.hpp"
#include "quanta/core/progress.hpp"
#include "quanta/core/threads.hpp"
#include "quanta/core/timer.hpp"
#include "quanta/core/units.hpp"
#include "quanta/gw/sigma.hpp"
#include "blas.hpp"
#include "contour.hpp"
#include "states.hpp"

namespace quanta::gw {
namespace {

bool same_k(const Vec3& a, const Vec3& b) {
  for (int i = 0; i < 3; ++i) {
    const double d = a[i] - b[i];
    if (std::abs(d - std::round(d)) > 1e-6) return false;
  }
  return true;
}

Vec3 add(const Vec3& q, const Vec3i& g) { return {q[0] + g[0], q[1] + g[1], q[2] + g[2]}; }

// The q-points of the full grid and, for k, the representatives under its little group with their counts.
struct QStar {
  Vec3 q;
  int weight;
};
std::vector<QStar> reduce_by_little_group(const Crystal& c, const std::vector<Vec3>& qfull, const Vec3& k, bool use) {
  std::vector<QStar> out;
  if (!use) {
    for (const auto& q : qfull) out.push_back({q, 1});
    return out;
  }
  const auto ops = little_group(c, k);
  std::vector<bool> done(qfull.size(), false);
  for (std::size_t i = 0; i < qfull.size(); ++i) {
    if (done[i]) continue;
    int count = 0;
    for (std::size_t j = i; j < qfull.size(); ++j) {
      if (done[j]) continue;
      for (int s : ops)
        if (same_k(apply(c.rotation[s], qfull[i]), qfull[j])) {
          done[j] = true;
          ++count;
          break;
        }
    }
    out.push_back({qfull[i], count});
  }
  return out;
}

// The screened interaction at one q of the full grid, on the irreducible q's sphere mapped to q.
// (The plasmon-pole modes on it are GppModes' arrays.)
struct Screening {
  std::vector<int> where;     // [ngs] index of each screened G in the bare list of q
  std::vector<double> v;      // [ngs] v(q+G) with the zone weight
};

// Full frequency: Eqp0 from Sigma at E_mf; Eqp1 the root of E_mf + Re Sigma(E) - Vxc - E on the evaluation grid
// (linear between neighbouring points; of several, the one nearest Eqp0; with none, the line through the two
// end points nearest the sign change it heads for, with a warning), as BerkeleyGW's full-frequency Sigma finds it;
// Znk and the linearized solution from the central difference of Re Sigma at E_mf.
// The real-axis method, as BerkeleyGW's get_eqp1 does it: Eqp0 from X + SX-X + CH at E_mf; Eqp1 the root of
// f(E) = E_mf + X + Cor4(E) - Vxc - E (Re f from > 0 to < 0 between neighbouring points, linear; of several, the one
// nearest Re Eqp0, "MULT:n"; the imaginary part interpolated likewise); with none, the line through the first two points
// when Re f starts below zero and falls ("extrap-"), through the last two when it ends above zero and falls ("extrap+"),
// else Eqp0 ("NO_SOLN!", warned). Znk and the linearized solution from the central difference of Re Cor4 at E_mf.
void real_axis_energies(SigmaBand& b, const Vec3& k, double step) {
  const int ne = static_cast<int>(b.ff_omega.size()), c = ne / 2;
  const std::string where = "sigma, k-point (" + std::to_string(k[0]) + ", " + std::to_string(k[1]) + ", " + std::to_string(k[2]) + "), band " + std::to_string(b.n);
  std::vector<cplx> f(ne);
  for (int e = 0; e < ne; ++e) f[e] = cplx(b.emf + b.x - b.vxc - b.ff_omega[e]) + b.ff_cor4[e];
  const cplx sig = cplx(b.x) + b.ff_res[c] + b.ff_int[c];
  b.sig = sig.re;
  b.eqp0 = b.emf - b.vxc + sig.re;
  auto root = [&](int i) {  // the line through points i, i + 1
    const double r = b.ff_omega[i] + f[i].re * step / (f[i].re - f[i + 1].re);
    const double im = ((b.ff_omega[i + 1] - r) * f[i].im + (r - b.ff_omega[i]) * f[i + 1].im) / step;
    return std::pair{r, im};
  };
  int found = 0;
  std::pair<double, double> best{0, 0};
  for (int e = 1; e < ne; ++e)
    if (f[e - 1].re > 0 && f[e].re < 0) {
      const auto r = root(e - 1);
      if (found == 0 || std::abs(r.first - b.eqp0) < std::abs(best.first - b.eqp0)) best = r;
      ++found;
    }
  if (found == 1) b.soln = "unique";
  else if (found > 1) b.soln = "MULT:" + std::to_string(found);
  else if (ne >= 2 && f[0].re < 0 && f[0].re > f[1].re) b.soln = "extrap-", best = root(0);
  else if (ne >= 2 && f[ne - 1].re > 0 && f[ne - 2].re > f[ne - 1].re) b.soln = "extrap+", best = root(ne - 2);
  else {
    b.soln = "NO_SOLN!";
    best = {b.eqp0, sig.im};
    warn("gw", where + ": E_mf + X + Cor4(E) - Vxc = E has no root on the evaluation grid and no extrapolation; Eqp1 is Eqp0 (as BerkeleyGW prints "
                       "NO_SOLN!)");
  }
  b.eqp1 = best.first;
  b.eqp1_im = best.second;
  double slope = 0;
  if (ne >= 3) slope = (b.ff_cor4[c + 1].re - b.ff_cor4[c - 1].re) / (2 * step);
  b.znk = 1.0 / (1.0 - slope);
  b.eqp_lin = b.emf + b.znk * (b.x + b.ff_cor4[c].re - b.vxc);
  for (const double v : {b.x, b.sig, b.eqp0, b.eqp1, b.eqp1_im, b.znk, b.eqp_lin})
    if (!std::isfinite(v)) throw Error(where + ": a non-finite value among X, Sigma, Eqp0, Eqp1 and Znk (real-axis method)");
  for (int e = 0; e < ne; ++e)
    for (const cplx v : {b.ff_res[e], b.ff_int[e], b.ff_cor[e], b.ff_cor4[e]})
      if (!std::isfinite(v.re) || !std::isfinite(v.im))
        throw Error(where + ": a non-finite Sigma at " + std::to_string(b.ff_omega[e]) + " eV on the evaluation grid (real-axis method)");
}

void full_frequency_energies(SigmaBand& b, const Vec3& k, double step) {
  if (b.ff_method == 0) return real_axis_energies(b, k, step);
  const int ne = static_cast<int>(b.ff_omega.size()), c = ne / 2;
  std::vector<double> f(ne);
  for (int e = 0; e < ne; ++e) f[e] = b.emf + b.x + (b.ff_res[e] + b.ff_int[e]).re - b.vxc - b.ff_omega[e];
  b.sig = b.x + b.sx_x[0] + b.ch[0];
  b.eqp0 = b.emf - b.vxc + b.sig;
  double best = std::numeric_limits<double>::quiet_NaN();
  for (int e = 1; e < ne; ++e)
    if (f[e - 1] > 0 && f[e] <= 0) {
      const double root = b.ff_omega[e - 1] + f[e - 1] * step / (f[e - 1] - f[e]);
      if (std::isnan(best) || std::abs(root - b.eqp0) < std::abs(best - b.eqp0)) best = root;
    }
  const std::string where = "sigma, k-point (" + std::to_string(k[0]) + ", " + std::to_string(k[1]) + ", " + std::to_string(k[2]) + "), band " + std::to_string(b.n);
  if (std::isnan(best) && ne >= 2) {
    const int lo = f[0] < 0 ? 0 : ne - 2;  // all below zero: the root lies below the grid; all above: above it
    best = b.ff_omega[lo] + f[lo] * step / (f[lo] - f[lo + 1]);
    warn("gw", where + ": E_mf + Sigma(E) - Vxc = E has no root on the evaluation grid " + std::to_string(b.ff_omega.front()) + " .. " +
                   std::to_string(b.ff_omega.back()) + " eV; Eqp1 " + std::to_string(best) + " eV is extrapolated (raise max_frequency_eval)");
  }
  b.eqp1 = ne >= 2 ? best : b.eqp0;
  double slope = 0;
  if (ne >= 3) slope = ((b.ff_res[c + 1] + b.ff_int[c + 1]).re - (b.ff_res[c - 1] + b.ff_int[c - 1]).re) / (2 * step);
  b.znk = 1.0 / (1.0 - slope);
  b.eqp_lin = b.emf + b.znk * (b.sig - b.vxc);
  for (const double v : {b.x, b.sig, b.eqp0, b.eqp1, b.znk, b.eqp_lin})
    if (!std::isfinite(v)) throw Error(where + ": a non-finite value among X, Sigma, Eqp0, Eqp1 and Znk (full frequency)");
  for (int e = 0; e < ne; ++e)
    for (const cplx v : {b.ff_res[e], b.ff_int[e]})
      if (!std::isfinite(v.re) || !std::isfinite(v.im))
        throw Error(where + ": a non-finite Sigma at " + std::to_string(b.ff_omega[e]) + " eV on the evaluation grid (full frequency)");
}

// Full frequency on the device (CUDA, G basis): the irreducible q's eps^-1 at every frequency, this q's rotation lists, a
// chunk of rotated matrices for the contraction, and what the contraction may take besides.
struct FfDevice {
  DeviceBuffer<cplx> raw;     // [nf][ng_irr][ng_irr]
  int irr = -1;               // the irreducible q raw holds
  DeviceBuffer<int> keep;
  DeviceBuffer<cplx> phase;
  kernels::CdRotateJob rotation;  // its keep and phase on the device
  DeviceBuffer<cplx> mats;    // [mats_chunk][ncol][ngs]
  int mats_chunk = 0;
  std::size_t contract_budget = 0;
};

// The static subspace's rotation to one q (do_sigma_subspace), as Sigma builds it: eps^-1(z) - 1 on q's screened sphere
// and this process's columns is static_part (eps^-1(0) - 1 rotated; empty without the whole static part) plus
// L D'(z) R^H, D' = D or its transpose. Rv holds R with v(q+G') folded in, on the rows G' of this process's columns
// (zero elsewhere). The G = 0 row of L and R carry the wings, and the (G = 0, G = 0) element gets head_fix times its
// unscaled value l0 D' r0^H added back.
struct SubspaceRotation {
  int nb = 0;
  bool transposed = false;
  std::vector<cplx> L, Rv, static_part, l0, r0;
  int g0 = -1;
  double head_fix = 0;
};

// s(r, f) = sum_{G, G'} M_r(G) conj(M_r(G')) W(G, G'; z_f0+f) v(G') for the static subspace's W: the static part by
// `contract` (the G-basis contraction of one matrix), the rest by cd_subspace (kernels/cd.hpp) with the head's
// correction head_f = head_fix v(0) l0 D'_f r0^H.
template <class Contract>
void subspace_values(Backend backend, std::size_t device_budget, double* kernel_seconds, double* flops, const SubspaceRotation& sr, const DielectricMatrix& d, int f0,
                     int nmat, const cplx* rows, int nrows, int ng, const std::vector<double>& v, std::vector<cplx>& out, const Contract& contract) {
  out.assign(static_cast<std::size_t>(nrows) * nmat, cplx());
  if (nrows == 0 || nmat == 0) return;
  const int nb = sr.nb;
  const std::size_t b2 = static_cast<std::size_t>(nb) * nb;
  std::vector<cplx> head;
  if (sr.head_fix != 0 && !sr.r0.empty()) {
    head.assign(nmat, cplx());
    for (int f = 0; f < nmat; ++f) {
      const cplx* dc = d.sub_c.data() + static_cast<std::size_t>(f0 + f) * b2;
      cplx h;  // l0 D' r0^H, the unscaled crossing
      for (int i = 0; i < nb; ++i)
        for (int j = 0; j < nb; ++j) h += sr.l0[i] * (sr.transposed ? dc[j + static_cast<std::size_t>(nb) * i] : dc[i + static_cast<std::size_t>(nb) * j]) * conj(sr.r0[j]);
      head[f] = sr.head_fix * v[sr.g0] * h;
    }
  }
  kernels::CdSubspaceJob job;
  job.ng = ng;
  job.nb = nb;
  job.L = sr.L.data();
  job.Rv = sr.Rv.data();
  job.nmat = nmat;
  job.d = d.sub_c.data() + static_cast<std::size_t>(f0) * b2;
  job.transposed = sr.transposed;
  job.head = head.empty() ? nullptr : head.data();
  job.g0 = head.empty() ? -1 : sr.g0;
  job.nrows = nrows;
  job.m = rows;
  job.s = out.data();
  job.kernel_seconds = kernel_seconds;
  kernels::cd_subspace(backend, job, device_budget);
  *flops += job.flops();
  if (sr.static_part.empty()) return;
  std::vector<cplx> s0;
  contract(sr.static_part, rows, nrows, s0);
  for (int r = 0; r < nrows; ++r)  // the static part, the same at every frequency
    for (int f = 0; f < nmat; ++f) out[static_cast<std::size_t>(r) * nmat + f] += s0[r];
}

}  // namespace

double cd_real_axis_reach(const Wavefunctions& inner, const SigmaParams& p) {
  const int nocc = occupied_bands(inner);
  double vbm = -1e300, cbm = 1e300;
  for (int k = 0; k < inner.nk(); ++k) {
    vbm = std::max(vbm, inner.energy(k, nocc - 1) * kRydbergEV);
    cbm = std::min(cbm, inner.energy(k, nocc) * kRydbergEV);
  }
  double need = 0;
  for (const auto& k : p.kpoints)
    for (int i = 0; i < inner.nk(); ++i)
      if (same_k(inner.kpoints[i], k))
        for (int n = p.band_min - 1; n < p.band_max; ++n)
          for (const double e : {inner.energy(i, n) * kRydbergEV - p.max_frequency_eval, inner.energy(i, n) * kRydbergEV + p.max_frequency_eval})
            need = std::max({need, vbm - e, e - cbm});
  return need;
}

std::string sigma_pools_problem(int processes, int pools, int nbands) {
  if (processes <= 1 || pools == 0 || (processes % pools == 0 && pools <= nbands)) return {};
  return "number_sigma_pools " + std::to_string(pools) + ": expected a divisor of the " + std::to_string(processes) + " processes, at most the " +
         std::to_string(nbands) + " bands of band_index_min..band_index_max";
}

SigmaShare sigma_share(int processes, int rank, int pools, std::size_t pairs, int nbands) {
  SigmaShare s;
  s.n_hi = nbands;
  if (processes <= 1) return s;
  if (pools == 0 && pairs >= static_cast<std::size_t>(processes)) {  // whole (k, q) pairs, every P-th from the rank
    s.by_pairs = true;
    return s;
  }
  s.pools = pools == 0 ? 1 : pools;
  if (const auto why = sigma_pools_problem(processes, s.pools, nbands); !why.empty()) throw Error(why);
  s.pool_size = processes / s.pools;
  s.pool = rank / s.pool_size;
  s.member = rank % s.pool_size;
  s.n_lo = static_cast<int>(static_cast<long>(nbands) * s.pool / s.pools);
  s.n_hi = static_cast<int>(static_cast<long>(nbands) * (s.pool + 1) / s.pools);
  return s;
}

std::vector<SigmaK> compute_sigma(const Wavefunctions& inner, const Density& rho, const VxcTable& vxc,
                                  const std::vector<DielectricMatrix>& eps, const SigmaParams& p, SigmaTimings* timings) {
  const Crystal& c = inner.crystal;
  const double pi = units::pi;
  SigmaTimings t;
  WallTimer tsetup;
  if (inner.nspin != 1) throw InputError(inner.file, "nspin " + std::to_string(inner.nspin) + ": only spin-unpolarized runs are supported");
  if (p.nbands > inner.nbands)
    throw InputError(inner.file, "number_bands " + std::to_string(p.nbands) + " exceeds the " + std::to_string(inner.nbands) + " bands of the file");
  if (p.band_min < 1 || p.band_max < p.band_min || p.band_max > p.nbands)
    throw Error("band_index_min/max " + std::to_string(p.band_min) + ".." + std::to_string(p.band_max) + ": expected 1 <= min <= max <= number_bands");
  if (eps.empty() || !eps[0].q.q0) throw Error("sigma: the first dielectric matrix must be the q0 point");
  const int nocc = occupied_bands(inner);
  // Full frequency (contour deformation): every dielectric matrix carries eps^-1 on Epsilon's frequencies, and the
  // residues need W on the real axis up to the largest |E - E_m| of an evaluation energy E and a band m on the other
  // side of the gap: checked now, not after hours of sums.
  const bool full_frequency = p.frequency_dependence == 2;
  const int ne = full_frequency ? p.eval_points() : 2;
  std::vector<double> w_imag, w_ra, eta_ra;  // the imaginary axis (contour deformation); the real axis (method 0)
  double w_real0 = 0, w_real_step = 1;
  int n_real = 0;
  const bool real_axis_method = full_frequency && p.ff_method == 0;
  if (real_axis_method) {
    auto same_grid = [&](const DielectricMatrix& d) {
      if (d.freq.size() != eps[0].freq.size()) return false;
      for (std::size_t j = 0; j < d.freq.size(); ++j)
        if (std::abs(d.freq[j].re - eps[0].freq[j].re) > 1e-9 || std::abs(d.freq[j].im - eps[0].freq[j].im) > 1e-9) return false;  // as the file reader
      return true;
    };
    for (const auto& d : eps)
      if (d.freq.empty() || d.n_real != d.nfreq() || d.n_real < 2 || d.epsinv_ff.empty() || !same_grid(d))
        throw Error("sigma: frequency_dependence_method 0 needs Epsilon's real-axis eps^-1 (frequency_dependence 2 and frequency_dependence_method 0 in "
                    "epsilon.inp: at least two real frequencies, no imaginary ones, the same grid for every q-point)");
    for (const auto& z : eps[0].freq) w_ra.push_back(z.re), eta_ra.push_back(z.im);
    n_real = eps[0].n_real;
  } else if (full_frequency) {
    for (const auto& d : eps)
      if (d.freq.empty() || d.n_real < 1 || d.nfreq() - d.n_real < 2 || (p.subspace ? d.sub_basis.empty() : d.epsinv_ff.empty()))
        throw Error("sigma: frequency_dependence 2 needs Epsilon's full-frequency eps^-1 (frequency_dependence 2 in epsilon.inp, at least one real and "
                    "two imaginary frequencies; with do_sigma_subspace, its static subspace basis; Epsilon's real-axis method 0 goes with Sigma's "
                    "frequency_dependence_method 0)");
    const auto& d = eps[0];
    n_real = d.n_real;
    w_real0 = d.freq[0].re;
    w_real_step = n_real > 1 ? d.freq[1].re - d.freq[0].re : 1.0;
    for (int f = n_real; f < d.nfreq(); ++f) w_imag.push_back(d.freq[f].im);
    const double need = cd_real_axis_reach(inner, p), have = w_real0 + (n_real - 1) * w_real_step;
    if (need > have + 1e-9)
      throw Error("sigma: the residues need W on the real axis up to " + std::to_string(need) + " eV, but Epsilon's real-axis frequencies end at " +
                  std::to_string(have) + " eV: raise frequency_low_cutoff in epsilon.inp to at least " + std::to_string(std::ceil(need)) + " eV");
  }

  // The q grid: the irreducible q of the dielectric matrices (q0 taken as 0) unfolded.
  std::vector<Vec3> qirr;
  for (const auto& d : eps) qirr.push_back(d.q.q0 ? Vec3{0, 0, 0} : d.q.q);
  const auto ops = all_operations(c);
  const auto qfull = unfold(c, qirr, ops);
  const Vec3i qgrid = inner.kgrid;
  const int nq = qgrid[0] * qgrid[1] * qgrid[2];
  if (static_cast<int>(qfull.size()) != nq)
    throw Error("the dielectric matrices' q-points unfold to " + std::to_string(qfull.size()) + " points, expected the " +
                std::to_string(qgrid[0]) + "x" + std::to_string(qgrid[1]) + "x" + std::to_string(qgrid[2]) + " grid of " + inner.file);
  const double fact = 1.0 / (nq * c.celvol);
  const MiniBzAverage coulomb(c, qgrid);

  // The plasma frequency and the density's Fourier components for the GPP mode strengths.
  // rho(G) on a dense cube of the density's G range (zero outside it and where the file has no G).
  int gmax = 0;
  for (const auto& g : rho.gvec)
    for (int i = 0; i < 3; ++i) gmax = std::max(gmax, std::abs(g[i]));
  const int side = 2 * gmax + 1;
  std::vector<cplx> rho_cube(static_cast<std::size_t>(side) * side * side);
  auto cube_index = [&](const Vec3i& g) -> long {
    for (int i = 0; i < 3; ++i)
      if (std::abs(g[i]) > gmax) return -1;
    return (static_cast<long>(g[0] + gmax) * side + (g[1] + gmax)) * side + (g[2] + gmax);
  };
  for (std::size_t i = 0; i < rho.gvec.size(); ++i) rho_cube[cube_index(rho.gvec[i])] = rho.rho[i];
  const double nel = rho_cube[cube_index({0, 0, 0})].re;
  if (!(nel > 0)) throw InputError(rho.file, "rho(G=0) = " + std::to_string(nel) + ": expected the electrons per cell");
  const double wp2 = 16.0 * pi * kRydbergEV * kRydbergEV * nel / c.celvol;  // eV^2

  const double ecut_bare = p.ecut_bare > 0 ? p.ecut_bare : inner.ecutwfc;
  const auto box = box_for_cutoffs(c, inner.ecutwfc, ecut_bare);
  // Per q of the grid, computed once and reused by every k: the bare sphere, the index of each of its
  // G, the mini-zone averages of v(q+G) on it and (q != 0) of 1/|q| for the wings.
  struct BareSphere {
    std::vector<Vec3i> gvec;
    std::map<Vec3i, int> index;
    std::vector<double> v;
    double one_over_q = 0;
  };
  std::map<std::array<long, 3>, BareSphere> bare_cache;
  auto bare_sphere = [&](const Vec3& q, bool q_zero) -> const BareSphere& {
    const std::array<long, 3> key{std::lround(q[0] * 1e6), std::lround(q[1] * 1e6), std::lround(q[2] * 1e6)};
    auto it = bare_cache.find(key);
    if (it != bare_cache.end()) return it->second;
    BareSphere b;
    b.gvec = g_sphere(c, inner.gvec_rho, q, ecut_bare);
    b.v.resize(b.gvec.size());
    // Arithmetic on memory already held: nothing in the loop throws.
#pragma omp parallel for schedule(dynamic, 16)
    for (std::size_t i = 0; i < b.gvec.size(); ++i) {
      const bool origin = q_zero && b.gvec[i] == Vec3i{0, 0, 0};
      b.v[i] = origin ? coulomb.v0() : coulomb.v(add(q, b.gvec[i]));
    }
    for (std::size_t i = 0; i < b.gvec.size(); ++i) b.index[b.gvec[i]] = static_cast<int>(i);
    if (!q_zero) b.one_over_q = coulomb.one_over_q(q);
    return bare_cache.emplace(key, std::move(b)).first->second;
  };

  // On the device, MTXEL's chunks and the GPP's buffers share the budget equally.
  const std::size_t half_budget = p.backend == Backend::Cuda ? GpuMemoryBudget{p.gpu_mem_limit}.usable_bytes() / 2 : 0;
  kernels::MtxelEngine mtxel(p.backend, box, half_budget);
  const StateSource source(inner, ops);
  const int nn = p.band_max - p.band_min + 1;
  const double ry = kRydbergEV;
  t.box_points = box.size();

  // The q-points of each k (its little group's wedge), for the memory check and the progress report.
  // The work of one (k, q): MTXEL's FFTs (about 5 N log2 N per transform, nn * nbands products) and the
  // GPP sum (about 20 operations per (n, m, G, G', E) term, two energies), as bench_gw counts them.
  std::vector<int> k_index;
  std::vector<std::vector<QStar>> k_stars;
  double total_work = 0;
  std::size_t ng_eps_max = 0;
  for (const auto& d : eps) ng_eps_max = std::max<std::size_t>(ng_eps_max, d.ng());
  const double fft_work = 5.0 * box.size() * std::log2(static_cast<double>(box.size()));
  auto q_work = [&](const Vec3& q) {
    const auto image = find_image(c, qirr, ops, q);
    const double ngs = image ? eps[image->irr].ng() : static_cast<double>(ng_eps_max);
    return static_cast<double>(nn) * p.nbands * (fft_work + 40.0 * ngs * ngs);
  };
  for (const auto& k : p.kpoints) {
    int ik = -1;
    for (int i = 0; i < inner.nk(); ++i)
      if (same_k(inner.kpoints[i], k)) ik = i;
    if (ik < 0) throw InputError(inner.file, "sigma k-point (" + std::to_string(k[0]) + ", " + std::to_string(k[1]) + ", " + std::to_string(k[2]) + ") is not one of its k-points");
    k_index.push_back(ik);
    k_stars.push_back(reduce_by_little_group(c, qfull, inner.kpoints[ik], p.q_symmetry));
    for (const auto& star : k_stars.back()) total_work += q_work(star.q);
  }
  // The plasmon-pole modes (not in full frequency): on the device with the CUDA backend when the largest eps^-1 and one
  // q's modes take at most half of the GPP kernels' share of the budget, which then shrinks by that much; else on the
  // host, and the GPP kernels upload them per q.
  const std::size_t modes_bytes = kernels::GppModes::device_bytes(ng_eps_max, ng_eps_max, ng_eps_max, rho_cube.size());
  const bool modes_on_device = p.backend == Backend::Cuda && !full_frequency && modes_bytes <= half_budget / 2;
  std::size_t gpp_budget = modes_on_device ? half_budget - modes_bytes : half_budget;
  t.modes_on_device = modes_on_device;
  // Full frequency in the G basis on the device when the largest irreducible q's matrices at every frequency and one
  // rotated matrix take at most half of this stage's share of the budget; the rotated matrices then take chunks of
  // frequencies in the rest of that half, and the contraction the other half.
  std::unique_ptr<FfDevice> ff_device;
  if (p.backend == Backend::Cuda && full_frequency && !p.subspace) {
    const std::size_t nf = eps[0].freq.size(), mat_bytes = bytes_of(sizeof(cplx), ng_eps_max, ng_eps_max);
    const std::size_t raw_bytes = bytes_of(sizeof(cplx), nf, ng_eps_max, ng_eps_max);
    if (raw_bytes + mat_bytes <= half_budget / 2) {
      ff_device = std::make_unique<FfDevice>();
      ff_device->mats_chunk = static_cast<int>(std::clamp<std::size_t>((half_budget / 2 - raw_bytes) / mat_bytes, 1, nf));
      ff_device->mats = DeviceBuffer<cplx>(static_cast<std::size_t>(ff_device->mats_chunk) * ng_eps_max * ng_eps_max, "sigma rotated eps^-1");
      ff_device->contract_budget = half_budget - raw_bytes - ff_device->mats_chunk * mat_bytes;
    }
  }
  t.ff_on_device = ff_device != nullptr;
  std::unique_ptr<kernels::GppModes> modes;
  if (!full_frequency) modes = std::make_unique<kernels::GppModes>(modes_on_device ? Backend::Cuda : Backend::Cpu, rho_cube, gmax);
  {
    // Per (k, q): M on the bare sphere and its screened part, the screened interaction (I, the mode
    // frequencies and the rotated eps^-1), the states at k - q, MTXEL's box arrays per thread.
    const std::size_t ngbare = bare_sphere({0, 0, 0}, true).gvec.size();
    const std::size_t ngk = inner.gvec.empty() ? 0 : inner.gvec[0].size() * 2;
    const std::size_t parts[] = {bytes_of(sizeof(cplx), nn, p.nbands, ngbare + ng_eps_max),
                                 modes_on_device || full_frequency ? 0 : bytes_of(sizeof(cplx) + sizeof(double), ng_eps_max, ng_eps_max),
                                 bytes_of(sizeof(cplx), ng_eps_max, ng_eps_max, 2), bytes_of(sizeof(cplx), p.nbands + nn, ngk),
                                 bytes_of(sizeof(cplx), box.size(), nn + p.nbands + max_threads())};
    std::size_t total = 0;
    for (std::size_t b : parts) total = total > SIZE_MAX - b ? SIZE_MAX : total + b;
    require_host_memory(total, "sigma (" + std::to_string(nn) + " bands x " + std::to_string(p.nbands) + " in the sum, " + std::to_string(ngbare) +
                                   " G-vectors in the bare sphere, " + std::to_string(ng_eps_max) + " in the screened one, FFT box " +
                                   std::to_string(box.n[0]) + "x" + std::to_string(box.n[1]) + "x" + std::to_string(box.n[2]) + ")");
  }
  // How the processes (MPI) share the work; they add their sums per k, and the first reports the progress of
  // its share.
  const Comm& comm = Comm::world();
  std::size_t pairs = 0;
  for (const auto& stars : k_stars) pairs += stars.size();
  const SigmaShare share = sigma_share(comm.size(), comm.rank(), p.pools, pairs, nn);
  const int pn = share.n_hi - share.n_lo;  // this process's bands n, from band_index_min + n_lo
  if (!p.offdiag.empty() && pn != nn) throw Error("sigma: off-diagonal elements need every band n in each process (number_sigma_pools 1)");
  // M on the device from MTXEL to the GPP kernels (the static diagonal path with its modes on the device and no
  // off-diagonal elements): its screened rows take at most half of what the GPP kernels have left; else through the host.
  const std::size_t ms_bytes = bytes_of(sizeof(cplx), pn, p.nbands, ng_eps_max);
  const bool m_on_device = modes_on_device && p.offdiag.empty() && ms_bytes <= gpp_budget / 2;
  if (m_on_device) gpp_budget -= ms_bytes;
  t.m_on_device = m_on_device;
  DeviceBuffer<cplx> ms_device(m_on_device ? ms_bytes / sizeof(cplx) : 0, "sigma screened matrix elements");
  long pair = 0;
  Progress progress("gw sigma", p.kpoints.size(), p.quiet || !comm.root());
  // Shared by (k, q) pairs, a process visits about 1/P of them; otherwise it visits every pair for its bands or columns,
  // and reports each pair's whole work.
  progress.set_total_work(share.by_pairs ? total_work / comm.size() : total_work);
  t.setup = tsetup.seconds();

  // Full frequency, one (k, q): the band-pair values of W_c at the imaginary frequencies (every pair (n, m)) and at the
  // real ones the residues reach (the pairs with a band m across an evaluation energy), then per (n, E) the
  // imaginary-axis integral (into ch) and the residues (into sx), in Ry, weighted by the q-point's multiplicity. The
  // real-axis method instead takes every pair at every real frequency: SX-X into sx, CH into ch, Cor and Cor4.
  bool warned_range = false;  // the real-axis method warns once when W is extrapolated past its grid
  auto full_frequency_sums = [&](const kernels::CdRotateJob& rotation, FfDevice* device, const DielectricMatrix& d, const SubspaceRotation& sr,
                                 const std::vector<cplx>& ms,
                                 const std::vector<double>& e_m, const std::vector<int>& columns,
                                 const std::vector<double>& v, double weight, const std::vector<double>& e_eval, int n_lo, int pn,
                                 std::vector<cplx>& sx, std::vector<cplx>& ch, std::vector<cplx>& cor, std::vector<cplx>& cor4, const Vec3& q) {
    const int ng = static_cast<int>(v.size()), ncol = static_cast<int>(columns.size()), nm = p.nbands;
    const int nfi = static_cast<int>(w_imag.size());
    const std::size_t mat = static_cast<std::size_t>(ng) * ncol;
    auto contract = [&](const cplx* mats, bool mats_on_device, int nmat, const cplx* rows, int nrows, std::vector<cplx>& out) {
      out.assign(static_cast<std::size_t>(nrows) * nmat, cplx());
      kernels::CdContractJob cj;
      cj.ng = ng;
      cj.ngp = ncol;
      cj.gp_index = columns.data();
      cj.nmat = nmat;
      cj.mats = mats;
      cj.mats_on_device = mats_on_device;
      cj.v = v.data();
      cj.nrows = nrows;
      cj.m = rows;
      cj.s = out.data();
      cj.kernel_seconds = &t.cd_kernel;
      if (nrows > 0 && ncol > 0) kernels::cd_contract(p.backend, cj, device ? device->contract_budget : half_budget);
      t.cd_flops += cj.flops();
    };
    // The band-pair values at frequencies [f0, f0 + nmat) for nrows rows of M: in the G basis from the rotated matrices
    // (rotated on the host, or on the device from the raw matrices there, in chunks of frequencies), or in the static
    // subspace from L, R and D(z) (subspace_values).
    std::vector<cplx> mats;
    auto values = [&](int f0, int nmat, const cplx* rows, int nrows, std::vector<cplx>& out) {
      if (sr.nb > 0) {
        return subspace_values(p.backend, half_budget, &t.cd_kernel, &t.cd_flops, sr, d, f0, nmat, rows, nrows, ng, v, out,
                               [&](const std::vector<cplx>& m1, const cplx* r, int n, std::vector<cplx>& o) { contract(m1.data(), false, 1, r, n, o); });
      }
      if (!device) {  // the rotated matrices in chunks of at most 256 MiB (the real-axis method takes every frequency)
        const int chunk = static_cast<int>(std::clamp<std::size_t>((std::size_t{256} << 20) / std::max<std::size_t>(mat * sizeof(cplx), 1), 1, nmat));
        if (chunk >= nmat) {
          mats.assign(mat * nmat, cplx());
          for (int j = 0; j < nmat; ++j) kernels::cd_rotate_cpu(rotation, d.epsinv_at(f0 + j), mats.data() + j * mat);
          return contract(mats.data(), false, nmat, rows, nrows, out);
        }
        out.assign(static_cast<std::size_t>(nrows) * nmat, cplx());
        std::vector<cplx> part;
        mats.assign(mat * chunk, cplx());
        for (int j0 = 0; j0 < nmat; j0 += chunk) {
          const int nj = std::min(chunk, nmat - j0);
          for (int j = 0; j < nj; ++j) kernels::cd_rotate_cpu(rotation, d.epsinv_at(f0 + j0 + j), mats.data() + j * mat);
          contract(mats.data(), false, nj, rows, nrows, part);
          for (int r = 0; r < nrows; ++r)
            for (int j = 0; j < nj; ++j) out[static_cast<std::size_t>(r) * nmat + j0 + j] = part[static_cast<std::size_t>(r) * nj + j];
        }
        return;
      }
#if QUANTA_GW_CUDA
      out.assign(static_cast<std::size_t>(nrows) * nmat, cplx());
      std::vector<cplx> part;
      const std::size_t raw_mat = static_cast<std::size_t>(d.ng()) * d.ng();
      for (int j0 = 0; j0 < nmat; j0 += device->mats_chunk) {
        const int nj = std::min(device->mats_chunk, nmat - j0);
        for (int j = 0; j < nj; ++j)
          kernels::cd_rotate_cuda(device->rotation, device->raw.data() + (f0 + j0 + j) * raw_mat, device->mats.data() + j * mat);
        contract(device->mats.data(), true, nj, rows, nrows, part);
        for (int r = 0; r < nrows; ++r)
          for (int j = 0; j < nj; ++j) out[static_cast<std::size_t>(r) * nmat + j0 + j] = part[static_cast<std::size_t>(r) * nj + j];
      }
#endif
    };
    // The real-axis method: every pair at every real frequency, then per (n, E) BerkeleyGW's four sums (src/contour.hpp).
    if (real_axis_method) {
      std::vector<cplx> s_all;
      values(0, n_real, ms.data(), pn * nm, s_all);
      std::vector<cplx> pnm(static_cast<std::size_t>(nm) * n_real), a(ne), b(ne), c(ne), c4(ne);
      for (int n = 0; n < pn; ++n) {
        for (std::size_t i = 0; i < pnm.size(); ++i) pnm[i] = -1.0 * s_all[static_cast<std::size_t>(n) * nm * n_real + i];  // P = -s
        RaBand rb;
        rb.nm = nm;
        rb.nocc = nocc;
        rb.e_m = e_m.data();
        rb.ne = ne;
        rb.e_eval = e_eval.data() + ne * (n_lo + n);
        rb.nw = n_real;
        rb.w = w_ra.data();
        rb.eta = eta_ra.data();
        rb.p = pnm.data();
        if (ra_band_sums(rb, a.data(), b.data(), c.data(), c4.data()) && !warned_range) {
          warned_range = true;
          warn("gw", "sigma (real-axis method): |E - E_m| of an occupied band m reaches past Epsilon's last real frequency " + std::to_string(w_ra.back()) +
                         " eV; W there is extrapolated from the last interval, as BerkeleyGW does (raise frequency_high_cutoff in epsilon.inp)");
        }
        for (int e = 0; e < ne; ++e) {
          const std::size_t at = ne * (n_lo + n) + e;
          sx[at] += weight * a[e];
          ch[at] += weight * b[e];
          cor[at] += weight * c[e];
          cor4[at] += weight * c4[e];
        }
      }
      return;
    }
    // The imaginary axis, every pair.
    std::vector<cplx> s_imag;
    values(n_real, nfi, ms.data(), pn * nm, s_imag);
    // The residues: which pairs, how far along the real axis.
    std::vector<int> res_rows;
    double reach = 0;
    for (int n = 0; n < pn; ++n)
      for (int m = 0; m < nm; ++m) {
        bool any = false;
        for (int e = 0; e < ne; ++e) {
          const double x = e_eval[ne * (n_lo + n) + e] - e_m[m];
          if (cd_residue_factor(m < nocc, x) != 0) {
            any = true;
            reach = std::max(reach, std::abs(x));
          }
        }
        if (any) res_rows.push_back(n * nm + m);
      }
    const int nr = res_rows.empty() ? 0 : std::min(n_real, static_cast<int>(std::ceil((reach - w_real0) / w_real_step)) + 2);
    std::vector<cplx> m_res(res_rows.size() * static_cast<std::size_t>(ng)), s_real;
    for (std::size_t r = 0; r < res_rows.size(); ++r)
      std::copy(ms.begin() + static_cast<std::size_t>(res_rows[r]) * ng, ms.begin() + static_cast<std::size_t>(res_rows[r] + 1) * ng, m_res.begin() + r * ng);
    values(0, nr, m_res.data(), static_cast<int>(res_rows.size()), s_real);
    // The sums per (n, E).
    const std::string what = "sigma (full frequency), q-point (" + std::to_string(q[0]) + ", " + std::to_string(q[1]) + ", " + std::to_string(q[2]) + ")";
    std::vector<int> real_row(nm);
    std::vector<cplx> res(ne), integral(ne);
    for (int n = 0; n < pn; ++n) {
      CdBand b;
      b.nm = nm;
      b.nocc = nocc;
      b.e_m = e_m.data();
      b.ne = ne;
      b.e_eval = e_eval.data() + ne * (n_lo + n);
      b.method = p.cd_integration_method;
      b.nfi = nfi;
      b.w_imag = w_imag.data();
      b.s_imag = s_imag.data() + static_cast<std::size_t>(n) * nm * nfi;
      b.nr = nr;
      b.w0 = w_real0;
      b.dw = w_real_step;
      b.s_real = s_real.data();
      for (int m = 0; m < nm; ++m) real_row[m] = -1;
      for (std::size_t r = 0; r < res_rows.size(); ++r)
        if (res_rows[r] / nm == n) real_row[res_rows[r] % nm] = static_cast<int>(r);
      b.real_row = real_row.data();
      cd_band_sums(b, res.data(), integral.data(), what);
      for (int e = 0; e < ne; ++e) {
        sx[ne * (n_lo + n) + e] += weight * res[e];
        ch[ne * (n_lo + n) + e] += weight * integral[e];
      }
    }
  };

  std::vector<SigmaK> out;
  for (std::size_t ki = 0; ki < p.kpoints.size(); ++ki) {
    const int ik = k_index[ki];
    const StateSet at_k = source.at(inner.kpoints[ik], p.band_max);
    // This process's bands n at k, as the `a` states of MTXEL.
    std::vector<cplx> a_coeffs(at_k.coeffs.begin() + static_cast<std::size_t>(p.band_min - 1 + share.n_lo) * at_k.gvec.size(),
                               at_k.coeffs.begin() + static_cast<std::size_t>(p.band_min - 1 + share.n_hi) * at_k.gvec.size());
    const auto where_a = box_indexes(box, at_k.gvec);
    // The energies Sigma is evaluated at, per band n: E_mf and E_mf + finite_difference_spacing (GPP), or the
    // full-frequency grid of ne points centred on E_mf.
    std::vector<double> e_eval(static_cast<std::size_t>(nn) * ne);
    for (int n = 0; n < nn; ++n) {
      const double eo = at_k.energy[p.band_min - 1 + n] * ry;
      for (int e = 0; e < ne; ++e) e_eval[ne * n + e] = full_frequency ? eo + (e - ne / 2) * p.delta_frequency_eval : eo + e * p.fd_spacing;
    }
    std::vector<double> x(nn, 0.0);
    // Complex sums per (n, evaluation energy): the GPP kernel's SX-X and CH, or full frequency's residue and
    // imaginary-axis integral. Sigma's diagonal keeps the real parts (and full frequency's values whole).
    std::vector<cplx> sx(ne * nn), ch(ne * nn);
    std::vector<cplx> cor(real_axis_method ? ne * nn : 0), cor4(cor.size());  // the real-axis method's Cor and Cor4
    // Off-diagonal elements: the distinct frequencies E_l and E_l + spacing they need, and per frequency the
    // matrices over band_index_min..max (X once, SX-X and CH per frequency).
    std::vector<double> omega;
    std::vector<std::array<int, 2>> omega_of;  // per element: its two frequencies
    for (const auto& e : p.offdiag) {
      std::array<int, 2> at{};
      for (int f = 0; f < 2; ++f) {
        const double w = e_eval[ne * (e.l - p.band_min) + f];
        auto it = std::find(omega.begin(), omega.end(), w);
        at[f] = static_cast<int>(it - omega.begin());
        if (it == omega.end()) omega.push_back(w);
      }
      omega_of.push_back(at);
    }
    // sigma_matrix_frequency_grid: nw uniform frequencies over the window's energies widened by the margin.
    std::vector<int> grid_at;
    if (p.grid_nw >= 2) {
      const double lo = *std::min_element(e_eval.begin(), e_eval.end()) - p.grid_margin;
      const double hi = *std::max_element(e_eval.begin(), e_eval.end()) - p.fd_spacing + p.grid_margin;
      for (int j = 0; j < p.grid_nw; ++j) {
        const double w = lo + (hi - lo) * j / (p.grid_nw - 1);
        auto it = std::find(omega.begin(), omega.end(), w);
        grid_at.push_back(static_cast<int>(it - omega.begin()));
        if (it == omega.end()) omega.push_back(w);
      }
    }
    const std::size_t nn2 = static_cast<std::size_t>(nn) * nn;
    std::vector<cplx> x_mat(p.offdiag.empty() ? 0 : nn2), sx_mat(omega.size() * nn2), ch_mat(omega.size() * nn2);

    const auto& stars = k_stars[ki];
    for (const auto& star : stars) {
      if (share.by_pairs && pair++ % comm.size() != comm.rank()) continue;
      WallTimer tq;
      const Vec3& q = star.q;
      const bool q_zero = same_k(q, {0, 0, 0});
      // The bare sphere of q and its Coulomb potential (computed once per q of the grid).
      const BareSphere& bare = bare_sphere(q, q_zero);
      const auto& gbare = bare.gvec;
      const auto& vbar = bare.v;

      // The irreducible q it comes from, and its eps^-1 rotated to q.
      const auto image = find_image(c, qirr, ops, q);
      if (!image) throw Error("sigma: q-point not generated by the dielectric matrices' q-points");
      const DielectricMatrix& d = eps[image->irr];
      const int ngs_all = d.ng();
      const double ecut_s = p.ecut_screened > 0 ? p.ecut_screened : 1e300;
      const auto& R = c.rotation[image->op];
      const auto& tnp = c.tnp[image->op];
      const int sgn = image->time_reversed ? -1 : 1;
      std::vector<int> keep;
      Screening s;
      std::vector<cplx> phase;
      for (int i = 0; i < ngs_all; ++i) {
        const Vec3i rg = apply(R, d.gvec[i]);
        const Vec3i gt{sgn * rg[0] + image->g0[0], sgn * rg[1] + image->g0[1], sgn * rg[2] + image->g0[2]};
        auto it = bare.index.find(gt);
        if (it == bare.index.end()) throw Error("sigma: the screened cutoff exceeds the bare cutoff");
        if (c.norm2(add(q, gt)) > ecut_s) continue;
        keep.push_back(i);
        s.where.push_back(it->second);
        phase.push_back(expi(-(rg[0] * tnp[0] + rg[1] * tnp[1] + rg[2] * tnp[2])));
      }
      const int ngs = static_cast<int>(keep.size());
      // eps^-1 on the irreducible q's order with the wings fixed (BerkeleyGW's fixwings): the row and the column of
      // G = 0 (not their crossing) are zero at q = 0 and scaled otherwise; read element by element, not copied.
      int i0 = -1;
      for (int i = 0; i < ngs_all; ++i)
        if (d.gvec[i] == Vec3i{0, 0, 0}) i0 = i;
      double wing_row = 1, wing_col = 1;
      if (i0 >= 0 && q_zero) {
        wing_row = wing_col = 0;
      } else if (i0 >= 0) {
        const double qlen = std::sqrt(c.norm2(q));
        wing_row = bare.one_over_q * qlen / (8.0 * pi);
        wing_col = bare.one_over_q / (vbar[0] * qlen);
      }
      // This process's columns G' of the screened interaction.
      const int b_lo = static_cast<int>(static_cast<long>(ngs) * share.member / share.pool_size);
      const int b_hi = static_cast<int>(static_cast<long>(ngs) * (share.member + 1) / share.pool_size);
      const int ncol = b_hi - b_lo;
      WallTimer tmodes;
      s.v.resize(ngs);
      for (int a = 0; a < ngs; ++a) s.v[a] = vbar[s.where[a]] * fact;
      if (modes) {
        std::vector<int> g3(3 * static_cast<std::size_t>(ngs));
        std::vector<double> vb(ngs);
        for (int a = 0; a < ngs; ++a) {
          for (int i = 0; i < 3; ++i) g3[3 * a + i] = gbare[s.where[a]][i];
          vb[a] = vbar[s.where[a]];
        }
        kernels::GppModesJob mj;
        mj.ng_irr = ngs_all;
        mj.epsinv = d.epsinv.data();
        mj.ng = ngs;
        mj.col_lo = b_lo;
        mj.ncol = ncol;
        mj.keep = keep.data();
        mj.phase = phase.data();
        mj.g = g3.data();
        mj.vbar = vb.data();
        mj.i0 = i0;
        mj.wing_row = wing_row;
        mj.wing_col = wing_col;
        mj.time_reversed = image->time_reversed;
        mj.q_zero = q_zero;
        for (int i = 0; i < 3; ++i) mj.q[i] = q[i];
        std::copy(c.bdot.begin(), c.bdot.end(), mj.metric);
        mj.nel = nel;
        mj.wp2 = wp2;
        mj.complex_flavour = inner.complex_flavour;
        modes->run(mj, image->irr);
      }
      t.setup_modes += tmodes.seconds();
      t.setup += tq.seconds();

      // The states at k - q and their matrix elements with the bands at k.
      WallTimer ts;
      const Vec3& kk = inner.kpoints[ik];
      const StateSet kq = source.at({kk[0] - q[0], kk[1] - q[1], kk[2] - q[2]}, p.nbands);
      const auto where_b = box_indexes(box, kq.gvec);
      std::vector<std::size_t> where_out(gbare.size());
      for (std::size_t i = 0; i < gbare.size(); ++i) where_out[i] = box.index(gbare[i][0], gbare[i][1], gbare[i][2]);
      t.states += ts.seconds();
      WallTimer tm;
      // M on the bare sphere: on the host, or left on the device (m_on_device) for the exchange and the GPP kernels there.
      std::vector<cplx> m(m_on_device ? 0 : static_cast<std::size_t>(pn) * p.nbands * gbare.size());
      kernels::MtxelJob job;
      job.box = box;
      job.na = pn;
      job.nb = p.nbands;
      job.ngout = static_cast<int>(gbare.size());
      job.nga = at_k.gvec.size();
      job.ngb = kq.gvec.size();
      job.where_a = where_a.data();
      job.where_b = where_b.data();
      job.where_out = where_out.data();
      job.a = a_coeffs.data();
      job.b = kq.coeffs.data();
      job.m = m_on_device ? nullptr : m.data();
      mtxel.run(job);
      t.mtxel += tm.seconds();
      t.ffts += pn + p.nbands + static_cast<double>(pn) * p.nbands;

      // Bare exchange over the occupied bands (by the first member of a pool; the others hold the same M).
      WallTimer tx;
      const std::size_t ngb = gbare.size();
      if (share.member == 0 && pn > 0) {
        std::vector<double> s2(static_cast<std::size_t>(pn) * nocc);
#if QUANTA_GW_CUDA
        if (m_on_device) {
          const DeviceBuffer<double> v_dev(std::span<const double>(vbar), "sigma vbar");
          kernels::bare_exchange_cuda(mtxel.device_result(), pn, p.nbands, nocc, static_cast<int>(ngb), v_dev.data(), s2.data());
        }
#endif
        if (!m_on_device) kernels::bare_exchange_cpu(m.data(), pn, p.nbands, nocc, static_cast<int>(ngb), vbar.data(), s2.data());
        for (int n = 0; n < pn; ++n)
          for (int b = 0; b < nocc; ++b) x[share.n_lo + n] -= star.weight * s2[static_cast<std::size_t>(n) * nocc + b] * fact;
      }
      // Off-diagonal bare exchange, X_nn' = -sum_{m occ} sum_G M_nm(G) conj(M_n'm(G)) v(q+G), all n, n' of the window,
      // as products over blocks of occupied bands: with A(k, n) = M_nm(G) (k = m ngb + G, a column per band n),
      // Y = A^H (v A) is Y(n', n) = sum_k conj(A(k, n')) v_k A(k, n), stored [n][n'].
      if (share.member == 0 && !x_mat.empty()) {
        constexpr int kBlock = 32;
        const int ld = p.nbands * static_cast<int>(ngb);
        const cplx one(1.0), zero;
        std::vector<cplx> va, y(nn2);
        for (int b0 = 0; b0 < nocc; b0 += kBlock) {
          const int kk = std::min(kBlock, nocc - b0) * static_cast<int>(ngb);
          va.resize(static_cast<std::size_t>(kk) * nn);
          for (int n = 0; n < nn; ++n)
            for (int k = 0; k < kk; ++k) va[static_cast<std::size_t>(n) * kk + k] = m[(static_cast<std::size_t>(n) * p.nbands + b0) * ngb + k] * vbar[k % ngb];
          zgemm_("C", "N", &nn, &nn, &kk, &one, m.data() + static_cast<std::size_t>(b0) * ngb, &ld, va.data(), &kk, &zero, y.data(), &nn);
          for (std::size_t i = 0; i < nn2; ++i) x_mat[i] -= star.weight * fact * y[i];
        }
      }
      t.exchange += tx.seconds();

      // The GPP sums on the screened sphere.
      WallTimer tg;
      const std::size_t rows = static_cast<std::size_t>(pn) * p.nbands;
      std::vector<cplx> ms(m_on_device ? 0 : rows * ngs);
      if (!m_on_device) kernels::screened_rows_cpu(m.data(), rows, static_cast<int>(ngb), s.where.data(), ngs, ms.data());
#if QUANTA_GW_CUDA
      if (m_on_device) {
        const DeviceBuffer<int> where_dev(std::span<const int>(s.where), "sigma screened rows");
        kernels::screened_rows_cuda(mtxel.device_result(), rows, static_cast<int>(ngb), where_dev.data(), ngs, ms_device.data());
      }
#endif
      std::vector<double> e_m(p.nbands);
      for (int b = 0; b < p.nbands; ++b) e_m[b] = kq.energy[b] * ry;
      std::vector<int> columns(ncol);
      for (int c = 0; c < ncol; ++c) columns[c] = b_lo + c;
      if (full_frequency) {
        // W_c = (eps^-1 - 1) v at Epsilon's frequencies, rotated to q as the static matrix is (a time-reversed image
        // takes the transpose: reciprocity, eps^-1(-q; G, G') = eps^-1(q; -G', -G), which is the conjugate for the
        // Hermitian static and imaginary-axis matrices), wings fixed, on this process's columns.
        kernels::CdRotateJob rotation;
        rotation.ld = ngs_all;
        rotation.keep = keep.data();
        rotation.phase = phase.data();
        rotation.ngs = ngs;
        rotation.col_lo = b_lo;
        rotation.ncol = ncol;
        rotation.i0 = i0;
        rotation.wing_row = wing_row;
        rotation.wing_col = wing_col;
        rotation.time_reversed = image->time_reversed;
        // On the device: the irreducible q's matrices at every frequency go up once (again only for another irreducible
        // q), this q's keep and phase lists each time.
        if (ff_device) {
          if (ff_device->irr != image->irr) {
            ff_device->raw = DeviceBuffer<cplx>();
            ff_device->raw = DeviceBuffer<cplx>(std::span<const cplx>(d.epsinv_ff), "sigma eps^-1 at the frequencies");
            ff_device->irr = image->irr;
          }
          ff_device->keep = DeviceBuffer<int>(std::span<const int>(keep), "sigma rotation keep");
          ff_device->phase = DeviceBuffer<cplx>(std::span<const cplx>(phase), "sigma rotation phases");
          ff_device->rotation = rotation;
          ff_device->rotation.keep = ff_device->keep.data();
          ff_device->rotation.phase = ff_device->phase.data();
        }
        // The static subspace's form of the same rotation (do_sigma_subspace): eps^-1(z) - 1 on q is
        // [eps^-1(0) - 1 rotated] + L D'(z) R^H with L (ngs x nb), R (ncol x nb) and D' = D (or D^T for a time-reversed
        // image, whose transpose swaps B's roles); the wings scale L's and R's G = 0 rows, which the head's correction
        // (1 - wing_row wing_col) undoes for the crossing.
        SubspaceRotation sr;
        if (p.subspace) {
          if (d.sub_basis.empty()) throw Error("sigma: do_sigma_subspace, but Epsilon kept no subspace basis for this q-point");
          const int nb = d.subspace_nbasis;
          sr.nb = nb;
          sr.transposed = image->time_reversed;
          sr.L.resize(static_cast<std::size_t>(ngs) * nb);
          sr.Rv.assign(static_cast<std::size_t>(ngs) * nb, cplx());
          auto r_value = [&](const cplx* bcol, int b) {
            const int kb = keep[b];
            return image->time_reversed ? conj(bcol[kb]) * conj(phase[b]) * d.sub_sv[kb] : bcol[kb] * phase[b] * (1.0 / d.sub_sv[kb]);
          };
          for (int i = 0; i < nb; ++i) {
            const cplx* bcol = d.sub_basis.data() + static_cast<std::size_t>(ngs_all) * i;
            for (int a = 0; a < ngs; ++a) {
              const int ka = keep[a];
              sr.L[a + static_cast<std::size_t>(ngs) * i] =
                  image->time_reversed ? conj(bcol[ka]) * conj(phase[a]) * (1.0 / d.sub_sv[ka]) : bcol[ka] * phase[a] * d.sub_sv[ka];
            }
            for (int b = b_lo; b < b_hi; ++b) sr.Rv[b + static_cast<std::size_t>(ngs) * i] = r_value(bcol, b) * s.v[b];
          }
          for (int a = 0; a < ngs; ++a)
            if (keep[a] == i0) sr.g0 = a;
          if (sr.g0 >= 0) {
            sr.l0.assign(nb, cplx());
            for (int i = 0; i < nb; ++i) sr.l0[i] = sr.L[sr.g0 + static_cast<std::size_t>(ngs) * i];
            const bool g0_held = sr.g0 >= b_lo && sr.g0 < b_hi;
            if (g0_held) {
              sr.r0.assign(nb, cplx());
              for (int i = 0; i < nb; ++i) sr.r0[i] = r_value(d.sub_basis.data() + static_cast<std::size_t>(ngs_all) * i, sr.g0);
            }
            for (int i = 0; i < nb; ++i) {
              sr.L[sr.g0 + static_cast<std::size_t>(ngs) * i] *= wing_row;
              if (g0_held) sr.Rv[sr.g0 + static_cast<std::size_t>(ngs) * i] *= wing_col;
            }
            sr.head_fix = 1.0 - wing_row * wing_col;
          }
          if (d.sub_keep) {
            sr.static_part.resize(static_cast<std::size_t>(ngs) * ncol);
            kernels::cd_rotate_cpu(rotation, d.sub_static_einv(), sr.static_part.data());
          }
        }
        full_frequency_sums(rotation, ff_device.get(), d, sr, ms, e_m, columns, s.v, star.weight, e_eval, share.n_lo, pn, sx, ch, cor, cor4, q);
        t.gpp += tg.seconds();
        progress.advance(0, q_work(q));
        continue;
      }
      kernels::GppJob g;
      g.ng = ngs;
      g.ngp = ncol;
      g.gp_index = columns.data();
      g.i_eps = modes->i_eps();
      g.wt = modes->wt();
      g.modes_on_device = modes->on_device();
      g.v = s.v.data();
      g.nn = pn;
      g.nm = p.nbands;
      g.ne = ne;
      g.nocc = nocc;
      g.m = m_on_device ? ms_device.data() : ms.data();
      g.m_on_device = m_on_device;
      g.e_m = e_m.data();
      g.e_eval = e_eval.data() + ne * share.n_lo;
      g.weight = star.weight;
      g.sx = sx.data() + ne * share.n_lo;
      g.ch = ch.data() + ne * share.n_lo;
      g.kernel_seconds = &t.gpp_kernel;
      if (pn > 0 && ncol > 0) kernels::gpp(p.backend, g, gpp_budget);
      t.gpp_terms += static_cast<double>(pn) * p.nbands * g.ne * ngs * ncol;
      t.gpp += tg.seconds();
      if (!omega.empty() && ncol > 0) {
        WallTimer to;
        kernels::GppMatrixJob gm;
        gm.ng = ngs;
        gm.ngp = ncol;
        gm.gp_index = columns.data();
        gm.i_eps = modes->i_eps();
        gm.wt = modes->wt();
        gm.modes_on_device = modes->on_device();
        gm.v = s.v.data();
        gm.nn = nn;
        gm.nm = p.nbands;
        gm.nocc = nocc;
        gm.m = ms.data();
        gm.e_m = e_m.data();
        gm.nw = static_cast<int>(omega.size());
        gm.omega = omega.data();
        gm.weight = star.weight;
        gm.sx = sx_mat.data();
        gm.ch = ch_mat.data();
        gm.kernel_seconds = &t.gpp_matrix_kernel;
        kernels::gpp_matrix(p.backend, gm, gpp_budget);
        t.gpp_matrix_flops += gm.flops();
        t.gpp_matrix += to.seconds();
      }
      progress.advance(0, q_work(q));
    }
    progress.advance(1, 0.0);
    comm.sum(x.data(), x.size());
    comm.sum(reinterpret_cast<double*>(sx.data()), 2 * sx.size());
    comm.sum(reinterpret_cast<double*>(ch.data()), 2 * ch.size());
    comm.sum(reinterpret_cast<double*>(cor.data()), 2 * cor.size());
    comm.sum(reinterpret_cast<double*>(cor4.data()), 2 * cor4.size());
    comm.sum(reinterpret_cast<double*>(x_mat.data()), 2 * x_mat.size());
    comm.sum(reinterpret_cast<double*>(sx_mat.data()), 2 * sx_mat.size());
    comm.sum(reinterpret_cast<double*>(ch_mat.data()), 2 * ch_mat.size());

    // eV, band averaging over degenerate levels, quasiparticle energies.
    SigmaK r;
    r.k = inner.kpoints[ik];
    r.ik = ik + 1;
    r.nq = static_cast<int>(stars.size());
    for (int n = 0; n < nn; ++n) {
      SigmaBand b;
      b.n = p.band_min + n;
      b.emf = b.eo = e_eval[ne * n + (full_frequency ? ne / 2 : 0)];
      b.vxc = vxc.diagonal(r.k, b.n);
      b.x = x[n] * ry;
      const int e0 = full_frequency ? ne / 2 : 0;  // E_mf and the next evaluation energy
      for (int e = 0; e < 2; ++e) {
        const int at = std::min(e0 + e, ne - 1);
        b.sx_x[e] = sx[ne * n + at].re * ry;
        b.ch[e] = ch[ne * n + at].re * ry;
      }
      for (int e = 0; e < ne && full_frequency; ++e) {
        b.ff_omega.push_back(e_eval[ne * n + e]);
        b.ff_res.push_back(sx[ne * n + e] * ry);
        b.ff_int.push_back(ch[ne * n + e] * ry);
        if (real_axis_method) {
          b.ff_cor.push_back(cor[ne * n + e] * ry);
          b.ff_cor4.push_back(cor4[ne * n + e] * ry);
        }
      }
      b.ff_method = real_axis_method ? 0 : 2;
      r.bands.push_back(b);
    }
    const double tol = 1e-6 * ry;
    for (int first = 0; first < nn;) {
      int last = first + 1;
      while (last < nn && std::abs(r.bands[last].emf - r.bands[last - 1].emf) < tol) ++last;
      SigmaBand avg{};
      for (int i = first; i < last; ++i) {
        avg.vxc += r.bands[i].vxc;
        avg.x += r.bands[i].x;
        for (int e = 0; e < 2; ++e) {
          avg.sx_x[e] += r.bands[i].sx_x[e];
          avg.ch[e] += r.bands[i].ch[e];
        }
        avg.ff_res.resize(r.bands[i].ff_res.size());
        avg.ff_int.resize(r.bands[i].ff_int.size());
        avg.ff_cor.resize(r.bands[i].ff_cor.size());
        avg.ff_cor4.resize(r.bands[i].ff_cor4.size());
        for (std::size_t e = 0; e < r.bands[i].ff_res.size(); ++e) {
          avg.ff_res[e] += r.bands[i].ff_res[e];
          avg.ff_int[e] += r.bands[i].ff_int[e];
        }
        for (std::size_t e = 0; e < r.bands[i].ff_cor.size(); ++e) {
          avg.ff_cor[e] += r.bands[i].ff_cor[e];
          avg.ff_cor4[e] += r.bands[i].ff_cor4[e];
        }
      }
      const double inv = 1.0 / (last - first);
      for (int i = first; i < last; ++i) {
        auto& b = r.bands[i];
        b.vxc = avg.vxc * inv;
        b.x = avg.x * inv;
        for (int e = 0; e < 2; ++e) {
          b.sx_x[e] = avg.sx_x[e] * inv;
          b.ch[e] = avg.ch[e] * inv;
        }
        for (std::size_t e = 0; e < b.ff_res.size(); ++e) {
          b.ff_res[e] = avg.ff_res[e] * inv;
          b.ff_int[e] = avg.ff_int[e] * inv;
        }
        for (std::size_t e = 0; e < b.ff_cor.size(); ++e) {
          b.ff_cor[e] = avg.ff_cor[e] * inv;
          b.ff_cor4[e] = avg.ff_cor4[e] * inv;
        }
      }
      first = last;
    }
    for (auto& b : r.bands) {
      if (full_frequency) {
        full_frequency_energies(b, r.k, p.delta_frequency_eval);
        continue;
      }
      const double sig0 = b.x + b.sx_x[0] + b.ch[0];
      const double sig1 = b.x + b.sx_x[1] + b.ch[1];
      b.sig = sig0;
      b.eqp0 = b.emf - b.vxc + sig0;
      const double slope = (sig1 - sig0) / p.fd_spacing;
      b.znk = 1.0 / (1.0 - slope);
      b.eqp1 = b.eqp0 + slope / (1.0 - slope) * (b.eqp0 - b.eo);
      for (const double x : {b.x, b.sx_x[0], b.sx_x[1], b.ch[0], b.ch[1], b.eqp0, b.eqp1, b.znk})
        if (!std::isfinite(x))
          throw Error("sigma, k-point (" + std::to_string(r.k[0]) + ", " + std::to_string(r.k[1]) + ", " + std::to_string(r.k[2]) + "), band " +
                      std::to_string(b.n) + ": a non-finite value among X, SX-X, CH, Eqp0, Eqp1 and Znk");
    }
    // The off-diagonal elements, eV, not band-averaged (as BerkeleyGW prints them). Two bands whose degenerate
    // sets (energies within 1e-6 Ry among the bands of the sum) differ in size belong to different irreducible
    // representations: their element is zero by symmetry and set so, as BerkeleyGW does.
    std::vector<int> set_size(nn, 0);  // per band of the window, the size of its degenerate set
    for (int n = 0; n < nn; ++n)
      for (int j = 0; j < p.nbands; ++j) set_size[n] += std::abs(inner.energy(ik, j) - inner.energy(ik, p.band_min - 1 + n)) < 1e-6;
    auto zero_by_symmetry = [&](int n, int n2) { return p.offdiag_symmetry && set_size[n - p.band_min] != set_size[n2 - p.band_min]; };
    for (std::size_t j = 0; j < grid_at.size(); ++j) {
      r.grid_omega.push_back(omega[grid_at[j]]);
      for (int n = 0; n < nn; ++n)
        for (int n2 = 0; n2 < nn; ++n2) {
          const std::size_t at = static_cast<std::size_t>(n) * nn + n2;
          const bool zero = zero_by_symmetry(p.band_min + n, p.band_min + n2);
          r.grid_sigma.push_back(zero ? cplx() : (x_mat[at] + sx_mat[grid_at[j] * nn2 + at] + ch_mat[grid_at[j] * nn2 + at]) * ry);
          if (!std::isfinite(r.grid_sigma.back().re) || !std::isfinite(r.grid_sigma.back().im))
            throw Error("sigma, k-point (" + std::to_string(r.k[0]) + ", " + std::to_string(r.k[1]) + ", " + std::to_string(r.k[2]) + "), <" +
                        std::to_string(p.band_min + n) + "|Sigma(" + std::to_string(r.grid_omega.back()) + " eV)|" + std::to_string(p.band_min + n2) +
                        "> on the frequency grid: a non-finite value");
        }
    }
    for (std::size_t i = 0; i < p.offdiag.size(); ++i) {
      const auto& e = p.offdiag[i];
      SigmaOffdiag o;
      o.n = e.n;
      o.m = e.m;
      o.l = e.l;
      o.eo = e_eval[ne * (e.l - p.band_min)];
      o.vxc = vxc.element(r.k, e.n, e.m);
      if (zero_by_symmetry(e.n, e.m)) {
        r.offdiag.push_back(o);
        continue;
      }
      const std::size_t nm_at = static_cast<std::size_t>(e.n - p.band_min) * nn + (e.m - p.band_min);
      o.x = x_mat[nm_at] * ry;
      for (int f = 0; f < 2; ++f) {
        o.sx_x[f] = sx_mat[omega_of[i][f] * nn2 + nm_at] * ry;
        o.ch[f] = ch_mat[omega_of[i][f] * nn2 + nm_at] * ry;
      }
      o.sig = o.x + o.sx_x[0] + o.ch[0];
      for (const cplx v : {o.x, o.sx_x[0], o.sx_x[1], o.ch[0], o.ch[1]})
        if (!std::isfinite(v.re) || !std::isfinite(v.im))
          throw Error("sigma, k-point (" + std::to_string(r.k[0]) + ", " + std::to_string(r.k[1]) + ", " + std::to_string(r.k[2]) + "), element <" +
                      std::to_string(e.n) + "|Sigma(E_" + std::to_string(e.l) + ")|" + std::to_string(e.m) + ">: a non-finite value among X, SX-X and CH");
      r.offdiag.push_back(o);
    }
    out.push_back(std::move(r));
  }
  progress.finish();
  if (timings) *timings = t;
  return out;
}

}  // namespace quanta::gw
