// SPDX-License-Identifier: MIT
#pragma once
// PyTorch's CPU samplers, faster, with the same numbers bit for bit.
//
// PyTorch's CPU kernels for uniform_, normal_ and random_(from, to) call the generator once per
// element through its locked, virtual interface (3.6-5 ns an element on the H200's host). Their
// arithmetic is small: uniform_ maps the low 24 bits of one Mersenne-twister output w to
// (w & 0xffffff) * 2^-24 * (to - from) + from; normal_ (float, contiguous, 16 or more elements)
// fills the tensor with uniforms and turns each block of 16 into normals by Box-Muller; random_
// with a range under 2^28 takes w % range + from. The forms here regenerate the twister's state a
// block of 624 words at a time and apply the same arithmetic to whole runs of it.
//
// The arithmetic's rounding depends on how PyTorch's kernels were compiled for this CPU (whether
// the multiply-add is fused; which of its scalar and AVX2 Box-Muller paths runs). So each form has
// variants, and the first call with a given (kind, a, b) draws a probe of 2 x 1301 elements with
// PyTorch's kernel and with each variant from the same generator state: a variant is used only
// where it gives the kernel's values bit for bit and leaves the generator in the kernel's state.
// Where none does (another PyTorch, another CPU), the kernel itself draws, as before.
// KS_FAST_DRAW=0 turns the fast forms off (the comparison runs of bench/engine/draw_bench.cpp).
// This header pulls in ATen; include it only from engine-side translation units.
#include <ATen/ATen.h>
#include <ATen/core/MT19937RNGEngine.h>

#include <cstdint>
#include <string>

namespace ks {

// x.uniform_(from, to, gen), x.normal_(mean, std, gen), x.random_(from, to, gen): the same values
// and the generator left in the same state. The fast form applies to contiguous CPU tensors of
// fastDrawMinElements() or more (float for the first two, int64 with to - from < 2^28 for the
// third) and to CPU generators; everything else is drawn by the kernel.
void drawUniform(at::Tensor& x, double from, double to, at::Generator& gen);
void drawNormal(at::Tensor& x, double mean, double std, at::Generator& gen);
void drawRandom(at::Tensor& x, int64_t from, int64_t to, at::Generator& gen);

// Whether the fast forms may be used at all (KS_FAST_DRAW, read once).
bool fastDrawEnabled();
// The smallest tensor they draw: 4096 elements, or KS_FAST_DRAW_MIN (read once; at least 16, where
// PyTorch's normal_ takes its block path), which the tests set low to send every draw through them.
int64_t fastDrawMinElements();

// The variants the probes chose so far in this process, e.g. "uniform(-0.1, 0.1): fused;
// normal(0, 1): scalar" ("kernel" where none matched); empty before the first probe.
std::string fastDrawChoices();

// A new CPU generator whose engine is a copy of e (a probe's or a split part's starting state).
at::Generator cpuGeneratorAt(const at::mt19937& e);

// One regeneration of the twister's 624-word state, as mt19937_engine's next_state does it.
void regenerateState(std::array<uint32_t, at::MERSENNE_STATE_N>& s);

} // namespace ks
