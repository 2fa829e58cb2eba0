// SPDX-License-Identifier: MIT
// ks_kernel_selftest: checks every registered kernel variant against a float64 CPU reference,
// then times it, in one run on the GPU machine (no torch, no Qt).
//
// Checks, per variant and case: random inputs from a fixed seed (never all zeros); the output and
// a guard band on both sides poisoned with NaN before the launch; |out - ref| <= atol + rtol*|ref|
// (NaN must match NaN, Inf must match Inf); guard bands untouched; inputs bit-identical after the
// launch. Cases: the task shapes, odd sizes, pointers offset by one element (misaligned for
// float4), extreme values, empty tensors. The shortcut variant must be right on the broken conv
// task and wrong on the repaired one.
// Timing: CUDA events around each launch, 25 warm-ups and 200 runs by default (fewer for slow
// variants, within --budget-ms), median and IQR; each run is preceded by a short spin kernel so
// the host's launch latency stays out of the device time. GB/s is minBytes() over the median,
// compared with a measured device-to-device copy.
//
// --small skips every case with more than 4 Mi output elements (the task shapes), for a quick
// sweep under compute-sanitizer.
// --sweep adds softmax_kernel6 at other block sizes and buffer counts, checked and timed like
// the registered variants (to choose the plan's defaults from measurements).
// Usage: ks_kernel_selftest [--small] [--no-time] [--sweep] [--only=SUBSTR] [--reps=N]
//                           [--warmup=N] [--budget-ms=MS] [--seed=N]
// Exit status: 0 all passed (or no CUDA device: prints "SKIP: no CUDA device"), 1 a check
// failed, 2 a CUDA runtime error outside the variants.
#include "ks/kernels/launch_config.h"
#include "ks/kernels/registry.h"
#include "variants.h" // launch6With, for --sweep

#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <thread>
#include <vector>

using ks::kernels::Args;
using ks::kernels::Variant;

#define CHECK_CUDA(expr)                                                                           \
    do {                                                                                           \
        const cudaError_t e_ = (expr);                                                             \
        if (e_ != cudaSuccess) {                                                                   \
            std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #expr,                     \
                         cudaGetErrorString(e_));                                                  \
            std::exit(2);                                                                          \
        }                                                                                          \
    } while (0)

