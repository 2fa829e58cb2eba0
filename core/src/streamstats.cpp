// SPDX-License-Identifier: MIT
#include "ks/core/streamstats.h"
#include "ks/core/taskspec.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <vector>

#ifdef KS_FUSED_STATS
#include "stats/fusedstats.h"

#include <c10/cuda/CUDAStream.h>
#endif

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

#ifdef KS_FUSED_STATS
// The fused kernels serve float32 tensors on CUDA unless KS_FUSED_STATS=0 (the ATen path then,
// as on the CPU: the reference the GPU tests compare them with).
bool fusedEnabled() {
    const char* env = std::getenv("KS_FUSED_STATS");
    return !(env && std::strcmp(env, "0") == 0);
}
bool useFused(const at::Tensor& x) {
    return x.is_cuda() && x.scalar_type() == at::kFloat && fusedEnabled() && fused::usable();
}

void* stream() { return c10::cuda::getCurrentCUDAStream().stream(); }

void check(int err, const char* what) {
    if (err != 0) throw Error(std::string("CUDA error in the statistics (") + what + "): " + fused::errorString(err));
}

at::Tensor doubles(int64_t n, const at::Tensor& like) { return at::empty({n}, like.options().dtype(at::kDouble)); }
#endif

// The std histogram's edges: [0, max * 1.0001], max the largest finite std (float32), or 1e-6
// when there is none above 0. Its bins start empty.
void setStdEdges(Histogram& sh, double max, int bins) {
    if (!(max > 0)) max = 1e-6;
    sh.lo = 0.0;
    sh.hi = max * 1.0001;
    sh.counts.assign(static_cast<size_t>(bins), 0);
}

// A histogram of `s`' finite values on setStdEdges' range (ATen path).
void stdHistogramOf(const at::Tensor& s, int bins, Histogram& sh) {
    const at::Tensor finite = at::isfinite(s);
    const at::Tensor vals = s.masked_select(finite).to(at::kFloat);
    sh.nonFinite = static_cast<uint64_t>(s.numel() - vals.numel());
    setStdEdges(sh, vals.numel() ? vals.max().item<double>() : 0.0, bins);
    const at::Tensor counts = exactHistc(vals, bins, sh.lo, sh.hi).cpu();
    sh.counts.assign(counts.data_ptr<int64_t>(), counts.data_ptr<int64_t>() + bins);
}

} // namespace

double nanMax(const at::Tensor& x) {
    if (x.numel() == 0) return NaN;
    // at::max propagates NaN, which is what "NaN never passes" needs.
    return x.max().item<double>();
}

