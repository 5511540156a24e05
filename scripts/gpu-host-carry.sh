#!/usr/bin/env bash
# Run on a Debian machine with package access: downloads (without installing) the Debian packages whose
# files a GPU host without package access may lack, into .deps/debs/. scripts/gpu-host-build.sh unpacks
# the ones the host is missing. .deps/ is git-ignored; carry it to the GPU host next to the tree.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p .deps/debs
cd .deps/debs
pkgs=(libsymspg-dev libsymspg1 libcli11-dev libtomlplusplus-dev libtomlplusplus3
      libgtest-dev libgmock-dev googletest libbenchmark-dev libbenchmark1debian
      libhdf5-dev libhdf5-103-1 libhdf5-hl-100 libsz2 libaec0 libaec-dev
      liblapacke liblapacke-dev libopenblas-dev libopenblas0-pthread libopenblas-pthread-dev libopenblas0
      libgfortran5 libtmglib3 liblapack3 libblas3
      libfftw3-dev libfftw3-double3 libbz2-dev libbz2-1.0)
apt-get download "${pkgs[@]}"
ls -la
