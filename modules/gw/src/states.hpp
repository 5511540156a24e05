#pragma once
// The states at any k of the full zone, rebuilt from a wavefunction file's irreducible k-points, and their
// placement on an FFT box.
#include <string>
#include <vector>

#include "../kernels/mtxel.hpp"
#include "bz.hpp"

namespace quanta::gw {

// A file's irreducible k-points and the operations that generate the zone from them.
class StateSource {
 public:
  StateSource(const Wavefunctions& wfn, std::vector<int> ops) : wfn_(wfn), ops_(std::move(ops)) {}
  // Bands [0, nbands) at k; InputError naming the file when k is in no star of its k-points.
  StateSet at(const Vec3& k, int nbands) const;
  const Wavefunctions& wfn() const { return wfn_; }

 private:
  const Wavefunctions& wfn_;
  std::vector<int> ops_;
};

// The number of fully occupied bands, the same at every k (insulators only; InputError otherwise).
int occupied_bands(const Wavefunctions& wfn);

// BerkeleyGW's TOL_Degeneracy: two levels closer than this are one degenerate level.
inline constexpr double kDegenerateRy = 1e-6;

// The first k-point of `k_indexes` (every k-point of `w` when empty) where bands `below` and `below` + 1
// (1-based) are one level, or -1.
int split_at(const Wavefunctions& w, int below, const std::vector<int>& k_indexes = {});

// Box indexes of a state set's G-vectors.
std::vector<std::size_t> box_indexes(const kernels::Box& box, const std::vector<Vec3i>& gvec);

// A box holding products of states within ecut_wfn (Ry) and matrix elements within ecut_m, for this lattice.
kernels::Box box_for_cutoffs(const Crystal& crystal, double ecut_wfn, double ecut_m);

}  // namespace quanta::gw
