// SPDX-License-Identifier: MIT
// Pageable host tensors to a CUDA device through page-locked staging buffers (ks/core/operands.h).
#include "ks/core/operands.h"
#include "ks/core/copypool.h"

#ifdef KS_TORCH_CUDA
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>
#include <cuda_runtime_api.h>
#endif

#include <algorithm>
#include <cstdlib>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>

namespace ks {

bool stagedUploadEnabled() {
    static const bool on = [] {
        // On since measured (bench/engine/RESULTS.md, 2026-12-06: level 2's statistics on the
        // H200 uploaded in 7.5 s instead of 15.6 s, the same flags); KS_STAGED_UPLOAD=0 turns it off.
        const char* v = std::getenv("KS_STAGED_UPLOAD");
        return !(v && std::string(v) == "0");
    }();
    return on;
}

bool registeredUploadEnabled() {
    static const bool on = [] {
        const char* v = std::getenv("KS_UPLOAD_REGISTER");
        return v && std::string(v) == "1";
    }();
    return on;
}

#ifdef KS_TORCH_CUDA
namespace {

constexpr int64_t kDefaultChunk = int64_t{64} << 20;
constexpr int kBuffers = 4;

void check(cudaError_t e, const char* what) {
    if (e != cudaSuccess)
        throw std::runtime_error(std::string("staged upload: ") + what + ": " +
                                 cudaGetErrorString(e));
}

// Copies n bytes on up to `threads` threads: one core's memcpy is what limits the driver's own
// pageable copies (4.7-8 GB/s on the H100 hosts). The threads are kept between chunks (CopyPool)
// unless KS_STAGED_COPY_POOL=0, which starts them for every chunk as before (for comparisons).
void parallelCopy(char* dst, const char* src, int64_t n, int threads) {
    static const bool kept = [] {
        const char* v = std::getenv("KS_STAGED_COPY_POOL");
        return !(v && std::string(v) == "0");
    }();
    const int64_t minPart = int64_t{4} << 20;
    if (kept) {
        static CopyPool* copier = new CopyPool(threads); // never destroyed, as the staging buffers
        copier->copy(dst, src, n, minPart);
        return;
    }
    // As before the pool: the chunk's threads started for it alone.
    CopyPool(static_cast<int>(std::clamp<int64_t>(n / minPart, 1, threads))).copy(dst, src, n, minPart);
}

// kBuffers page-locked buffers for the whole process, each with the event of the last copy out of
// it: a buffer is written again only once that copy is done. One upload at a time holds them.
struct StagingPool {
    std::mutex mu;
    int64_t chunk = 0;
    char* buf[kBuffers] = {};
    cudaEvent_t done[kBuffers] = {};

