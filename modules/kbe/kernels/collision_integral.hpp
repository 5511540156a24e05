#pragma once
// Collision integrals of one time row n: I<>(k; t_n, t_j) for j = 0..n (the Langreth rules applied to
// the Kadanoff-Baym equation in its first time argument, no initial correlations):
//   i d/dt G<>(t,t') = h(t) G<>(t,t') + I<>(t,t'),
//   I<>(t,t') = int_0^t  dtb [Sigma>(t,tb) - Sigma<(t,tb)] G<>(tb,t')
//             - int_0^t' dtb Sigma<>(t,tb) [G>(tb,t') - G<(tb,t')].
// (The seed's eq. (6) is the same for the equation in t'; there the second upper limit is t', not t.)
// Both integrals use the trapezoidal rule on the time grid. Only the self-energy row Sigma(t_n, t_l),
// l <= n, enters, so no self-energy history is kept; G(t_l, t_j) with l < j comes from the stored lower
// triangle through G(t_l,t_j) = -G(t_j,t_l)^dagger.
// Preconditions: n >= 0; Sigma row n computed from the current G row n; outputs do not alias inputs.
#include "layout.hpp"
#include "matrix2.hpp"

namespace quanta::kbe::kernels {

struct CollisionRow {
  int nk = 0;
  int n = 0;                              // time row t_n
  double dt = 0.0;                        // the step of a uniform grid
  const double* times = nullptr;          // [n+1] the grid t_0..t_n of adaptive steps; null: uniform, t_l = l dt
  const cplx* g_less = nullptr;           // [tri_count(n+1)][4][nk] half-plane G<
  const cplx* g_greater = nullptr;        // [tri_count(n+1)][4][nk] half-plane G>
  const cplx* sigma_less = nullptr;       // [n+1][4][nk] Sigma<(t_n, t_l)
  const cplx* sigma_greater = nullptr;    // [n+1][4][nk] Sigma>(t_n, t_l)
  cplx* i_less = nullptr;                 // [n+1][4][nk] I<(t_n, t_j)  (written)
  cplx* i_greater = nullptr;              // [n+1][4][nk] I>(t_n, t_j)  (written)
};

// Trapezoidal weight of grid point l in int_0^{t_n}.
QUANTA_HD double trapezoid_weight(int l, int n, double dt) {
  if (n == 0) return 0.0;
  return (l == 0 || l == n) ? 0.5 * dt : dt;
}


// The same on the grid `times` (adaptive steps), or on the uniform grid of step dt when times is null (the formula
// above, so that a fixed grid's sums keep their bits).
QUANTA_HD double quadrature_weight(int l, int n, double dt, const double* times) {
  if (!times) return trapezoid_weight(l, n, dt);
  if (n == 0) return 0.0;
  if (l == 0) return 0.5 * (times[1] - times[0]);
  if (l == n) return 0.5 * (times[n] - times[n - 1]);
  return 0.5 * (times[l + 1] - times[l - 1]);
}

// G(k; t_l, t_j) for any l, j from the half-plane.
QUANTA_HD M2 load_two_time(const cplx* half_plane, int l, int j, int k, int nk) {
  if (l >= j) return load_block(half_plane + tri(l, j) * block_size(nk), k, nk);
  return -1.0 * dagger(load_block(half_plane + tri(j, l) * block_size(nk), k, nk));
}

// The contribution of grid point t_l to I<(t_n, t_j) and I>(t_n, t_j) at one k, added to il, ig.
QUANTA_HD void collision_accumulate(const CollisionRow& r, int l, int j, int k, M2& il, M2& ig) {
  const int nk = r.nk;
  const std::size_t bs = block_size(nk);
  const M2 sl = load_block(r.sigma_less + l * bs, k, nk);
  const M2 sg = load_block(r.sigma_greater + l * bs, k, nk);
  const M2 gl = load_two_time(r.g_less, l, j, k, nk);
  const M2 gg = load_two_time(r.g_greater, l, j, k, nk);
  const M2 ret = sg - sl;  // Sigma^R(t_n, t_l) for l <= n
  const double w = quadrature_weight(l, r.n, r.dt, r.times);
  il = il + w * (ret * gl);
  ig = ig + w * (ret * gg);
  if (l <= j) {  // Sigma<>(t_n, t_l) G^A(t_l, t_j), G^A = -(G> - G<) for l <= j
    const double wa = quadrature_weight(l, j, r.dt, r.times);
    const M2 spec = gg - gl;
    il = il - wa * (sl * spec);
    ig = ig - wa * (sg * spec);
  }
}

// I<(t_n, t_j) and I>(t_n, t_j) at one k: the sum over l in a fixed order (one GPU thread per (j, k)).
QUANTA_HD void collision_element(const CollisionRow& r, int j, int k, M2& il, M2& ig) {
  il = M2{};
  ig = M2{};
  for (int l = 0; l <= r.n; ++l) collision_accumulate(r, l, j, k, il, ig);
}

// The row on the CPU, OpenMP over (j, k).
void collision_integral_cpu(const CollisionRow& row);

}  // namespace quanta::kbe::kernels
