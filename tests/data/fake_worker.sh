#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A stand-in for `kernelsieve-cli worker` on machines without a GPU: answers each harness job
# with a canned result, crashes for variants whose name contains "kernel2" when FAKE_CRASH=1.
# FAKE_OPTIONS_LOG=FILE appends each job's --options JSON to FILE.
job="" result="" variant="" options=""
while [[ $# -gt 0 ]]; do
    case "$1" in
    --job) job=$2 ;; --result) result=$2 ;; --variant) variant=$2 ;; --options) options=$2 ;;
    esac
    shift 2
done
if [[ -n "${FAKE_OPTIONS_LOG:-}" ]]; then echo "$job $options" >>"$FAKE_OPTIONS_LOG"; fi
case "$job" in
ceilings) echo '{"device_name":"Fake GPU","driver":"0.0","cuda":"13.0","libtorch":"2.11.0","copy_bandwidth_gbs":4000,"fp32_peak_tflops":50,"l2_bytes":62914560,"sm_clock":"1980 MHz","mem_clock":"3201 MHz"}' >"$result" ;;
baseline) echo '{"baseline":{"warmup":25,"runs":3,"l2_flush":false,"median_ms":2.0,"mean_ms":2.0,"min_ms":1.9,"q1_ms":1.95,"q3_ms":2.05,"samples_ms":[1.9,2.0,2.1]},"min_bytes":134234112,"flops":16777216}' >"$result" ;;
variant)
    if [[ "${FAKE_CRASH:-0}" == 1 && "$variant" == *kernel2* ]]; then echo "about to crash" >&2; kill -SEGV $$; fi
    echo "{\"name\":\"$variant\",\"summary\":\"fake\",\"version\":1,\"shortcut\":false,\"unsupported\":\"\",\"error\":\"\",\"validation\":{\"run\":true,\"passed\":true,\"seeds\":3,\"atol\":1e-5,\"rtol\":1e-4,\"max_abs_err\":0,\"max_rel_err\":0,\"first_mismatch\":[],\"failures\":[],\"checks\":[\"3 seeds\"]},\"timing\":{\"warmup\":25,\"runs\":3,\"l2_flush\":false,\"median_ms\":0.5,\"mean_ms\":0.5,\"min_ms\":0.5,\"q1_ms\":0.5,\"q3_ms\":0.5,\"samples_ms\":[0.49,0.5,0.51]},\"speedup\":4.0,\"gbps\":268,\"pct_copy_bandwidth\":6.7,\"impossible\":false,\"impossible_why\":\"\"}" >"$result" ;;
*) echo "unknown job $job" >&2; exit 2 ;;
esac
