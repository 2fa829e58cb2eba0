// SPDX-License-Identifier: MIT
// Host-side operand checks shared by the supports() functions. Each returns nullptr when fine,
// else a reason meant for the user ("what was wrong"), never a bare error code.
#pragma once

#include "ks/kernels/launch_config.h"
#include "ks/kernels/registry.h"

#include <cstdint>

namespace ks::kernels::detail {

// A float tensor of n elements: non-null when n > 0, and at least float-aligned (every
// variant copes with any 4-byte alignment; less than that is not a float32 tensor).
inline const char* checkTensor(const float* p, long long n, const char* nullReason,
                               const char* alignReason) {
    if (n <= 0) return nullptr;
    if (p == nullptr) return nullReason;
    if (!plan::aligned(p, alignof(float))) return alignReason;
    return nullptr;
}

// Byte ranges [a, a+na) and [b, b+nb) intersect.
inline bool overlaps(const void* a, long long na, const void* b, long long nb) {
    if (na <= 0 || nb <= 0 || a == nullptr || b == nullptr) return false;
    const auto x = reinterpret_cast<std::uintptr_t>(a);
    const auto y = reinterpret_cast<std::uintptr_t>(b);
    return x < y + static_cast<std::uintptr_t>(nb) * 4 &&
           y < x + static_cast<std::uintptr_t>(na) * 4;
}

} // namespace ks::kernels::detail
