// SPDX-License-Identifier: MIT
#include "ks/core/splitdraw.h"

#include "ks/core/fastdraw.h"

#include <ATen/CPUGeneratorImpl.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace ks {
namespace {

using Fill = std::function<void(at::Tensor&, at::Generator&)>;
using Clock = std::chrono::steady_clock;

std::atomic<int> g_drawing{0};
std::atomic<int> g_noHelpers{0};

// Up to `want` more drawing threads, as many as keep the process's drawing within `limit`.
int takeSpare(int want, int limit) {
    if (g_noHelpers.load() > 0) return 0;
    int cur = g_drawing.load();
    for (;;) {
        const int take = std::min(want, limit - cur);
        if (take <= 0) return 0;
        if (g_drawing.compare_exchange_weak(cur, cur + take)) return take;
    }
}

void giveBack(int n) { g_drawing -= n; }

bool sameEngine(const at::mt19937& a, const at::mt19937& b) {
    const auto x = a.data(), y = b.data();
    return x.left_ == y.left_ && x.next_ == y.next_ && x.seed_ == y.seed_ && x.seeded_ == y.seeded_ &&
           x.state_ == y.state_;
}

at::mt19937 engineOf(at::Generator& g) {
    return g.get<at::CPUGeneratorImpl>()->engine();
}

bool sameBytes(const at::Tensor& a, const at::Tensor& b) {
    return a.numel() == b.numel() && a.scalar_type() == b.scalar_type() &&
           std::memcmp(a.data_ptr(), b.data_ptr(), static_cast<size_t>(a.numel()) * a.element_size()) == 0;
}

bool sameGeneratorState(at::Generator& a, at::Generator& b) {
    return sameBytes(a.get_state(), b.get_state());
}

constexpr int64_t kAlign = 16;

// The generator outputs one element takes (1 or 2) if the split rule holds for `fill` on tensors
// like `like` whose size leaves `tail` over a multiple of 16; 0 if it does not. The probe draws a
// 32 + (16 + tail)-element tensor whole, and again as its two parts on a copy of the generator
// advanced past the first: the values, bit for bit, and the generators' final states must agree.
int outputsPerElement(const at::Tensor& like, int64_t tail, const Fill& fill) {
    const int64_t first = 2 * kAlign, last = kAlign + tail;
    const auto opts = at::TensorOptions().dtype(like.scalar_type());
    const at::mt19937 e0(0x6b73u); // any state will do; this one is past no twist yet
    at::Tensor whole = at::empty({first + last}, opts), a = at::empty({first}, opts), b = at::empty({last}, opts);
    at::Generator gw = cpuGeneratorAt(e0), ga = cpuGeneratorAt(e0);
    fill(whole, gw);
    fill(a, ga);
    const at::mt19937 afterA = engineOf(ga);
    at::mt19937 walk = e0;
    int64_t used = 0;
    while (!sameEngine(walk, afterA)) {
        if (++used > 4 * first) return 0;
        walk();
    }
    if (used != first && used != 2 * first) return 0;
    at::Generator gb = cpuGeneratorAt(afterA);
    fill(b, gb);
    if (!sameBytes(whole.narrow(0, 0, first).contiguous(), a) || !sameBytes(whole.narrow(0, first, last).contiguous(), b))
        return 0;
    // The whole draw's generator against the parts' last one, and against the same state set
    // the way the split sets the caller's generator.
    at::Generator set = cpuGeneratorAt(e0);
    set.get<at::CPUGeneratorImpl>()->set_engine(engineOf(gb));
    if (!sameGeneratorState(gw, gb) || !sameGeneratorState(gw, set)) return 0;
    return static_cast<int>(used / first);
}

double splitFill(at::Tensor& x, at::Generator& gen, const DrawSplit& split, const Fill& fill) {
    const int64_t n = x.numel();
    const int64_t minPart = std::max<int64_t>(split.minPartElements, kAlign);
    if (split.coreLimit <= 1 || !x.device().is_cpu() || !x.is_contiguous() || n < 2 * minPart) {
        fill(x, gen);
        return 0;
    }
    const int helpers = takeSpare(static_cast<int>(std::min<int64_t>(split.coreLimit, n / minPart)) - 1, split.coreLimit);
    if (helpers == 0) {
        fill(x, gen);
        return 0;
    }
    struct Return {
        int n;
        ~Return() { giveBack(n); }
    } ret{helpers};
    const int per = outputsPerElement(x, n % kAlign, fill);
    if (per == 0) {
        fill(x, gen);
        return 0;
    }
    const int parts = helpers + 1;
    const int64_t chunk = n / parts / kAlign * kAlign;
    at::Tensor flat = x.view({n});
    std::lock_guard<std::mutex> lock(gen.mutex());
    at::mt19937 cur = engineOf(gen);
    std::vector<std::thread> threads;
    std::vector<double> secs(parts - 1, 0.0);
    std::vector<std::exception_ptr> errs(parts - 1);
    auto joinAll = [&] {
        for (auto& t : threads)
            if (t.joinable()) t.join();
    };
    try {
        for (int k = 0; k + 1 < parts; ++k) {
            threads.emplace_back([&, k, start = cur] {
                const auto t0 = Clock::now();
                try {
                    at::Generator g = cpuGeneratorAt(start);
                    at::Tensor part = flat.narrow(0, k * chunk, chunk);
                    fill(part, g);
                } catch (...) {
                    errs[k] = std::current_exception();
                }
                secs[k] = std::chrono::duration<double>(Clock::now() - t0).count();
            });
            advanceEngine(cur, static_cast<uint64_t>(per) * static_cast<uint64_t>(chunk));
        }
        // The last part here: it ends where the whole draw would leave the generator.
        at::Generator g = cpuGeneratorAt(cur);
        at::Tensor part = flat.narrow(0, (parts - 1) * chunk, n - (parts - 1) * chunk);
        fill(part, g);
        joinAll();
        for (auto& e : errs)
            if (e) std::rethrow_exception(e);
        gen.get<at::CPUGeneratorImpl>()->set_engine(engineOf(g));
    } catch (...) {
        joinAll();
        throw;
    }
    double total = 0;
    for (double s : secs) total += s;
    return total;
}

} // namespace

