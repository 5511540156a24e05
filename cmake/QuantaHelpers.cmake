# quanta_add_test(NAME name SOURCES ... LIBS ... [LABELS ...])
# A GoogleTest executable registered with CTest; tests run from the build tree and find the shared
# references through QUANTA_SHARED_DIR and the repository through QUANTA_SOURCE_DIR.
set(QUANTA_SHARED_DIR "${PROJECT_SOURCE_DIR}/../shared" CACHE PATH "Folder with the peer references (reference/)")
function(quanta_add_test)
  cmake_parse_arguments(T "" "NAME" "SOURCES;LIBS;LABELS" ${ARGN})
  add_executable(${T_NAME} ${T_SOURCES})
  target_link_libraries(${T_NAME} PRIVATE ${T_LIBS} GTest::gtest GTest::gtest_main)
  target_compile_definitions(${T_NAME} PRIVATE
    QUANTA_SOURCE_DIR="${PROJECT_SOURCE_DIR}" QUANTA_SHARED_DIR="${QUANTA_SHARED_DIR}"
    QUANTA_BINARY="$<TARGET_FILE:quanta>")
  add_test(NAME ${T_NAME} COMMAND ${T_NAME})
  if(T_LABELS)
    set_tests_properties(${T_NAME} PROPERTIES LABELS "${T_LABELS}")
  endif()
  set_tests_properties(${T_NAME} PROPERTIES ENVIRONMENT "OMP_NUM_THREADS=2")
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
