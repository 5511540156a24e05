#!/usr/bin/env bash
# Scaling of `quanta kbe` over MPI processes (k-split, src/distribution.hpp), one GPU each.
# Usage:
#   modules/kbe/bench/scaling.sh QUANTA RESULTS_DIR "NAME NK STEPS RANKS" ...
# Each case runs the seed-sized example (examples/kbe/seed-1024/config.toml) with nk and steps replaced
# and checkpoints off, on RANKS processes with --backend cuda (BACKEND=cpu to change), and prints one line:
# propagation seconds, the root's seconds in the self-energy row transpositions (MPI and host<->device
# copies) and in its pairs' self-energy, and the largest device memory in use on any GPU (nvidia-smi,
# sampled every 200 ms). Logs and outputs go to RESULTS_DIR/NAME/.
set -uo pipefail
quanta=$(realpath "$1")
results=$2
shift 2
here=$(cd "$(dirname "$0")/../../.." && pwd)
seed=$here/examples/kbe/seed-1024/config.toml
backend=${BACKEND:-cuda}
case_timeout=${CASE_TIMEOUT:-300}
cores=$(nproc)
mkdir -p "$results"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

printf "%-14s %6s %6s %5s %8s %10s %11s %10s %9s %6s\n" case nk steps ranks passes prop_s transpose_s pairs_s gpu_mem_GiB rc
for spec in "$@"; do
  read -r name nk steps ranks <<<"$spec"
  dir=$results/$name
  rm -rf "$dir"
  mkdir -p "$dir"
  sed -e "s/^nk = .*/nk = $nk/" -e "s/^steps = .*/steps = $steps/" -e "s/^checkpoint_every = .*/checkpoint_every = 0/" "$seed" >"$dir/config.toml"
  threads=$(( cores / ranks ))
  sampler=""
  if command -v nvidia-smi >/dev/null; then
    nvidia-smi --query-gpu=index,memory.used --format=csv,noheader,nounits -lms 200 >"$dir/gpu_memory.csv" 2>/dev/null &
    sampler=$!
  fi
  launcher=()
  [ "$ranks" -gt 1 ] && launcher=(mpirun --oversubscribe --bind-to none -np "$ranks" -x OMP_NUM_THREADS="$threads")
  timeout "$case_timeout" "${launcher[@]}" "$quanta" kbe "$dir/config.toml" -o "$dir" --backend "$backend" --threads "$threads" \
    >"$dir/log.txt" 2>&1
  rc=$?
  [ -n "$sampler" ] && kill "$sampler" 2>/dev/null
  t() { grep "^# time $1:" "$dir/quanta-kbe.txt" 2>/dev/null | awk '{print $(NF-1)}'; }
  passes=$(awk '!/^#/ && NF > 3 {s += $NF; n++} END {if (n) printf "%.2f", s / n}' "$dir/quanta-kbe.txt" 2>/dev/null)
  mem=$( [ -s "$dir/gpu_memory.csv" ] && awk -F, '{if ($2 > m) m = $2} END {printf "%.1f", m / 1024}' "$dir/gpu_memory.csv")
  printf "%-14s %6s %6s %5s %8s %10s %11s %10s %9s %6s\n" "$name" "$nk" "$steps" "$ranks" "${passes:--}" "$(t propagation)" \
    "$(t propagation_transpose)" "$(t propagation_pair_self_energy)" "${mem:--}" "$rc"
done
