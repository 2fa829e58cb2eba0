// SPDX-License-Identifier: MIT
#include "checks.h"
#include "error.h"
#include "ks/kernels/timing.h"

namespace ks::kernels {
namespace {

__device__ __forceinline__ unsigned long long globalNs() {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

__global__ void spinKernel(unsigned long long ns) {
    const unsigned long long start = globalNs();
    while (globalNs() - start < ns) {
    }
}

} // namespace

cudaError_t spinFor(double microseconds, cudaStream_t stream) {
    if (!(microseconds > 0)) return cudaSuccess;
    spinKernel<<<1, 1, 0, stream>>>(static_cast<unsigned long long>(microseconds * 1e3));
    KS_CUDA_CHECK_LAUNCH();
    return cudaSuccess;
}

} // namespace ks::kernels
