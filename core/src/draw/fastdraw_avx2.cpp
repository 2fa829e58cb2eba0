// SPDX-License-Identifier: MIT
// Compiled with -ffp-contract=fast, as GCC compiles PyTorch's AVX2 kernels by default; the probes
// in fastdraw.cpp use this block only where it gives PyTorch's own numbers.
#include "fastdraw_avx2.h"

#ifdef KS_FASTDRAW_X86

#include <ATen/native/cpu/Intrinsics.h>
#include <c10/util/MathConstants.h>

#pragma GCC push_options
#pragma GCC target("avx2,fma")
#ifndef CPU_CAPABILITY_AVX2
#define CPU_CAPABILITY_AVX2
#define KS_DEFINED_CPU_CAPABILITY_AVX2
#endif
#include <ATen/native/cpu/avx_mathfun.h>
#ifdef KS_DEFINED_CPU_CAPABILITY_AVX2
#undef CPU_CAPABILITY_AVX2
#endif

namespace ks::detail {

// The same operations, in the same order, as PyTorch's normal_fill_16_AVX2.
void boxMullerAvx2(float* data, int64_t blocks, float mean, float std) {
    const __m256 twoPi = _mm256_set1_ps(2.0f * c10::pi<double>);
    const __m256 one = _mm256_set1_ps(1.0f);
    const __m256 minusTwo = _mm256_set1_ps(-2.0f);
    const __m256 meanV = _mm256_set1_ps(mean);
    const __m256 stdV = _mm256_set1_ps(std);
    for (int64_t b = 0; b < blocks; ++b, data += 16) {
        const __m256 u1 = _mm256_sub_ps(one, _mm256_loadu_ps(data));
        const __m256 u2 = _mm256_loadu_ps(data + 8);
        const __m256 radius = _mm256_sqrt_ps(_mm256_mul_ps(minusTwo, log256_ps(u1)));
        const __m256 theta = _mm256_mul_ps(twoPi, u2);
        __m256 sinTheta, cosTheta;
        sincos256_ps(theta, &sinTheta, &cosTheta);
        const __m256 n1 = _mm256_mul_ps(radius, cosTheta);
        const __m256 n2 = _mm256_mul_ps(radius, sinTheta);
        _mm256_storeu_ps(data, _mm256_fmadd_ps(n1, stdV, meanV));
        _mm256_storeu_ps(data + 8, _mm256_fmadd_ps(n2, stdV, meanV));
    }
}

} // namespace ks::detail

#pragma GCC pop_options

#endif // KS_FASTDRAW_X86
