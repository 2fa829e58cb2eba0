// SPDX-License-Identifier: MIT
// Does not compile (and fails fast: no torch headers): the compile error must come back as a
// per-kernel result carrying nvcc's message, and be cached like a success.
__global__ void broken_kernel(float* y) { y[threadIdx.x] = undeclared_name; }
