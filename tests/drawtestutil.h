// SPDX-License-Identifier: MIT
#pragma once
// Helpers of the draw tests (tst_splitdraw.cpp, tst_fastdraw.cpp): bytes compared, and generators
// that start fresh or some way into their stream.
#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>

#include <cstdint>
#include <cstring>

namespace ks::test {

inline bool sameBytes(const at::Tensor& a, const at::Tensor& b) {
    return a.numel() == b.numel() && a.scalar_type() == b.scalar_type() &&
           std::memcmp(a.data_ptr(), b.data_ptr(),
                       static_cast<size_t>(a.numel()) * a.element_size()) == 0;
}

// A generator seeded with `seed` that `burn` uniforms have been drawn from (as the second tensor of
// a set); a negative count: that many normals, fewer than 16, which leave a cached second normal in
// the generator's state (what is drawn next must keep it).
inline at::Generator seeded(uint64_t seed, int burn) {
    at::Generator g = at::make_generator<at::CPUGeneratorImpl>(seed);
    if (burn > 0) at::empty({burn}).uniform_(0, 1, g);
    if (burn < 0) at::empty({-burn}).normal_(0, 1, g);
    return g;
}

} // namespace ks::test
