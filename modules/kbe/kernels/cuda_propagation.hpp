#pragma once
// CUDA backend of the propagation (kernels/cuda/*.cu): the half-plane of G<>, the self-energy row and the
// collision rows live on the device for the whole run; each corrector pass launches one self-energy
// computation for the whole time row (a batched cuFFT over every time pair, or the seed's direct
// contraction), one collision-integral launch (a thread per (t_j, k)) and one time-step launch. Only the
// mean-field Hamiltonian (nk 2x2 matrices) goes up and the new diagonal block comes down per pass.
// The formulas are the CPU kernels' (kernels/self_energy.hpp, collision_integral.hpp, time_step.hpp).
#include <cstddef>

#include "layout.hpp"
#include "quanta/kbe/params.hpp"

namespace quanta::kbe::kernels {

// The sizes (complex numbers) of the device arrays of a propagation, as DevicePropagation takes them: the half-plane
// of each G (with a row of spare blocks unless k-split), a time row, and the self-energy's batch of time pairs (all
// nk, or pair_batch pairs of pair_nk k-points in a k-split run).
struct DeviceArraySizes {
  std::size_t half = 0, row = 0, se = 0;
};
inline DeviceArraySizes device_array_sizes(int nk, int ntimes, int pair_nk, int pair_batch) {
  const bool split = pair_nk > 0;
  const std::size_t bs = block_size(nk);
  DeviceArraySizes s;
  s.half = (tri_count(ntimes) + (split ? 0 : ntimes)) * bs;
  s.row = static_cast<std::size_t>(ntimes) * bs;
  s.se = static_cast<std::size_t>(split ? pair_batch : ntimes) * block_size(split ? pair_nk : nk);
  return s;
}
// Bytes of every device array of a propagation (the plan made before a run, so that a run that does not fit the
// device is told before it starts): G< and G>, two Sigma rows, four collision rows, the self-energy's scratch (FFT:
// two arrays plus cuFFT's work area, counted as one more; direct: the polarization), the k-split's five pair arrays,
// and the small ones (a double of step maxima per 32 elements of a row counted, more than they take).
inline std::size_t device_propagation_bytes(int nk, int ntimes, SelfEnergyMethod method, int pair_nk = 0, int pair_batch = 0) {
  const DeviceArraySizes s = device_array_sizes(nk, ntimes, pair_nk, pair_batch);
  const std::size_t scratch = method == SelfEnergyMethod::Fft ? 3 * s.se : 2 * s.se;
  const std::size_t complex_numbers = 2 * s.half + 6 * s.row + scratch + (pair_nk > 0 ? 5 * s.se : 0);
  return complex_numbers * 16 + static_cast<std::size_t>(nk) * 64 + static_cast<std::size_t>(ntimes) * 8 + s.row * 8 / 32 + 4096;
}

}  // namespace quanta::kbe::kernels

#ifdef QUANTA_HAVE_CUDA
#include <memory>
#include <vector>

#include "../src/distribution.hpp"
#include "matrix2.hpp"
#include "quanta/core/device_exchange.hpp"
#include "quanta/kbe/params.hpp"

namespace quanta::kbe::kernels {

class DevicePropagation {
 public:
  // Takes every device array once (throws OutOfDeviceMemory when the half-plane does not fit).
  // u_grid: U(t_n) for n = 0..ntimes-1. nk: the k-points held here. pair_nk > 0 marks a k-split run
  // (src/distribution.hpp): its self-energy goes through self_energy_pairs() on up to pair_batch time pairs
  // with all pair_nk k-points, instead of self_energy_row().
  DevicePropagation(int nk, int ntimes, SelfEnergyMethod method, const std::vector<double>& u_grid, int pair_nk = 0,
                    int pair_batch = 0);
  ~DevicePropagation();
  DevicePropagation(const DevicePropagation&) = delete;
  DevicePropagation& operator=(const DevicePropagation&) = delete;

  // Rows 0..step of the half-plane and the collision row I(t_step, .) from the host, and back.
  void upload(int step, const cplx* g_less, const cplx* g_greater, const cplx* i_less, const cplx* i_greater);
  void download(int step, cplx* g_less, cplx* g_greater, cplx* i_less, cplx* i_greater) const;

  void copy_diagonal(int from, int to);              // G<>(t_to, t_to) := G<>(t_from, t_from)
  void set_h_mid(const M2* h_mid);                   // [nk]
  void self_energy_row(int n);                       // Sigma<>(t_n, t_l), l <= n
  void collision_row(int n, double dt);              // I<>(t_n, t_j), j <= n
  void zero_collision_row(int n);
  double time_step(int n, double dt, bool predictor);  // row n; returns max |G_new - G_old|
  void finish_step();                                // the current collision row becomes the previous one

  // k-split runs: row n of G<> down ([n+1][4][nk] each), Sigma<> of `count` time pairs starting at pair
  // `first` from their G<> with every k (host arrays [count][4][pair_nk]), and the Sigma row up.
  void download_row(int n, cplx* g_less, cplx* g_greater) const;
  void self_energy_pairs(int count, int first, double u_t, const cplx* g_less, const cplx* g_greater, cplx* sigma_less,
                         cplx* sigma_greater);
  void upload_sigma_row(int count, const cplx* sigma_less, const cplx* sigma_greater);
  // The same without the host: the G<> row to this rank's pairs, their Sigma<>, and the Sigma<> row
  // back, all between devices (DeviceExchange) with the re-layouts as strided device copies.
  void self_energy_row_exchanged(int n, const TransposePlan& plan, DeviceExchange& exchange);

  void download_diagonal(int n, cplx* block) const;  // G<(t_n, t_n), [4][nk]

  // Checkpoints. Blocks [first, first + count) of the half-plane, [count][4][nk] each, down on a stream of
  // their own that does not wait for the propagation's launches: callable from another thread while the
  // device computes, for blocks of finished rows only (they never change). `less`, `greater` should be
  // page-locked.
  void download_blocks(std::size_t first, std::size_t count, cplx* less, cplx* greater) const;
  void upload_blocks(std::size_t first, std::size_t count, const cplx* less, const cplx* greater);
  // The collision row I<>(t_step, t_j), j <= step, [step+1][4][nk], down and up.
  void download_collision_row(int step, cplx* i_less, cplx* i_greater) const;
  void upload_collision_row(int step, const cplx* i_less, const cplx* i_greater);
  void download_collision_prev(int j, cplx* block) const;  // I<(t_n, t_j) of the finished row, [4][nk]

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace quanta::kbe::kernels
#endif
