// SPDX-License-Identifier: MIT
#include "ks/core/engine.h"
#include "ks/core/inefficiency.h"
#include "ks/core/operands.h"
#include "ks/core/process.h"
#include "ks/core/procinfo.h"
#include "ks/core/redundancy.h"
#include "ks/core/splitdraw.h"
#include "ks/core/streamstats.h"
#include "ks/core/suite.h"
#include "ks/core/torchtask.h"

#include <ATen/Context.h>
#include <ATen/Parallel.h>
#include <c10/core/InferenceMode.h>
#include <c10/util/Exception.h>
#include <torch/cuda.h>
#include <torch/version.h>
#ifdef KS_TORCH_CUDA
#include <ATen/cuda/CUDAContext.h>
#include <ATen/core/CachingHostAllocator.h>
#include <c10/core/AllocatorConfig.h>
#include <c10/cuda/CUDACachingAllocator.h>
#include <cuda_runtime_api.h>
#endif


#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <deque>
#include <dlfcn.h>
#include <fstream>
#include <iostream>
#include <mutex>
#include <sstream>
#include <thread>
#include <unistd.h>

#ifndef KS_VERSION
#define KS_VERSION "0.0.0"
#endif

namespace ks {
namespace {

using Clock = std::chrono::steady_clock;


double secondsSince(Clock::time_point t0) {
    return std::chrono::duration<double>(Clock::now() - t0).count();
}

std::string cpuName() {
    std::string text;
    try {
        text = readFile("/proc/cpuinfo");
    } catch (const Error&) {
        return "CPU";
    }
    const auto pos = text.find("model name");
    if (pos == std::string::npos) return "CPU";
    const auto colon = text.find(':', pos);
    const auto eol = text.find('\n', colon);
    std::string name = text.substr(colon + 2, eol - colon - 2);
    return name + " (" + std::to_string(at::get_num_threads()) + " threads)";
}

// Bytes the CUDA caching allocator has handed out on device 0 (the worker's device), or with
// `reserved` holds there (handed out or cached), now or at most since the last resetPeakStats; 0
// without CUDA or when the allocator cannot say.
int64_t cachingAllocatorBytes(bool peak, bool reserved = false) {
#ifdef KS_TORCH_CUDA
    try {
        // getDeviceStats returns its stats by value: keep them, not a reference into the temporary
        // (which read freed stack and reported a peak of 94 TB on lease 12).
        const auto stats = c10::cuda::CUDACachingAllocator::getDeviceStats(0);
        const auto& a = (reserved ? stats.reserved_bytes : stats.allocated_bytes)[static_cast<size_t>(
            c10::CachingAllocator::StatType::AGGREGATE)];
        return peak ? a.peak : a.current;
    } catch (const std::exception&) {
    }
#else
    (void)peak;
    (void)reserved;
#endif
    return 0;
}

// RunInfo::hostHugePages: LibTorch's setting (the filter's driver puts it in its workers'
// environment, ks::hugePageEnv) and the kernel's mode, the bracketed word of its THP setting.
std::string hostHugePages() {
    const char* v = std::getenv("THP_MEM_ALLOC_ENABLE");
    const std::string mode = transparentHugePageMode();
    return std::string("THP_MEM_ALLOC_ENABLE=") + (v ? v : "(unset)") + ", kernel: " +
           (mode.empty() ? "no transparent huge pages" : mode);
}

std::string joinShape(const std::vector<int64_t>& s) {
    std::string out = "[";
    for (size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
    return out + "]";
}

#ifdef KS_TORCH_CUDA
// Page-locked host memory (CUDA runs draw their operands into it) from malloc'd pages faulted in
// on 8 threads and then registered (cudaHostRegister), not from cudaHostAlloc: on the H200,
// cudaHostAlloc of a large task's operands, drawn ahead, held up the running task's uploads for up
// to 1 s, and whole suites ran 22-27 % faster without it, with the same results
// (bench/engine/RESULTS.md). A user's own pinned_use_cuda_host_register in PYTORCH_CUDA_ALLOC_CONF
// wins; KS_PINNED_HOST_REGISTER=0 keeps cudaHostAlloc (for comparisons).
void preferRegisteredPinnedMemory() {
    static std::once_flag once;
    std::call_once(once, [] {
        if (const char* off = std::getenv("KS_PINNED_HOST_REGISTER"); off && std::string(off) == "0") return;
        const char* user = std::getenv("PYTORCH_CUDA_ALLOC_CONF");
        if (!user) user = std::getenv("PYTORCH_ALLOC_CONF");
        std::string conf = user ? user : "";
        if (conf.find("pinned_use_cuda_host_register") != std::string::npos) return;
        // The user's settings go along: a parse may start from the defaults.
        conf += (conf.empty() ? "" : ",") + std::string("pinned_use_cuda_host_register:True,pinned_num_register_threads:8");
        try {
            c10::CachingAllocator::setAllocatorSettings(conf);
        } catch (const std::exception& e) {
            std::cerr << "warning: page-locked memory stays with cudaHostAlloc (" << e.what() << ")\n";
        }
    });
}
#endif

// The process's peak resident memory, reset at the start of each task where the kernel allows
// (/proc/self/clear_refs "5"), so it is the task's own peak there; else the worker's so far.
bool resetPeakRss() {
    std::ofstream f("/proc/self/clear_refs");
    f << "5";
    f.flush();
    return static_cast<bool>(f);
}

} // namespace

std::string isoTimeNow() {
    const std::time_t now = std::time(nullptr);
    std::tm tm{};
    gmtime_r(&now, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return buf;
}

// The first use in a process of cuBLAS, cuDNN and of each kernel loads its library or module
// (CUDA's lazy loading): 0.1-1.6 s on the H200 (bench/engine/RESULTS.md, "Worker start-up,
// measured once"), which the first task paid. warmUpDevice does it on a thread of its own: it
// maps cuDNN's sub-libraries (which needs no CUDA context, so it goes on while the engine's
// thread makes the context), then runs the statistics of filters 1-3, small matrix products and
// convolutions over tensors made without any generator (no draw of any seed changes).
// KS_TRACE_START: each step's time on stderr.
static bool tracingStart() {
    static const bool on = std::getenv("KS_TRACE_START") != nullptr;
    return on;
}

static void traceStep(const char* what, Clock::time_point& t) {
    if (tracingStart()) std::fprintf(stderr, "[trace] warm-up: %s %.3f s\n", what, secondsSince(t));
    t = Clock::now();
}

// cuDNN 9 loads its engines, heuristics and kernels from sub-libraries beside libcudnn.so.9 (which
// LibTorch links) at its first use, under the dynamic loader's lock; they are mapped here first.
static void preloadCudnn() {
    void* cudnn = ::dlopen("libcudnn.so.9", RTLD_LAZY | RTLD_NOLOAD);
    if (!cudnn) return;
    char dir[PATH_MAX + 1] = {0};
    const bool found = ::dlinfo(cudnn, RTLD_DI_ORIGIN, dir) == 0;
    ::dlclose(cudnn); // the NOLOAD reference only: LibTorch keeps it loaded
    if (!found) return;
    for (const char* name : {"libcudnn_graph.so.9", "libcudnn_engines_precompiled.so.9",
                             "libcudnn_engines_runtime_compiled.so.9", "libcudnn_heuristic.so.9", "libcudnn_ops.so.9",
                             "libcudnn_cnn.so.9"}) {
        const std::string path = std::string(dir) + "/" + name;
        if (::access(path.c_str(), R_OK) == 0) (void)::dlopen(path.c_str(), RTLD_LAZY | RTLD_LOCAL); // kept
    }
}

static void warmUpDevice(const at::Device& device) {
    auto t = Clock::now();
    preloadCudnn();
    traceStep("cuDNN's libraries mapped in", t);
    c10::InferenceMode inference;
    const auto o = at::TensorOptions().device(device).dtype(at::kFloat);
    const at::Tensor a = at::arange(64 * 64, o).reshape({64, 64}).div_(4096.0);
    traceStep("first tensor (the context)", t);
    // The statistics first: every task needs them, and they are what the first task waited for
    // last (RESULTS.md, 2026-12-03).
    {
        OutputAccumulator acc;
        SeedMoments moments;
        for (int64_t seed = 0; seed < 2; ++seed) {
            const at::Tensor y = a.mul(static_cast<double>(seed + 1));
            acc.add(y, seed);
            moments.add(y);
        }
        TaskResult unused;
        acc.finish(unused);
        (void)moments.metrics();
        torch::cuda::synchronize();
    }
    traceStep("the statistics' kernels", t);
    (void)at::mm(a, a);              // cuBLAS
    (void)at::linear(a, a, a[0]);    // cuBLASLt (bias epilogue)
    (void)at::bmm(a.unsqueeze(0), a.unsqueeze(0));
    torch::cuda::synchronize();
    traceStep("matrix products", t);
    const at::Tensor x = at::arange(2 * 3 * 8 * 8 * 8, o).div_(3072.0);
    (void)at::conv2d(x.reshape({2, 3, 32, 16}), at::ones({4, 3, 3, 3}, o)); // cuDNN
    torch::cuda::synchronize();
    traceStep("conv2d", t);
    (void)at::conv3d(x.reshape({2, 3, 8, 8, 8}), at::ones({4, 3, 3, 3, 3}, o));
    (void)at::conv_transpose2d(x.reshape({2, 3, 32, 16}), at::ones({3, 4, 3, 3}, o));
    torch::cuda::synchronize();
    traceStep("conv3d, conv_transpose2d", t);
}

DeviceInfo probeDevice(const std::string& requested) {
    DeviceInfo info;
    info.libtorch = TORCH_VERSION;
    bool cuda = false;
    try {
        cuda = torch::cuda::is_available();
    } catch (const std::exception&) {
        cuda = false;
    }
    info.cudaAvailable = cuda;
#ifdef KS_TORCH_CUDA
    int rt = 0;
    if (cudaRuntimeGetVersion(&rt) == cudaSuccess && rt > 0)
        info.cuda = std::to_string(rt / 1000) + "." + std::to_string((rt % 1000) / 10);
#endif
    if (requested != "auto" && requested != "cuda" && requested != "cpu")
        throw Error("unknown device '" + requested + "' (expected auto, cuda or cpu)");
    if (requested == "cuda" && !cuda)
        throw Error("--device cuda was asked for, but no CUDA device is usable here "
                    "(LibTorch sees none); use --device cpu or auto");
    info.device = (requested == "cpu" || !cuda) ? "cpu" : "cuda";
    if (info.device == "cuda") {
#ifdef KS_TORCH_CUDA
        const auto* prop = at::cuda::getCurrentDeviceProperties();
        info.name = prop->name;
        int drv = 0;
        if (cudaDriverGetVersion(&drv) == cudaSuccess)
            info.driver = std::to_string(drv / 1000) + "." + std::to_string((drv % 1000) / 10);
#else
        info.name = "CUDA device";
#endif
    } else {
        info.name = cpuName();
    }
    return info;
}

std::string cudaContextFault() {
#ifdef KS_TORCH_CUDA
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
        (void)cudaGetLastError();
        return {};
    }
    (void)cudaGetLastError(); // a one-off error of an earlier call is not the context's state
    if (cudaDeviceSynchronize() == cudaSuccess) return {};
    // An asynchronous error surfaces once at a sync; a sticky one answers every call after it.
    (void)cudaGetLastError();
    const cudaError_t again = cudaDeviceSynchronize();
    if (again == cudaSuccess) return {};
    return std::string(cudaGetErrorName(again)) + ": " + cudaGetErrorString(again);
#else
    return {};
#endif
}

struct Engine::Impl {
    EngineOptions opt;
    DeviceInfo dev;
    Preset preset = Preset::Small;
    at::Device device{at::kCPU};
    int64_t operandPeakSeen = 0; // the most operand bytes a task of this engine held (trimPinnedCache)

