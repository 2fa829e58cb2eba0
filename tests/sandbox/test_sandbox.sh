#!/bin/bash
# SPDX-License-Identifier: MIT
# kernelsieve-sandbox against the hostile programs in tests/data/hostile/sandbox (docs/sandbox.md).
# Usage: test_sandbox.sh PATH/TO/kernelsieve-sandbox
# Exit 0: every case passed; 77: `--check` says the sandbox is unavailable here (reason printed);
# 1: a case failed (each failure is printed with what was expected).
set -u

HELPER=${1:?usage: test_sandbox.sh PATH/TO/kernelsieve-sandbox}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P) # physical: the sandbox sees no symlinks of ours
SRC=$(cd "$HERE/../.." && pwd -P)
FIX=$SRC/tests/data/hostile/sandbox
PY=/usr/bin/python3
[ -x "$HELPER" ] || { echo "FAIL: $HELPER is not an executable"; exit 1; }
[ -x "$PY" ] || { echo "FAIL: the fixtures need $PY"; exit 1; }

failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
pass() { echo "ok: $*"; }

check_out=$("$HELPER" --check 2>&1)
check_rc=$?
echo "$check_out"
if [ $check_rc -eq 1 ] && [[ $check_out == "sandbox: unavailable: "* ]]; then
    echo "SKIPPED: the sandbox is unavailable on this machine (reason above)"
    exit 77
fi
[ $check_rc -eq 0 ] && [[ $check_out == "sandbox: ok ("*"read-only /"* ]] \
    || { echo "FAIL: --check exited $check_rc without 'sandbox: ok (... read-only / ...)'"; exit 1; }
pass "--check"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/ks-sandbox-test.XXXXXX")
LISTENER=
cleanup() {
    [ -n "$LISTENER" ] && kill "$LISTENER" 2>/dev/null
    rm -rf "$WORK"
}
trap cleanup EXIT
TAG=ks-sandbox-$$-$RANDOM # unique, to find our processes in /proc and our probe files

# Host PIDs of processes whose command line contains $1 (this script's own never does).
find_procs() {
    local f content found=
    for f in /proc/[0-9]*/cmdline; do
        content=$( { tr '\0' ' ' <"$f"; } 2>/dev/null) || continue # it may have exited
        [[ $content == *"$1"* ]] && found+="${f//[^0-9]/} "
    done
    echo "$found"
}

# Polls up to $2 tenths of a second for file $1.
wait_file() {
    local i
    for ((i = 0; i < $2; i++)); do
        [ -e "$1" ] && return 0
        sleep 0.1
    done
    return 1
}

# --ro "$FIX": the fixtures stay visible when the source tree is under /tmp (the sandbox's /tmp
# is its own); elsewhere it is a read-only folder bound over itself.
sb() { "$HELPER" --rw "$WORK" --ro "$FIX" "$@"; }

