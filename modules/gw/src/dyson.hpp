#pragma once
// Self-consistent eigenvalues of a matrix that depends on the energy, H(E) = H0 + S(E), with S tabulated on
// uniform frequencies and interpolated between them by a cubic (Catmull-Rom; exact for S linear in E): for each i, the E with Re lambda_i(H(E)) = E,
// lambda_i the i-th eigenvalue by real part. Used by solve_dyson_grid; separate for its tests.
#include <string>
#include <vector>

#include "quanta/core/complex.hpp"

namespace quanta::gw {

struct DysonRoots {
  std::vector<cplx> energies;    // [nb] lambda_i at its solution
  std::vector<int> iterations;   // [nb] eigen decompositions after the grid's
  std::string failure;           // empty, or what went wrong (which i, why)
};

// h0: [nb][nb] row-major; omega: [nw] increasing, uniform; s: [nw][nb][nb] row-major. The root of
// f_i(E) = Re lambda_i(H(E)) - E is bracketed between two grid frequencies where f_i changes sign (the first
// such pair from below), then refined by regula falsi (Illinois) on the interpolated H to |f_i| < tol eV,
// at most max_iter decompositions.
DysonRoots dyson_self_consistent(int nb, const std::vector<cplx>& h0, const std::vector<double>& omega, const std::vector<cplx>& s,
                                 double tol = 1e-7, int max_iter = 100);

}  // namespace quanta::gw
