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
  const kernels::ModelView view{model.natoms,
                                static_cast<int>(model.terms.size()),
                                model.terms.data(),
                                model.pair_offset.data(),
                                model.nac,
                                {{model.reciprocal[0][0], model.reciprocal[0][1], model.reciprocal[0][2]},
                                 {model.reciprocal[1][0], model.reciprocal[1][1], model.reciprocal[1][2]},
                                 {model.reciprocal[2][0], model.reciprocal[2][1], model.reciprocal[2][2]}},
                                {{model.epsilon[0][0], model.epsilon[0][1], model.epsilon[0][2]},
                                 {model.epsilon[1][0], model.epsilon[1][1], model.epsilon[1][2]},
                                 {model.epsilon[2][0], model.epsilon[2][1], model.epsilon[2][2]}},
                                model.zeff.data(),
                                model.inv_sqrt_mass.data(),
                                model.tau.data(),
                                model.nac_prefactor,
                                model.gvectors.data(),
                                static_cast<int>(model.gvectors.size() / 3),
                                model.alpha,
                                model.q_to_bohr,
                                model.ncell};
  kernels::harmonic_spectrum_cpu(view, batch);
  return s;
}

}  // namespace quanta::phonon
