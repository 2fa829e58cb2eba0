#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A stand-in for `kernelsieve-cli worker` on machines without a GPU: answers each harness job
# with a canned result, crashes for variants whose name contains "kernel2" when FAKE_CRASH=1.
# FAKE_OPTIONS_LOG=FILE appends each job's --options JSON to FILE.
# FAKE_BASELINES=1: the baseline job also times the compiled (when given --compiled) and graph
# baselines, and variants report interleaved comparisons; FAKE_ARGS_LOG=FILE logs each job's args.
# --devices (tests/tst_bench_orchestration.cpp): FAKE_DEVICE_LOG=FILE appends
# "job task CUDA_VISIBLE_DEVICES start end" per job (seconds since the epoch), FAKE_SLEEP=S makes
# each job take S seconds, FAKE_CRASH_DEVICE=ID crashes every variant job on that GPU.
job="" result="" variant="" options="" compiled="" task=""
t_start=$(date +%s.%N)
all_args="$*"
while [[ $# -gt 0 ]]; do
    case "$1" in
    --job) job=$2 ;; --result) result=$2 ;; --variant) variant=$2 ;; --options) options=$2 ;; --compiled) compiled=$2 ;;
    --task) task=$2 ;;
    esac
    shift 2
done
if [[ -n "${FAKE_OPTIONS_LOG:-}" ]]; then echo "$job $options" >>"$FAKE_OPTIONS_LOG"; fi
if [[ -n "${FAKE_ARGS_LOG:-}" ]]; then echo "$job variant=$variant compiled=$compiled" >>"$FAKE_ARGS_LOG"; fi
timing='{"warmup":25,"runs":3,"l2_flush":false,"median_ms":1.0,"mean_ms":1.0,"min_ms":0.9,"q1_ms":0.95,"q3_ms":1.05,"samples_ms":[0.9,1.0,1.1],"blocks":3,"clock_source":"nvml","clock_blocks":[{"sm_mhz":[1980,1980],"reasons":[0,0],"moved":false},{"sm_mhz":[1980,1500],"reasons":[0,4],"moved":true},{"sm_mhz":[1500,1500],"reasons":[4,4],"moved":false}]}'
baselines=""
vs=""
if [[ "${FAKE_BASELINES:-0}" == 1 ]]; then
    if [[ -n "$compiled" ]]; then
        c="{\"kind\":\"compiled\",\"timing\":$timing,\"error\":\"\",\"validation\":{\"run\":true,\"passed\":true,\"seeds\":3},\"speedup_vs_eager\":2.0,\"speedup_vs_eager_ci95\":[1.8,2.3],\"speedup_vs_eager_p_value\":0.1,\"speedup_vs_eager_resamples\":2000}"
    else
        c='{"kind":"compiled","error":"no compiled package"}'
    fi
    baselines=",\"baselines\":[$c,{\"kind\":\"graph\",\"error\":\"the eager forward cannot be captured in a CUDA graph: fake\"}]"
    vs=',"speedup_ci95":[3.7,4.3],"speedup_p_value":0.1,"speedup_resamples":2000'
    if [[ -n "$compiled" ]]; then vs="$vs"',"vs":[{"baseline":"compiled","baseline_median_ms":1.0,"speedup":2.0,"speedup_ci95":[1.8,2.2],"speedup_p_value":0.1,"speedup_resamples":2000}]'; fi
fi
if [[ -n "${FAKE_SLEEP:-}" ]]; then sleep "$FAKE_SLEEP"; fi
if [[ -n "${FAKE_DEVICE_LOG:-}" ]]; then
    echo "$job ${task:--} ${CUDA_VISIBLE_DEVICES:-unset} $t_start $(date +%s.%N)" >>"$FAKE_DEVICE_LOG"
fi
if [[ "$job" == variant && -n "${FAKE_CRASH_DEVICE:-}" && "${CUDA_VISIBLE_DEVICES:-}" == "$FAKE_CRASH_DEVICE" ]]; then
    echo "crashing on GPU $CUDA_VISIBLE_DEVICES" >&2
    kill -SEGV $$
fi
case "$job" in
ceilings) echo '{"device_name":"Fake GPU","driver":"0.0","cuda":"13.0","libtorch":"2.11.0","copy_bandwidth_gbs":4000,"fp32_peak_tflops":50,"l2_bytes":62914560,"sm_clock":"1980 MHz","mem_clock":"3201 MHz"}' >"$result" ;;
baseline) echo '{"baseline":{"warmup":25,"runs":3,"l2_flush":false,"median_ms":2.0,"mean_ms":2.0,"min_ms":1.9,"q1_ms":1.95,"q3_ms":2.05,"samples_ms":[1.9,2.0,2.1]},"min_bytes":134234112,"flops":16777216'"$baselines"'}' >"$result" ;;
variant)
    if [[ "${FAKE_CRASH:-0}" == 1 && "$variant" == *kernel2* ]]; then echo "about to crash" >&2; kill -SEGV $$; fi
    echo "{\"name\":\"$variant\",\"summary\":\"fake\",\"version\":1,\"shortcut\":false,\"unsupported\":\"\",\"error\":\"\",\"validation\":{\"run\":true,\"passed\":true,\"seeds\":3,\"atol\":1e-5,\"rtol\":1e-4,\"max_abs_err\":0,\"max_rel_err\":0,\"first_mismatch\":[],\"failures\":[],\"checks\":[\"3 seeds\"]},\"timing\":{\"warmup\":25,\"runs\":3,\"l2_flush\":false,\"median_ms\":0.5,\"mean_ms\":0.5,\"min_ms\":0.5,\"q1_ms\":0.5,\"q3_ms\":0.5,\"samples_ms\":[0.49,0.5,0.51]},\"speedup\":4.0$vs,\"gbps\":268,\"pct_copy_bandwidth\":6.7,\"impossible\":false,\"impossible_why\":\"\"}" >"$result" ;;
*) echo "unknown job $job" >&2; exit 2 ;;
esac