    // Buffers of at least `bytes` each (grown, never shrunk).
    void ensure(int64_t bytes) {
        if (chunk >= bytes) return;
        for (int i = 0; i < kBuffers; ++i) {
            if (buf[i]) {
                check(cudaEventSynchronize(done[i]), "waiting for a staging buffer");
                check(cudaFreeHost(buf[i]), "freeing a staging buffer");
                buf[i] = nullptr;
            }
        }
        for (int i = 0; i < kBuffers; ++i) {
            void* p = nullptr;
            check(cudaHostAlloc(&p, static_cast<size_t>(bytes), cudaHostAllocPortable),
                  "page-locked staging buffer");
            buf[i] = static_cast<char*>(p);
            if (!done[i])
                check(cudaEventCreateWithFlags(&done[i], cudaEventDisableTiming), "event");
        }
        chunk = bytes;
    }
};

StagingPool& pool() {
    static StagingPool* p = new StagingPool; // never destroyed: CUDA may be gone at exit
    return *p;
}

int copyThreads() {
    static const int n = [] {
        if (const char* v = std::getenv("KS_STAGED_UPLOAD_THREADS"))
            return std::max(1, std::atoi(v));
        // Eight on hosts of 16 cores or more: level 1's shard of the current KernelBench ran 9 %
        // faster with them than with four on an H100 host (164-168 s against 178-188 s,
        // alternated), though they compete with the drawing threads (bench/engine/RESULTS.md).
        const unsigned cores = std::thread::hardware_concurrency();
        return cores >= 16 ? 8 : static_cast<int>(std::clamp(cores / 4u, 1u, 4u));
    }();
    return n;
}

} // namespace
#endif

at::Tensor uploadThroughStaging(const at::Tensor& host, const at::Device& device,
                                int64_t chunkBytes) {
#ifdef KS_TORCH_CUDA
    if (device.is_cuda() && host.device().is_cpu() && host.is_contiguous() && !host.is_pinned() &&
        host.numel() > 0) {
        const int64_t chunk = chunkBytes > 0 ? chunkBytes : kDefaultChunk;
        at::Tensor out =
            at::empty(host.sizes(), host.options().device(device).pinned_memory(false));
        const c10::cuda::CUDAGuard guard(device);
        const cudaStream_t stream = at::cuda::getCurrentCUDAStream(device.index()).stream();
        const int64_t n = static_cast<int64_t>(host.nbytes());
        const char* src = static_cast<const char*>(host.const_data_ptr());
        char* dst = static_cast<char*>(out.data_ptr());
        StagingPool& p = pool();
        std::lock_guard<std::mutex> lock(p.mu);
        p.ensure(chunk);
        for (int64_t off = 0, i = 0; off < n; off += chunk, ++i) {
            const int b = static_cast<int>(i % kBuffers);
            const int64_t len = std::min(chunk, n - off);
            check(cudaEventSynchronize(p.done[b]), "waiting for a staging buffer");
            parallelCopy(p.buf[b], src + off, len, copyThreads());
            check(cudaMemcpyAsync(dst + off, p.buf[b], static_cast<size_t>(len),
                                  cudaMemcpyHostToDevice, stream),
                  "copy to the device");
            check(cudaEventRecord(p.done[b], stream), "event");
        }
        // The copies run on the caller's stream, ahead of the work it queues next; the buffers
        // are written again only after their events.
        return out;
    }
#else
    (void)chunkBytes;
#endif
    return host.to(at::TensorOptions().device(device), /*non_blocking=*/host.is_pinned());
}

at::Tensor uploadRegistered(const at::Tensor& host, const at::Device& device) {
#ifdef KS_TORCH_CUDA
    if (device.is_cuda() && host.device().is_cpu() && host.is_contiguous() && !host.is_pinned() &&
        host.numel() > 0) {
        void* src = const_cast<void*>(host.const_data_ptr());
        const size_t n = host.nbytes();
        // One registered upload at a time in the process: two of the same pages at once would see
        // one another's registration, and the first to finish would unlock them under the other.
        static std::mutex one;
        std::lock_guard<std::mutex> lock(one);
        const cudaError_t reg = cudaHostRegister(src, n, cudaHostRegisterDefault);
        // Someone else's registration of these pages (kept: theirs to undo); any other failure
        // (a memlock limit, a kernel that will not lock them) leaves the staging buffers.
        const bool ours = reg == cudaSuccess;
        if (!ours && reg != cudaErrorHostMemoryAlreadyRegistered) {
            (void)cudaGetLastError();
            return uploadThroughStaging(host, device);
        }
        (void)cudaGetLastError();
        at::Tensor out = at::empty(host.sizes(), host.options().device(device).pinned_memory(false));
        const c10::cuda::CUDAGuard guard(device);
        const cudaStream_t stream = at::cuda::getCurrentCUDAStream(device.index()).stream();
        const cudaError_t copied = cudaMemcpyAsync(out.data_ptr(), src, n, cudaMemcpyHostToDevice, stream);
        // The pages stay locked until the copy is done: wait for it whatever happened.
        const cudaError_t waited = cudaStreamSynchronize(stream);
        if (ours) check(cudaHostUnregister(src), "unlocking the uploaded pages");
        check(copied, "copy to the device");
        check(waited, "waiting for the copy to the device");
        return out;
    }
#endif
    return uploadThroughStaging(host, device);
}

} // namespace ks
