#pragma once
// Index arithmetic of the kbe module, shared by the CPU kernels and their future CUDA twins.
//
// k-grid: k_i = 2 pi (i - floor(nk/2)) / nk, i = 0..nk-1. For even nk this is the seed's eq. (10)
// (uniform on [-pi, pi)); for odd nk it is the symmetric grid, the only uniform grid containing
// k = 0 that is closed under addition modulo 2 pi (eq. (10) is not, for odd nk). On either grid
// k_a + k_b - k_c = k_{(a + b - c) mod nk}: momentum sums are cyclic sums of indices, which is what
// makes every term of the second-Born self-energy a cyclic convolution (kernels/self_energy.hpp).
//
// Band pairs: a 2x2 band matrix X_{jm} (j, m in {v = 0, c = 1}) is stored as four planes, pair index
// p = 2 j + m; within a plane k runs fastest. One "block" is [4][nk] complex: one time pair (t, t').
//
// Half-plane: G<(t_n, t_j) and G>(t_n, t_j) are stored for j <= n only (the lower triangle including
// the diagonal); the rest follows from G(t, t')^dagger = -G(t', t). Block (n, j) sits at
// tri(n, j) = n (n + 1) / 2 + j, so a whole time row n (j = 0..n) is contiguous.
#include <cstddef>
#include <cstdint>

#include "quanta/core/hd.hpp"

namespace quanta::kbe::kernels {

constexpr int kValence = 0;
constexpr int kConduction = 1;

QUANTA_HD int band_pair(int j, int m) { return 2 * j + m; }
QUANTA_HD int other_band(int j) { return 1 - j; }

// Cyclic index arithmetic on the k-grid (see the file comment): the seed's allind_kpk / allind_kmk,
// computed on the fly instead of looked up.
QUANTA_HD int k_wrap(int i, int nk) { return ((i % nk) + nk) % nk; }
QUANTA_HD int k_plus(int a, int b, int nk) { return k_wrap(a + b - nk / 2, nk); }   // k_a + k_b
QUANTA_HD int k_minus(int a, int b, int nk) { return k_wrap(a - b + nk / 2, nk); }  // k_a - k_b
QUANTA_HD double k_value(int i, int nk) { return 6.283185307179586476925 * (i - nk / 2) / nk; }

// Offset of element (pair p, k) inside one [4][nk] block.
QUANTA_HD std::size_t in_block(int p, int k, int nk) { return static_cast<std::size_t>(p) * nk + k; }
QUANTA_HD std::size_t block_size(int nk) { return 4 * static_cast<std::size_t>(nk); }

// Lower-triangle block index of time pair (n, j), j <= n, and the number of blocks for nt + 1 times.
QUANTA_HD std::size_t tri(int n, int j) { return static_cast<std::size_t>(n) * (n + 1) / 2 + j; }
QUANTA_HD std::size_t tri_count(int ntimes) { return static_cast<std::size_t>(ntimes) * (ntimes + 1) / 2; }

}  // namespace quanta::kbe::kernels
