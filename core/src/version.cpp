#include "quanta/core/version.hpp"

#include "quanta_build_info.hpp"

namespace quanta {

std::string version() { return QUANTA_BUILD_VERSION; }

std::string build_description() {
  return std::string("quanta ") + QUANTA_BUILD_VERSION + "\n" +
         "CUDA backend: " + QUANTA_BUILD_CUDA + "\n" +
         "MPI: " + QUANTA_BUILD_MPI + "\n" +
         "spglib: " + QUANTA_BUILD_SPGLIB + "\n" +
         "HDF5: " + QUANTA_BUILD_HDF5 + "\n" +
         "bzip2: " + QUANTA_BUILD_BZIP2 + "\n" +
         "OpenMP: " + QUANTA_BUILD_OPENMP + "\n";
}

}  // namespace quanta
