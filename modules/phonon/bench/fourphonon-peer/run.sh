#!/usr/bin/env bash
# Run FourPhonon (built by build.sh) on Stillinger-Weber silicon, N x N x N mesh, 3ph + 4ph RTA.
# Usage: run.sh N RANKS THREADS OUTDIR
#   Input: <kit>/input/{CONTROL,FORCE_CONSTANTS_2ND.xz,_3RD.xz,_4TH.xz} (a copy of our repository's
#   modules/phonon/tests/data/si-sw-4ph); CONTROL gets ngrid=N N N and convergence=.FALSE., nothing else changes.
# Env: OMP_STACKSIZE (default 1G, as FourPhonon's manual asks), OPENBLAS_NUM_THREADS (default 1),
#      MPIRUN_ARGS (extra mpirun arguments; default "--bind-to none" when THREADS > 1).
#      FP_SCRATCH (where the decompressed force constants go; default ${TMPDIR:-/tmp}/fourphonon-kit).
# Prints one summary line (also in OUTDIR/summary.txt); FourPhonon's stdout is OUTDIR/log.out.
set -euo pipefail
[ $# -eq 4 ] || { echo "usage: $0 N RANKS THREADS OUTDIR" >&2; exit 2; }
N=$1; RANKS=$2; THREADS=$3; OUT=$4
KIT="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
CORES=$(env -u OMP_NUM_THREADS -u OMP_THREAD_LIMIT nproc)
EXE="$KIT/bin/ShengBTE"
[ -x "$EXE" ] || { echo "[run] $EXE missing: run $KIT/build.sh first" >&2; exit 1; }
MPIRUN=mpirun
# shellcheck disable=SC1091
[ -f "$KIT/bin/build.env" ] && MPIRUN="$(. "$KIT/bin/build.env"; echo "$MPIRUN")"
[ -x "$MPIRUN" ] || MPIRUN=mpirun

DATA="$KIT/input"
[ -f "$DATA/FORCE_CONSTANTS_4TH.xz" ] || DATA="$KIT/../../tests/data/si-sw-4ph"
[ -f "$DATA/FORCE_CONSTANTS_4TH.xz" ] || { echo "[run] input data not found" >&2; exit 1; }

mkdir -p "$OUT"; OUT="$(cd "$OUT" && pwd)"
rm -rf "${OUT:?}"/T*K "$OUT"/BTE.* "$OUT"/log.out "$OUT"/err.out "$OUT"/summary.txt
# The decompressed force constants (16 MB) go to a scratch folder, symlinked from OUTDIR (keeps OUTDIR small).
FCDIR="${FP_SCRATCH:-${TMPDIR:-/tmp}/fourphonon-kit}/fc"
mkdir -p "$FCDIR"
for f in FORCE_CONSTANTS_2ND FORCE_CONSTANTS_3RD FORCE_CONSTANTS_4TH; do
  [ -s "$FCDIR/$f" ] && [ "$FCDIR/$f" -nt "$DATA/$f.xz" ] || { xz -dc "$DATA/$f.xz" > "$FCDIR/$f.tmp" && mv "$FCDIR/$f.tmp" "$FCDIR/$f"; }
  rm -f "$OUT/$f"; ln -s "$FCDIR/$f" "$OUT/$f"
done
sed -E -e "s/ngrid\(:\)=.*/ngrid(:)=$N $N $N/" -e "s/convergence=.*/convergence=.FALSE./" "$DATA/CONTROL" > "$OUT/CONTROL"
grep -q "ngrid(:)=$N $N $N" "$OUT/CONTROL" && grep -q "convergence=.FALSE." "$OUT/CONTROL" && grep -q "four_phonon=.TRUE." "$OUT/CONTROL" \
  || { echo "[run] CONTROL edit failed" >&2; exit 1; }

export OMP_NUM_THREADS="$THREADS"
export OMP_STACKSIZE="${OMP_STACKSIZE:-1G}"
export OPENBLAS_NUM_THREADS="${OPENBLAS_NUM_THREADS:-1}"
export OMPI_MCA_btl_vader_single_copy_mechanism="${OMPI_MCA_btl_vader_single_copy_mechanism:-none}"
if [ -z "${MPIRUN_ARGS+x}" ]; then
  if [ "$THREADS" -gt 1 ]; then MPIRUN_ARGS="--bind-to none"; else MPIRUN_ARGS=""; fi
fi
ulimit -s unlimited 2>/dev/null || true

echo "[run] $(date -Is) mesh ${N}x${N}x${N}, $RANKS MPI ranks x $THREADS OpenMP threads, host $(hostname), $CORES cores" | tee "$OUT/run-info.txt"
echo "[run] $MPIRUN --allow-run-as-root --oversubscribe -np $RANKS $MPIRUN_ARGS $EXE  (in $OUT)" | tee -a "$OUT/run-info.txt"
env | grep -E '^(OMP_|OPENBLAS_|OMPI_MCA_)' | sed 's/^/[run]   /' | tee -a "$OUT/run-info.txt"

t0=$(date +%s.%N)
set +e
# shellcheck disable=SC2086
( cd "$OUT" && "$MPIRUN" --allow-run-as-root --oversubscribe -np "$RANKS" $MPIRUN_ARGS "$EXE" > log.out 2> err.out )
rc=$?
set -e
t1=$(date +%s.%N)
WALL=$(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.2f", b-a}')
if [ $rc -ne 0 ] || ! grep -q "normal exit" "$OUT/log.out"; then
  echo "[run] FourPhonon failed (rc=$rc) after $WALL s; tail of log.out / err.out:" >&2
  tail -20 "$OUT/log.out" >&2 || true; tail -20 "$OUT/err.out" >&2 || true
  exit 1
fi

# ---- per-stage timings FourPhonon prints (rank 0, seconds since its start)
stage() {  # $1 = text between "Start"/"End" and ":" ; prints End - Start or "n/a"
  awk -v key="$1" '
    index($0, "Timing: Start " key ":") { n=split($0, a, ":"); split(a[n], b, " "); s=b[1] }
    index($0, "Timing: End "   key ":") { n=split($0, a, ":"); split(a[n], b, " "); e=b[1] }
    END { if (s != "" && e != "") printf "%.2f", e - s; else printf "n/a" }' "$OUT/log.out"
}
T4=$(stage "calculating 4ph processes on CPU, RTA solver")
P4=$(stage "calculating 4ph allowed processes")
T3=$(stage "calculating 3ph processes on CPU, RTA solver")
P3=$(stage "calculating 3ph allowed processes")
TFIN=$(awk -F: '/Timing: Finish calculation time/ {split($NF, b, " "); printf "%.2f", b[1]}' "$OUT/log.out")
read -r NPP NPM NMM < <(awk '/Ntotal_plusplus,Ntotal_plusminus,Ntotal_minusminus=/ {getline; print $1, $2, $3; exit}' "$OUT/log.out") || NPP=n/a
NUMP=$(awk 'NF==3 {a+=$1; b+=$2; c+=$3} END {print a+0, b+0, c+0}' "$OUT/BTE.Numprocess_4ph" 2>/dev/null || echo "n/a")
KS=$(ls "$OUT"/T*K/BTE.kappa_scalar 2>/dev/null | head -1)
KAPPA=$( [ -n "$KS" ] && tail -1 "$KS" | awk '{printf "%.7f", $2}' || echo n/a)
KRTA=$(tail -1 "$OUT/BTE.KappaTensorVsT_RTA" | awk '{printf "%.5f", ($2+$6+$10)/3}')

LINE="FourPhonon mesh=${N}x${N}x${N} ranks=$RANKS threads=$THREADS wall_s=$WALL 4ph_stage_s=$T4 (4ph_phase_space_s=$P4 3ph_stage_s=$T3 3ph_phase_space_s=$P3 fourphonon_total_s=${TFIN:-n/a}) Ntotal_plusplus=$NPP Ntotal_plusminus=$NPM Ntotal_minusminus=$NMM kappa_RTA_W/mK=$KAPPA (KappaTensorVsT_RTA trace/3=$KRTA; Numprocess_4ph sums=${NUMP// /,})"
echo "$LINE" | tee "$OUT/summary.txt"
