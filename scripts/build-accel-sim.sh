#!/usr/bin/env bash
# Build the reference simulator Accel-Sim (its trace-driven accel-sim.out, GPGPU-Sim 4.2.0) into
# .tools/accel-sim, for scripts/accel-sim-compare.py. Idempotent: an existing binary is kept.
#
#   scripts/build-accel-sim.sh [DEST]   (default .tools/accel-sim; prints the binary's path)
#
# Sources: accel-sim/accel-sim-framework and accel-sim/gpgpu-sim_distribution (the GPGPU-Sim fork
# Accel-Sim's own setup clones), at the pinned dev commits of 2024-10; ACCEL_SIM_GIT and
# GPGPU_SIM_GIT name other clones (a local mirror, for a machine without GitHub). Accel-Sim is
# built from them unmodified; nothing of it is copied into this project.
#
# No NVIDIA download and no GPU: the build needs CUDA's headers, libcudart and an `nvcc` whose
# `--version` says <= 11.10 (it compiles nothing), which come from PyPI's cu11 wheels and a
# stand-in script that prints 11.8's version line. Debian packages (as root): bison, flex,
# xutils-dev (makedepend), libgl-dev, zlib1g-dev. About 5 minutes on 2 cores; log in DEST/build.log.
set -euo pipefail
cd "$(dirname "$0")/.."
DEST=${1:-.tools/accel-sim}
mkdir -p "$DEST" && DEST=$(cd "$DEST" && pwd)
ASIM_GIT=${ACCEL_SIM_GIT:-https://github.com/accel-sim/accel-sim-framework}
GSIM_GIT=${GPGPU_SIM_GIT:-https://github.com/accel-sim/gpgpu-sim_distribution}
ASIM_COMMIT=73f9fac68a1a717750da54d2d867c7524b47b4c3 # accel-sim-framework dev, 2024-10-08
GSIM_COMMIT=667834cfe5214523edd7769aeab77f91b7137686 # gpgpu-sim_distribution dev, 2024-10-07
BIN=$DEST/accel-sim-framework/gpu-simulator/bin/release/accel-sim.out
say() { printf 'build-accel-sim: %s\n' "$*" >&2; }
if [ -x "$BIN" ]; then echo "$BIN"; exit 0; fi

if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  say "Debian packages"
  export DEBIAN_FRONTEND=noninteractive
  pkgs=(bison flex xutils-dev libgl-dev zlib1g-dev)
  apt-get install -y -qq --no-install-recommends "${pkgs[@]}" >/dev/null 2>&1 ||
    { apt-get update -qq >/dev/null 2>&1 &&
      apt-get install -y -qq --no-install-recommends "${pkgs[@]}" >/dev/null; }
fi
for t in bison flex makedepend g++ make git pip3; do
  command -v "$t" >/dev/null || { say "$t is missing (install it, or run as root)"; exit 2; }
done

say "CUDA 11.8 headers and runtime from PyPI into $DEST/cuda"
cd "$DEST"
rm -rf cuda-pip cuda
pip3 install -q --no-deps --target cuda-pip nvidia-cuda-nvcc-cu11==11.8.89 \
  nvidia-cuda-runtime-cu11==11.8.89 nvidia-cuda-profiler-api-cu11==11.8.86
mkdir -p cuda/bin cuda/include cuda/lib64
for c in cuda_runtime cuda_nvcc cuda_profiler_api; do
  cp -a "cuda-pip/nvidia/$c/include/." cuda/include/
done
rm -rf cuda/include/__init__.py cuda/include/__pycache__
cp -a cuda-pip/nvidia/cuda_nvcc/bin/ptxas cuda/bin/
cp -a cuda-pip/nvidia/cuda_runtime/lib/libcudart.so.11.0 cuda/lib64/
ln -sf libcudart.so.11.0 cuda/lib64/libcudart.so
cat >cuda/bin/nvcc <<'EOS'
#!/bin/sh
# Stand-in: Accel-Sim's build only reads the CUDA version from `nvcc --version`.
case "$1" in
  --version|-V) printf '%s\n' "nvcc: NVIDIA (R) Cuda compiler driver" \
    "Cuda compilation tools, release 11.8, V11.8.89"; exit 0;;
  *) echo "nvcc stand-in: it cannot compile" >&2; exit 1;;
esac
EOS
chmod +x cuda/bin/nvcc

say "sources at $ASIM_COMMIT and $GSIM_COMMIT"
rm -rf accel-sim-framework
git clone -q "$ASIM_GIT" accel-sim-framework
git -C accel-sim-framework checkout -q "$ASIM_COMMIT"
# GPGPU-Sim where Accel-Sim's setup looks for it (else it clones it from the network itself).
git clone -q "$GSIM_GIT" accel-sim-framework/gpu-simulator/gpgpu-sim
git -C accel-sim-framework/gpu-simulator/gpgpu-sim checkout -q "$GSIM_COMMIT"
mkdir -p accel-sim-framework/gpu-simulator/extern/pybind11 # only its optional Python wrapper

say "building (log: $DEST/build.log)"
export CUDA_INSTALL_PATH=$DEST/cuda
cd accel-sim-framework
# setup_environment.sh reads $1 as the build type and is not `set -u` clean.
set +eu
set --
# shellcheck disable=SC1091
source ./gpu-simulator/setup_environment.sh >"$DEST/build.log" 2>&1 ||
  { tail -20 "$DEST/build.log" >&2; exit 1; }
set -eu
make -j"$(nproc)" -C ./gpu-simulator >>"$DEST/build.log" 2>&1 ||
  { tail -20 "$DEST/build.log" >&2; exit 1; }
[ -x "$BIN" ] || { say "no $BIN after the build"; exit 1; }
echo "$BIN"
