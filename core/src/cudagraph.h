// SPDX-License-Identifier: MIT
#pragma once
// A forward pass captured once into a CUDA graph and replayed: the GPU work of an eager call
// without the host's dispatch of each op. The kernel harness times it as the "graph" baseline;
// filter 5 measures with it how much of a task's eager time is the host (docs/inefficiency.md).

#include <ATen/Tensor.h>

#include <functional>
#include <memory>

namespace ks {

class CapturedForward {
public:
    // Runs `forward` once outside the capture (library handles, lazy initialisation), then
    // captures one call of it on a side stream of the current device and replays the graph once.
    // `threadLocal`: capture in cudaStreamCaptureModeThreadLocal, so other threads' CUDA calls
    // (page-locked allocations of operands drawn ahead) neither break the capture nor fail;
    // otherwise in the global mode. Throws ks::Error with CUDA's reason when it cannot be
    // captured (a host synchronisation inside the forward, an op that cannot be captured, no
    // CUDA in this build); the device is usable afterwards.
    CapturedForward(const std::function<at::Tensor()>& forward, bool threadLocal);
    ~CapturedForward();
    CapturedForward(const CapturedForward&) = delete;
    CapturedForward& operator=(const CapturedForward&) = delete;

    // Launches the graph on the current stream (asynchronous, as an eager call is).
    void replay();
    // The tensor the captured call returned; each replay writes it again.
    const at::Tensor& output() const { return m_out; }

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
    at::Tensor m_out;
};

// How many times `f` makes the calling thread wait for the GPU through LibTorch: a value read back
// to the host (`.item()`, `int(t)`, a copy to pageable memory), a stream or device
// synchronisation. Counted with LibTorch's sync debug mode set to warn for the duration of `f`,
// and the warnings of this thread caught meanwhile (other threads' are not counted, and the
// mode is restored afterwards). Such waits stall the host's dispatch inside a forward and make it
// impossible to capture in a CUDA graph. -1 without CUDA in this build.
int countHostSyncs(const std::function<void()>& f);

} // namespace ks
