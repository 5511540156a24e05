#include <lapacke.h>

#include "../invert.hpp"
#include "quanta/core/error.hpp"

namespace quanta::gw::kernels {

std::vector<cplx> invert_cpu(std::vector<cplx> a, int n, const std::string& what) {
  std::vector<lapack_int> piv(n);
  auto* p = reinterpret_cast<lapack_complex_double*>(a.data());
  lapack_int info = LAPACKE_zgetrf(LAPACK_COL_MAJOR, n, n, p, n, piv.data());
  if (info == 0) info = LAPACKE_zgetri(LAPACK_COL_MAJOR, n, p, n, piv.data());
  if (info != 0) throw Error(what + ": the dielectric matrix is singular (LAPACK info " + std::to_string(info) + ")");
  return a;
}

std::vector<cplx> invert(Backend backend, const std::vector<cplx>& a, int n, const std::string& what) {
#if QUANTA_GW_CUDA
  if (backend == Backend::Cuda) {
    try {
      return invert_cuda(a, n, what);
    } catch (const OutOfDeviceMemory&) {
      // The CPU's LU needs no device memory.
    }
  }
#else
  (void)backend;
#endif
  return invert_cpu(a, n, what);
}

}  // namespace quanta::gw::kernels
