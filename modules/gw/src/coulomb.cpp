#include "coulomb.hpp"

#include <cmath>
#include <algorithm>
#include <future>
#include <mutex>
#include <random>

#include "quanta/core/units.hpp"

namespace quanta::gw {

Vec3 shortest_image(const Crystal& crystal, const Vec3& r) {
  // Images that cannot be shorter than r itself are skipped: |t|^2 >= lambda |t|_2^2 >= lambda t_i^2 for every
  // component i, with lambda = 1 / trace(bdot^-1) <= the smallest eigenvalue of bdot, so only n_i within
  // r_i +- sqrt(|r|^2 / lambda) (widened against round-off) can win. The same image wins as in the full loop.
  const auto& b = crystal.bdot;
  const double det = b[0] * (b[4] * b[8] - b[5] * b[7]) - b[1] * (b[3] * b[8] - b[5] * b[6]) + b[2] * (b[3] * b[7] - b[4] * b[6]);
  const double trace_inverse = ((b[4] * b[8] - b[5] * b[7]) + (b[0] * b[8] - b[2] * b[6]) + (b[0] * b[4] - b[1] * b[3])) / det;
  Vec3 best = r;
  double lbest = crystal.norm2(r);
  const double reach = std::sqrt(lbest * trace_inverse) * (1.0 + 1e-6) + 1e-12;
  int lo[3], hi[3];
  for (int i = 0; i < 3; ++i) {
    lo[i] = std::max(-2, static_cast<int>(std::ceil(r[i] - reach)));
    hi[i] = std::min(3, static_cast<int>(std::floor(r[i] + reach)));
  }
  for (int i1 = lo[0]; i1 <= hi[0]; ++i1)
    for (int i2 = lo[1]; i2 <= hi[1]; ++i2)
      for (int i3 = lo[2]; i3 <= hi[2]; ++i3) {
        const Vec3 t{r[0] - i1, r[1] - i2, r[2] - i3};
        const double l = crystal.norm2(t);
        if (l < lbest) {
          lbest = l;
          best = t;
        }
      }
  return best;
}

namespace {

constexpr int kMiniZonePoints = 2500000;

std::vector<Vec3> uniform_points(int npoints) {
  std::mt19937 rng(5000);
  rng.discard(3ull * npoints);
  auto uniform = [&] { return static_cast<double>(rng()) / 4294967295.0; };
  std::vector<Vec3> p(npoints);
  for (auto& x : p) x = {uniform(), uniform(), uniform()};
  return p;
}

std::shared_future<std::vector<Vec3>>& mini_zone_future() {
  static std::shared_future<std::vector<Vec3>> f;
  return f;
}
std::once_flag mini_zone_once;

}  // namespace

void prefetch_mini_zone_points() {
  std::call_once(mini_zone_once, [] { mini_zone_future() = std::async(std::launch::async, uniform_points, kMiniZonePoints).share(); });
}

const std::vector<Vec3>& mini_zone_uniform_points() {
  prefetch_mini_zone_points();
  return mini_zone_future().get();
}

MiniBzAverage::MiniBzAverage(const Crystal& crystal, const Vec3i& qgrid, int npoints) : crystal_(crystal) {
  const double pi = units::pi;
  // The inscribed sphere: the shortest half grid vector.
  q0sph2_ = 1e300;
  for (int i1 = -2; i1 <= 3; ++i1)
    for (int i2 = -2; i2 <= 3; ++i2)
      for (int i3 = -2; i3 <= 3; ++i3) {
        if (i1 == 0 && i2 == 0 && i3 == 0) continue;
        const double l = crystal.norm2({i1 / (2.0 * qgrid[0]), i2 / (2.0 * qgrid[1]), i3 / (2.0 * qgrid[2])});
        q0sph2_ = std::min(q0sph2_, l);
      }
  // The point set: uniform in the reciprocal cell, folded to its shortest image, scaled to the q-grid. The random
  // numbers in order (one stream; the default set made once per process), then the folding in parallel.
  points_ = npoints == kMiniZonePoints ? mini_zone_uniform_points() : uniform_points(npoints);
  // The parallel loops of this file are arithmetic on memory already held: nothing in them throws.
#pragma omp parallel for schedule(static)
  for (long ip = 0; ip < static_cast<long>(points_.size()); ++ip) {
    auto& p = points_[ip];
    const Vec3 best = shortest_image(crystal, p);
    for (int i = 0; i < 3; ++i) p[i] = best[i] / qgrid[i];
  }
  // v0: Monte Carlo outside the inscribed sphere (still divided by all N points) plus the sphere's exact
  // integral of 8 pi / q^2 (32 pi^2 r) over the mini-zone volume.
  double s = 0;
#pragma omp parallel for reduction(+ : s) schedule(static)
  for (long ip = 0; ip < static_cast<long>(points_.size()); ++ip) {
    const double l = crystal.norm2(points_[ip]);
    if (l > q0sph2_) s += 1.0 / l;
  }
  const double nq = static_cast<double>(qgrid[0]) * qgrid[1] * qgrid[2];
  const double minibz_volume = 8.0 * pi * pi * pi / (crystal.celvol * nq);
  v0_ = 8.0 * pi * s / npoints + 32.0 * pi * pi * std::sqrt(q0sph2_) / minibz_volume;
}

double MiniBzAverage::v(const Vec3& qg) const {
  const double l = crystal_.norm2(qg);
  const long n = std::clamp<long>(std::lround(250000.0 * 4.0 * q0sph2_ / l), 1, static_cast<long>(points_.size()));
  double s = 0;
  for (long i = 0; i < n; ++i) {
    const auto& p = points_[i];
    s += 1.0 / crystal_.norm2({qg[0] + p[0], qg[1] + p[1], qg[2] + p[2]});
  }
  return 8.0 * units::pi * s / static_cast<double>(n);
}

double MiniBzAverage::one_over_q(const Vec3& q) const {
  double s = 0;
#pragma omp parallel for reduction(+ : s) schedule(static)
  for (long ip = 0; ip < static_cast<long>(points_.size()); ++ip) {
    const auto& p = points_[ip];
    s += 1.0 / std::sqrt(crystal_.norm2({q[0] + p[0], q[1] + p[1], q[2] + p[2]}));
  }
  return 8.0 * units::pi * s / static_cast<double>(points_.size());
}

}  // namespace quanta::gw
