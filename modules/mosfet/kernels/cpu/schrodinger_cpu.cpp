// CPU twins of the Schroedinger kernels: one (i, v) matrix or one eigenpair per loop iteration.
#include <algorithm>
#include <cmath>
#include <vector>

#include "../schrodinger.hpp"

namespace quanta::mosfet::kernels {

void overlaps_cpu(const Overlaps& o) {
  const int nvp = valleys * o.subbands;
#pragma omp parallel for schedule(static)
  for (int i = 0; i < o.nx; ++i)
    for (int a = 0; a < nvp; ++a)
      for (int b = 0; b < nvp; ++b) overlap_entry(o, i, a, b);
}

void build_schrodinger_cpu(const SchrodingerBuild& b) {
  const int n = b.nz - 2;
#pragma omp parallel for collapse(2)
  for (int i = 0; i < b.nx; ++i)
    for (int v = 0; v < valleys; ++v)
      for (int jj = 0; jj < n; ++jj) schrodinger_entries(b, i, v, jj);
}

void eigenvalues_multisection_cpu(const EigenProblem& P) {
  const int n = P.n(), total = P.nx * valleys * P.ns;
#pragma omp parallel for schedule(dynamic, 4)
  for (int t = 0; t < total; ++t) {
    const int iv = t / P.ns, p = t % P.ns;
    const double* d = P.d + static_cast<std::size_t>(iv) * n;
    const double* e = P.e + static_cast<std::size_t>(iv) * n;
    double lo, hi;
    gershgorin(d, e, n, &lo, &hi);
    double x = lo, h = hi - lo;
    const int steps = multisection_steps(h, P.tol, P.n_multi);
    for (int s = 0; s < steps; ++s) {
      h /= P.n_multi;
      int best = -1;  // the largest k whose point lies at or below eigenvalue p (seed eq. 20)
      for (int k = 0; k < P.n_multi - 1; ++k)
        if (sturm_count(d, e, n, x + (k + 1) * h) <= p) best = k;
      x += (best + 1) * h;
    }
    P.eigenvalues[t] = x + 0.5 * h;
  }
}

void eigenvalues_newton_cpu(const EigenProblem& P) {
  const int n = P.n(), total = P.nx * valleys * P.ns;
#pragma omp parallel for schedule(static)
  for (int t = 0; t < total; ++t) {
    const int iv = t / P.ns, p = t % P.ns;
    P.eigenvalues[t] = eigenvalue_newton(P.d + static_cast<std::size_t>(iv) * n, P.e + static_cast<std::size_t>(iv) * n, n,
                                         p, P.eigenvalues[t], P.tol);
  }
}

int eigenvectors_cpu(const EigenProblem& P) {
  const int n = P.n(), total = P.nx * valleys * P.ns;
  int most = 0;
#pragma omp parallel for schedule(static) reduction(max : most)
  for (int t = 0; t < total; ++t) {
    const int iv = t / P.ns;
    double* psi = P.eigenvectors + static_cast<std::size_t>(t) * P.nz;
    double* q = psi + 1;  // interior nodes
    double* y = P.scratch + static_cast<std::size_t>(t) * 2 * n;
    if (!P.warm)
      for (int j = 0; j < n; ++j) q[j] = start_vector(j, n);
    const int it = inverse_iteration(P.d + static_cast<std::size_t>(iv) * n, P.e + static_cast<std::size_t>(iv) * n, n,
                                     P.eigenvalues[t], P.vector_tol, P.max_vector_iter, q, y, y + n);
    normalise_eigenvector(q, n, P.dz);
    psi[0] = psi[P.nz - 1] = 0.0;
    if (it < 0) P.eigenvalues[t] = NAN;  // not an eigenpair: the block reports it (see eigenvectors_cpu)
    most = std::max(most, it < 0 ? P.max_vector_iter : it);
  }
  return most;
}

}  // namespace quanta::mosfet::kernels
