#include "states.hpp"

#include <cmath>

#include "quanta/core/error.hpp"
#include "quanta/core/units.hpp"

namespace quanta::gw {

StateSet StateSource::at(const Vec3& k, int nbands) const {
  auto image = find_image(wfn_.crystal, wfn_.kpoints, ops_, k);
  if (!image)
    throw InputError(wfn_.file, "k-point (" + std::to_string(k[0]) + ", " + std::to_string(k[1]) + ", " + std::to_string(k[2]) +
                                    ") is not a symmetry image of any of its " + std::to_string(wfn_.nk()) +
                                    " k-points (expected the grid the calculation needs)");
  return rotate_states(wfn_, *image, k, nbands);
}

int occupied_bands(const Wavefunctions& w) {
  const int nv = w.ifmax[0];
  for (int v : w.ifmax)
    if (v != nv)
      throw InputError(w.file, "ifmax: the highest occupied band differs between k-points (" + std::to_string(nv) + " and " +
                                   std::to_string(v) + "); expected an insulator (metals are not supported)");
  return nv;
}

int split_at(const Wavefunctions& w, int below, const std::vector<int>& k_indexes) {
  auto at = [&](int ik) {
    for (int s = 0; s < w.nspin; ++s)
      if (std::abs(w.energy(ik, below - 1, s) - w.energy(ik, below, s)) < kDegenerateRy) return true;
    return false;
  };
  if (k_indexes.empty()) {
    for (int ik = 0; ik < w.nk(); ++ik)
      if (at(ik)) return ik;
    return -1;
  }
  for (int ik : k_indexes)
    if (at(ik)) return ik;
  return -1;
}

std::vector<std::size_t> box_indexes(const kernels::Box& box, const std::vector<Vec3i>& gvec) {
  std::vector<std::size_t> w(gvec.size());
  for (std::size_t i = 0; i < gvec.size(); ++i) w[i] = box.index(gvec[i][0], gvec[i][1], gvec[i][2]);
  return w;
}

kernels::Box box_for_cutoffs(const Crystal& c, double ecut_wfn, double ecut_m) {
  // |g_i| <= |k+g| |a_i| / 2pi + |k_i|, with k (or k+q) within [0, 2): the margins 2 and 1 cover them.
  int gw[3], gm[3];
  for (int i = 0; i < 3; ++i) {
    const double a = c.alat * std::sqrt(c.avec[3 * i] * c.avec[3 * i] + c.avec[3 * i + 1] * c.avec[3 * i + 1] + c.avec[3 * i + 2] * c.avec[3 * i + 2]);
    gw[i] = static_cast<int>(std::floor(std::sqrt(ecut_wfn) * a / (2 * units::pi))) + 2;
    gm[i] = static_cast<int>(std::floor(std::sqrt(ecut_m) * a / (2 * units::pi))) + 1;
  }
  return kernels::fft_box_for(gw, gm);
}

}  // namespace quanta::gw