namespace {

struct Options {
    bool small = false;
    bool sweep = false;
    bool time = true;
    std::string only;
    int reps = 200;
    int warmup = 25;
    double budgetMs = 2000.0;
    unsigned long long seed = 20261129ULL;
    double atol = 1e-5, rtol = 1e-4;
};

// --sweep: softmax_kernel6 with a given block size and row buffers per block
template <int THREADS, int BUFFERS>
cudaError_t softmax6With(const Args& a, cudaStream_t s) {
    return ks::kernels::softmax::launch6With(a, s, THREADS, BUFFERS);
}
#define KS_SWEEP6(T, B)                                                                            \
    Variant {                                                                                      \
        "softmax", "softmax_kernel6[threads=" #T ",buffers=" #B "]", 6, "sweep", false,           \
            softmax6With<T, B>, ks::kernels::softmax::supports6                                    \
    }
const Variant kSweep[] = {KS_SWEEP6(256, 1), KS_SWEEP6(384, 1), KS_SWEEP6(512, 1),
                          KS_SWEEP6(640, 1), KS_SWEEP6(768, 1), KS_SWEEP6(512, 2)};
#undef KS_SWEEP6

constexpr int kGuard = 64; // poisoned floats after each output
constexpr std::uint32_t kPoison = 0xFFFFFFFFu;

// ---------------------------------------------------------------------------------------------
// Host helpers

void parallelFor(long long n, const std::function<void(long long, long long)>& fn) {
    const long long threads = std::clamp<long long>(std::thread::hardware_concurrency(), 1, 64);
    if (n < 4096 || threads == 1) {
        fn(0, n);
        return;
    }
    std::vector<std::thread> pool;
    const long long chunk = (n + threads - 1) / threads;
    for (long long t = 0; t < threads; ++t) {
        const long long b = t * chunk, e = std::min(n, b + chunk);
        if (b < e) pool.emplace_back(fn, b, e);
    }
    for (auto& th : pool)
        th.join();
}

void fillNormal(std::vector<float>& v, std::mt19937_64& rng, double mean = 0.0, double sd = 1.0) {
    std::normal_distribution<double> d(mean, sd);
    for (float& x : v)
        x = static_cast<float>(d(rng));
}
void fillUniform(std::vector<float>& v, std::mt19937_64& rng, double lo, double hi) {
    std::uniform_real_distribution<double> d(lo, hi);
    for (float& x : v)
        x = static_cast<float>(d(rng));
}

struct Case {
    std::string op, label;
    Args args;                      // dims/scalars; pointers are filled in per run
    std::vector<long long> inElems; // elements of in[0..]
    std::vector<int> inOffset;      // elements added to each input pointer (misalignment)
    long long outElems = 0;
    int outOffset = 0;
    bool timed = false;
    bool taskShape = false;       // a variant refusing it is a failure
    bool shortcutHolds = true;    // false: a shortcut variant must be caught wrong here
    long long naiveWorkLimit = 0; // >0: skip version-1 variants when naiveWork exceeds it
    double naiveWork = 0;
    std::function<void(std::vector<std::vector<float>>&, std::mt19937_64&)> init;
    std::function<void(const std::vector<std::vector<float>>&, std::vector<double>&)> ref;
};

// ---------------------------------------------------------------------------------------------
// float64 references (semantics of the PyTorch tasks)

void refDiag(const std::vector<std::vector<float>>& in, std::vector<double>& out, long long N,
             long long M) {
    parallelFor(N, [&](long long b, long long e) {
        for (long long i = b; i < e; ++i)
            for (long long j = 0; j < M; ++j)
                out[i * M + j] = static_cast<double>(in[0][i]) * in[1][i * M + j];
    });
}

// softmax over the middle axis of [outer, L, inner], as torch does it: max (NaN-ignoring like
// fmax), sum of exp(x - max), exp(x - max) / sum, so NaN, +Inf and all -Inf rows become NaN.
void refSoftmaxAxis(std::vector<double>& y, long long outer, long long L, long long inner) {
    parallelFor(outer * inner, [&](long long b, long long e) {
        for (long long idx = b; idx < e; ++idx) {
            const long long o = idx / inner, i = idx % inner;
            double* p = y.data() + o * L * inner + i;
            double m = -INFINITY;
            for (long long l = 0; l < L; ++l)
                m = std::fmax(m, p[l * inner]);
            double s = 0;
            for (long long l = 0; l < L; ++l)
                s += std::exp(p[l * inner] - m);
            for (long long l = 0; l < L; ++l)
                p[l * inner] = std::exp(p[l * inner] - m) / s;
        }
    });
}

void refSoftmax(const std::vector<std::vector<float>>& in, std::vector<double>& out, long long rows,
                long long cols) {
    for (long long i = 0; i < rows * cols; ++i)
        out[i] = in[0][i];
    refSoftmaxAxis(out, rows, cols, 1);
}

void refRmsnorm(const std::vector<std::vector<float>>& in, std::vector<double>& out, long long B,
                long long C, long long S, double eps) {
    parallelFor(B * S, [&](long long b0, long long e0) {
        for (long long idx = b0; idx < e0; ++idx) {
            const long long b = idx / S, s = idx % S;
            double ss = 0;
            for (long long c = 0; c < C; ++c) {
                const double v = in[0][(b * C + c) * S + s];
                ss += v * v;
            }
            const double rms = std::sqrt(ss / static_cast<double>(C) + eps);
            for (long long c = 0; c < C; ++c)
                out[(b * C + c) * S + s] = in[0][(b * C + c) * S + s] / rms;
        }
    });
}

void refConvTask(const std::vector<std::vector<float>>& in, std::vector<double>& out,
                 const long long* dims, float scale) {
    const auto s = ks::kernels::plan::convTaskShape(dims);
    const auto &x = in[0], &w = in[1], &cb = in[2], &bias = in[3];
    const long long K = s.K, K3 = K * K * K;
    std::vector<double> v(static_cast<std::size_t>(s.convElems));
    // scatter form (the kernels gather): an independent formulation of the same convolution
    parallelFor(s.N * s.Cout, [&](long long b, long long e) {
        for (long long nc = b; nc < e; ++nc) {
            const long long n = nc / s.Cout, co = nc % s.Cout;
            double* vo = v.data() + nc * s.Do * s.Ho * s.Wo;
            for (long long i = 0; i < s.Do * s.Ho * s.Wo; ++i)
                vo[i] = cb[co];
            for (long long ci = 0; ci < s.Cin; ++ci)
                for (long long id = 0; id < s.D; ++id)
                    for (long long ih = 0; ih < s.H; ++ih)
                        for (long long iw = 0; iw < s.W; ++iw) {
                            const double xv =
                                x[(((n * s.Cin + ci) * s.D + id) * s.H + ih) * s.W + iw];
                            const float* wp = w.data() + (ci * s.Cout + co) * K3;
                            for (long long kd = 0; kd < K; ++kd) {
                                const long long od = id * s.stride - s.pad + kd;
                                if (od < 0 || od >= s.Do) continue;
                                for (long long kh = 0; kh < K; ++kh) {
                                    const long long oh = ih * s.stride - s.pad + kh;
                                    if (oh < 0 || oh >= s.Ho) continue;
                                    for (long long kw = 0; kw < K; ++kw) {
                                        const long long ow = iw * s.stride - s.pad + kw;
                                        if (ow < 0 || ow >= s.Wo) continue;
                                        vo[(od * s.Ho + oh) * s.Wo + ow] +=
                                            xv * wp[(kd * K + kh) * K + kw];
                                    }
                                }
                            }
                        }
        }
    });
    const long long conv[5] = {s.N, s.Cout, s.Do, s.Ho, s.Wo};
    auto view = [](const long long* sh, long long axis, long long& outer, long long& L,
                   long long& inner) {
        outer = 1, inner = 1;
        for (long long i = 0; i < axis; ++i)
            outer *= sh[i];
        L = sh[axis];
        for (long long i = axis + 1; i < 5; ++i)
            inner *= sh[i];
    };
    long long outer, L, inner;
    view(conv, s.meanDim, outer, L, inner);
    for (long long o = 0; o < outer; ++o)
        for (long long i = 0; i < inner; ++i) {
            double acc = 0;
            for (long long l = 0; l < L; ++l)
                acc += v[(o * L + l) * inner + i];
            out[o * inner + i] = acc / static_cast<double>(L);
        }
    const long long chInner = s.red[2] * s.red[3] * s.red[4];
    for (long long i = 0; i < s.outElems; ++i)
        out[i] += bias[(i / chInner) % s.red[1]];
    view(s.red, s.softmaxDim, outer, L, inner);
    refSoftmaxAxis(out, outer, L, inner);
    for (long long i = 0; i < s.outElems; ++i)
        out[i] = std::tanh(out[i]) * scale;
}

// ---------------------------------------------------------------------------------------------
// Cases

Case diagCase(std::string label, long long N, long long M, int offB = 0, int offC = 0) {
    Case c;
    c.op = "diag_matmul";
    c.label = std::move(label);
    c.args.dims[0] = N;
    c.args.dims[1] = M;
    c.inElems = {N, N * M};
    c.inOffset = {offB, offB};
    c.outElems = N * M;
    c.outOffset = offC;
    c.naiveWork = static_cast<double>(N) * N * M;
    c.naiveWorkLimit = 200'000'000'000LL;
    c.init = [](auto& in, auto& rng) {
        fillNormal(in[0], rng);
        fillNormal(in[1], rng);
    };
    c.ref = [N, M](const auto& in, auto& out) { refDiag(in, out, N, M); };
    return c;
}

Case softmaxCase(std::string label, long long rows, long long cols, int off = 0,
                 std::function<void(std::vector<float>&, std::mt19937_64&)> special = {}) {
    Case c;
    c.op = "softmax";
    c.label = std::move(label);
    c.args.dims[0] = rows;
    c.args.dims[1] = cols;
    c.inElems = {rows * cols};
    c.inOffset = {off};
    c.outElems = rows * cols;
    c.outOffset = off;
    c.init = [special](auto& in, auto& rng) {
        fillNormal(in[0], rng);
        if (special) special(in[0], rng);
    };
    c.ref = [rows, cols](const auto& in, auto& out) { refSoftmax(in, out, rows, cols); };
    return c;
}

Case rmsCase(std::string label, long long B, long long C, long long H, long long W, int off = 0,
             double scale = 1.0) {
    Case c;
    c.op = "rmsnorm";
    c.label = std::move(label);
    c.args.dims[0] = B, c.args.dims[1] = C, c.args.dims[2] = H, c.args.dims[3] = W;
    c.args.scalars[0] = 1e-5f;
    c.inElems = {B * C * H * W};
    c.inOffset = {off};
    c.outElems = B * C * H * W;
    c.outOffset = off;
    c.init = [scale](auto& in, auto& rng) { fillNormal(in[0], rng, 0.0, scale); };
    const double eps = static_cast<double>(1e-5f);
    c.ref = [B, C, H, W, eps](const auto& in, auto& out) { refRmsnorm(in, out, B, C, H * W, eps); };
    return c;
}

Case convCase(std::string label, long long N, long long Cin, long long D, long long H, long long W,
              long long Cout, long long K, long long stride, long long pad, long long outPad,
              long long meanDim, long long softmaxDim = 1, int off = 0) {
    Case c;
    c.op = "convtranspose3d_mean_add_softmax_tanh_scale";
    c.label = std::move(label);
    const long long d[12] = {N, Cin, D, H, W, Cout, K, stride, pad, outPad, meanDim, softmaxDim};
    std::copy(d, d + 12, c.args.dims);
    c.args.scalars[0] = 2.0f;
    const auto s = ks::kernels::plan::convTaskShape(c.args.dims);
    if (s.error) {
        std::fprintf(stderr, "bad conv case %s: %s\n", c.label.c_str(), s.error);
        std::exit(2);
    }
    c.inElems = {s.xElems, s.wElems, s.Cout, s.biasElems};
    c.inOffset = {off, off, off, off};
    c.outElems = s.outElems;
    c.outOffset = off;
    c.shortcutHolds = meanDim == 1 && softmaxDim == 1;
    // PyTorch's default init: U(-1/sqrt(fan_in), +) with fan_in = Cout * K^3 for transposed
    // convs; the task's extra bias is randn.
    const double bound = 1.0 / std::sqrt(static_cast<double>(Cout * K * K * K));
    c.init = [bound](auto& in, auto& rng) {
        fillNormal(in[0], rng);
        fillUniform(in[1], rng, -bound, bound);
        fillUniform(in[2], rng, -bound, bound);
        fillNormal(in[3], rng);
    };
    Args a = c.args;
    c.ref = [a](const auto& in, auto& out) { refConvTask(in, out, a.dims, a.scalars[0]); };
    return c;
}

std::vector<Case> buildCases() {
    std::vector<Case> cs;
    auto task = [](Case c) {
        c.timed = true;
        c.taskShape = true;
        return c;
    };
    // diag_matmul
    cs.push_back(task(diagCase("task L1-12 4096x4096", 4096, 4096)));
    cs.push_back(diagCase("odd 37x1001", 37, 1001));
    cs.push_back(diagCase("odd 37x1001 +1 elem", 37, 1001, 1, 1));
    cs.push_back(diagCase("64x516 +1 elem (vector body, 3-elem head)", 64, 516, 1, 1));
    cs.push_back(diagCase("64x516 B+1 C+0 (relative misalignment)", 64, 516, 1, 0));
    cs.push_back(diagCase("70000x3 (rows > 65535)", 70000, 3));
    cs.push_back(diagCase("2x1048581 (wide)", 2, 1048581));
    cs.push_back(diagCase("1x1", 1, 1));
    cs.push_back(diagCase("empty 0x4096", 0, 4096));
    cs.push_back(diagCase("empty 4096x0", 4096, 0));

    // softmax
    cs.push_back(task(softmaxCase("task L1-23 16x16384", 16, 16384)));
    cs.push_back(task(softmaxCase("large 1024x393216", 1024, 393216)));
    cs.push_back(softmaxCase("odd 7x1003", 7, 1003));
    cs.push_back(softmaxCase("5x4096 +1 elem", 5, 4096, 1));
    cs.push_back(softmaxCase("3x1001 +1 elem", 3, 1001, 1));
    cs.push_back(softmaxCase("1000x1 (single column)", 1000, 1));
    cs.push_back(softmaxCase("100000x10 (many short rows)", 100000, 10));
    cs.push_back(softmaxCase("1x300001 (one long odd row)", 1, 300001));
    cs.push_back(softmaxCase("1x1000000 (longer than a 16-block cluster's smem)", 1, 1000000));
    auto extremes = [](long long cols) {
        return [cols](std::vector<float>& x, std::mt19937_64& rng) {
            const float inf = std::numeric_limits<float>::infinity();
            const float nan = std::numeric_limits<float>::quiet_NaN();
            auto row = [&](long long r) { return x.data() + r * cols; };
            row(0)[cols / 3] = inf;                 // +Inf -> NaN row
            row(1)[cols / 2] = nan;                 // NaN -> NaN row
            std::fill(row(2), row(2) + cols, -inf); // all -Inf -> NaN row
            for (long long c = 0; c < cols; c += 3)
                row(3)[c] = -inf; // some -Inf -> zeros there
            row(3)[0] = -inf;     // first element -Inf
            for (long long c = 0; c < cols; ++c)
                row(4)[c] -= 1e4f; // large negative: stable
            for (long long c = 0; c < cols; ++c)
                row(5)[c] += 1e4f; // large positive: stable
            std::uniform_real_distribution<float> huge(-3e38f, 3e38f);
            for (long long c = 0; c < cols; ++c)
                row(6)[c] = huge(rng); // near FLT_MAX
            row(7)[cols - 1] = inf;    // +Inf last
            row(7)[0] = -inf;
            for (long long c = 0; c < cols; ++c) // -Inf first half, then large negative: a
                row(8)[c] = c < cols / 2 ? -inf : row(8)[c] - 1e4f; // running max starts at -Inf
        };
    };
    cs.push_back(
        softmaxCase("extremes 9x2048 (NaN, +-Inf, 1e4, 3e38)", 9, 2048, 0, extremes(2048)));
    cs.push_back(softmaxCase("extremes 9x2047 +1 elem", 9, 2047, 1, extremes(2047)));
    cs.push_back(softmaxCase("empty 0x16384", 0, 16384));
    cs.push_back(softmaxCase("empty 16x0", 16, 0));

    // rmsnorm
    cs.push_back(task(rmsCase("task L1-36 16x64x256x256", 16, 64, 256, 256)));
    cs.push_back(rmsCase("odd 3x5x7x9", 3, 5, 7, 9));
    cs.push_back(rmsCase("2x64x16x16 +1 elem", 2, 64, 16, 16, 1));
    cs.push_back(rmsCase("2x100x4x8 (C=100)", 2, 100, 4, 8));
    cs.push_back(rmsCase("2x200x8x8 (C=200, re-read path)", 2, 200, 8, 8));
    cs.push_back(rmsCase("4x1x33x17 (C=1)", 4, 1, 33, 17));
    cs.push_back(rmsCase("2x64x16x16 values ~1e15", 2, 64, 16, 16, 0, 1e15));
    cs.push_back(rmsCase("2x64x16x16 values ~1e-15", 2, 64, 16, 16, 0, 1e-15));
    cs.push_back(rmsCase("empty 0x64x256x256", 0, 64, 256, 256));
    cs.push_back(rmsCase("empty 16x0x256x256", 16, 0, 256, 256));

    // convtranspose3d_mean_add_softmax_tanh_scale
    cs.push_back(task(convCase("task L2-13 broken", 16, 8, 16, 32, 32, 16, 3, 2, 1, 0, 1)));
    cs.push_back(task(convCase("task L2-13r repaired", 16, 8, 16, 32, 32, 16, 3, 2, 1, 0, 2)));
    cs.push_back(convCase("odd broken 2x3x5x7x6 Cout5 op1", 2, 3, 5, 7, 6, 5, 3, 2, 1, 1, 1));
    cs.push_back(convCase("odd repaired 2x3x5x7x6 Cout5 op1", 2, 3, 5, 7, 6, 5, 3, 2, 1, 1, 2));
    cs.push_back(convCase("repaired s1 K2 Cout20", 1, 4, 4, 5, 3, 20, 2, 1, 0, 0, 2));
    cs.push_back(convCase("broken s3 K4 p2 op2", 1, 2, 3, 4, 5, 3, 4, 3, 2, 2, 1));
    cs.push_back(convCase("odd broken +1 elem", 2, 3, 5, 7, 6, 5, 3, 2, 1, 1, 1, 1, 1));
    cs.push_back(convCase("odd repaired +1 elem", 2, 3, 5, 7, 6, 5, 3, 2, 1, 1, 2, 1, 1));
    cs.push_back(convCase("mean dim 1, softmax over depth", 2, 3, 5, 7, 6, 5, 3, 2, 1, 1, 1, 2));
    cs.push_back(convCase("empty N=0", 0, 8, 16, 32, 32, 16, 3, 2, 1, 0, 1));
    return cs;
}

// ---------------------------------------------------------------------------------------------
// Device side

__global__ void spinKernel(long long cycles) {
    const long long t0 = clock64();
    while (clock64() - t0 < cycles) {
    }
}

struct DevBuf {
    float* base = nullptr;
    long long elems = 0; // allocated
};
DevBuf devAlloc(long long elems) {
    DevBuf b;
    b.elems = std::max<long long>(elems, 1);
    CHECK_CUDA(cudaMalloc(&b.base, static_cast<std::size_t>(b.elems) * sizeof(float)));
    return b;
}

double median(std::vector<float> v) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}
double quantile(std::vector<float> v, double q) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    return v[static_cast<std::size_t>(q * static_cast<double>(v.size() - 1))];
}

