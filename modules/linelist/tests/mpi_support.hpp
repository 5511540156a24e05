#pragma once
// Shared by the MPI tests: the SiH2 line list run by `quanta linelist` on 1 process (no launcher) or on
// P processes through mpirun, and the number of processes the run itself recorded.
#include <sys/wait.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "quanta/core/io/hdf5.hpp"
#include "quanta/test/mpi.hpp"
#include "test_support.hpp"

namespace linelist_test {

using quanta::test::allow_mpirun_here;

inline std::string launcher(int ranks) { return quanta::test::mpi_launcher(ranks); }

// Why mpirun cannot start 2 processes here ("" when it can).
inline std::string launcher_problem() { return quanta::test::mpi_launcher_problem(); }

// quanta linelist on the SiH2 checkpoints (the input: `input`, by default the SiH2 one; `extra`: more options); its
// stderr goes to <out>/log.txt. Returns the exit status.
inline int run_linelist(const std::filesystem::path& out, int ranks, const std::string& backend,
                        const std::filesystem::path& input = input_file(), const std::string& extra = "") {
  allow_mpirun_here();
  std::filesystem::create_directories(out);
  const std::string cmd = launcher(ranks) + QUANTA_BINARY + " linelist '" + input.string() + "' --checkpoints '" +
                          checkpoints().string() + "' -o '" + out.string() + "' --backend " + backend + " --threads 1" + extra + " > '" +
                          (out / "log.txt").string() + "' 2>&1";
  const int rc = std::system(cmd.c_str());
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

// The number of processes that computed the line list, as quanta-linelist.h5 records it.
inline std::int64_t processes_of(const std::filesystem::path& out) {
  quanta::io::H5File f(out / "quanta-linelist.h5", quanta::io::H5File::Mode::Read);
  return f.read_ints("metadata/processes").at(0);
}

}  // namespace linelist_test
