// SPDX-License-Identifier: MIT
#pragma once
// What the engine's benchmark programs (ks_draw_bench, ks_upload_bench) share.
#include <algorithm>
#include <chrono>
#include <vector>

namespace ks::bench {

using Clock = std::chrono::steady_clock;

// The median of a few timed runs (the upper one of an even count).
inline double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

} // namespace ks::bench
