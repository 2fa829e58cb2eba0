// SPDX-License-Identifier: MIT
#include "ks/core/guards.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <sstream>

namespace ks::guards {

std::string Comparison::describe() const {
    if (pass) return "ok";
    std::ostringstream os;
    os << badCount << " elements off";
    if (!firstBad.empty()) {
        os << ", first at [";
        for (size_t i = 0; i < firstBad.size(); ++i) os << (i ? ", " : "") << firstBad[i];
        os << "]";
    }
    if (!firstBadValues.empty()) os << ": " << firstBadValues;
    return os.str();
}

Comparison compareToReference(const at::Tensor& outIn, const at::Tensor& refIn, double atol, double rtol) {
    Comparison c;
    if (!outIn.sizes().equals(refIn.sizes())) {
        c.badCount = std::max<int64_t>(outIn.numel(), refIn.numel());
        std::ostringstream os;
        os << "shape " << outIn.sizes() << " vs reference " << refIn.sizes();
        c.firstBadValues = os.str();
        return c;
    }
    if (refIn.numel() == 0) {
        c.pass = true;
        return c;
    }
    const at::Tensor out = outIn.to(at::kDouble);
    const at::Tensor ref = refIn.to(at::kDouble);
    const at::Tensor diff = (out - ref).abs();
    // Only finite pairs are judged by the tolerance: an infinite reference would make it infinite.
    const at::Tensor within = (diff <= (ref.abs() * rtol + atol)) & out.isfinite() & ref.isfinite();
    const at::Tensor bothNaN = out.isnan() & ref.isnan();
    const at::Tensor sameInf = out.isinf() & (out == ref);
    const at::Tensor ok = within | bothNaN | sameInf;
    c.badCount = ok.numel() - ok.sum().item<int64_t>();
    c.pass = c.badCount == 0;
    const at::Tensor finite = out.isfinite() & ref.isfinite();
    if (finite.any().item<bool>()) {
        const at::Tensor d = diff.masked_select(finite);
        c.maxAbsErr = d.max().item<double>();
        const at::Tensor r = ref.abs().masked_select(finite);
        const at::Tensor nz = r > 0;
        if (nz.any().item<bool>()) c.maxRelErr = (d.masked_select(nz) / r.masked_select(nz)).max().item<double>();
    }
    if (!c.pass) {
        int64_t flat = (~ok).reshape({-1}).nonzero().index({0, 0}).item<int64_t>();
        const int64_t flatCopy = flat;
        c.firstBad.assign(static_cast<size_t>(ref.dim()), 0);
        for (int64_t d = ref.dim() - 1; d >= 0; --d) {
            c.firstBad[static_cast<size_t>(d)] = flat % ref.size(d);
            flat /= ref.size(d);
        }
        std::ostringstream os;
        os << out.reshape({-1})[flatCopy].item<double>() << " vs " << ref.reshape({-1})[flatCopy].item<double>();
        c.firstBadValues = os.str();
    }
    return c;
}

bool bitwiseEqual(const at::Tensor& a, const at::Tensor& b) {
    if (!a.sizes().equals(b.sizes()) || a.scalar_type() != b.scalar_type()) return false;
    if (a.numel() == 0) return true;
    // Compare the bits on the tensors' device (no copy to the host): view floats as integers of
    // the same width, so NaN payloads and -0.0 count as they are.
    at::ScalarType bits;
    switch (a.element_size()) {
    case 1: bits = at::kByte; break;
    case 2: bits = at::kShort; break;
    case 4: bits = at::kInt; break;
    case 8: bits = at::kLong; break;
    default: {
        const at::Tensor ca = a.contiguous().cpu(), cb = b.contiguous().cpu();
        return std::memcmp(ca.data_ptr(), cb.data_ptr(), static_cast<size_t>(ca.nbytes())) == 0;
    }
    }
    return at::equal(a.contiguous().view(bits), b.contiguous().view(bits));
}

bool impossibleSpeed(double minBytes, double flops, double medianMs, double copyGBs, double fp32Tflops,
                     double l2Bytes, bool l2Flush, std::string* why) {
    if (!(medianMs > 0)) return false;
    const double seconds = medianMs * 1e-3;
    std::ostringstream os;
    bool impossible = false;
    const bool dramBound = l2Flush || !(l2Bytes > 0) || minBytes > l2Bytes;
    if (dramBound && copyGBs > 0 && minBytes > 0) {
        const double gbs = minBytes / seconds / 1e9;
        if (gbs > copyGBs * 1.05) {
            impossible = true;
            os << "moves at least " << minBytes / 1e6 << " MB, so " << medianMs
               << " ms implies " << gbs << " GB/s, above the measured copy ceiling of " << copyGBs << " GB/s";
        }
    }
    if (fp32Tflops > 0 && flops > 0) {
        const double tflops = flops / seconds / 1e12;
        if (tflops > fp32Tflops * 1.05) {
            if (impossible) os << "; ";
            impossible = true;
            os << "needs " << flops / 1e9 << " GFLOP, so " << medianMs << " ms implies " << tflops
               << " TFLOP/s, above the measured FP32 peak of " << fp32Tflops << " TFLOP/s";
        }
    }
    if (why) *why = os.str();
    return impossible;
}

bool escapesTimedStream(double eventMedianMs, double syncedMsPerRun, std::string* why) {
    // Launch overhead (a few microseconds) can make synced back-to-back runs a little slower than
    // the events; only a large gap means the work ran outside the timed stream.
    const bool escapes = syncedMsPerRun > 2.0 * eventMedianMs + 0.02;
    if (why) {
        std::ostringstream os;
        if (escapes)
            os << "events on the launch stream measured " << eventMedianMs << " ms, but each run took "
               << syncedMsPerRun << " ms until the whole device was idle: work runs on another stream";
        *why = os.str();
    }
    return escapes;
}

TimingStats summarize(std::vector<double> s, int warmup, bool l2Flush, size_t keep) {
    TimingStats t;
    t.warmup = warmup;
    t.runs = static_cast<int>(s.size());
    t.l2Flush = l2Flush;
    if (s.empty()) return t;
    std::vector<double> sorted = s;
    std::sort(sorted.begin(), sorted.end());
    auto quantile = [&](double q) {
        const double pos = q * static_cast<double>(sorted.size() - 1);
        const size_t lo = static_cast<size_t>(std::floor(pos));
        const size_t hi = std::min(lo + 1, sorted.size() - 1);
        return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - static_cast<double>(lo));
    };
    t.medianMs = quantile(0.5);
    t.q1Ms = quantile(0.25);
    t.q3Ms = quantile(0.75);
    t.minMs = sorted.front();
    t.meanMs = std::accumulate(s.begin(), s.end(), 0.0) / static_cast<double>(s.size());
    // Evenly spaced samples in run order, so the GUI can show the distribution and any drift.
    if (s.size() <= keep) {
        t.samplesMs = s;
    } else {
        for (size_t i = 0; i < keep; ++i) t.samplesMs.push_back(s[i * s.size() / keep]);
    }
    return t;
}

} // namespace ks::guards
