#!/usr/bin/env bash
# BerkeleyGW's silicon example from Complex-flavour mean-field files: reruns the example's Quantum ESPRESSO
# chain (mean-field/*/pw.in, pw2bgw.in) with real_or_complex = 2 in a scratch folder, then runs
# gw_silicon_test on those files against BerkeleyGW's outputs (made from Real-flavour files: the physics
# is the same, so the same tolerances apply). Needs pw.x and pw2bgw.x (scripts/install-deps.sh --with-qe).
# Usage: silicon_complex.sh SI_BGW_DATA_DIR GW_SILICON_TEST_BINARY (the staged tests/data/si-bgw)
set -euo pipefail
mf="$1/mean-field"
test_binary="$2"
work="$(mktemp -d "${TMPDIR:-/tmp}/quanta-gw-si-complex-XXXXXX")"
trap 'rm -rf "$work"' EXIT
export OMP_NUM_THREADS=1
cp "$mf/Si.UPF" "$work/"
# All steps share one outdir (the SCF density is read by the band runs); pw2bgw.x runs after each.
run() {
  (cd "$work" && "$@") > "$work/log" 2>&1 || { cat "$work/log" >&2; echo "silicon_complex: $* failed" >&2; exit 1; }
}
complex_input() { sed 's/real_or_complex *= *1/real_or_complex = 2/' "$1" > "$work/pw2bgw.in"; }
run pw.x -in "$mf/01-scf/pw.in"
for step in 02-wfn:WFN 03-wfnq:WFNq 04-wfn_co:WFN_co; do
  dir=${step%%:*}
  name=${step##*:}
  run pw.x -in "$mf/$dir/pw.in"
  complex_input "$mf/$dir/pw2bgw.in"
  run pw2bgw.x -in pw2bgw.in
  out=$(sed -n "s/^ *wfng_file *= *'\(.*\)'.*/\1/p" "$work/pw2bgw.in")
  mv "$work/$out" "$work/$name"
done
mv "$work/$(sed -n "s/^ *rhog_file *= *'\(.*\)'.*/\1/p" "$work/pw2bgw.in")" "$work/RHO"
head -c 40 "$work/WFN" | grep -q "WFN-Complex" || { echo "silicon_complex: pw2bgw.x did not write the Complex flavour" >&2; exit 1; }
QUANTA_GW_SI_MEANFIELD="$work" "$test_binary"