    // EngineOptions::warmUp: warmUpDevice on its own thread, from the constructor on. Joined
    // before anything is timed (filter 5, the ceilings), so no timed region shares the GPU with
    // it, and at the end. A failure there is ignored: the task that needs the library reports it.
    std::thread warmThread;
    void startWarmUp() {
        const char* env = std::getenv("KS_WARMUP");
        if (!opt.warmUp || opt.gate || opt.gpuShare > 1 || !device.is_cuda() || (env && std::string(env) == "0"))
            return;
        warmThread = std::thread([dev = device] {
            const auto t0 = Clock::now();
            std::string error;
            try {
                warmUpDevice(dev);
            } catch (const std::exception& e) {
                error = e.what();
            }
            if (tracingStart())
                std::fprintf(stderr, "[trace] device warm-up %s in %.3f s\n", error.empty() ? "done" : "failed",
                             secondsSince(t0));
        });
    }
    void joinWarmUp() {
        if (warmThread.joinable()) warmThread.join();
    }
    ~Impl() { joinWarmUp(); }

    void checkCancel() const {
        if (opt.cancel && opt.cancel->load()) throw Cancelled();
    }
    void sync() const {
        if (device.is_cuda()) torch::cuda::synchronize();
    }
    void phase(const TaskSpec& spec, const char* name) const {
        lastPhase = name;
        if (opt.onPhase) opt.onPhase(spec, name);
    }
    // The task runTask runs, and the phase it last announced (for gateWait).
    mutable const TaskSpec* current = nullptr;
    mutable std::string lastPhase;
    // Takes a gate lock through `take(beforeWaiting)`. When it has to wait, the task's phase says
    // so (kPhaseWaitingForGpu, which the filter driver leaves out of the task's timeout: another
    // worker may hold the GPU for as long as its own task may run), and the phase it was in is
    // announced again once the lock is held.
    template <class Take> double gateWait(Take take) const {
        bool waited = false;
        const double s = take([&] {
            waited = true;
            if (current && opt.onPhase) opt.onPhase(*current, kPhaseWaitingForGpu);
        });
        if (waited && current && opt.onPhase) opt.onPhase(*current, lastPhase);
        return s;
    }
    // filter --workers-per-gpu (EngineOptions::gate): the GPU lock, shared for a task's untimed
    // work, exclusive for a timing. The device is synchronised before any hold is given up, so
    // none of this worker's kernels still runs when another's timing starts.
    void gpuShared() const {
        if (!opt.gate) return;
        sync();
        gateWait([&](const auto& tell) { return opt.gate->gpu().lockShared(tell); });
    }
    // Between seeds and phases: a worker waiting to time gets the GPU here.
    void gpuPausePoint() const {
        if (!opt.gate || opt.gate->gpu().held() != FileRwLock::Held::Shared) return;
        sync();
        opt.gate->gpu().unlock();
        gateWait([&](const auto& tell) { return opt.gate->gpu().lockShared(tell); });
    }
    // The seconds waited for the other workers to give up the GPU.
    double gpuExclusive() const {
        if (!opt.gate) return 0;
        sync();
        return gateWait([&](const auto& tell) { return opt.gate->gpu().lockExclusive(tell); });
    }
    void gpuRelease() const noexcept {
        if (!opt.gate) return;
        try {
            sync();
        } catch (...) {
        }
        opt.gate->gpu().unlock();
    }
    // Operand bytes the tasks drawn ahead hold (their page-locked blocks are in use).
    int64_t aheadBytes() const {
        int64_t b = 0;
        for (const auto& s : next)
            if (s) b += s->heldBytes();
        return b;
    }
    // The pinned allocator keeps every page-locked block it ever made (in power-of-two sizes): fast
    // when the next task draws tensors of the same sizes, but a run of tasks of other sizes piles
    // them up (level 3 on the H200: 16 GiB after 50 models of at most 5.4 GiB each). After each
    // task, when what it holds beyond the tasks drawn ahead exceeds max(1 GiB, twice the most
    // operand bytes any task of this worker held), capped at half its host budget, the unused
    // blocks go back to the system. Not twice this task's own: giving blocks back costs about
    // 0.1 s a GiB and the next large task makes them again (on the H200 that rule trimmed after
    // small tasks behind large ones: level 1's nine trims gave back 27 GiB and cost 2.7 s). What
    // is in use is our own count: PyTorch 2.11's active_bytes does not go down for blocks freed
    // without stream events (ours), so it only grows. Returns the bytes freed.
    int64_t trimPinnedCache(int64_t taskOperandPeak) {
#ifdef KS_TORCH_CUDA
        if (!device.is_cuda()) return 0;
        operandPeakSeen = std::max(operandPeakSeen, taskOperandPeak);
        try {
            at::HostAllocator* host = at::getHostAllocator(at::kCUDA);
            const int64_t held = host->get_stats().allocated_bytes.current;
            const int64_t budget = opt.hostBudgetBytes > 0 ? opt.hostBudgetBytes
                                                           : defaultOperandBudget() / std::max(1, opt.gpuShare);
            const int64_t keep = std::max<int64_t>(int64_t{1} << 30, std::min<int64_t>(budget / 2, 2 * operandPeakSeen));
            if (held - aheadBytes() <= keep) return 0;
            host->empty_cache();
            return std::max<int64_t>(0, held - host->get_stats().allocated_bytes.current);
        } catch (const std::exception&) {
            return 0; // informative: never fail a task over it
        }
#else
        (void)taskOperandPeak;
        return 0;
#endif
    }
    // CUDA: the page-locked bytes the pinned allocator holds (in use or cached), and the operand
    // bytes of the tasks drawn ahead (what of it is in use; see trimPinnedCache); 0 and 0 elsewhere.
    void pinnedHolding(int64_t& held, int64_t& inUse) const {
        held = inUse = 0;
#ifdef KS_TORCH_CUDA
        if (!device.is_cuda()) return;
        try {
            held = at::getHostAllocator(at::kCUDA)->get_stats().allocated_bytes.current;
            inUse = aheadBytes();
        } catch (const std::exception&) {
        }
#endif
    }
    void releaseCachedMemory() const {
        // An OOM leaves cached blocks behind; free them so the next task starts clean.
        if (device.is_cuda()) releaseCachedDeviceMemory();
    }

