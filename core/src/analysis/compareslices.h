// SPDX-License-Identifier: MIT
// Comparisons of large outputs a slice at a time. Whole tensors with allclose's own temporaries
// took several times an output's bytes on the device: KernelBench level 1's 7-8 GiB outputs ran
// filter 6 (lease 11) and filter 5's rewrite checks (lease 13) out of memory on an 80 GiB GPU.
// Every comparison here is elementwise or a maximum, so its result is exactly that of one call on
// the whole tensors. Internal to core/src/analysis.
#pragma once

#include <ATen/ATen.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

namespace ks {

inline constexpr int64_t kCompareSlice = int64_t{1} << 24;

// fn(x, y) on the matching flat slices of `a` and `b` (same number of elements; `b` may be
// undefined, and `y` is then too), in order; false at the first slice where fn is false.
template <class Fn>
bool everySlice(const at::Tensor& a, const at::Tensor& b, Fn&& fn, int64_t slice = kCompareSlice) {
    const at::Tensor x = a.reshape(-1), y = b.defined() ? b.reshape(-1) : at::Tensor();
    const int64_t n = x.numel();
    if (n == 0) return fn(x, y);
    for (int64_t off = 0; off < n; off += slice) {
        const int64_t len = std::min(slice, n - off);
        if (!fn(x.narrow(0, off, len), y.defined() ? y.narrow(0, off, len) : at::Tensor())) return false;
    }
    return true;
}

// at::allclose(a, b, rtol, atol, equal_nan=true) with both converted to `as` (a and b have the
// same sizes).
inline bool allCloseBySlices(const at::Tensor& a, const at::Tensor& b, double rtol, double atol,
                             at::ScalarType as = at::kDouble, int64_t slice = kCompareSlice) {
    return everySlice(
        a, b,
        [&](const at::Tensor& x, const at::Tensor& y) {
            return at::allclose(x.to(as), y.to(as), rtol, atol, /*equal_nan=*/true);
        },
        slice);
}

// The largest of f(x, y) over the slices, f a slice's maximum as a double; NaN if any slice's is
// NaN (as a maximum over the whole tensor); `empty` for tensors without elements.
template <class Fn>
double maxOverSlices(const at::Tensor& a, const at::Tensor& b, Fn&& f, double empty = 0.0,
                     int64_t slice = kCompareSlice) {
    if (a.numel() == 0) return empty;
    double most = -std::numeric_limits<double>::infinity();
    bool nan = false;
    everySlice(
        a, b,
        [&](const at::Tensor& x, const at::Tensor& y) {
            const double v = f(x, y);
            if (std::isnan(v)) nan = true;
            else most = std::max(most, v);
            return true;
        },
        slice);
    return nan ? std::numeric_limits<double>::quiet_NaN() : most;
}

// max |a - b| computed in float32 (a and b have the same sizes; 0 without elements).
inline double maxAbsDiffBySlices(const at::Tensor& a, const at::Tensor& b, int64_t slice = kCompareSlice) {
    return maxOverSlices(
        a, b,
        [](const at::Tensor& x, const at::Tensor& y) {
            return (x.to(at::kFloat) - y.to(at::kFloat)).abs().max().item<double>();
        },
        0.0, slice);
}

} // namespace ks
