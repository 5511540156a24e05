#include <vector>

#include "../harmonic_spectrum.hpp"
#include "../hermitian_eigensolver.hpp"

namespace quanta::phonon::kernels {

void harmonic_spectrum_cpu(const ModelView& m, const SpectrumBatch& b) {
  const int nb = 3 * m.natoms;
  const std::size_t nb2 = static_cast<std::size_t>(nb) * nb;
#pragma omp parallel
  {
    std::vector<cplx> d(nb2), dd(3 * nb2);
    std::vector<double> w(nb);
    cplx blk[3][3], dblk[3][3][3];
#pragma omp for schedule(dynamic, 8)
    for (int iq = 0; iq < b.nq; ++iq) {
      const double* q = b.q + 3 * iq;
      for (int a1 = 0; a1 < m.natoms; ++a1)
        for (int a2 = 0; a2 < m.natoms; ++a2) {
          dynamical_matrix_block(m, q, a1, a2, blk, dblk);
          for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) {
              const std::size_t at = (3 * a1 + i) + static_cast<std::size_t>(3 * a2 + j) * nb;  // column-major
              d[at] = blk[i][j];
              for (int c = 0; c < 3; ++c) dd[c * nb2 + at] = dblk[c][i][j];
            }
        }
      hermitian_eigensolver_cpu(nb, 1, d.data(), w.data());
      for (int n = 0; n < nb; ++n) {
        const cplx* e = d.data() + static_cast<std::size_t>(n) * nb;
        const double om = signed_frequency(w[n]);
        b.omega[static_cast<std::size_t>(iq) * nb + n] = om;
        group_velocity(nb, e, dd.data(), om, b.velocity + (static_cast<std::size_t>(iq) * nb + n) * 3);
        for (int k = 0; k < nb; ++k) b.eigenvectors[(static_cast<std::size_t>(iq) * nb + n) * nb + k] = e[k];
      }
    }
  }
}

}  // namespace quanta::phonon::kernels
