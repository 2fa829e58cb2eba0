#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Issue 12 on the GPU machine: the compiled baselines of the built-in kernel tasks (AOTInductor,
# cold cache, timed), then `kernelsieve-cli bench` against eager, compiled and CUDA-graph
# baselines with the defaults (100 seeds + edge cases, 25 warm-ups, 2000 timed runs in 10
# interleaved blocks). Usage: bench/gpu/run_baselines.sh compile|bench|all (expects build/gpu:
# bench/gpu/build.sh kernelsieve-cli kernelsieve-sandbox). Results in $OUT.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/ks-out}
MODE=${1:-all}
mkdir -p "$OUT"
CLI=build/gpu/bin/kernelsieve-cli
export KS_BASELINE_CACHE=${KS_BASELINE_CACHE:-/tmp/ks-baselines}
ms() { echo $(( $(date +%s%N) / 1000000 )); }
if [[ $MODE == compile || $MODE == all ]]; then
    s=$(ms)
    $CLI compile-baselines --preset full --jobs "${JOBS:-5}" >"$OUT/compile-baselines.txt" 2>"$OUT/compile-baselines.log"
    echo "compile-baselines: exit $?, wall $(( $(ms) - s )) ms" | tee -a "$OUT/compile-baselines.txt"
    s=$(ms)
    $CLI compile-baselines --preset full >>"$OUT/compile-baselines.txt" 2>>"$OUT/compile-baselines.log"
    echo "compile-baselines again (cache): exit $?, wall $(( $(ms) - s )) ms" | tee -a "$OUT/compile-baselines.txt"
fi
if [[ $MODE == bench || $MODE == all ]]; then
    s=$(ms)
    timeout "${BENCH_TIMEOUT:-500}" $CLI bench --baselines eager,compiled,graph --out "$OUT/bench.json" ${BENCH_ARGS:-} \
        >"$OUT/bench.txt" 2>"$OUT/bench.log"
    echo "bench: exit $?, wall $(( $(ms) - s )) ms" | tee -a "$OUT/bench.txt"
    cat "$OUT/bench.txt"
    tail -5 "$OUT/bench.log"
fi
