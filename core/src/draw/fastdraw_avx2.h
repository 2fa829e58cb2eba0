// SPDX-License-Identifier: MIT
#pragma once
#include <cstdint>

// PyTorch's AVX2 Box-Muller block (normal_fill_16_AVX2) with its own vector log and sincos
// (ATen/native/cpu/avx_mathfun.h), for ks/core/fastdraw.h. Call only where the CPU has AVX2 and
// FMA.

// Built with GCC on x86-64 only (its target pragma); elsewhere the AVX2 variant is not offered.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define KS_FASTDRAW_X86 1
namespace ks::detail {

// PyTorch's normal_fill_16_AVX2 on each of the `blocks` blocks of 16 floats at `data`.
void boxMullerAvx2(float* data, int64_t blocks, float mean, float std);

} // namespace ks::detail
#endif
