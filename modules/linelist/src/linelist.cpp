// The line list, lower-state batch by lower-state batch (TROVE's intensity loop, GAIN's distribution).
#include "quanta/linelist/linelist.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "../kernels/linestrength.hpp"
#include "quanta/core/comm.hpp"
#include "quanta/core/error.hpp"
#include "quanta/core/progress.hpp"
#include "quanta/core/timer.hpp"
#include "quanta/core/units.hpp"

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

namespace {

double beta_of(const IntensityInput& in) {
  return units::trove::planck * units::trove::light_speed / (units::trove::boltzmann * in.temperature);
}

}  // namespace

double partition_function(const Levels& L, const IntensityInput& in) {
  const double beta = beta_of(in);
  double q = 0;
  for (const Level& l : L.levels) q += in.gns[l.gamma - 1] * (2 * l.J + 1) * std::exp(-(l.energy - L.zpe) * beta);
  return q;
}

LineList compute_linelist(const Levels& L, const IntensityInput& in, const DipoleMatrices& dipole, const LineListOptions& opt,
                          const EngineOptions& eo) {
  const Comm& comm = Comm::world();
  const SymmetryGroup& G = *L.group;
  const std::vector<int> pair = selection_pairs(G, in.selection, in.file.string());
  if (dipole.n != L.bases[0].nvib)
    throw Error("j0_extfield.chk: dipole matrices are " + std::to_string(dipole.n) + " x " + std::to_string(dipole.n) +
                ", expected the " + std::to_string(L.bases[0].nvib) + " J = 0 contracted functions of j0eigen_quanta0.chk");
  LineList out;
  auto engine = make_engine(opt.backend, dipole, eo);
  out.engine = engine->description();

  const double small = std::numeric_limits<double>::epsilon();
  const double beta = beta_of(in);
  const double pi = units::pi, h = units::trove::planck, c = units::trove::light_speed;
  const double a_coef = 64.0e-36 * std::pow(pi, 4) / (3.0 * h);     // s^-1 / (Debye^2 cm^-3)
  const double i_coef = 8.0e-36 * std::pow(pi, 3) / (3.0 * h * c);  // cm/molecule / (Debye^2 cm^-1)
  out.partition_from_states = in.qstat <= 0;
  out.partition_function = out.partition_from_states ? partition_function(L, in) : in.qstat;
  const double Q = out.partition_function;
  const Window &freq = in.freq, &low = in.lower, &up = in.upper;

  auto block_of = [&](int J, int gamma) -> int {
    for (std::size_t b = 0; b < L.blocks.size(); ++b)
      if (L.blocks[b].J == J && L.blocks[b].gamma == gamma) return static_cast<int>(b);
    return -1;
  };
  // Upper blocks of a lower block: J' = J-1, J, J+1 in the range, Gamma' its selection partner; TROVE
  // leaves out J = J' = Jmin (that pair belongs to the run below this J range).
  auto upper_blocks = [&](const LevelBlock& lb) {
    std::vector<int> ub;
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
      if (low.contains(L.levels[li].energy - L.zpe)) lower_all.push_back(li);
  }
  std::stable_sort(lower_all.begin(), lower_all.end(), [&](int a, int b) { return L.levels[a].energy < L.levels[b].energy; });
  std::map<int, std::vector<int>> mine;  // block -> my lower levels
  for (std::size_t i = 0; i < lower_all.size(); ++i)
    if (static_cast<int>(i % comm.size()) == comm.rank()) mine[L.levels[lower_all[i]].block].push_back(lower_all[i]);

  // Upper states of a block inside the upper window, and their expanded vectors (computed once).
  struct Upper {
    std::vector<int> levels;
    std::vector<double> vectors;  // [nlevels * degen][dim]
  };
  std::map<int, Upper> uppers;
  auto upper = [&](int b) -> const Upper& {
    auto it = uppers.find(b);
    if (it != uppers.end()) return it->second;
    Upper u;
    std::vector<int> records;
    for (int li : L.blocks[b].levels)
      if (up.contains(L.levels[li].energy - L.zpe)) {
        u.levels.push_back(li);
        records.push_back(L.levels[li].root.record);
      }
    u.vectors = expanded_vectors(L, L.blocks[b], records, -1.0);
    return uppers.emplace(b, std::move(u)).first->second;
  };
  std::map<std::pair<int, int>, RotationalCoupling> couplings;
  auto coupling = [&](int J, int Jp) -> const RotationalCoupling& {
    auto it = couplings.find({J, Jp});
    if (it != couplings.end()) return it->second;
    return couplings.emplace(std::make_pair(J, Jp), rotational_coupling(L.basis(J), L.basis(Jp), in.thresh_coeff)).first->second;
  };

  std::size_t total = 0;
  for (auto& [b, v] : mine) total += v.size();
  Progress progress("half-linestrengths", total, opt.quiet || !comm.root());
  WallTimer timer;
  std::vector<Transition> found;
  for (auto& [b, lowers] : mine) {
    const LevelBlock& lb = L.blocks[b];
    const int degI = G.degeneracy(lb.gamma - 1);
    const double gns = in.gns[lb.gamma - 1];
    const std::vector<int> ubs = upper_blocks(lb);
    for (std::size_t first = 0; first < lowers.size(); first += opt.batch) {
      const std::size_t n = std::min<std::size_t>(opt.batch, lowers.size() - first);
      std::vector<int> records(n);
      for (std::size_t i = 0; i < n; ++i) records[i] = L.levels[lowers[first + i]].root.record;
      const std::vector<double> C = expanded_vectors(L, lb, records, in.thresh_coeff);
      engine->set_lower(C.data(), static_cast<int>(n) * degI, L.basis(lb.J).nrot());
      for (int ub : ubs) {
        const LevelBlock& fb = L.blocks[ub];
        const Upper& U = upper(ub);
        if (U.levels.empty()) continue;
        const int degF = G.degeneracy(fb.gamma - 1);
        timer.reset();
        engine->half_linestrengths(coupling(lb.J, fb.J));
        out.seconds_half += timer.seconds();
        timer.reset();
        const int nf = static_cast<int>(U.levels.size()) * degF;
        std::vector<double> amp(n * degI * nf);
        engine->completions(ub, U.vectors.data(), nf, amp.data());
        out.seconds_completion += timer.seconds();
        const double jfac = (2.0 * lb.J + 1) * (2.0 * fb.J + 1);
        for (std::size_t i = 0; i < n; ++i) {
          const Level& li = L.levels[lowers[first + i]];
          const double boltz = std::exp(-(li.energy - L.zpe) * beta);
          for (std::size_t f = 0; f < U.levels.size(); ++f) {
            const Level& lf = L.levels[U.levels[f]];
            const double nu = lf.energy - li.energy;
            if (nu <= -small || !freq.contains(nu)) continue;
            double s0 = 0;
            for (int di = 0; di < degI; ++di)
              for (int df = 0; df < degF; ++df) {
                const double a = amp[(i * degI + di) * nf + f * degF + df];
                s0 += a * a;
              }
            s0 /= degI;
            Transition t;
            t.lower = lowers[first + i];
            t.upper = U.levels[f];
            t.wavenumber = nu;
            t.amplitude = amp[(i * degI) * nf + f * degF];
            t.linestrength = s0 * gns * jfac;
            const double anu = std::abs(nu);
            t.einstein_a = a_coef * (2.0 * lb.J + 1) * s0 * anu * anu * anu;
            t.intensity = t.linestrength * i_coef * anu * boltz * (1.0 - std::exp(-anu * beta)) / Q;
            if (t.intensity >= in.thresh_intens && t.linestrength >= in.thresh_line) found.push_back(t);
          }
        }
      }
      progress.advance(n);
      out.lower_states += static_cast<long long>(n);
    }
  }
  progress.finish();

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
