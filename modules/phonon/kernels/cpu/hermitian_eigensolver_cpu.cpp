#include <lapacke.h>

#include <string>
#include <vector>

#include "../hermitian_eigensolver.hpp"
#include "quanta/core/error.hpp"

namespace quanta::phonon::kernels {

void hermitian_eigensolver_cpu(int n, int batch, cplx* a, double* w) {
  int failed = -1, info_failed = 0;
#pragma omp parallel for schedule(dynamic, 16)
  for (int b = 0; b < batch; ++b) {
    auto* m = reinterpret_cast<lapack_complex_double*>(a + static_cast<std::size_t>(b) * n * n);
    const int info = LAPACKE_zheev(LAPACK_COL_MAJOR, 'V', 'U', n, m, n, w + static_cast<std::size_t>(b) * n);
    if (info != 0) {
#pragma omp critical
      {
        failed = b;
        info_failed = info;
      }
    }
  }
  if (failed >= 0)
    throw Error("LAPACK zheev failed on dynamical matrix " + std::to_string(failed) + " (info = " + std::to_string(info_failed) + ")");
}

}  // namespace quanta::phonon::kernels
