#include "quanta/phonon/spectrum.hpp"

#include "../kernels/harmonic_spectrum.hpp"
#include "quanta/core/error.hpp"

namespace quanta::phonon {
namespace {

std::vector<double> flat(const std::vector<Vec3>& v) {
  std::vector<double> out(3 * v.size());
  for (std::size_t i = 0; i < v.size(); ++i)
    for (int k = 0; k < 3; ++k) out[3 * i + k] = v[i][k];
  return out;
}

kernels::ModelView host_view(const HarmonicModel& model) {
  return kernels::make_view(model, model.terms.data(), model.pair_offset.data(), model.zeff.data(), model.inv_sqrt_mass.data(),
                            model.tau.data(), model.gvectors.data());
}

}  // namespace

Spectrum compute_spectrum(const HarmonicModel& model, const std::vector<Vec3>& q_cartesian, const SpectrumOptions& options) {
  Spectrum s;
  s.nq = static_cast<int>(q_cartesian.size());
  s.nb = 3 * model.natoms;
  s.omega.resize(static_cast<std::size_t>(s.nq) * s.nb);
  s.velocity.resize(static_cast<std::size_t>(s.nq) * s.nb * 3);
  s.eigenvectors.resize(static_cast<std::size_t>(s.nq) * s.nb * s.nb);
  std::vector<double> q = flat(q_cartesian);
  kernels::SpectrumBatch batch{s.nq, q.data(), s.omega.data(), s.velocity.data(), s.eigenvectors.data()};

  if (options.backend == Backend::Cuda) {
#ifdef QUANTA_HAVE_CUDA
    const GpuMemoryBudget budget{options.gpu_mem_limit};
    kernels::harmonic_spectrum_cuda(model, batch, budget.usable_bytes(), options.max_batch);
#else
    throw Error("the CUDA backend was requested but quanta was built without it");
#endif
  } else {
    kernels::harmonic_spectrum_cpu(host_view(model), batch);
  }
  // The same host step after either eigensolver (only q-points with degenerate modes do any work), so that
  // LAPACK's and cuSOLVER's different choices inside degenerate sets lead to the same modes.
  if (options.degenerate_basis == DegenerateBasis::Canonical) kernels::canonical_degenerate_modes_cpu(host_view(model), batch);
  return s;
}

void canonicalize_degenerate_modes(const HarmonicModel& model, const std::vector<Vec3>& q_cartesian, Spectrum& s) {
  if (q_cartesian.size() != static_cast<std::size_t>(s.nq) || s.nb != 3 * model.natoms)
    throw Error("canonicalize_degenerate_modes: the spectrum does not belong to these q-points and this model");
  std::vector<double> q = flat(q_cartesian);
  const kernels::SpectrumBatch batch{s.nq, q.data(), s.omega.data(), s.velocity.data(), s.eigenvectors.data()};
  kernels::canonical_degenerate_modes_cpu(host_view(model), batch);
}

}  // namespace quanta::phonon
