#pragma once
// Entry points of the CUDA three-phonon backend (kernels/cuda/three_phonon_cuda.cu).
#ifdef QUANTA_HAVE_CUDA
#include "../src/three_phonon_setup.hpp"
#include "quanta/phonon/scattering.hpp"

namespace quanta::phonon::kernels {

ThreePhononProcesses three_phonon_processes_cuda(const Crystal& crystal, const QGrid& grid, const Spectrum& s,
                                                 const Fc3Tables& tables, double scalebroad,
                                                 const ScatteringOptions& options, ScatteringStats& stats);

// The rate sums of every irreducible mode at one temperature (one block per mode, block reductions, no
// atomics) and, with options.keep_process_rates, the rate of every process into r.process_plus/minus (sized
// by the caller). `mesh` is the host view; `bose` [nptk][nb] the occupations; a process's rate is
// factor * weight * |V|^2. Batches of modes follow the memory budget; throws OutOfDeviceMemory when even
// one mode's list does not fit.
void three_phonon_rates_cuda(const MeshView& mesh, const std::vector<int>& irreducible, const std::vector<double>& bose,
                             const ThreePhononProcesses& p, double factor, const RateOptions& options, RateSums& sums,
                             ThreePhononRates& r);

}  // namespace quanta::phonon::kernels
#endif
