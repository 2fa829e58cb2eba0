// SPDX-License-Identifier: MIT
#pragma once
// The harness's decisions as pure functions, so their logic is tested on the CPU: output vs
// reference, untouched inputs, impossible speeds, work escaping the timed stream, timing stats.
// Pulls in ATen; engine-side translation units only.

#include "ks/core/benchresults.h"

#include <ATen/ATen.h>

#include <string>
#include <vector>

namespace ks::guards {

struct Comparison {
    bool pass = false;
    double maxAbsErr = 0, maxRelErr = 0; // over elements where both are finite
    int64_t badCount = 0;
    std::vector<int64_t> firstBad; // multi-index of the first failing element
    std::string describe() const;  // "12/4096 elements off, first at [0, 3]: 1.5 vs 0.25"
    std::string firstBadValues;
};

// pass iff every element has |out - ref| <= atol + rtol * |ref|, or both are NaN, or both are
// the same infinity; shapes must match. `out` is any float dtype, `ref` float64.
Comparison compareToReference(const at::Tensor& out, const at::Tensor& ref, double atol, double rtol);

// Bit-exact equality (NaN payloads included): the input-modification guard.
bool bitwiseEqual(const at::Tensor& a, const at::Tensor& b);

// A time whose implied bandwidth (minBytes / time) or FLOP rate beats the measured ceilings by
// more than 5 % is impossible for an honest kernel. Data that fits in L2 (without an L2 flush)
// can legitimately beat the DRAM ceiling, so bandwidth is only judged when it cannot.
bool impossibleSpeed(double minBytes, double flops, double medianMs, double copyGBs, double fp32Tflops,
                     double l2Bytes, bool l2Flush, std::string* why);

// Events on the launch stream see only that stream. If back-to-back launches followed by a
// device-wide sync take much longer per launch than the events say, work ran elsewhere.
bool escapesTimedStream(double eventMedianMs, double syncedMsPerRun, std::string* why);

// Median / mean / quartiles / min of the samples (ms); keeps up to `keep` evenly spaced samples.
TimingStats summarize(std::vector<double> samplesMs, int warmup, bool l2Flush, size_t keep = 256);

} // namespace ks::guards
