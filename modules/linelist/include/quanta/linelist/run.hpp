#pragma once
#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

#include "quanta/core/backend.hpp"

namespace quanta::linelist {

struct RunOptions {
  std::filesystem::path input;            // TROVE input file with an INTENSITY block
  std::filesystem::path checkpoint_dir;   // where the j0eigen_*.chk and j0_extfield.chk files are
  std::filesystem::path levels_file;      // quanta's HDF5 levels file instead of the checkpoints (non-empty)
  std::filesystem::path output_dir;
  Backend backend = Backend::Auto;
  std::string method = "gemm";            // gemm | cr
  int dipole_blocks = 0;                  // 0: from the device memory; p: split the dipole into p blocks by v
  std::size_t gpu_mem_limit = 0;          // bytes; 0: free device memory
  int batch = 0;                          // most lower states per group (0: as many as memory holds)
  bool gain_table = false;                // also write GAIN's text table
  std::filesystem::path cross_sections;   // an ExoCross input: cross sections (or sticks) from the run's transitions
  bool no_trans = false;                  // with cross_sections: leave the .trans file unwritten
  int trans_split = 0;                    // > 0: the .trans sorted by wavenumber in files of this many cm^-1, streamed
  bool bzip2 = false;                     // with trans_split: the range files bzip2-compressed (<file>.trans.bz2)
  int pf_tmax = 0;                        // > 0: also <stem>.pf, Q(T) for T = 1 .. pf_tmax K
  bool def = false;                       // also <stem>.def, ExoMol's definition file
  bool lifetimes = false;                 // the .states with ExoMol's lifetime column: 1 / (sum of A of the lines from each state)
  int threads = 0;
  bool quiet = false;
};

struct RunSummary {
  std::size_t levels = 0, transitions = 0;
  long long lower_states = 0;
  std::string backend, engine;
  double partition_function = 0;
  double seconds_total = 0, seconds_half = 0, seconds_completion = 0;
  std::size_t upper_cached_bytes = 0;     // expanded upper vectors kept on the host (bounded by half of `mem`)
  std::filesystem::path states, trans, results, pf, def;
  std::vector<std::filesystem::path> cross_sections;  // .xsec files written
  std::vector<std::filesystem::path> trans_files;     // the range-split .trans files (trans_split)
};

// quanta linelist --cross-sections FILE without a TROVE input: ExoCross's run on the .states/.trans the file names.
struct XsecRunOptions {
  std::filesystem::path input, output_dir;
  Backend backend = Backend::Auto;
  int threads = 0;
  bool quiet = false;
};
std::vector<std::filesystem::path> run_cross_sections(const XsecRunOptions& opt);

// quanta linelist: TROVE's intensity step (see src/run.cpp for the stages).
RunSummary run(const RunOptions& options);

// quanta linelist-convert: the levels and dipole that `input` asks for, from TROVE's checkpoints into a
// levels file; returns the number of levels written.
std::size_t convert_to_levels_file(const std::filesystem::path& input, const std::filesystem::path& checkpoint_dir,
                                   const std::filesystem::path& output, bool quiet);

}  // namespace quanta::linelist
