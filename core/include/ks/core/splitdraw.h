// SPDX-License-Identifier: MIT
#pragma once
// One large tensor drawn on several host threads with exactly the numbers (and the generator's
// final state) of PyTorch's own single-threaded CPU kernel.
//
// PyTorch's CPU sampling kernels for normal_, uniform_ and random_(from, to) on a contiguous float
// or integer tensor take one or two 32-bit outputs of the generator's Mersenne twister per element,
// in order (normal_ turns blocks of 16 uniforms into normals and, when the size is not a multiple
// of 16, redraws the last 16). So the tensor can be cut into parts at multiples of 16 elements:
// part k is drawn by the same kernel, on a copy of the generator advanced past the parts before
// it, and the generator ends where the last part leaves it. Before it splits, each call checks the
// rule on a small probe against the kernel itself (the same values and final state, split and
// whole); where the probe disagrees (another PyTorch), it draws the whole tensor on one thread.
// This header pulls in ATen; include it only from engine-side translation units.
#include <ATen/ATen.h>
#include <ATen/core/MT19937RNGEngine.h>

#include <cstdint>

namespace ks {

// How one drawing thread may split a tensor: helpers are started only while fewer than
// `coreLimit` threads of this process are drawing (the drawing pools' threads and other helpers;
// DrawingNow counts them), one part at least `minPartElements` elements.
struct DrawSplit {
    int coreLimit = 0; // <= 1: never split
    int64_t minPartElements = int64_t{1} << 20;
};

// Counts the calling thread as drawing for its lifetime (a pool thread, or a caller that draws).
class DrawingNow {
public:
    DrawingNow();
    ~DrawingNow();
    DrawingNow(const DrawingNow&) = delete;
    DrawingNow& operator=(const DrawingNow&) = delete;
};
int drawingThreadsNow();

// While one lives (filter 5's timings, the device ceilings), no helper starts: the drawing ahead
// stays on the pools' threads. Helpers beside filter 5's timing made the built-in suite's eager
// times scatter 0.6-2.4x against a run without them (bench/engine/RESULTS.md, 2026-12-02).
class NoHelpersNow {
public:
    NoHelpersNow();
    ~NoHelpersNow();
    NoHelpersNow(const NoHelpersNow&) = delete;
    NoHelpersNow& operator=(const NoHelpersNow&) = delete;
};

// Host cores the drawing of one process may use at once by default: the hardware threads less
// two (for the engine's own threads), shared by `share` workers on one GPU; at least 1.
int drawCoreLimit(int share = 1);

// Advances `e` exactly as `n` calls of e() would (without computing the outputs).
void advanceEngine(at::mt19937& e, uint64_t n);

// x.normal_(mean, std, gen), x.uniform_(from, to, gen), x.random_(from, to, gen): the same values
// and the generator left in the same state, on up to split.coreLimit threads where cores are free.
// `x`: a contiguous CPU tensor (float for the first two). Returns the helper threads' summed
// seconds (0 when drawn on the calling thread alone).
double splitNormal(at::Tensor& x, double mean, double std, at::Generator& gen, const DrawSplit& split);
double splitUniform(at::Tensor& x, double from, double to, at::Generator& gen, const DrawSplit& split);
double splitRandom(at::Tensor& x, int64_t from, int64_t to, at::Generator& gen, const DrawSplit& split);

} // namespace ks
