#!/usr/bin/env bash
# BerkeleyGW's silicon example from Complex-flavour mean-field files: reruns the example's Quantum ESPRESSO
# chain (mean-field/*/pw.in, pw2bgw.in) with real_or_complex = 2 in a scratch folder, then runs
# gw_silicon_test on those files against BerkeleyGW's outputs (made from Real-flavour files: the physics
# is the same, so the same tolerances apply). Needs pw.x and pw2bgw.x (scripts/install-deps.sh --with-qe).
# WFN_co's step also writes the off-diagonal <n|Vxc|m> of bands 1-14 into vxc.dat and the potential VXC, for
# gw_offdiag_test, which runs next on the same files (the off-diagonal path from the Complex flavour and from
# vxc.dat's off-diagonal entries).
# Usage: silicon_complex.sh SI_BGW_DATA_DIR GW_SILICON_TEST_BINARY GW_OFFDIAG_TEST_BINARY (the staged tests/data/si-bgw)
set -euo pipefail
mf="$1/mean-field"
test_binary="$2"
offdiag_binary="$3"
work="$(mktemp -d "${TMPDIR:-/tmp}/quanta-gw-si-complex-XXXXXX")"
trap 'rm -rf "$work"' EXIT
export OMP_NUM_THREADS=1
cp "$mf/Si.UPF" "$work/"
# All steps share one outdir (the SCF density is read by the band runs); pw2bgw.x runs after each.
run() {
  (cd "$work" && "$@") > "$work/log" 2>&1 || { cat "$work/log" >&2; echo "silicon_complex: $* failed" >&2; exit 1; }
}
complex_input() {
  sed 's/real_or_complex *= *1/real_or_complex = 2/; s/vxc_offdiag_nmin *= *0/vxc_offdiag_nmin = 1/; s/vxc_offdiag_nmax *= *0/vxc_offdiag_nmax = 14/;
       s/vxcg_flag *= *.false./vxcg_flag = .true./' "$1" > "$work/pw2bgw.in"
}
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
mv "$work/$(sed -n "s/^ *vxcg_file *= *'\(.*\)'.*/\1/p" "$work/pw2bgw.in")" "$work/VXC"
head -c 40 "$work/WFN" | grep -q "WFN-Complex" || { echo "silicon_complex: pw2bgw.x did not write the Complex flavour" >&2; exit 1; }
QUANTA_GW_SI_MEANFIELD="$work" "$test_binary"
QUANTA_GW_SI_MEANFIELD="$work" "$offdiag_binary"
