// CPU twins of the density and Frechet-derivative kernels.
#include <vector>

#include "../frechet.hpp"

namespace quanta::mosfet::kernels {

void electron_density_cpu(const DensityInput& in) {
#pragma omp parallel for collapse(2)
  for (int i = 0; i < in.nx; ++i)
    for (int j = 0; j < in.nz; ++j) in.density[static_cast<std::size_t>(i) * in.nz + j] = density_entry(in, i, j);
}

void frechet_derivative_cpu(const DensityInput& in) {
  const int ns = in.ns;
#pragma omp parallel
  {
    std::vector<double> b(static_cast<std::size_t>(ns) * ns);
#pragma omp for collapse(2) schedule(static)
    for (int i = 0; i < in.nx; ++i)
      for (int j = 0; j < in.nz; ++j) {
        double* row = in.frechet + (static_cast<std::size_t>(i) * in.nz + j) * in.nz;
        for (int jp = 0; jp < in.nz; ++jp) row[jp] = 0.0;
        for (int v = 0; v < 3; ++v) {
          for (int p = 0; p < ns; ++p)
            for (int q = p; q < ns; ++q) b[p * ns + q] = frechet_weight(in, i, j, v, p, q);
          for (int jp = 0; jp < in.nz; ++jp) row[jp] += frechet_row_sum(in, i, v, jp, b.data());
        }
        for (int jp = 0; jp < in.nz; ++jp) row[jp] *= in.degeneracy;
      }
  }
}

}  // namespace quanta::mosfet::kernels
