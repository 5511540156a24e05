#!/usr/bin/env bash
# A line list of about 1.15e9 transitions written end to end on a GPU host, timed stage by stage: the synthetic levels
# file (make_synthetic_levels), then `quanta linelist --levels ... --backend cuda --trans-split W --def --pf`, the lines
# of the written .trans files counted, the disk's direct-write rate measured with dd, and the large files removed.
# README.md beside this script says what is synthetic and what to expect.
#
# Usage: modules/linelist/bench/synthetic/run_1e9.sh BUILD_DIR OUT_DIR
# Environment (default):
#   DEADLINE_S (540)   wall-clock limit of the whole script; the line list is stopped in time to count and clean up
#   JMAX (20) NVIB (400) LEVELS (6000)   the levels file (make_synthetic_levels --jmax --nvib --levels)
#   WIDTH (500)        cm^-1 per .trans file (--trans-split)
#   BACKEND (cuda)     --backend of the line list
#   DD_GB (4)          size of the dd write test; 0 skips it
#   KEEP (0)           1 keeps the levels file and the .trans files
#   EXTRA ()           more options of the line list, e.g. "--bzip2" (the range files as .trans.bz2: about 14 bytes a
#                      line on disk instead of 61, for a host whose disk cannot take the plain text)
# OUT_DIR/summary.txt holds every figure (key value lines); linelist.log the run's stderr, each line prefixed with the
# seconds since the script started; monitor.txt the bytes of spill and .trans files every 5 s.
set -uo pipefail
export LC_ALL=C
[ $# -eq 2 ] || { sed -n '2,/^set /p' "$0" | sed '$d'; exit 2; }

t0=${EPOCHREALTIME/./}
now() { printf -v "$1" '%d.%01d' $(((${EPOCHREALTIME/./} - t0) / 1000000)) $(((${EPOCHREALTIME/./} - t0) / 100000 % 10)); }
remaining() { echo $((DEADLINE_S - (${EPOCHREALTIME/./} - t0) / 1000000)); }

DEADLINE_S=${DEADLINE_S:-540} JMAX=${JMAX:-20} NVIB=${NVIB:-400} LEVELS=${LEVELS:-6000} WIDTH=${WIDTH:-500}
BACKEND=${BACKEND:-cuda} DD_GB=${DD_GB:-4} KEEP=${KEEP:-0} EXTRA=${EXTRA:-}
bz2=0
[[ " $EXTRA " == *" --bzip2 "* ]] && bz2=1
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../../../.." && pwd)
build=$(cd "$1" && pwd) || exit 2
mkdir -p "$2" && out=$(cd "$2" && pwd) || exit 2
list=$out/list
summary=$out/summary.txt
gen=$build/modules/linelist/bench/make_synthetic_levels
quanta=$build/apps/quanta/quanta
: >"$summary"
put() { printf '%-26s %s\n' "$1" "$2" | tee -a "$summary"; }
stamp() { local line t; while IFS= read -r line; do now t; printf '%s %s\n' "$t" "$line"; done; }
sum_bytes() { find "$list" -maxdepth 1 -name "$1" -printf '%s\n' 2>/dev/null | awk '{s += $1} END {printf "%.0f\n", s}'; }
used_bytes() { df -B1 --output=used "$out" | tail -1 | tr -d ' '; }

monitor_pid=""
cleanup() {
  [ -n "$monitor_pid" ] && kill "$monitor_pid" 2>/dev/null
  rm -f "$out/dd.tmp"
  if [ "$KEEP" != 1 ]; then
    local t_rm=${EPOCHREALTIME/./}
    rm -rf "$out/levels.h5" "$out/levels.h5.vectors" "$out"/levels.h5.tmp.*
    find "$list" -maxdepth 1 \( -name '*.trans' -o -name '*.trans.bz2' -o -name '*.trans*.tmp.*' -o -name '.*.spill' \) -delete 2>/dev/null
    put cleanup_s "$(((${EPOCHREALTIME/./} - t_rm) / 1000)) ms"
  fi
  local t
  now t
  put elapsed_s "$t"
}
trap cleanup EXIT

# Libraries carried to a host without package access (docs/gpu-host.md).
[ -d "$repo/.deps/root/usr/lib/x86_64-linux-gnu" ] &&
  export LD_LIBRARY_PATH="$repo/.deps/root/usr/lib/x86_64-linux-gnu:$repo/.deps/root/usr/lib/x86_64-linux-gnu/hdf5/serial:${LD_LIBRARY_PATH:-}"

put host "$(hostname) $(nproc) cores, $(free -g | awk '/Mem:/ {print $2}') GiB memory"
put cpu "$(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -1)"
put gpu "$(nvidia-smi --query-gpu=name,memory.total --format=csv,noheader 2>/dev/null | head -1)"
put disk "$(df -h --output=source,size,avail "$out" | tail -1 | awk '{print $1 ", " $2 " in all, " $3 " free"}')"
put parameters "JMAX=$JMAX NVIB=$NVIB LEVELS=$LEVELS WIDTH=$WIDTH BACKEND=$BACKEND DEADLINE_S=$DEADLINE_S EXTRA=$EXTRA"

# 1. The two programs, built if missing (a build made before make_synthetic_levels existed gets it now).
t=${EPOCHREALTIME/./}
targets=""
[ -x "$quanta" ] || targets="quanta"
[ -x "$gen" ] || targets="$targets make_synthetic_levels"
if [ -n "$targets" ]; then
  # shellcheck disable=SC2086  # one word per target
  { cmake -S "$repo" -B "$build" && cmake --build "$build" -j"$(nproc)" --target $targets; } >"$out/build.log" 2>&1 ||
    { put error "build failed: $out/build.log"; exit 1; }
fi
put quanta "$("$quanta" --version 2>&1 | head -1)"
put build_s "$(((${EPOCHREALTIME/./} - t) / 1000000))"

# 2. The disk's direct-write rate (no page cache), the floor for the files written below.
if [ "$DD_GB" -gt 0 ]; then
  timeout 120 dd if=/dev/zero of="$out/dd.tmp" bs=16M count=$((DD_GB * 64)) oflag=direct conv=fsync 2>"$out/dd.log"
  put dd_direct_write "$(tail -1 "$out/dd.log")"
  rm -f "$out/dd.tmp"
fi

# 3. The levels file.
sed -E "s/^([[:space:]]*J,[[:space:]]*0,[[:space:]]*)[0-9]+/\1$JMAX/" "$here/synthetic.inp" >"$out/run.inp"
used0=$(used_bytes)
t=${EPOCHREALTIME/./}
[ "$(remaining)" -gt 90 ] || { put error "no time left for the levels file"; exit 1; }
timeout -k 10 $(($(remaining) - 45)) "$gen" -o "$out/levels.h5" --jmax "$JMAX" --nvib "$NVIB" --levels "$LEVELS" >"$out/generate.txt" 2>&1
rc=$?
put generate_s "$(((${EPOCHREALTIME/./} - t) / 1000)) ms (rc $rc)"
[ $rc -eq 0 ] || { put error "make_synthetic_levels failed: $(tail -1 "$out/generate.txt")"; exit 1; }
expected=$(awk '$1 == "expected_transitions" {print $2}' "$out/generate.txt")
put levels "$(awk '$1 == "levels" {print $2}' "$out/generate.txt")"
put expected_transitions "$expected"
put levels_file_bytes "$(awk '$1 == "file_bytes" {print $2}' "$out/generate.txt")"
put generate_rate_GB_s "$(awk '$1 == "rate_GB_per_s" {print $2}' "$out/generate.txt") (vectors $(awk '$1 == "seconds_vectors" {print $2}' "$out/generate.txt") s, levels-file writer $(awk '$1 == "seconds_write" {print $2}' "$out/generate.txt") s)"

# The disk the list needs, refused with the numbers before it starts: 24 bytes a line of spill and 61 of text (about
# 14 with --bzip2; the spill of a range is removed once it is written, so this is an upper bound).
per_line=$((24 + (bz2 ? 14 : 61)))
need=$(awk -v n="$expected" -v b="$per_line" 'BEGIN {printf "%.0f\n", n * b}')
avail=$(df -B1 --output=avail "$out" | tail -1 | tr -d ' ')
put disk_needed_bytes "$need ($per_line bytes a line; $avail free)"
[ "$need" -lt "$avail" ] || { put error "the disk has $avail bytes free, the list needs about $need: use EXTRA=--bzip2, fewer LEVELS or another disk"; exit 1; }

# 4. The line list, stopped 30 s before the deadline; the spill and .trans bytes sampled every 5 s meanwhile.
mkdir -p "$list"
(
  echo "# seconds spill_bytes trans_bytes trans_tmp_bytes disk_used_bytes"
  while :; do
    now t
    echo "$t $(sum_bytes '.*.spill') $(sum_bytes '*.trans*') $(sum_bytes '*.trans*.tmp.*') $(used_bytes)"
    sleep 5
  done
) >"$out/monitor.txt" &
monitor_pid=$!
limit=$(($(remaining) - 30))
put linelist_limit_s "$limit"
t=${EPOCHREALTIME/./}
t_start=""
now t_start
put linelist_started_at_s "$t_start"
timeout -k 15 "$limit" "$quanta" linelist "$out/run.inp" --levels "$out/levels.h5" -o "$list" --backend "$BACKEND" \
  --trans-split "$WIDTH" --def --pf 3000 $EXTRA 2>&1 | stamp >"$out/linelist.log"
rc=${PIPESTATUS[0]}
put linelist_s "$(((${EPOCHREALTIME/./} - t) / 1000)) ms (rc $rc$([ "$rc" -eq 124 ] && echo ', stopped at the deadline'))"
kill "$monitor_pid" 2>/dev/null
monitor_pid=""
put peak_disk_used_bytes "$(awk -v u0="$used0" 'NR > 1 && $5 - u0 > m {m = $5 - u0} END {printf "%.0f\n", m}' "$out/monitor.txt") (above the start of generation)"

# Stage times: the run's own (quanta-linelist.h5, when h5ls is here), and from the stamped log in any case: the levels
# read by the first note, the products and intensities done by the last progress line.
h5=$list/quanta-linelist.h5
timing() {  # a stage time from quanta-linelist.h5, through h5ls or h5py
  if command -v h5ls >/dev/null; then h5ls -d "$h5/metadata/timings/$1" 2>/dev/null | awk 'NR == 3 {print $1}'
  else python3 -c "import h5py, sys; print(float(h5py.File(sys.argv[1])['metadata/timings/' + sys.argv[2]][()]))" "$h5" "$1" 2>/dev/null; fi
}
if [ -f "$h5" ]; then
  for stage in read linestrengths linestrengths_half linestrengths_completion linestrengths_digest linestrengths_set_lower \
    linestrengths_vectors_wait linestrengths_sink_wait trans_split trans_split_spill trans_split_read trans_split_sort trans_split_format trans_split_write trans_split_wait outputs total; do
    put "run_${stage}_s" "$(timing "$stage")"
  done
  split_s=$(timing trans_split)
fi
put log_levels_read_at_s "$(awk '/\[linelist\] [0-9]+ levels/ {print $1; exit}' "$out/linelist.log")"
put log_linestrengths_done_at_s "$(awk '/\[half-linestrengths\].*100.0%/ {t = $1} END {print t}' "$out/linelist.log")"
put log_end_at_s "$(tail -1 "$out/linelist.log" | awk '{print $1}')"
put trans_text_rate "$(awk 'NR > 1 && $3 + $4 > 0 {if (t0 == "") t0 = $1; t = $1; b = $3 + $4}
  END {if (t > t0) printf "%.0f MB/s = %.3g lines/s (from the .trans bytes sampled in monitor.txt)\n", b / (t - t0) / 1e6, b / 61 / (t - t0)}' "$out/monitor.txt")"
put run_report "$(grep 'quanta linelist:' "$out/linelist.log" | tail -1 | cut -d' ' -f2-)"

# 5. The lines written: the .def's count, the .trans bytes (every line is 61 bytes: "%12d %12d  %16.8E %16.6f\n"),
#    and wc -l over the files in parallel while the deadline allows.
put trans_files "$(find "$list" -maxdepth 1 -name '*.trans' -o -maxdepth 1 -name '*.trans.bz2' | wc -l)"
bytes=$(sum_bytes '*.trans')
put trans_bytes "$bytes"
[ "$bz2" = 1 ] && put trans_bz2_bytes "$(sum_bytes '*.trans.bz2')"
[ "$bz2" = 1 ] || put lines_from_bytes "$((bytes / 61)) (remainder $((bytes % 61)))"
put lines_in_def "$(sed -n 's/ *# Total number of transitions//p' "$list"/*.def 2>/dev/null | tr -d ' ')"
if [ "$rc" -ne 0 ]; then
  put spill_bytes_left "$(sum_bytes '.*.spill') ($(($(sum_bytes '.*.spill') / 24)) lines still in spill files; the range being written was in memory)"
  put last_progress "$(grep '\[' "$out/linelist.log" | tail -1)"
fi
if [ "$(remaining)" -gt 20 ]; then
  t=${EPOCHREALTIME/./}
  if [ "$bz2" = 1 ]; then  # each file decompressed and counted on a core of its own
    find "$list" -maxdepth 1 -name '*.trans.bz2' -print0 |
      timeout $(($(remaining) - 15)) xargs -0 -r -P "$(nproc)" -I{} sh -c 'bzcat "$1" | wc -l' sh {} >"$out/wc.txt"
  else
    find "$list" -maxdepth 1 -name '*.trans' -print0 |
      timeout $(($(remaining) - 15)) xargs -0 -r -P "$(nproc)" -n 1 wc -l >"$out/wc.txt"
  fi
  wrc=${PIPESTATUS[1]}
  put lines_wc "$(awk '{s += $1} END {printf "%.0f\n", s}' "$out/wc.txt") ($([ "$wrc" -eq 0 ] && echo complete || echo "stopped at the deadline"), $(((${EPOCHREALTIME/./} - t) / 1000)) ms)"
fi
[ -n "${split_s:-}" ] && [ "$bz2" = 0 ] && [ "$bytes" -gt 0 ] && awk -v b="$bytes" -v s="$split_s" 'BEGIN {printf "%-26s %.3f us per line (%.3g lines/s)\n", "trans_split_per_line", s / (b / 61) * 1e6, b / 61 / s}' | tee -a "$summary"
[ "$rc" -eq 0 ] && [ "$bz2" = 0 ] && [ -n "$expected" ] && put lines_expected_minus_written "$((expected - bytes / 61)) (lines with A <= 2.2e-16 1/s, which the .trans leaves out)"
exit "$rc"
