// SPDX-License-Identifier: MIT
#include "ks/core/streamstats.h"
#include "ks/core/taskspec.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace ks {

namespace {

// at::histc counts in the input's dtype: float32 counts are exact only up to 2^24 a bin (a seed
// of 85 M values came out 16 short in one bin, and differently from run to run on CUDA). Chunks
// of at most 2^24 values each keep every partial count exact; they add up as int64.
at::Tensor exactHistc(const at::Tensor& flat, int bins, double lo, double hi) {
    constexpr int64_t kChunk = int64_t{1} << 24;
    const int64_t n = flat.numel();
    if (n <= kChunk) return at::histc(flat, bins, lo, hi).to(at::kLong);
    at::Tensor total = at::zeros({bins}, flat.options().dtype(at::kLong));
    for (int64_t off = 0; off < n; off += kChunk)
        total.add_(at::histc(flat.narrow(0, off, std::min(kChunk, n - off)), bins, lo, hi).to(at::kLong));
    return total;
}

} // namespace

double nanMax(const at::Tensor& x) {
    if (x.numel() == 0) return NaN;
    // at::max propagates NaN, which is what "NaN never passes" needs.
    return x.max().item<double>();
}

void SeedMoments::add(const at::Tensor& x) {
    at::Tensor v = x.to(at::kDouble);
    ++m_count;
    if (m_count == 1) {
        m_mean = v.clone();
        m_m2 = at::zeros_like(v);
        return;
    }
    if (!v.sizes().equals(m_mean.sizes()))
        throw Error("output shape changed between seeds (" + std::to_string(v.dim()) + "-d vs " +
                    std::to_string(m_mean.dim()) + "-d)");
    at::Tensor delta = v - m_mean;
    m_mean.add_(delta, 1.0 / static_cast<double>(m_count));
    m_m2.addcmul_(delta, v - m_mean);
}

at::Tensor SeedMoments::stdev() const {
    if (m_count == 0) return at::Tensor();
    if (m_count < 2) return at::full_like(m_m2, NaN);
    return (m_m2 / static_cast<double>(m_count - 1)).clamp_min_(0.0).sqrt_();
}

SpreadMetrics SeedMoments::metrics() const {
    SpreadMetrics m;
    if (m_count == 0) return m;
    m.run = true;
    const at::Tensor s = stdev();
    m.maxStd = nanMax(s);
    m.meanStd = s.numel() ? s.mean().item<double>() : NaN;
    return m;
}

