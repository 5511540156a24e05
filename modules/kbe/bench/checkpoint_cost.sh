#!/usr/bin/env bash
# What checkpoints cost: one config run twice, with output.checkpoint_every = EVERY and with checkpoints
# off, and both propagation times printed with their ratio, the time the propagation waited for the
# checkpoint writer and the writer's own time (quanta-kbe.txt "# time" lines).
# Usage:
#   modules/kbe/bench/checkpoint_cost.sh QUANTA [CONFIG] [EVERY] [RESULTS_DIR] [-- quanta kbe options...]
# Defaults: examples/kbe/seed-1024/config.toml, EVERY = 50, RESULTS_DIR = ./kbe-checkpoint-cost; options
# default to "--backend cuda". The checkpoint of the seed problem grows to the whole half-plane (16.5 GB):
# RESULTS_DIR needs that much free disk.
set -euo pipefail
quanta=$(realpath "$1")
here=$(cd "$(dirname "$0")/../../.." && pwd)
config=${2:-$here/examples/kbe/seed-1024/config.toml}
every=${3:-50}
results=${4:-./kbe-checkpoint-cost}
shift $(( $# < 4 ? $# : 4 ))
[ "${1:-}" = "--" ] && shift
options=("$@")
[ ${#options[@]} -eq 0 ] && options=(--backend cuda)
mkdir -p "$results"

t() { grep "^# time $2:" "$1/quanta-kbe.txt" 2>/dev/null | awk '{print $(NF-1)}'; }
for case in off on; do
  dir=$results/$case
  rm -rf "$dir"
  mkdir -p "$dir"
  n=0
  [ "$case" = on ] && n=$every
  sed -e "s/^checkpoint_every = .*/checkpoint_every = $n/" "$config" >"$dir/config.toml"
  grep -q "^checkpoint_every" "$dir/config.toml" || printf '\n[output]\ncheckpoint_every = %s\n' "$n" >>"$dir/config.toml"
  "$quanta" kbe "$dir/config.toml" -o "$dir" "${options[@]}" >"$dir/log.txt" 2>&1 || { echo "$case: quanta failed, see $dir/log.txt"; exit 1; }
done
off=$(t "$results/off" propagation)
on=$(t "$results/on" propagation)
printf "checkpoints off:            propagation %8.2f s\n" "$off"
printf "checkpoint_every = %-6s  propagation %8.2f s  (waited for the writer %.2f s; writer thread %.2f s)\n" "$every" "$on" \
  "$(t "$results/on" checkpoint_wait)" "$(t "$results/on" checkpoint_write)"
awk -v a="$on" -v b="$off" 'BEGIN {printf "cost of the checkpoints: %+.1f %% of the run without them\n", 100 * (a - b) / b}'
