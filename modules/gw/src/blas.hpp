#pragma once
// The BLAS routines the module calls directly (Fortran interface, column-major).
extern "C" void zgemm_(const char* ta, const char* tb, const int* m, const int* n, const int* k, const void* alpha, const void* a, const int* lda,
                       const void* b, const int* ldb, const void* beta, void* c, const int* ldc);
