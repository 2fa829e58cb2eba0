#!/bin/sh
# SPDX-License-Identifier: MIT
# Fake kernelsieve-cli: replays data/stream.jsonl (a 4-task run) with short pauses and exits 0.
# Writes its arguments to $KS_FAKE_ARGS if set, so tests can check what the GUI asked for.
here=$(dirname "$0")
if [ "$1" = "--version" ]; then
    echo "kernelsieve-cli 0.1.0 (fake)"
    echo "LibTorch 2.11.0"
    echo "Device ${KS_FAKE_DEVICE:-cpu}: fake device"
    exit 0
fi
[ -n "$KS_FAKE_ARGS" ] && echo "$@" > "$KS_FAKE_ARGS"
while IFS= read -r line; do
    printf '%s\n' "$line"
    sleep 0.02
done < "$here/../data/stream.jsonl"
echo "done" >&2
exit 0
