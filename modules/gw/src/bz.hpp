#pragma once
// Brillouin-zone bookkeeping: the full zone as the star of a file's irreducible k-points, and the
// wavefunctions at any k of that zone rebuilt from the irreducible ones by a space-group operation
// (BerkeleyGW's fullbz and gmap).
#include <optional>
#include <vector>

#include "quanta/gw/mean_field.hpp"

namespace quanta::gw {

// s R k_irr = k_target + G0 with s = +1, or -1 when time reversal is used (the star of k_irr under the
// operation `op`; R acts on reciprocal crystal coordinates).
struct KImage {
  int irr = -1;
  int op = 0;
  bool time_reversed = false;
  Vec3i g0{};
};

// Every operation of the crystal (indexes into rotation/tnp).
std::vector<int> all_operations(const Crystal& crystal);

// The operations of `crystal` that leave q invariant up to a reciprocal-lattice vector (all when q = 0).
std::vector<int> little_group(const Crystal& crystal, const Vec3& q);

// Finds how `k` is obtained from one of `irr` (crystal coordinates) with the operations `ops`; time
// reversal is tried after the proper images. nullopt when k is in none of the stars.
std::optional<KImage> find_image(const Crystal& crystal, const std::vector<Vec3>& irr, const std::vector<int>& ops, const Vec3& k);

// The full zone generated from `irr` by `ops` (and time reversal), each point once, reduced to [0, 1).
std::vector<Vec3> unfold(const Crystal& crystal, const std::vector<Vec3>& irr, const std::vector<int>& ops);

// Wavefunctions at one k of the full zone: the G-vectors (relative to k_target) and [nbands][ngk] coefficients.
struct StateSet {
  Vec3 k{};
  std::vector<Vec3i> gvec;
  std::vector<cplx> coeffs;  // [nbands][ngk]
  std::vector<double> energy;  // [nbands] Ry
  int nbands = 0;
  const cplx* band(int n) const { return coeffs.data() + static_cast<std::size_t>(n) * gvec.size(); }
};

// Rebuilds the states at k_target (s R k_irr = k_target + G0, from find_image), bands [0, nbands):
// c_{k_target}(s R g + G0) = exp(-i s R(k_irr + g).tnp) c_{k_irr}(g), complex-conjugated under time reversal.
StateSet rotate_states(const Wavefunctions& wfn, const KImage& image, const Vec3& k_target, int nbands, int spin = 0);

Vec3i apply(const std::array<int, 9>& R, const Vec3i& g);
Vec3 apply(const std::array<int, 9>& R, const Vec3& k);

}  // namespace quanta::gw
