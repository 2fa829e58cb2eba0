#!/bin/bash
# SPDX-License-Identifier: MIT
# Fake kernelsieve-cli that crashes mid-run (as a CUDA fault or a bad kernel would): a start
# line, two valid task lines, then SIGSEGV.
here=$(dirname "$0")
ulimit -c 0
if [ "$1" = "--version" ]; then
    echo "Device cpu: fake device"
    exit 0
fi
# The first events of the stream, task_phase lines left out (the counts predate them).
grep -v '"task_phase"' "$here/../data/stream.jsonl" | sed -n '1,5p'
echo '{"event":"task_start","index":2,"total":4,"id":"L1-23"}'
echo "running L1-23 ..." >&2
sleep 0.1
kill -SEGV $$
