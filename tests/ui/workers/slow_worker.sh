#!/bin/bash
# SPDX-License-Identifier: MIT
# Fake kernelsieve-cli that behaves like a long run: one task, then "seeds" of 0.1 s forever.
# On SIGTERM it stops after the current seed, reports done/cancelled and exits 130, as the CLI does.
here=$(dirname "$0")
cancelled=0
trap 'cancelled=1' TERM INT
# The first events of the stream, task_phase lines left out (the counts predate them).
grep -v '"task_phase"' "$here/../data/stream.jsonl" | sed -n '1,3p'
echo '{"event":"task_start","index":1,"total":4,"id":"L1-12"}'
while [ $cancelled -eq 0 ]; do
    sleep 0.1
done
echo '{"event":"done","cancelled":true,"total_s":1.0}'
echo "done (cancelled; finished tasks kept)" >&2
exit 130
