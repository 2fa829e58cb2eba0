#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The six filters (plus zeros pass) on the GPU machine, for comparing rule changes against the
# recorded runs (bench/filters/compare_runs.py):
#   builtin  the built-in suite at full shapes, 5 seeds          -> $OUT/builtin.{json,csv,log}
#   corpus   our 100-task corpus (bench/import/make_corpus.py), imported with 8 workers and
#            filtered on CUDA, 5 seeds                            -> $OUT/corpus.{json,csv,log}
# Usage: bench/gpu/run_filters.sh [builtin|corpus|all]   (expects build/gpu: bench/gpu/build.sh
# kernelsieve-cli; carry .deps). Each step prints its wall time.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/ks-out}
WORK=${WORK:-/tmp/ks-filters}
MODE=${1:-all}
mkdir -p "$OUT" "$WORK"
CLI=build/gpu/bin/kernelsieve-cli
PY=${PY:-$(command -v python3)}
export PYTHONUNBUFFERED=1
ms() { echo $(( $(date +%s%N) / 1000000 )); }
{
    $CLI --version
    nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,memory.total --format=csv,noheader
} >"$OUT/device.txt" 2>&1
if [[ $MODE == builtin || $MODE == all ]]; then
    s=$(ms)
    $CLI filter --suite builtin --device cuda --preset full --seeds 5 --out "$OUT/builtin.json" \
        --csv "$OUT/builtin.csv" -q >"$OUT/builtin.log" 2>&1
    echo "builtin filter: exit $?, wall $(( $(ms) - s )) ms; $(grep -c ERROR "$OUT/builtin.log") errors" | tee -a "$OUT/device.txt"
fi
if [[ $MODE == corpus || $MODE == all ]]; then
    s=$(ms)
    "$PY" bench/import/make_corpus.py "$WORK/corpus" --clean >"$OUT/corpus-make.log" 2>&1 || { tail "$OUT/corpus-make.log"; exit 1; }
    rm -rf "$WORK/kb"
    for f in "$WORK"/corpus/level*/; do
        $CLI import-kernelbench "${f%/}" --out "$WORK/kb" --jobs 8 --python "$PY" --trace-device cuda \
            >>"$OUT/corpus-import.log" 2>&1
    done
    echo "corpus import: wall $(( $(ms) - s )) ms; $(grep -c '^ok' "$OUT/corpus-import.log") ok," \
         "$(grep -c '^error' "$OUT/corpus-import.log") errors" | tee -a "$OUT/device.txt"
    s=$(ms)
    $CLI filter --suite "$WORK/kb" --device cuda --seeds 5 --out "$OUT/corpus.json" --csv "$OUT/corpus.csv" -q \
        >"$OUT/corpus.log" 2>&1
    echo "corpus filter: exit $?, wall $(( $(ms) - s )) ms; $(grep -c ERROR "$OUT/corpus.log") errors" | tee -a "$OUT/device.txt"
fi
cat "$OUT/device.txt"
