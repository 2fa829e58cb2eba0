// SPDX-License-Identifier: MIT
#include "cudagraph.h"

#include "ks/core/taskspec.h"  // ks::Error
#include "ks/core/torchtask.h" // shortError

#ifdef KS_TORCH_CUDA
#include <ATen/cuda/CUDAContext.h>
#include <ATen/cuda/CUDAGraph.h>
#include <c10/cuda/CUDAGuard.h>
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
} // namespace

CapturedForward::CapturedForward(const std::function<at::Tensor()>& forward, bool threadLocal)
    : m_impl(std::make_unique<Impl>()) {
    try {
        (void)forward();
        check(cudaDeviceSynchronize(), "the eager call before the capture");
        {
            // Captured on a side stream (capture is refused on the legacy default stream); the
            // replays run on whatever stream is current then.
            c10::cuda::CUDAStreamGuard side(at::cuda::getStreamFromPool());
            m_impl->graph.capture_begin({0, 0}, threadLocal ? cudaStreamCaptureModeThreadLocal
                                                            : cudaStreamCaptureModeGlobal);
            try {
                m_out = forward();
            } catch (...) {
                try {
                    m_impl->graph.capture_end();
                } catch (...) {
                }
                throw;
            }
            m_impl->graph.capture_end();
        }
        m_impl->graph.replay();
        check(cudaDeviceSynchronize(), "the first replay");
    } catch (const Error&) {
        m_out = at::Tensor();
        (void)cudaGetLastError();
        throw;
    } catch (const std::exception& e) {
        m_out = at::Tensor();
        // A failed capture leaves its error as the last one; the device itself is fine.
        (void)cudaGetLastError();
        throw Error(shortError(e));
    }
}

CapturedForward::~CapturedForward() = default;

void CapturedForward::replay() { m_impl->graph.replay(); }

#else

struct CapturedForward::Impl {};

CapturedForward::CapturedForward(const std::function<at::Tensor()>&, bool) {
    throw Error("this build has no CUDA: nothing can be captured in a CUDA graph");
}

CapturedForward::~CapturedForward() = default;

void CapturedForward::replay() {}

#endif

} // namespace ks
