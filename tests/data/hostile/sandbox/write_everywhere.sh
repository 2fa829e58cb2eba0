#!/bin/sh
# SPDX-License-Identifier: MIT
# Tries to write a probe file into each folder given; prints "written: DIR" or "refused: DIR".
# The sandbox test expects "written" only for the --rw folder and /tmp.
name=$1
shift
for dir in "$@"; do
    if (echo hostile > "$dir/$name") 2>/dev/null; then echo "written: $dir"; else echo "refused: $dir"; fi
done
