# Finds the libraries quanta builds against. Required: LAPACKE + BLAS, HDF5 (C), CLI11, OpenMP.
# Optional: spglib (a built-in symmetry finder is used without it), CUDA toolkit, GoogleTest, benchmark.
find_package(PkgConfig QUIET)
find_package(OpenMP REQUIRED COMPONENTS CXX)
find_package(Threads REQUIRED)

# --- LAPACKE / BLAS --------------------------------------------------------------------------
find_path(LAPACKE_INCLUDE_DIR lapacke.h PATH_SUFFIXES openblas lapacke)
find_library(LAPACKE_LIBRARY NAMES lapacke openblas)
find_library(BLAS_LIBRARY NAMES openblas blas)
if(NOT LAPACKE_INCLUDE_DIR OR NOT LAPACKE_LIBRARY OR NOT BLAS_LIBRARY)
  message(FATAL_ERROR "LAPACKE and BLAS not found (Debian: liblapacke-dev libopenblas-dev; see scripts/install-deps.sh)")
endif()
add_library(quanta_lapack INTERFACE)
target_include_directories(quanta_lapack INTERFACE ${LAPACKE_INCLUDE_DIR})
target_link_libraries(quanta_lapack INTERFACE ${LAPACKE_LIBRARY} ${BLAS_LIBRARY})

# --- HDF5 --------------------------------------------------------------------------------------
find_package(HDF5 REQUIRED COMPONENTS C)
add_library(quanta_hdf5 INTERFACE)
target_include_directories(quanta_hdf5 INTERFACE ${HDF5_C_INCLUDE_DIRS} ${HDF5_INCLUDE_DIRS})
target_link_libraries(quanta_hdf5 INTERFACE ${HDF5_C_LIBRARIES} ${HDF5_LIBRARIES})
target_compile_definitions(quanta_hdf5 INTERFACE ${HDF5_DEFINITIONS})

# --- CLI11 (header-only) -------------------------------------------------------------------------
find_package(CLI11 CONFIG QUIET)
if(NOT CLI11_FOUND)
  find_path(CLI11_INCLUDE_DIR CLI/CLI.hpp)
  if(NOT CLI11_INCLUDE_DIR)
    message(FATAL_ERROR "CLI11 not found (Debian: libcli11-dev)")
  endif()
  add_library(CLI11::CLI11 INTERFACE IMPORTED)
  target_include_directories(CLI11::CLI11 INTERFACE ${CLI11_INCLUDE_DIR})
endif()

# --- spglib (optional) ---------------------------------------------------------------------------
find_path(SPGLIB_INCLUDE_DIR spglib.h)
find_library(SPGLIB_LIBRARY NAMES symspg spglib)
if(SPGLIB_INCLUDE_DIR AND SPGLIB_LIBRARY)
  set(QUANTA_WITH_SPGLIB ON)
  add_library(quanta_spglib INTERFACE)
  target_include_directories(quanta_spglib INTERFACE ${SPGLIB_INCLUDE_DIR})
  target_link_libraries(quanta_spglib INTERFACE ${SPGLIB_LIBRARY})
  target_compile_definitions(quanta_spglib INTERFACE QUANTA_HAVE_SPGLIB=1)
else()
  set(QUANTA_WITH_SPGLIB OFF)
  message(STATUS "spglib not found: using quanta's built-in space-group finder")
endif()

# --- CUDA ----------------------------------------------------------------------------------------
set(QUANTA_WITH_CUDA OFF)
if(NOT QUANTA_CUDA STREQUAL "OFF")
  include(CheckLanguage)
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
      set(CMAKE_CUDA_ARCHITECTURES 80 90)
    endif()
    enable_language(CUDA)
    # CMake 3.25 has no CUDA20 dialect flag for nvcc; quanta_add_library passes -std=c++20 itself.
    find_package(CUDAToolkit REQUIRED)
    set(QUANTA_WITH_CUDA ON)
  elseif(QUANTA_CUDA STREQUAL "ON")
    message(FATAL_ERROR "QUANTA_CUDA=ON but no CUDA compiler (nvcc) was found")
  endif()
endif()

# --- tests and benchmarks -----------------------------------------------------------------------
if(QUANTA_BUILD_TESTS)
  find_package(GTest REQUIRED)
  enable_testing()
endif()
if(QUANTA_BUILD_BENCH)
  find_package(benchmark QUIET)
endif()
