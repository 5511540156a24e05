#pragma once
// What Sigma takes from MTXEL's output M[r][g] (rows r = (n, m) pairs, g over the bare sphere of q) before the GPP sums:
//   the screened rows:   out[r][a] = M[r][where[a]], a over the screened sphere (where: its bare index);
//   the bare exchange:   s[n][b] = sum_g |M[(n nb + b)][g]|^2 v[g] for the occupied bands b < nocc (Sigma's X is
//                        -sum_b s[n][b] times the q-point's weight and 1 / (N_q V)).
// The CPU functions take host arrays; the CUDA ones device arrays (M where MtxelEngine::device_result() leaves it),
// except the exchange's result, which comes back to the host: the per-(n, b) sums are added in b's order there, so
// both backends sum in the same order after the G sums.
#include <cstddef>

#include "quanta/core/complex.hpp"

namespace quanta::gw::kernels {

void screened_rows_cpu(const cplx* m, std::size_t rows, int ngb, const int* where, int ngs, cplx* out);
void bare_exchange_cpu(const cplx* m, int nn, int nb, int nocc, int ngb, const double* v, double* s);  // s [nn][nocc]
#if QUANTA_GW_CUDA
void screened_rows_cuda(const cplx* m, std::size_t rows, int ngb, const int* where, int ngs, cplx* out);
void bare_exchange_cuda(const cplx* m, int nn, int nb, int nocc, int ngb, const double* v, double* s_host);
#endif

}  // namespace quanta::gw::kernels