    std::optional<DeviceCeilings> ceilings;
    bool ceilingsTried = false;
    std::string ceilingsError;

    // The tasks runAll (or the caller) will run after the current one, and the operands of the
    // first EngineOptions::drawAheadTasks of them, drawn on host threads while it runs.
    std::vector<const TaskSpec*> upcoming;
    std::deque<std::unique_ptr<OperandSource>> next; // drawing ahead, in task order

    bool drawsAhead() const {
        return opt.drawAhead && opt.cpuGenerator && (device.is_cuda() || opt.drawAheadOnCpu);
    }
    // This task's operands if drawn ahead; the sources of tasks no longer upcoming are dropped.
    std::unique_ptr<OperandSource> takeAhead(const std::string& id) {
        std::unique_ptr<OperandSource> mine;
        std::deque<std::unique_ptr<OperandSource>> keep;
        for (auto& s : next) {
            if (!mine && s->taskId() == id) {
                mine = std::move(s);
                continue;
            }
            const bool still = std::any_of(upcoming.begin(), upcoming.end(),
                                           [&](const TaskSpec* t) { return t && t->id == s->taskId(); });
            if (still) keep.push_back(std::move(s));
        }
        next = std::move(keep);
        return mine;
    }
    // Starts drawing upcoming tasks that are not drawing yet: the first drawAheadTasks (K) of
    // them always, and later ones while fewer than K are still drawing and everything drawn ahead
    // stays within the ahead budget (K shares, half the host budget). A task whose draws are done
    // no longer takes a place: small tasks do not hold back a large one behind them, which
    // otherwise started too late (0.1-0.3 s of a 25-task run's wall waited for it). Called at each
    // task's start and between its seeds.
    void drawUpcoming(const std::string& current) {
        if (!drawsAhead()) return;
        const int k = std::max(1, opt.drawAheadTasks);
        const int64_t share = sourceOptions(true).hostBudgetBytes;
        int active = 0;
        int64_t doneBytes = 0;
        for (const auto& s : next) {
            if (s->drawing()) ++active;
            else doneBytes += s->heldBytes();
        }
        for (size_t i = 0; i < upcoming.size(); ++i) {
            const TaskSpec* t = upcoming[i];
            if (!t || t->id == current) continue;
            const bool drawing = std::any_of(next.begin(), next.end(), [&](const auto& s) { return s->taskId() == t->id; });
            if (drawing) continue;
            int64_t budget = 0; // 0: the source's own share
            if (static_cast<int>(i) >= k) {
                // Beyond the first K: what the ahead budget has left, at most one share.
                const int64_t left = share * k - doneBytes - active * share;
                if (active >= k || left <= 0) break;
                budget = std::min(share, left);
            }
            next.push_back(operandsFor(*t, /*ahead=*/true, budget));
            ++active;
        }
        // Each task drawn ahead has its share of the ahead threads; the threads of one whose draws
        // are done go to the one still drawing. With a single one left drawing it gets them all.
        OperandSource* only = nullptr;
        active = 0;
        for (const auto& s : next)
            if (s->drawing()) {
                only = s.get();
                ++active;
            }
        if (active == 1) only->addThreads(std::max(1, sourceOptions(false).threads - 1));
    }

