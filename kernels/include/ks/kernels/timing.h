// SPDX-License-Identifier: MIT
// Timing helpers the harness needs on the device side. Plain C++ header (no CUDA-C syntax).
#pragma once

#include <cuda_runtime_api.h>

namespace ks::kernels {

// Queues a one-thread kernel on `stream` that busy-waits `microseconds` of device time (read
// from the global nanosecond timer, so SM clock changes do not stretch it). A timing harness
// queues it before the start event: while the device spins, the host enqueues the timed work,
// so the events bracket device execution rather than the host's launch latency.
cudaError_t spinFor(double microseconds, cudaStream_t stream);

} // namespace ks::kernels
