#pragma once
// Entry points of the CUDA three-phonon backend (kernels/cuda/three_phonon_cuda.cu).
#ifdef QUANTA_HAVE_CUDA
#include "../src/three_phonon_setup.hpp"
#include "quanta/phonon/scattering.hpp"

namespace quanta::phonon::kernels {

ThreePhononProcesses three_phonon_processes_cuda(const Crystal& crystal, const QGrid& grid, const Spectrum& s,
                                                 const Fc3Tables& tables, double scalebroad,
                                                 const ScatteringOptions& options, ScatteringStats& stats);

}  // namespace quanta::phonon::kernels
#endif
