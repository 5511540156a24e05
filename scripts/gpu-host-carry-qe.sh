#!/usr/bin/env bash
# Packs Quantum ESPRESSO's pw.x and pw2bgw.x from this Debian 12 machine (scripts/install-deps.sh --with-qe) into
# .deps/qe.tar.xz, for making a benchmark's mean field on a GPU host that has no package access (docs/gpu-host.md):
# the binaries, ScaLAPACK (which such hosts lack), and in qe/fb the libraries to use only if the host lacks them
# (OpenMPI's Fortran bindings, FFTW, OpenBLAS as BLAS/LAPACK, libgfortran). About 13 MB.
set -euo pipefail
cd "$(dirname "$0")/.."
for exe in pw.x pw2bgw.x; do command -v "$exe" > /dev/null || { echo "gpu-host-carry-qe: $exe not on PATH (scripts/install-deps.sh --with-qe)" >&2; exit 1; }; done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/qe/bin" "$tmp/qe/lib" "$tmp/qe/fb" .deps
cp -L "$(command -v pw.x)" "$(command -v pw2bgw.x)" "$tmp/qe/bin/"
lib() { ldconfig -p | awk -v n="$1" '$1 == n {print $NF; exit}'; }
cp -L "$(lib libscalapack-openmpi.so.2.2)" "$tmp/qe/lib/"
for l in libmpi_mpifh.so.40 libfftw3.so.3 libgfortran.so.5 libquadmath.so.0 libblas.so.3 liblapack.so.3 libopenblas.so.0; do
  cp -L "$(lib "$l")" "$tmp/qe/fb/"
done
tar -C "$tmp" -cJf .deps/qe.tar.xz qe
ls -l .deps/qe.tar.xz
