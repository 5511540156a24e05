#!/usr/bin/env bash
# Installs every build, test and tooling dependency of quanta from Debian packages (clang and its
# libFuzzer runtime for scripts/fuzz.sh).
# Idempotent: packages already present are left as they are. Needs root or sudo.
#   --with-qe   also Quantum ESPRESSO (pw.x, pw2bgw.x), which makes the mean-field files of the gw
#               examples and benchmarks (modules/gw/bench/make_si_supercell.sh); not needed to build or test.
set -euo pipefail

packages=(
  build-essential cmake pkg-config git xz-utils
  libopenblas-dev liblapacke-dev
  libhdf5-dev
  libbz2-dev bzip2
  libsymspg-dev
  libfftw3-dev
  libtomlplusplus-dev
  libcli11-dev
  libfmt-dev
  nlohmann-json3-dev
  libopenmpi-dev openmpi-bin
  libeigen3-dev
  libgtest-dev libgmock-dev
  clang libclang-rt-14-dev
  libbenchmark-dev
  python3 python3-numpy python3-h5py python3-matplotlib
)
for arg in "$@"; do
  case "$arg" in
    --with-qe) packages+=(quantum-espresso) ;;
    *) echo "install-deps: unknown option '$arg' (expected --with-qe)" >&2; exit 2 ;;
  esac
done

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages already installed"
  exit 0
fi

sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
echo "install-deps: installing ${missing[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