    // Seeds 0..keepSeeds()-1 are used again by the analyses after the statistics.
    int keepSeeds() const {
        int k = 0;
        if (opt.redundancy) k = std::max(k, opt.redundancyOptions.seeds);
        if (opt.inefficiency) k = std::max(k, opt.inefficiencyOptions.seeds);
        return k;
    }
    // `ahead`: a following task's, drawn while this one runs: of one less thread and half the
    // budget, split among the tasks drawn ahead, so that all operands together stay within what
    // the machine has.
    OperandSource::Options sourceOptions(bool ahead) const {
        OperandSource::Options o;
        o.preset = preset;
        o.device = device;
        o.cpuGenerator = opt.cpuGenerator;
        o.threads = opt.drawThreads > 0 ? opt.drawThreads : defaultDrawThreads(opt.gpuShare);
        // KS_DRAW_SPLIT=0: every tensor on one thread (a comparison for bench/engine/RESULTS.md).
        static const bool noSplit = [] {
            const char* v = std::getenv("KS_DRAW_SPLIT");
            return v && std::string(v) == "0";
        }();
        o.splitCores = noSplit ? 0 : opt.drawThreads > 0 ? opt.drawThreads : drawCoreLimit(opt.gpuShare);
        // KS_PINNED_MAX_GIB=G: tensors of up to G GiB drawn page-locked (default 1; larger ones go
        // through the staging buffers), for a comparison in bench/engine/RESULTS.md.
        static const int64_t maxPinned = [] {
            const char* v = std::getenv("KS_PINNED_MAX_GIB");
            if (!v || !*v) return int64_t{-1};
            char* end = nullptr;
            const double gib = std::strtod(v, &end);
            if (*end || !(gib >= 0) || gib > 1e6) {
                std::cerr << "warning: KS_PINNED_MAX_GIB=" << v << " is not a number of GiB; 1 GiB is used\n";
                return int64_t{-1};
            }
            return static_cast<int64_t>(gib * double(int64_t{1} << 30));
        }();
        o.maxPinnedBytes = maxPinned;
        o.hostBudgetBytes = opt.hostBudgetBytes > 0 ? opt.hostBudgetBytes
                                                    : defaultOperandBudget() / std::max(1, opt.gpuShare);
        if (ahead) {
            const int k = std::max(1, opt.drawAheadTasks);
            o.threads = std::max(1, (o.threads - 1) / k);
            o.hostBudgetBytes /= 2 * k;
            o.strictBudget = true;
        }
        return o;
    }
    // `budget` > 0: a smaller host budget than the source's share (drawUpcoming).
    std::unique_ptr<OperandSource> operandsFor(const TaskSpec& spec, bool ahead = false, int64_t budget = 0) const {
        OperandSource::Options o = sourceOptions(ahead);
        if (budget > 0) o.hostBudgetBytes = std::min(o.hostBudgetBytes, budget);
        o.deviceKeepBytes = deviceKeepBytes(spec);
        auto src = std::make_unique<OperandSource>(spec, o);
        // In the order the passes ask: seed 0, the input-impact pass's parameters, seeds 1.., then
        // what only the analyses use.
        const int S = opt.statistics ? opt.seeds : 0;
        if (S > 0) src->prefetchSeeds(0, 1);
        if (S > 0 && !spec.params.empty()) src->prefetchParamsOnly(static_cast<uint64_t>(opt.paramSeed));
        src->prefetchSeeds(std::min(S, 1), std::max(S, keepSeeds()) - std::min(S, 1));
        return src;
    }

