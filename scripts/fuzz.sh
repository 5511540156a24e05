#!/usr/bin/env bash
# Builds and runs the libFuzzer targets of tests/fuzz/ (one per reader of the users' formats).
#
#   scripts/fuzz.sh [--seconds N] [--jobs J] [--build-dir DIR] [--out DIR] [--parallel] [--keep-going] [--keep-corpus] [TARGET...]
#   scripts/fuzz.sh --build-only [--build-dir DIR] [--bin-dir DIR]
#   scripts/fuzz.sh --run-only --bin-dir DIR [--seconds N] [--out DIR] [--parallel] [TARGET...]
#
# Default: configure (clang, -DQUANTA_FUZZ=ON, ASan+UBSan+libFuzzer instrumentation) and build the
# targets in DIR (build-fuzz) when needed, then run each target for N seconds (20) on a working copy of
# its corpus: tests/fuzz/corpus/<target>/seeds/ plus the matching files of examples/ and
# modules/*/tests/data/ (at most QUANTA_FUZZ_MAX_SEED_KB, 256 KiB, each). Prints, per target, the runs,
# the seconds and the crashes; exits 1 when any target crashed, hung or ran out of memory (the inputs are
# kept under OUT/<target>/artifacts/, the log in OUT/<target>/fuzz.log).
#   --jobs J        libFuzzer processes per target (-fork=J); default 1
#   --seed S        libFuzzer's random seed (0, the default: a new one each run); CI fixes it, so that its
#                   short pass explores the same inputs on every run
#   --parallel      run the targets side by side instead of one after the other
#   --keep-going    do not stop at the first crash of a target: collect every crashing input (fork mode)
#   --out DIR       where the crashing inputs and logs go (default DIR/fuzz-runs)
#   --keep-corpus   keep each target's grown working corpus in OUT/<target>/corpus (removed otherwise)
#   --build-only    build, then gather the binaries, the shared libraries they need (lib/, found through
#                   their RPATH $ORIGIN/lib) and the seed corpora into --bin-dir (default DIR/fuzz-bin),
#                   and a .tar.gz of it, to carry to a host without clang
#   Before fuzzing, each target replays the inputs of tests/fuzz/regressions/<target>/ (once crashing).
#   --run-only      run the binaries of --bin-dir without building (seeds from BIN/corpus when present)
# Without clang's libFuzzer runtime it prints "fuzz: skipped (clang's libFuzzer runtime not found)" and
# exits 0. QUANTA_FUZZ_BUILD_JOBS (2) sets the build's parallelism.
set -euo pipefail

ALL_TARGETS=(namelist control phonopy_fc2 fc3 fc4 espresso_ifc2 kbe_config mosfet_config trove_input
             trove_checkpoints levels_h5 exocross bgw_input bgw_binary)

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
seconds=20
jobs=1
seed=0
build_dir="$repo/build-fuzz"
bin_dir=""
out_dir=""
mode=all
parallel=0
keep_going=0
keep_corpus=0
targets=()

usage() { awk 'NR > 1 && !/^#/ {exit} NR > 1 {sub(/^# ?/, ""); print}' "${BASH_SOURCE[0]}"; }
while (($#)); do
  case "$1" in
    --seconds) seconds=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    --seed) seed=$2; shift 2 ;;
    --build-dir) build_dir=$2; shift 2 ;;
    --bin-dir) bin_dir=$2; shift 2 ;;
    --out) out_dir=$2; shift 2 ;;
    --build-only) mode=build; shift ;;
    --run-only) mode=run; shift ;;
    --parallel) parallel=1; shift ;;
    --keep-going) keep_going=1; shift ;;
    --keep-corpus) keep_corpus=1; shift ;;
    -h|--help) usage; exit 0 ;;
    -*) echo "fuzz: unknown option $1" >&2; usage >&2; exit 2 ;;
    *) targets+=("$1"); shift ;;
  esac
