#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Issue 17, lease 11: the KernelBench level-1 tasks whose filter 6 or statistics ran out of memory
# on an 80 GiB H100 (bench/engine/h100-2026-12-06-lease11/b-six-l1.log), and the seven the cut run
# did not reach, imported and filtered again with all six criteria after filter 6 learned to hold
# one check run's arguments at a time and the input-impact pass to run after the output pass.
# Expects build/gpu (bench/gpu/build.sh kernelsieve-cli kernelsieve-sandbox). Files in $OUT/kb.tgz.
set -uo pipefail
cd "$(dirname "$0")/../.."
IDS=${IDS:-"4 19 45 63 76 84 87 89 93 94 95 96 97 98 99 100"}
SEL=${SEL:-/tmp/ks-kbsel}
rm -rf "$SEL"; mkdir -p "$SEL/level1"
for i in $IDS; do cp .kb/sf/KernelBench/level1/${i}_*.py "$SEL/level1/"; done
KB=$SEL LEVELS=1 T_IMPORT=${T_IMPORT:-200} T_SIX=${T_SIX:-400} WORK=${WORK:-/tmp/ks-kb} bash bench/gpu/run_kernelbench.sh import six
