#pragma once
// Low-rank blocks of the two-time history, the pieces of the compressed history (docs/kbe.md, "Compressed history"):
// a rows x cols complex block A ~ U diag(s) V^H, with the singular values above an absolute cut kept.
//
// The SVD is a one-sided Jacobi (Hestenes) iteration on the columns of A^H: every pair of columns is rotated until
// all are orthogonal to working precision. It computes small singular values to high relative accuracy, needs no
// LAPACK SVD (Debian 12's OpenBLAS 0.3.21 faults in zgesdd/zgesvd from about 300 x 300: docs/kbe.md), and its cost,
// O(sweeps rows^2 cols), suits the history's blocks, whose short side is a leaf of 16-64 time steps or a stack of
// two ranks. Blocks that grow as rows arrive are recompressed from their factors (stack_rows): the stacked
// [U1 S1 V1^H; U2 S2 V2^H] is blockdiag(U1, U2) times a (r1 + r2) x cols matrix, and only that is decomposed.
#include <string>
#include <vector>

#include "quanta/core/complex.hpp"

namespace quanta::kbe::kernels {

struct LowRank {
  int rows = 0, cols = 0, rank = 0;
  std::vector<cplx> u;     // rows x rank, column-major, orthonormal columns
  std::vector<double> s;   // rank values, descending
  std::vector<cplx> v;     // cols x rank, column-major, orthonormal columns
  std::size_t numbers() const { return u.size() + v.size() + s.size(); }  // what it stores (complex and real values)
};

// A (column-major, leading dimension lda >= rows) with the singular values above `cut` kept (absolute: the caller
// scales its relative tolerance; at least 2 eps |A|_F, the rounding level). Throws Error naming `what` when the Jacobi
// sweeps do not converge or A holds a non-finite value.
LowRank compress(const cplx* a, int rows, int cols, int lda, double cut, const std::string& what = "low-rank block");

// [top; bottom] (the same columns, top's rows first) recompressed at `cut`.
LowRank stack_rows(const LowRank& top, const LowRank& bottom, double cut, const std::string& what = "low-rank block");

// A^H of a block (the factors swapped): A = U S V^H -> A^H = V S U^H.
LowRank adjoint(LowRank a);

// U diag(s) V^H written into out (column-major, leading dimension ld >= rows).
void expand(const LowRank& a, cplx* out, int ld);

}  // namespace quanta::kbe::kernels
