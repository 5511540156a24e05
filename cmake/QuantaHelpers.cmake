# quanta_add_test(NAME name SOURCES ... LIBS ... [LABELS ...])
# A GoogleTest executable registered with CTest. Tests run from the build tree; they find their data
# through QUANTA_TEST_DATA_DIR (quanta::test::data_path, staged by quanta_stage_test_data) and the
# repository through QUANTA_SOURCE_DIR. Their main() exits 77 when every test skipped itself (no GPU,
# no MPI launcher), which CTest reports as skipped.
set(QUANTA_TEST_DATA_DIR "${PROJECT_BINARY_DIR}/test-data")
function(quanta_add_test)
  cmake_parse_arguments(T "" "NAME" "SOURCES;LIBS;LABELS" ${ARGN})
  add_executable(${T_NAME} ${T_SOURCES})
  target_link_libraries(${T_NAME} PRIVATE ${T_LIBS} quanta_test_main)
  target_compile_definitions(${T_NAME} PRIVATE
    QUANTA_SOURCE_DIR="${PROJECT_SOURCE_DIR}" QUANTA_TEST_DATA_DIR="${QUANTA_TEST_DATA_DIR}"
    QUANTA_BINARY="$<TARGET_FILE:quanta>")
  add_test(NAME ${T_NAME} COMMAND ${T_NAME})
  if(T_LABELS)
    set_tests_properties(${T_NAME} PROPERTIES LABELS "${T_LABELS}")
  endif()
  set_tests_properties(${T_NAME} PROPERTIES ENVIRONMENT "OMP_NUM_THREADS=2" SKIP_RETURN_CODE 77)
endfunction()

# quanta_stage_test_data(MODULE): copies modules/<MODULE>/tests/data/ to <build>/test-data/<MODULE>/ at
# configure time, decompressing every *.xz file (name without .xz) and leaving README files behind.
# Re-runs when a data file changes.
function(quanta_stage_test_data module)
  set(src "${PROJECT_SOURCE_DIR}/modules/${module}/tests/data")
  set(dst "${QUANTA_TEST_DATA_DIR}/${module}")
  file(GLOB_RECURSE files RELATIVE "${src}" CONFIGURE_DEPENDS "${src}/*")
  foreach(f ${files})
    get_filename_component(name "${f}" NAME)
    if(name MATCHES "^README")
      continue()
    endif()
    get_filename_component(dir "${dst}/${f}" DIRECTORY)
    file(MAKE_DIRECTORY "${dir}")
    if(f MATCHES "\\.xz$")
      string(REGEX REPLACE "\\.xz$" "" out "${dst}/${f}")
      if(NOT EXISTS "${out}" OR "${src}/${f}" IS_NEWER_THAN "${out}")
        # Through a temporary name: a configure killed mid-way must not leave a cut file that looks staged.
        execute_process(COMMAND xz -dc "${src}/${f}" OUTPUT_FILE "${out}.tmp" RESULT_VARIABLE rc)
        if(NOT rc EQUAL 0)
          file(REMOVE "${out}.tmp")
          message(FATAL_ERROR "cannot decompress ${src}/${f} (xz-utils: scripts/install-deps.sh)")
        endif()
        file(RENAME "${out}.tmp" "${out}")
      endif()
    else()
      configure_file("${src}/${f}" "${dst}/${f}" COPYONLY)
    endif()
  endforeach()
endfunction()

# quanta_add_library(name SOURCES ... CUDA_SOURCES ...): CUDA sources are compiled only when the
# CUDA backend is on; the QUANTA_HAVE_CUDA definition tells host code which backends exist.
function(quanta_add_library name)
  cmake_parse_arguments(L "" "" "SOURCES;CUDA_SOURCES" ${ARGN})
  set(srcs ${L_SOURCES})
  if(QUANTA_WITH_CUDA)
    list(APPEND srcs ${L_CUDA_SOURCES})
  endif()
  add_library(${name} STATIC ${srcs})
  if(QUANTA_WITH_CUDA)
    target_compile_definitions(${name} PUBLIC QUANTA_HAVE_CUDA=1)
    set_target_properties(${name} PROPERTIES CUDA_SEPARABLE_COMPILATION OFF POSITION_INDEPENDENT_CODE ON)
    target_compile_options(${name} PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:--expt-relaxed-constexpr -Xcompiler=-fopenmp>)
  endif()
  target_compile_options(${name} PRIVATE $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic>)
endfunction()

# The Python the plot scripts' tests run with: the system's python3 (where scripts/install-deps.sh puts
# numpy, h5py and matplotlib) before one earlier on PATH that may lack them (a pyenv shim). A test whose
# modules are missing exits 77 and CTest reports it as skipped, so it is never silently left out.
if(NOT Python3_EXECUTABLE AND EXISTS /usr/bin/python3)
  execute_process(COMMAND /usr/bin/python3 -c "import numpy, matplotlib" RESULT_VARIABLE quanta_system_python_rc OUTPUT_QUIET ERROR_QUIET)
  if(quanta_system_python_rc EQUAL 0)
    set(Python3_EXECUTABLE /usr/bin/python3 CACHE FILEPATH "Python for the plot scripts' tests")
  endif()
endif()
find_package(Python3 COMPONENTS Interpreter)

# quanta_add_python_test(NAME name SCRIPT script ARGS ... [LABELS ...]): skipped (77) where Python or the
# script's modules are absent.
function(quanta_add_python_test)
  cmake_parse_arguments(T "" "NAME;SCRIPT" "ARGS;LABELS" ${ARGN})
  if(Python3_Interpreter_FOUND)
    add_test(NAME ${T_NAME} COMMAND ${Python3_EXECUTABLE} ${T_SCRIPT} ${T_ARGS})
  else()
    add_test(NAME ${T_NAME} COMMAND sh -c "echo 'no python3 interpreter: ${T_NAME} skipped'; exit 77")
  endif()
  set_tests_properties(${T_NAME} PROPERTIES LABELS "${T_LABELS}" SKIP_RETURN_CODE 77 ENVIRONMENT "OMP_NUM_THREADS=2")
endfunction()
