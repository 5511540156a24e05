#!/usr/bin/env bash
# Four-phonon scattering of Stillinger-Weber silicon (the force constants of
# modules/phonon/tests/data/si-sw-4ph) at the meshes given: quanta phonon with four_phonon = .true. and the
# iteration off (RTA), one run per mode; prints the process counts, the four-phonon stage's time and kappa
# from quanta's own report.
# Usage: [ITERATION=1] [SAMPLES=Ns] [SAMPLES3=Ns] modules/phonon/bench/four_phonon.sh QUANTA BUILD_DIR RESULTS_DIR "cuda|cpu" N [N ...]
#   BUILD_DIR: a configured build tree (its test-data/phonon/si-sw-4ph holds the decompressed inputs).
#   ITERATION=1: the fully iterative solution (convergence and four_phonon_iteration .true.) instead of RTA.
#   SAMPLES=Ns: FourPhonon's sampling estimator, Ns draws per mode and class for the rates and for the phase
#   spaces, the three-phonon part iterated (FourPhonon's sampling example).
#   SAMPLES3=Ns: the same estimator for the three-phonon rates and phase spaces (num_sample_process_3ph*),
#   which makes the solution RTA (FourPhonon's rule).
#   FOUR_PHONON=0: the three-phonon part alone (four_phonon = .false.); with ITERATION=1, ShengBTE's
#   iterative solution.
#   QUANTA may be a launcher script (mpirun ... quanta "$@") for runs over several processes; the stages'
#   notes (how the modes were dealt, each rank's busy time) and their times are printed.
set -euo pipefail
quanta=$(realpath "$1")
data=$(realpath "$2")/test-data/phonon/si-sw-4ph
results=$3
backend=$4
shift 4
mkdir -p "$results"
converge=.FALSE.
if [ "${ITERATION:-0}" = 1 ] || [ -n "${SAMPLES:-}" ]; then converge=.TRUE.; fi
if [ -n "${SAMPLES3:-}" ]; then converge=.FALSE.; fi
for n in "$@"; do
  dir=$results/si-sw-${n}x${n}x${n}-$backend
  rm -rf "$dir"
  mkdir -p "$dir"
  sed -e "s/ngrid(:)=.*/ngrid(:)=$n $n $n/" -e "s/convergence=.*/convergence=$converge/" "$data/CONTROL" > "$dir/CONTROL"
  grep -q "convergence" "$dir/CONTROL" || sed -i "s/&flags/\&flags\n\tconvergence=$converge/" "$dir/CONTROL"
  if [ "${FOUR_PHONON:-1}" = 0 ]; then
    sed -i -e "s/four_phonon=.*/four_phonon=.FALSE./" -e "/four_phonon_iteration=/d" "$dir/CONTROL"
  elif [ "${ITERATION:-0}" = 1 ]; then
    sed -i "s/four_phonon_iteration=.*/four_phonon_iteration=.TRUE./" "$dir/CONTROL"
  fi
  if [ -n "${SAMPLES:-}" ]; then
    sed -i "s/&parameters/\&parameters\n\tnum_sample_process_4ph=$SAMPLES\n\tnum_sample_process_4ph_phase_space=$SAMPLES/" "$dir/CONTROL"
  fi
  if [ -n "${SAMPLES3:-}" ]; then
    sed -i "s/&parameters/\&parameters\n\tnum_sample_process_3ph=$SAMPLES3\n\tnum_sample_process_3ph_phase_space=$SAMPLES3/" "$dir/CONTROL"
  fi
  for f in FORCE_CONSTANTS_2ND FORCE_CONSTANTS_3RD FORCE_CONSTANTS_4TH; do ln -sf "$data/$f" "$dir/$f"; done
  start=$(date +%s%N)
  "$quanta" phonon "$dir" -o "$dir/out" --backend "$backend" > "$dir/log.txt" 2>&1 || { echo "${n}^3: quanta failed, see $dir/log.txt"; tail -5 "$dir/log.txt"; exit 1; }
  end=$(date +%s%N)
  echo "${n}^3 $backend: $(grep -h 'fourth-order quadruplets' "$dir/log.txt" | sed 's/^\[phonon\] //'); whole run $(awk -v a="$start" -v b="$end" 'BEGIN {printf "%.1f", (b - a) / 1e9}') s"
  grep -h "anharmonic triplets\|stage over\|stage times\|kappa RTA" "$dir/log.txt" | sed 's/^\[phonon\] /  /'
done
