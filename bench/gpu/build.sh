#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds the engine, kernels, CLI and tests on the GPU machine (no Qt there; header-only deps and
# googletest come from .deps/, see prepare_deps.sh). Usage: bench/gpu/build.sh [targets...]
set -uo pipefail
cd "$(dirname "$0")/../.."
export TORCH_CUDA_ARCH_LIST=9.0
cmake -S . -B build/gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DKS_WITH_GUI=OFF \
      -DCMAKE_CUDA_ARCHITECTURES=90 -DKS_TORCH_PYTHON="$(command -v python3)" >build/gpu-configure.log 2>&1 \
    || { tail -40 build/gpu-configure.log; exit 1; }
grep -E "^ \* (CUDA|LibTorch|GUI)" -A0 build/gpu-configure.log || true
ninja -C build/gpu -j"$(nproc)" "$@" 2>&1 | grep -E "error|FAILED|warning: .*(spill|stack)" | head -40
exit "${PIPESTATUS[0]}"
