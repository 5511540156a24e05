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
#pragma omp for schedule(dynamic, 8)
    for (int iq = 0; iq < b.nq; ++iq) {
      assemble_dynamical_matrix(m, b.q + 3 * iq, d.data(), dd.data());
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
