// SPDX-License-Identifier: MIT
#include "cudagraph.h"

#include "ks/core/taskspec.h"  // ks::Error
#include "ks/core/torchtask.h" // shortError, releaseCachedDeviceMemory

#ifdef KS_TORCH_CUDA
#include <ATen/cuda/CUDAContext.h>
#include <ATen/cuda/CUDAGraph.h>
#include <ATen/cuda/MemPool.h>
#include <ATen/core/CachingHostAllocator.h>
#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/cuda/CUDAFunctions.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/util/Exception.h>
#include <cuda_runtime_api.h>
#endif

#include <string>

namespace ks {

#ifdef KS_TORCH_CUDA

struct CapturedForward::Impl {
    at::cuda::CUDAGraph graph;
};

namespace {
void check(cudaError_t e, const char* what) {
    if (e != cudaSuccess) throw Error(std::string(what) + ": " + cudaGetErrorString(e));
}

// What capture_begin registered with the device and host allocators (allocations on the capturing
// stream go to the graph's pool), handed back when the capture failed before capture_end did so:
// an invalidated capture (a host synchronisation inside it) makes cudaStreamEndCapture fail, and
// capture_end throws before it ends the pool. Left registered, the allocators would consider a
// capture under way for the rest of the process: frees of blocks used on other streams deferred
// for good, and a later capture's memory possibly routed by the dead graph's filter.
// Each allocator is handed back only where the registration is still there.
void abandonCapture(c10::MempoolId_t pool, c10::DeviceIndex device) {
    try {
        c10::cuda::CUDACachingAllocator::endAllocateToPool(device, pool);
        c10::cuda::CUDACachingAllocator::releasePool(device, pool);
    } catch (...) {
    }
    try {
        at::HostAllocator* host = at::getHostAllocator(at::kCUDA);
        host->end_allocate_to_pool(pool);
        host->release_pool(pool);
    } catch (...) {
    }
}
} // namespace

CapturedForward::CapturedForward(const std::function<at::Tensor()>& forward, bool threadLocal)
    : m_impl(std::make_unique<Impl>()) {
    try {
        (void)forward();
        check(cudaDeviceSynchronize(), "the eager call before the capture");
        // A capture allocates in the graph's own pool, and while it runs the caching allocator
        // may not hand the device blocks it holds cached for other pools back (that would need a
        // cudaFree). Handed back here: lease 15's L3-32 (9 GiB in use) had its capture run out of
        // memory beside 69 GiB reserved and unused.
        releaseCachedDeviceMemory();
        {
            // Captured on a side stream (capture is refused on the legacy default stream); the
            // replays run on whatever stream is current then.
            c10::cuda::CUDAStreamGuard side(at::cuda::getStreamFromPool());
            // The graph's own pool, as capture_begin would make it, but known here (abandonCapture).
            const c10::MempoolId_t pool = at::cuda::MemPool::graph_pool_handle(/*is_user_created=*/false);
            const c10::DeviceIndex device = c10::cuda::current_device();
            try {
                m_impl->graph.capture_begin(pool, threadLocal ? cudaStreamCaptureModeThreadLocal
                                                              : cudaStreamCaptureModeGlobal);
            } catch (...) {
                abandonCapture(pool, device);
                throw;
            }
            try {
                m_out = forward();
            } catch (...) {
                try {
                    m_impl->graph.capture_end();
                } catch (...) {
                    abandonCapture(pool, device);
                }
                throw;
            }
            try {
                m_impl->graph.capture_end();
            } catch (...) {
                abandonCapture(pool, device);
                throw;
            }
        }
        m_impl->graph.replay();
        check(cudaDeviceSynchronize(), "the first replay");
    } catch (const std::exception& e) {
        // A failed capture leaves its error as the last one; the device itself is fine.
        (void)cudaGetLastError();
        // The graph's pool, released with the graph, goes back to the device now rather than at
        // the next release of the cache (lease 15: 8.5 GiB in graphs' pools after failed captures).
        m_out = at::Tensor();
        m_impl.reset();
        releaseCachedDeviceMemory();
        (void)cudaGetLastError();
        if (dynamic_cast<const Error*>(&e)) throw;
        throw Error(shortError(e));
    }
}

CapturedForward::~CapturedForward() = default;

void CapturedForward::replay() { m_impl->graph.replay(); }

namespace {
// Counts LibTorch's "called a synchronizing CUDA operation" warnings; passes on every other one.
class SyncCounter : public c10::WarningHandler {
public:
    explicit SyncCounter(c10::WarningHandler* next) : m_next(next) {}
    void process(const c10::Warning& w) override {
        if (w.msg().find("synchronizing CUDA operation") != std::string::npos)
            ++count;
        else if (m_next)
            m_next->process(w);
    }
    int count = 0;

private:
    c10::WarningHandler* m_next;
};

// LibTorch's sync debug mode, set for the guard's lifetime (it is process-wide).
class SyncDebugModeGuard {
public:
    explicit SyncDebugModeGuard(c10::cuda::SyncDebugMode mode)
        : m_before(c10::cuda::warning_state().get_sync_debug_mode()) {
        c10::cuda::warning_state().set_sync_debug_mode(mode);
    }
    ~SyncDebugModeGuard() { c10::cuda::warning_state().set_sync_debug_mode(m_before); }
    SyncDebugModeGuard(const SyncDebugModeGuard&) = delete;
    SyncDebugModeGuard& operator=(const SyncDebugModeGuard&) = delete;

private:
    c10::cuda::SyncDebugMode m_before;
};
} // namespace

int countHostSyncs(const std::function<void()>& f) {
    SyncCounter counter(c10::WarningUtils::get_warning_handler());
    const c10::WarningUtils::WarningHandlerGuard handler(&counter);
    const SyncDebugModeGuard mode(c10::cuda::SyncDebugMode::L_WARN);
    f();
    return counter.count;
}

#else

struct CapturedForward::Impl {};

CapturedForward::CapturedForward(const std::function<at::Tensor()>&, bool) {
    throw Error("this build has no CUDA: nothing can be captured in a CUDA graph");
}

CapturedForward::~CapturedForward() = default;

void CapturedForward::replay() {}

int countHostSyncs(const std::function<void()>&) { return -1; }

#endif

} // namespace ks
