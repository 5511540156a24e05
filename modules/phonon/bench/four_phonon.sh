#!/usr/bin/env bash
# Four-phonon scattering of Stillinger-Weber silicon (the force constants of
# modules/phonon/tests/data/si-sw-4ph) at the meshes given: quanta phonon with four_phonon = .true. and the
# iteration off (RTA), one run per mesh; prints the process counts and the four-phonon stage's time from
# quanta's own report.
# Usage: modules/phonon/bench/four_phonon.sh QUANTA BUILD_DIR RESULTS_DIR "cuda|cpu" N [N ...]
#   BUILD_DIR: a configured build tree (its test-data/phonon/si-sw-4ph holds the decompressed inputs).
set -euo pipefail
quanta=$(realpath "$1")
data=$(realpath "$2")/test-data/phonon/si-sw-4ph
results=$3
backend=$4
shift 4
mkdir -p "$results"
for n in "$@"; do
  dir=$results/si-sw-${n}x${n}x${n}-$backend
  rm -rf "$dir"
  mkdir -p "$dir"
  sed -e "s/ngrid(:)=.*/ngrid(:)=$n $n $n/" -e "s/convergence=.*/convergence=.FALSE./" "$data/CONTROL" > "$dir/CONTROL"
  grep -q "convergence" "$dir/CONTROL" || sed -i "s/&flags/\&flags\n\tconvergence=.FALSE./" "$dir/CONTROL"
  for f in FORCE_CONSTANTS_2ND FORCE_CONSTANTS_3RD FORCE_CONSTANTS_4TH; do ln -sf "$data/$f" "$dir/$f"; done
  start=$(date +%s%N)
  "$quanta" phonon "$dir" -o "$dir/out" --backend "$backend" > "$dir/log.txt" 2>&1 || { echo "${n}^3: quanta failed, see $dir/log.txt"; tail -5 "$dir/log.txt"; exit 1; }
  end=$(date +%s%N)
  echo "${n}^3 $backend: $(grep -h 'fourth-order quadruplets' "$dir/log.txt" | sed 's/^\[phonon\] //'); whole run $(awk -v a="$start" -v b="$end" 'BEGIN {printf "%.1f", (b - a) / 1e9}') s"
done
