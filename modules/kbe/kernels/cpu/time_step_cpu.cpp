// One half-plane time step on the CPU.
#include <algorithm>

#include "../time_step.hpp"

namespace quanta::kbe::kernels {

double time_step_cpu(const StepRow& r) {
  const int nk = r.nk, n = r.n;
  const std::size_t bs = block_size(nk);
  const cplx* icl = r.predictor ? r.i_prev_less : r.i_cur_less;
  const cplx* icg = r.predictor ? r.i_prev_greater : r.i_cur_greater;
  double change = 0.0;
#pragma omp parallel for schedule(static) reduction(max : change)
  for (int k = 0; k < nk; ++k) {
    const StepOperators o = step_operators(r.h_mid[k], r.dt);
    for (int j = 0; j < n; ++j) {
      for (int which = 0; which < 2; ++which) {
        cplx* g = which == 0 ? r.g_less : r.g_greater;
        const cplx* ip = which == 0 ? r.i_prev_less : r.i_prev_greater;
        const cplx* ic = which == 0 ? icl : icg;
        const M2 avg = 0.5 * (load_block(ip + j * bs, k, nk) + load_block(ic + j * bs, k, nk));
        const M2 prev = load_block(g + tri(n - 1, j) * bs, k, nk);
        const M2 next = step_entry(o, prev, avg, r.dt);
        cplx* dst = g + tri(n, j) * bs;
        change = std::max(change, max_abs_diff(next, load_block(dst, k, nk)));
        store_block(dst, k, nk, next);
      }
    }
    // Time diagonal: C = I<(t,t) + h.c. at t_{n-1} and t_n (the predictor repeats t_{n-1}).
    const M2 ip = load_block(r.i_prev_less + (n - 1) * bs, k, nk);
    const M2 ic = r.predictor ? ip : load_block(r.i_cur_less + n * bs, k, nk);
    const M2 c_avg = 0.5 * ((ip + dagger(ip)) + (ic + dagger(ic)));
    const M2 gl = step_diagonal(o, load_block(r.g_less + tri(n - 1, n - 1) * bs, k, nk), c_avg, r.dt);
    M2 gg = gl;
    gg.m[0] -= cplx(0.0, 1.0);
    gg.m[3] -= cplx(0.0, 1.0);
    cplx* dl = r.g_less + tri(n, n) * bs;
    cplx* dg = r.g_greater + tri(n, n) * bs;
    change = std::max(change, max_abs_diff(gl, load_block(dl, k, nk)));
    store_block(dl, k, nk, gl);
    store_block(dg, k, nk, gg);
  }
  return change;
}

}  // namespace quanta::kbe::kernels
