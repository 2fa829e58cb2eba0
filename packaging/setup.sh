#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# KernelSieve set-up: installs what is missing, builds, and then runs the main job or the tests.
#
#   packaging/setup.sh run    install + build + filter pass over the built-in suite
#                             (prints the filter matrix, writes results.json and filters.csv)
#   packaging/setup.sh test   install + build + every test (ctest); CI runs exactly this
#   packaging/setup.sh deps   install only
#
# Idempotent: packages already present are not touched, an existing .venv with torch 2.11 is
# reused, and a python3 that already has torch 2.11 (as on the GPU machine) is used directly.
# Options (env): KS_NO_APT=1 skips apt (machines without network), KS_BUILD_DIR (default
# build/release), KS_JOBS (default: nproc).
set -euo pipefail

say() { printf '\033[1m[setup]\033[0m %s\n' "$*" >&2; }
die() { printf '\033[1;31m[setup] error:\033[0m %s\n' "$*" >&2; exit 1; }

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
MODE=${1:-run}
shift || true
BUILD_DIR=${KS_BUILD_DIR:-build/release}
JOBS=${KS_JOBS:-$(nproc)}
TORCH_VERSION=2.11.0

# clang and libclang-rt-dev bring libFuzzer, for the test fuzz.loaders (fuzz/run.sh);
# desktop-file-utils validates the menu entry in install.package (dpkg-dev, in build-essential,
# computes the package's dependencies).
APT_PACKAGES=(build-essential cmake ninja-build git python3 python3-venv python3-pip
              qt6-base-dev libqcustomplot-dev libqcustomplot2.1-qt6 nlohmann-json3-dev
              libgtest-dev libgmock-dev libcli11-dev xvfb xauth clang libclang-rt-dev
              desktop-file-utils)

install_apt() {
    if [[ "${KS_NO_APT:-0}" == 1 ]]; then say "KS_NO_APT=1: not installing Debian packages"; return; fi
    if ! command -v dpkg-query >/dev/null; then say "no dpkg here: install the equivalents of: ${APT_PACKAGES[*]}"; return; fi
    local missing=()
    for p in "${APT_PACKAGES[@]}"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
    done
    if ((${#missing[@]} == 0)); then say "Debian packages: all present"; return; fi
    say "installing Debian packages: ${missing[*]}"
    local SUDO=""
    if [[ $(id -u) -ne 0 ]]; then
        command -v sudo >/dev/null || die "need root or sudo to install: ${missing[*]}"
        SUDO=sudo
    fi
    $SUDO apt-get update -qq || die "apt-get update failed (network?); set KS_NO_APT=1 if the packages are installed another way"
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null \
        || die "apt-get install failed for: ${missing[*]}"
}

has_torch() { # python -> 0 if it has torch $TORCH_VERSION
    "$1" - <<PY 2>/dev/null
import sys, torch
sys.exit(0 if torch.__version__.split("+")[0] == "$TORCH_VERSION" else 1)
PY
}

TORCH_PYTHON=""
setup_torch() {
    if [[ -x .venv/bin/python3 ]] && has_torch .venv/bin/python3; then
        TORCH_PYTHON=$ROOT/.venv/bin/python3; say "LibTorch: reusing .venv (torch $TORCH_VERSION)"; return
    fi
    if command -v python3 >/dev/null && has_torch "$(command -v python3)"; then
        TORCH_PYTHON=$(command -v python3); say "LibTorch: using $TORCH_PYTHON (already has torch $TORCH_VERSION)"; return
    fi
    command -v python3 >/dev/null || die "python3 is missing"
    say "creating .venv and installing torch==$TORCH_VERSION from the Python registry (large download, once)"
    python3 -m venv .venv || die "python3 -m venv failed (install python3-venv)"
    .venv/bin/python3 -m pip install -q --upgrade pip >/dev/null || true
    .venv/bin/python3 -m pip install -q "torch==$TORCH_VERSION" numpy \
        || die "pip could not install torch==$TORCH_VERSION (see the message above)"
    has_torch .venv/bin/python3 || die ".venv has no working torch $TORCH_VERSION after the install"
    TORCH_PYTHON=$ROOT/.venv/bin/python3
}

configure_build() {
    local prefix
    prefix=$("$TORCH_PYTHON" -c 'import torch;print(torch.utils.cmake_prefix_path)')
    local cuda_args=()
    if ! command -v nvcc >/dev/null && [[ -x /usr/local/cuda/bin/nvcc ]]; then
        cuda_args+=(-DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc)
    fi
    say "configuring $BUILD_DIR"
    cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
        -DCMAKE_PREFIX_PATH="$prefix" -DKS_TORCH_PYTHON="$TORCH_PYTHON" "${cuda_args[@]}" "$@" \
        || die "cmake configure failed"
    say "building with $JOBS jobs (the LibTorch parts take a few minutes on 2 cores)"
    cmake --build "$BUILD_DIR" -j "$JOBS" || die "build failed"
}

install_apt
setup_torch
case "$MODE" in
deps) say "dependencies are in place" ;;
run)
    configure_build
    say "running the filter pass over the built-in suite"
    "$BUILD_DIR/bin/kernelsieve-cli" filter --suite builtin --out results.json --csv filters.csv "$@"
    ;;
test)
    configure_build
    say "running every test (GPU tests skip without a device)"
    export QT_QPA_PLATFORM=${QT_QPA_PLATFORM:-offscreen}
    # The tests' own fixtures run sandboxed where the machine has user namespaces, and without
    # the sandbox (with a warning) where it has not; sandbox.helper and sandbox.cli then skip,
    # saying why. A user's runs stay strict: no sandbox is an error unless --no-sandbox.
    export KS_SANDBOX=${KS_SANDBOX:-auto}
    ctest --test-dir "$BUILD_DIR" --output-on-failure -j "$JOBS" "$@"
    ;;
*) die "unknown mode '$MODE' (use run, test or deps)" ;;
esac
