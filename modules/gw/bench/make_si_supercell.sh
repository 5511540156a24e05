#!/usr/bin/env bash
# Makes the mean-field files of a silicon-supercell benchmark of `quanta gw` with Quantum ESPRESSO. CASE:
#   si64  (default; inputs in si64/: 2x2x2 conventional cubic cell, Gamma only, ecutwfc 10 Ry, 547 bands in WFN)
#   si216 (inputs in si216/: 3x3x3 conventional cubic cell, Gamma only, ecutwfc 10 Ry, WFN up to 640 bands,
#          cut where the last whole degenerate set ends)
# The chain, real flavour:
#   pw.x scf -> pw.x bands (WFN) -> pw2bgw.x (WFN, vxc.dat; RHO) -> pw.x bands at q0 -> pw2bgw.x (WFNq)
# pw2bgw.x writes the wavefunctions in the Complex flavour; wfn_to_real.py turns them into the Real
# flavour (pw2bgw.x's own conversion garbles some of the supercells' large degenerate sets: see
# wfn_to_real.py) and keeps the bands the case names (si64: 547 of WFN and 134 of WFNq; si216: all but a
# set cut by the last band, and 438 of WFNq), each ending a degenerate set. Where the case's epsilon.inp and sigma.inp
# say `number_bands @WFN_BANDS@`, the count kept in WFN is written in.
# Leaves in WORK_DIR (default: .bench/gw/CASE under the repository root) only WFN, WFNq, RHO, vxc.dat,
# (si64) VXC, epsilon.inp and sigma.inp, and removes QE's scratch and logs (kept when a step fails).
# WFN doubles as WFN_inner:
#   quanta gw WORK_DIR --wfn-inner WFN -o OUT --backend cpu
# Needs pw.x and pw2bgw.x (scripts/install-deps.sh --with-qe) and python3 with numpy.
# Usage: make_si_supercell.sh [CASE [WORK_DIR]]   (NP=1 runs QE serially; default NP=2 under mpirun;
#        NDIAG=n passes -ndiag n to pw.x, ScaLAPACK's grid for the subspace diagonalization;
#        WFN_NBND=n computes n bands for WFN instead of the case's count and keeps all but a set cut by the
#        last band: the many-band mean fields of the pseudobands measurements, docs/performance.md)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../../.." && pwd)"
name="${1:-si64}"
case "$name" in
  si64) nbands_wfn=547 nbands_wfnq=134 ;;
  si216) nbands_wfn=0 nbands_wfnq=438 ;;  # 0: all but a set cut by the last band
  *) echo "make_si_supercell: case '$name': expected si64 or si216" >&2; exit 1 ;;
esac
case_dir="$here/$name"
work="${2:-$repo/.bench/gw/$name}"
np="${NP:-2}"

for exe in pw.x pw2bgw.x python3; do
  command -v "$exe" > /dev/null || { echo "make_si_supercell: $exe not on PATH (scripts/install-deps.sh --with-qe)" >&2; exit 1; }
done
# The python3 on PATH, or the system's when that one lacks numpy (a user-installed python3 first on PATH can hide the
# python3-numpy that scripts/install-deps.sh installs).
py=python3
if ! "$py" -c 'import numpy' 2> /dev/null; then
  [ -x /usr/bin/python3 ] && /usr/bin/python3 -c 'import numpy' 2> /dev/null && py=/usr/bin/python3
fi
"$py" -c 'import numpy' 2> /dev/null || { echo "make_si_supercell: python3 has no numpy (neither $(command -v python3) nor /usr/bin/python3)" >&2; exit 1; }
run=()
if [[ "$np" -gt 1 ]]; then
  command -v mpirun > /dev/null || { echo "make_si_supercell: mpirun not on PATH (or set NP=1)" >&2; exit 1; }
  run=(mpirun -np "$np")
  [[ "$(id -u)" == 0 ]] && run=(mpirun --allow-run-as-root -np "$np")
