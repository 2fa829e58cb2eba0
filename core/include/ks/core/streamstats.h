// SPDX-License-Identifier: MIT
#pragma once
// Statistics that stream over seeds: memory depends on the output size, never on the number
// of seeds. We keep running moments (Welford, float64) instead of the [S, *out] stack that
// robust-kbench copies to the host, which is what made its pass slow.

#include "ks/core/results.h"

#include <ATen/ATen.h>

namespace ks {

// Per-element running mean / M2 across seeds; std is unbiased (n - 1), NaN for n < 2.
class SeedMoments {
public:
    void add(const at::Tensor& x); // x: this seed's output, any dtype, cast to float64
    int64_t count() const { return m_count; }
    at::Tensor stdev() const;      // per element, float64
    // max and mean of std(); NaN-propagating. With stdHistogram, also the histogram of the finite
    // std values on [0, max * 1.0001] in `bins` bins (empty when nothing was added).
    SpreadMetrics metrics(Histogram* stdHistogram = nullptr, int bins = 0) const;

private:
    at::Tensor m_mean, m_m2;
    int64_t m_count = 0;
};

// Everything filters 1-3 need from the outputs of one pass: value range, moments across
// seeds, per-axis uniformity of each seed's output, a value histogram, per-seed summaries.
class OutputAccumulator {
public:
    explicit OutputAccumulator(int histogramBins = 64) : m_bins(histogramBins) {}
    void add(const at::Tensor& output, int64_t seed); // output is cast to float32 first
    // Fills range, outputStd, axes, histograms and seedStats of `r`.
    void finish(TaskResult& r) const;
    int64_t seeds() const { return m_moments.count(); }
    uint64_t nonFinite() const { return m_nonFinite; }

private:
    struct SeedValues;
    void addAten(const at::Tensor& out, bool histogram, SeedValues& v);
    void addFused(const at::Tensor& out, bool histogram, SeedValues& v);
    void histogramAten(const at::Tensor& out, SeedValues& v) const;
    void histogramFused(const at::Tensor& out, SeedValues& v) const;
    void pushAxisStd(const at::Tensor& out, std::vector<at::Tensor>& scalars) const;
    void pushHistogram(const at::Tensor& out, const at::Tensor& finite, std::vector<at::Tensor>& scalars) const;
    void takeHistogram(const double* p, SeedValues& v) const;
    int m_bins;
    SeedMoments m_moments;
    std::vector<int64_t> m_shape;
    double m_maxAbs = 0.0, m_min = 0.0, m_max = 0.0;
    bool m_any = false, m_rangeNaN = false;
    uint64_t m_nonFinite = 0;
    std::vector<double> m_axisMax; // per output dim: max over seeds of max std along that dim
    Histogram m_hist;
    std::vector<SeedStat> m_seedStats;
};

// max(x) that returns NaN if any element is NaN and NaN for an empty tensor.
double nanMax(const at::Tensor& x);

} // namespace ks
