#!/bin/sh
# SPDX-License-Identifier: MIT
# Fake kernelsieve-cli on a machine without a GPU: replays data/stream.jsonl (recorded on an H200,
# full preset) with its start event saying CPU and the small preset, as the real worker would
# there. The merge-refusal tests check that such a run never goes into the H200 file.
here=$(dirname "$0")
if [ "$1" = "--version" ]; then
    echo "kernelsieve-cli 0.1.0 (fake)"
    echo "Device cpu: x86_64 (2 threads)"
    exit 0
fi
[ -n "$KS_FAKE_ARGS" ] && echo "$@" > "$KS_FAKE_ARGS"
sed -e '1s/"device":"cuda","device_name":"NVIDIA H200","driver":"580.65"/"device":"cpu","device_name":"x86_64 (2 threads)","driver":""/' \
    -e '1s/"preset":"full"/"preset":"small"/' "$here/../data/stream.jsonl" |
while IFS= read -r line; do
    printf '%s\n' "$line"
    sleep 0.02
done
echo "done" >&2
exit 0