void SeedMoments::add(const at::Tensor& x) {
#ifdef KS_FUSED_STATS
    if (useFused(x) && (m_count == 0 || m_mean.is_contiguous())) {
        const at::Tensor f = x.contiguous();
        if (m_count == 0) {
            m_mean = at::empty(f.sizes(), f.options().dtype(at::kDouble));
            m_m2 = at::empty_like(m_mean);
        } else if (!f.sizes().equals(m_mean.sizes())) {
            throw Error("output shape changed between seeds (" + std::to_string(f.dim()) + "-d vs " +
                        std::to_string(m_mean.dim()) + "-d)");
        }
        ++m_count;
        check(fused::welford(f.data_ptr<float>(), m_mean.data_ptr<double>(), m_m2.data_ptr<double>(), f.numel(),
                             m_count, stream()),
              "moments");
        return;
    }
#endif
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

SpreadMetrics SeedMoments::metrics(Histogram* stdHistogram, int bins) const {
    SpreadMetrics m;
    if (stdHistogram) *stdHistogram = Histogram{};
    if (m_count == 0) return m;
    m.run = true;
#ifdef KS_FUSED_STATS
    if (m_m2.is_cuda() && m_m2.is_contiguous() && fusedEnabled() && fused::usable()) {
        const int64_t n = m_m2.numel();
        if (n == 0) return m;
        if (m_count < 2) {
            // std is NaN everywhere (as stdev() says): nothing to reduce.
            m.maxStd = m.meanStd = NaN;
            if (stdHistogram) {
                stdHistogram->nonFinite = static_cast<uint64_t>(n);
                setStdEdges(*stdHistogram, 0.0, bins);
            }
            return m;
        }
        const int blocks = fused::blocksFor(n);
        at::Tensor buf = doubles(static_cast<int64_t>(blocks) * fused::kStdFields, m_m2);
        check(fused::stdSummary(m_m2.data_ptr<double>(), n, m_count, buf.data_ptr<double>(), stream()), "std");
        const at::Tensor host = buf.cpu();
        const fused::StdSummary sum = fused::combineStd(host.data_ptr<double>(), blocks);
        m.maxStd = sum.nan > 0 ? NaN : sum.max;
        m.meanStd = sum.sum * (1.0 / static_cast<double>(n)); // ATen's mean: the sum times 1/n
        if (stdHistogram) {
            Histogram& sh = *stdHistogram;
            sh.nonFinite = static_cast<uint64_t>(sum.nonFinite);
            const bool anyFinite = sum.nonFinite < static_cast<double>(n);
            setStdEdges(sh, anyFinite ? sum.floatMax : 0.0, bins);
            if (anyFinite && bins > 0) {
                at::Tensor hist = doubles(bins, m_m2);
                check(fused::stdHistogram(m_m2.data_ptr<double>(), n, m_count, static_cast<float>(sh.hi), bins,
                                          hist.data_ptr<double>(), stream()),
                      "std histogram");
                const at::Tensor h = hist.cpu();
                for (int i = 0; i < bins; ++i) sh.counts[static_cast<size_t>(i)] = static_cast<uint64_t>(h.data_ptr<double>()[i]);
            }
        }
        return m;
    }
#endif
    const at::Tensor s = stdev();
    m.maxStd = nanMax(s);
    m.meanStd = s.numel() ? s.mean().item<double>() : NaN;
    if (stdHistogram && s.numel()) stdHistogramOf(s, bins, *stdHistogram);
    return m;
}

// What one seed adds, by either path.
struct OutputAccumulator::SeedValues {
    int64_t nFinite = 0;
    double mn = NaN, mx = NaN;        // NaN if any value is NaN (at::min / at::max)
    double finiteMin = 0, finiteMax = 0;
    double mean = NaN, std = NaN;     // over all values, float64
    std::vector<double> axisStd;      // per dim with size > 1: max over slices of std along it
    double under = 0, over = 0;       // counted when the histogram's edges are set
    std::vector<double> counts;
};

void OutputAccumulator::add(const at::Tensor& output, int64_t seed) {
    const at::Tensor out = output.to(at::kFloat);
    if (m_moments.count() == 0) {
        m_shape.assign(out.sizes().begin(), out.sizes().end());
        m_axisMax.assign(m_shape.size(), -std::numeric_limits<double>::infinity());
    } else if (!out.sizes().equals(m_shape)) {
        throw Error("output shape changed between seeds");
    }
    // Histogram: bin edges fixed by the first seed's finite range (widened a little); later
    // values outside it are counted as under/overflow, so nothing is silently dropped. Non-finite
    // values are left out: histc ignores NaN and what lies beyond its (finite) edges, and the
    // under/overflow counts are masked.
    Histogram& h = m_hist;
    const bool firstHistogram = h.counts.empty();
    SeedValues v;
#ifdef KS_FUSED_STATS
    if (useFused(out)) addFused(out, !firstHistogram, v);
    else
#endif
        addAten(out, !firstHistogram, v);
    const int64_t n = out.numel();
    m_nonFinite += static_cast<uint64_t>(n - v.nFinite);
    if (n > 0) {
        // NaN anywhere: min and max are NaN, and so is max |x| (the task is never flagged).
        const double maxAbs = std::isnan(v.mn) || std::isnan(v.mx) ? NaN : std::max(std::abs(v.mn), std::abs(v.mx));
        if (std::isnan(maxAbs)) m_rangeNaN = true;
        if (!m_any) {
            m_maxAbs = maxAbs;
            m_min = v.mn;
            m_max = v.mx;
        } else {
            m_maxAbs = std::max(m_maxAbs, maxAbs);
            m_min = std::min(m_min, v.mn);
            m_max = std::max(m_max, v.mx);
        }
        m_any = true;
    }
    // Axis uniformity: std(all, dim=a) for a >= 1 only involves one seed's output, so the
    // stacked statistic is the max over seeds of each seed's own per-axis value (NaN-propagating).
    size_t k = 0;
    for (size_t d = 0; d < m_shape.size(); ++d) {
        const double a = n > 0 && m_shape[d] > 1 ? v.axisStd[k++] : NaN;
        if (std::isnan(a) || std::isnan(m_axisMax[d])) m_axisMax[d] = NaN;
        else m_axisMax[d] = std::max(m_axisMax[d], a);
    }
    SeedStat st;
    st.seed = seed;
    if (n > 0) {
        st.mean = v.mean;
        st.std = v.std;
        st.min = v.mn; // float32 values, exact in float64
        st.max = v.mx;
    }
    m_seedStats.push_back(st);

    if (firstHistogram) {
        double lo = 0, hi = 0;
        if (v.nFinite > 0) {
            lo = v.finiteMin; // every value finite: the range's own min and max
            hi = v.finiteMax;
        }
        const double span = hi - lo;
        const double pad = span > 0 ? span * 0.02 : std::max(1e-6, std::abs(hi) * 0.01);
        h.lo = lo - pad;
        h.hi = hi + pad;
        h.counts.assign(static_cast<size_t>(m_bins), 0);
        if (v.nFinite > 0) {
#ifdef KS_FUSED_STATS
            if (useFused(out)) histogramFused(out, v);
            else
#endif
                histogramAten(out, v);
        }
    }
    h.nonFinite += static_cast<uint64_t>(n - v.nFinite);
    if (v.nFinite == 0) return; // nothing to count (a first seed's histogram was not computed)
    h.underflow += static_cast<uint64_t>(v.under);
    h.overflow += static_cast<uint64_t>(v.over);
    for (int i = 0; i < m_bins; ++i) h.counts[static_cast<size_t>(i)] += static_cast<uint64_t>(v.counts[static_cast<size_t>(i)]);
}

// The per-axis std of one seed, on the device; the caller copies them back with the rest.
void OutputAccumulator::pushAxisStd(const at::Tensor& out, std::vector<at::Tensor>& scalars) const {
    // A size-1 axis has no unbiased std (0/0); torch returns NaN with a warning per call.
    if (out.numel() == 0) return;
    for (size_t d = 0; d < m_shape.size(); ++d)
        if (m_shape[d] > 1)
            scalars.push_back(out.std(static_cast<int64_t>(d), /*unbiased=*/true).max().to(at::kDouble).reshape({-1}));
}

void OutputAccumulator::addAten(const at::Tensor& out, bool histogram, SeedValues& v) {
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
    // max |x| is max(|min|, |max|), computed on the host; the seed's min and max are these too.
    if (n > 0) {
        push(out.min());
        push(out.max());
    }
    pushAxisStd(out, scalars);
    if (n > 0) {
        push(o.mean());
        push(n > 1 ? o.std() : at::full({}, NaN, o.options()));
    }
    const size_t histAt = scalars.size();
    if (histogram) pushHistogram(out, finite, scalars);
    const at::Tensor host = at::cat(scalars).cpu();
    const double* p = host.data_ptr<double>();
    size_t k = 0;
    v.nFinite = static_cast<int64_t>(p[k++]);
    if (n > 0) {
        v.mn = p[k++];
        v.mx = p[k++];
    }
    for (size_t d = 0; d < m_shape.size(); ++d)
        if (n > 0 && m_shape[d] > 1) v.axisStd.push_back(p[k++]);
    if (n > 0) {
        v.mean = p[k++];
        v.std = p[k++];
    }
    if (histogram) takeHistogram(p + histAt, v);
    if (v.nFinite == n && n > 0) {
        v.finiteMin = v.mn;
        v.finiteMax = v.mx;
    } else if (v.nFinite > 0 && !histogram) {
        const at::Tensor vals = out.masked_select(finite);
        v.finiteMin = vals.min().item<double>();
        v.finiteMax = vals.max().item<double>();
    }
}

void OutputAccumulator::pushHistogram(const at::Tensor& out, const at::Tensor& finite,
                                      std::vector<at::Tensor>& scalars) const {
    const Histogram& h = m_hist;
    scalars.push_back(((out < h.lo) & finite).sum().to(at::kDouble).reshape({-1}));
    scalars.push_back(((out > h.hi) & finite).sum().to(at::kDouble).reshape({-1}));
    scalars.push_back(exactHistc(out.reshape({-1}), m_bins, h.lo, h.hi).to(at::kDouble));
}

void OutputAccumulator::takeHistogram(const double* p, SeedValues& v) const {
    v.under = p[0];
    v.over = p[1];
    v.counts.assign(p + 2, p + 2 + m_bins);
}

void OutputAccumulator::histogramAten(const at::Tensor& out, SeedValues& v) const {
    std::vector<at::Tensor> scalars;
    pushHistogram(out, at::isfinite(out), scalars);
    const at::Tensor host = at::cat(scalars).cpu();
    takeHistogram(host.data_ptr<double>(), v);
}

#ifdef KS_FUSED_STATS
namespace {

// One fused pass over a seed's output (contiguous float32), copied back at once with the device
// scalars in `before`: their values, the blocks' records combined, and the histogram's counts
// (bins > 0).
struct FusedSeed {
    at::Tensor host;
    const double* before = nullptr;
    const double* counts = nullptr;
    fused::SeedSummary s;
};
FusedSeed fusedSeedPass(const at::Tensor& out, const Histogram& h, int bins, std::vector<at::Tensor> before) {
    const size_t nBefore = before.size();
    const int blocks = fused::blocksFor(out.numel());
    const int64_t nRecords = static_cast<int64_t>(blocks) * fused::kSeedFields;
    at::Tensor buf = doubles(nRecords + bins, out);
    check(fused::seedScalars(out.data_ptr<float>(), out.numel(), static_cast<float>(h.lo), static_cast<float>(h.hi),
                             bins, buf.data_ptr<double>(), buf.data_ptr<double>() + nRecords, stream()),
          bins > 0 ? "a seed's values and histogram" : "a seed's values");
    before.push_back(buf);
    FusedSeed r;
    r.host = (before.size() == 1 ? buf : at::cat(before)).cpu();
    r.before = r.host.data_ptr<double>();
    r.s = fused::combineSeed(r.before + nBefore, blocks);
    r.counts = r.before + nBefore + nRecords;
    return r;
}

} // namespace

void OutputAccumulator::addFused(const at::Tensor& output, bool histogram, SeedValues& v) {
    const at::Tensor out = output.contiguous();
    m_moments.add(out);
    const int64_t n = out.numel();
    std::vector<at::Tensor> axes;
    pushAxisStd(out, axes);
    const size_t nAxes = axes.size();
    const FusedSeed f = fusedSeedPass(out, m_hist, histogram ? m_bins : 0, std::move(axes));
    const fused::SeedSummary& s = f.s;
    v.axisStd.assign(f.before, f.before + nAxes);
    v.nFinite = static_cast<int64_t>(s.finite);
    const bool anyNaN = s.nan > 0;
    v.mn = anyNaN ? NaN : s.min;
    v.mx = anyNaN ? NaN : s.max;
    v.finiteMin = s.finiteMin;
    v.finiteMax = s.finiteMax;
    if (v.nFinite == n) {
        v.mean = s.mean;
        v.std = n > 1 ? std::sqrt(std::max(s.m2 / static_cast<double>(n - 1), 0.0)) : NaN;
    } else {
        // ATen's mean of values with infinities is their sum's: +-inf, or NaN with both signs;
        // its std is NaN.
        const bool pos = s.max == INFINITY, neg = s.min == -INFINITY;
        v.mean = anyNaN || (pos && neg) ? NaN : (pos ? INFINITY : -INFINITY);
        v.std = NaN;
    }
    if (histogram) {
        v.under = s.under;
        v.over = s.over;
        v.counts.assign(f.counts, f.counts + m_bins);
    }
}

void OutputAccumulator::histogramFused(const at::Tensor& output, SeedValues& v) const {
    const FusedSeed f = fusedSeedPass(output.contiguous(), m_hist, m_bins, {});
    v.under = f.s.under;
    v.over = f.s.over;
    v.counts.assign(f.counts, f.counts + m_bins);
}
#endif

void OutputAccumulator::finish(TaskResult& r) const {
    r.outputShape = m_shape;
    r.seeds = static_cast<int>(m_moments.count());
    r.range.run = m_moments.count() > 0;
    r.range.maxAbs = m_rangeNaN || !m_any ? NaN : m_maxAbs;
    r.range.min = m_any ? m_min : NaN;
    r.range.max = m_any ? m_max : NaN;
    r.range.nonFinite = m_nonFinite;
    // With the histogram of per-element std across seeds, on [0, max std].
    r.outputStd = m_moments.metrics(&r.stdHistogram, m_bins);
    r.axes.run = m_moments.count() > 0;
    r.axes.perAxis.clear();
    r.axes.perAxis.push_back(r.outputStd.maxStd); // axis 0 = the seed axis
    for (double v : m_axisMax) r.axes.perAxis.push_back(v);
    r.valueHistogram = m_hist;
    r.seedStats = m_seedStats;
}

} // namespace ks
