#include "bz.hpp"

#include <cmath>

#include "quanta/core/error.hpp"

namespace quanta::gw {
namespace {

constexpr double kTol = 1e-6;

// Is d an integer vector? Then it is returned rounded.
std::optional<Vec3i> integer_vector(const Vec3& d) {
  Vec3i g;
  for (int i = 0; i < 3; ++i) {
    g[i] = static_cast<int>(std::lround(d[i]));
    if (std::abs(d[i] - g[i]) > kTol) return std::nullopt;
  }
  return g;
}

}  // namespace

Vec3i apply(const std::array<int, 9>& R, const Vec3i& g) {
  return {R[0] * g[0] + R[1] * g[1] + R[2] * g[2], R[3] * g[0] + R[4] * g[1] + R[5] * g[2], R[6] * g[0] + R[7] * g[1] + R[8] * g[2]};
}
Vec3 apply(const std::array<int, 9>& R, const Vec3& k) {
  return {R[0] * k[0] + R[1] * k[1] + R[2] * k[2], R[3] * k[0] + R[4] * k[1] + R[5] * k[2], R[6] * k[0] + R[7] * k[1] + R[8] * k[2]};
}

std::vector<int> all_operations(const Crystal& crystal) {
  std::vector<int> ops(crystal.rotation.size());
  for (std::size_t i = 0; i < ops.size(); ++i) ops[i] = static_cast<int>(i);
  return ops;
}

std::vector<int> little_group(const Crystal& crystal, const Vec3& q) {
  std::vector<int> ops;
  for (int s = 0; s < static_cast<int>(crystal.rotation.size()); ++s) {
    const Vec3 rq = apply(crystal.rotation[s], q);
    if (integer_vector({rq[0] - q[0], rq[1] - q[1], rq[2] - q[2]})) ops.push_back(s);
  }
  return ops;
}

std::optional<KImage> find_image(const Crystal& crystal, const std::vector<Vec3>& irr, const std::vector<int>& ops, const Vec3& k) {
  for (int tr = 0; tr < 2; ++tr)
    for (int i = 0; i < static_cast<int>(irr.size()); ++i)
      for (int s : ops) {
        Vec3 rk = apply(crystal.rotation[s], irr[i]);
        if (tr) rk = {-rk[0], -rk[1], -rk[2]};
        if (auto g0 = integer_vector({rk[0] - k[0], rk[1] - k[1], rk[2] - k[2]})) return KImage{i, s, tr == 1, *g0};
      }
  return std::nullopt;
}

std::vector<Vec3> unfold(const Crystal& crystal, const std::vector<Vec3>& irr, const std::vector<int>& ops) {
  std::vector<Vec3> full;
  auto known = [&](const Vec3& k) {
    for (const auto& f : full)
      if (integer_vector({f[0] - k[0], f[1] - k[1], f[2] - k[2]})) return true;
    return false;
  };
  for (const auto& k : irr)
    for (int tr = 0; tr < 2; ++tr)
      for (int s : ops) {
        Vec3 rk = apply(crystal.rotation[s], k);
        for (auto& x : rk) {
          if (tr) x = -x;
          x -= std::floor(x + kTol);  // into [0, 1)
        }
        if (!known(rk)) full.push_back(rk);
      }
  return full;
}

StateSet rotate_states(const Wavefunctions& wfn, const KImage& image, const Vec3& k_target, int nbands, int spin) {
  const auto& R = wfn.crystal.rotation[image.op];
  const auto& tnp = wfn.crystal.tnp[image.op];
  const auto& kirr = wfn.kpoints[image.irr];
  const auto& g_irr = wfn.gvec[image.irr];
  const std::size_t ng = g_irr.size();
  if (nbands > wfn.nbands)
    throw Error(wfn.file + ": " + std::to_string(nbands) + " bands needed, the file holds " + std::to_string(wfn.nbands));
  StateSet s;
  s.k = k_target;
  s.nbands = nbands;
  s.gvec.resize(ng);
  std::vector<cplx> phase(ng);
  const double sign = image.time_reversed ? -1.0 : 1.0;
  for (std::size_t i = 0; i < ng; ++i) {
    const Vec3i rg = apply(R, g_irr[i]);
    const Vec3 kg{kirr[0] + g_irr[i][0], kirr[1] + g_irr[i][1], kirr[2] + g_irr[i][2]};
    const Vec3 rkg = apply(R, kg);
    phase[i] = expi(-(rkg[0] * tnp[0] + rkg[1] * tnp[1] + rkg[2] * tnp[2]));
    for (int d = 0; d < 3; ++d) s.gvec[i][d] = static_cast<int>(sign) * rg[d] + image.g0[d];
  }
  s.coeffs.resize(ng * nbands);
  s.energy.resize(nbands);
  for (int n = 0; n < nbands; ++n) {
    const cplx* c = wfn.band(image.irr, n, spin);
    cplx* out = s.coeffs.data() + static_cast<std::size_t>(n) * ng;
    for (std::size_t i = 0; i < ng; ++i) {
      const cplx v = phase[i] * c[i];
      out[i] = image.time_reversed ? conj(v) : v;
    }
    s.energy[n] = wfn.energy(image.irr, n, spin);
  }
  return s;
}

}  // namespace quanta::gw