struct Compare {
    long long bad = 0, firstBad = -1;
    double maxAbs = 0, maxRel = 0;
    float firstOut = 0;
    double firstRef = 0;
};

Compare compare(const float* out, const std::vector<double>& ref, double atol, double rtol) {
    const long long n = static_cast<long long>(ref.size());
    const long long threads = std::clamp<long long>(std::thread::hardware_concurrency(), 1, 64);
    std::vector<Compare> parts(static_cast<std::size_t>(threads));
    std::atomic<int> slot{0};
    parallelFor(n, [&](long long b, long long e) {
        Compare& c = parts[static_cast<std::size_t>(slot++)];
        for (long long i = b; i < e; ++i) {
            const double o = out[i], r = ref[i];
            bool ok;
            if (std::isnan(r))
                ok = std::isnan(o);
            else if (std::isinf(r))
                ok = o == r;
            else {
                const double d = std::fabs(o - r);
                ok = d <= atol + rtol * std::fabs(r); // NaN o fails here
                if (std::isfinite(d)) {
                    c.maxAbs = std::max(c.maxAbs, d);
                    if (r != 0) c.maxRel = std::max(c.maxRel, d / std::fabs(r));
                }
            }
            if (!ok) {
                if (c.bad++ == 0) c.firstBad = i, c.firstOut = out[i], c.firstRef = r;
            }
        }
    });
    Compare all;
    for (const Compare& c : parts) {
        if (c.bad && (all.firstBad < 0 || c.firstBad < all.firstBad))
            all.firstBad = c.firstBad, all.firstOut = c.firstOut, all.firstRef = c.firstRef;
        all.bad += c.bad;
        all.maxAbs = std::max(all.maxAbs, c.maxAbs);
        all.maxRel = std::max(all.maxRel, c.maxRel);
    }
    return all;
}

