#pragma once
// What a line-list run writes: ExoMol .states/.trans in TROVE's columns, GAIN's text table (seed
// Table 3) on request, and quanta-linelist.h5 with everything and the run's metadata.
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "quanta/linelist/input.hpp"
#include "quanta/linelist/levels.hpp"
#include "quanta/linelist/linelist.hpp"

namespace quanta::linelist {

struct RunMetadata {
  std::string input_file, checkpoint_dir, backend, device, engine;
  int processes = 1;                                    // MPI processes that computed the line list
  std::vector<std::pair<std::string, double>> timings;  // stage, seconds
};

// ID, E - ZPE, g_tot, J, Gamma, vibrational quanta, vibrational symmetries, K, tau, rotational symmetry,
// largest coefficient, ::, level, normal-mode quanta, vibrational index (TROVE's .states layout).
void write_exomol_states(const std::filesystem::path& path, const Levels& levels, const IntensityInput& input);
// upper ID, lower ID, A (1/s), wavenumber (cm^-1).
void write_exomol_trans(const std::filesystem::path& path, const Levels& levels, const LineList& list);
// nu, upper (level, J, Gamma) <- lower (level, J, Gamma), A, I, S.
void write_gain_table(const std::filesystem::path& path, const Levels& levels, const LineList& list);
void write_results(const std::filesystem::path& path, const Levels& levels, const IntensityInput& input, const LineList& list,
                   const RunMetadata& meta);

}  // namespace quanta::linelist
