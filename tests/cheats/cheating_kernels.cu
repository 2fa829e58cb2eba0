// SPDX-License-Identifier: MIT
// Deliberately cheating diag_matmul variants. Each one tries a way of passing a naive harness
// without doing the work; tst_harness_gpu checks that the harness catches every one of them.
//   cheat_writes_nothing   returns success and writes nothing
//   cheat_modifies_input   computes C, then scribbles on B
//   cheat_cached_result    computes once, then replays the first answer for any input
//   cheat_side_stream      does the work on its own stream so the timed stream looks idle
//   cheat_illegal_address  writes far outside its buffers and breaks the CUDA context
#include "cheating_kernels.h"

#include <cuda_runtime.h>

namespace ks::cheats {
namespace {

__global__ void diagBroadcast(const float* A, const float* B, float* C, long long N, long long M) {
    const long long n = N * M;
    for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < n;
         i += static_cast<long long>(gridDim.x) * blockDim.x)
        C[i] = A[i / M] * B[i];
}

__global__ void scribble(float* B, long long n) {
    if (blockIdx.x == 0 && threadIdx.x == 0 && n > 0) B[0] += 1.0f;
}

__global__ void wildWrite(float* C) {
    // Far past any allocation: an illegal address, which poisons the whole context.
    C[(1ll << 40) + threadIdx.x] = 1.0f;
}

unsigned blocksFor(long long n) {
    const long long b = (n + 255) / 256;
    return static_cast<unsigned>(b < 1 ? 1 : (b > 4096 ? 4096 : b));
}

const char* supportsAll(const kernels::Args&) { return nullptr; }

cudaError_t writesNothing(const kernels::Args&, cudaStream_t) { return cudaSuccess; }

cudaError_t modifiesInput(const kernels::Args& a, cudaStream_t s) {
    const long long n = a.dims[0] * a.dims[1];
    if (n == 0) return cudaSuccess;
    diagBroadcast<<<blocksFor(n), 256, 0, s>>>(a.in[0], a.in[1], a.out, a.dims[0], a.dims[1]);
    scribble<<<1, 32, 0, s>>>(const_cast<float*>(a.in[1]), n);
    return cudaGetLastError();
}

cudaError_t cachedResult(const kernels::Args& a, cudaStream_t s) {
    static float* cache = nullptr;
    static long long cachedN = -1;
    const long long n = a.dims[0] * a.dims[1];
    if (n == 0) return cudaSuccess;
    if (cache == nullptr || cachedN != n) {
        if (cache) cudaFree(cache);
        if (cudaMalloc(&cache, static_cast<size_t>(n) * sizeof(float)) != cudaSuccess) return cudaGetLastError();
        cachedN = n;
        diagBroadcast<<<blocksFor(n), 256, 0, s>>>(a.in[0], a.in[1], cache, a.dims[0], a.dims[1]);
    }
    return cudaMemcpyAsync(a.out, cache, static_cast<size_t>(n) * sizeof(float), cudaMemcpyDeviceToDevice, s);
}

cudaError_t sideStream(const kernels::Args& a, cudaStream_t) {
    static cudaStream_t side = nullptr;
    if (!side && cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking) != cudaSuccess) return cudaGetLastError();
    const long long n = a.dims[0] * a.dims[1];
    if (n == 0) return cudaSuccess;
    // Several passes so the hidden work is clearly longer than a launch.
    for (int i = 0; i < 4; ++i)
        diagBroadcast<<<blocksFor(n), 256, 0, side>>>(a.in[0], a.in[1], a.out, a.dims[0], a.dims[1]);
    return cudaGetLastError();
}

cudaError_t illegalAddress(const kernels::Args& a, cudaStream_t s) {
    wildWrite<<<1, 32, 0, s>>>(a.out);
    return cudaGetLastError();
}

const kernels::Variant kCheats[] = {
    {"diag_matmul", "cheat_writes_nothing", 101, "returns success and writes nothing", false, writesNothing, supportsAll},
    {"diag_matmul", "cheat_modifies_input", 102, "computes C, then modifies B", false, modifiesInput, supportsAll},
    {"diag_matmul", "cheat_cached_result", 103, "replays the first answer for every input", false, cachedResult, supportsAll},
    {"diag_matmul", "cheat_side_stream", 104, "works on its own stream so the timed one looks idle", false, sideStream, supportsAll},
    {"diag_matmul", "cheat_illegal_address", 105, "writes outside its buffers", false, illegalAddress, supportsAll},
};

} // namespace

std::vector<const kernels::Variant*> variants() {
    std::vector<const kernels::Variant*> v;
    for (const auto& c : kCheats) v.push_back(&c);
    return v;
}

} // namespace ks::cheats
