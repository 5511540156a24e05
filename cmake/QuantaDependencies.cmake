# Finds the libraries quanta builds against. Required: LAPACKE + BLAS, HDF5 (C), CLI11, OpenMP, FFTW3,
# toml++.
# Optional: spglib (a built-in symmetry finder is used without it), bzip2 (linelist --bzip2), CUDA toolkit, MPI, GoogleTest, benchmark.
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

# --- FFTW3 (double precision; the kbe module's O(nk log nk) self-energy on the CPU) ---------------
find_path(FFTW3_INCLUDE_DIR fftw3.h)
find_library(FFTW3_LIBRARY NAMES fftw3)
if(NOT FFTW3_INCLUDE_DIR OR NOT FFTW3_LIBRARY)
  message(FATAL_ERROR "FFTW3 not found (Debian: libfftw3-dev; see scripts/install-deps.sh)")
endif()
add_library(quanta_fftw INTERFACE)
target_include_directories(quanta_fftw INTERFACE ${FFTW3_INCLUDE_DIR})
target_link_libraries(quanta_fftw INTERFACE ${FFTW3_LIBRARY})

# --- toml++ (configs): the packaged shared library when present, else header-only ---------------
find_package(tomlplusplus CONFIG QUIET)
if(TARGET tomlplusplus::tomlplusplus)
  add_library(quanta_toml INTERFACE)
  target_link_libraries(quanta_toml INTERFACE tomlplusplus::tomlplusplus)
else()
  find_path(TOMLPLUSPLUS_INCLUDE_DIR toml++/toml.h)
  if(NOT TOMLPLUSPLUS_INCLUDE_DIR)
    message(FATAL_ERROR "toml++ not found (Debian: libtomlplusplus-dev; see scripts/install-deps.sh)")
  endif()
  add_library(quanta_toml INTERFACE)
  target_include_directories(quanta_toml INTERFACE ${TOMLPLUSPLUS_INCLUDE_DIR})
  target_compile_definitions(quanta_toml INTERFACE TOML_HEADER_ONLY=1)
endif()

# --- bzip2 (optional: linelist's --bzip2 range files; refused by name without it) ------------------
find_package(BZip2 QUIET)

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
    # CMake 3.25 does not know nvcc 13's C++20 flag; tell it, so CUDA sources follow CMAKE_CXX_STANDARD.
    if(NOT CMAKE_CUDA20_STANDARD_COMPILE_OPTION)
      set(CMAKE_CUDA20_STANDARD_COMPILE_OPTION "-std=c++20")
      set(CMAKE_CUDA20_EXTENSION_COMPILE_OPTION "-std=c++20")
    endif()
    set(CMAKE_CUDA_STANDARD 20)
    find_package(CUDAToolkit REQUIRED)
    set(QUANTA_WITH_CUDA ON)
  elseif(QUANTA_CUDA STREQUAL "ON")
    message(FATAL_ERROR "QUANTA_CUDA=ON but no CUDA compiler (nvcc) was found")
  endif()
endif()

# --- MPI (optional): runs split over several processes, one GPU each (kbe) ---------------------
set(QUANTA_WITH_MPI OFF)
if(NOT QUANTA_MPI STREQUAL "OFF")
  find_package(MPI COMPONENTS C QUIET)
  if(MPI_C_FOUND)
    set(QUANTA_WITH_MPI ON)
  elseif(QUANTA_MPI STREQUAL "ON")
    message(FATAL_ERROR "QUANTA_MPI=ON but MPI was not found (Debian: libopenmpi-dev openmpi-bin)")
  endif()
endif()

# --- NCCL (optional, with CUDA and MPI): device-to-device exchanges between the GPUs of a run -------
set(QUANTA_WITH_NCCL OFF)
if(QUANTA_WITH_CUDA AND QUANTA_WITH_MPI)
  find_path(NCCL_INCLUDE_DIR nccl.h HINTS ${CUDAToolkit_INCLUDE_DIRS})
  find_library(NCCL_LIBRARY nccl HINTS ${CUDAToolkit_LIBRARY_DIR})
  if(NCCL_INCLUDE_DIR AND NCCL_LIBRARY)
    set(QUANTA_WITH_NCCL ON)
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
