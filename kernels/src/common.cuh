// SPDX-License-Identifier: MIT
// Device helpers shared by the kernel files (CUDA-only; never included by public headers).
#pragma once

#include "error.h"
#include "ks/kernels/launch_config.h"

#include <cstdint>
#include <cuda_runtime.h>

namespace ks::kernels::detail {

inline bool aligned16(const void* p) {
    return plan::aligned(p, 16);
}

__device__ __forceinline__ float warpMax(float v) {
#pragma unroll
    for (int o = 16; o > 0; o >>= 1)
        v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
    return v;
}
__device__ __forceinline__ float warpSum(float v) {
#pragma unroll
    for (int o = 16; o > 0; o >>= 1)
        v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}

// Block-wide reductions for blockDim.x a multiple of 32 (<= 1024); every thread gets the
// result. `scratch` holds 32 floats; the trailing barrier lets callers reuse it at once.
__device__ __forceinline__ float blockMax(float v, float* scratch) {
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nw = blockDim.x >> 5;
    v = warpMax(v);
    if (lane == 0) scratch[warp] = v;
    __syncthreads();
    v = lane < nw ? scratch[lane] : -INFINITY;
    v = warpMax(v);
    __syncthreads();
    return v;
}
__device__ __forceinline__ float blockSum(float v, float* scratch) {
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nw = blockDim.x >> 5;
    v = warpSum(v);
    if (lane == 0) scratch[warp] = v;
    __syncthreads();
    v = lane < nw ? scratch[lane] : 0.f;
    v = warpSum(v);
    __syncthreads();
    return v;
}

} // namespace ks::kernels::detail
