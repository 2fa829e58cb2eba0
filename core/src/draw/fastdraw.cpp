// SPDX-License-Identifier: MIT
// PyTorch's CPU samplers over whole runs of the Mersenne twister's state (ks/core/fastdraw.h).
// Compiled with -ffp-contract=off: a multiply-add is fused here only where a variant says so.
#include "ks/core/fastdraw.h"

#include "fastdraw_avx2.h"

#include <ATen/CPUGeneratorImpl.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <sstream>
#include <string_view>
#include <tuple>
#include <vector>

namespace ks {
namespace {

using Pod = at::mt19937_data_pod;
constexpr int kN = at::MERSENNE_STATE_N;

[[gnu::always_inline]] inline uint32_t temper(uint32_t y) {
    y ^= (y >> 11);
    y ^= (y << 7) & 0x9d2c5680u;
    y ^= (y << 15) & 0xefc60000u;
    y ^= (y >> 18);
    return y;
}

// Calls run(words, count) over the next `n` outputs of the engine, in order, as runs of untempered
// state words, and leaves `d` as n calls of mt19937_engine::operator() would. That call decrements
// left_ first and regenerates when it reaches 0, then returns state_[next_++]: left_ - 1 outputs
// are ready at state_[next_...] before the next regeneration.
template <class Run> [[gnu::always_inline]] inline void walk(Pod& d, int64_t n, Run&& run) {
    while (n > 0) {
        int64_t ready = static_cast<int64_t>(d.left_) - 1;
        if (ready <= 0) {
            regenerateState(d.state_);
            d.left_ = kN + 1; // the call that regenerates sets N, after its own decrement
            d.next_ = 0;
            ready = kN;
        }
        const int64_t take = std::min(ready, n);
        run(d.state_.data() + d.next_, take);
        d.next_ += static_cast<uint32_t>(take);
        d.left_ -= static_cast<int>(take);
        n -= take;
    }
}

// at::uniform_real_distribution<float>: (w & (2^24 - 1)) * 2^-24, exact in float, then
// x * (to - from) + from, its multiply-add fused or not as the kernel was compiled.
template <bool Fused>
[[gnu::always_inline]] inline void uniformWords(const uint32_t* w, int64_t n, float* out,
                                                float range, float from) {
    for (int64_t i = 0; i < n; ++i) {
        const float x =
            static_cast<float>(static_cast<int32_t>(temper(w[i]) & 0xffffffu)) * 0x1p-24f;
        if constexpr (Fused)
            out[i] = std::fma(x, range, from);
        else
            out[i] = x * range + from;
    }
}

template <bool Fused>
[[gnu::always_inline]] inline void uniformFill(Pod& d, float* out, int64_t n, float range,
                                               float from) {
    walk(d, n, [&](const uint32_t* w, int64_t k) {
        uniformWords<Fused>(w, k, out, range, from);
        out += k;
    });
}

// random_(from, to) with to - from < 2^28: one output an element, w % range + from.
[[gnu::always_inline]] inline void randomFill(Pod& d, int64_t* out, int64_t n, uint32_t range,
                                              int64_t base) {
    walk(d, n, [&](const uint32_t* w, int64_t k) {
        for (int64_t i = 0; i < k; ++i)
            out[i] = static_cast<int64_t>(static_cast<uint64_t>(temper(w[i]) % range) +
                                          static_cast<uint64_t>(base));
        out += k;
    });
}

// PyTorch's normal_fill_16 (the scalar path): Box-Muller on 8 pairs (data[j], data[j + 8]).
template <bool Fused>
[[gnu::always_inline]] inline void boxMuller16(float* data, float mean, float std) {
    for (int j = 0; j < 8; ++j) {
        const float u1 = 1.0f - data[j]; // [0, 1) -> (0, 1] for the log
        const float u2 = data[j + 8];
        const float radius = std::sqrt(-2.0f * std::log(u1));
        // 2.0f * c10::pi<double> * u2: a double product, rounded to float.
        const float theta =
            static_cast<float>(2.0 * 3.14159265358979323846 * static_cast<double>(u2));
        const float c = radius * std::cos(theta), s = radius * std::sin(theta);
        if constexpr (Fused) {
            data[j] = std::fma(c, std, mean);
            data[j + 8] = std::fma(s, std, mean);
        } else {
            data[j] = c * std + mean;
            data[j + 8] = s * std + mean;
        }
    }
}

// normal_fill: uniforms for the whole tensor, Box-Muller on each block of 16, and where the size
// is no multiple of 16 the last 16 drawn again and transformed again. Done here a chunk at a time
// (a block's normals depend on its own 16 uniforms only, and the generator's outputs are taken in
// the same order), so that the transform reads what the chunk's fill has just left in the cache.
// `blocks(p, k)` transforms the k blocks of 16 at p.
template <class Blocks>
[[gnu::always_inline]] inline void normalFill(Pod& d, float* data, int64_t n, Blocks&& blocks) {
    constexpr int64_t kChunk = 4096; // a multiple of 16
    const int64_t full = n / 16 * 16;
    for (int64_t i = 0; i < n; i += kChunk) {
        const int64_t k = std::min(kChunk, n - i);
        uniformFill<false>(d, data + i, k, 1.0f, 0.0f); // x * 1 + 0 is x, fused or not
        const int64_t end = std::min(i + k, full);
        if (end > i) blocks(data + i, (end - i) / 16);
    }
    if (n % 16 != 0) {
        float* tail = data + n - 16;
        uniformFill<false>(d, tail, 16, 1.0f, 0.0f);
        blocks(tail, 1);
    }
}

// The fused forms with hardware FMA where the CPU has it (std::fma is a library call otherwise).
#ifdef KS_FASTDRAW_X86
bool cpuHasFma() {
    static const bool has = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    return has;
}
#define KS_TARGET_FMA [[gnu::target("avx2,fma")]]
#else
bool cpuHasFma() {
    return false;
}
#define KS_TARGET_FMA
#endif

void uniformPlain(Pod& d, float* out, int64_t n, float range, float from) {
    uniformFill<false>(d, out, n, range, from);
}
void uniformFusedGeneric(Pod& d, float* out, int64_t n, float range, float from) {
    uniformFill<true>(d, out, n, range, from);
}
KS_TARGET_FMA void uniformFusedFma(Pod& d, float* out, int64_t n, float range, float from) {
    uniformFill<true>(d, out, n, range, from);
}
void uniformFused(Pod& d, float* out, int64_t n, float range, float from) {
    if (cpuHasFma())
        uniformFusedFma(d, out, n, range, from);
    else
        uniformFusedGeneric(d, out, n, range, from);
}

template <bool Fused>
[[gnu::always_inline]] inline void scalarBlocks(float* p, int64_t k, float mean, float std) {
    for (int64_t b = 0; b < k; ++b)
        boxMuller16<Fused>(p + 16 * b, mean, std);
}
void normalScalarPlain(Pod& d, float* out, int64_t n, float mean, float std) {
    normalFill(d, out, n, [&](float* p, int64_t k) { scalarBlocks<false>(p, k, mean, std); });
}
void normalScalarFusedGeneric(Pod& d, float* out, int64_t n, float mean, float std) {
    normalFill(d, out, n, [&](float* p, int64_t k) { scalarBlocks<true>(p, k, mean, std); });
}
KS_TARGET_FMA void normalScalarFusedFma(Pod& d, float* out, int64_t n, float mean, float std) {
    normalFill(d, out, n, [&](float* p, int64_t k) { scalarBlocks<true>(p, k, mean, std); });
}
void normalScalarFused(Pod& d, float* out, int64_t n, float mean, float std) {
    if (cpuHasFma())
        normalScalarFusedFma(d, out, n, mean, std);
    else
        normalScalarFusedGeneric(d, out, n, mean, std);
}
// PyTorch's AVX2 path (normal_fill_AVX2): only on CPUs that have AVX2 and FMA.
#ifdef KS_FASTDRAW_X86
void normalAvx2(Pod& d, float* out, int64_t n, float mean, float std) {
    normalFill(d, out, n, [&](float* p, int64_t k) { detail::boxMullerAvx2(p, k, mean, std); });
}
#endif

// ---- choosing a variant by probes against the kernel ------------------------------------------

enum class Kind { Uniform, Normal, Random };

const char* kindName(Kind k) {
    switch (k) {
    case Kind::Uniform:
        return "uniform";
    case Kind::Normal:
        return "normal";
    case Kind::Random:
        return "random";
    }
    return "?";
}

using FloatFill = void (*)(Pod&, float*, int64_t, float, float);

struct Variant {
    const char* name;
    FloatFill fill;
};

// The variants of a kind, in the order the probes try them (built once: the CPU does not change).
const std::vector<Variant>& floatVariants(Kind k) {
    static const std::vector<Variant> uniform{{"plain", uniformPlain}, {"fused", uniformFused}};
    static const std::vector<Variant> normal = [] {
        std::vector<Variant> v{{"scalar", normalScalarPlain}, {"scalar-fused", normalScalarFused}};
#ifdef KS_FASTDRAW_X86
        if (cpuHasFma()) v.push_back({"avx2", normalAvx2});
#endif
        return v;
    }();
    return k == Kind::Uniform ? uniform : normal;
}

bool samePod(const Pod& a, const Pod& b) {
    return a.left_ == b.left_ && a.next_ == b.next_ && a.state_ == b.state_;
}

// The kernel itself on a probe: the values and the engine it leaves.
std::pair<at::Tensor, Pod> kernelDraw(Kind k, int64_t n, const at::mt19937& e0, double a,
                                      double b) {
    at::Generator g = cpuGeneratorAt(e0);
    at::Tensor t =
        at::empty({n}, at::TensorOptions().dtype(k == Kind::Random ? at::kLong : at::kFloat));
    switch (k) {
    case Kind::Uniform:
        t.uniform_(a, b, g);
        break;
    case Kind::Normal:
        t.normal_(a, b, g);
        break;
    case Kind::Random:
        t.random_(static_cast<int64_t>(a), static_cast<int64_t>(b), g);
        break;
    }
    return {t, g.get<at::CPUGeneratorImpl>()->engine().data()};
}

// Probe sizes: two regenerations of the state and a tail of 5 past a multiple of 16 (normal_
// redraws its last 16), and a multiple of 16; from a generator 100 outputs into a block.
constexpr int64_t kProbeSizes[] = {2 * kN + 16 * 3 + 5, 2 * kN + 16};

at::mt19937 probeStart() {
    at::mt19937 e(0x6b73u);
    for (int i = 0; i < 100; ++i)
        (void)e();
    return e;
}

// The index of the variant that matches the kernel on every probe, -1 if none does.
int probeFloat(Kind k, double a, double b, const std::vector<Variant>& variants) {
    std::vector<bool> alive(variants.size(), true);
    const at::mt19937 e0 = probeStart();
    for (int64_t n : kProbeSizes) {
        const auto [want, wantPod] = kernelDraw(k, n, e0, a, b);
        for (size_t v = 0; v < variants.size(); ++v) {
            if (!alive[v]) continue;
            std::vector<float> got(static_cast<size_t>(n));
            Pod d = e0.data();
            variants[v].fill(d, got.data(), n,
                             k == Kind::Uniform ? static_cast<float>(b) - static_cast<float>(a)
                                                : static_cast<float>(a),
                             k == Kind::Uniform ? static_cast<float>(a) : static_cast<float>(b));
            alive[v] = samePod(d, wantPod) &&
                       std::memcmp(got.data(), want.data_ptr(), got.size() * sizeof(float)) == 0;
        }
    }
    for (size_t v = 0; v < variants.size(); ++v)
        if (alive[v]) return static_cast<int>(v);
    return -1;
}

int probeRandom(int64_t from, int64_t to) {
    const at::mt19937 e0 = probeStart();
    for (int64_t n : kProbeSizes) {
        const auto [want, wantPod] =
            kernelDraw(Kind::Random, n, e0, static_cast<double>(from), static_cast<double>(to));
        std::vector<int64_t> got(static_cast<size_t>(n));
        Pod d = e0.data();
        randomFill(d, got.data(), n, static_cast<uint32_t>(to - from), from);
        if (!samePod(d, wantPod) ||
            std::memcmp(got.data(), want.data_ptr(), got.size() * sizeof(int64_t)) != 0)
            return -1;
    }
    return 0;
}

struct Choices {
    std::mutex mu;
    std::map<std::tuple<int, double, double>, int> chosen; // -1: the kernel
    std::vector<std::string> log;
};

Choices& choices() {
    static Choices c;
    return c;
}

// The variant for (k, a, b), probing on first use.
int variantFor(Kind k, double a, double b) {
    Choices& c = choices();
    const auto key = std::make_tuple(static_cast<int>(k), a, b);
    {
        std::lock_guard<std::mutex> lock(c.mu);
        const auto it = c.chosen.find(key);
        if (it != c.chosen.end()) return it->second;
    }
    int v = -1;
    std::string name = "kernel";
    if (k == Kind::Random) {
        v = probeRandom(static_cast<int64_t>(a), static_cast<int64_t>(b));
        if (v == 0) name = "words";
    } else {
        const auto& variants = floatVariants(k);
        v = probeFloat(k, a, b, variants);
        if (v >= 0) name = variants[static_cast<size_t>(v)].name;
    }
    std::lock_guard<std::mutex> lock(c.mu);
    if (c.chosen.emplace(key, v).second) {
        std::ostringstream s;
        s << kindName(k) << "(" << a << ", " << b << "): " << name;
        c.log.push_back(s.str());
    }
    return v;
}

// Finite parameters only: the kernel reports bad ones in its own words, and a NaN would make the
// choices' keys unordered.
bool fastApplies(const at::Tensor& x, at::ScalarType dtype, const at::Generator& gen, double a,
                 double b) {
    return fastDrawEnabled() && std::isfinite(a) && std::isfinite(b) && x.device().is_cpu() &&
           x.scalar_type() == dtype && x.is_contiguous() && x.numel() >= fastDrawMinElements() &&
           gen.defined() && gen.device().is_cpu();
}

// Runs `fill` on the generator's engine under its lock and stores the engine it leaves. False (and
// nothing drawn) for an engine that would read past its state before the next regeneration (no
// sequence of PyTorch's calls leaves one; a state set by hand can); the caller then calls the
// kernel.
template <class Fill> bool withEngine(at::Generator& gen, Fill&& fill) {
    std::lock_guard<std::mutex> lock(gen.mutex());
    auto* impl = gen.get<at::CPUGeneratorImpl>();
    at::mt19937 e = impl->engine();
    Pod d = e.data();
    if (d.left_ < 1 || static_cast<int64_t>(d.next_) + d.left_ - 1 > kN) return false;
    fill(d);
    e.set_data(d);
    impl->set_engine(e);
    return true;
}

} // namespace

at::Generator cpuGeneratorAt(const at::mt19937& e) {
    at::Generator g = at::make_generator<at::CPUGeneratorImpl>();
    g.get<at::CPUGeneratorImpl>()->set_engine(e);
    return g;
}

void regenerateState(std::array<uint32_t, at::MERSENNE_STATE_N>& s) {
    constexpr int N = at::MERSENNE_STATE_N, M = at::MERSENNE_STATE_M;
    auto twist = [](uint32_t u, uint32_t v) {
        return (((u & at::UMASK) | (v & at::LMASK)) >> 1) ^ ((0u - (v & 1u)) & at::MATRIX_A);
    };
    int j = 0;
    for (; j < N - M; ++j)
        s[j] = s[j + M] ^ twist(s[j], s[j + 1]);
    for (; j < N - 1; ++j)
        s[j] = s[j + M - N] ^ twist(s[j], s[j + 1]);
    s[N - 1] = s[M - 1] ^ twist(s[N - 1], s[0]);
}

bool fastDrawEnabled() {
    static const bool on = [] {
        const char* v = std::getenv("KS_FAST_DRAW");
        return !(v && std::string_view(v) == "0");
    }();
    return on;
}

int64_t fastDrawMinElements() {
    static const int64_t n = [] {
        const char* v = std::getenv("KS_FAST_DRAW_MIN");
        if (!v || !*v) return int64_t{4096};
        char* end = nullptr;
        const long long x = std::strtoll(v, &end, 10);
        return end && *end == '\0' ? std::max<int64_t>(16, x) : int64_t{4096};
    }();
    return n;
}

std::string fastDrawChoices() {
    Choices& c = choices();
    std::lock_guard<std::mutex> lock(c.mu);
    std::string out;
    for (const auto& s : c.log)
        out += (out.empty() ? "" : "; ") + s;
    return out;
}

void drawUniform(at::Tensor& x, double from, double to, at::Generator& gen) {
    const int v = fastApplies(x, at::kFloat, gen, from, to) && from <= to
                      ? variantFor(Kind::Uniform, from, to)
                      : -1;
    const float f = static_cast<float>(from), range = static_cast<float>(to) - f;
    if (v < 0 || !withEngine(gen, [&](Pod& d) {
            floatVariants(Kind::Uniform)[static_cast<size_t>(v)].fill(d, x.data_ptr<float>(),
                                                                      x.numel(), range, f);
        }))
        x.uniform_(from, to, gen);
}

void drawNormal(at::Tensor& x, double mean, double std, at::Generator& gen) {
    const int v = fastApplies(x, at::kFloat, gen, mean, std) && std >= 0
                      ? variantFor(Kind::Normal, mean, std)
                      : -1;
    if (v < 0 || !withEngine(gen, [&](Pod& d) {
            floatVariants(Kind::Normal)[static_cast<size_t>(v)].fill(
                d, x.data_ptr<float>(), x.numel(), static_cast<float>(mean),
                static_cast<float>(std));
        }))
        x.normal_(mean, std, gen);
}

void drawRandom(at::Tensor& x, int64_t from, int64_t to, at::Generator& gen) {
    const bool small =
        to > from && static_cast<uint64_t>(to) - static_cast<uint64_t>(from) < (uint64_t{1} << 28);
    const double a = static_cast<double>(from), b = static_cast<double>(to);
    const int v =
        small && fastApplies(x, at::kLong, gen, a, b) ? variantFor(Kind::Random, a, b) : -1;
    const auto range = static_cast<uint32_t>(to - from);
    if (v < 0 || !withEngine(gen, [&](Pod& d) {
            randomFill(d, x.data_ptr<int64_t>(), x.numel(), range, from);
        }))
        x.random_(from, to, gen);
}

} // namespace ks
