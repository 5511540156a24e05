// Collision integrals of one time row on the CPU.
#include <algorithm>

#include "../collision_integral.hpp"

namespace quanta::kbe::kernels {

void collision_integral_cpu(const CollisionRow& r) {
  const int nk = r.nk;
  const std::size_t bs = block_size(nk);
  // One thread per column j; l outside k so that each G(t_l, t_j) block is read contiguously. Every
  // output element is still summed over l = 0..n in order: the result does not depend on the thread count.
#pragma omp parallel for schedule(dynamic)
  for (int j = 0; j <= r.n; ++j) {
    cplx* il_out = r.i_less + j * bs;
    cplx* ig_out = r.i_greater + j * bs;
    std::fill_n(il_out, bs, cplx());
    std::fill_n(ig_out, bs, cplx());
    for (int l = 0; l <= r.n; ++l)
      for (int k = 0; k < nk; ++k) {
        M2 il = load_block(il_out, k, nk), ig = load_block(ig_out, k, nk);
        collision_accumulate(r, l, j, k, il, ig);
        store_block(il_out, k, nk, il);
        store_block(ig_out, k, nk, ig);
      }
  }
}

}  // namespace quanta::kbe::kernels