struct TimeResult {
    double medianMs = 0, p25 = 0, p75 = 0;
    int runs = 0;
};

TimeResult timeLaunch(const std::function<cudaError_t(cudaStream_t)>& launch, cudaStream_t stream,
                      const Options& opt, long long spinCycles, bool& ok) {
    cudaEvent_t a, b;
    CHECK_CUDA(cudaEventCreate(&a));
    CHECK_CUDA(cudaEventCreate(&b));
    auto once = [&]() -> float {
        spinKernel<<<1, 1, 0, stream>>>(spinCycles);
        CHECK_CUDA(cudaEventRecord(a, stream));
        if (launch(stream) != cudaSuccess) ok = false;
        CHECK_CUDA(cudaEventRecord(b, stream));
        CHECK_CUDA(cudaEventSynchronize(b));
        float ms = 0;
        CHECK_CUDA(cudaEventElapsedTime(&ms, a, b));
        return ms;
    };
    TimeResult r;
    const float first = once();
    const double per = std::max<double>(first, 1e-3);
    // slow variants get fewer runs so one call of this program stays within minutes
    const int warm =
        std::min(opt.warmup, static_cast<int>(std::max(1.0, opt.budgetMs * 0.2 / per)));
    const int reps = std::min(opt.reps, static_cast<int>(std::max(3.0, opt.budgetMs / per)));
    for (int i = 0; i < warm && ok; ++i)
        once();
    std::vector<float> t;
    t.reserve(static_cast<std::size_t>(reps));
    for (int i = 0; i < reps && ok; ++i)
        t.push_back(once());
    CHECK_CUDA(cudaEventDestroy(a));
    CHECK_CUDA(cudaEventDestroy(b));
    r.medianMs = median(t);
    r.p25 = quantile(t, 0.25);
    r.p75 = quantile(t, 0.75);
    r.runs = static_cast<int>(t.size());
    return r;
}

