#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# install.package: the Debian package and the prefix install, for real (issue 16).
#
#   test_install.sh BUILD_DIR SOURCE_DIR TORCH_PYTHON VERSION TORCH_VERSION HAVE_GUI
#
# 1. cpack -G DEB in BUILD_DIR (the already built tree: nothing is rebuilt), the package's metadata,
#    apt-get install of the .deb (dpkg -i where apt-get is missing), what it installed.
# 2. In a private mount namespace where SOURCE_DIR, BUILD_DIR and the build's torch installation
#    are hidden (so an installed program cannot fall back to the build tree), from /tmp with a
#    clean environment (env -i HOME PATH): kernelsieve-cli --version, a CPU filter pass of three
#    built-in tasks, import-kernelbench of one file through the installed exporter, the GUI
#    offscreen (its worker probe must find LibTorch) and closed; the launcher's clear messages for
#    no torch, a missing library and the wrong torch version.
# 3. dpkg --purge, and nothing left. Then the same checks for `cmake --install BUILD --prefix DIR`.
#
# LibTorch comes from the build's torch installation seen at another path, through the package's
# documented default ~/.local/share/kernelsieve/venv (a venv), or KS_PYTHON (a system python).
# Needs root (dpkg); skipped (77, saying why) otherwise, or where kernelsieve is already installed
# (the test would replace and remove it). Serialised with a lock: concurrent runs share dpkg.
set -uo pipefail

if [[ ${1:-} == --checks ]]; then MODE=checks; shift; else MODE=main; fi

fail() { printf 'FAIL: %s\n' "$*" >&2; exit 1; }
skip() { printf 'SKIPPED: %s\n' "$*"; exit 77; }
step() { printf '\n== %s\n' "$*"; }
ok() { printf 'ok: %s\n' "$*"; }

