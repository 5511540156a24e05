#pragma once
// The transport terms of the Boltzmann equation (seed eq. 1; docs/mosfet-transport-model.md, sections 2
// and 4), line by line, shared by the CPU and CUDA backends: for Phi_{v,p}(x_i, w_l, phi_m) the divergences
// of a^1 Phi along x, a^2 Phi along w and a^3 Phi along phi, each by WENO5 face reconstruction:
//   x    upwinded by the sign of a^1 (one sign per line); contacts: inflow from the contact node's own
//        distribution rescaled to the subband's equilibrium density, outflow by constant extension;
//   w    upwinded by the sign of a^2 = -eps' a^1 (one sign per line); below w = 0 the point reflected through
//        the origin (angle phi + pi), and the w = 0 face flux made antisymmetric between phi and phi + pi, so
//        that what leaves one angle arrives at the opposite one; the top face closed;
//   phi  periodic, global Lax-Friedrichs splitting (a^3 changes sign along the line).
#include <cmath>
#include <vector>

#include "phonon_scattering.hpp"
#include "quanta/core/hd.hpp"
#include "weno5.hpp"

namespace quanta::mosfet::kernels {

// The phase-space grid: x nodes i = 0..nx-1 (spacing dx, the device's length 1), energy cells l (centres
// (l + 1/2) dw), angles m (m dphi, dphi = 2 pi / nphi, nphi even). Phi is stored [v][p][i][l][m].
struct PhaseGrid {
  int nsbn, nx, nw, nphi;
  double dx, dw, dphi;
};
QUANTA_HD long phase_index(const PhaseGrid& g, int v, int p, int i, int l, int m) {
  return ((((static_cast<long>(v) * g.nsbn + p) * g.nx + i) * g.nw + l) * g.nphi + m);
}

// a^1 = v_x / v*: the group velocity along x.
QUANTA_HD double velocity_x(const KaneValley& v, double w, double phi) {
  return sqrt(2 * w * (1 + v.alpha * w)) * cos(phi) / (sqrt(v.mx) * (1 + 2 * v.alpha * w));
}
// a^3 / eps': sin(phi) / (sqrt(m_x) R(w)).
QUANTA_HD double angle_rate(const KaneValley& v, double w, double phi) { return sin(phi) / (sqrt(v.mx) * sqrt(2 * w * (1 + v.alpha * w))); }

// The WENO5 face value at face k - 1/2 of the point fluxes g(k) (ghosts as g defines them).
template <class Flux>
QUANTA_HD double weno_face(Flux&& g, int k, bool from_left) {
  double s[5];
  for (int r = 0; r < 5; ++r) s[r] = g(from_left ? k - 3 + r : k - 2 + r);
  return from_left ? weno5_left(s) : weno5_right(s);
}

// The speeds of every (valley, energy cell, angle), [3][nw][nphi], tabulated once (the seed's code keeps the
// same arrays): a^1 = velocity_x, and a^3 / eps' = angle_rate.
QUANTA_HD long speed_index(const PhaseGrid& g, int v, int l, int m) { return (static_cast<long>(v) * g.nw + l) * g.nphi + m; }
struct SpeedTables {
  std::vector<double> velocity, angle_speed;
};
inline SpeedTables speed_tables(const PhaseGrid& g, const KaneValley* valleys) {
  SpeedTables t;
  t.velocity.resize(static_cast<std::size_t>(kValleys) * g.nw * g.nphi);
  t.angle_speed.resize(t.velocity.size());
  for (int v = 0; v < kValleys; ++v)
    for (int l = 0; l < g.nw; ++l)
      for (int m = 0; m < g.nphi; ++m) {
        t.velocity[speed_index(g, v, l, m)] = velocity_x(valleys[v], (l + 0.5) * g.dw, m * g.dphi);
        t.angle_speed[speed_index(g, v, l, m)] = angle_rate(valleys[v], (l + 0.5) * g.dw, m * g.dphi);
      }
  return t;
}

// What the transport terms need besides Phi: the speed tables; eps'_{v,p}(x_i) [3][nsbn][nx]; the contacts'
// rescaling rho_eq / rho per subband at the source and the drain [3][nsbn][2]; A3 = max |a^3| over the
// device, the Lax-Friedrichs speed along phi; and whether x is periodic instead (tests).
struct TransportInputs {
  const double* velocity;     // [3][nw][nphi]
  const double* angle_speed;  // [3][nw][nphi]
  const double* deps_dx;
  const double* contact_scale;
  double a3_max;
  bool periodic_x;
};

// rhs[(v, p, ., l, m)] -= d(a^1 Phi)/dx along the x line of (v, p, l, m).
QUANTA_HD void add_x_transport(const PhaseGrid& g, const TransportInputs& in, const double* phi, double* rhs, int v, int p, int l, int m) {
  const double a1 = in.velocity[speed_index(g, v, l, m)];
  const long stride = static_cast<long>(g.nw) * g.nphi;
  const double* line = phi + phase_index(g, v, p, 0, l, m);
  const double source = in.contact_scale[(v * g.nsbn + p) * 2], drain = in.contact_scale[(v * g.nsbn + p) * 2 + 1];
  const auto flux = [&](int k) {
    if (in.periodic_x) return a1 * line[((k % g.nx + g.nx) % g.nx) * stride];
    if (k < 0) return a1 * line[0] * (a1 >= 0 ? source : 1.0);
    if (k >= g.nx) return a1 * line[(g.nx - 1) * stride] * (a1 <= 0 ? drain : 1.0);
    return a1 * line[k * stride];
  };
  double* out = rhs + phase_index(g, v, p, 0, l, m);
  // A window of the six point fluxes g_{k-3} .. g_{k+2} that either reconstruction of face k - 1/2 reads,
  // moved one point per face: each point flux is formed once.
  double window[6];
  for (int r = 0; r < 6; ++r) window[r] = flux(r - 3);
  const auto face = [&] { return weno5_upwind(window, a1 >= 0); };
  double left = face();
  for (int i = 0; i < g.nx; ++i) {
    for (int r = 0; r < 5; ++r) window[r] = window[r + 1];
    window[5] = flux(i + 3);
    const double right = face();
    out[i * stride] -= (right - left) / g.dx;
    left = right;
  }
}

// The point flux a^2 Phi along the w line of angle mm at energy cell l, ghosts included: below w = 0 the point
// reflected through the origin (cell -l-1 at the opposite angle, with this angle's velocity), above the top the
// last cell's. force = -eps'_{v,p}(x_i); speed: the valley's velocities [nw][nphi]; cells: Phi of (v, p, i) [nw][nphi].
QUANTA_HD double w_point_flux(const PhaseGrid& g, double force, const double* speed, const double* cells, int mm, int l) {
  if (l < 0) {
    const int half = g.nphi / 2, c = -l - 1;
    return force * speed[c * g.nphi + mm] * cells[c * g.nphi + (mm < half ? mm + half : mm - half)];
  }
  const int c = l < g.nw ? l : g.nw - 1;
  return force * speed[c * g.nphi + mm] * cells[c * g.nphi + mm];
}
// Upwinding along w: from the left when a^2 = force a^1 > 0 (one sign per line: a^1's sign is cos phi's, read
// from the first energy cell's velocity).
QUANTA_HD bool w_from_left(double force, const double* speed, int mm) { return force * speed[mm] > 0; }
// The force -eps' and the pointers w_point_flux takes for the lines of (v, p, i).
struct WLines {
  double force;
  const double* speed;
  const double* cells;
};
QUANTA_HD WLines w_lines(const PhaseGrid& g, const TransportInputs& in, const double* phi, int v, int p, int i) {
  return WLines{-in.deps_dx[(v * g.nsbn + p) * g.nx + i], in.velocity + speed_index(g, v, 0, 0), phi + phase_index(g, v, p, i, 0, 0)};
}

// rhs -= d(a^2 Phi)/dw for the cells l0 .. l1 - 1 of the w line of (v, p, i) at angle mm, upwinded by the line's
// sign, each face reconstructed from a window of six point fluxes moved one cell per face (each point flux formed
// once). The w = 0 face is shared with the opposite angle mm' = mm +- nphi/2: its flux is made antisymmetric,
// (F_mm - F_mm') / 2, so that what leaves one angle there arrives at the other. The top face is closed.
QUANTA_HD void add_w_line(const PhaseGrid& g, const TransportInputs& in, const double* phi, double* rhs, int v, int p, int i, int mm, int l0, int l1) {
  const WLines w = w_lines(g, in, phi, v, p, i);
  const int half = g.nphi / 2, opposite = mm < half ? mm + half : mm - half;
  const auto fill = [&](double* window, int angle, int face) {  // the points face - 3 .. face + 2
    for (int r = 0; r < 6; ++r) window[r] = w_point_flux(g, w.force, w.speed, w.cells, angle, face - 3 + r);
  };
  const bool from_left = w_from_left(w.force, w.speed, mm);
  double window[6];
  fill(window, mm, l0);
  double left = weno5_upwind(window, from_left);
  if (l0 == 0) {
    double other[6];
    fill(other, opposite, 0);
    left = 0.5 * (left - weno5_upwind(other, w_from_left(w.force, w.speed, opposite)));
  }
  double* out = rhs + phase_index(g, v, p, i, 0, mm);
  for (int l = l0; l < l1; ++l) {
    for (int r = 0; r < 5; ++r) window[r] = window[r + 1];
    window[5] = w_point_flux(g, w.force, w.speed, w.cells, mm, l + 3);
    const double right = l + 1 < g.nw ? weno5_upwind(window, from_left) : 0.0;
    out[l * g.nphi] -= (right - left) / g.dw;
    left = right;
  }
}

// rhs -= d(a^2 Phi)/dw along the w lines of (v, p, i) at angle m < nphi/2 and at the opposite one.
QUANTA_HD void add_w_transport(const PhaseGrid& g, const TransportInputs& in, const double* phi, double* rhs, int v, int p, int i, int m) {
  for (int side = 0; side < 2; ++side) add_w_line(g, in, phi, rhs, v, p, i, m + side * (g.nphi / 2), 0, g.nw);
}

// rhs -= d(a^3 Phi)/dphi along the phi line of (v, p, i, l).
QUANTA_HD void add_phi_transport(const PhaseGrid& g, const TransportInputs& in, const double* phi, double* rhs, int v, int p, int i, int l) {
  const double eps_x = in.deps_dx[(v * g.nsbn + p) * g.nx + i];
  const double* line = phi + phase_index(g, v, p, i, l, 0);
  const double* speed = in.angle_speed + speed_index(g, v, l, 0);
  const auto split = [&](int m, double sign) {
    const int mm = (m % g.nphi + g.nphi) % g.nphi;
    return 0.5 * (eps_x * speed[mm] + sign * in.a3_max) * line[mm];
  };
  const auto plus = [&](int m) { return split(m, 1.0); };
  const auto minus = [&](int m) { return split(m, -1.0); };
  double* out = rhs + phase_index(g, v, p, i, l, 0);
  double left = weno_face(plus, 0, true) + weno_face(minus, 0, false);
  for (int m = 0; m < g.nphi; ++m) {
    const double right = weno_face(plus, m + 1, true) + weno_face(minus, m + 1, false);
    out[m] -= (right - left) / g.dphi;
    left = right;
  }
}

}  // namespace quanta::mosfet::kernels

