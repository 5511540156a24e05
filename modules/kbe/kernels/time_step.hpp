#pragma once
// One time step of the half-plane, row n-1 -> row n, per k (the seed's Algorithm 1, "solve (5)").
//
// With the mean-field Hamiltonian hb = h0(t_{n-1/2}) + [Sigma_HF(t_{n-1}) + Sigma_HF(t_n)] / 2 and the
// collision integral averaged over the step, Ib(t_j) = [I(t_{n-1}, t_j) + I(t_n, t_j)] / 2 (the seed's I_1),
// the equation i dG/dt = hb G + Ib is integrated exactly over the step:
//   G(t_n, t_j) = e^{-i hb dt} G(t_{n-1}, t_j) - i dt phi1(-i hb dt) Ib(t_j),   j <= n-1,
// and on the time diagonal, i d/dt G<(t,t) = [h, G<(t,t)] + C(t), C = I<(t,t) + I<(t,t)^dagger, in the
// eigenbasis of hb (eigenvalues l_a, projectors P_a):
//   G<(t_n,t_n) = sum_ab P_a [ e^{-i(l_a-l_b)dt} G<(t_{n-1},t_{n-1}) - i dt phi1(-i(l_a-l_b)dt) Cb ] P_b,
//   G>(t_n,t_n) = G<(t_n,t_n) - i.
// Second order in dt; the trace of G<(t,t) changes only through tr Cb, which vanishes summed over k for a
// conserving self-energy, so N(t) is conserved to round-off in every corrector iteration.
// Preconditions: n >= 1; row n-1 of G and of I complete.
#include "layout.hpp"
#include "matrix2.hpp"

namespace quanta::kbe::kernels {

struct StepRow {
  int nk = 0;
  int n = 0;                               // the row being written
  double dt = 0.0;
  const M2* h_mid = nullptr;               // [nk] hb(k)
  const cplx* i_prev_less = nullptr;       // [n][4][nk]   I<(t_{n-1}, t_j), j <= n-1
  const cplx* i_prev_greater = nullptr;    // [n][4][nk]   I>(t_{n-1}, t_j)
  const cplx* i_cur_less = nullptr;        // [n+1][4][nk] I<(t_n, t_j) (the predictor passes i_prev here)
  const cplx* i_cur_greater = nullptr;     // [n+1][4][nk] I>(t_n, t_j)
  bool predictor = false;                  // true: I(t_n, .) := I(t_{n-1}, .), diagonal I(t_n,t_n) := I(t_{n-1},t_{n-1})
  const cplx* g_prev_less = nullptr;       // [n][4][nk]   G<(t_{n-1}, t_j), j <= n-1: row n-1 of the half-plane
  const cplx* g_prev_greater = nullptr;    // [n][4][nk]   G>(t_{n-1}, t_j)
  cplx* g_less = nullptr;                  // [n+1][4][nk] G<(t_n, t_j), j <= n: row n (written)
  cplx* g_greater = nullptr;               // [n+1][4][nk] G>(t_n, t_j)
};

// The StepRow of row n over a whole half-plane (kernels/layout.hpp): rows n-1 and n.
inline void set_rows(StepRow& r, cplx* half_less, cplx* half_greater) {
  const std::size_t bs = block_size(r.nk);
  r.g_prev_less = half_less + tri(r.n - 1, 0) * bs;
  r.g_prev_greater = half_greater + tri(r.n - 1, 0) * bs;
  r.g_less = half_less + tri(r.n, 0) * bs;
  r.g_greater = half_greater + tri(r.n, 0) * bs;
}

// Propagator pieces of one k: e^{-i hb dt} and phi1(-i hb dt).
struct StepOperators {
  Spectral2 s;
  M2 u, phi;
};

QUANTA_HD StepOperators step_operators(const M2& h_mid, double dt) {
  StepOperators o;
  o.s = spectral(h_mid);
  o.u = M2{};
  o.phi = M2{};
  for (int a = 0; a < 2; ++a) {
    o.u = o.u + expi(-o.s.lambda[a] * dt) * o.s.P[a];
    o.phi = o.phi + phi1(cplx(0.0, -o.s.lambda[a] * dt)) * o.s.P[a];
  }
  return o;
}

// Off-diagonal entry: G(t_n,t_j) from G(t_{n-1},t_j) and the averaged collision integral.
QUANTA_HD M2 step_entry(const StepOperators& o, const M2& g_prev, const M2& i_avg, double dt) {
  return o.u * g_prev + cplx(0.0, -dt) * (o.phi * i_avg);
}

// Time-diagonal G<: see the file comment.
QUANTA_HD M2 step_diagonal(const StepOperators& o, const M2& g_prev, const M2& c_avg, double dt) {
  M2 out{};
  for (int a = 0; a < 2; ++a)
    for (int b = 0; b < 2; ++b) {
      const double dl = o.s.lambda[a] - o.s.lambda[b];
      const M2 inner = expi(-dl * dt) * g_prev + cplx(0.0, -dt) * phi1(cplx(0.0, -dl * dt)) * c_avg;
      out = out + o.s.P[a] * inner * o.s.P[b];
    }
  return out;
}

// Entry (t_n, t_j), j < n, of G< (which = 0) or G> (which = 1) at k, written in place; returns its change.
QUANTA_HD double step_row_entry(const StepRow& r, const StepOperators& o, int which, int j, int k) {
  const int nk = r.nk;
  const std::size_t bs = block_size(nk);
  cplx* g = which == 0 ? r.g_less : r.g_greater;
  const cplx* g_prev = which == 0 ? r.g_prev_less : r.g_prev_greater;
  const cplx* ip = which == 0 ? r.i_prev_less : r.i_prev_greater;
  const cplx* ic = r.predictor ? ip : (which == 0 ? r.i_cur_less : r.i_cur_greater);
  const M2 avg = 0.5 * (load_block(ip + j * bs, k, nk) + load_block(ic + j * bs, k, nk));
  const M2 next = step_entry(o, load_block(g_prev + j * bs, k, nk), avg, r.dt);
  cplx* dst = g + j * bs;
  const double change = max_abs_diff(next, load_block(dst, k, nk));
  store_block(dst, k, nk, next);
  return change;
}

// The time-diagonal entry (t_n, t_n) of G< and G> at k, written in place; returns the change of G<.
// C = I<(t,t) + h.c. at t_{n-1} and t_n (the predictor repeats t_{n-1}).
QUANTA_HD double step_row_diagonal(const StepRow& r, const StepOperators& o, int k) {
  const int nk = r.nk, n = r.n;
  const std::size_t bs = block_size(nk);
  const M2 ip = load_block(r.i_prev_less + (n - 1) * bs, k, nk);
  const M2 ic = r.predictor ? ip : load_block(r.i_cur_less + n * bs, k, nk);
  const M2 c_avg = 0.5 * ((ip + dagger(ip)) + (ic + dagger(ic)));
  const M2 gl = step_diagonal(o, load_block(r.g_prev_less + (n - 1) * bs, k, nk), c_avg, r.dt);
  M2 gg = gl;
  gg.m[0] -= cplx(0.0, 1.0);
  gg.m[3] -= cplx(0.0, 1.0);
  cplx* dl = r.g_less + n * bs;
  const double change = max_abs_diff(gl, load_block(dl, k, nk));
  store_block(dl, k, nk, gl);
  store_block(r.g_greater + n * bs, k, nk, gg);
  return change;
}

// Writes row n of both half-planes; returns max |G_new - G_old| over the row (the corrector's measure).
double time_step_cpu(const StepRow& row);

}  // namespace quanta::kbe::kernels
