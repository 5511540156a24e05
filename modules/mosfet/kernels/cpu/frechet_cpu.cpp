// CPU twins of the density and Frechet-derivative kernels.
#include "../frechet.hpp"

namespace quanta::mosfet::kernels {

void electron_density_cpu(const DensityInput& in) {
#pragma omp parallel for collapse(2)
  for (int i = 0; i < in.nx; ++i)
    for (int j = 0; j < in.nz; ++j) in.density[static_cast<std::size_t>(i) * in.nz + j] = density_entry(in, i, j);
}

void frechet_derivative_cpu(const DensityInput& in) {
#pragma omp parallel for collapse(2) schedule(static)
  for (int i = 0; i < in.nx; ++i)
    for (int j = 0; j < in.nz; ++j) {
      double* row = in.frechet + (static_cast<std::size_t>(i) * in.nz + j) * in.nz;
      for (int jp = 0; jp < in.nz; ++jp) row[jp] = frechet_entry(in, i, j, jp);
    }
}

}  // namespace quanta::mosfet::kernels
