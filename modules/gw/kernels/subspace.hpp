#pragma once
// The static subspace approximation's dense linear algebra (src/epsilon.cpp's subspace_epsilon):
// - its first step from the static chi0: eps = 1 - diag(v) chi0 and its inverse, the eigen decomposition of the
//   symmetrized sym = diag(sv) chi0 diag(sv) (sv = v^1/2) and the eigenvectors kept as the basis; from chi0 on the host
//   (the inversion and the decomposition where the backend says) or from chi0 left on the device by CHI_SUM, where
//   only eps^-1, the eigenvalues and the kept eigenvectors cross to the host;
// - the eigen decomposition of the symmetrized static chi0 (Hermitian): LAPACK zheevd on the CPU, cuSOLVER zheevd on the
//   device;
// - eps^-1 at every frequency expanded from the subspace back to the G basis,
//     eps^-1(z_f) = base + diag(sv) B D_f B^H diag(1 / sv),  D_f = C_f - C_f0 (keep) or C_f,  base = eps^-1(0) (keep) or 1,
//   two ZGEMMs per frequency (on the device, B and the C_f uploaded once).
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "quanta/core/backend.hpp"
#include "quanta/core/complex.hpp"
#include "quanta/core/host_vector.hpp"

namespace quanta::gw::kernels {

// a (n x n, column-major, Hermitian; the lower triangle is read) is replaced by its eigenvectors (columns), w by the
// eigenvalues in ascending order. Throws Error naming `what` when the solver fails.
void hermitian_eigen(Backend backend, std::vector<cplx>& a, int n, std::vector<double>& w, const std::string& what);

// The static subspace's first step. `choose(lambda)` (the eigenvalues of sym, ascending) returns the columns kept, in
// the order the basis takes them.
// v^1/2 element by element (the symmetrization's scale).
inline std::vector<double> sqrt_of(const std::vector<double>& v) {
  std::vector<double> s(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) s[i] = std::sqrt(v[i]);
  return s;
}
using ChooseBasis = std::function<std::vector<int>(const std::vector<double>& lambda)>;
struct StaticSubspace {
  std::vector<double> sv;    // [n] v^1/2, the symmetrization's
  HostVector<cplx> einv0;    // [n][n] eps^-1(0)
  double eps_head = 0;       // Re eps(0, 0)
  std::vector<cplx> basis;   // B, the kept eigenvectors of sym (column-major n x nb)
  int nb = 0;
  double form = 0, invert = 0, eigen = 0;  // seconds: sym (and, on the host, eps) formed; eps inverted; sym diagonalized
                                           // and the kept columns gathered
};
// From chi0 on the host (n x n, complete, column-major): both matrices formed by the host's threads, the inversion and
// the decomposition on `backend` (uploaded for CUDA).
StaticSubspace static_subspace(Backend backend, const std::vector<cplx>& chi0, const std::vector<double>& v, int n, const ChooseBasis& choose,
                               const std::string& what);

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
// The same from chi0 on the device (chi: n x n, complete; eps's LU factors replace it): sym formed into a buffer of its
// own and diagonalized, then eps formed over chi0 and inverted (epsilon_inverse_cuda). The decomposition's buffers are
// allocated before anything is computed and the inversion's before eps replaces chi0, so an OutOfDeviceMemory leaves
// chi as it was (the caller can then bring chi0 to the host and call static_subspace).
StaticSubspace static_subspace_cuda(cplx* chi, const std::vector<double>& v, int n, const ChooseBasis& choose, const std::string& what);
#endif

}  // namespace quanta::gw::kernels