void OutputAccumulator::add(const at::Tensor& output, int64_t seed) {
    const at::Tensor out = output.to(at::kFloat);
    if (m_moments.count() == 0) {
        m_shape.assign(out.sizes().begin(), out.sizes().end());
        m_axisMax.assign(m_shape.size(), -std::numeric_limits<double>::infinity());
    } else if (!out.sizes().equals(m_shape)) {
        throw Error("output shape changed between seeds");
    }
    // One float64 copy serves the moments and this seed's mean and std (SeedMoments::add keeps a
    // tensor that is float64 already as it is).
    const at::Tensor o = out.to(at::kDouble);
    m_moments.add(o);
    const int64_t n = out.numel();
    const at::Tensor finite = at::isfinite(out);

    // Every scalar this seed adds is computed on the device and copied back at once (one
    // synchronisation; two for the first seed, whose finite range fixes the histogram's edges).
    std::vector<at::Tensor> scalars;
    auto push = [&](const at::Tensor& x) { scalars.push_back(x.to(at::kDouble).reshape({-1})); };
    push(finite.sum());
    // Range over all values: NaN anywhere makes the metric NaN so the task is never flagged.
    // max |x| is max(|min|, |max|), computed on the host; the seed's min and max are these too.
    if (n > 0) {
        push(out.min());
        push(out.max());
    }
    // Axis uniformity: std(all, dim=a) for a >= 1 only involves one seed's output, so the
    // stacked statistic is the max over seeds of each seed's own per-axis value (NaN-propagating).
    // A size-1 axis has no unbiased std (0/0); torch returns NaN with a warning per call.
    for (size_t d = 0; d < m_shape.size(); ++d)
        if (n > 0 && m_shape[d] > 1) push(out.std(static_cast<int64_t>(d), /*unbiased=*/true).max());
    if (n > 0) {
        push(o.mean());
        push(n > 1 ? o.std() : at::full({}, NaN, o.options()));
    }
    // Histogram: bin edges fixed by the first seed's finite range (widened a little); later
    // values outside it are counted as under/overflow, so nothing is silently dropped. Non-finite
    // values are left out: histc ignores NaN and what lies beyond its (finite) edges, and the
    // under/overflow counts are masked.
    Histogram& h = m_hist;
    const bool firstHistogram = h.counts.empty();
    size_t histAt = 0;
    auto histogram = [&] {
        histAt = scalars.size();
        push(((out < h.lo) & finite).sum());
        push(((out > h.hi) & finite).sum());
        push(exactHistc(out.reshape({-1}), m_bins, h.lo, h.hi));
    };
    if (!firstHistogram) histogram();
    at::Tensor host = at::cat(scalars).cpu();
    const double* p = host.data_ptr<double>();

    size_t k = 0;
    const auto nFinite = static_cast<int64_t>(p[k++]);
    m_nonFinite += static_cast<uint64_t>(n - nFinite);
    double mn = NaN, mx = NaN;
    if (n > 0) {
        mn = p[k++];
        mx = p[k++];
        // NaN anywhere: min and max are NaN (at::min / at::max propagate it), and so is this.
        const double maxAbs = std::isnan(mn) || std::isnan(mx) ? NaN : std::max(std::abs(mn), std::abs(mx));
        if (std::isnan(maxAbs)) m_rangeNaN = true;
        if (!m_any) {
            m_maxAbs = maxAbs;
            m_min = mn;
            m_max = mx;
        } else {
            m_maxAbs = std::max(m_maxAbs, maxAbs);
            m_min = std::min(m_min, mn);
            m_max = std::max(m_max, mx);
        }
        m_any = true;
    }
    for (size_t d = 0; d < m_shape.size(); ++d) {
        const double v = n > 0 && m_shape[d] > 1 ? p[k++] : NaN;
        if (std::isnan(v) || std::isnan(m_axisMax[d])) m_axisMax[d] = NaN;
        else m_axisMax[d] = std::max(m_axisMax[d], v);
    }
    SeedStat s;
    s.seed = seed;
    if (n > 0) {
        s.mean = p[k++];
        s.std = p[k++];
        s.min = mn; // float32 values, exact in float64
        s.max = mx;
    }
    m_seedStats.push_back(s);

    if (firstHistogram) {
        double lo = 0, hi = 0;
        if (nFinite == n && n > 0) {
            lo = mn; // every value finite: the range's own min and max
            hi = mx;
        } else if (nFinite > 0) {
            const at::Tensor vals = out.masked_select(finite);
            lo = vals.min().item<double>();
            hi = vals.max().item<double>();
        }
        const double span = hi - lo;
        const double pad = span > 0 ? span * 0.02 : std::max(1e-6, std::abs(hi) * 0.01);
        h.lo = lo - pad;
        h.hi = hi + pad;
        h.counts.assign(static_cast<size_t>(m_bins), 0);
        if (nFinite > 0) {
            scalars.clear();
            histogram();
            host = at::cat(scalars).cpu();
            p = host.data_ptr<double>();
        }
    }
    h.nonFinite += static_cast<uint64_t>(n - nFinite);
    if (nFinite == 0) return; // nothing to count (a first seed's histogram was not computed)
    h.underflow += static_cast<uint64_t>(p[histAt]);
    h.overflow += static_cast<uint64_t>(p[histAt + 1]);
    for (int i = 0; i < m_bins; ++i)
        h.counts[static_cast<size_t>(i)] += static_cast<uint64_t>(p[histAt + 2 + static_cast<size_t>(i)]);
}

void OutputAccumulator::finish(TaskResult& r) const {
    r.outputShape = m_shape;
    r.seeds = static_cast<int>(m_moments.count());
    r.range.run = m_moments.count() > 0;
    r.range.maxAbs = m_rangeNaN || !m_any ? NaN : m_maxAbs;
    r.range.min = m_any ? m_min : NaN;
    r.range.max = m_any ? m_max : NaN;
    r.range.nonFinite = m_nonFinite;
    r.outputStd = m_moments.metrics();
    r.axes.run = m_moments.count() > 0;
    r.axes.perAxis.clear();
    r.axes.perAxis.push_back(r.outputStd.maxStd); // axis 0 = the seed axis
    for (double v : m_axisMax) r.axes.perAxis.push_back(v);
    r.valueHistogram = m_hist;
    r.seedStats = m_seedStats;

    // Histogram of per-element std across seeds, on [0, max std].
    Histogram& sh = r.stdHistogram;
    sh = Histogram{};
    const at::Tensor s = m_moments.stdev();
    if (s.defined() && s.numel()) {
        const at::Tensor finite = at::isfinite(s);
        const at::Tensor vals = s.masked_select(finite).to(at::kFloat);
        sh.nonFinite = static_cast<uint64_t>(s.numel() - vals.numel());
        double hi = vals.numel() ? vals.max().item<double>() : 0.0;
        if (!(hi > 0)) hi = 1e-6;
        sh.lo = 0.0;
        sh.hi = hi * 1.0001;
        const at::Tensor counts = exactHistc(vals, m_bins, sh.lo, sh.hi).cpu();
        sh.counts.assign(counts.data_ptr<int64_t>(), counts.data_ptr<int64_t>() + m_bins);
    }
}

} // namespace ks