# --- writes: only the --rw folder and the private /tmp -------------------------------------
targets=("$HOME" "$SRC" /etc /var/tmp)
out=$(sb -- /bin/sh "$FIX/write_everywhere.sh" "$TAG" "${targets[@]}" "$WORK" /tmp 2>&1)
for dir in "${targets[@]}"; do
    if [ -e "$dir/$TAG" ]; then
        fail "a write into $dir from the sandbox reached the host"; rm -f "$dir/$TAG"
    elif [[ $dir == /tmp/* ]] && grep -qx "written: $dir" <<<"$out"; then
        pass "write into $dir went to the sandbox's own /tmp, not the host's"
    elif ! grep -qx "refused: $dir" <<<"$out"; then
        fail "a write into $dir from the sandbox was not refused: $out"
    elif [ ! -w "$dir" ]; then
        pass "write into $dir refused (it is not writable on the host either: case says little)"
    else
        pass "write into $dir refused"
    fi
done
if grep -qx "written: $WORK" <<<"$out" && [ -f "$WORK/$TAG" ]; then
    owner=$(stat -c %u "$WORK/$TAG")
    [ "$owner" = "$(id -u)" ] && pass "write into --rw $WORK, owned by uid $owner" \
        || fail "the file written in --rw belongs to uid $owner, not the caller's $(id -u)"
else
    fail "a write into the --rw folder $WORK failed: $out"
fi
grep -qx "written: /tmp" <<<"$out" && pass "write into the private /tmp" \
    || fail "a write into the sandbox's /tmp failed: $out"
[ -e "/tmp/$TAG" ] && { fail "/tmp/$TAG from the sandbox appeared in the host's /tmp"; rm -f "/tmp/$TAG"; }

out=$(sb -- /bin/sh "$FIX/remount.sh" 2>&1)
[ "$out" = contained ] && pass "remounting / or /etc writable refused (no capabilities)" \
    || { fail "the program remounted the read-only view writable: $out"; rm -f /etc/kernelsieve-sandbox-escape; }

# --ro inside a --rw folder: readable, not writable; the --rw folder around it still is.
mkdir "$WORK/ro" && echo inside >"$WORK/ro/file"
out=$(sb --ro "$WORK/ro" -- /bin/sh -c 'cat "$1/ro/file"; echo x >"$1/ro/new" || echo refused; echo y >"$1/beside" && echo written' sh "$WORK" 2>/dev/null)
[ "$out" = "$(printf 'inside\nrefused\nwritten')" ] && [ ! -e "$WORK/ro/new" ] \
    && pass "--ro inside --rw: readable, not writable" || fail "--ro $WORK/ro inside --rw $WORK: '$out'"

# --- a daemon left behind dies with the program ---------------------------------------------
sb -- "$PY" "$FIX/daemon.py" "$TAG" "$WORK"
rc=$?
left=$(find_procs "$TAG")
if [ $rc -ne 0 ] || [ ! -e "$WORK/daemon-started" ]; then
    fail "the daemon fixture did not start its daemon (status $rc)"
elif [ -n "$left" ]; then
    fail "the daemon is still running after the helper returned (host PIDs $left)"; kill -9 $left
elif [ -e "$WORK/daemon-$TAG" ]; then
    fail "the daemon wrote its marker"
else
    pass "the daemon (double fork + setsid) was killed when the program exited"
fi

# --- no network -----------------------------------------------------------------------------
"$PY" -c '
import socket, sys
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(8)
open(sys.argv[1] + ".tmp", "w").write(str(s.getsockname()[1]))
import os; os.rename(sys.argv[1] + ".tmp", sys.argv[1])
while True: s.accept()[0].close()' "$WORK/port" &
LISTENER=$!
if wait_file "$WORK/port" 100; then
    port=$(cat "$WORK/port")
    out=$(sb -- "$PY" "$FIX/connect.py" 127.0.0.1 "$port" 2>&1) \
        && fail "the sandbox reached the host's 127.0.0.1:$port: $out" \
        || pass "no connection to the host's 127.0.0.1:$port ($out)"
    out=$(sb -- "$PY" "$FIX/connect.py" 1.1.1.1 80 2>&1) \
        && fail "the sandbox reached 1.1.1.1:80: $out" || pass "no connection to 1.1.1.1:80 ($out)"
    # The control: with --net the same connection works, so the refusal above was the sandbox's.
    out=$(sb --net -- "$PY" "$FIX/connect.py" 127.0.0.1 "$port" 2>&1) \
        && pass "with --net, 127.0.0.1:$port is reachable" || fail "with --net: $out"
else
    fail "the test's TCP listener did not start"
fi
kill "$LISTENER" 2>/dev/null; wait "$LISTENER" 2>/dev/null; LISTENER=

# --- resource limits ------------------------------------------------------------------------
out=$(sb --fsize 1M -- "$PY" "$FIX/fill_file.py" "$WORK/big" 4 2>&1)
rc=$?
size=$(stat -c %s "$WORK/big" 2>/dev/null || echo 0)
{ [ $rc -eq 3 ] || [ $rc -eq $((128 + 25)) ]; } && [ "$size" -le $((1 << 20)) ] \
    && pass "--fsize 1M: a 4 MiB write stopped at $size bytes (status $rc)" \
    || fail "--fsize 1M: status $rc (expected 3 for EFBIG or 153 for SIGXFSZ), file $size bytes: $out"

start=$SECONDS
sb --cpu 1 -- "$PY" "$FIX/burn_cpu.py" 2>/dev/null
rc=$?
{ [ $rc -eq $((128 + 24)) ] || [ $rc -eq $((128 + 9)) ]; } \
    && pass "--cpu 1: killed after $((SECONDS - start)) s (status $rc)" \
    || fail "--cpu 1: status $rc, expected 152 (SIGXCPU) or 137 (SIGKILL)"

out=$(sb --mem 256M -- "$PY" "$FIX/eat_memory.py" 1024 2>&1)
rc=$?
[ $rc -eq 3 ] && pass "--mem 256M: MemoryError" || fail "--mem 256M: status $rc, expected 3 (MemoryError): $out"

if [ "$(id -u)" -ne 0 ]; then
    out=$(sb --nproc 16 -- "$PY" "$FIX/fork_many.py" 64 2>&1)
    rc=$?
    [ $rc -eq 3 ] && pass "--nproc 16: $out" || fail "--nproc 16: status $rc, expected 3 (EAGAIN): $out"
elif command -v setpriv >/dev/null; then
    # Root is exempt from RLIMIT_NPROC (the kernel's rule), so try it as nobody.
    mkdir "$WORK/nobody" && chown 65534:65534 "$WORK/nobody" && chmod 755 "$WORK"
    out=$(setpriv --reuid 65534 --regid 65534 --clear-groups \
        "$HELPER" --rw "$WORK/nobody" --ro "$FIX" --nproc 16 -- "$PY" "$FIX/fork_many.py" 64 2>&1)
    rc=$?
    [ $rc -eq 3 ] && pass "--nproc 16 as nobody: $out" \
        || fail "--nproc 16 as nobody: status $rc, expected 3 (EAGAIN): $out"
else
    echo "skipped: --nproc (root is exempt from RLIMIT_NPROC and setpriv is missing)"
fi

# --- exit status, signals, file descriptors -------------------------------------------------
sb -- /bin/sh "$FIX/segfault.sh" 2>/dev/null
rc=$?
[ $rc -eq 139 ] && pass "SIGSEGV: status 139" || fail "a program dying of SIGSEGV gave status $rc, expected 139"

sb -- /bin/sh "$FIX/exit7.sh" >"$WORK/out" 2>"$WORK/err" 3>"$WORK/fd3"
rc=$?
[ $rc -eq 7 ] && pass "exit status 7" || fail "exit status $rc, expected 7"
[ "$(cat "$WORK/out")" = to-stdout ] && [ "$(cat "$WORK/err")" = to-stderr ] && [ "$(cat "$WORK/fd3")" = to-fd3 ] \
    && pass "stdout, stderr and fd 3 pass through" \
    || fail "stdout/stderr/fd 3 did not pass through: '$(cat "$WORK/out")' '$(cat "$WORK/err")' '$(cat "$WORK/fd3")'"

sb -- /nonexistent/program 2>/dev/null
rc=$?
[ $rc -eq 127 ] && pass "a missing program: status 127" || fail "a missing program gave status $rc, expected 127"
printf '#!/bin/sh\necho ran\n' >"$WORK/not-executable"
chmod 644 "$WORK/not-executable"
sb -- "$WORK/not-executable" 2>/dev/null
rc=$?
[ $rc -eq 126 ] && pass "a program that cannot run: status 126" || fail "a non-executable program gave status $rc, expected 126"
out=$("$HELPER" --rw "$WORK/missing" -- true 2>&1)
rc=$?
[ $rc -eq 125 ] && [[ $out == "kernelsieve-sandbox: --rw $WORK/missing: No such file or directory"* ]] \
    && pass "a missing --rw folder: status 125, '$out'" || fail "a missing --rw folder gave status $rc: $out"

"$HELPER" --rw "$WORK" --ro "$FIX" -- "$PY" "$FIX/trap_sigint.py" "$WORK" & # $! is the helper
helper=$!
if wait_file "$WORK/sigint-ready" 100; then
    kill -INT $helper
    wait $helper
    rc=$?
    [ $rc -eq 0 ] && [ -e "$WORK/sigint-got" ] && pass "SIGINT to the helper reached the program" \
        || fail "SIGINT to the helper: status $rc, program's marker $( [ -e "$WORK/sigint-got" ] && echo written || echo missing)"
else
    fail "the SIGINT fixture did not start"; kill -9 $helper
fi

# SIGKILL to the helper, then to the helper's parent: the program must die each time.
for who in helper parent; do
    rm -f "$WORK/pid"
    if [ $who = helper ]; then
        "$HELPER" --rw "$WORK" --ro "$FIX" -- "$PY" "$FIX/sleeper.py" "$WORK" "$TAG-$who" &
        victim=$!
    else
        bash -c '"$@" & wait' bash "$HELPER" --rw "$WORK" --ro "$FIX" -- "$PY" "$FIX/sleeper.py" "$WORK" "$TAG-$who" &
        victim=$!
    fi
    if ! wait_file "$WORK/pid" 100; then
        fail "SIGKILL to the $who: the sleeper did not start"; kill -9 $victim; continue
    fi
    # The helper and init carry the same tag; the program is the one whose innermost PID (the
    # last NSpid field) is the one it wrote.
    inner=$(cat "$WORK/pid") host_pid=
    for p in $(find_procs "$TAG-$who"); do
        ns=$(awk '/^NSpid:/ {print NF - 1, $NF}' "/proc/$p/status" 2>/dev/null)
        [ "$ns" = "2 $inner" ] && host_pid=$p
    done
    [ -n "$host_pid" ] \
        || { fail "SIGKILL to the $who: PID $(cat "$WORK/pid") (sandbox) not found on the host"; kill -9 $victim; continue; }
    kill -KILL $victim
    wait $victim 2>/dev/null
    for ((i = 0; i < 50 && ${#host_pid} > 0; i++)); do
        [ -e "/proc/$host_pid" ] || break
        sleep 0.1
    done
    [ -e "/proc/$host_pid" ] && { fail "SIGKILL to the $who: the program (host PID $host_pid) still runs"; kill -9 "$host_pid"; } \
        || pass "SIGKILL to the $who killed the program (PID $inner inside, $host_pid on the host)"
done

out=$("$HELPER" --check --verbose --rw "$WORK" 2>&1)
echo "--check --verbose --rw $WORK:"
echo "$out" | sed 's/^/    /'
grep -q "^sandbox: ok (.*writable: $WORK" <<<"$out" && pass "--check lists the --rw folder" \
    || fail "--check --rw $WORK does not list the folder as writable"

if [ $failures -ne 0 ]; then
    echo "$failures case(s) failed"
    exit 1
fi
echo "all sandbox cases passed"
