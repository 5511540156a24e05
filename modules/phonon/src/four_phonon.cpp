// Four-phonon scattering on the CPU, as FourPhonon computes it: for each irreducible mode, the allowed
// ++, +- and -- processes (kernels/four_phonon.hpp), their count, phase space and, at every temperature in
// one pass, their rates and weighted phase spaces. Nothing is stored per process: each is enumerated,
// tested and evaluated once.
#include <algorithm>
#include <cmath>
#include <numeric>

#include "../kernels/four_phonon.hpp"
#include "quanta/core/error.hpp"
#include "quanta/core/progress.hpp"
#include "quanta/core/units.hpp"
#include "quanta/phonon/scattering.hpp"
#include "three_phonon_setup.hpp"

namespace quanta::phonon {
namespace {

namespace su = units::shengbte;
using kernels::FourClass;

constexpr FourClass kClasses[3] = {FourClass::PlusPlus, FourClass::PlusMinus, FourClass::MinusMinus};

// Calls emit(mode2, mode3, mode4, delta, sigma) for each allowed process of class c of mode1 (full-mesh mode
// index), in FourPhonon's loop order. Each unordered set of final (or initial) partners is visited once:
//   ++: q3 >= q2 (and k >= j when q3 = q2);  +-: q4 >= q3 (l >= k when equal);  --: both.
// A process is allowed when modes 2-4 have nonzero frequencies and |delta| <= sigma, sigma from the
// velocities of modes 3 and 4 (where it is at most 0.001 rad/ps it then becomes 1/sqrt(pi), as in FourPhonon).
// The +- class also excludes processes where mode 3 or 4 is mode 1 or 2.
template <class Emit>
void for_each_process4(const kernels::MeshView& m, int mode1, FourClass c, Emit&& emit) {
  const int nb = m.nb, N = m.nptk, q1 = mode1 / nb;
  const double w1 = m.omega[mode1];
  const bool pm = c == FourClass::PlusMinus;
  for (int q2 = 0; q2 < N; ++q2)
    for (int q3 = pm ? 0 : q2; q3 < N; ++q3) {
      const int q4 = kernels::fourth_q(m.n, q1, q2, q3, c);
      if (c != FourClass::PlusPlus && q4 < q3) continue;
      for (int j = 0; j < nb; ++j) {
        const int mode2 = q2 * nb + j;
        const double w2 = m.omega[mode2];
        for (int k = (!pm && q3 == q2) ? j : 0; k < nb; ++k) {
          const int mode3 = q3 * nb + k;
          const double w3 = m.omega[mode3];
          for (int l = (c != FourClass::PlusPlus && q4 == q3) ? k : 0; l < nb; ++l) {
            const int mode4 = q4 * nb + l;
            if (pm && (mode3 == mode1 || mode4 == mode1 || mode3 == mode2 || mode4 == mode2)) continue;
            const double w4 = m.omega[mode4];
            if (w2 == 0 || w3 == 0 || w4 == 0) continue;
            double sigma = kernels::process_sigma4(m, mode3, mode4);
            const double delta = kernels::mismatch4(w1, w2, w3, w4, c);
            if (!(std::abs(delta) <= sigma)) continue;
            if (sigma <= double(0.001f)) sigma = 1 / std::sqrt(units::pi);
            emit(mode2, mode3, mode4, delta, sigma);
          }
        }
      }
    }
}

// The fourth-order constants as the kernels read them: grouped by atom quadruple (file order kept within a
// group), masses divided in, with the mesh's roots of unity.
struct Fc4Tables {
  std::vector<int> group_offset, group_atoms, cells;
  std::vector<double> phi;
  std::vector<cplx> roots;
  int roots_n = 1;
  int stride[3] = {1, 1, 1};
};

Fc4Tables make_fc4_tables(const FourthOrderFc& fc4, const Crystal& crystal, const std::array<int, 3>& mesh) {
  Fc4Tables t;
  const int nat = crystal.natoms;
  std::vector<std::vector<int>> by_group(static_cast<std::size_t>(nat) * nat * nat * nat);
  for (std::size_t i = 0; i < fc4.quadruplets.size(); ++i) {
    const auto& a = fc4.quadruplets[i].atom;
    by_group[((a[0] * nat + a[1]) * nat + a[2]) * nat + a[3]].push_back(static_cast<int>(i));
  }
  t.group_offset.push_back(0);
  for (std::size_t g = 0; g < by_group.size(); ++g) {
    if (by_group[g].empty()) continue;
    const auto& first = fc4.quadruplets[by_group[g].front()].atom;
    const double inv_mass =
        1.0 / std::sqrt(crystal.masses[first[0]] * crystal.masses[first[1]] * crystal.masses[first[2]] * crystal.masses[first[3]]);
    t.group_atoms.insert(t.group_atoms.end(), {first[0], first[1], first[2], first[3]});
    for (int i : by_group[g]) {
      const auto& q = fc4.quadruplets[i];
      for (double x : q.phi) t.phi.push_back(x * inv_mass);
      for (const int* cell : {q.cell_j, q.cell_k, q.cell_l}) t.cells.insert(t.cells.end(), cell, cell + 3);
    }
    t.group_offset.push_back(t.group_offset.back() + static_cast<int>(by_group[g].size()));
  }
  t.roots_n = std::lcm(std::lcm(mesh[0], mesh[1]), mesh[2]);
  for (int d = 0; d < 3; ++d) t.stride[d] = t.roots_n / mesh[d];
  t.roots.resize(t.roots_n);
  for (int k = 0; k < t.roots_n; ++k) {
    const double x = 2.0 * units::pi * k / t.roots_n;
    t.roots[k] = cplx(std::cos(x), std::sin(x));
  }
  return t;
}

kernels::Fc4View make_fc4_view(const Fc4Tables& t) {
  kernels::Fc4View v{};
  v.ngroups = static_cast<int>(t.group_atoms.size() / 4);
  v.group_offset = t.group_offset.data();
  v.group_atoms = t.group_atoms.data();
  v.phi = t.phi.data();
  v.cells = t.cells.data();
  v.roots_n = t.roots_n;
  for (int d = 0; d < 3; ++d) v.stride[d] = t.stride[d];
  v.roots = t.roots.data();
  return v;
}

}  // namespace

FourPhononScattering four_phonon_scattering(const Crystal& crystal, const QGrid& grid, const Spectrum& s, const FourthOrderFc& fc4,
                                            double scalebroad, const std::vector<double>& temperatures,
                                            const ScatteringOptions& opt) {
  kernels::MeshView mesh = make_mesh_view(crystal, grid, s, scalebroad, s.omega.data(), s.velocity.data(), s.eigenvectors.data());
  mesh.omega_max = opt.omega_max;
  const Fc4Tables tables = make_fc4_tables(fc4, crystal, grid.n);
  const kernels::Fc4View f = make_fc4_view(tables);
  const bool with_rates = !fc4.quadruplets.empty();
  const int nb = s.nb, nmodes = grid.nlist() * nb, nT = static_cast<int>(temperatures.size());
  const double N = grid.nptk;
  // Occupations of the full mesh at each temperature ([nT][nptk][nb]).
  std::vector<double> bose(static_cast<std::size_t>(nT) * s.omega.size(), 0.0);
  for (int it = 0; it < nT; ++it)
    for (std::size_t m = 0; m < s.omega.size(); ++m)
      if (s.omega[m] != 0)
        bose[it * s.omega.size() + m] = 1.0 / (std::exp(su::hbar * s.omega[m] / su::kB / temperatures[it]) - 1.0);
  // FourPhonon's normalizations: P4 divides by N^3 nb^4; a rate is hbar_p^2 pi / 8 |V|^2 F G / (w1 w2 w3 w4),
  // times 3.37617087e9 (its single-precision literal) taking (eV/A^4/amu^2)^2 / (rad/ps)^4 to 1/ps, over N^2.
  const double p4_norm = std::sqrt(units::pi) * N * N * N * std::pow(double(nb), 4);
  const double rate_prefactor = su::hbar_p * su::hbar_p * units::pi / 8;
  const double rate_units = double(3.37617087f) * 1e9 / N / N;

  FourPhononScattering r;
  for (int c = 0; c < 3; ++c) {
    r.count[c].assign(nmodes, 0);
    r.phase_space[c].assign(nmodes, 0.0);
  }
  r.per_t.resize(nT);
  for (auto& at : r.per_t)
    for (int c = 0; c < 3; ++c) {
      at.gamma[c].assign(nmodes, 0.0);
      at.wp4[c].assign(nmodes, 0.0);
    }
  Progress progress("four-phonon scattering", static_cast<std::size_t>(nmodes), opt.quiet);
#pragma omp parallel for schedule(dynamic, 1)
  for (int m = 0; m < nmodes; ++m) {
    const int mode1 = grid.irreducible[m / nb] * nb + m % nb;
    const double w1 = s.omega[mode1];
    if (kernels::scatters(mesh, w1))
      for (int c = 0; c < 3; ++c) {
        std::int64_t count = 0;
        double p4 = 0;
        std::vector<double> gamma(nT, 0.0), wp4(nT, 0.0);
        for_each_process4(mesh, mode1, kClasses[c], [&](int mode2, int mode3, int mode4, double delta, double sigma) {
          ++count;
          const double e = std::exp(-delta * delta / (sigma * sigma));
          p4 += e / (sigma * p4_norm);
          const double w2 = s.omega[mode2], w3 = s.omega[mode3], w4 = s.omega[mode4];
          // FourPhonon gives no weight to processes with a partner at or below 1.25 rad/ps (still counted).
          if (w2 <= 1.25 || w3 <= 1.25 || w4 <= 1.25) return;
          const double g = e / (sigma * std::sqrt(units::pi));
          const double v2 = with_rates ? kernels::vertex4(mesh, f, mode1, mode2, mode3, mode4, kClasses[c]) : 0.0;
          for (int it = 0; it < nT; ++it) {
            const double* n = bose.data() + it * s.omega.size();
            const double weight = kernels::occupation4(n[mode2], n[mode3], n[mode4], kClasses[c]) * g / (w1 * w2 * w3 * w4);
            wp4[it] += weight;
            gamma[it] += rate_prefactor * weight * v2;
          }
        });
        r.count[c][m] = count;
        r.phase_space[c][m] = p4;
        for (int it = 0; it < nT; ++it) {
          r.per_t[it].gamma[c][m] = gamma[it] * rate_units;
          r.per_t[it].wp4[c][m] = wp4[it] / N / N;
        }
      }
    progress.advance(1);
  }
  progress.finish();
  for (const auto& at : r.per_t)
    for (int c = 0; c < 3; ++c)
      for (double g : at.gamma[c])
        if (!std::isfinite(g)) throw Error("four-phonon scattering: a non-finite rate (check the force constants and the spectrum)");
  return r;
}

}  // namespace quanta::phonon
