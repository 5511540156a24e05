#pragma once
// Batched Hermitian eigensolver for the dynamical matrices: for each matrix of the batch, the eigenvalues
// in ascending order and the orthonormal eigenvectors (columns), overwriting the matrix.
//
// Preconditions: matrices are n x n, column-major, full storage (both triangles), Hermitian to rounding.
#include "quanta/core/complex.hpp"

namespace quanta::phonon::kernels {

// CPU: LAPACK zheev per matrix, OpenMP over the batch.
void hermitian_eigensolver_cpu(int n, int batch,
                               cplx* a,     // [batch][n][n] in: D(q); out: eigenvectors (columns)
                               double* w);  // [batch][n] out: eigenvalues, ascending

#ifdef QUANTA_HAVE_CUDA
// CUDA: cuSOLVER batched Jacobi (n <= 32) or one zheevd per matrix, on device pointers; synchronous.
void hermitian_eigensolver_cuda(int n, int batch,
                                cplx* a_dev,     // [batch][n][n]
                                double* w_dev);  // [batch][n]
#endif

}  // namespace quanta::phonon::kernels
