#!/usr/bin/env bash
# Build the FourPhonon CPU executable (ShengBTE + four-phonon) from the sources in this kit.
#   1. spglib (C library libsymspg, static) -> <kit>/local/{lib,include}
#   2. FourPhonon Src/ with mpif90 -O2 -fopenmp -cpp -DCPU_VERSION  -> <kit>/bin/ShengBTE
# No network needed. Works with gfortran-12 or gfortran-13, with or without a plain `gfortran`.
# Overrides (environment): FC (MPI Fortran wrapper), CC (C compiler for spglib), CMAKE,
#   LAPACK_LIBS (e.g. "-llapack -lopenblas"), FFLAGS_EXTRA, JOBS.
set -euo pipefail

KIT="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
SRC="$KIT/src"
LOCAL="$KIT/local"
BUILD="$KIT/build"
BIN="$KIT/bin"
JOBS="${JOBS:-$(env -u OMP_NUM_THREADS -u OMP_THREAD_LIMIT nproc)}"
mkdir -p "$LOCAL/lib" "$LOCAL/include" "$BUILD" "$BIN"
log() { echo "[build] $*"; }
die() { echo "[build] ERROR: $*" >&2; exit 1; }

# ---------------------------------------------------------------- compilers
pick_first() { for c in "$@"; do if command -v "$c" >/dev/null 2>&1; then command -v "$c"; return 0; fi; done; return 1; }

CC="${CC:-$(pick_first gcc gcc-13 gcc-14 gcc-12 cc || true)}"
[ -n "$CC" ] || die "no C compiler (gcc/gcc-13/cc) found"

FC="${FC:-$(pick_first mpif90 mpifort || true)}"
[ -n "$FC" ] || die "no MPI Fortran wrapper (mpif90/mpifort) found"

# The Open MPI wrapper calls `gfortran` by default. If that name does not exist (only
# gfortran-13 / gfortran-12), point the wrapper at the versioned compiler via OMPI_FC.
if ! "$FC" --version >/dev/null 2>&1; then
  if [ -z "${OMPI_FC:-}" ]; then
    OMPI_FC="$(pick_first gfortran gfortran-13 gfortran-14 gfortran-12 gfortran-11 || true)"
    [ -n "$OMPI_FC" ] || die "$FC does not work and no gfortran-NN found"
    export OMPI_FC
    log "'$FC --version' failed; using OMPI_FC=$OMPI_FC"
  fi
  "$FC" --version >/dev/null 2>&1 || die "$FC still does not work (OMPI_FC=${OMPI_FC:-})"
fi
log "C compiler      : $CC ($("$CC" --version | head -1))"
log "Fortran (MPI)   : $FC -> $("$FC" --version | head -1)"
log "MPI wrapper cmd : $("$FC" -showme 2>/dev/null || "$FC" -show 2>/dev/null || echo '?')"

# mpirun that belongs to the same MPI as the wrapper (recorded for run.sh)
MPIRUN="$(dirname "$(command -v "$FC")")/mpirun"
[ -x "$MPIRUN" ] || MPIRUN="$(command -v mpirun || command -v mpiexec || true)"
[ -n "$MPIRUN" ] || die "no mpirun found"
log "mpirun          : $MPIRUN ($("$MPIRUN" --version 2>/dev/null | head -1))"

