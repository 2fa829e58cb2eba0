// SPDX-License-Identifier: MIT
// The launchers and host-side checks each op's .cu file defines; registry.cpp puts them in the
// table. Plain C++: registry.cpp is compiled by the host compiler.
#pragma once

#include "ks/kernels/registry.h"

#include <cstddef>

namespace ks::kernels {

namespace diag_matmul {
cudaError_t launch1(const Args&, cudaStream_t);
cudaError_t launch2(const Args&, cudaStream_t);
cudaError_t launch3(const Args&, cudaStream_t);
const char* supports(const Args&);
} // namespace diag_matmul

namespace softmax {
cudaError_t launch1(const Args&, cudaStream_t);
cudaError_t launch2(const Args&, cudaStream_t);
cudaError_t launch3(const Args&, cudaStream_t);
cudaError_t launch4(const Args&, cudaStream_t);
cudaError_t launch5(const Args&, cudaStream_t);
cudaError_t launch6(const Args&, cudaStream_t);
// launch6 with a given block size and row buffers per block (0: the plan's): the self-test's sweep
cudaError_t launch6With(const Args&, cudaStream_t, int threads, int buffers);
const char* supports(const Args&);
const char* supports4(const Args&); // a row must fit in one cluster's shared memory
const char* supports6(const Args&); // likewise
} // namespace softmax

namespace rmsnorm {
cudaError_t launch1(const Args&, cudaStream_t);
cudaError_t launch2(const Args&, cudaStream_t);
const char* supports(const Args&);
} // namespace rmsnorm

namespace conv_task {
cudaError_t launch1(const Args&, cudaStream_t);
cudaError_t launch2(const Args&, cudaStream_t);
cudaError_t launch3(const Args&, cudaStream_t);
const char* supports(const Args&);
const char* supports2(const Args&); // fused kernel: channel count, weights in shared memory
std::size_t workspace1(const Args&);
} // namespace conv_task

} // namespace ks::kernels