namespace quanta::mosfet::kernels {

// eps'_{v,p}(x_i) [3][nsbn][nx] from eps [nx][3][nsbn]: centred differences, one-sided at the two ends.
QUANTA_HD double energy_slope(const PhaseGrid& g, const double* eps, int v, int p, int i) {
  const auto at = [&](int k) { return eps[(static_cast<long>(k) * kValleys + v) * g.nsbn + p]; };
  if (i == 0) return (at(1) - at(0)) / g.dx;
  if (i == g.nx - 1) return (at(g.nx - 1) - at(g.nx - 2)) / g.dx;
  return (at(i + 1) - at(i - 1)) / (2 * g.dx);
}

// max over w and phi of |sin phi| / (sqrt(m_x) R(w)) in valley v: A3 = max |eps'| times the largest of these.
// R(w) = sqrt(2 w (1 + alpha w)) grows with w (alpha >= 0), so the maximum lies in the first energy cell.
QUANTA_HD double angle_rate_max(const PhaseGrid& g, const KaneValley& v) {
  double m = 0;
  for (int k = 0; k < g.nphi; ++k) m = fmax(m, fabs(angle_rate(v, 0.5 * g.dw, k * g.dphi)));
  return m;
}

// The gain s G and loss rate Lambda of state (v, p, i, l), from the angle-integrated distributions pi
// [nx][3][nsbn][nw] of node i, eps [nx][3][nsbn] and the overlaps [nx][3 nsbn][3 nsbn].
QUANTA_HD void cell_scattering(const PhaseGrid& g, const PhononScattering& s, const KaneValley* valleys, const double* eps, const double* overlaps,
                               const double* pi, int v, int p, int i, int l, double& gain, double& loss) {
  const long nvp = static_cast<long>(kValleys) * g.nsbn;
  gain_loss(s, valleys, EnergyGrid(g.nw, g.dw), g.nsbn, v, p, l, eps + i * nvp, overlaps + i * nvp * nvp, pi + i * nvp * g.nw, gain, loss);
}

// The scattering term s G - Lambda Phi of one cell: the first term of the right-hand side, which it starts (the
// other terms are added to it).
QUANTA_HD double scattering_term(double gain, double loss, double phi) { return gain - loss * phi; }

// The scattering terms of state (v, p, i, l), all angles, written to rhs (which they start).
QUANTA_HD void set_scattering(const PhaseGrid& g, const PhononScattering& s, const KaneValley* valleys, const double* eps,
                              const double* overlaps, const double* pi, const double* phi, double* rhs, int v, int p, int i, int l) {
  double gain = 0, loss = 0;
  cell_scattering(g, s, valleys, eps, overlaps, pi, v, p, i, l, gain, loss);
  const long at = phase_index(g, v, p, i, l, 0);
  for (int m = 0; m < g.nphi; ++m) rhs[at + m] = scattering_term(gain, loss, phi[at + m]);
}

// The angle integral Pi = dphi sum_m Phi of (v, p, i, l), into pi [nx][3][nsbn][nw].
QUANTA_HD void angle_integral(const PhaseGrid& g, const double* phi, double* pi, int v, int p, int i, int l) {
  const long at = phase_index(g, v, p, i, l, 0);
  double sum = 0;
  for (int m = 0; m < g.nphi; ++m) sum += phi[at + m];
  pi[((static_cast<long>(i) * kValleys + v) * g.nsbn + p) * g.nw + l] = sum * g.dphi;
}

// The moments of one cell (v, p, i, l, m) of the distribution, summed over l and m by the caller and
// multiplied by dw dphi: the surface density (sum Phi), the current along x (sum a^1 Phi) and the kinetic
// energy (sum w Phi); `top` sums Phi over the angles of the last energy cell (times dphi: the w_max diagnostic).
struct CellMoments {
  double rho = 0, current = 0, energy = 0, top = 0;
};
QUANTA_HD void add_cell_moments(const PhaseGrid& g, double velocity, double phi, int l, CellMoments& s) {
  const double w = (l + 0.5) * g.dw;
  s.rho += phi;
  s.current += velocity * phi;
  s.energy += w * phi;
  if (l == g.nw - 1) s.top += phi;
}

// A Runge-Kutta stage's combination of a cell: Phi = a Phi^n + b Phi + c rhs.
QUANTA_HD double stage_combination(double a, double b, double c, double phi_n, double phi, double rhs) { return a * phi_n + b * phi + c * rhs; }

// The CPU backend: adds the three transport terms of every line to rhs (OpenMP over the lines).
void add_transport_cpu(const PhaseGrid& g, const TransportInputs& in, const double* phi, double* rhs);

}  // namespace quanta::mosfet::kernels
