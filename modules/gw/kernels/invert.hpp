#pragma once
// The inverse of the dielectric matrix (column-major, n x n) by LU with partial pivoting: LAPACK
// zgetrf + zgetri on the CPU, cuSOLVER zgetrf + zgetrs (against the identity) on the device. When the
// device cannot hold the matrix, its inverse and the solver's work area, the CPU does it.
// Throws Error naming `what` when the matrix is singular.
#include <string>
#include <vector>

#include "quanta/core/backend.hpp"
#include "quanta/core/complex.hpp"
#include "quanta/core/host_vector.hpp"

namespace quanta::gw::kernels {

std::vector<cplx> invert_cpu(std::vector<cplx> a, int n, const std::string& what);
#if QUANTA_GW_CUDA
std::vector<cplx> invert_cuda(const std::vector<cplx>& a, int n, const std::string& what);
// eps = 1 - diag(v) chi formed on the device over chi (n x n, complete, column-major), then inverted there as
// invert_cuda does; eps^-1 comes back to the host and eps(0, 0) into *eps_head. Every buffer is allocated before
// chi is changed, so an OutOfDeviceMemory leaves chi as it was.
HostVector<cplx> epsilon_inverse_cuda(cplx* chi, const std::vector<double>& v, int n, const std::string& what, cplx* eps_head);
// The same for nf matrices chi_f = chis + f n^2 (epsilon_inverse_cuda is its nf = 1) with one set of inversion buffers (allocated before any chi_f is changed:
// an OutOfDeviceMemory from the constructor leaves them all as they were); returns [nf][n][n] eps^-1 and Re eps_f(0, 0)
// in heads[f].
HostVector<cplx> epsilon_inverse_cuda_many(cplx* chis, int nf, const std::vector<double>& v, int n, const std::string& what, double* heads);
#endif
// `a` is not changed (the CPU's LU works on a copy; the device's on the uploaded one).
std::vector<cplx> invert(Backend backend, const std::vector<cplx>& a, int n, const std::string& what);

}  // namespace quanta::gw::kernels