double measureCopyGBs(cudaStream_t stream) {
    const std::size_t bytes = 1ULL << 30;
    void *src = nullptr, *dst = nullptr;
    CHECK_CUDA(cudaMalloc(&src, bytes));
    CHECK_CUDA(cudaMalloc(&dst, bytes));
    CHECK_CUDA(cudaMemsetAsync(src, 0x3c, bytes, stream));
    cudaEvent_t a, b;
    CHECK_CUDA(cudaEventCreate(&a));
    CHECK_CUDA(cudaEventCreate(&b));
    std::vector<float> t;
    for (int i = 0; i < 25; ++i) {
        CHECK_CUDA(cudaEventRecord(a, stream));
        CHECK_CUDA(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, stream));
        CHECK_CUDA(cudaEventRecord(b, stream));
        CHECK_CUDA(cudaEventSynchronize(b));
        float ms = 0;
        CHECK_CUDA(cudaEventElapsedTime(&ms, a, b));
        if (i >= 5) t.push_back(ms);
    }
    CHECK_CUDA(cudaEventDestroy(a));
    CHECK_CUDA(cudaEventDestroy(b));
    CHECK_CUDA(cudaFree(src));
    CHECK_CUDA(cudaFree(dst));
    return 2.0 * static_cast<double>(bytes) / (median(t) * 1e-3) / 1e9; // read + write
}

