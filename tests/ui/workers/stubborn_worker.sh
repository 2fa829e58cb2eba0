#!/bin/bash
# SPDX-License-Identifier: MIT
# Fake kernelsieve-cli stuck inside a seed (a hung kernel): ignores SIGTERM, so only the
# GUI's follow-up SIGKILL stops it.
here=$(dirname "$0")
trap '' TERM
sed -n '1,3p' "$here/../data/stream.jsonl"
while true; do
    sleep 0.1
done
