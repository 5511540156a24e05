#pragma once
// The static subspace approximation's dense linear algebra (src/epsilon.cpp's subspace_epsilon):
// - the eigen decomposition of the symmetrized static chi0 (Hermitian): LAPACK zheevd on the CPU, cuSOLVER zheevd on the
//   device;
// - eps^-1 at every frequency expanded from the subspace back to the G basis,
//     eps^-1(z_f) = base + diag(sv) B D_f B^H diag(1 / sv),  D_f = C_f - C_f0 (keep) or C_f,  base = eps^-1(0) (keep) or 1,
//   two ZGEMMs per frequency (on the device, B and the C_f uploaded once).
#include <string>
#include <vector>

#include "quanta/core/backend.hpp"
#include "quanta/core/complex.hpp"
#include "quanta/core/host_vector.hpp"

namespace quanta::gw::kernels {

// a (n x n, column-major, Hermitian; the lower triangle is read) is replaced by its eigenvectors (columns), w by the
// eigenvalues in ascending order. Throws Error naming `what` when the solver fails.
void hermitian_eigen(Backend backend, std::vector<cplx>& a, int n, std::vector<double>& w, const std::string& what);

struct SubspaceExpansion {
  int ng = 0, nb = 0, nf = 0;
  const cplx* basis = nullptr;   // B, ng x nb
  const cplx* c = nullptr;       // [nf][nb][nb] C_f = (1 - chi_s(z_f))^-1 - 1
  int f0 = 0;                    // the frequency z = 0 (keep)
  bool keep = true;              // keep the whole static eps^-1
  const cplx* einv0 = nullptr;   // [ng][ng] eps^-1(0) in the G basis (keep)
  const double* sv = nullptr;    // [ng] v^1/2
};
// [nf][ng][ng] eps^-1 at every frequency.
HostVector<cplx> subspace_expand(Backend backend, const SubspaceExpansion& job);
HostVector<cplx> subspace_expand_cpu(const SubspaceExpansion& job);
#if QUANTA_GW_CUDA
HostVector<cplx> subspace_expand_cuda(const SubspaceExpansion& job);
void hermitian_eigen_cuda(std::vector<cplx>& a, int n, std::vector<double>& w, const std::string& what);
#endif

}  // namespace quanta::gw::kernels