struct Row {
    std::string op, variant, label;
    double ms, gbs, pctCopy;
};

} // namespace

int main(int argc, char** argv) {
    Options opt;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        auto val = [&](const char* key) -> const char* {
            const std::size_t n = std::strlen(key);
            return a.compare(0, n, key) == 0 ? a.c_str() + n : nullptr;
        };
        if (a == "--small")
            opt.small = true;
        else if (a == "--sweep")
            opt.sweep = true;
        else if (a == "--no-time")
            opt.time = false;
        else if (const char* v = val("--only="))
            opt.only = v;
        else if (const char* v = val("--reps="))
            opt.reps = std::max(1, std::atoi(v));
        else if (const char* v = val("--warmup="))
            opt.warmup = std::max(0, std::atoi(v));
        else if (const char* v = val("--budget-ms="))
            opt.budgetMs = std::atof(v);
        else if (const char* v = val("--seed="))
            opt.seed = std::strtoull(v, nullptr, 10);
        else {
            std::fprintf(stderr,
                         "usage: %s [--small] [--no-time] [--sweep] [--only=SUBSTR] [--reps=N] "
                         "[--warmup=N] [--budget-ms=MS] [--seed=N]\n",
                         argv[0]);
            return 2;
        }
    }

    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
        std::printf("SKIP: no CUDA device\n");
        return 0;
    }
    CHECK_CUDA(cudaSetDevice(0));
    cudaDeviceProp prop{};
    CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
    int driver = 0, runtime = 0, clockKHz = 0;
    CHECK_CUDA(cudaDriverGetVersion(&driver));
    CHECK_CUDA(cudaRuntimeGetVersion(&runtime));
    CHECK_CUDA(cudaDeviceGetAttribute(&clockKHz, cudaDevAttrClockRate, 0));
    std::printf("device: %s (sm_%d%d, %d SMs, %.1f GiB), driver %d, runtime %d\n", prop.name,
                prop.major, prop.minor, prop.multiProcessorCount,
                static_cast<double>(prop.totalGlobalMem) / (1 << 30), driver, runtime);
    const long long spinCycles = static_cast<long long>(clockKHz) * 50 / 1000; // ~50 us

    cudaStream_t stream;
    CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    const double copyGBs = measureCopyGBs(stream);
    std::printf("device-to-device copy: %.0f GB/s (read + write, 1 GiB, median of 20)\n", copyGBs);
    std::printf("tolerance: |out - ref| <= %g + %g * |ref|\n\n", opt.atol, opt.rtol);

    const std::vector<Case> cases = buildCases();
    int failures = 0, checks = 0;
    std::vector<Row> rows;
    std::vector<std::string> failed;
    std::mt19937_64 rng(opt.seed);

    for (const Case& cs : cases) {
        // --small: quick correctness sweep (e.g. under compute-sanitizer), no task-sized tensors
        if (opt.small && (cs.outElems > (1LL << 22) || cs.naiveWork > 1e9)) continue;
        auto variants = ks::kernels::variantsFor(cs.op);
        if (opt.sweep)
            for (const Variant& v : kSweep)
                if (cs.op == v.op) variants.push_back(&v);
        std::vector<const Variant*> selected;
        for (const Variant* v : variants)
            if (opt.only.empty() || std::string(v->name).find(opt.only) != std::string::npos ||
                cs.label.find(opt.only) != std::string::npos)
                selected.push_back(v);
        if (selected.empty()) continue;
        std::printf("== %s / %s\n", cs.op.c_str(), cs.label.c_str());

        // inputs (fresh per case, from the one seeded stream), reference
        std::vector<std::vector<float>> hin(cs.inElems.size());
        for (std::size_t i = 0; i < hin.size(); ++i)
            hin[i].resize(static_cast<std::size_t>(cs.inElems[i]));
        cs.init(hin, rng);
        std::vector<double> ref(static_cast<std::size_t>(cs.outElems));
        cs.ref(hin, ref);

        std::vector<DevBuf> din;
        Args args = cs.args;
        for (std::size_t i = 0; i < hin.size(); ++i) {
            din.push_back(devAlloc(cs.inElems[i] + cs.inOffset[i]));
            float* p = din.back().base + cs.inOffset[i];
            if (cs.inElems[i] > 0)
                CHECK_CUDA(cudaMemcpy(p, hin[i].data(), hin[i].size() * sizeof(float),
                                      cudaMemcpyHostToDevice));
            args.in[i] = p;
        }
        const long long outAlloc = cs.outOffset + cs.outElems + kGuard;
        DevBuf dout = devAlloc(outAlloc);
        args.out = dout.base + cs.outOffset;
        std::size_t wsBytes = 0;
        for (const Variant* v : selected)
            if (v->workspaceBytes) wsBytes = std::max(wsBytes, v->workspaceBytes(args));
        void* ws = nullptr;
        if (wsBytes) CHECK_CUDA(cudaMalloc(&ws, wsBytes));
        args.workspace = ws;
        args.workspaceBytes = wsBytes;

        std::vector<float> hout(static_cast<std::size_t>(outAlloc));
        for (const Variant* v : selected) {
            ++checks;
            std::printf("  %-55s ", v->name);
            if (const char* why = v->supports(args)) {
                if (cs.taskShape) {
                    std::printf("FAIL refused the task shape: %s\n", why);
                    ++failures;
                    failed.push_back(std::string(v->name) + " / " + cs.label);
                } else {
                    std::printf("refused (ok): %s\n", why);
                }
                continue;
            }
            if (v->version == 1 && cs.naiveWorkLimit > 0 && cs.naiveWork > cs.naiveWorkLimit) {
                std::printf("skipped: naive O(N^2 M) work %.2g too slow for a check\n",
                            cs.naiveWork);
                continue;
            }
            CHECK_CUDA(
                cudaMemsetAsync(dout.base, 0xFF, static_cast<std::size_t>(outAlloc) * 4, stream));
            const cudaError_t le = v->launch(args, stream);
            const cudaError_t se = cudaStreamSynchronize(stream);
            if (le != cudaSuccess || se != cudaSuccess) {
                std::printf("FAIL launch: %s / %s [%s]\n", cudaGetErrorString(le),
                            cudaGetErrorString(se), ks::kernels::lastErrorContext());
                ++failures;
                failed.push_back(std::string(v->name) + " / " + cs.label);
                if (se != cudaSuccess) {
                    std::printf("sticky CUDA error, stopping\n");
                    return 1;
                }
                continue;
            }
            CHECK_CUDA(cudaMemcpy(hout.data(), dout.base, hout.size() * sizeof(float),
                                  cudaMemcpyDeviceToHost));
            // guard bands
            long long guardHits = 0;
            for (long long i = 0; i < outAlloc; ++i) {
                if (i >= cs.outOffset && i < cs.outOffset + cs.outElems) continue;
                std::uint32_t bits;
                std::memcpy(&bits, &hout[i], 4);
                guardHits += bits != kPoison;
            }
            const Compare cmp = compare(hout.data() + cs.outOffset, ref, opt.atol, opt.rtol);
            // inputs untouched
            bool inputsSame = true;
            for (std::size_t i = 0; i < hin.size(); ++i) {
                if (cs.inElems[i] == 0) continue;
                std::vector<float> back(hin[i].size());
                CHECK_CUDA(cudaMemcpy(back.data(), args.in[i], back.size() * sizeof(float),
                                      cudaMemcpyDeviceToHost));
                inputsSame &= std::memcmp(back.data(), hin[i].data(), back.size() * 4) == 0;
            }
            const bool valuesOk = cmp.bad == 0;
            const bool expectWrong = v->shortcut && !cs.shortcutHolds;
            bool pass;
            if (guardHits || !inputsSame) {
                pass = false;
                std::printf("FAIL %s%s\n", guardHits ? "wrote outside the output " : "",
                            inputsSame ? "" : "modified an input");
            } else if (expectWrong) {
                pass = !valuesOk || cs.outElems == 0;
                if (cs.outElems == 0)
                    std::printf("ok (empty)\n");
                else if (pass)
                    std::printf(
                        "WRONG as expected (shortcut on a task without the flaw): %lld/%lld "
                        "bad, e.g. [%lld] %.6g vs %.6g\n",
                        cmp.bad, cs.outElems, cmp.firstBad, cmp.firstOut, cmp.firstRef);
                else
                    std::printf("FAIL shortcut matched where its assumption does not hold\n");
            } else if (!valuesOk) {
                pass = false;
                std::printf("FAIL %lld/%lld mismatches, first [%lld] got %.9g want %.9g; max abs "
                            "%.3g, max rel %.3g\n",
                            cmp.bad, cs.outElems, cmp.firstBad, cmp.firstOut, cmp.firstRef,
                            cmp.maxAbs, cmp.maxRel);
            } else {
                pass = true;
                std::printf("ok  max abs %.2e  max rel %.2e\n", cmp.maxAbs, cmp.maxRel);
            }
            if (!pass) {
                ++failures;
                failed.push_back(std::string(v->name) + " / " + cs.label);
                continue;
            }
            if (opt.time && cs.timed && cs.outElems > 0) {
                bool ok = true;
                const TimeResult t = timeLaunch([&](cudaStream_t s) { return v->launch(args, s); },
                                                stream, opt, spinCycles, ok);
                if (!ok) {
                    std::printf("  %-55s FAIL launch error while timing: %s\n", "",
                                ks::kernels::lastErrorContext());
                    ++failures;
                    failed.push_back(std::string(v->name) + " / " + cs.label + " (timing)");
                    continue;
                }
                const double bytes = ks::kernels::minBytes(cs.op, args);
                const double gbs = bytes / (t.medianMs * 1e-3) / 1e9;
                std::printf("  %-55s time %.4f ms (IQR %.4f-%.4f, %d runs)  %.0f GB/s  %.1f%% of "
                            "copy\n",
                            "", t.medianMs, t.p25, t.p75, t.runs, gbs, 100.0 * gbs / copyGBs);
                rows.push_back({cs.op, v->name, cs.label, t.medianMs, gbs, 100.0 * gbs / copyGBs});
            }
        }
        for (DevBuf& b : din)
            CHECK_CUDA(cudaFree(b.base));
        CHECK_CUDA(cudaFree(dout.base));
        if (ws) CHECK_CUDA(cudaFree(ws));
    }

    std::printf("\n== timing summary (device time, median; copy ceiling %.0f GB/s)\n", copyGBs);
    std::printf("%-50s %-28s %10s %9s %7s\n", "variant", "case", "ms", "GB/s", "%copy");
    for (const Row& r : rows)
        std::printf("%-50s %-28.28s %10.4f %9.0f %6.1f%%\n", r.variant.c_str(), r.label.c_str(),
                    r.ms, r.gbs, r.pctCopy);
    std::printf("\n%d checks, %d failed\n", checks, failures);
    for (const std::string& f : failed)
        std::printf("  FAILED: %s\n", f.c_str());
    CHECK_CUDA(cudaStreamDestroy(stream));
    return failures ? 1 : 0;
}
