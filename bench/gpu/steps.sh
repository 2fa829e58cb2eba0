# SPDX-License-Identifier: MIT
# Sourced by the bench/gpu run scripts. `step NAME COMMAND...` runs the command with its output in
# $RES/NAME.log, appends its exit status and wall time to $RES/summary.txt, and packs $RES into
# $PACK after every step, so a run cut short by the device's time limit still brings back what it did.
ms() { echo $(( $(date +%s%N) / 1000000 )); }
step() {
    local name=$1; shift
    local s; s=$(ms)
    "$@" >"$RES/$name.log" 2>&1
    local rc=$?
    echo "$name: exit $rc, wall $(( $(ms) - s )) ms" | tee -a "$RES/summary.txt"
    tar -czf "$PACK" -C "$RES" .
}
