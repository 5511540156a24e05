#!/usr/bin/env bash
# Builds quanta with the CUDA backend on a GPU host that has no package access, runs the whole test
# suite on the GPU and then the benchmarks with their default arguments (QUANTA_BENCH=0 skips them).
# Usage:
#   [QUANTA_BENCH=0] [QUANTA_BUILD_ONLY=1] [QUANTA_CTEST_ARGS="-L gpu"] scripts/gpu-host-build.sh [RESULTS_DIR]
# QUANTA_BUILD_ONLY=1 stops after the build; QUANTA_BUILD_TARGETS="a b" builds only those targets (default: all);
# QUANTA_CTEST_ARGS selects the tests (default: all); QUANTA_CMAKE_ARGS="-DX=Y ..." adds cmake options (e.g.
# "-DCMAKE_CUDA_FLAGS=-lineinfo" for ncu's source view), split at spaces (an option's value cannot hold one) and
# kept in build-gpu's cache afterwards, as cmake keeps every -D (remove build-gpu to drop them).
# QUANTA_SANITIZE=1 builds the CPU backend under AddressSanitizer and UBSan instead (build-asan).
# Libraries missing on the host (spglib, CLI11, toml++, FFTW, GoogleTest, benchmark, HDF5, LAPACKE) are taken
# from Debian packages downloaded beforehand into .deps/debs by scripts/gpu-host-carry.sh and unpacked
# into .deps/root; spglib is optional in any case (quanta falls back to its built-in symmetry finder).
set -uo pipefail
cd "$(dirname "$0")/.."
results=${1:-results}
mkdir -p "$results"
root=$PWD/.deps/root
jobs=$(nproc)

have_header() { echo "#include <$1>" | g++ -std=c++20 -E -x c++ - ${extra_inc:-} >/dev/null 2>&1; }
unpack() { for p in "$@"; do for f in .deps/debs/${p}_*.deb; do [ -f "$f" ] && dpkg -x "$f" "$root"; done; done; }

extra_inc=""
mkdir -p "$root"
have_header CLI/CLI.hpp || { echo "host lacks CLI11: unpacking carried package"; unpack libcli11-dev; }
have_header spglib.h || { echo "host lacks spglib: unpacking carried package"; unpack libsymspg-dev libsymspg1; }
have_header gtest/gtest.h || { echo "host lacks GoogleTest: unpacking carried package"; unpack libgtest-dev libgmock-dev; }
have_header benchmark/benchmark.h || { echo "host lacks benchmark: unpacking carried package"; unpack libbenchmark-dev libbenchmark1debian; }
have_header toml++/toml.hpp || { echo "host lacks toml++: unpacking carried packages"; unpack libtomlplusplus-dev libtomlplusplus3; }
have_header bzlib.h || { echo "host lacks bzip2's header: unpacking carried packages"; unpack libbz2-dev libbz2-1.0; }
have_header fftw3.h || { echo "host lacks FFTW: unpacking carried packages"; unpack libfftw3-dev libfftw3-double3; }
have_header lapacke.h || { echo "host lacks LAPACKE: unpacking carried packages"; unpack liblapacke liblapacke-dev libtmglib3 libgfortran5 liblapack3 libblas3 libopenblas-dev libopenblas0-pthread libopenblas-pthread-dev libopenblas0; }
if ! have_header hdf5.h && ! have_header hdf5/serial/hdf5.h; then
  echo "host lacks HDF5: unpacking carried packages"; unpack libhdf5-dev libhdf5-103-1 libhdf5-hl-100 libsz2 libaec0 libaec-dev
fi
export CMAKE_PREFIX_PATH="$root/usr:${CMAKE_PREFIX_PATH:-}"
export CPATH="$root/usr/include:$root/usr/include/hdf5/serial:${CPATH:-}"
export LIBRARY_PATH="$root/usr/lib/x86_64-linux-gnu:$root/usr/lib/x86_64-linux-gnu/hdf5/serial:${LIBRARY_PATH:-}"
export LD_LIBRARY_PATH="$root/usr/lib/x86_64-linux-gnu:$root/usr/lib/x86_64-linux-gnu/hdf5/serial:${LD_LIBRARY_PATH:-}"

nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee "$results/gpu.txt"
# The tests' reference data are in the repository (modules/*/tests/data), staged by cmake.
build=build-gpu
backend_args=(-DCMAKE_BUILD_TYPE=Release -DQUANTA_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90)
if [ "${QUANTA_SANITIZE:-0}" = 1 ]; then
  build=build-asan
  backend_args=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DQUANTA_CUDA=OFF -DQUANTA_MPI=OFF
                "-DCMAKE_CXX_FLAGS=-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
                "-DCMAKE_EXE_LINKER_FLAGS=-fsanitize=address,undefined")
  export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}
fi
# shellcheck disable=SC2086
cmake -S . -B "$build" "${backend_args[@]}" ${QUANTA_CMAKE_ARGS:-} \
      -DCMAKE_INCLUDE_PATH="$root/usr/include" -DCMAKE_LIBRARY_PATH="$root/usr/lib/x86_64-linux-gnu" \
      >"$results/configure.log" 2>&1 || { tail -40 "$results/configure.log"; exit 1; }
# shellcheck disable=SC2086
cmake --build "$build" -j "$jobs" ${QUANTA_BUILD_TARGETS:+--target $QUANTA_BUILD_TARGETS} >"$results/build.log" 2>&1 ||
  { grep -E "error|Error" "$results/build.log" | head -40; exit 1; }
"$build"/apps/quanta/quanta info | tee "$results/info.txt"
[ "${QUANTA_BUILD_ONLY:-0}" = 1 ] && exit 0
# shellcheck disable=SC2086
ctest --test-dir "$build" --output-on-failure -j 4 ${QUANTA_CTEST_ARGS:-} >"$results/ctest.log" 2>&1
ctest_rc=$?
tail -25 "$results/ctest.log"
[ "${QUANTA_BENCH:-1}" = 0 ] && exit $ctest_rc
for b in "$build"/modules/*/bench/bench_*; do
  [ -x "$b" ] || continue
  echo "== $b"
  "$b" --out "$results/$(basename "$b").json" 2>&1 | tee -a "$results/bench.log"
done
exit $ctest_rc
