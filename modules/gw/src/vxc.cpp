// <nk|Vxc|mk> from the potential's Fourier components, as Sigma does when it is given BerkeleyGW's
// binary VXC instead of vxc.dat: with V(r) = sum_G V(G) e^{iG.r},
//   <n|V|m> = sum_G V(G) <n|e^{iG.r}|m> = sum_G V(G) M_nm(G),
// M from MTXEL on a box that holds the potential's sphere (exact, as for the other matrix elements).
#include <algorithm>
#include <string>

#include "../kernels/mtxel.hpp"
#include "quanta/core/error.hpp"
#include "quanta/gw/sigma.hpp"
#include "states.hpp"

namespace quanta::gw {

VxcTable vxc_from_potential(const Wavefunctions& inner, const Density& vxc, const SigmaParams& p) {
  const Crystal& c = inner.crystal;
  if (vxc.nspin != 1) throw InputError(vxc.file, "nspin " + std::to_string(vxc.nspin) + ": only spin-unpolarized runs are supported");
  if (vxc.gvec.size() != inner.gvec_rho.size())
    throw InputError(vxc.file, std::to_string(vxc.gvec.size()) + " G-vectors: expected the " + std::to_string(inner.gvec_rho.size()) +
                                   " of the density sphere of " + inner.file);
  const StateSource source(inner, all_operations(c));
  const auto box = box_for_cutoffs(c, inner.ecutwfc, inner.ecutrho);
  const auto where_out = box_indexes(box, vxc.gvec);
  kernels::MtxelEngine mtxel(p.backend, box);
  VxcTable t;
  t.file = vxc.file;
  const int nn = p.band_max - p.band_min + 1;
  const std::size_t ng = vxc.gvec.size();
  // With off-diagonal elements, the whole window <n|V|m> by blocks of rows n (one MTXEL job of na x nn pairs each);
  // otherwise the diagonal, one band at a time.
  const bool matrix = !p.offdiag.empty();
  const int rows = matrix ? std::max(1, std::min(nn, static_cast<int>((std::size_t(256) << 20) / (sizeof(cplx) * ng * nn)))) : 1;
  std::vector<cplx> m(static_cast<std::size_t>(rows) * (matrix ? nn : 1) * ng);
  for (const auto& k : p.kpoints) {
    const StateSet s = source.at(k, p.band_max);
    const auto where = box_indexes(box, s.gvec);
    VxcTable::Block b;
    b.k = k;
    std::vector<cplx> window(matrix ? static_cast<std::size_t>(nn) * nn : 0);  // [n][m] of band_index_min..max
    for (int n0 = p.band_min; n0 <= p.band_max; n0 += rows) {
      const int na = std::min(rows, p.band_max - n0 + 1), nb = matrix ? nn : 1;
      kernels::MtxelJob job;
      job.box = box;
      job.na = na;
      job.nb = nb;
      job.ngout = static_cast<int>(ng);
      job.nga = job.ngb = s.gvec.size();
      job.where_a = job.where_b = where.data();
      job.where_out = where_out.data();
      job.a = s.band(n0 - 1);
      job.b = matrix ? s.band(p.band_min - 1) : s.band(n0 - 1);
      job.m = m.data();
      mtxel.run(job);
      for (int i = 0; i < na; ++i)
        for (int j = 0; j < nb; ++j) {
          const cplx* mg = m.data() + (static_cast<std::size_t>(i) * nb + j) * ng;
          cplx sum;
          for (std::size_t g = 0; g < ng; ++g) sum += vxc.rho[g] * mg[g];
          if (matrix) window[static_cast<std::size_t>(n0 - p.band_min + i) * nn + j] = sum * kRydbergEV;
          else b.value.push_back(sum * kRydbergEV);
        }
    }
    for (int n = p.band_min; n <= p.band_max; ++n) {
      b.spin.push_back(1);
      b.band.push_back(n);
      if (matrix) b.value.push_back(window[static_cast<std::size_t>(n - p.band_min) * (nn + 1)]);
    }
    for (const auto& e : p.offdiag) {
      if (e.n == e.m) continue;
      b.off_spin.push_back(1);
      b.off_band1.push_back(e.n);
      b.off_band2.push_back(e.m);
      b.off_value.push_back(window[static_cast<std::size_t>(e.n - p.band_min) * nn + (e.m - p.band_min)]);
    }
    t.blocks.push_back(std::move(b));
  }
  return t;
}

}  // namespace quanta::gw
