#!/bin/bash
# SPDX-License-Identifier: MIT
# Fake kernelsieve-cli for kernel runs (validate / bench) from the Kernels view: logs on stderr
# as the harness does ("<task>: <step>"), then writes data/bench.json (or $KS_FAKE_BENCH_FILE)
# to --out and prints a summary table on stdout. With KS_FAKE_BENCH_DELAY (seconds per step) a
# SIGTERM stops it after the current step: it still writes what it has and exits 130, as the
# CLI does. KS_FAKE_BENCH_FAIL=1: no CUDA device (exit 4, no file), as on a machine without a GPU.
here=$(dirname "$0")
if [ "$1" = "--version" ]; then
    echo "kernelsieve-cli 0.1.0 (fake)"
    echo "Device cuda: NVIDIA H200"
    exit 0
fi
[ -n "$KS_FAKE_ARGS" ] && echo "$@" > "$KS_FAKE_ARGS"
out=""
tasks=""
while [ $# -gt 0 ]; do
    case "$1" in
        --out) out="$2"; shift ;;
        --tasks) tasks="$2"; shift ;;
    esac
    shift
done
if [ "$KS_FAKE_BENCH_FAIL" = "1" ]; then
    echo "error: kernel validation and timing need a CUDA device, and none is usable here" >&2
    exit 4
fi
cancelled=0
trap 'cancelled=1' TERM INT
delay=${KS_FAKE_BENCH_DELAY:-0.05}
echo "copy 4000 GB/s, FP32 60.000000 TFLOP/s on NVIDIA H200" >&2
for t in ${tasks//,/ }; do
    for step in "timing the LibTorch eager baseline" "v1 naive" "v1 naive valid, 1.2x"; do
        [ $cancelled -eq 1 ] && break 2
        echo "$t: $step" >&2
        sleep "$delay"
    done
done
cp "${KS_FAKE_BENCH_FILE:-$here/../data/bench.json}" "$out"
echo "task     variant                                              valid       median ms"
[ $cancelled -eq 1 ] && exit 130
exit 0
