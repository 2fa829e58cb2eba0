// SPDX-License-Identifier: MIT
#include "error.h"

#include "ks/kernels/registry.h"

#include <cstdio>
#include <cstring>

namespace ks::kernels {
namespace {
// Thread-local so that concurrent launches on several threads do not overwrite each other.
thread_local char g_context[512] = "";
} // namespace

namespace detail {
cudaError_t recordError(cudaError_t err, const char* file, int line, const char* what) {
    const char* base = std::strrchr(file, '/');
    std::snprintf(g_context, sizeof g_context, "%s:%d: %s: %s (%s)", base ? base + 1 : file, line,
                  what, cudaGetErrorString(err), cudaGetErrorName(err));
    return err;
}
void clearError() {
    g_context[0] = '\0';
}
} // namespace detail

const char* lastErrorContext() {
    return g_context;
}

} // namespace ks::kernels
