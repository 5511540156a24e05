#pragma once
// Launchers of the kbe CUDA kernels (one file each, matching kernels/cpu/), used by propagation_cuda.cu.
// Every pointer is device memory; shapes as in the CPU kernels' headers.
#include <cufft.h>

#include "../collision_integral.hpp"
#include "../self_energy.hpp"
#include "../time_step.hpp"

namespace quanta::kbe::kernels {

// Sigma<>(t_n, t_l), l < count, by the FFT form. g_less_row/g_greater_row: the half-plane row, readable for
// `batch_pairs` blocks (the plan transforms a fixed batch; blocks beyond `count` are ignored). sites_l/_g:
// scratch [batch_pairs][4][nk]; sigma_l/_g: [batch_pairs][4][nk]. The plan: 1-D, length nk, batch
// 4 * batch_pairs, Z2Z, in place and out of place.
void self_energy_fft_cuda(cufftHandle plan, int nk, int count, const cplx* g_less_row, const cplx* g_greater_row,
                          double u_t, const double* u_tp, cplx* sites_l, cplx* sites_g, cplx* sigma_l, cplx* sigma_g);

// The same by the seed's direct contraction (O(nk^3) per pair); pol: scratch [count][2][4][nk].
void self_energy_direct_cuda(int nk, int count, const cplx* g_less_row, const cplx* g_greater_row, double u_t,
                             const double* u_tp, cplx* pol, cplx* sigma_l, cplx* sigma_g);

// I<>(t_n, t_j) for j <= n, one thread per (j, k).
void collision_integral_cuda(const CollisionRow& row);

// Row n of both half-planes (StepRow's pointers on the device); returns max |G_new - G_old|.
// block_max: scratch of at least time_step_scratch(nk, n) doubles; change: one device double.
std::size_t time_step_scratch(int nk, int n);
double time_step_cuda(const StepRow& row, double* block_max, double* change);

}  // namespace quanta::kbe::kernels