# --- checks of one installation, inside the private mount namespace --------------------------
# args: PREFIX WORK SOURCE BUILD VENV_REAL (empty for a system python) TORCH_PYTHON VERSION
#       TORCH_VERSION HAVE_GUI
run_checks() {
    local prefix=$1 work=$2 source=$3 build=$4 venv_real=$5 torch_python=$6 version=$7 torch_version=$8 gui=$9
    local home=$work/home python view_python
    rm -rf "$home" && mkdir -p "$home/.local/share/kernelsieve" || fail "cannot create $home"

    # The build's torch, at a path that is not the build tree's.
    if [[ -n $venv_real ]]; then
        mkdir -p "$work/torch-venv" && mount --bind "$venv_real" "$work/torch-venv" \
            || fail "cannot bind $venv_real to $work/torch-venv"
        ln -s "$work/torch-venv" "$home/.local/share/kernelsieve/venv"
        view_python=$home/.local/share/kernelsieve/venv/bin/python3
        python=() # the documented default location, nothing in the environment
    else
        view_python=$torch_python
        python=("KS_PYTHON=$torch_python")
    fi
    # Hide the trees, deepest first (a folder under an already hidden one is gone).
    local d
    while read -r d; do
        [[ -d $d ]] || continue
        mount -t tmpfs -o size=1m,mode=0755 ks-hidden "$d" || fail "cannot hide $d"
    done < <(printf '%s\n' "$build" "$source" ${venv_real:+"$venv_real"} | awk '{ print length, $0 }' | sort -rn | cut -d' ' -f2-)
    [[ ! -e $source/CMakeLists.txt && ! -e $build/CMakeCache.txt ]] || fail "the source or build tree is still visible"
    ok "hidden: $source, $build${venv_real:+, $venv_real} (torch seen as $view_python)"

    local torch_dir
    torch_dir=$(env -i PATH=/usr/bin:/bin "$view_python" -c \
        'import importlib.util as u; print(u.find_spec("torch").submodule_search_locations[0])') \
        || fail "no torch through $view_python"
    local clean=(env -i "HOME=$home" PATH=/usr/bin:/bin LANG=C.UTF-8 "${python[@]}")
    local cli=$prefix/bin/kernelsieve-cli out rc
    cd /tmp || fail "no /tmp"

    step "kernelsieve-cli --version ($cli, clean environment, from /tmp)"
    rm -f "$work/launch.log"
    out=$("${clean[@]}" KS_LAUNCHER_LOG="$work/launch.log" "$cli" --version 2>&1); rc=$?
    printf '%s\n' "$out"
    ((rc == 0)) || fail "kernelsieve-cli --version exited $rc"
    grep -qx "kernelsieve-cli $version" <<<"$out" || fail "--version does not name the package version $version"
    grep -q "^LibTorch ${torch_version%%+*}" <<<"$out" || fail "--version does not report LibTorch $torch_version"
    cat "$work/launch.log"
    grep -q "at $torch_dir;" "$work/launch.log" || fail "the launcher did not use the torch at $torch_dir"
    grep -q "running $prefix/libexec/kernelsieve-cli$" "$work/launch.log" || fail "the launcher ran another program"
    local dyn program
    for program in kernelsieve-cli kernelsieve-engine; do
        dyn=$(readelf -d "$prefix/libexec/$program") || fail "readelf $prefix/libexec/$program"
        ! grep -E 'R(UN)?PATH' <<<"$dyn" || fail "the installed $program has a run path (above)"
    done
    # The filter's driver loads no LibTorch (app/cli_front.cpp); the engine does.
    ! grep -q 'NEEDED.*libtorch' <<<"$(readelf -d "$prefix/libexec/kernelsieve-cli")" \
        || fail "the installed kernelsieve-cli links LibTorch"
    ok "version, LibTorch from $torch_dir, no run path"

    step "CPU filter pass of three built-in tasks"
    mkdir -p "$work/run"
    out=$("${clean[@]}" "$cli" filter --suite builtin --tasks L1-19,L1-23,L1-12 --device cpu --seeds 2 \
              --out "$work/run/results.json" --csv "$work/run/filters.csv" 2>&1); rc=$?
    printf '%s\n' "$out" | tail -n 8
    ((rc == 0)) || fail "filter exited $rc"
    /usr/bin/python3 - "$work/run/results.json" <<'PY' || fail "results.json is not three ok tasks"
import json, sys
tasks = json.load(open(sys.argv[1]))["tasks"]
ids = sorted(t["id"] for t in tasks if t["status"] == "ok")
assert ids == ["L1-12", "L1-19", "L1-23"], ids
PY
    (($(wc -l <"$work/run/filters.csv") == 4)) || fail "filters.csv is not a header and three rows"
    ok "three tasks ok, results.json and filters.csv written"

    step "import-kernelbench of one file (the installed exporter, the launcher's Python)"
    local sandbox=() how="in the sandbox"
    if ! "$prefix/libexec/kernelsieve-sandbox" --host-tmp --check >/dev/null 2>&1; then
        sandbox=(--no-sandbox) how="without the sandbox"
        printf 'note: namespaces are not available here: the import runs with --no-sandbox\n'
    fi # else KS_SANDBOX unset means required: the helper must be found beside the real program
    out=$("${clean[@]}" "$cli" import-kernelbench "$work/kb/level1" --out "$work/imported" "${sandbox[@]}" 2>&1); rc=$?
    printf '%s\n' "$out" | tail -n 4
    ((rc == 0)) || fail "import-kernelbench exited $rc"
    [[ -f $work/imported/level1/19_ReLU.json && -f $work/imported/level1/19_ReLU.pt ]] \
        || fail "import-kernelbench wrote no 19_ReLU.json and .pt"
    out=$("${clean[@]}" "$cli" filter --suite "$work/imported" --device cpu --seeds 2 --criteria stat --no-out 2>&1); rc=$?
    ((rc == 0)) && grep -q '^1 tasks, 0 failed' <<<"$out" || { printf '%s\n' "$out"; fail "filter of the imported task: exit $rc"; }
    ok "imported 19_ReLU.py $how and filtered it"

    if [[ $gui == ON ]]; then
        step "the GUI, offscreen"
        out=$("${clean[@]}" QT_QPA_PLATFORM=offscreen "$prefix/bin/kernelsieve" --version 2>&1); rc=$?
        printf '%s\n' "$out"
        ((rc == 0)) && grep -qx "kernelsieve $version" <<<"$out" || fail "kernelsieve --version: exit $rc, '$out'"
        rm -f "$work/gui-launch.log"
        "${clean[@]}" QT_QPA_PLATFORM=offscreen KS_LAUNCHER_LOG="$work/gui-launch.log" \
            "$prefix/bin/kernelsieve" "$work/run/results.json" >"$work/gui.log" 2>&1 &
        local pid=$! i
        # The window probes the device with its worker (kernelsieve-cli --version beside it).
        for ((i = 0; i < 120; i++)); do
            grep -q "torch .* at $torch_dir;" "$work/gui-launch.log" 2>/dev/null && break
            kill -0 "$pid" 2>/dev/null || break
            sleep 0.5
        done
        sleep 2 # the probe's worker runs; the window must still be up
        kill -0 "$pid" 2>/dev/null || { cat "$work/gui.log"; fail "the GUI exited at start"; }
        kill -TERM "$pid"
        wait "$pid" 2>/dev/null
        cat "$work/gui-launch.log" 2>/dev/null
        grep -q "torch .* at $torch_dir;" "$work/gui-launch.log" 2>/dev/null \
            || { cat "$work/gui.log"; fail "the GUI's worker did not find LibTorch"; }
        ! grep -Eiq 'cannot open shared object|could not (load|find) the Qt platform plugin' "$work/gui.log" \
            || { cat "$work/gui.log"; fail "the GUI could not load a library"; }
        ok "the GUI started, its worker found LibTorch, closed"
    fi

    step "clear messages instead of loader errors"
    expect_message() { # NAME EXPECTED-TEXT... ; reads the launcher's output from $out, status from $rc
        local name=$1 t
        shift
        printf '%s\n' "$out" | head -n 4
        ((rc == 6)) || fail "$name: exit $rc, not 6"
        ! grep -q 'error while loading shared libraries' <<<"$out" || fail "$name: a loader error"
        for t in "$@"; do grep -qF -- "$t" <<<"$out" || fail "$name: the message does not say '$t'"; done
        ok "$name"
    }
    mkdir -p "$work/nopy"
    printf '#!/bin/sh\nexec /usr/bin/python3 -S "$@"\n' >"$work/nopy/python3" && chmod +x "$work/nopy/python3"
    out=$(env -i "HOME=$home" PATH=/usr/bin:/bin KS_PYTHON="$work/nopy/python3" "$cli" --version 2>&1); rc=$?
    expect_message "no torch" "no usable LibTorch" "has no torch" "pip install torch==$torch_version"

    # A torch folder whose lib/ lacks libc10.so (which the program links directly).
    rm -rf "$work/fake" && mkdir -p "$work/fake/torch/lib" && cp "$torch_dir/version.py" "$work/fake/torch/"
    local f
    for f in "$torch_dir"/lib/*; do [[ $(basename "$f") == libc10.so ]] || ln -s "$f" "$work/fake/torch/lib/"; done
    [[ -d $torch_dir/../nvidia ]] && ln -s "$(cd "$torch_dir/../nvidia" && pwd)" "$work/fake/nvidia"
    out=$("${clean[@]}" KS_TORCH_DIR="$work/fake/torch" "$cli" --version 2>&1); rc=$?
    expect_message "missing library" "libc10.so is not found in $work/fake/torch/lib"

    mkdir -p "$work/old/torch/lib" && printf "__version__ = '2.9.0+cu128'\n" >"$work/old/torch/version.py"
    out=$("${clean[@]}" KS_TORCH_DIR="$work/old/torch" "$cli" --version 2>&1); rc=$?
    expect_message "wrong torch version" "torch 2.9.0+cu128" "built for torch ${torch_version%.*}"
}

if [[ $MODE == checks ]]; then
    run_checks "$@"
    exit 0
fi

# --- main: package, install, checks, removal; then the prefix install --------------------------
(($# == 6)) || fail "usage: $0 BUILD_DIR SOURCE_DIR TORCH_PYTHON VERSION TORCH_VERSION HAVE_GUI"
BUILD=$(cd "$1" && pwd) SOURCE=$(cd "$2" && pwd) TORCH_PYTHON=$3 VERSION=$4 TORCH_VERSION=$5 GUI=$6
((EUID == 0)) || skip "installing a package needs root (dpkg -i); run as root, as CI does"
for t in dpkg dpkg-deb cpack unshare mount readelf flock; do
    command -v "$t" >/dev/null || skip "$t is missing (a Debian system with dpkg and util-linux is needed)"
done
command -v desktop-file-validate >/dev/null || fail "desktop-file-validate is missing: apt-get install desktop-file-utils (packaging/setup.sh deps)"
unshare --mount --propagation private true 2>/dev/null || skip "no private mount namespace here (unshare --mount), so the build tree cannot be hidden"

{ exec 9>/run/lock/kernelsieve-install-test.lock; } 2>/dev/null || exec 9>/tmp/kernelsieve-install-test.lock
flock -w 900 9 || fail "another install.package run held the lock for 15 minutes"
# A package this test installed carries a marker; one without it is someone's real install.
MARKER=/var/lib/kernelsieve-install-test.installed
STATUS=$(dpkg-query -W -f='${db:Status-Status}' kernelsieve 2>/dev/null)
if [[ -n $STATUS && $STATUS != not-installed ]]; then
    [[ -e $MARKER ]] || skip "kernelsieve is installed on this machine; this test would replace and remove it"
    printf 'note: removing the kernelsieve package a killed run of this test left\n'
    dpkg --purge kernelsieve >/dev/null || fail "cannot remove the package a previous run left"
fi
rm -f "$MARKER"

WORK=$(mktemp -d /tmp/ks-install-test.XXXXXX) || fail "mktemp"
INSTALLED=0
cleanup() {
    if ((INSTALLED)); then dpkg --purge kernelsieve >/dev/null 2>&1 && rm -f "$MARKER"; fi
    rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 143' TERM INT # ctest's timeout: still remove the package

# The venv (if the build's python is one) is bound elsewhere and hidden at its own path.
VENV_REAL=$("$TORCH_PYTHON" -c 'import sys, os; print(os.path.realpath(sys.prefix) if sys.prefix != sys.base_prefix else "")') \
    || fail "$TORCH_PYTHON cannot be run"
mkdir -p "$WORK/kb/level1" && cp "$SOURCE/tests/data/kernelbench_fixture/level1/19_ReLU.py" "$WORK/kb/level1/" \
    || fail "no KernelBench fixture"

step "cpack -G DEB in $BUILD"
(cd "$BUILD" && cpack -G DEB -B "$WORK/pkg") >"$WORK/cpack.log" 2>&1 || { cat "$WORK/cpack.log"; fail "cpack failed"; }
tail -n 3 "$WORK/cpack.log"
DEB=$(compgen -G "$WORK/pkg/kernelsieve_${VERSION}_*.deb") || fail "no kernelsieve_${VERSION}_*.deb in $WORK/pkg"
ok "$(basename "$DEB"): $(du -h "$DEB" | cut -f1), installed $(dpkg-deb -f "$DEB" Installed-Size) KiB"

step "metadata"
dpkg-deb -f "$DEB"
[[ $(dpkg-deb -f "$DEB" Package) == kernelsieve ]] || fail "Package is not kernelsieve"
[[ $(dpkg-deb -f "$DEB" Version) == "$VERSION" ]] || fail "Version is not the project's $VERSION"
DEPENDS=$(dpkg-deb -f "$DEB" Depends)
for d in libc6 libstdc++6 'python3 (>= 3.10)'; do grep -qF "$d" <<<"$DEPENDS" || fail "Depends lacks $d"; done
[[ $GUI == ON ]] && { grep -q libqt6widgets6 <<<"$DEPENDS" && grep -q libqcustomplot <<<"$DEPENDS" || fail "Depends lacks Qt or QCustomPlot"; }
! grep -Eq 'torch|nvidia|cuda' <<<"$DEPENDS" || fail "Depends names LibTorch or CUDA, which come from Python"
[[ -n $(dpkg-deb -f "$DEB" Description) ]] || fail "no Description"
dpkg-deb -c "$DEB" >"$WORK/contents"
! grep -Eq 'libtorch|libc10|libcudart' "$WORK/contents" || fail "the package ships LibTorch/CUDA libraries"
OUTSIDE=$(awk '{ print $6 }' "$WORK/contents" | grep -Ev '^\./(usr/?|usr/.*)?$')
[[ -z $OUTSIDE ]] || fail "files outside /usr: $OUTSIDE"
ok "metadata"

step "install the package"
touch "$MARKER"
INSTALLED=1 # from here on the package is ours to remove, however the install ends
if command -v apt-get >/dev/null; then
    # What a user runs (apt install ./kernelsieve_*.deb); its dependencies are installed already here.
    apt-get install -y -q --no-install-recommends -o DPkg::Lock::Timeout=300 "$DEB" >"$WORK/apt.log" 2>&1 \
        || { cat "$WORK/apt.log"; fail "apt-get install $DEB failed"; }
else
    dpkg -i "$DEB" >"$WORK/apt.log" 2>&1 || { cat "$WORK/apt.log"; fail "dpkg -i $DEB failed"; }
fi
[[ $(dpkg-query -W -f='${Status}' kernelsieve) == *'ok installed' ]] || fail "kernelsieve is not installed after the install"
for f in /usr/bin/kernelsieve-cli /usr/libexec/kernelsieve-cli /usr/libexec/kernelsieve-engine /usr/libexec/kernelsieve-sandbox \
         /usr/share/kernelsieve/importer/kernelbench_export.py /usr/share/kernelsieve/importer/kernel_capture.py \
         /usr/share/kernelsieve/extension/torch/extension.h /usr/share/doc/kernelsieve/copyright; do
    [[ -e $f ]] || fail "$f is not installed"
done
if [[ $GUI == ON ]]; then
    for f in /usr/bin/kernelsieve /usr/share/applications/kernelsieve.desktop /usr/share/icons/hicolor/scalable/apps/kernelsieve.svg; do
        [[ -e $f ]] || fail "$f is not installed"
    done
    desktop-file-validate /usr/share/applications/kernelsieve.desktop || fail "desktop-file-validate"
    grep -qx 'Icon=kernelsieve' /usr/share/applications/kernelsieve.desktop || fail "the menu entry names another icon"
fi
ok "installed: $(dpkg-query -L kernelsieve | grep -c .) paths"

step "checks of the package's programs (source, build and torch trees hidden)"
unshare --mount --propagation private bash ${KS_TEST_TRACE:+-x} "$0" --checks /usr "$WORK" "$SOURCE" "$BUILD" "$VENV_REAL" \
    "$TORCH_PYTHON" "$VERSION" "$TORCH_VERSION" "$GUI" || fail "the package's programs (see above)"

step "remove the package"
dpkg --purge kernelsieve >"$WORK/purge.log" 2>&1 || { cat "$WORK/purge.log"; fail "dpkg --purge failed"; }
INSTALLED=0
rm -f "$MARKER"
for f in /usr/bin/kernelsieve /usr/bin/kernelsieve-cli /usr/libexec/kernelsieve-cli /usr/libexec/kernelsieve-engine /usr/libexec/kernelsieve-sandbox \
         /usr/share/kernelsieve /usr/share/applications/kernelsieve.desktop; do
    [[ ! -e $f ]] || fail "$f is left after dpkg --purge"
done
ok "removed, nothing left"

step "cmake --install $BUILD --prefix $WORK/prefix"
cmake --install "$BUILD" --prefix "$WORK/prefix" >"$WORK/install.log" 2>&1 || { cat "$WORK/install.log"; fail "cmake --install failed"; }
[[ $GUI != ON ]] || desktop-file-validate "$WORK/prefix/share/applications/kernelsieve.desktop" || fail "desktop-file-validate (prefix)"
unshare --mount --propagation private bash ${KS_TEST_TRACE:+-x} "$0" --checks "$WORK/prefix" "$WORK" "$SOURCE" "$BUILD" "$VENV_REAL" \
    "$TORCH_PYTHON" "$VERSION" "$TORCH_VERSION" "$GUI" || fail "the prefix install's programs (see above)"
printf '\nPASS: package %s and prefix install\n' "$(basename "$DEB")"
