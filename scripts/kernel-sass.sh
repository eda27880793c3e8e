#!/usr/bin/env bash
# Compile the benchmark kernels of warpsmith's workload library to Turing SASS and write the
# listings it runs (golden/sass/<app>.sass, committed; `cargo test` checks they parse and that
# every application's kernels are there).
#
#   scripts/kernel-sass.sh [APP ...]          # default: every application in the table below
#
# The CUDA 13.5 toolchain comes from PyPI (no GPU, no driver: nvcc, ptxas, cuobjdump and
# nvdisasm run on the CPU) into .tools/cuda. The benchmark sources are cloned at pinned commits
# into .tools/kernel-src from GPU_APPS_GIT (default https://github.com/accel-sim/gpu-app-collection),
# MICROGPUSIM_GIT (default https://github.com/romnn/microgpusim) and CUDA_SAMPLES_GIT (default
# https://github.com/NVIDIA/cuda-samples), each only when an application of the run needs it; a
# local mirror can be named instead. Of those, only the compiled listings are committed, never
# the sources. The repository kind `warpsmith` is this repository's own CUDA sources (the
# calibration microbenchmarks, golden/cuda/), compiled from the work tree and committed with
# their listings. Each source file is compiled whole with
# `nvcc -arch=sm_75 -cubin`, the ptxas options of the application's own build and, where its
# build passes nvcc options that change device code (`--use_fast_math`), those (the table's
# optional 7th column; device code only), and scripts/sass-listing.py keeps the kernels the application launches. Where CUDA 13
# no longer compiles a source as written (texture references were removed in CUDA 12), the
# application's patch, scripts/kernel-patches/<app>.patch (a unified diff against the
# repository, `patch -p1`), is applied to a copy first; each patch says what it changes and
# docs/workloads.md lists it as an approximation. Needs python3, git, gcc, patch.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
CUDA=$ROOT/.tools/cuda
SRC=$ROOT/.tools/kernel-src
OUT=$ROOT/golden/sass
GPU_APPS_GIT=${GPU_APPS_GIT:-https://github.com/accel-sim/gpu-app-collection}
GPU_APPS_COMMIT=52c11fbccbe11fefd8bb27c1ec64ecfd1828b088
MICROGPUSIM_GIT=${MICROGPUSIM_GIT:-https://github.com/romnn/microgpusim}
MICROGPUSIM_COMMIT=b3d0c7ee0bbf8744f3520789d8150a162de97afd
# (v11.5, the first tag on GitHub with the samples of AccelWattch's CUDA 11.0 set; their
# kernels are the 11.0 toolkit's.)
CUDA_SAMPLES_GIT=${CUDA_SAMPLES_GIT:-https://github.com/NVIDIA/cuda-samples}
CUDA_SAMPLES_COMMIT=a78fba92df6a06bd3751793de3f933ce528ab316
CUDA_VERSION=13.5.37

# app | repository (gpu-apps, microgpusim, cuda-samples, or warpsmith: this repository) | source file | include folders (repository
# paths, comma-separated) | ptxas options of the application's own build (its Makefile) |
# kernels to keep (mangled names; empty: all) | optional: extra nvcc options of the
# application's own build that change its device code (comma-separated, e.g. --use_fast_math;
# a line without this column has none)
TABLE='
vectoradd|microgpusim|test-apps/vectoradd/vectoradd.cu||-O3,-flcm=ca|_Z6vecAddIfEvPT_S1_S1_i _Z6vecAddIdEvPT_S1_S1_i
matrixmul|microgpusim|test-apps/matrixmul/matrixmul.cu||-O3,-dlcm=ca|_Z8mult_gpuIfEvPT_S1_S1_ii _Z8mult_gpuIdEvPT_S1_S1_ii
simple_matrixmul|microgpusim|test-apps/simple_matrixmul/matrixmul.cu||-O3,-dlcm=ca|_Z8mult_gpuIfEvPKT_S2_PS0_mmm _Z8mult_gpuIdEvPKT_S2_PS0_mmm
transpose|microgpusim|test-apps/transpose/transpose.cu|test-apps/cuda-samples-10.2/Common|-O3,-dlcm=ca|_Z14transposeNaivePfS_ii _Z18transposeCoalescedPfS_ii
babelstream|microgpusim|test-apps/BabelStream/CUDAStream.cu|test-apps/BabelStream|-O3|
backprop|gpu-apps|src/cuda/rodinia/3.1/cuda/backprop/backprop_cuda_kernel.cu||-O3|
hotspot|gpu-apps|src/cuda/rodinia/3.1/cuda/hotspot/hotspot.cu||-O3|
pathfinder|gpu-apps|src/cuda/rodinia/3.1/cuda/pathfinder/pathfinder.cu||-O3|
srad_v1|gpu-apps|src/cuda/rodinia/3.1/cuda/srad/srad_v1/main.cu||-O3|
bfs|gpu-apps|src/cuda/rodinia/3.1/cuda/bfs/bfs.cu||-O3|
kmeans|gpu-apps|src/cuda/rodinia/3.1/cuda/kmeans/kmeans_cuda_kernel.cu||-O3|
b+tree-findk|gpu-apps|src/cuda/rodinia/3.1/cuda/b+tree/kernel/kernel_gpu_cuda_wrapper.cu|src/cuda/rodinia/3.1/cuda/b+tree|-O3|findK
b+tree-findrangek|gpu-apps|src/cuda/rodinia/3.1/cuda/b+tree/kernel/kernel_gpu_cuda_wrapper_2.cu|src/cuda/rodinia/3.1/cuda/b+tree|-O3|findRangeK
sgemm|gpu-apps|src/cuda/parboil/benchmarks/sgemm/src/cuda/main.cu|src/cuda/parboil/common/include|-O3|_Z9mysgemmNTPKfiS0_iPfiiff
spmv|gpu-apps|src/cuda/parboil/benchmarks/spmv/src/cuda/main.cu|src/cuda/parboil/common/include,src/cuda/parboil/benchmarks/spmv/common_src/convert-dataset|-O3|_Z8spmv_jdsPfPKfPKiS3_S1_S3_i
stencil|gpu-apps|src/cuda/parboil/benchmarks/stencil/src/cuda/main.cu|src/cuda/parboil/common/include|-O3|_Z24block2D_hybrid_coarsen_xffPfS_iii
histo|gpu-apps|src/cuda/parboil/benchmarks/histo/src/cuda/histo_kernels.cu||-O3|_Z20histo_prescan_kernelPjiS_ _Z26histo_intermediates_kernelP5uint2jjjP6uchar4 _Z17histo_main_kernelP6uchar4jjjjjPjS1_S1_ _Z18histo_final_kerneljjjjPjS_S_S_
mri-q|gpu-apps|src/cuda/parboil/benchmarks/mri-q/src/cuda/main.cu|src/cuda/parboil/common/include|-O3||--use_fast_math
sad|gpu-apps|src/cuda/parboil/benchmarks/sad/src/cuda/sad_kernels.cu||-O3|_Z11mb_sad_calcPtS_ii _Z17larger_sad_calc_8Ptii _Z18larger_sad_calc_16Ptii
histogram64|cuda-samples|Samples/histogram/histogram64.cu|Common|-O3|_Z17histogram64KernelPjP5uint4j _Z22mergeHistogram64KernelPjS_j
histogram256|cuda-samples|Samples/histogram/histogram256.cu|Common|-O3|_Z18histogram256KernelPjS_j _Z23mergeHistogram256KernelPjS_j
fastwalshtransform|cuda-samples|Samples/fastWalshTransform/fastWalshTransform.cu|Common|-O3|_Z15fwtBatch2KernelPfS_i _Z15fwtBatch1KernelPfS_i _Z14modulateKernelPfS_i
mergesort|cuda-samples|Samples/mergeSort/mergeSort.cu|Common|-O3|_Z21mergeSortSharedKernelILj1EEvPjS0_S0_S0_j _Z25generateSampleRanksKernelILj1EEvPjS0_S0_jjj _Z26mergeRanksAndIndicesKernelPjS_jjj _Z30mergeElementaryIntervalsKernelILj1EEvPjS0_S0_S0_S0_S0_jj
sobolqrng|cuda-samples|Samples/SobolQRNG/sobol_gpu.cu|Common|-O3|_Z15sobolGPU_kerneljjPjPf
scalarprod|cuda-samples|Samples/scalarProd/scalarProd.cu|Common|-O3|_Z13scalarProdGPUPfS_S_ii
convolutionseparable|cuda-samples|Samples/convolutionSeparable/convolutionSeparable.cu|Common|-O3|_Z21convolutionRowsKernelPfS_iii _Z24convolutionColumnsKernelPfS_iii
quasirandomgenerator|cuda-samples|Samples/quasirandomGenerator/quasirandomGenerator_kernel.cu|Common|-O3|_Z26quasirandomGeneratorKernelPfjj _Z16inverseCNDKernelPfPjj
blackscholes|cuda-samples|Samples/BlackScholes/BlackScholes.cu|Common|-O3|_Z15BlackScholesGPUP6float2S0_S0_S0_S0_ffi
binomialoptions|cuda-samples|Samples/binomialOptions/binomialOptions_kernel.cu|Common|-O3|_Z21binomialOptionsKernelv
dct8x8|cuda-samples|Samples/dct8x8/dct8x8.cu|Common|-O3|_Z14CUDAkernel1DCTPfiiiy _Z27CUDAkernelQuantizationFloatPfi _Z15CUDAkernel1IDCTPfiiiy _Z14CUDAkernel2DCTPfS_i _Z15CUDAkernel2IDCTPfS_i _Z18CUDAkernelShortDCTPsi _Z27CUDAkernelQuantizationShortPsi _Z19CUDAkernelShortIDCTPsi
ubench-chase|warpsmith|golden/cuda/ubench/chase.cu||-O3,-dlcm=ca|
ubench-bw|warpsmith|golden/cuda/ubench/bw.cu||-O3,-dlcm=ca|
'

install_cuda() {
  [ -x "$CUDA/nvidia/cu13/bin/nvdisasm" ] && return
  echo "kernel-sass: installing the CUDA $CUDA_VERSION toolchain from PyPI into $CUDA" >&2
  python3 -m pip install --quiet --no-deps --target "$CUDA" "nvidia-cuda-nvcc==$CUDA_VERSION" \
    "nvidia-nvvm==$CUDA_VERSION" "nvidia-cuda-crt==$CUDA_VERSION" nvidia-cuda-runtime \
    nvidia-cuda-cuobjdump nvidia-cuda-cccl
  # (pip --target does not merge a second wheel into nvidia/cu13/bin: unpack it there.)
  local dl
  dl=$(mktemp -d)
  python3 -m pip download --quiet --no-deps -d "$dl" "nvidia-cuda-nvdisasm==$CUDA_VERSION"
  python3 -m zipfile -e "$dl"/nvidia_cuda_nvdisasm-*.whl "$CUDA"
  chmod +x "$CUDA"/nvidia/cu13/bin/*
  rm -rf "$dl"
}

# checkout NAME URL COMMIT: the repository at COMMIT in $SRC/NAME.
checkout() {
  local dir=$SRC/$1
  if [ ! -d "$dir/.git" ]; then
    mkdir -p "$SRC"
    git clone --quiet --no-checkout "$2" "$dir"
  fi
  git -C "$dir" checkout --quiet "$3"
}

install_cuda
export PATH=$CUDA/nvidia/cu13/bin:$PATH
mkdir -p "$OUT"
build=$(mktemp -d)
trap 'rm -rf "$build"' EXIT
wanted=" $* "
while IFS='|' read -r app repo file incs ptxas keep nvcc_opts; do
  [ -n "$app" ] || continue
  [ $# -eq 0 ] || [[ $wanted == *" $app "* ]] || continue
  case $repo in
    gpu-apps) commit=$GPU_APPS_COMMIT; url=accel-sim/gpu-app-collection
      checkout gpu-apps "$GPU_APPS_GIT" "$GPU_APPS_COMMIT" ;;
    microgpusim) commit=$MICROGPUSIM_COMMIT; url=romnn/microgpusim
      checkout microgpusim "$MICROGPUSIM_GIT" "$MICROGPUSIM_COMMIT" ;;
    cuda-samples) commit=$CUDA_SAMPLES_COMMIT; url=NVIDIA/cuda-samples
      checkout cuda-samples "$CUDA_SAMPLES_GIT" "$CUDA_SAMPLES_COMMIT" ;;
    warpsmith) commit=; url=warpsmith ;;
    *) echo "kernel-sass: $app: unknown repository kind $repo" >&2; exit 1 ;;
  esac
  tree=$SRC/$repo
  [ "$repo" != warpsmith ] || tree=$ROOT
  patch_file=$ROOT/scripts/kernel-patches/$app.patch
  if [ -f "$patch_file" ]; then
    # A copy of the source's folder (and of the include folders) with the patch applied.
    tree=$build/$app-src
    for d in "$(dirname "$file")" ${incs//,/ }; do
      mkdir -p "$tree/$d"
      cp -r "$SRC/$repo/$d/." "$tree/$d"
    done
    patch --quiet -p1 -d "$tree" < "$patch_file"
  fi
  flags=()
  IFS=',' read -ra dirs <<<"$incs"
  for d in "${dirs[@]}"; do [ -z "$d" ] || flags+=(-I "$tree/$d"); done
  IFS=',' read -ra opts <<<"$nvcc_opts"
  for o in "${opts[@]}"; do [ -z "$o" ] || flags+=("$o"); done
  nvcc -arch=sm_75 -cubin -lineinfo -Xptxas "$ptxas" "${flags[@]}" -o "$build/$app.cubin" \
    "$tree/$file" 2> "$build/$app.log" || { cat "$build/$app.log" >&2; exit 1; }
  patch_note=
  [ ! -f "$patch_file" ] || patch_note=", patched by scripts/kernel-patches/$app.patch"
  keep_args=()
  [ -z "$keep" ] || keep_args=(--keep $keep)
  python3 scripts/sass-listing.py "$build/$app.cubin" "$OUT/$app.sass" \
    --source "$url${commit:+@${commit:0:12}}:$file (${nvcc_opts:+nvcc ${nvcc_opts//,/ }, }ptxas $ptxas)${patch_note}, by scripts/kernel-sass.sh" \
    "${keep_args[@]}"
  echo "kernel-sass: $OUT/$app.sass ($(grep -c '^\.kernel' "$OUT/$app.sass") kernels)"
done <<<"$TABLE"
