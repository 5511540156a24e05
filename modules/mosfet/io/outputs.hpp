#pragma once
// quanta-mosfet.h5 and the text summary of a run.
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "quanta/mosfet/config.hpp"
#include "quanta/mosfet/schrodinger_poisson.hpp"

namespace quanta::mosfet {

struct RunMetadata {
  std::string config_file, backend, device;
  std::vector<std::pair<std::string, double>> timings;  // stage, seconds
};

// Everything the block holds after the run, in the user's index order: potential and densities
// [nx][nz]; subband arrays [valley][subband][nx]; wave functions [valley][subband][nx][nz].
void write_results(const std::filesystem::path& path, const Config& config, const SchrodingerPoisson& block,
                   const BlockResult& result, const RunMetadata& meta);
void write_summary(const std::filesystem::path& path, const Config& config, const SchrodingerPoisson& block,
                   const BlockResult& result, const RunMetadata& meta);

}  // namespace quanta::mosfet