# ---------------------------------------------------------------- 1. spglib (static)
SPG_SRC="$SRC/spglib"
SPG_BUILD="$BUILD/spglib"
build_spglib_cmake() {
  local cm="${CMAKE:-$(command -v cmake || true)}"
  [ -n "$cm" ] || return 1
  log "spglib via cmake: $cm ($("$cm" --version | head -1))"
  rm -rf "$SPG_BUILD"
  # CMAKE_POLICY_VERSION_MINIMUM: spglib 1.16 says cmake_minimum_required(2.8.12), which CMake >= 4 rejects.
  "$cm" -S "$SPG_SRC" -B "$SPG_BUILD" \
      -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_COMPILER="$CC" -DCMAKE_C_FLAGS="-O2" \
      -DUSE_OMP=OFF -DWITH_Fortran=OFF -DCMAKE_POSITION_INDEPENDENT_CODE=ON \
      -DCMAKE_POLICY_VERSION_MINIMUM=3.5 -DCMAKE_INSTALL_PREFIX="$LOCAL" >"$BUILD/spglib-cmake.log" 2>&1 || return 1
  "$cm" --build "$SPG_BUILD" --target symspg_static -j "$JOBS" >>"$BUILD/spglib-cmake.log" 2>&1 || return 1
  cp "$SPG_BUILD/libsymspg.a" "$LOCAL/lib/libsymspg.a"
}
build_spglib_direct() {   # fallback: plain gcc + ar (needs nothing but a C compiler)
  log "spglib via direct $CC + ar (fallback)"
  rm -rf "$SPG_BUILD"; mkdir -p "$SPG_BUILD"
  local objs=() f
  for f in "$SPG_SRC"/src/*.c; do
    case "$(basename "$f")" in test.c|spglib_f.c) continue;; esac
    "$CC" -O2 -fPIC -I"$SPG_SRC/src" -c "$f" -o "$SPG_BUILD/$(basename "${f%.c}").o" &
    objs+=("$SPG_BUILD/$(basename "${f%.c}").o")
    while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do sleep 0.2; done
  done
  wait
  rm -f "$LOCAL/lib/libsymspg.a"
  ar rcs "$LOCAL/lib/libsymspg.a" "${objs[@]}"
}
rm -f "$LOCAL/lib/libsymspg.a"
build_spglib_cmake || { log "cmake build of spglib failed (see $BUILD/spglib-cmake.log)"; build_spglib_direct; }
cp "$SPG_SRC/src/spglib.h" "$LOCAL/include/"
NMOUT="$(nm "$LOCAL/lib/libsymspg.a" 2>/dev/null || true)"
grep -q ' T spg_get_symmetry$' <<<"$NMOUT" || die "libsymspg.a lacks spg_get_symmetry"
log "spglib          : $LOCAL/lib/libsymspg.a (spglib $(awk '/define SPGLIB_M/{printf "%s%s", s, $3; s="."}' "$SPG_SRC/src/version.h"))"

# ---------------------------------------------------------------- 2. LAPACK/BLAS choice
TMP="$BUILD/lapack-probe"; mkdir -p "$TMP"
cat >"$TMP/probe.f90" <<'EOF'
program probe
  implicit none
  complex(kind=8) :: a(2,2), work(8)
  real(kind=8) :: w(2), rwork(8), b(2,2), c(2,1)
  integer :: info, ipiv(2), iw(2)
  real(kind=8) :: v(4)
  a = 0; a(1,1) = 1; a(2,2) = 2
  call zheev("V","U",2,a,2,w,work,8,rwork,info)
  b = 0; b(1,1) = 2; b(2,2) = 4; c = 1
  call dgesv(2,1,b,2,ipiv,c,2,info)
  v = (/3d0,1d0,2d0,0d0/)
  call dlasrt("I",4,v,info)
  if (abs(w(2)-2d0) > 1d-12 .or. abs(c(2,1)-0.25d0) > 1d-12 .or. v(1) /= 0d0) stop 1
  print *, "ok"
end program probe
EOF
if [ -n "${LAPACK_LIBS:-}" ]; then
  CANDIDATES=("$LAPACK_LIBS")
else
  CANDIDATES=("-llapack -lopenblas" "-lopenblas" "-l:liblapack.so.3 -l:libopenblas.so.0" "-l:libopenblas.so.0" "-llapack -lblas" "-l:liblapack.so.3 -l:libblas.so.3")
fi
LAPACK_CHOSEN=""
for cand in "${CANDIDATES[@]}"; do
  # shellcheck disable=SC2086
  if "$FC" -O0 "$TMP/probe.f90" -o "$TMP/probe" $cand >"$TMP/link.log" 2>&1 && "$TMP/probe" >/dev/null 2>&1; then
    LAPACK_CHOSEN="$cand"; break
  fi
done
[ -n "$LAPACK_CHOSEN" ] || die "no working LAPACK/BLAS link line (tried: ${CANDIDATES[*]}); set LAPACK_LIBS"
log "LAPACK/BLAS     : $LAPACK_CHOSEN"

# ---------------------------------------------------------------- 3. FourPhonon
FP_BUILD="$BUILD/fourphonon"
rm -rf "$FP_BUILD"; mkdir -p "$FP_BUILD"
cp -r "$SRC/FourPhonon/Src" "$FP_BUILD/Src"
cp "$FP_BUILD/Src/arch.make" "$FP_BUILD/Src/arch.make.upstream"
# Intel-only syntax: logicals compared with .eq. (e.g. "a.and.b.eq. .false."), which gfortran rejects.
# Rewrite "X.eq. .false." -> "(.not.X)" and "X.eq. .true." -> "(X)" (keeps ifort's precedence, where .eq.
# binds tighter than .and.; a plain .eqv. would not). 8 places in config.f90 and ShengBTE.f90.
for f in "$FP_BUILD"/Src/*.f90; do
  sed -E -i \
    -e 's/([A-Za-z_][A-Za-z0-9_]*)[[:space:]]*\.[eE][qQ]\.[[:space:]]*\.[fF][aA][lL][sS][eE]\./(.not.\1)/g' \
    -e 's/([A-Za-z_][A-Za-z0-9_]*)[[:space:]]*\.[eE][qQ]\.[[:space:]]*\.[tT][rR][uU][eE]\./(\1)/g' "$f"
done
log "patched logical .eq. comparisons (gfortran): $(cd "$FP_BUILD/Src" && for f in *.f90; do diff "$SRC/FourPhonon/Src/$f" "$f" | grep -c '^>' | sed "s/^/$f:/"; done | grep -v ':0$' | tr '\n' ' ')"
# gfortran equivalents of the upstream (Intel) flags "-qopenmp -traceback -O2 -fpp -DCPU_VERSION";
# -fallow-argument-mismatch: the code uses mpif.h (no interfaces), which gfortran >= 10 rejects otherwise.
FFLAGS_FP="-O2 -fopenmp -cpp -DCPU_VERSION -fbacktrace -ffree-line-length-none -fallow-argument-mismatch ${FFLAGS_EXTRA:-}"
cat >"$FP_BUILD/Src/arch.make" <<EOF
# arch.make written by .peer/build.sh (GNU toolchain; upstream Intel version kept in arch.make.upstream)
export CPU_COMPILER = $FC
export GPU_COMPILER = false
CPU_FFLAGS = $FFLAGS_FP
GPU_FFLAGS =
LDFLAGS = $LOCAL/lib/libsymspg.a
export LDFLAGS
export LAPACK = $LAPACK_CHOSEN
export LIBS = \$(LAPACK) -lm
EOF
# Module dependencies missing from the upstream Makefile (matter for parallel make only).
cat >"$FP_BUILD/Src/kit-deps.mk" <<'EOF'
integrals.o integrals.mod: config.mod data.mod
gruneisen.o gruneisen.mod: misc.mod
phonon_routines.o phonon_routines.mod: misc.mod
processes.o processes.mod: misc.mod
wedgetc.o wedgetc.mod: symmetry.mod
EOF
log "FourPhonon      : make -j$JOBS cpu with CPU_FFLAGS = $FFLAGS_FP"
(
  cd "$FP_BUILD/Src"
  if ! make -f Makefile -f kit-deps.mk -j"$JOBS" cpu >"$BUILD/fourphonon-make.log" 2>&1; then
    echo "[build] parallel make failed; retrying serially (log: $BUILD/fourphonon-make.log)"
    make -f Makefile -f kit-deps.mk cpu >>"$BUILD/fourphonon-make.log" 2>&1 || { tail -40 "$BUILD/fourphonon-make.log"; exit 1; }
  fi
)
cp "$FP_BUILD/ShengBTE_cpu" "$BIN/ShengBTE"

# ---------------------------------------------------------------- record what was built
{
  echo "FC=$FC"
  echo "OMPI_FC=${OMPI_FC:-}"
  echo "MPIRUN=$MPIRUN"
  echo "LAPACK_LIBS=\"$LAPACK_CHOSEN\""
  echo "FFLAGS=\"$FFLAGS_FP\""
} >"$BIN/build.env"
log "executable      : $BIN/ShengBTE"
log "runtime LAPACK/BLAS libraries of the executable:"
ldd "$BIN/ShengBTE" | grep -E -i 'lapack|blas|gfortran|libmpi[._]|gomp' | while read -r name _ path _; do
  echo "    $name -> $path -> $(readlink -f "$path" 2>/dev/null)"
done || true
log "done"
