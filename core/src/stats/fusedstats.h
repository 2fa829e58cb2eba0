// SPDX-License-Identifier: MIT
#pragma once
// The filters' per-seed statistics on CUDA in a few passes of our own kernels (fusedstats.cu)
// instead of about twenty ATen ones: one pass updates the running moments across seeds, one
// reads a seed's output once for its range, finite count, mean and std and its histogram, and two
// summarise the per-element std at the end. No torch here: the caller (streamstats.cpp) passes
// device pointers and its stream. Every function returns 0 or a cudaError_t; errorString names it.
//
// What is computed is what streamstats.cpp's ATen path computes (docs/task-format.md, "Filters"):
// the moments update is the same float64 arithmetic element by element; histogram bins use
// at::histc's float formula; min and max are exact. Sums (a seed's mean and std, the mean of the
// per-element std) are reduced in another order, so they can differ from ATen's in the last bits.
// Per-block partial results are combined on the host in block order: the same inputs give the
// same numbers on every run.

#include <cstdint>

namespace ks::fused {

// Per-block record of seedScalars, in doubles (counts are exact below 2^53).
enum SeedField : int {
    kFinite,     // finite values
    kNaN,        // NaN values
    kMin,        // min over non-NaN values (+inf if none)
    kMax,        // max over non-NaN values (-inf if none)
    kFiniteMin,  // min over finite values (+inf if none)
    kFiniteMax,  // max over finite values (-inf if none)
    kUnder,      // finite values below lo (histogram on)
    kOver,       // finite values above hi (histogram on)
    kCount,      // Welford over all values in float64: count, mean, M2
    kMean,
    kM2,
    kSeedFields
};

// Per-block record of stdSummary.
enum StdField : int {
    kStdNonFinite, // elements whose std is NaN or inf
    kStdNaN,       // NaN among them
    kStdMax,       // max over non-NaN std (-inf if none)
    kStdSum,       // sum of all std (float64)
    kStdFloatMax,  // max of float(std) over finite std (-inf if none): the histogram's top
    kStdFields
};

// Whether the kernels run on the current device (built for its architecture; tried once per
// device with an empty kernel). Where not, the caller takes the ATen path.
bool usable();

// How many blocks (records) the reductions below use for n elements on the current device.
int blocksFor(int64_t n);

// mean, m2: float64, n elements. count: seeds including this one. count == 1 sets mean = x,
// m2 = 0; otherwise delta = x - mean; mean += delta * (1 / count); m2 += delta * (x - mean).
int welford(const float* x, double* mean, double* m2, int64_t n, int64_t count, void* stream);

// One pass over a seed's float32 output: `records` gets blocksFor(n) * kSeedFields doubles. With
// bins > 0 it also counts at::histc(x, bins, lo, hi) into `hist` (bins doubles, zeroed here) and
// the finite values outside [lo, hi] into kUnder / kOver.
int seedScalars(const float* x, int64_t n, float lo, float hi, int bins, double* records, double* hist,
                void* stream);

// The per-element std sqrt(max(m2 / (count - 1), 0)) summarised: blocksFor(n) * kStdFields doubles.
int stdSummary(const double* m2, int64_t n, int64_t count, double* records, void* stream);

// at::histc(float(std), bins, 0, hi) over the finite std values into `hist` (bins doubles, zeroed here).
int stdHistogram(const double* m2, int64_t n, int64_t count, float hi, int bins, double* hist, void* stream);

// The records of blocksFor(n) blocks combined on the host, in block order.
struct SeedSummary {
    double finite = 0, nan = 0, min = 0, max = 0, finiteMin = 0, finiteMax = 0, under = 0, over = 0;
    double count = 0, mean = 0, m2 = 0;
};
SeedSummary combineSeed(const double* records, int blocks);
struct StdSummary {
    double nonFinite = 0, nan = 0, max = 0, sum = 0, floatMax = 0;
};
StdSummary combineStd(const double* records, int blocks);

const char* errorString(int err);

} // namespace ks::fused
