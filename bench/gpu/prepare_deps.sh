#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Copies the header-only dependencies and googletest's sources into .deps/ (git-ignored) so the
# GPU machine, which has no package manager and no network, can build the engine and its tests.
set -euo pipefail
cd "$(dirname "$0")/../.."
rm -rf .deps && mkdir -p .deps/include
cp -r /usr/include/nlohmann /usr/include/CLI .deps/include/
cp -r /usr/src/googletest .deps/googletest
# googletest's own tests and samples are not built here; leaving them out keeps the device call's
# copy of the working tree under its 64 MiB limit.
rm -rf .deps/googletest/googletest/test .deps/googletest/googlemock/test .deps/googletest/googletest/samples
du -sh .deps
