// <nk|Vxc|mk> from the potential's Fourier components, as Sigma does when it is given BerkeleyGW's
// binary VXC instead of vxc.dat: with V(r) = sum_G V(G) e^{iG.r},
//   <n|V|m> = sum_G V(G) <n|e^{iG.r}|m> = sum_G V(G) M_nm(G),
// M from MTXEL on a box that holds the potential's sphere (exact, as for the other matrix elements).
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
  kernels::MtxelEngine mtxel(Backend::Cpu, box);
  VxcTable t;
  t.file = vxc.file;
  std::vector<cplx> m(vxc.gvec.size());
  for (const auto& k : p.kpoints) {
    const StateSet s = source.at(k, p.band_max);
    const auto where = box_indexes(box, s.gvec);
    VxcTable::Block b;
    b.k = k;
    auto element = [&](int n, int mb) {
      kernels::MtxelJob job;
      job.box = box;
      job.na = job.nb = 1;
      job.ngout = static_cast<int>(vxc.gvec.size());
      job.nga = job.ngb = s.gvec.size();
      job.where_a = job.where_b = where.data();
      job.where_out = where_out.data();
      job.a = s.band(n - 1);
      job.b = s.band(mb - 1);
      job.m = m.data();
      mtxel.run(job);
      cplx sum;
      for (std::size_t g = 0; g < m.size(); ++g) sum += vxc.rho[g] * m[g];
      return sum * kRydbergEV;
    };
    for (int n = p.band_min; n <= p.band_max; ++n) {
      b.spin.push_back(1);
      b.band.push_back(n);
      b.value.push_back(element(n, n));
    }
    for (const auto& e : p.offdiag) {
      if (e.n == e.m) continue;
      b.off_spin.push_back(1);
      b.off_band1.push_back(e.n);
      b.off_band2.push_back(e.m);
      b.off_value.push_back(element(e.n, e.m));
    }
    t.blocks.push_back(std::move(b));
  }
  return t;
}

}  // namespace quanta::gw