done
((${#targets[@]})) || targets=("${ALL_TARGETS[@]}")
for t in "${targets[@]}"; do
  [[ " ${ALL_TARGETS[*]} " == *" $t "* ]] || { echo "fuzz: unknown target '$t' (targets: ${ALL_TARGETS[*]})" >&2; exit 2; }
done
[[ "$build_dir" = /* ]] || build_dir="$PWD/$build_dir"
[[ -z "$bin_dir" || "$bin_dir" = /* ]] || bin_dir="$PWD/$bin_dir"
[[ -z "$out_dir" || "$out_dir" = /* ]] || out_dir="$PWD/$out_dir"
: "${out_dir:=$build_dir/fuzz-runs}"

# --- build ---------------------------------------------------------------------------------------
have_libfuzzer() {
  command -v clang++ >/dev/null 2>&1 || return 1
  local tmp rc=0
  tmp=$(mktemp -d)
  printf 'extern "C" int LLVMFuzzerTestOneInput(const unsigned char*, unsigned long) { return 0; }\n' > "$tmp/t.cpp"
  clang++ -fsanitize=fuzzer,address,undefined "$tmp/t.cpp" -o "$tmp/t" >/dev/null 2>&1 || rc=1
  rm -rf "$tmp"
  return $rc
}

build() {
  local flags="-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer -g -O1"
  if ! grep -qs '^QUANTA_FUZZ:BOOL=ON' "$build_dir/CMakeCache.txt"; then
    local launcher=()
    if command -v ccache >/dev/null 2>&1; then
      launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
    fi
    local gen=()
    command -v ninja >/dev/null 2>&1 && gen=(-G Ninja)
    CC=clang CXX=clang++ cmake -S "$repo" -B "$build_dir" "${gen[@]}" "${launcher[@]}" \
      -DQUANTA_FUZZ=ON -DQUANTA_CUDA=OFF -DQUANTA_MPI=OFF -DQUANTA_BUILD_TESTS=OFF -DQUANTA_BUILD_BENCH=OFF \
      -DCMAKE_BUILD_TYPE=Debug "-DCMAKE_CXX_FLAGS=$flags" "-DCMAKE_C_FLAGS=$flags" >/dev/null
  fi
  cmake --build "$build_dir" --parallel "${QUANTA_FUZZ_BUILD_JOBS:-2}" --target quanta_fuzz_targets
}

# Shared libraries a binary needs beyond the C library's own and the loader.
carried_libs() {
  ldd "$1" | awk '$2 == "=>" && $3 ~ /^\// {print $3}' |
    grep -Ev '/(libc|libm|libdl|librt|libpthread|libresolv|libutil|libstdc\+\+|libgcc_s|ld-linux[^/]*)\.so' || true
}

gather() {
  : "${bin_dir:=$build_dir/fuzz-bin}"
  mkdir -p "$bin_dir/lib" "$bin_dir/corpus"
  local t lib
  for t in "${ALL_TARGETS[@]}"; do
    cp "$build_dir/tests/fuzz/fuzz_$t" "$bin_dir/"
    for lib in $(carried_libs "$build_dir/tests/fuzz/fuzz_$t"); do
      cp -L "$lib" "$bin_dir/lib/"
    done
    rm -rf "$bin_dir/corpus/$t"
    mkdir -p "$bin_dir/corpus/$t/seeds"
    collect_seeds "$t" "$bin_dir/corpus/$t/seeds"
    if [[ -d "$repo/tests/fuzz/regressions/$t" ]]; then
      mkdir -p "$bin_dir/regressions/$t"
      cp "$repo/tests/fuzz/regressions/$t"/* "$bin_dir/regressions/$t/"
    fi
  done
  cp "${BASH_SOURCE[0]}" "$bin_dir/fuzz.sh"
  cp "$repo/tests/fuzz/lsan.supp" "$bin_dir/lsan.supp"
  tar czf "$bin_dir.tar.gz" -C "$(dirname "$bin_dir")" "$(basename "$bin_dir")"
  echo "fuzz: binaries, lib/ and corpus/ in $bin_dir (and $bin_dir.tar.gz, $(du -h "$bin_dir.tar.gz" | cut -f1))"
  echo "fuzz: run them with: $bin_dir/fuzz.sh --run-only --bin-dir $bin_dir --seconds N [--parallel] [--out DIR]"
}

# --- seeds ---------------------------------------------------------------------------------------
# Files of examples/ and modules/*/tests/data/ that are inputs of the target's reader.
matching_files() {
  local t=$1 roots=()
  [[ -d "$repo/examples" ]] && roots+=("$repo/examples")
  local d
  for d in "$repo"/modules/*/tests/data; do [[ -d "$d" ]] && roots+=("$d"); done
  ((${#roots[@]})) || return 0
  local max_kb=${QUANTA_FUZZ_MAX_SEED_KB:-256}
  local expr=()
  case $t in
    namelist|control) expr=(-name 'CONTROL*') ;;
    phonopy_fc2) expr=(-name 'FORCE_CONSTANTS_2ND*') ;;
    fc3) expr=(-name 'FORCE_CONSTANTS_3RD*') ;;
    fc4) expr=(-name 'FORCE_CONSTANTS_4TH*') ;;
    espresso_ifc2) expr=(-name '*.ifc2') ;;
    kbe_config) expr=(-path '*/kbe/*' -name '*.toml') ;;
    mosfet_config) expr=(-path '*/mosfet/*' -name '*.toml') ;;
    trove_input) expr=(-path '*/linelist/*' -name '*.inp') ;;
    trove_checkpoints) expr=(-path '*/linelist/*' -name '*.chk') ;;
    levels_h5) expr=(-path '*/linelist/*' -name '*.h5') ;;
    exocross) expr=(-path '*/exocross-ref/*' '(' -name '*.inp' -o -name '*.broad' ')') ;;
    bgw_input) expr=(-path '*/gw/*' '(' -name '*epsilon*.inp' -o -name '*sigma*.inp' -o -name 'vxc*.dat' ')') ;;
    bgw_binary) expr=(-path '*/gw/*' '(' -name '*WFN*' -o -name '*RHO*' -o -name '*VXC*' ')') ;;
  esac
  find "${roots[@]}" -type f "${expr[@]}" ! -name 'README*' ! -name '*.md' ! -name '*.xz' -size -"$((max_kb + 1))"k 2>/dev/null || true
}

# Copies the target's seeds into DEST: the repository's (or the carried) seeds, then the matching files.
collect_seeds() {
  local t=$1 dest=$2 src f
  if [[ "$mode" == run && -d "$bin_dir/corpus/$t/seeds" ]]; then src="$bin_dir/corpus/$t/seeds"
  else src="$repo/tests/fuzz/corpus/$t/seeds"; fi
  [[ -d "$src" && "$src" != "$dest" ]] && cp -p "$src"/* "$dest"/ 2>/dev/null || true
  [[ "$mode" == run && -d "$bin_dir/corpus/$t/seeds" ]] && return 0
  while IFS= read -r f; do
    [[ -n "$f" ]] || continue
    cp -p "$f" "$dest/$(echo "${f#"$repo"/}" | tr '/' '_')"
  done < <(matching_files "$t")
}

# --- run -----------------------------------------------------------------------------------------
lsan_suppressions() {
  if [[ "$mode" == run && -f "$bin_dir/lsan.supp" ]]; then echo "$bin_dir/lsan.supp"; else echo "$repo/tests/fuzz/lsan.supp"; fi
}

binary_of() {
  if [[ "$mode" == run ]]; then echo "$bin_dir/fuzz_$1"; else echo "$build_dir/tests/fuzz/fuzz_$1"; fi
}

run_target() {
  local t=$1 bin work
  bin=$(binary_of "$t")
  work="$out_dir/$t"
  rm -rf "$work"
  mkdir -p "$work/corpus" "$work/artifacts" "$work/tmp"
  collect_seeds "$t" "$work/corpus"
  local args=(-max_total_time="$seconds" -rss_limit_mb=2048 -malloc_limit_mb=2048 -timeout=10
              -artifact_prefix="$work/artifacts/" -print_final_stats=1)
  ((seed)) && args+=(-seed="$seed")
  # The HDF5 library leaks on most corrupt files (suppressed in lsan.supp); checking every input for
  # leaks would then symbolize a stack per input and slow these targets fifty-fold. Their leaks are
  # still checked once, at exit.
  case $t in levels_h5|bgw_binary) args+=(-detect_leaks=0) ;; esac
  local asan_default="abort_on_error=1:detect_leaks=1:allocator_may_return_null=0"
  # HDF5 sizes some of its metadata reads from the file: a corrupt object header asks malloc for
  # petabytes. In a real run malloc returns NULL and HDF5 reports an error (which quanta turns into
  # one naming the file), so these targets let malloc fail the same way; operator new still throws,
  # so an oversized allocation of quanta's own is still caught as a bug. Beyond 2 GiB (the bound for
  # every target) malloc fails at once: the process that checks an HDF5 file first (check_hdf5_file)
  # has no libFuzzer to stop it, and ASan would otherwise fill such a block page by page (seconds).
  case $t in levels_h5|bgw_binary)
    asan_default="${asan_default/allocator_may_return_null=0/allocator_may_return_null=1}:max_allocation_size_mb=2048" ;;
  esac
  if ((keep_going)); then
    args+=(-fork="$jobs" -ignore_crashes=1 -ignore_ooms=1 -ignore_timeouts=1)
  elif ((jobs > 1)); then
    args+=(-fork="$jobs")
  fi
  local start end rc=0
  start=$(date +%s)
  # First the inputs that once crashed this reader (tests/fuzz/regressions/<target>/): each must now be
  # refused cleanly.
  local regressions="$repo/tests/fuzz/regressions/$t"
  [[ "$mode" == run && -d "$bin_dir/regressions/$t" ]] && regressions="$bin_dir/regressions/$t"
  if [[ -d "$regressions" ]] && compgen -G "$regressions/*" > /dev/null; then
    if ! QUANTA_FUZZ_TMP="$work/tmp" OMP_NUM_THREADS=1 \
        ASAN_OPTIONS="${ASAN_OPTIONS:-$asan_default}" \
        UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}" \
        LSAN_OPTIONS="${LSAN_OPTIONS:-suppressions=$(lsan_suppressions)}" \
        timeout -k 10 120 "$bin" -rss_limit_mb=2048 -malloc_limit_mb=2048 -timeout=10 "$regressions"/* > "$work/regressions.log" 2>&1; then
      printf 'fuzz: %-18s a saved regression input crashes it again (log %s)\n' "$t" "$work/regressions.log" | tee "$work/summary"
      return 1
    fi
  fi
  QUANTA_FUZZ_TMP="$work/tmp" OMP_NUM_THREADS=1 \
    ASAN_OPTIONS="${ASAN_OPTIONS:-$asan_default}" \
    UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}" \
    LSAN_OPTIONS="${LSAN_OPTIONS:-suppressions=$(lsan_suppressions)}" \
    timeout -k 10 "$((seconds + 60))" "$bin" "${args[@]}" "$work/corpus" > "$work/fuzz.log" 2>&1 || rc=$?
  end=$(date +%s)
  rm -rf "$work/tmp"
  ((keep_corpus)) || rm -rf "$work/corpus"
  local runs crashes
  runs=$({ grep -Eo 'stat::number_of_executed_units: [0-9]+' "$work/fuzz.log" || true; } | awk '{s += $2} END {print s + 0}')
  if [[ "$runs" == 0 ]]; then
    runs=$({ grep -Eo '^#[0-9]+' "$work/fuzz.log" || true; } | tail -1 | tr -d '#')
    runs=${runs:-0}
  fi
  crashes=$(find "$work/artifacts" -type f \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' -o -name 'oom-*' \) | wc -l)
  # libFuzzer's fork mode lets its last job finish after -max_total_time; the guard above stops it
  # 60 s later, which is not a crash.
  if ((rc == 124 || rc == 137)) && ((crashes == 0)); then
    echo "fuzz: $t: stopped by the time guard after $((seconds + 60)) s" >> "$work/fuzz.log"
    rc=0
  fi
  if ((rc != 0 && crashes == 0)); then crashes=1; fi
  printf 'fuzz: %-18s runs %10s  seconds %4s  crashes %s\n' "$t" "$runs" "$((end - start))" "$crashes" | tee "$work/summary"
  if ((crashes > 0)); then
    echo "fuzz: $t: inputs in $work/artifacts/, log $work/fuzz.log" | tee -a "$work/summary"
    return 1
  fi
  return 0
}

run_all() {
  local t failed=0
  for t in "${targets[@]}"; do
    [[ -x "$(binary_of "$t")" ]] || { echo "fuzz: $(binary_of "$t") missing (build first)" >&2; exit 2; }
  done
  mkdir -p "$out_dir"
  if ((parallel)); then
    local pids=()
    for t in "${targets[@]}"; do
      run_target "$t" > /dev/null 2>&1 &
      pids+=($!)
    done
    for i in "${!pids[@]}"; do wait "${pids[$i]}" || failed=1; done
    for t in "${targets[@]}"; do cat "$out_dir/$t/summary"; done
  else
    for t in "${targets[@]}"; do run_target "$t" || failed=1; done
  fi
  if ((failed)); then
    echo "fuzz: FAILED (crashing inputs under $out_dir/<target>/artifacts/)"
    return 1
  fi
  echo "fuzz: ${#targets[@]} targets, no crash"
}

case $mode in
  run)
    [[ -n "$bin_dir" ]] || { echo "fuzz: --run-only needs --bin-dir DIR" >&2; exit 2; }
    run_all ;;
  build)
    have_libfuzzer || { echo "fuzz: skipped (clang's libFuzzer runtime not found)"; exit 0; }
    build
    gather ;;
  all)
    have_libfuzzer || { echo "fuzz: skipped (clang's libFuzzer runtime not found)"; exit 0; }
    build
    run_all ;;
esac
