// SPDX-License-Identifier: MIT
// Error plumbing for the launchers: they return cudaError_t (CUTLASS style, never exit()), and
// record "file:line: call: message" so the engine can tell the user where it failed.
#pragma once

#include <cuda_runtime_api.h>

namespace ks::kernels::detail {

// Stores the context for lastErrorContext() (thread-local) and passes the error through.
cudaError_t recordError(cudaError_t err, const char* file, int line, const char* what);
void clearError();

} // namespace ks::kernels::detail

// Evaluates a CUDA runtime call; on failure records where and returns the error from the
// enclosing function (which must return cudaError_t).
#define KS_CUDA_CHECK(expr)                                                                        \
    do {                                                                                           \
        const cudaError_t ks_err_ = (expr);                                                        \
        if (ks_err_ != cudaSuccess)                                                                \
            return ::ks::kernels::detail::recordError(ks_err_, __FILE__, __LINE__, #expr);         \
    } while (0)

// After a <<<>>> launch: configuration errors only show up in cudaGetLastError().
#define KS_CUDA_CHECK_LAUNCH() KS_CUDA_CHECK(cudaGetLastError())
