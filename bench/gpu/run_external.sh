#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# External kernels on the GPU machine: compile the corpus (cold, then from the cache), validate
# and bench it, and run the gpu-labelled tests. Usage:
#   bench/gpu/run_external.sh [validate|bench|all] [extra kernelsieve-cli args...]
# Writes logs and bench files to $OUT (default /tmp/ks-out). Expects build/gpu (bench/gpu/build.sh).
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/ks-out}
mkdir -p "$OUT"
MODE=${1:-all}
shift || true
CLI=build/gpu/bin/kernelsieve-cli
KERNELS=${KS_KERNELS_DIR:-tests/data/external}
CACHE=${KS_KERNEL_CACHE:-/tmp/ks-kernel-cache}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv >"$OUT/device.txt" 2>&1
ms() { echo $(( $(date +%s%N) / 1000000 )); }
t0=$(ms)
$CLI validate --kernels "$KERNELS" --compile-only --cache-dir "$CACHE" >"$OUT/compile-cold.txt" 2>&1
t1=$(ms)
$CLI validate --kernels "$KERNELS" --compile-only --cache-dir "$CACHE" >>"$OUT/compile-cold.txt" 2>&1
t2=$(ms)
echo "compile (first call) $((t1 - t0)) ms, again from the cache $((t2 - t1)) ms" | tee -a "$OUT/device.txt"
if [[ $MODE == validate || $MODE == all ]]; then
    s=$(ms)
    $CLI validate --kernels "$KERNELS" --cache-dir "$CACHE" --out "$OUT/external-validate.json" "$@" \
        >"$OUT/external-validate.txt" 2>"$OUT/external-validate.log"
    echo "validate rc=$? wall $(( $(ms) - s )) ms" | tee -a "$OUT/device.txt"
fi
if [[ $MODE == bench || $MODE == all ]]; then
    s=$(ms)
    $CLI bench --kernels "$KERNELS" --cache-dir "$CACHE" --out "$OUT/external-bench.json" "$@" \
        >"$OUT/external-bench.txt" 2>"$OUT/external-bench.log"
    echo "bench rc=$? wall $(( $(ms) - s )) ms" | tee -a "$OUT/device.txt"
fi
