#pragma once
// The line list: every transition between the levels that the INTENSITY block's filters admit, with its
// linestrength, Einstein A coefficient and absolute intensity (seed eqs. 1, 2, 13-15), computed in
// batches of lower states on a LinestrengthEngine.
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "quanta/core/backend.hpp"
#include "quanta/linelist/checkpoints.hpp"
#include "quanta/linelist/input.hpp"
#include "quanta/linelist/levels.hpp"

namespace quanta::linelist {

enum class Method;
struct EngineOptions;

struct Transition {
  int upper = 0, lower = 0;   // indices into Levels::levels
  double wavenumber = 0;      // E_f - E_i, cm^-1
  double linestrength = 0;    // S(f <- i), Debye^2 (with g_ns and (2J+1)(2J'+1), as TROVE prints it)
  double einstein_a = 0;      // 1/s
  double intensity = 0;       // cm/molecule
  double amplitude = 0;       // s(f <- i) of the first degenerate components, Debye (its sign is TROVE's)
};

struct LineListOptions {
  Backend backend = Backend::Cpu;
  // When set: each group's transitions are handed over as they are computed (in the groups' order, not sorted) and not
  // kept, every process its own; LineList::transitions stays empty and LineList::streamed counts this process's. The
  // sink runs on a second thread, one group at a time, while the next group computes: it must not touch what the
  // computation uses (it may read the levels).
  std::function<void(std::vector<Transition>&)> sink;
  std::size_t upper_cache_bytes = std::size_t(8) << 30;  // expanded upper vectors kept on the host; the rest are re-read per group
  bool quiet = false;
};

struct LineList {
  std::vector<Transition> transitions;  // sorted by lower energy, then upper energy (empty with a sink)
  std::size_t streamed = 0;             // transitions handed to LineListOptions::sink
  double partition_function = 0;        // Q used for the intensities
  bool partition_from_states = false;   // Q computed from the loaded levels (no QSTAT)
  std::string engine;
  double seconds_half = 0, seconds_completion = 0;
  // Parts of the stage: the waits for a group's expanded vectors (read on a second thread) and for the sink of the
  // previous group's lines, set_lower (the group to the engine), and the digest of the amplitudes into lines (S, A, I,
  // thresholds: inside seconds_completion).
  double seconds_vectors_wait = 0, seconds_sink_wait = 0, seconds_set_lower = 0, seconds_digest = 0;
  long long lower_states = 0;           // lower states this process computed
  std::size_t upper_cached_bytes = 0;   // expanded upper vectors kept on the host (at most upper_cache_bytes)
};

// TROVE's pairing of irreps from the `selection` numbers: the unique other irrep with the same number,
// or the irrep itself; 0-based. Without `selection`, the pairs follow from the product table.
std::vector<int> selection_pairs(const SymmetryGroup& group, const std::vector<int>& selection, const std::string& file);

// TROVE's rule that the two irreps of a pair carry the same nuclear-spin weight (GNS); throws InputError
// naming both otherwise. `pair` as selection_pairs returns it, `gns` one weight per irrep.
void check_gns_of_pairs(const SymmetryGroup& group, const std::vector<int>& pair, const std::vector<double>& gns, const std::string& file);

// Q(T) = sum over levels of g_ns (2J+1) exp(-(E - ZPE) hc/kT), at the input's temperature or at `temperature`.
double partition_function(const Levels& levels, const IntensityInput& input);
double partition_function(const Levels& levels, const IntensityInput& input, double temperature);

// Every process of Comm::world() computes the lower states i with i mod nprocs == rank (seed eq. 20);
// the returned list is complete on every process. Each process takes its lower states of one (J, Gamma)
// in groups as large as the engine holds (EnginePlan), and streams the upper vectors of each (J', Gamma')
// past a group's half-linestrengths chunk by chunk, reading and digesting on the host while the device
// computes.
LineList compute_linelist(const Levels& levels, const IntensityInput& input, const DipoleMatrices& dipole,
                          const LineListOptions& options, const EngineOptions& engine_options);

}  // namespace quanta::linelist