    void runStatistics(const TaskSpec& spec, TaskResult& r, std::vector<double>& callMs, OperandSource& src,
                       std::optional<CompiledTask>& compiled);
    void runAnalyses(const TaskSpec& spec, TaskResult& r, OperandSource& src, const CompiledTask* compiled);
    const DeviceCeilings* ensureCeilings();

    // Device bytes for kept copies of spec's operands (EngineOptions::deviceKeepBytes): on CUDA
    // deviceKeepBudget() of the worker's memory cap, unless KS_DEVICE_KEEP=0 (measured in
    // bench/engine/RESULTS.md, 2026-12-06: level 2's six criteria on the H200 uploaded 5.2 s
    // instead of 26.8 s with staging, the same flags). A task that needs all of its memory never
    // shares it with copies.
    int64_t deviceKeepBytes(const TaskSpec& spec) const {
        if (opt.deviceKeepBytes >= 0) return opt.deviceKeepBytes;
        static const bool on = [] {
            const char* v = std::getenv("KS_DEVICE_KEEP");
            return !(v && std::string(v) == "0");
        }();
        const int64_t cap = memoryCap();
        if (!on || !device.is_cuda() || cap <= 0) return 0;
        try {
            const int64_t set = operandDeviceBytes(spec, preset);
            return deviceKeepBudget(cap, set, importPeakAt(spec, set));
        } catch (const std::exception&) {
            return 0; // an unresolvable shape: the statistics report it
        }
    }
    // Whether the input-impact pass's running moments (16 bytes an output element) fit on the
    // device beside what pass 1 holds after seed 0 (its moments, the output, kept copies) and a
    // forward (the import's measured peak, else the operands and the output), with a sixteenth
    // spare. Always on the CPU or without a cap.
    bool impactFitsBeside(const TaskSpec& spec, const at::Tensor& out) const {
        const int64_t cap = memoryCap();
        if (!device.is_cuda() || cap <= 0) return true;
        const int64_t held = cachingAllocatorBytes(/*peak=*/false);
        int64_t forward = 0;
        try {
            const int64_t set = operandDeviceBytes(spec, preset);
            const int64_t peak = importPeakAt(spec, set);
            forward = peak > 0 ? peak : set + static_cast<int64_t>(out.nbytes());
        } catch (const std::exception&) {
            return true; // unknown: as before
        }
        return held + 16 * out.numel() + forward <= cap - cap / 16;
    }
    int64_t deviceMemoryBytes = 0; // a CUDA device's total, read once at the start (0: none)
    // EngineOptions::memoryCapBytes, or from the device (0 on the CPU).
    int64_t memoryCap() const {
        if (opt.memoryCapBytes > 0) return opt.memoryCapBytes;
        const double share = opt.gpuShare > 1 ? 0.95 / opt.gpuShare : 1.0;
        return static_cast<int64_t>(static_cast<double>(deviceMemoryBytes) * share);
    }
};

Engine::Engine(EngineOptions options) : d(std::make_unique<Impl>()) {
    d->opt = std::move(options);
    if (d->opt.seeds < 1) throw Error("--seeds must be at least 1");
    d->dev = probeDevice(d->opt.device);
    d->device = d->dev.device == "cuda" ? at::Device(at::kCUDA, 0) : at::Device(at::kCPU);
    d->preset = d->opt.preset.value_or(d->dev.device == "cuda" ? Preset::Full : Preset::Small);
    useEagerSemantics();
    if (d->device.is_cuda()) {
#ifdef KS_TORCH_CUDA
        preferRegisteredPinnedMemory(); // before the first page-locked block
#endif
        d->startWarmUp(); // beside the context's making (after the allocator's settings)
        // The caching allocator's per-device state exists only after a first allocation; its
        // peak-memory calls throw "Invalid device argument" before that.
        at::empty({1}, at::TensorOptions().device(d->device));
        torch::cuda::synchronize();
#ifdef KS_TORCH_CUDA
        size_t freeB = 0, totalB = 0;
        if (cudaMemGetInfo(&freeB, &totalB) == cudaSuccess)
            d->deviceMemoryBytes = static_cast<int64_t>(totalB);
        else
            (void)cudaGetLastError(); // no cap then: tasks run and fail as before

        if (d->opt.gpuShare > 1)
            c10::cuda::CUDACachingAllocator::setMemoryFraction(0.95 / d->opt.gpuShare, 0);
#endif
    }
}

Engine::~Engine() = default;

const DeviceInfo& Engine::device() const { return d->dev; }
Preset Engine::preset() const { return d->preset; }
const EngineOptions& Engine::options() const { return d->opt; }

void Engine::setUpcoming(std::vector<const TaskSpec*> next) { d->upcoming = std::move(next); }

std::vector<std::string> Engine::drawingAhead() const {
    std::vector<std::string> ids;
    for (const auto& s : d->next) ids.push_back(s->taskId());
    return ids;
}

TaskResult Engine::runTask(const TaskSpec& spec) {
    TaskResult r = resultSkeleton(spec);
    const auto t0 = Clock::now();
    const bool rssReset = resetPeakRss();
#ifdef KS_TORCH_CUDA
    if (d->device.is_cuda()) {
        try {
            c10::cuda::CUDACachingAllocator::resetPeakStats(0);
        } catch (const std::exception&) {
            // peak memory is informative; never fail a task over it
        }
    }
#endif
    // --workers-per-gpu: the GPU is held shared for the task, given up at each pause point and
    // for good at the end (also when it throws: a cancel).
    struct GateRelease {
        const Impl& d;
        ~GateRelease() {
            d.gpuRelease();
            d.current = nullptr;
        }
    } gateRelease{*d};
    d->current = &spec;
    d->lastPhase = "statistics";
    // A task that cannot fit: its operands alone, or the forward the exporter ran at these shapes
    // on CUDA, exceed what this worker may use. Reported as out of memory at once, without drawing
    // five seeds to find out (the driver then retries it alone on its GPU).
    if (const int64_t cap = d->memoryCap(); cap > 0) {
        int64_t operands = 0, atImport = 0;
        try {
            operands = operandDeviceBytes(spec, d->preset);
            atImport = importPeakAt(spec, operands);
        } catch (const std::exception&) {
            operands = 0; // an unresolvable shape: the statistics report it
        }
        if (operands > cap || atImport > cap) {
            d->takeAhead(spec.id);
            const auto gib = [](int64_t b) { return static_cast<double>(b) / (1 << 30); };
            char what[300];
            if (operands > cap)
                std::snprintf(what, sizeof what, "one seed's inputs and parameters take %.2f GiB on the device",
                              gib(operands));
            else
                std::snprintf(what, sizeof what, "its forward took %.2f GiB on the device when it was imported (%s)",
                              gib(atImport), spec.importPeakDevice.empty() ? "CUDA" : spec.importPeakDevice.c_str());
            char buf[600];
            std::snprintf(buf, sizeof buf, "task %s: out of memory before it ran: %s, more than the %.2f GiB this worker may use%s",
                          spec.id.c_str(), what, gib(cap),
                          d->opt.gpuShare > 1 ? " (its share of a GPU that several workers share)" : "");
            r.status = TaskStatus::Error;
            r.error = buf;
            r.wallSeconds = secondsSince(t0);
            return r;
        }
    }
    d->gpuShared();
    std::unique_ptr<OperandSource> src = d->takeAhead(spec.id);
    if (src && d->opt.drawAheadTasks > 1) {
        // Drawn ahead with a fraction of the ahead threads and a strict share of the budget: the
        // running task's now. (One task ahead, as measured: it keeps the ahead threads and budget.)
        const OperandSource::Options full = d->sourceOptions(false);
        src->promote(full.threads, full.hostBudgetBytes);
    } else if (!src) {
        src = d->operandsFor(spec);
    }
    // On CUDA the following tasks' operands are drawn on host threads while this one runs (beside
    // filter 5's timing too, without split-tensor helpers then).
    d->drawUpcoming(spec.id);
    std::vector<double> callMs;
    // Compiled (an artifact loaded, on each device) once, for the statistics and both analyses.
    std::optional<CompiledTask> compiled;
    if (d->opt.statistics) {
        d->phase(spec, "statistics");
        const auto p0 = Clock::now();
        d->runStatistics(spec, r, callMs, *src, compiled);
        r.phaseSeconds["statistics"] = secondsSince(p0);
    }
    // A task that could not be run for the statistics (it does not compile, its output is
    // malformed, it ran out of memory) would fail the same way in the analyses.
    if (d->opt.statistics) {
        double ms = 0;
        for (double c : callMs) ms += c;
        r.phaseSeconds["forward"] = ms / 1e3;
    }
    if (!callMs.empty()) {
        std::sort(callMs.begin(), callMs.end());
        r.runMsMedian = callMs[callMs.size() / 2];
    }
    if (r.status != TaskStatus::Error) d->runAnalyses(spec, r, *src, compiled ? &*compiled : nullptr);
    const OperandStats os = src->stats();
    src.reset();
    r.phaseSeconds["draw"] = os.drawSeconds;
    r.phaseSeconds["draw_wait"] = os.waitSeconds;
    if (os.helperSeconds > 0) r.phaseSeconds["draw_helpers"] = os.helperSeconds;
    r.phaseSeconds["upload"] = os.uploadSeconds;
    r.operandDraws = os.draws;
    r.operandReuses = os.reuses;
    r.operandRedraws = os.redraws;
    r.operandDeviceReuses = os.deviceReuses;
    r.peakOperandDeviceKeptBytes = os.peakDeviceKeptBytes;
    r.operandSetBytes = os.setBytes;
    if (d->device.is_cuda()) r.operandUploadBytes = os.uploadBytes;
    r.peakOperandHostBytes = os.peakHostBytes;
    r.peakHostPerTask = rssReset;
    r.pinnedCacheFreedBytes = d->trimPinnedCache(os.peakHostBytes);
    // The peak resident size, and what is resident now by kind: anonymous (heap, page-locked
    // operand blocks, what libraries allocate) and file-backed (the mapped libraries' pages).
    const std::vector<int64_t> mem = procBytes("/proc/self/status", {"VmHWM", "RssAnon", "RssFile"});
    r.peakHostBytes = mem[0];
    r.rssAnonBytes = mem[1];
    r.rssFileBytes = mem[2];
    d->pinnedHolding(r.pinnedHeldBytes, r.pinnedInUseBytes);
    if (d->device.is_cuda()) {
        r.peakMemoryBytes = cachingAllocatorBytes(/*peak=*/true);
        r.deviceReservedBytes = cachingAllocatorBytes(/*peak=*/false, /*reserved=*/true);
    }
    r.wallSeconds = secondsSince(t0);
    return r;
}

void Engine::Impl::runStatistics(const TaskSpec& spec, TaskResult& r, std::vector<double>& callMs,
                                 OperandSource& src, std::optional<CompiledTask>& compiled) {
    c10::InferenceMode inference;
    std::string phase = "compiling";
    int64_t seed = -1;
    auto timedForward = [&](const CompiledTask& ct, const std::vector<at::Tensor>& in,
                            const std::vector<at::Tensor>& params) {
        sync();
        const auto c0 = Clock::now();
        at::Tensor out = runForward(spec, ct, in, params);
        sync();
        callMs.push_back(secondsSince(c0) * 1e3);
        return out;
    };
    auto fail = [&](const std::string& why) {
        r.status = TaskStatus::Error;
        r.error = "task " + spec.id + ": " + why;
    };
    // Where the statistics' time goes besides drawing and uploads: the metrics taken from the
    // outputs (and, from callMs in runTask, the timed forward calls).
    double& accumulateSeconds = r.phaseSeconds["accumulate"];
    try {
        const auto c0 = Clock::now();
        const CompiledTask& ct = compiled.emplace(compileTask(spec));
        r.phaseSeconds["compile"] = secondsSince(c0);
        const int S = opt.seeds;
        const int keep = keepSeeds();

        // Tensors are drawn as robust-kbench's filter code draws them (docs/task-format.md, "Seed
        // order"): on the CPU generator, then copied to the device, unless the run asks for the
        // device's own generator (faster for huge inputs, other samples). Each seed's tensors are
        // drawn once (ahead, on host threads: OperandSource) and serve both passes and the analyses.
        //
        // Pass 1 (filters 1-3): seed s draws the inputs, then the parameters (robust-kbench calls
        // get_inputs() before building the model). Pass 2 (filter 4): parameters fixed by
        // paramSeed, inputs re-drawn per seed: the same inputs as pass 1's seed s. Both passes run
        // seed by seed in one loop; each keeps its own accumulator in seed order, so the results
        // are those of running them one after the other.
        const bool impact = !spec.params.empty();
        std::optional<OutputAccumulator> acc(std::in_place, opt.histogramBins);
        SeedMoments moments;
        std::vector<at::Tensor> fixedParams;
        if (impact) {
            phase = "input-impact pass";
            fixedParams = src.paramsOnly(static_cast<uint64_t>(opt.paramSeed));
        }
        // Pass 2 beside pass 1 (one loop over the seeds), or after it when both passes' moments
        // would not fit (decided on seed 0's output); the results are those of either order.
        bool beside = opt.impactBesidePass1 != 0;
        auto impactSeed = [&](int s) {
            // Without parameters the draws are exactly those of pass 1: its moments serve.
            phase = "input-impact pass";
            seed = s;
            const auto inputs = src.inputsOf(s); // fresh: the forward may write into its inputs
            const at::Tensor out = timedForward(ct, inputs, fixedParams);
            const auto a0 = Clock::now();
            moments.add(out.to(at::kFloat));
            accumulateSeconds += secondsSince(a0);
        };
        for (int s = 0; s < S; ++s) {
            checkCancel();
            gpuPausePoint();
            if (s > 0) drawUpcoming(spec.id); // the draws ahead that are done make room
            seed = s;
            phase = "output pass";
            {
                const auto ops = src.seed(s);
                at::Tensor out = timedForward(ct, ops.inputs, ops.params);
                if (s == 0) r.outputDtype = std::string(c10::toString(out.scalar_type()));
                if (out.numel() == 0)
                    throw Error("the output is empty (shape " + joinShape(out.sizes().vec()) + ")");
                const auto a0 = Clock::now();
                acc->add(out, s);
                accumulateSeconds += secondsSince(a0);
                if (s == 0 && impact && opt.impactBesidePass1 < 0) beside = impactFitsBeside(spec, out);
            }
            if (impact && beside) impactSeed(s);
            if (s >= keep && (!impact || beside)) src.release(s);
        }
        const uint64_t nonFinite = acc->nonFinite();
        {
            const auto a0 = Clock::now();
            acc->finish(r);
            acc.reset(); // its moments' device memory, before a pass 2 that runs after it
            accumulateSeconds += secondsSince(a0);
        }
        if (impact && !beside) {
            r.impactAfterOutputPass = true;
            for (int s = 0; s < S; ++s) {
                checkCancel();
                gpuPausePoint();
                impactSeed(s);
                if (s >= keep) src.release(s);
            }
        }
        src.releaseParamsOnly(static_cast<uint64_t>(opt.paramSeed));
        r.inputImpact = impact ? moments.metrics() : r.outputStd;
        if (nonFinite > 0)
            fail("the output has " + std::to_string(nonFinite) +
                 " non-finite values (NaN/Inf) over " + std::to_string(S) +
                 " seeds; its metrics are NaN and never flag");
    } catch (const Cancelled&) {
        throw;
    } catch (const c10::OutOfMemoryError& e) {
        fail("out of memory during the " + phase + (seed >= 0 ? " (seed " + std::to_string(seed) + ")" : "") +
             ": " + shortError(e) + " — try --preset small or fewer tasks");
    } catch (const Error& e) {
        const std::string msg = e.what();
        if (msg.rfind("task " + spec.id + ":", 0) == 0) {
            r.status = TaskStatus::Error;
            r.error = msg;
        } else {
            fail(msg + (seed >= 0 ? " (" + phase + ", seed " + std::to_string(seed) + ")" : ""));
        }
    } catch (const std::exception& e) {
        fail("runtime error during the " + phase + (seed >= 0 ? " (seed " + std::to_string(seed) + ")" : "") +
             ": " + shortError(e));
    }
    if (r.status == TaskStatus::Error) releaseCachedMemory();
}

void Engine::Impl::runAnalyses(const TaskSpec& spec, TaskResult& r, OperandSource& src, const CompiledTask* compiled) {
    // Without the statistics, compiled here once for both; a task that does not compile is
    // reported by each analysis, as it was.
    std::optional<CompiledTask> own;
    if (!compiled && (opt.redundancy || opt.inefficiency)) {
        try {
            compiled = &own.emplace(compileTask(spec));
        } catch (const std::exception&) {
        }
    }
    // Runs one analysis; whatever it throws becomes its report's error, naming the task, and the
    // run goes on. Only a cancel stops the task, between analyses: neither takes a cancel flag, and
    // each takes well under a second per task at the small preset.
    auto guarded = [&](const char* phaseName, const std::string& what, auto run) {
        checkCancel();
        gpuPausePoint();
        phase(spec, phaseName);
        const auto p0 = Clock::now();
        struct Timed {
            TaskResult& r;
            const char* name;
            Clock::time_point t0;
            ~Timed() { r.phaseSeconds[name] = secondsSince(t0); }
        } timed{r, phaseName, p0};
        decltype(run()) rep;
        try {
            rep = run();
        } catch (const std::exception& e) {
            const std::string why = shortError(e);
            rep.error = why.rfind("task " + spec.id + ":", 0) == 0 ? why : "task " + spec.id + ": " + what + ": " + why;
        }
        rep.taskId = spec.id;
        rep.taskName = spec.name;
        if (rep.device.empty()) rep.device = dev.device;
        if (!rep.error.empty()) releaseCachedMemory();
        return rep;
    };
    // Redundancy first: what it proves removable is one of filter 5's rewrites ("drop-redundant"),
    // so a constant-output task shows its real headroom there too.
    if (opt.redundancy)
        r.redundancy = guarded("redundancy", "redundancy analysis", [&] {
            RedundancyOptions ro = opt.redundancyOptions;
            ro.device = dev.device;
            ro.preset = preset;
            ro.keepReducedGraph = opt.inefficiency;
            ro.operands = &src;
            ro.compiled = compiled;
            // What filter 6 saves for its check runs: an eighth of this worker's device memory.
            if (memoryCap() > 0) ro.cutBytes = std::max<long long>(ro.cutBytes, memoryCap() / 8);
            // Its check runs' arguments stay on the device when they fit there beside a forward.
            ro.deviceBytes = memoryCap();
            return analyzeRedundancy(spec, ro);
        });
    if (opt.inefficiency) {
        joinWarmUp(); // nothing of it runs beside a timing
        src.quiesce();
        // The next task's drawing goes on, on its pool's threads only (no split tensors' helpers).
        const NoHelpersNow quiet;
        r.inefficiency = guarded("inefficiency", "baseline-inefficiency analysis", [&] {
            InefficiencyOptions io = opt.inefficiencyOptions;
            io.device = dev.device;
            io.preset = preset;
            io.operands = &src;
            // The last to ask for seeds 0.. (filter 6 ran before): kept device copies are handed
            // over, not copied beside themselves.
            io.lastUseOfOperands = true;
            io.compiled = compiled;
            // The next task's drawing goes on while this one is timed. Pausing it cost more than
            // it spared (bench/engine/RESULTS.md, 2026-12-02, third run): waiting for the draw in
            // flight left the GPU idle before the timing, and short tasks then timed up to 4.5x
            // slower than without drawing ahead (L2-17: 0.31 ms against 0.067 ms), while tasks
            // timed beside the drawing matched (medians 0.99-1.02, launch-bound ones included).
            // With other workers on the GPU, the timing has it to itself.
            io.beforeTiming = [&](int) -> std::string {
                std::string note = !next.empty() ? "timed while host threads drew the next task's operands" : "";
                if (opt.gate) {
                    const double waited = gpuExclusive();
                    char buf[200];
                    std::snprintf(buf, sizeof buf, "timed with the GPU to itself: %d workers share it; waited %.2f s for them",
                                  opt.gpuShare, waited);
                    note += (note.empty() ? "" : "; ") + std::string(buf);
                }
                return note;
            };
            const DeviceCeilings* c = ensureCeilings();
            if (!c) throw Error("no device ceilings: " + ceilingsError);
            return analyseInefficiency(spec, io, *c, r.redundancy ? &*r.redundancy : nullptr);
        });
        gpuRelease(); // nothing of this task runs on the GPU after filter 5
    }
    // The reduced graph may hold an output-sized constant on the device: never keep it past here.
    if (r.redundancy) r.redundancy->reducedGraph.reset();
}

const DeviceCeilings* Engine::Impl::ensureCeilings() {
    if (!opt.inefficiency) return nullptr;
    joinWarmUp(); // the ceilings are timed
    if (!ceilingsTried) {
        ceilingsTried = true;
        // Measured (or read from the cache) with the GPU to ourselves.
        const bool wasShared = opt.gate && opt.gate->gpu().held() == FileRwLock::Held::Shared;
        try {
            gpuExclusive();
            const NoHelpersNow quiet;
            ceilings = deviceCeilings(dev.device, opt.remeasureCeilings, opt.ceilingsCacheDir);
        } catch (const std::exception& e) {
            ceilingsError = shortError(e);
        }
        gpuRelease();
        if (wasShared) gpuShared();
    }
    return ceilings ? &*ceilings : nullptr;
}

const DeviceCeilings* Engine::ceilings() { return d->ensureCeilings(); }

const std::string& Engine::ceilingsError() const { return d->ceilingsError; }

RunInfo Engine::runInfo(const std::string& suiteName) const {
    RunInfo ri;
    ri.toolVersion = toolVersion();
    ri.created = isoTimeNow();
    ri.suite = suiteName;
    ri.preset = presetName(d->preset);
    ri.device = d->dev.device;
    ri.deviceName = d->dev.name;
    ri.driver = d->dev.driver;
    ri.libtorchVersion = d->dev.libtorch;
    ri.cudaVersion = d->dev.cuda;
    char host[256] = {};
    if (gethostname(host, sizeof host - 1) == 0) ri.host = host;
    ri.seeds = d->opt.seeds;
    ri.inputImpactParamSeed = d->opt.paramSeed;
    ri.seedSemantics = d->opt.cpuGenerator ? "cpu-generator, inputs-then-params" : "device-generator, inputs-then-params";
    ri.ceilings = d->ceilings;
    ri.hostHugePages = hostHugePages();
    return ri;
}

RunResults Engine::runAll(const std::vector<TaskSpec>& tasks, const std::string& suiteName,
                          const Thresholds& thresholds, const StartFn& onStart, const DoneFn& onDone) {
    RunResults rr;
    ceilings(); // once per run, before the first task, so the run info records them
    rr.run = runInfo(suiteName);
    rr.thresholds = thresholds;
    const auto t0 = Clock::now();
    const int total = static_cast<int>(tasks.size());
    for (int i = 0; i < total; ++i) {
        if (onStart) onStart(tasks[static_cast<size_t>(i)], i, total);
        d->upcoming.clear();
        // The next K tasks are drawn ahead; up to 4K (at most 16) when those are drawn already
        // and the ahead budget allows (Impl::drawUpcoming).
        const int window = std::min(16, 4 * std::max(1, d->opt.drawAheadTasks));
        for (int j = i + 1; j < total && j <= i + std::max(window, d->opt.drawAheadTasks); ++j)
            d->upcoming.push_back(&tasks[static_cast<size_t>(j)]);
        try {
            rr.tasks.push_back(runTask(tasks[static_cast<size_t>(i)]));
        } catch (const Cancelled&) {
            rr.run.cancelled = true;
            break;
        }
        rr.run.peakMemoryBytes = std::max(rr.run.peakMemoryBytes, rr.tasks.back().peakMemoryBytes);
        if (onDone && !onDone(rr.tasks.back(), i, total)) break;
    }
    d->upcoming.clear();
    d->next.clear();
    rr.run.totalSeconds = secondsSince(t0);
    return rr;
}

} // namespace ks
