#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Issue 17: parallel import workers share the GPU; a file that runs out of GPU memory beside
# others is retried alone (the other workers gone) before its error is reported. Last, a file that
# breaks its worker's CUDA context.
# Usage: test_import_oom.sh CLI PYTHON FIXTURE_DIR WORK_DIR
set -uo pipefail
CLI=$1 PY=$2 FIX=$3 WORK=$4
"$PY" -c 'import torch' 2>/dev/null || { echo "SKIP: $PY has no torch"; exit 77; }
rm -rf "$WORK"; mkdir -p "$WORK"
fail() { echo "FAIL: $*"; echo "--- output"; cat "$WORK/out.txt"; exit 1; }

"$CLI" import-kernelbench "$FIX" --out "$WORK/two" --jobs 2 --trace-device cpu --python "$PY" >"$WORK/out.txt" 2>"$WORK/err.txt"
rc=$?
[[ $rc == 0 || $rc == 1 ]] || fail "exit $rc with --jobs 2 ($(tail -3 "$WORK/err.txt"))"
grep -E '^ok .*1_Needs_the_device_alone.*retried alone' "$WORK/out.txt" >/dev/null \
    || fail "the out-of-memory file was not imported by its retry alone"
grep -E '^error .*2_Always_out_of_memory.*CUDA out of memory.*retried alone' "$WORK/out.txt" >/dev/null \
    || fail "a file out of memory even alone must be an error naming the retry"
grep -E '^ok .*3_Plain_tanh' "$WORK/out.txt" >/dev/null || fail "the ordinary file was not imported"
grep -E '3_Plain_tanh.*retried' "$WORK/out.txt" >/dev/null && fail "an ordinary file was retried"
# output in file order, whatever ran when
order=$(grep -oE '[123]_(Needs|Always|Plain)' "$WORK/out.txt" | tr '\n' ' ')
[[ "$order" == "1_Needs 2_Always 3_Plain " ]] || fail "events out of file order: $order"
# The retries wait for the files after them, then share one worker with the whole device: one
# drain for all of them, not one each (the fixtures print where they ran; task prints go to stderr).
pids=$(grep -oE 'retried alone in pid [0-9]+' "$WORK/err.txt" | awk '{print $NF}' | sort -u)
[[ $(grep -c 'retried alone in pid' "$WORK/err.txt") == 2 ]] || fail "expected two retries alone: $(cat "$WORK/err.txt")"
[[ $(echo "$pids" | wc -l) == 1 ]] || fail "the two retries alone ran on different workers: $pids"
first_alone=$(grep -n 'retried alone in pid' "$WORK/err.txt" | head -1 | cut -d: -f1)
last_plain=$(grep -n 'plain file beside the others' "$WORK/err.txt" | tail -1 | cut -d: -f1)
[[ -n $last_plain && $last_plain -lt $first_alone ]] || fail "a retry alone ran before the file after it: $(cat "$WORK/err.txt")"

# Said when it happens, on stderr: the file's own line waits for the retry.
grep -q '^retry 1_Needs_the_device_alone.py: out of GPU memory beside the other import workers' "$WORK/err.txt" \
    || fail "no progress line for the deferred retry: $(cat "$WORK/err.txt")"
grep -q '^retry 2_Always_out_of_memory.py: ' "$WORK/err.txt" || fail "no progress line for the second retry"
grep -q '^retry 3_Plain' "$WORK/err.txt" && fail "a plain file was announced as retried"
# The plain file is done before both retries; its line waits for theirs, and stderr says how far
# the import is meanwhile.
grep -q '^1 of 3 files done; the next line waits for 1_Needs_the_device_alone.py$' "$WORK/err.txt" \
    || fail "no progress line while the lines wait for the retries: $(cat "$WORK/err.txt")"

# One worker: every file already has the device alone; nothing is retried.
"$CLI" import-kernelbench "$FIX" --out "$WORK/one" --jobs 1 --trace-device cpu --python "$PY" >"$WORK/out.txt" 2>"$WORK/err.txt"
grep -E '^ok .*1_Needs_the_device_alone' "$WORK/out.txt" >/dev/null || fail "--jobs 1: the file should have had the device alone"
grep -q 'retried' "$WORK/out.txt" && fail "--jobs 1 retried something"
grep -E '^error .*2_Always_out_of_memory' "$WORK/out.txt" >/dev/null || fail "--jobs 1: the always-OOM file must fail"
# A file that breaks its worker's CUDA context (KS_TEST_BREAK_CONTEXT_ON_FILE stands for a
# device-side assert): an error, and one worker still imports every file after it (a fresh one).
KS_TEST_BREAK_CONTEXT_ON_FILE=1_Needs_the_device_alone.py "$CLI" import-kernelbench "$FIX" --out "$WORK/ctx" --jobs 1 \
    --trace-device cpu --python "$PY" >"$WORK/out.txt" 2>"$WORK/err.txt"
grep -E '^error .*1_Needs_the_device_alone.*the CUDA context is broken after it \(CUDA error: device-side assert' \
    "$WORK/out.txt" >/dev/null || fail "the file that broke the context must be an error saying so"
grep -E '^error .*2_Always_out_of_memory.*CUDA out of memory' "$WORK/out.txt" >/dev/null \
    || fail "the file after a broken context must be imported as without it"
grep -E '^ok .*3_Plain_tanh' "$WORK/out.txt" >/dev/null || fail "the last file was not imported after a broken context"
grep -q 'died while importing' "$WORK/out.txt" && fail "a file after the broken context was blamed for its worker's end"
[[ -e "$WORK/ctx/level1/1_Needs_the_device_alone.json" ]] && fail "the file that broke the context left its task"
echo "PASS"
