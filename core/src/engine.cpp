// SPDX-License-Identifier: MIT
#include "ks/core/engine.h"
#include "ks/core/inefficiency.h"
#include "ks/core/redundancy.h"
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
#include <c10/cuda/CUDACachingAllocator.h>
#include <cuda_runtime_api.h>
#endif


#include <algorithm>
#include <chrono>
#include <ctime>
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

std::string joinShape(const std::vector<int64_t>& s) {
    std::string out = "[";
    for (size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
    return out + "]";
}

} // namespace

std::string toolVersion() { return KS_VERSION; }

std::string isoTimeNow() {
    const std::time_t now = std::time(nullptr);
    std::tm tm{};
    gmtime_r(&now, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return buf;
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

struct Engine::Impl {
    EngineOptions opt;
    DeviceInfo dev;
    Preset preset = Preset::Small;
    at::Device device{at::kCPU};

    void checkCancel() const {
        if (opt.cancel && opt.cancel->load()) throw Cancelled();
    }
    void sync() const {
        if (device.is_cuda()) torch::cuda::synchronize();
    }
    void phase(const TaskSpec& spec, const char* name) const {
        if (opt.onPhase) opt.onPhase(spec, name);
    }
    void releaseCachedMemory() const {
        // An OOM leaves cached blocks behind; free them so the next task starts clean.
        if (!device.is_cuda()) return;
        try {
#ifdef KS_TORCH_CUDA
            c10::cuda::CUDACachingAllocator::emptyCache();
#endif
        } catch (...) {
        }
    }

    std::optional<DeviceCeilings> ceilings;
    bool ceilingsTried = false;
    std::string ceilingsError;

    void runStatistics(const TaskSpec& spec, TaskResult& r, std::vector<double>& callMs) const;
    void runAnalyses(const TaskSpec& spec, TaskResult& r);
    const DeviceCeilings* ensureCeilings();
};

Engine::Engine(EngineOptions options) : d(std::make_unique<Impl>()) {
    d->opt = std::move(options);
    if (d->opt.seeds < 1) throw Error("--seeds must be at least 1");
    d->dev = probeDevice(d->opt.device);
    d->device = d->dev.device == "cuda" ? at::Device(at::kCUDA, 0) : at::Device(at::kCPU);
    d->preset = d->opt.preset.value_or(d->dev.device == "cuda" ? Preset::Full : Preset::Small);
    useEagerSemantics();
    if (d->device.is_cuda()) {
        // The caching allocator's per-device state exists only after a first allocation; its
        // peak-memory calls throw "Invalid device argument" before that.
        at::empty({1}, at::TensorOptions().device(d->device));
        torch::cuda::synchronize();
    }
}

Engine::~Engine() = default;

const DeviceInfo& Engine::device() const { return d->dev; }
Preset Engine::preset() const { return d->preset; }
const EngineOptions& Engine::options() const { return d->opt; }

TaskResult Engine::runTask(const TaskSpec& spec) {
    TaskResult r = resultSkeleton(spec);
    const auto t0 = Clock::now();
#ifdef KS_TORCH_CUDA
    if (d->device.is_cuda()) {
        try {
            c10::cuda::CUDACachingAllocator::resetPeakStats(0);
        } catch (const std::exception&) {
            // peak memory is informative; never fail a task over it
        }
    }
#endif
    std::vector<double> callMs;
    if (d->opt.statistics) {
        d->phase(spec, "statistics");
        d->runStatistics(spec, r, callMs);
    }
    // A task that could not be run for the statistics (it does not compile, its output is
    // malformed, it ran out of memory) would fail the same way in the analyses.
    if (r.status != TaskStatus::Error) d->runAnalyses(spec, r);
    if (!callMs.empty()) {
        std::sort(callMs.begin(), callMs.end());
        r.runMsMedian = callMs[callMs.size() / 2];
    }
#ifdef KS_TORCH_CUDA
    if (d->device.is_cuda()) {
        try {
            const auto stats = c10::cuda::CUDACachingAllocator::getDeviceStats(0);
            r.peakMemoryBytes =
                stats.allocated_bytes[static_cast<size_t>(c10::CachingAllocator::StatType::AGGREGATE)].peak;
        } catch (const std::exception&) {
        }
    }
#endif
    r.wallSeconds = secondsSince(t0);
    return r;
}

void Engine::Impl::runStatistics(const TaskSpec& spec, TaskResult& r, std::vector<double>& callMs) const {
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
    try {
        const CompiledTask ct = compileTask(spec);
        const int S = opt.seeds;

        // Tensors are drawn as robust-kbench's filter code draws them (docs/task-format.md, "Seed
        // order"): on the CPU generator, then copied to the device, unless the run asks for the
        // device's own generator (faster for huge inputs, other samples).
        const at::Device drawOn = opt.cpuGenerator ? at::Device(at::kCPU) : device;
        auto onDevice = [&](std::vector<at::Tensor> ts) {
            if (drawOn != device)
                for (auto& t : ts) t = t.to(device);
            return ts;
        };
        auto inputsOf = [&] { return onDevice(drawInputs(spec, preset, drawOn)); };
        auto paramsOf = [&] { return onDevice(drawParams(spec, preset, drawOn)); };

        // Pass 1 (filters 1-3): seed s draws the inputs, then the parameters (robust-kbench calls
        // get_inputs() before building the model).
        phase = "output pass";
        OutputAccumulator acc(opt.histogramBins);
        for (int s = 0; s < S; ++s) {
            checkCancel();
            seed = s;
            seedAll(static_cast<uint64_t>(s));
            const auto inputs = inputsOf();
            const auto params = paramsOf();
            at::Tensor out = timedForward(ct, inputs, params);
            if (s == 0) r.outputDtype = std::string(c10::toString(out.scalar_type()));
            if (out.numel() == 0) throw Error("the output is empty (shape " + joinShape(out.sizes().vec()) + ")");
            acc.add(out, s);
        }
        acc.finish(r);

        // Pass 2 (filter 4): parameters fixed by paramSeed, inputs re-drawn per seed. Without
        // parameters the draws are exactly those of pass 1, so we reuse its moments.
        phase = "input-impact pass";
        if (spec.params.empty()) {
            r.inputImpact = r.outputStd;
        } else {
            seedAll(static_cast<uint64_t>(opt.paramSeed));
            const auto params = paramsOf();
            SeedMoments moments;
            for (int s = 0; s < S; ++s) {
                checkCancel();
                seed = s;
                seedAll(static_cast<uint64_t>(s));
                const auto inputs = inputsOf();
                moments.add(timedForward(ct, inputs, params).to(at::kFloat));
            }
            r.inputImpact = moments.metrics();
        }
        if (acc.nonFinite() > 0)
            fail("the output has " + std::to_string(acc.nonFinite()) +
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

void Engine::Impl::runAnalyses(const TaskSpec& spec, TaskResult& r) {
    // Runs one analysis; whatever it throws becomes its report's error, naming the task, and the
    // run goes on. Only a cancel stops the task, between analyses: neither takes a cancel flag, and
    // each takes well under a second per task at the small preset.
    auto guarded = [&](const char* phaseName, const std::string& what, auto run) {
        checkCancel();
        phase(spec, phaseName);
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
            return analyzeRedundancy(spec, ro);
        });
    if (opt.inefficiency)
        r.inefficiency = guarded("inefficiency", "baseline-inefficiency analysis", [&] {
            InefficiencyOptions io = opt.inefficiencyOptions;
            io.device = dev.device;
            io.preset = preset;
            const DeviceCeilings* c = ensureCeilings();
            if (!c) throw Error("no device ceilings: " + ceilingsError);
            return analyseInefficiency(spec, io, *c, r.redundancy ? &*r.redundancy : nullptr);
        });
    // The reduced graph may hold an output-sized constant on the device: never keep it past here.
    if (r.redundancy) r.redundancy->reducedGraph.reset();
}

const DeviceCeilings* Engine::Impl::ensureCeilings() {
    if (!opt.inefficiency) return nullptr;
    if (!ceilingsTried) {
        ceilingsTried = true;
        try {
            ceilings = deviceCeilings(dev.device, opt.remeasureCeilings, opt.ceilingsCacheDir);
        } catch (const std::exception& e) {
            ceilingsError = shortError(e);
        }
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
        try {
            rr.tasks.push_back(runTask(tasks[static_cast<size_t>(i)]));
        } catch (const Cancelled&) {
            rr.run.cancelled = true;
            break;
        }
        rr.run.peakMemoryBytes = std::max(rr.run.peakMemoryBytes, rr.tasks.back().peakMemoryBytes);
        if (onDone) onDone(rr.tasks.back(), i, total);
    }
    rr.run.totalSeconds = secondsSince(t0);
    return rr;
}

} // namespace ks
