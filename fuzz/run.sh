#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds the libFuzzer targets of fuzz/ with clang and runs each for a while on a seed corpus of
# the repository's real files (README "Fuzzing"). ctest's fuzz.loaders runs it for a few seconds
# per target; the long run recorded in bench/fuzz/ is the same script with a larger --seconds.
#
#   fuzz/run.sh [--build-dir DIR] [--seconds N] [--jobs N] [TARGET...]
#
# DIR (default build/fuzz) keeps the build, the growing corpus (DIR/corpus/<target>), the logs
# and any crashing input (DIR/crashes/). Exit status: 0 when no target failed; 1 when one did
# (the report, the saved input and the command that replays it are printed); 77 when the
# machine has no clang with libFuzzer (ctest shows the test as skipped); 2 for a usage error.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ALL=(results bench profile taskspec suite reports callplan manifest)
BUILD_DIR=$ROOT/build/fuzz
PER_TARGET=7
JOBS=${KS_JOBS:-$(nproc)}
TARGETS=()
while (($#)); do
    case $1 in
    --build-dir) BUILD_DIR=$2; shift 2 ;;
    --seconds) PER_TARGET=$2; shift 2 ;;
    --jobs) JOBS=$2; shift 2 ;;
    -h | --help) sed -n '3,12p' "$0"; exit 0 ;;
    -*) echo "fuzz/run.sh: unknown option $1" >&2; exit 2 ;;
    *) TARGETS+=("$1"); shift ;;
    esac
done
((${#TARGETS[@]})) || TARGETS=("${ALL[@]}")
for t in "${TARGETS[@]}"; do
    [[ " ${ALL[*]} " == *" $t "* ]] || { echo "fuzz/run.sh: no target '$t' (there are: ${ALL[*]})" >&2; exit 2; }
done

skip() { echo "SKIPPED: $*"; exit 77; }

# --- a clang that links libFuzzer with both sanitizers --------------------------------------
CXX=${KS_FUZZ_CXX:-}
if [[ -z $CXX ]]; then
    for c in clang++ clang++-{19,18,17,16,15,14}; do
        if command -v "$c" >/dev/null; then CXX=$(command -v "$c"); break; fi
    done
fi
[[ -n $CXX ]] || skip "no clang++ here; libFuzzer comes with clang (apt-get install clang libclang-rt-dev, or set KS_FUZZ_CXX)"
probe=$(mktemp -d)
trap 'rm -rf "$probe"' EXIT
printf '%s\n' '#include <cstddef>' '#include <cstdint>' \
    'extern "C" int LLVMFuzzerTestOneInput(const uint8_t*, size_t) { return 0; }' >"$probe/p.cpp"
if ! "$CXX" -fsanitize=fuzzer,address,undefined "$probe/p.cpp" -o "$probe/p" 2>"$probe/log"; then
    skip "$CXX cannot link -fsanitize=fuzzer,address,undefined, libclang_rt.fuzzer is probably missing" \
        "(apt-get install libclang-rt-dev): $(tail -n 1 "$probe/log")"
fi
command -v python3 >/dev/null || skip "python3 is needed to build the seed corpus (fuzz/make_corpus.py)"

# --- build ------------------------------------------------------------------------------------
mkdir -p "$BUILD_DIR"
gen=()
if [[ ! -f $BUILD_DIR/CMakeCache.txt ]] && command -v ninja >/dev/null; then gen=(-G Ninja); fi
echo "fuzz: building with $CXX in $BUILD_DIR ($JOBS jobs)"
if ! cmake -S "$ROOT/fuzz" -B "$BUILD_DIR" "${gen[@]}" -DCMAKE_CXX_COMPILER="$CXX" >"$BUILD_DIR/configure.log" 2>&1 ||
    ! cmake --build "$BUILD_DIR" -j "$JOBS" --target "${TARGETS[@]/#/fuzz_}" >"$BUILD_DIR/build.log" 2>&1; then
    tail -n 40 "$BUILD_DIR/configure.log" "$BUILD_DIR/build.log" 2>/dev/null
    echo "fuzz: the build failed (logs in $BUILD_DIR)"
    exit 1
fi
python3 "$ROOT/fuzz/make_corpus.py" "$BUILD_DIR"

# --- run --------------------------------------------------------------------------------------
mkdir -p "$BUILD_DIR/logs" "$BUILD_DIR/crashes"
# The suite and manifest targets write their folders under TMPDIR; a crash leaves them behind.
export TMPDIR=$BUILD_DIR/tmp
rm -rf "$TMPDIR" && mkdir -p "$TMPDIR"
# libFuzzer's final lines of every target, for the record (bench/fuzz/ keeps those of long runs).
summary=$BUILD_DIR/logs/final-stats.txt
echo "# fuzz/run.sh --seconds $PER_TARGET, $("$CXX" --version | head -n 1), $(date -u +%Y-%m-%dT%H:%MZ)" >"$summary"
failed=()
for t in "${TARGETS[@]}"; do
    mkdir -p "$BUILD_DIR/corpus/$t"
    log=$BUILD_DIR/logs/$t.log
    rm -f "$BUILD_DIR/crashes/$t-"*
    # New inputs go to corpus/<t> (kept between runs), seeds/<t> is only read. -timeout: an input
    # taking 10 s is a hang; libFuzzer's own exit codes (77 for a crash) would read as "skipped".
    rc=0
    "$BUILD_DIR/bin/fuzz_$t" -max_total_time="$PER_TARGET" -timeout=10 -rss_limit_mb=2048 \
        -max_len=65536 -dict="$BUILD_DIR/dict/$t.dict" -artifact_prefix="$BUILD_DIR/crashes/$t-" \
        -error_exitcode=1 -timeout_exitcode=1 -print_final_stats=1 \
        "$BUILD_DIR/corpus/$t" "$BUILD_DIR/seeds/$t" >"$log" 2>&1 || rc=$?
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
    last=$(grep -E '^#[0-9]+' "$log" | tail -n 1 | sed -E 's/.*(cov: [0-9]+).*(corp: [^ ]+).*/\1 \2/')
    printf 'fuzz: %-9s %5ss %10s inputs  %s\n' "$t" "$PER_TARGET" "${runs:-?}" "${last:-}"
    { echo "## fuzz_$t (exit $rc)"; grep -E '^#[0-9]+' "$log" | tail -n 1; grep -E '^(stat::|Done )' "$log"; } >>"$summary"
    if ((rc != 0)); then
        failed+=("$t")
        echo "---- fuzz_$t failed (exit $rc); the end of $log:"
        grep -v -E '^#[0-9]+' "$log" | tail -n 40
        for f in "$BUILD_DIR/crashes/$t-"*; do
            [[ -e $f ]] && echo "---- input saved as $f; replay: $BUILD_DIR/bin/fuzz_$t $f"
        done
    fi
done
rm -rf "$TMPDIR"
if ((${#failed[@]})); then
    echo "fuzz: FAILED: ${failed[*]}"
    exit 1
fi
echo "fuzz: no target crashed"