DrawingNow::DrawingNow() { ++g_drawing; }
DrawingNow::~DrawingNow() { --g_drawing; }
int drawingThreadsNow() { return g_drawing.load(); }
NoHelpersNow::NoHelpersNow() { ++g_noHelpers; }
NoHelpersNow::~NoHelpersNow() { --g_noHelpers; }

int drawCoreLimit(int share) {
    const int hw = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    return std::max(1, (hw - 2) / std::max(1, share));
}

void advanceEngine(at::mt19937& e, uint64_t n) {
    auto d = e.data();
    while (n > 0) {
        const auto room = static_cast<uint64_t>(d.left_ - 1); // outputs left before a regeneration
        if (n <= room) {
            d.left_ -= static_cast<int>(n);
            d.next_ += static_cast<uint32_t>(n);
            break;
        }
        n -= room;
        // The call that regenerates the state returns its first word.
        regenerateState(d.state_);
        d.left_ = at::MERSENNE_STATE_N;
        d.next_ = 1;
        n -= 1;
    }
    e.set_data(d);
}

double splitNormal(at::Tensor& x, double mean, double std, at::Generator& gen, const DrawSplit& split) {
    return splitFill(x, gen, split, [mean, std](at::Tensor& t, at::Generator& g) { drawNormal(t, mean, std, g); });
}

double splitUniform(at::Tensor& x, double from, double to, at::Generator& gen, const DrawSplit& split) {
    return splitFill(x, gen, split, [from, to](at::Tensor& t, at::Generator& g) { drawUniform(t, from, to, g); });
}

double splitRandom(at::Tensor& x, int64_t from, int64_t to, at::Generator& gen, const DrawSplit& split) {
    return splitFill(x, gen, split, [from, to](at::Tensor& t, at::Generator& g) { drawRandom(t, from, to, g); });
}

} // namespace ks
