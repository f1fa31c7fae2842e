#!/bin/sh
# Records what docs/performance.md, docs/accuracy.md and the README's
# pictures show, into docs/data/, then draws the pictures:
#   bench_native.json, bench_avx2.json  the benchmarks (one thread, pinned to
#                                       one core), dispatched target / AVX2
#   ulp_<impl>.md                       tools/ulp_sweep over every 997th float,
#                                       tensorops (both tiers) and each peer
#   machine.txt                         the CPU, the commit, the compilers
# Usage: scripts/measure.sh [BUILD_DIR]   (default build/gcc: a Release build
# with the benchmarks, as scripts/test.sh gcc makes it). About 15 minutes.
set -eu
cd "$(dirname "$0")/.."
build=${1:-build/gcc}
data=docs/data
mkdir -p "$data"
scripts/install-deps.sh --bench
scripts/install-deps.sh --plot
cmake --build "$build" --target tensorops_bench ulp_sweep -j"$(nproc)"
filter='^(unary_(exp|log|tanh|erf|sigmoid|silu|gelu|sqrt)/|softmax/|logsoftmax/|lrn_|sgemm/|fc_|chain_|eltwise_|convert_|reorder_|gather_|nv12_|channel_shuffle)'
cpu=$(($(nproc) - 1))
for target in native AVX2; do
  if [ $target = native ]; then
    env=""
  else
    env="TENSOROPS_BENCH_TARGET=AVX2 DNNL_MAX_CPU_ISA=AVX2 OPENBLAS_CORETYPE=Haswell"
  fi
  # shellcheck disable=SC2086
  env OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 $env taskset -c "$cpu" \
    "$build/bench/tensorops_bench" --benchmark_filter="$filter" --benchmark_min_time=0.3 \
    --benchmark_format=json --benchmark_out="$data/bench_$(echo $target | tr A-Z a-z).json" \
    >/dev/null
done
"$build/tools/ulp_sweep" --stride 997 >"$data/ulp_tensorops.md"
"$build/tools/ulp_sweep" --stride 997 --fast >"$data/ulp_tensorops_fast.md"
for peer in eigen sleef_u10 sleef_u35 onednn; do
  "$build/tools/ulp_sweep" --stride 997 --peer $peer >"$data/ulp_$peer.md"
done
{
  echo "commit $(git rev-parse --short HEAD)"
  grep -m1 "model name" /proc/cpuinfo
  echo "cores $(nproc)"
  g++ --version | head -1
  echo "command scripts/measure.sh $build"
} >"$data/machine.txt"
/usr/bin/python3 scripts/plot.py "$data" docs/images
echo "recorded in $data, pictures in docs/images"