fi

mkdir -p "$work"
work="$(cd "$work" && pwd)"
scratch="$work/qe-scratch"
rm -rf "$scratch"
mkdir -p "$scratch"
cp "$here/si64/Si.UPF" "$scratch/"

# Runs one step in the scratch folder, its output in <name>.out there.
step() {
  local name="$1" t0 t1
  shift
  echo "make_si_supercell: $name"
  t0=$(date +%s)
  (cd "$scratch" && "$@" > "$name.out" 2>&1) ||
    { echo "make_si_supercell: $name failed; see $scratch/$name.out" >&2; exit 1; }
  t1=$(date +%s)
  echo "make_si_supercell: $name done in $((t1 - t0)) s"
}
qe() { ${run[@]+"${run[@]}"} "$1" -in "$2"; }
pw() { ${run[@]+"${run[@]}"} pw.x ${NDIAG:+-ndiag "$NDIAG"} -in "$1"; }

# The bands runs reuse the SCF density in the same outdir; the WFN run's pw2bgw.x goes before the
# WFNq run, which overwrites the saved wavefunctions.
step 01-scf pw "$case_dir/01-scf/pw.in"
wfn_in="$case_dir/02-wfn/pw.in"
if [[ -n "${WFN_NBND:-}" ]]; then
  sed -e "s/^ *nbnd *=.*/   nbnd = $WFN_NBND/" -e "s/diago_david_ndim *= *[0-9]*/diago_david_ndim = 2/" "$wfn_in" > "$scratch/02-wfn.in"
  wfn_in="$scratch/02-wfn.in"
  nbands_wfn=0
fi
step 02-wfn pw "$wfn_in"
step 02-pw2bgw qe pw2bgw.x "$case_dir/02-wfn/pw2bgw.in"
step 02-pw2bgw-rho qe pw2bgw.x "$case_dir/02-wfn/pw2bgw-rho.in"
step 02-real "$py" "$here/wfn_to_real.py" WFN.complex WFN --bands "$nbands_wfn"
tail -n 1 "$scratch/02-real.out"
step 03-wfnq pw "$case_dir/03-wfnq/pw.in"
step 03-pw2bgw qe pw2bgw.x "$case_dir/03-wfnq/pw2bgw.in"
step 03-real "$py" "$here/wfn_to_real.py" WFNq.complex WFNq --bands "$nbands_wfnq"
tail -n 1 "$scratch/03-real.out"

for f in WFN WFNq RHO vxc.dat; do
  mv "$scratch/$f" "$work/$f"
done
# The potential Vxc(G) where the case's pw2bgw-rho.in asks for it (si64: for off-diagonal <n|Vxc|m>, which
# vxc.dat cannot give for the Real-flavour states wfn_to_real.py makes).
if [ -f "$scratch/VXC" ]; then mv "$scratch/VXC" "$work/VXC"; fi
# The bands kept in WFN, from its header (the second record: nspin, ng, ntran, cell_symmetry, nat,
# ecutrho (8 bytes), nk, nb).
kept=$("$py" -c 'import struct,sys; f=open(sys.argv[1],"rb"); f.seek(4+struct.unpack("<i",f.read(4))[0]+4+4); print(struct.unpack_from("<i",f.read(40),32)[0])' "$work/WFN")
for f in epsilon.inp sigma.inp; do
  sed "s/@WFN_BANDS@/$kept/" "$case_dir/$f" > "$work/$f"
done
echo "make_si_supercell: WFN holds $kept bands"
rm -rf "$scratch"

echo "make_si_supercell: files in $work"
(cd "$work" && ls -l WFN WFNq RHO vxc.dat epsilon.inp sigma.inp &&
  echo "total of WFN WFNq RHO vxc.dat: $(cat WFN WFNq RHO vxc.dat | wc -c) bytes")
