#pragma once
// Running quanta under the MPI launcher from a test. QUANTA_MPIEXEC (the launcher CMake found) is defined by
// the test targets that include this.
#include <cstdlib>
#include <string>

namespace quanta::test {

// OpenMPI refuses to start as root unless told twice, and a container or CI machine may have fewer cores
// than ranks and no cross-memory attach: what mpirun needs there.
inline void allow_mpirun_here() {
  setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1);
  setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);
  setenv("OMPI_MCA_btl_vader_single_copy_mechanism", "none", 1);
}

// The command prefix that starts `ranks` processes ("" for one: no launcher).
inline std::string mpi_launcher(int ranks) {
  return ranks == 1 ? std::string() : std::string(QUANTA_MPIEXEC) + " --oversubscribe --bind-to none -np " + std::to_string(ranks) + " ";
}

// Why the launcher cannot start 2 processes here ("" when it can: a container without the shared-memory or
// network set-up it needs cannot start two processes at all); checked once.
inline std::string mpi_launcher_problem() {
  static const std::string why = [] {
    allow_mpirun_here();
    const std::string cmd = mpi_launcher(2) + "true > /dev/null 2>&1";
    return std::system(cmd.c_str()) == 0 ? std::string()
                                         : std::string(QUANTA_MPIEXEC) + " cannot start 2 processes on this machine (" + cmd + " failed)";
  }();
  return why;
}

}  // namespace quanta::test
