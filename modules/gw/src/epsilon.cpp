// Epsilon, stage by stage for each q: the G-sphere; for every k of the full zone the states at k
// (conduction) and k+q (valence; from WFNq at q0), their matrix elements (MTXEL) and the polarizability
// (CHI_SUM); then eps = 1 - v chi0 and its inverse.
#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <cmath>
#include <cstdio>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <span>

#include "../kernels/chi_freq.hpp"
#include "../kernels/chi_sum.hpp"
#include "../kernels/invert.hpp"
#include "../kernels/mtxel.hpp"
#include "../kernels/subspace.hpp"
#include "quanta/core/buffer.hpp"
#include "quanta/core/comm.hpp"
#include "quanta/core/device_exchange.hpp"
#include "quanta/core/error.hpp"
#include "quanta/core/host_memory.hpp"
#include "quanta/core/progress.hpp"
#include "quanta/core/threads.hpp"
#include "quanta/core/timer.hpp"
#include "quanta/core/units.hpp"
#include "quanta/gw/epsilon.hpp"
#include "quanta/gw/sigma.hpp"  // kRydbergEV
#include "region_failure.hpp"

#include "states.hpp"

namespace quanta::gw {

namespace {

// The indexes `idx` into gvec sorted by |q+G|^2 = e[i]; equal lengths (within 1e-12 Ry) ordered lexicographically
// by (g1, g2, g3), as BerkeleyGW orders them.
void sort_by_length(std::vector<int>& idx, const std::vector<double>& e, const std::vector<Vec3i>& gvec) {
  std::sort(idx.begin(), idx.end(), [&](int a, int b) {
    if (std::abs(e[a] - e[b]) > 1e-12) return e[a] < e[b];
    return gvec[a] < gvec[b];
  });
}

std::vector<double> lengths(const Crystal& crystal, const std::vector<Vec3i>& gvec_rho, const Vec3& q) {
  std::vector<double> e(gvec_rho.size());
  for (std::size_t i = 0; i < gvec_rho.size(); ++i) {
    const auto& g = gvec_rho[i];
    e[i] = crystal.norm2({q[0] + g[0], q[1] + g[1], q[2] + g[2]});
  }
  return e;
}

}  // namespace

std::vector<int> g_order(const Crystal& crystal, const std::vector<Vec3i>& gvec_rho, const Vec3& q, std::vector<double>* qg2) {
  auto e = lengths(crystal, gvec_rho, q);
  std::vector<int> order(gvec_rho.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int>(i);
  sort_by_length(order, e, gvec_rho);
  if (qg2) *qg2 = std::move(e);
  return order;
}

std::vector<Vec3i> g_sphere(const Crystal& crystal, const std::vector<Vec3i>& gvec_rho, const Vec3& q, double ecut) {
  const auto e = lengths(crystal, gvec_rho, q);
  std::vector<int> in;
  for (std::size_t i = 0; i < e.size(); ++i)
    if (e[i] <= ecut) in.push_back(static_cast<int>(i));
  sort_by_length(in, e, gvec_rho);
  std::vector<Vec3i> out;
  for (int i : in) out.push_back(gvec_rho[i]);
  return out;
}

namespace {

// Saturating, as bytes_of: an absurd size stays absurd instead of wrapping to a small one.
std::size_t add_bytes(std::size_t a, std::size_t b) { return a > SIZE_MAX - b ? SIZE_MAX : a + b; }

// The polarizability of one q being summed: static (CHI_SUM, weights w) or at every frequency of a full-frequency
// run (the stacked product, transition energies de).
// Mode: what the run asks for (static or full frequency), or one of them (the static subspace's two passes); with a
// basis (ng x nb), the frequencies in that subspace.
struct ChiAccumulator {
  enum Mode { Run, Static, Frequencies };
  std::unique_ptr<kernels::ChiSumEngine> statics;
  std::unique_ptr<kernels::ChiFreqEngine> frequencies;
  double per_pair = 0;  // the products' operations per pair
  ChiAccumulator(Backend backend, int ng, const EpsilonParams& p, double prefactor, std::size_t budget, Mode mode = Run,
                 std::vector<cplx> basis = {}, int nb = 0) {
    if (mode == Frequencies || (mode == Run && p.frequency_dependence == 2)) {
      std::vector<cplx> z;  // Ry, as the energies
      for (const cplx zf : p.frequencies.all()) z.push_back(zf / kRydbergEV);
      const int n = basis.empty() ? ng : nb;
      per_pair = 8.0 * z.size() * n * n + (basis.empty() ? 0.0 : 8.0 * ng * nb);
      frequencies = std::make_unique<kernels::ChiFreqEngine>(backend, ng, z, prefactor / 2, budget, std::move(basis), nb);  // 2 / (N_k Omega)
    } else {
      per_pair = 4.0 * ng * (ng + 1.0);
      statics = std::make_unique<kernels::ChiSumEngine>(backend, ng, budget);
    }
  }
  // np pairs of M (host m or device m_dev): static weights w, transition energies de (Ry).
  void add(int np, int ng, const cplx* m, cplx* m_dev, const double* w, const double* de) {
    if (statics) {
      kernels::ChiSumJob cj;
      cj.npairs = np;
      cj.ng = ng;
      cj.m = m;
      cj.m_device = m_dev;
      cj.w = w;
      statics->add(cj);
    } else {
      kernels::ChiFreqJob fj;
      fj.npairs = np;
      fj.ng = ng;
      fj.m = m;
      fj.m_device = m_dev;
      fj.de = de;
      frequencies->add(fj);
    }
  }
  // chi0, [ng][ng], or [nf][ng][ng] at the frequencies.
  std::vector<cplx> result() const { return statics ? statics->result() : frequencies->result(); }
  // The processes' partial sums added between their devices (false, nothing done, on the CPU backend).
  bool sum_on_devices(DeviceExchange& exchange) { return statics ? statics->sum_on_devices(exchange) : frequencies->sum_on_devices(exchange); }
};

using Make = std::function<std::unique_ptr<ChiAccumulator>(Backend, std::size_t)>;

// chi0 summed over the items of every process: left on the device (`device`, each process holding the whole sum there)
// where it can be, else on the host.
struct SummedChi {
  std::unique_ptr<ChiAccumulator> device;
  std::vector<cplx> host;
};
using Sum = std::function<SummedChi(const Make&, bool report, bool keep_on_device)>;

// The static subspace approximation for one q (EpsilonParams::subspace), with `sum(make, report, keep_on_device)` the
// items' chi0 summed by accumulators from `make` and `make_basis(backend, budget, basis, nb)` an accumulator of the
// static chi0 (no basis) or of chi0 at the frequencies projected on a basis:
// 1. the static chi0 in the G basis; its eps^-1(0); the eigenvectors B of v^1/2 chi0 v^1/2 (Hermitian) kept by
//    |eigenvalue| / the largest >= subspace_cutoff, at most subspace_nbasis (kernels::static_subspace; on the device
//    where chi0 was left there);
// 2. chi_s(z) = B^H v^1/2 chi0(z) v^1/2 B at every frequency, from each pair's projection M~ = (v^1/2 B)^H M;
// 3. C(z) = (1 - chi_s(z))^-1 - 1, and eps^-1(z) = eps^-1(0) + v^1/2 B [C(z) - C(0)] B^H v^-1/2 (keep_full_static;
//    C(0) from the imaginary axis's z = 0) or 1 + v^1/2 B C(z) B^H v^-1/2 (eps = 1 - v chi0 = v^1/2 (1 - v^1/2 chi0
//    v^1/2) v^-1/2). With every eigenvector kept, both are the G basis's eps^-1 to rounding.
void subspace_epsilon(DielectricMatrix& d, const std::vector<double>& v, const EpsilonParams& p, const std::string& where, EpsilonTimings& t,
                      const Sum& sum, const std::function<std::unique_ptr<ChiAccumulator>(Backend, std::size_t, std::vector<cplx>, int)>& make_basis) {
  const int ng = d.ng();
  const std::size_t n2 = static_cast<std::size_t>(ng) * ng;
  // 1. The static chi0, its eps^-1 and the basis.
  auto chi0 = sum([&](Backend b, std::size_t budget) { return make_basis(b, budget, {}, 0); }, false, true);
  WallTimer ts;
  const auto choose = [&](const std::vector<double>& lambda) {
    std::vector<int> order(ng);
    for (int i = 0; i < ng; ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return std::abs(lambda[a]) > std::abs(lambda[b]); });
    const double largest = std::abs(lambda[order[0]]);
    int nb = 0;
    while (nb < ng && std::abs(lambda[order[nb]]) >= p.subspace_cutoff * largest && (p.subspace_nbasis <= 0 || nb < p.subspace_nbasis)) ++nb;
    order.resize(std::max(nb, 1));
    return order;
  };
  std::optional<kernels::StaticSubspace> st;
  if (chi0.device) st = chi0.device->statics->static_subspace(v, choose, where);
  if (!st) {
    if (chi0.device) {  // the device lacked the memory: the step on the host
      WallTimer tr;
      chi0.host = chi0.device->result();
      t.chi0_result += tr.seconds();
      chi0.device.reset();
    }
    st = kernels::static_subspace(p.backend, chi0.host, v, ng, choose, where);
    chi0.host = {};
  }
  chi0 = {};  // chi0's device memory freed for the frequencies' accumulator
  kernels::StaticSubspace& s = *st;
  t.subspace_form += s.form, t.subspace_invert += s.invert, t.subspace_eigen += s.eigen;
  d.eps_head = s.eps_head;
  const int nb = s.nb;
  const std::vector<double>& sv = s.sv;
  std::vector<cplx> P(s.basis.size());
  for (int c = 0; c < nb; ++c)
    for (int g = 0; g < ng; ++g) P[g + static_cast<std::size_t>(ng) * c] = sv[g] * s.basis[g + static_cast<std::size_t>(ng) * c];
  d.subspace_nbasis = nb;
  t.subspace += ts.seconds();
  // 2. chi0 at the frequencies in the subspace.
  const auto chis = sum([&](Backend b, std::size_t budget) { return make_basis(b, budget, P, nb); }, true, false).host;
  // 3. C(z) and eps^-1(z) in the G basis.
  WallTimer te;
  const std::size_t b2 = static_cast<std::size_t>(nb) * nb;
  const int nf = static_cast<int>(chis.size() / b2), f0 = static_cast<int>(p.frequencies.real_axis().size());  // z = 0 on the imaginary axis
  // (1 - chi_s(z))^-1 at every frequency: on the device as Epsilon's G-basis frequencies are (eps = 1 - v chi with v = 1,
  // one set of inversion buffers) when chi_s, the inverses and the solver's buffers take at most half the device budget;
  // else on the host.
  HostVector<cplx> c;
#if QUANTA_GW_CUDA
  if (p.backend == Backend::Cuda && bytes_of(sizeof(cplx), 2 * nf + 4, b2) <= GpuMemoryBudget{p.gpu_mem_limit}.usable_bytes() / 2) {
    try {  // chi_s stays on the host: a device that cannot take the buffers leaves the work to the host below
      DeviceBuffer<cplx> dev(std::span<const cplx>(chis), "subspace chi_s at the frequencies");
      std::vector<double> heads(nf);
      c = kernels::epsilon_inverse_cuda_many(dev.data(), nf, std::vector<double>(nb, 1.0), nb, where + ", subspace", heads.data());
    } catch (const OutOfDeviceMemory&) {
      c.clear();
    }
  }
#endif
  if (c.empty()) {
    c.resize(chis.size());
    for (int f = 0; f < nf; ++f) {
      std::vector<cplx> e(b2);
      for (std::size_t i = 0; i < b2; ++i) e[i] = (i % (nb + 1) == 0 ? cplx(1.0) : cplx()) - chis[f * b2 + i];
      auto inv = kernels::invert_cpu(std::move(e), nb, where + ", subspace, frequency " + std::to_string(f + 1) + " of " + std::to_string(nf));
      std::copy(inv.begin(), inv.end(), c.begin() + f * b2);
    }
  }
  for (int f = 0; f < nf; ++f)
    for (int i = 0; i < nb; ++i) c[f * b2 + i * (nb + 1)] -= cplx(1.0);
  kernels::SubspaceExpansion x;
  x.ng = ng, x.nb = nb, x.nf = nf, x.basis = s.basis.data(), x.c = c.data(), x.f0 = f0, x.keep = p.subspace_keep_full_static,
  x.einv0 = s.einv0.data(), x.sv = sv.data();
  if (p.subspace_expand) {
    d.epsinv_ff = kernels::subspace_expand(p.backend, x);
    d.epsinv.assign(d.epsinv_ff.begin(), d.epsinv_ff.begin() + n2);
  }
  if (p.subspace_keep_basis) {
    d.sub_basis = s.basis;
    d.sub_c.resize(c.size());
    for (int f = 0; f < nf; ++f)
      for (std::size_t i = 0; i < b2; ++i) d.sub_c[f * b2 + i] = c[f * b2 + i] - (p.subspace_keep_full_static ? c[f0 * b2 + i] : cplx());
    // The static eps^-1: epsinv itself when the subspace is not expanded (below), so not held twice.
    if (p.subspace_expand) d.sub_einv0.assign(s.einv0.begin(), s.einv0.end());
    d.sub_sv = sv;
    d.sub_keep = p.subspace_keep_full_static;
  }
  if (!p.subspace_expand) d.epsinv = std::move(s.einv0);
  t.subspace += te.seconds();
}

}  // namespace

double max_epsilon_cutoff(const Wavefunctions& wfn) { return wfn.ecutrho; }

std::vector<double> FrequencyGrid::real_axis() const {
  if (!listed.empty()) return listed;
  std::vector<double> w;
  if (method == 0) {  // BerkeleyGW's loop (Epsilon/inread.f90), the sums in the same order, so the same binary64 points
    const double high = high_cutoff < 0 ? 4 * low_cutoff : high_cutoff;
    double step = delta;
    for (double t = init; t <= high;) {
      w.push_back(t);
      if (w.size() > 100000)
        throw Error("the real-axis grid (frequency_dependence_method 0) would hold more than 100000 frequencies up to frequency_high_cutoff " +
                    std::to_string(high) + " eV: expected a larger delta_frequency or delta_frequency_step");
      if (t < low_cutoff) t += delta;
      else {
        step += step_increase;
        t += step;
      }
    }
    return w;
  }
  for (long i = 0; init + i * delta <= low_cutoff + 1e-9 * delta; ++i) w.push_back(init + i * delta);
  return w;
}

std::vector<double> FrequencyGrid::imaginary_axis() const {
  std::vector<double> w;
  for (int j = 0; j < n_imag && method == 2; ++j) {
    const double z = static_cast<double>(j) / n_imag;
    w.push_back(plasma * z / (1 - z));
  }
  return w;
}

std::vector<cplx> FrequencyGrid::all() const {
  std::vector<cplx> z;
  for (const double w : real_axis()) z.push_back({w, broadening});
  for (const double w : imaginary_axis()) z.push_back({0, w});
  return z;
}

std::vector<DielectricMatrix> compute_epsilon(const Wavefunctions& wfn, const Wavefunctions* wfnq, const EpsilonParams& p,
                                              EpsilonTimings* timings) {
  const Crystal& crystal = wfn.crystal;
  const int nv = occupied_bands(wfn);
  if (p.nbands > wfn.nbands)
    throw InputError(wfn.file, "number_bands " + std::to_string(p.nbands) + " exceeds the " + std::to_string(wfn.nbands) + " bands of the file");
  if (p.nbands <= nv) throw Error("number_bands " + std::to_string(p.nbands) + ": expected more than the " + std::to_string(nv) + " valence bands");
  if (wfn.nspin != 1) throw InputError(wfn.file, "nspin " + std::to_string(wfn.nspin) + ": only spin-unpolarized runs are supported");
  if (!(p.ecut > 0 && p.ecut <= max_epsilon_cutoff(wfn)))
    throw InputError(wfn.file, "epsilon_cutoff " + std::to_string(p.ecut) + " Ry: expected 0 < epsilon_cutoff <= " +
                                   std::to_string(max_epsilon_cutoff(wfn)) + " Ry, the cutoff of the file's density G-vectors");
  const int nc = p.nbands - nv;

  const auto ops = all_operations(crystal);
  const auto kfull = unfold(crystal, wfn.kpoints, ops);
  const StateSource from_wfn(wfn, ops);
  const auto box = box_for_cutoffs(crystal, wfn.ecutwfc, p.ecut);
  const bool on_device = p.backend == Backend::Cuda;
  // On the device, MTXEL (its chunks and M; one engine for the run) and CHI_SUM (chi0 and its chunks;
  // one engine per q) share the budget equally. On the CPU the engines are per thread (below).
  const std::size_t half_budget = on_device ? GpuMemoryBudget{p.gpu_mem_limit}.usable_bytes() / 2 : 0;
  std::unique_ptr<kernels::MtxelEngine> device_mtxel;
  if (on_device) device_mtxel = std::make_unique<kernels::MtxelEngine>(p.backend, box, half_budget);
  const int threads = on_device ? 1 : max_threads();
  // 2 for spin, 2 for the resonant and antiresonant terms of the static response.
  const double prefactor = 4.0 / (static_cast<double>(kfull.size()) * crystal.celvol);
  EpsilonTimings t;
  t.box_points = box.size();
  // Processes (MPI) share out each q's items and add their chi0; one process takes them all.
  const Comm& comm = Comm::world();
  // Several processes, each on a GPU of its own, in a build with NCCL: the parts of chi0 are added between the devices,
  // and every process then forms and inverts eps on its own device as one process does (collective).
  std::unique_ptr<DeviceExchange> exchange;
  if (on_device && DeviceExchange::available(comm)) {
    exchange = std::make_unique<DeviceExchange>(comm);
    if (!p.quiet && comm.root()) std::fprintf(stderr, "quanta gw: epsilon: chi0 summed between the %d processes' GPUs (NCCL)\n", comm.size());
  }

  // The spheres first (the q0 point stands for q = 0: its sphere and order are those of q = 0), for
  // the memory check and for the progress report, whose work per item is MTXEL's FFTs and CHI_SUM's
  // ZHERK: per valence-conduction pair about 5 N log2 N for the product's transform and 4 ng^2.
  std::vector<std::vector<Vec3i>> spheres;
  double total_work = 0;
  const double fft_work = 5.0 * box.size() * std::log2(static_cast<double>(box.size()));
  auto pair_work = [&](int ng) { return fft_work + 4.0 * ng * ng; };
  const bool full_frequency = p.frequency_dependence == 2;
  const std::size_t nf = full_frequency ? p.frequencies.all().size() : 1;
  for (const auto& qp : p.qpoints) {
    spheres.push_back(g_sphere(crystal, wfn.gvec_rho, qp.q0 ? Vec3{0, 0, 0} : qp.q, p.ecut));
    const std::size_t ng = spheres.back().size();
    total_work += static_cast<double>(kfull.size()) * nv * nc * pair_work(static_cast<int>(ng));
    // chi0, eps and eps^-1, the inversion's work copy, one chi0 per thread on the CPU, and each
    // thread's MTXEL arrays (the states and one product on the box, M of a block).
    // Full frequency: chi0 and eps^-1 at every frequency, per thread the stacked chi0 and 64 MiB of products. With the
    // static subspace the frequencies' chi0 is nb x nb (nb at most nbasis_subspace), and without the expansion to the G
    // basis (do_sigma_subspace) eps^-1 is held at one frequency plus the nb x nb D(z) and the basis.
    const std::size_t nsub = p.subspace ? (p.subspace_nbasis > 0 ? std::min<std::size_t>(ng, p.subspace_nbasis) : ng) : ng;
    const std::size_t held_g = full_frequency && !(p.subspace && !p.subspace_expand) ? 2 * nf + 2 : 4;
    const std::size_t held = add_bytes(bytes_of(sizeof(cplx), ng, ng, held_g), p.subspace ? bytes_of(sizeof(cplx), nsub, nsub + ng, nf + 1) : 0);
    const std::size_t per_thread =
        add_bytes(add_bytes(bytes_of(sizeof(cplx), nsub, nsub, nf), bytes_of(sizeof(cplx), box.size(), nv + nc + 1)),
                  add_bytes(bytes_of(sizeof(cplx), nv, nc, ng), full_frequency ? std::size_t{64} << 20 : 0));
    require_host_memory(add_bytes(held, on_device ? 0 : bytes_of(per_thread, threads)),
                        "epsilon at q-point " + std::to_string(spheres.size()) + " (" + std::to_string(ng) + " G-vectors within " +
                            std::to_string(p.ecut) + " Ry, FFT box " + std::to_string(box.n[0]) + "x" + std::to_string(box.n[1]) + "x" +
                            std::to_string(box.n[2]) + ", " + std::to_string(threads) + " threads)");
  }
  // The first process reports the progress of its share (about 1/P of the k-points of each q).
  const std::size_t k_items = kfull.size() * p.qpoints.size();
  Progress progress("gw epsilon", (k_items + comm.size() - 1) / comm.size(), p.quiet || !comm.root());
  progress.set_total_work(total_work / comm.size());

  std::vector<DielectricMatrix> out;
  for (const auto& qp : p.qpoints) {
    DielectricMatrix d;
    d.q = qp;
    d.nk = static_cast<int>(kfull.size());
    d.gvec = std::move(spheres[out.size()]);
    const int ng = d.ng();
    for (const auto& g : d.gvec) d.qg2.push_back(crystal.norm2({qp.q[0] + g[0], qp.q[1] + g[1], qp.q[2] + g[2]}));
    std::vector<double> v(ng);  // the bare Coulomb interaction 8 pi / |q+G|^2 of eps = 1 - v chi0
    for (int i = 0; i < ng; ++i) v[i] = 8.0 * units::pi / d.qg2[i];
    const auto where_out = box_indexes(box, d.gvec);

    if (qp.q0 && !wfnq) throw Error("q-point (" + std::to_string(qp.q[2]) + ") is marked as q0 but no WFNq file was given");
    const Wavefunctions& vfile = qp.q0 ? *wfnq : wfn;
    if (qp.q0 && occupied_bands(*wfnq) != nv)
      throw InputError(wfnq->file, "ifmax " + std::to_string(occupied_bands(*wfnq)) + ": expected " + std::to_string(nv) + " valence bands as in WFN");
    // The operations index the file's own list: WFNq may carry fewer than WFN (a run without symmetry has one).
    const StateSource valence_source(vfile, qp.q0 ? little_group(vfile.crystal, qp.q) : ops);

    // The work items: (k, block of valence bands), the seed's NV-blocks. The block is the input's
    // valence_block; on the device at most what keeps M (which stays on the device from MTXEL to
    // CHI_SUM) within half of MTXEL's budget; on the CPU small enough that the items keep every thread
    // busy when there are fewer k-points than threads.
    int block = p.valence_block > 0 ? std::min(p.valence_block, nv) : nv;
    if (on_device)
      block = static_cast<int>(std::clamp<std::size_t>(half_budget / 2 / kernels::mtxel_output_bytes(1, nc, ng), 1, block));
    else if (static_cast<int>(kfull.size()) < threads * comm.size())
      block = std::min(block, std::max(1, nv * static_cast<int>(kfull.size()) / (threads * comm.size())));
    // Items for every process (a Gamma-only supercell on P GPUs: P valence blocks at least).
    if (on_device && static_cast<int>(kfull.size()) < comm.size())
      block = std::min(block, std::max(1, nv * static_cast<int>(kfull.size()) / comm.size()));
    const int nblocks = (nv + block - 1) / block;
    const long items = static_cast<long>(kfull.size()) * nblocks;
    // This process's items: every P-th from its rank.
    std::vector<long> mine;
    for (long item = comm.rank(); item < items; item += comm.size()) mine.push_back(item);
    // Progress counts k-points: an item is a block of a k-point's valence bands.
    auto item_work = [&](long item) {
      const int v0 = static_cast<int>(item % nblocks) * block;
      return static_cast<double>(std::min(block, nv - v0)) * nc * pair_work(ng);
    };

    // One item: the states at k (conduction) and k+q (valence block), MTXEL, CHI_SUM into `chi`.
    auto run_item = [&](long item, kernels::MtxelEngine& mtxel, ChiAccumulator& chi, std::vector<cplx>& m, EpsilonTimings& tt) {
      const Vec3& k = kfull[item / nblocks];
      const int v0 = static_cast<int>(item % nblocks) * block;
      const int nvb = std::min(block, nv - v0);
      WallTimer ts;
      const StateSet cond = from_wfn.at(k, p.nbands);
      const StateSet val = valence_source.at({k[0] + qp.q[0], k[1] + qp.q[1], k[2] + qp.q[2]}, v0 + nvb);
      const auto where_v = box_indexes(box, val.gvec);
      const auto where_c = box_indexes(box, cond.gvec);
      std::vector<double> w(static_cast<std::size_t>(nvb) * nc), des(w.size());
      for (int v = 0; v < nvb; ++v)
        for (int c = 0; c < nc; ++c) {
          const double de = cond.energy[nv + c] - val.energy[v0 + v];
          if (!(de > 0))
            throw InputError(wfn.file, "E_c - E_v = " + std::to_string(de) + " Ry at a k-point: expected a gap (insulators only)");
          w[static_cast<std::size_t>(v) * nc + c] = prefactor / de;
          des[static_cast<std::size_t>(v) * nc + c] = de;
        }
      tt.states += ts.seconds();

      WallTimer tm;
      kernels::MtxelJob job;
      job.box = box;
      job.na = nvb;
      job.nb = nc;
      job.ngout = ng;
      job.nga = val.gvec.size();
      job.ngb = cond.gvec.size();
      job.where_a = where_v.data();
      job.where_b = where_c.data();
      job.where_out = where_out.data();
      job.a = val.band(v0);
      job.b = cond.band(nv);
      if (!on_device) m.resize(static_cast<std::size_t>(nvb) * nc * ng);
      job.m = on_device ? nullptr : m.data();
      mtxel.run(job);
      tt.mtxel += tm.seconds();
      tt.ffts += nvb + nc + static_cast<double>(nvb) * nc;

      WallTimer tc;
      chi.add(nvb * nc, ng, on_device ? nullptr : m.data(), on_device ? mtxel.device_result() : nullptr, w.data(), des.data());
      tt.chi_sum += tc.seconds();
      tt.chi_sum_flops += chi.per_pair * nvb * nc;
    };

    // Every item of this process summed into accumulators made by `make`: on the device one, returned with its sum still
    // there; on the CPU one per thread (FFTs and BLAS single-threaded inside), added into *host at the end (then nullptr
    // is returned). Stage times are thread-seconds over the thread count. `report`: advance the progress.
    auto sum_items = [&](const Make& make, bool report, std::vector<cplx>* host) -> std::unique_ptr<ChiAccumulator> {
      if (on_device) {
        auto chi = make(p.backend, half_budget);
        std::vector<cplx> unused;
        for (const long item : mine) {
          run_item(item, *device_mtxel, *chi, unused, t);
          if (report) progress.advance(item % nblocks == nblocks - 1 ? 1 : 0, item_work(item));
        }
        return chi;
      }
      host->clear();
      std::vector<EpsilonTimings> tt(threads);
      RegionFailure failure;
      {
        SerialBlas serial_blas;
#pragma omp parallel num_threads(threads)
        {
          const int id = omp_get_thread_num();
          std::unique_ptr<kernels::MtxelEngine> mtxel;
          std::unique_ptr<ChiAccumulator> chi;
          std::vector<cplx> m;
          failure.run([&] {
            mtxel = std::make_unique<kernels::MtxelEngine>(Backend::Cpu, box);
            chi = make(Backend::Cpu, 0);
          });
#pragma omp for schedule(dynamic)
          for (std::size_t i = 0; i < mine.size(); ++i)
            if (chi) failure.run([&] {
                const long item = mine[i];
                run_item(item, *mtxel, *chi, m, tt[id]);
                if (report) progress.advance(item % nblocks == nblocks - 1 ? 1 : 0, item_work(item));
              });
          if (chi)
            failure.run([&] {
              const auto part = chi->result();
#pragma omp critical(gw_epsilon_sum)
              {
                if (host->empty()) host->assign(part.size(), cplx());
                for (std::size_t i = 0; i < part.size(); ++i) (*host)[i] += part[i];
              }
            });
        }
      }
      failure.rethrow();
      for (const auto& x : tt) {
        t.states += x.states / threads;
        t.mtxel += x.mtxel / threads;
        t.chi_sum += x.chi_sum / threads;
        t.ffts += x.ffts;
        t.chi_sum_flops += x.chi_sum_flops;
      }
      return nullptr;
    };
    // The processes' parts of chi0 added between their devices where they can be (every process then holds the whole
    // there); returns whether they were.
    auto sum_on_devices = [&](ChiAccumulator* chi) {
      if (!chi || !exchange) return false;
      WallTimer tr;
      const bool done = chi->sum_on_devices(*exchange);
      t.chi0_sum += tr.seconds();
      t.chi_sum += tr.seconds();
      return done;
    };
    // The sum on the host (brought from the device when it is there) and, unless `summed` on the devices, added over
    // the processes there (every process then holds the whole).
    auto on_host = [&](std::unique_ptr<ChiAccumulator> chi, std::vector<cplx> host, bool summed) {
      if (chi) {
        WallTimer tr;
        host = chi->result();
        t.chi0_result += tr.seconds();
        t.chi_sum += tr.seconds();
      }
      if (comm.size() > 1 && !summed) {
        WallTimer tr;
        comm.sum(reinterpret_cast<double*>(host.data()), 2 * host.size());
        t.chi0_sum += tr.seconds();
        t.chi_sum += tr.seconds();
      }
      return host;
    };
    const std::string where_q = "q-point " + std::to_string(out.size() + 1);
    auto make_plain = [&](Backend b, std::size_t budget) { return std::make_unique<ChiAccumulator>(b, ng, p, prefactor, budget); };

    if (full_frequency && p.subspace) {
      subspace_epsilon(d, v, p, where_q, t, [&](const Make& make, bool report, bool keep_on_device) {
        SummedChi out;
        auto chi = sum_items(make, report, &out.host);
        const bool summed = sum_on_devices(chi.get());
        if (keep_on_device && chi && (comm.size() == 1 || summed)) out.device = std::move(chi);  // the whole sum on this device
        else out.host = on_host(std::move(chi), std::move(out.host), summed);
        return out;
      }, [&](Backend b, std::size_t budget, std::vector<cplx> basis, int nb) {
        return std::make_unique<ChiAccumulator>(b, ng, p, prefactor, budget, ChiAccumulator::Mode(basis.empty() ? ChiAccumulator::Static : ChiAccumulator::Frequencies),
                                                std::move(basis), nb);
      });
    } else {
      std::vector<cplx> host;
      auto chi = sum_items(make_plain, true, &host);
      const bool summed = sum_on_devices(chi.get());
      // One process on the device, or several whose parts were summed between their devices: chi0 stays there, where
      // eps is formed and inverted (unless the matrices are kept or the device lacks the memory for the inversion).
      if (chi && (comm.size() == 1 || summed) && !p.keep_matrices) {
        WallTimer ti;
        if (chi->frequencies) {
          std::vector<double> heads(nf);
          d.epsinv_ff = chi->frequencies->epsilon_inverse(v, where_q, heads.data());
          if (!d.epsinv_ff.empty()) {
            d.epsinv.assign(d.epsinv_ff.begin(), d.epsinv_ff.begin() + static_cast<std::size_t>(ng) * ng);
            d.eps_head = heads[0];
          }
        } else {
          cplx head;
          d.epsinv = chi->statics->epsilon_inverse(v, where_q, &head);
          d.eps_head = head.re;
        }
        t.inversion += ti.seconds();
      }
      if (d.epsinv.empty()) {  // chi0 on the host: eps formed and inverted at each frequency (one for a static run)
        d.chi0 = on_host(std::move(chi), std::move(host), summed);
        const std::size_t n2 = static_cast<std::size_t>(ng) * ng;
        if (full_frequency) d.epsinv_ff.reserve(n2 * nf);  // filled frequency by frequency below, without reallocations
        for (std::size_t f = 0; f < nf; ++f) {
          WallTimer ti;
          std::vector<cplx> eps(n2);
          const cplx* chi0 = d.chi0.data() + f * n2;
#pragma omp parallel for schedule(static) num_threads(max_threads())
          for (int j = 0; j < ng; ++j)
            for (int i = 0; i < ng; ++i) {
              const std::size_t ij = i + static_cast<std::size_t>(ng) * j;
              eps[ij] = (i == j ? cplx(1.0) : cplx()) - v[i] * chi0[ij];
            }
          t.eps_form += ti.seconds();
          auto inv = kernels::invert(p.backend, eps, ng, where_q + (full_frequency ? ", frequency " + std::to_string(f + 1) + " of " + std::to_string(nf) : std::string()));
          if (f == 0) {
            d.eps_head = eps[0].re;
            d.epsinv.assign(inv.begin(), inv.end());
            if (p.keep_matrices) d.eps = eps;
          }
          if (full_frequency) d.epsinv_ff.insert(d.epsinv_ff.end(), inv.begin(), inv.end());
          t.inversion += ti.seconds();
        }
        if (p.keep_matrices) d.chi0.resize(n2);  // the first frequency's
        else d.chi0 = {};  // 3 ng^2 complex numbers held otherwise
      }
    }
    if (full_frequency) {
      d.freq = p.frequencies.all();
      d.n_real = static_cast<int>(p.frequencies.real_axis().size());
    }
    // A non-finite eps^-1 (a NaN carried in from the states, an overflow) stops the run here, not in Sigma's sums.
    // (With the subspace kept instead of expanded: the static eps^-1 and the subspace's D(z).)
    const bool all_ff = full_frequency && !d.epsinv_ff.empty();
    const cplx* all = all_ff ? d.epsinv_ff.data() : d.epsinv.data();
    const std::size_t n_all = all_ff ? d.epsinv_ff.size() : d.epsinv.size();
    std::size_t bad = n_all;
#pragma omp parallel for reduction(min : bad) num_threads(max_threads())
    for (std::size_t i = 0; i < n_all; ++i)
      if (!std::isfinite(all[i].re) || !std::isfinite(all[i].im)) bad = std::min(bad, i);
    for (const cplx x : d.sub_c)
      if (!std::isfinite(x.re) || !std::isfinite(x.im))
        throw Error("epsilon, q-point " + std::to_string(out.size() + 1) + ": a non-finite element of the static subspace's (1 - chi_s(z))^-1");
    const std::size_t n2 = static_cast<std::size_t>(ng) * ng;
    if (bad < n_all || !std::isfinite(d.eps_head))
      throw Error("epsilon, q-point " + std::to_string(out.size() + 1) + ": a non-finite element of " +
                  (bad < n_all ? "eps^-1 at (G " + std::to_string(bad % n2 % ng + 1) + ", G' " + std::to_string(bad % n2 / ng + 1) + ")" +
                                          (full_frequency ? " at frequency " + std::to_string(bad / n2 + 1) : std::string())
                                    : std::string("eps at the head")));
    out.push_back(std::move(d));
  }
  progress.finish();
  if (timings) *timings = t;
  return out;
}

}  // namespace quanta::gw
