// Mode Grueneisen parameters from the third-order force constants and their heat-capacity-weighted average,
// as ShengBTE/FourPhonon compute them (Li et al., CPC 185, 1747 (2014), eq. 15 there):
//   gamma(q s) = -Re[ sum_t e^{i q.R_j(t)} / sqrt(m_A m_B) sum_ab conj(e_s(q)_{A a}) e_s(q)_{B b}
//                     sum_c Phi_t^{abc} (r_C + R_k(t))_c ] / (6 omega(q s)^2),
// t running over the triplets (A in the home cell, B in cell R_j, C at r_C + R_k), zero where omega = 0.
#include <cmath>

#include "quanta/core/comm.hpp"
#include "quanta/core/units.hpp"
#include "quanta/phonon/harmonic.hpp"
#include "quanta/phonon/scattering.hpp"

namespace quanta::phonon {

std::vector<double> mode_gruneisen(const Crystal& c, const QGrid& grid, const Spectrum& s, const ThirdOrderFc& fc3) {
  const int nb = s.nb, ntri = static_cast<int>(fc3.triplets.size());
  // The q-independent part of each triplet: w_t[a][b] = sum_c Phi_t^{abc} (r_C + R_k)_c / sqrt(m_A m_B), in
  // eV/A^3 nm / amu.
  std::vector<double> w(static_cast<std::size_t>(ntri) * 9);  // [ntri][3][3]
  for (int t = 0; t < ntri; ++t) {
    const auto& tr = fc3.triplets[t];
    const Vec3 rk = frac_to_cart(c, {double(tr.cell_k[0]), double(tr.cell_k[1]), double(tr.cell_k[2])});
    const Vec3& rc = c.cartesian[tr.atom[2]];
    const double inv_mass = 1.0 / std::sqrt(c.masses[tr.atom[0]] * c.masses[tr.atom[1]]);
    for (int a = 0; a < 3; ++a)
      for (int b = 0; b < 3; ++b) {
        double x = 0;
        for (int k = 0; k < 3; ++k) x += tr.phi[9 * a + 3 * b + k] * (rc[k] + rk[k]);
        w[9 * t + 3 * a + b] = x * inv_mass;
      }
  }
  std::vector<double> gamma(static_cast<std::size_t>(grid.nptk) * nb, 0.0);
  // Under MPI each rank takes every size-th mesh point, and the sum joins them.
  const Comm& comm = Comm::world();
  const int first = comm.rank(), stride = comm.size();
#pragma omp parallel
  {
    std::vector<cplx> A(static_cast<std::size_t>(nb) * nb);  // [3*atom+a][3*atom'+b]
#pragma omp for schedule(static)
    for (int q = first; q < grid.nptk; q += stride) {
      // q.R_j = 2 pi sum_d m_d n_d / N_d exactly: m the mesh coordinates of q, n the cell of R_j.
      const int m[3] = {q % grid.n[0], (q / grid.n[0]) % grid.n[1], q / (grid.n[0] * grid.n[1])};
      std::fill(A.begin(), A.end(), cplx());
      for (int t = 0; t < ntri; ++t) {
        const auto& tr = fc3.triplets[t];
        double turns = 0;
        for (int d = 0; d < 3; ++d) turns += static_cast<double>((static_cast<long>(m[d]) * tr.cell_j[d]) % grid.n[d]) / grid.n[d];
        const double x = 2.0 * units::pi * turns;
        const cplx phase(std::cos(x), std::sin(x));
        for (int a = 0; a < 3; ++a)
          for (int b = 0; b < 3; ++b) A[(3 * tr.atom[0] + a) * nb + 3 * tr.atom[1] + b] += phase * w[9 * t + 3 * a + b];
      }
      for (int n = 0; n < nb; ++n) {
        const std::size_t mode = static_cast<std::size_t>(q) * nb + n;
        const double omega = s.omega[mode];
        if (omega == 0) continue;
        const cplx* e = &s.eigenvectors[mode * nb];
        double re = 0;  // Re(e^dagger A e)
        for (int i = 0; i < nb; ++i) {
          cplx Ae;
          for (int j = 0; j < nb; ++j) Ae += A[static_cast<std::size_t>(i) * nb + j] * e[j];
          re += (conj(e[i]) * Ae).re;
        }
        gamma[mode] = -units::shengbte::gruneisen_factor * re / 6.0 / (omega * omega);
      }
    }
  }
  comm.sum(gamma.data(), gamma.size());
  return gamma;
}

double total_gruneisen(const Spectrum& s, const std::vector<double>& gamma, double temperature) {
  double sum = 0, weight = 0;
  for (int n = 0; n < s.nb; ++n)
    for (int iq = 0; iq < s.nq; ++iq) {
      const std::size_t m = static_cast<std::size_t>(iq) * s.nb + n;
      // ShengBTE leaves out x <= 1e-6 (its single-precision literal): the zero and imaginary modes.
      if (!(units::shengbte::hbar * s.omega[m] / (2.0 * units::shengbte::kB * temperature) > double(1e-6f))) continue;
      const double w = mode_heat_capacity(s.omega[m], temperature);
      weight += w;
      sum += w * gamma[m];
    }
  return sum / weight;
}

}  // namespace quanta::phonon
