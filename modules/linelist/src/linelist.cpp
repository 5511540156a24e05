// The line list, lower-state batch by lower-state batch (TROVE's intensity loop, GAIN's distribution).
#include "quanta/linelist/linelist.hpp"

#include <algorithm>
#include <cmath>
#include <future>
#include <span>
#include <limits>
#include <map>
#include <sstream>

#include "../kernels/linestrength.hpp"
#include "quanta/core/comm.hpp"
#include "quanta/core/error.hpp"
#include "quanta/core/progress.hpp"
#include "quanta/core/timer.hpp"
#include "quanta/core/units.hpp"
#include "transitions.hpp"

namespace quanta::linelist {

std::vector<int> selection_pairs(const SymmetryGroup& group, const std::vector<int>& selection, const std::string& file) {
  const int n = group.nirreps();
  std::vector<int> pair(n);
  if (selection.empty()) {
    // No `selection`: each irrep pairs with the one whose product with it contains Gamma*.
    for (int g = 0; g < n; ++g) {
      pair[g] = -1;
      for (int h = 0; h < n && pair[g] < 0; ++h)
        if (group.dipole_allowed(g, h)) pair[g] = h;
    }
    return pair;
  }
  if (static_cast<int>(selection.size()) != n)
    throw InputError(file, "selection: found " + std::to_string(selection.size()) + " numbers, expected " + std::to_string(n) +
                               " (one per irrep of " + group.name + ")");
  for (int g = 0; g < n; ++g) {
    pair[g] = g;
    int partners = 0;
    for (int h = 0; h < n; ++h)
      if (h != g && selection[h] == selection[g]) {
        pair[g] = h;
        ++partners;
      }
    if (partners > 1)
      throw InputError(file, "selection: irrep " + group.irreps[g] + " shares its number " + std::to_string(selection[g]) +
                                 " with " + std::to_string(partners) + " others, expected at most one partner");
    if (!group.dipole_allowed(g, pair[g]))
      throw InputError(file, "selection: pairs " + group.irreps[g] + " with " + group.irreps[pair[g]] + ", but " +
                                 group.irreps[g] + " x " + group.irreps[pair[g]] + " does not contain " +
                                 group.irreps[group.dipole_irrep] + ", the symmetry of the dipole in " + group.name);
  }
  return pair;
}

void check_gns_of_pairs(const SymmetryGroup& group, const std::vector<int>& pair, const std::vector<double>& gns, const std::string& file) {
  // TROVE stops on this (FLinput and find_igamma_pair: "selection rules do not agree with Gns"): a line's S
  // carries the lower level's g_ns, so unequal weights within a pair would make S(f <- i) and S(i <- f) differ,
  // and a weight of 0 on one side only would leave out every line of the pair without a word (that irrep's
  // levels are not read).
  const auto text = [](double x) {
    std::ostringstream os;
    os << x;
    return os.str();
  };
  for (int g = 0; g < group.nirreps(); ++g)
    if (pair[g] >= 0 && pair[g] < static_cast<int>(gns.size()) && g < static_cast<int>(gns.size()) && gns[g] != gns[pair[g]])
      throw InputError(file, "GNS: " + group.irreps[g] + " has " + text(gns[g]) + " and its selection partner " +
                                 group.irreps[pair[g]] + " has " + text(gns[pair[g]]) +
                                 ", expected equal weights within a pair (as TROVE requires)");
}

namespace {

double beta_of(const IntensityInput& in) {
  return units::trove::planck * units::trove::light_speed / (units::trove::boltzmann * in.temperature);
}

}  // namespace

double partition_function(const Levels& L, const IntensityInput& in) { return partition_function(L, in, in.temperature); }

double partition_function(const Levels& L, const IntensityInput& in, double temperature) {
  IntensityInput at = in;
  at.temperature = temperature;
  const double beta = beta_of(at);
  double q = 0;
  for (const Level& l : L.levels) q += in.gns[l.gamma - 1] * (2 * l.J + 1) * std::exp(-(l.energy - L.zpe) * beta);
  return q;
}

IntensityConstants::IntensityConstants(const IntensityInput& in, double Q, double zpe_)
    : beta(beta_of(in)),
      a_coef(64.0e-36 * std::pow(units::pi, 4) / (3.0 * units::trove::planck)),
      i_coef(8.0e-36 * std::pow(units::pi, 3) / (3.0 * units::trove::planck * units::trove::light_speed)),
      partition(Q),
      zpe(zpe_) {}

void collect_transitions(const IntensityInput& in, const IntensityConstants& k, const StateSet& lo, const StateSet& up,
                         const double* amp, std::vector<Transition>& out) {
  const double small = std::numeric_limits<double>::epsilon();
  const int degI = lo.degen, degF = up.degen;
  const std::size_t nf = std::size_t(up.count) * degF;
  const double jfac = (2.0 * lo.J + 1) * (2.0 * up.J + 1);
  for (int i = 0; i < lo.count; ++i) {
    const double boltz = std::exp(-(lo.energy[i] - k.zpe) * k.beta);
    const double* a_i = amp + std::size_t(i) * degI * nf;
    for (int f = 0; f < up.count; ++f) {
      const double nu = up.energy[f] - lo.energy[i];
      // A NaN would fail every filter below and vanish from the list: stopped here, naming the pair.
      auto non_finite = [&](const char* what) {
        return Error(std::string("a non-finite ") + what + " between level " + std::to_string(lo.level[i]) + " (J = " + std::to_string(lo.J) +
                     ") and level " + std::to_string(up.level[f]) + " (J = " + std::to_string(up.J) +
                     "): check the energies, eigenvectors and dipole read");
      };
      if (!std::isfinite(nu)) throw non_finite("wavenumber");
      if (nu <= -small || !in.freq.contains(nu)) continue;
      double s0 = 0;
      for (int di = 0; di < degI; ++di)
        for (int df = 0; df < degF; ++df) {
          const double a = a_i[di * nf + std::size_t(f) * degF + df];
          s0 += a * a;
        }
      if (!std::isfinite(s0)) throw non_finite("line strength");
      s0 /= degI;
      Transition t;
      t.lower = lo.level[i];
      t.upper = up.level[f];
      t.wavenumber = nu;
      t.amplitude = a_i[std::size_t(f) * degF];
      t.linestrength = s0 * lo.gns * jfac;
      const double anu = std::abs(nu);
      t.einstein_a = k.a_coef * (2.0 * lo.J + 1) * s0 * anu * anu * anu;
      t.intensity = t.linestrength * k.i_coef * anu * boltz * (1.0 - std::exp(-anu * k.beta)) / k.partition;
      if (t.intensity >= in.thresh_intens && t.linestrength >= in.thresh_line) out.push_back(t);
    }
  }
}

LineList compute_linelist(const Levels& L, const IntensityInput& in, const DipoleMatrices& dipole, const LineListOptions& opt,
                          const EngineOptions& eo) {
  const Comm& comm = Comm::world();
  const SymmetryGroup& G = *L.group;
  const std::vector<int> pair = selection_pairs(G, in.selection, in.file.string());
  check_gns_of_pairs(G, pair, in.gns, in.file.string());
  if (dipole.n != L.bases[0].nvib)
    throw Error("dipole matrices are " + std::to_string(dipole.n) + " x " + std::to_string(dipole.n) + ", expected the " +
                std::to_string(L.bases[0].nvib) + " vibrational functions of the levels' product basis");
  LineList out;
  auto engine = make_engine(opt.backend, dipole, eo);
  out.engine = engine->description();
  out.partition_from_states = in.qstat <= 0;
  out.partition_function = out.partition_from_states ? partition_function(L, in) : in.qstat;
  const IntensityConstants konst(in, out.partition_function, L.zpe);

  auto block_of = [&](int J, int gamma) -> int {
    for (std::size_t b = 0; b < L.blocks.size(); ++b)
      if (L.blocks[b].J == J && L.blocks[b].gamma == gamma) return static_cast<int>(b);
    return -1;
  };
  // Upper blocks of a lower block: J' = J-1, J, J+1 in the range, Gamma' its selection partner; TROVE
  // leaves out J = J' = Jmin (that pair belongs to the run below this J range).
  auto upper_blocks = [&](const LevelBlock& lb) {
    std::vector<int> ub;
    // A block of spin weight 0 (the J = 0 levels of the first irrep, read for the ZPE and listed in .states)
    // gives no line, as in TROVE's intens_filter; its partner has weight 0 too (check_gns_of_pairs).
    if (in.gns[lb.gamma - 1] <= 0) return ub;
    for (int Jp = lb.J - 1; Jp <= lb.J + 1; ++Jp) {
      if (Jp < in.jmin || Jp > in.jmax || lb.J + Jp < 1 || (lb.J == in.jmin && Jp == in.jmin)) continue;
      const int b = block_of(Jp, pair[lb.gamma - 1] + 1);
      if (b >= 0 && !L.blocks[b].levels.empty()) ub.push_back(b);
    }
    return ub;
  };

  // Lower states in TROVE's order (by energy); process i mod nprocs computes state i.
  std::vector<int> lower_all;
  for (std::size_t b = 0; b < L.blocks.size(); ++b) {
    if (upper_blocks(L.blocks[b]).empty()) continue;
    for (int li : L.blocks[b].levels)
      if (in.lower.contains(L.levels[li].energy - L.zpe)) lower_all.push_back(li);
  }
  std::stable_sort(lower_all.begin(), lower_all.end(), [&](int a, int b) { return L.levels[a].energy < L.levels[b].energy; });
  std::map<int, std::vector<int>> mine;  // block -> my lower levels
  for (std::size_t i = 0; i < lower_all.size(); ++i)
    if (static_cast<int>(i % comm.size()) == comm.rank()) mine[L.levels[lower_all[i]].block].push_back(lower_all[i]);

  // Upper states of a block inside the upper window; their expanded vectors are kept on the host while
  // they fit opt.upper_cache_bytes, and otherwise read chunk by chunk when needed.
  struct Upper {
    std::vector<int> levels, records;
    std::vector<double> energies;
    std::vector<double> vectors;  // [nlevels * degen][dim], or empty: read from the block's file
  };
  std::map<int, Upper> uppers;
  std::size_t cached = 0;
  auto upper = [&](int b) -> const Upper& {
    auto it = uppers.find(b);
    if (it != uppers.end()) return it->second;
    Upper u;
    for (int li : L.blocks[b].levels)
      if (in.upper.contains(L.levels[li].energy - L.zpe)) {
        u.levels.push_back(li);
        u.records.push_back(L.levels[li].root.record);
        u.energies.push_back(L.levels[li].energy);
      }
    const std::size_t bytes = u.levels.size() * G.degeneracy(L.blocks[b].gamma - 1) * L.basis(L.blocks[b].J).size() * sizeof(double);
    if (cached + bytes <= opt.upper_cache_bytes) {
      u.vectors = expanded_vectors(L, L.blocks[b], u.records, -1.0);
      cached += bytes;
    }
    return uppers.emplace(b, std::move(u)).first->second;
  };
  std::map<std::pair<int, int>, RotationalCoupling> couplings;
  auto coupling = [&](int J, int Jp) -> const RotationalCoupling& {
    auto it = couplings.find({J, Jp});
    if (it != couplings.end()) return it->second;
    return couplings.emplace(std::make_pair(J, Jp), rotational_coupling(L.basis(J), L.basis(Jp), in.thresh_coeff)).first->second;
  };

  // Groups of lower states, as many per group as the engine holds for the block's largest J'.
  struct Group {
    int block;
    std::vector<int> levels;
  };
  std::vector<Group> groups;
  for (auto& [b, lowers] : mine) {
    const LevelBlock& lb = L.blocks[b];
    std::size_t dim_up = 0;
    for (int ub : upper_blocks(lb)) dim_up = std::max(dim_up, L.basis(L.blocks[ub].J).size());
    const int degI = G.degeneracy(lb.gamma - 1);
    const int size = std::max(1, engine->plan(L.basis(lb.J).size(), dim_up).lower_states / degI);
    for (std::size_t first = 0; first < lowers.size(); first += size)
      groups.push_back({b, std::vector<int>(lowers.begin() + first, lowers.begin() + std::min(lowers.size(), first + size))});
  }
  // The expanded vectors of a group (read and expanded on a second thread while the previous group computes).
  auto group_vectors = [&](const Group& g) {
    std::vector<int> records;
    for (int li : g.levels) records.push_back(L.levels[li].root.record);
    return expanded_vectors(L, L.blocks[g.block], records, in.thresh_coeff);
  };

  std::size_t total = 0;
  for (auto& [b, v] : mine) total += v.size();
  Progress progress("half-linestrengths", total, opt.quiet || !comm.root());
  WallTimer timer;
  std::vector<Transition> found;
  std::future<std::vector<double>> next;
  // With a sink, each group's lines go to it on a second thread while the next group computes (the range files'
  // spill and the cross sections need not hold the device): at most two groups' lines are held at once.
  std::future<void> sinking;
  auto hand_to_sink = [&] {
    WallTimer w;
    if (sinking.valid()) sinking.get();  // the previous group's (and its exception, if it threw)
    out.seconds_sink_wait += w.seconds();
    out.streamed += found.size();
    const std::size_t size = found.size();
    sinking = std::async(std::launch::async, [&opt, lines = std::move(found)]() mutable { opt.sink(lines); });
    found = {};
    found.reserve(size);
  };
  for (std::size_t gi = 0; gi < groups.size(); ++gi) {
    const Group& g = groups[gi];
    const LevelBlock& lb = L.blocks[g.block];
    WallTimer wait;
    std::vector<double> C = gi == 0 ? group_vectors(g) : next.get();
    out.seconds_vectors_wait += wait.seconds();
    if (gi + 1 < groups.size()) next = std::async(std::launch::async, group_vectors, std::cref(groups[gi + 1]));
    std::vector<double> lower_energy;
    for (int li : g.levels) lower_energy.push_back(L.levels[li].energy);
    const StateSet lower{g.levels.data(), lower_energy.data(), int(g.levels.size()), lb.J, G.degeneracy(lb.gamma - 1), in.gns[lb.gamma - 1]};
    wait.reset();
    engine->set_lower(std::move(C), lower.count * lower.degen, L.basis(lb.J).nrot());
    out.seconds_set_lower += wait.seconds();
    for (int ub : upper_blocks(lb)) {
      const LevelBlock& fb = L.blocks[ub];
      const Upper& U = upper(ub);
      if (U.levels.empty()) continue;
      timer.reset();
      engine->half_linestrengths(coupling(lb.J, fb.J));
      out.seconds_half += timer.seconds();
      timer.reset();
      // Upper chunks through the engine's two slots: the host fills chunk k and digests chunk k-1
      // while the device computes.
      const int degF = G.degeneracy(fb.gamma - 1);
      const std::size_t dim = L.basis(fb.J).size();
      const int chunk = std::max(1, engine->plan(L.basis(lb.J).size(), dim).upper_chunk / degF);
      const int nchunks = int((U.levels.size() + chunk - 1) / chunk);
      auto digest = [&](int k) {
        const int f0 = k * chunk, m = std::min<int>(chunk, int(U.levels.size()) - f0);
        const StateSet upper_set{U.levels.data() + f0, U.energies.data() + f0, m, fb.J, degF, 0.0};
        const double* amplitudes = engine->finish_completions(k % 2);
        WallTimer d;
        collect_transitions(in, konst, lower, upper_set, amplitudes, found);
        out.seconds_digest += d.seconds();
      };
      for (int k = 0; k < nchunks; ++k) {
        const int f0 = k * chunk, m = std::min<int>(chunk, int(U.levels.size()) - f0);
        const std::size_t count = std::size_t(m) * degF * dim;
        double* buf = engine->upper_buffer(k % 2, count);
        if (!U.vectors.empty()) std::copy_n(U.vectors.data() + std::size_t(f0) * degF * dim, count, buf);
        else expand_vectors(L, fb, std::span<const int>(U.records).subspan(f0, m), -1.0, buf);
        engine->start_completions(k % 2, m * degF);
        if (k > 0) digest(k - 1);
      }
      digest(nchunks - 1);
      out.seconds_completion += timer.seconds();
    }
    progress.advance(g.levels.size());
    out.lower_states += static_cast<long long>(g.levels.size());
    if (opt.sink) hand_to_sink();
  }
  if (sinking.valid()) sinking.get();
  progress.finish();
  out.upper_cached_bytes = cached;

  if (opt.sink) return out;  // each process streamed its own
  // Every process gets every transition (7 numbers each).
  if (comm.distributed()) {
    std::vector<double> mine_packed;
    mine_packed.reserve(found.size() * 7);
    for (const auto& t : found)
      mine_packed.insert(mine_packed.end(), {double(t.upper), double(t.lower), t.wavenumber, t.linestrength, t.einstein_a, t.intensity, t.amplitude});
    std::vector<double> counts_d(comm.size());
    const double my_count = static_cast<double>(mine_packed.size());
    std::vector<std::size_t> ones(comm.size(), 1), offs(comm.size());
    for (int r = 0; r < comm.size(); ++r) offs[r] = r;
    comm.allgatherv(&my_count, counts_d.data(), ones, offs);
    std::vector<std::size_t> counts(comm.size()), displs(comm.size());
    std::size_t all = 0;
    for (int r = 0; r < comm.size(); ++r) {
      counts[r] = static_cast<std::size_t>(counts_d[r]);
      displs[r] = all;
      all += counts[r];
    }
    std::vector<double> packed(all);
    comm.allgatherv(mine_packed.data(), packed.data(), counts, displs);
    found.clear();
    for (std::size_t p = 0; p < all; p += 7)
      found.push_back({int(packed[p]), int(packed[p + 1]), packed[p + 2], packed[p + 3], packed[p + 4], packed[p + 5], packed[p + 6]});
  }
  std::sort(found.begin(), found.end(), [&](const Transition& a, const Transition& b) {
    const double ea = L.levels[a.lower].energy, eb = L.levels[b.lower].energy;
    if (ea != eb) return ea < eb;
    if (a.lower != b.lower) return a.lower < b.lower;
    const double fa = L.levels[a.upper].energy, fb = L.levels[b.upper].energy;
    if (fa != fb) return fa < fb;
    return a.upper < b.upper;
  });
  out.transitions = std::move(found);
  return out;
}

}  // namespace quanta::linelist
