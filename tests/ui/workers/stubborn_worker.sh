#!/bin/bash
# SPDX-License-Identifier: MIT
# Fake kernelsieve-cli stuck inside a seed (a hung kernel): ignores SIGTERM, so only the
# GUI's follow-up SIGKILL stops it.
here=$(dirname "$0")
trap '' TERM
# The first events of the stream, task_phase lines left out (the counts predate them).
grep -v '"task_phase"' "$here/../data/stream.jsonl" | sed -n '1,3p'
while true; do
    sleep 0.1
done
