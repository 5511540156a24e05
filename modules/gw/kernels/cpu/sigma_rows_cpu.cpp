#include "../sigma_rows.hpp"

namespace quanta::gw::kernels {

void screened_rows_cpu(const cplx* m, std::size_t rows, int ngb, const int* where, int ngs, cplx* out) {
  // Copies between arrays already held: nothing in the loop throws.
#pragma omp parallel for schedule(static)
  for (long r = 0; r < static_cast<long>(rows); ++r)
    for (int a = 0; a < ngs; ++a) out[static_cast<std::size_t>(r) * ngs + a] = m[static_cast<std::size_t>(r) * ngb + where[a]];
}

void bare_exchange_cpu(const cplx* m, int nn, int nb, int nocc, int ngb, const double* v, double* s) {
#pragma omp parallel for collapse(2) schedule(static)
  for (int n = 0; n < nn; ++n)
    for (int b = 0; b < nocc; ++b) {
      const cplx* mg = m + (static_cast<std::size_t>(n) * nb + b) * ngb;
      double s2 = 0;
      for (int g = 0; g < ngb; ++g) s2 += norm2(mg[g]) * v[g];
      s[static_cast<std::size_t>(n) * nocc + b] = s2;
    }
}

}  // namespace quanta::gw::kernels
