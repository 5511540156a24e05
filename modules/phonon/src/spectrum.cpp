#include "quanta/phonon/spectrum.hpp"

#include "../kernels/harmonic_spectrum.hpp"
#include "quanta/core/error.hpp"

namespace quanta::phonon {

Spectrum compute_spectrum(const HarmonicModel& model, const std::vector<Vec3>& q_cartesian, const SpectrumOptions& options) {
  Spectrum s;
  s.nq = static_cast<int>(q_cartesian.size());
  s.nb = 3 * model.natoms;
  s.omega.resize(static_cast<std::size_t>(s.nq) * s.nb);
  s.velocity.resize(static_cast<std::size_t>(s.nq) * s.nb * 3);
  s.eigenvectors.resize(static_cast<std::size_t>(s.nq) * s.nb * s.nb);
  std::vector<double> q(3 * q_cartesian.size());
  for (std::size_t i = 0; i < q_cartesian.size(); ++i)
    for (int k = 0; k < 3; ++k) q[3 * i + k] = q_cartesian[i][k];
  kernels::SpectrumBatch batch{s.nq, q.data(), s.omega.data(), s.velocity.data(), s.eigenvectors.data()};

  if (options.backend == Backend::Cuda) {
#ifdef QUANTA_HAVE_CUDA
    const GpuMemoryBudget budget{options.gpu_mem_limit};
    kernels::harmonic_spectrum_cuda(model, batch, budget.usable_bytes(), options.max_batch);
    return s;
#else
    throw Error("the CUDA backend was requested but quanta was built without it");
#endif
  }
  const kernels::ModelView view = kernels::make_view(model, model.terms.data(), model.pair_offset.data(), model.zeff.data(),
                                                     model.inv_sqrt_mass.data(), model.tau.data(), model.gvectors.data());
  kernels::harmonic_spectrum_cpu(view, batch);
  return s;
}

}  // namespace quanta::phonon
