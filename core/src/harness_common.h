// SPDX-License-Identifier: MIT
#pragma once
// What the built-in variant jobs (harness.cpp) and the external-kernel job (external/runner.cpp)
// share inside a worker: CUDA checks, the event timer, misaligned copies, the job's task.
// Engine-side (LibTorch) translation units only.

#include "cudagraph.h"
#include "ks/core/aotimodel.h"
#include "ks/core/harness.h"
#include "ks/core/nvml.h"
#include "ks/core/suite.h"
#include "ks/core/torchtask.h"
#include "ks/core/taskspec.h"

#include "ks/kernels/timing.h"

#include <ATen/ATen.h>
#include <ATen/core/ivalue.h>
#include <nlohmann/json.hpp>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

struct KsExtFunction;

namespace ks::harness {

using Clock = std::chrono::steady_clock;

// Copies a tensor into a buffer that starts one element past an allocation, so its pointer is
// 4 bytes off any 16-byte boundary.
inline at::Tensor misaligned(const at::Tensor& t) {
    at::Tensor buf = at::empty({t.numel() + 1}, t.options());
    at::Tensor view = buf.narrow(0, 1, t.numel()).view(t.sizes());
    view.copy_(t);
    return view;
}

inline void cudaCheck(cudaError_t e, const std::string& what) {
    if (e != cudaSuccess) throw Error(what + ": " + cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")");
}

struct Timer {
    cudaStream_t stream;
    at::Tensor flushBuf;
    bool hideLaunch = false;
    double spinUs = 0; // the spin queued before each timed run by the last time() (0: none)
    Timer(cudaStream_t s, bool l2Flush, double l2Bytes, bool hideLaunchLatency = false)
        : stream(s), hideLaunch(hideLaunchLatency) {
        if (l2Flush) flushBuf = at::empty({static_cast<int64_t>(std::max(l2Bytes, 1e6) * 2 / 4)},
                                          at::TensorOptions().device(at::kCUDA).dtype(at::kFloat));
    }
    // Times `fn` (which launches on `stream`) with events, one sample per run. With hideLaunch,
    // a spin kernel queued before the start event keeps the device busy while the host enqueues
    // `fn` (its spin is twice the slowest host enqueue time seen in the warm-up, plus 20 us), so
    // the events measure device execution only; baseline and variants are timed the same way.
    std::vector<double> time(const std::function<void()>& fn, int warmup, int runs) {
        cudaEvent_t a, b;
        cudaCheck(cudaEventCreate(&a), "cudaEventCreate");
        cudaCheck(cudaEventCreate(&b), "cudaEventCreate");
        std::vector<double> enqueueUs;
        for (int i = 0; i < std::max(warmup, hideLaunch ? 3 : 0); ++i) {
            const auto t0 = Clock::now();
            fn();
            enqueueUs.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
            if (hideLaunch) cudaCheck(cudaStreamSynchronize(stream), "warm-up");
        }
        cudaCheck(cudaDeviceSynchronize(), "warm-up");
        // The median, not the max: the first calls pay one-off costs (module loads, library
        // handles) that would otherwise stretch every run's spin.
        if (hideLaunch) {
            std::sort(enqueueUs.begin(), enqueueUs.end());
            spinUs = std::clamp(2 * enqueueUs[enqueueUs.size() / 2] + 20, 20.0, 20000.0);
        }
        std::vector<double> ms;
        ms.reserve(static_cast<size_t>(runs));
        for (int i = 0; i < runs; ++i) {
            if (flushBuf.defined()) flushBuf.zero_(); // evicts L2 outside the timed region
            if (hideLaunch) cudaCheck(kernels::spinFor(spinUs, stream), "spin kernel");
            cudaCheck(cudaEventRecord(a, stream), "cudaEventRecord");
            fn();
            cudaCheck(cudaEventRecord(b, stream), "cudaEventRecord");
            cudaCheck(cudaEventSynchronize(b), "cudaEventSynchronize");
            float t = 0;
            cudaCheck(cudaEventElapsedTime(&t, a, b), "cudaEventElapsedTime");
            ms.push_back(t);
        }
        cudaCheck(cudaDeviceSynchronize(), "timed runs");
        cudaEventDestroy(a);
        cudaEventDestroy(b);
        return ms;
    }
    // Back-to-back runs, then a device-wide sync: host time per run.
    double syncedPerRun(const std::function<void()>& fn, int runs) {
        cudaCheck(cudaDeviceSynchronize(), "sync");
        const auto t0 = Clock::now();
        for (int i = 0; i < runs; ++i) fn();
        cudaCheck(cudaDeviceSynchronize(), "synced runs");
        return std::chrono::duration<double, std::milli>(Clock::now() - t0).count() / runs;
    }
};

inline std::vector<at::Tensor> toDouble(const std::vector<at::Tensor>& v) {
    std::vector<at::Tensor> out;
    for (const auto& t : v) out.push_back(at::isFloatingType(t.scalar_type()) ? t.to(at::kDouble) : t);
    return out;
}

inline const Suite& cachedSuite(const std::string& name) {
    static std::map<std::string, Suite> cache;
    auto it = cache.find(name);
    if (it == cache.end()) it = cache.emplace(name, loadSuite(name)).first;
    return it->second;
}

// The job's task as the run sees it: from its suite, with the run's dims set.
inline TaskSpec findTask(const WorkerJob& job) {
    const TaskSpec* t = cachedSuite(job.suite).find(job.task);
    if (!t) throw Error("task " + job.task + " is not in suite '" + job.suite + "'");
    TaskSpec spec = *t;
    spec.overrideDims(job.options.preset, job.options.dims);
    return spec;
}

// ---------------------------------------------------------------------------------------------
// Interleaved timing (issue 12): the contenders of one worker (the baselines and the subject)
// are timed in blocks, A B C / C B A / A B C ..., so drift (clocks, temperature, other tenants)
// hits all of them alike, with the SM clock read through NVML around each block.
struct Contender {
    std::string name;
    std::function<void()> fn;
};
struct Interleaved {
    std::vector<std::vector<double>> ms; // per contender, every timed sample in run order
    std::vector<TimingStats> stats;      // per contender: summarised, with blocks and clocks
};
// `runs` samples per contender in `blocks` blocks (the warm-up before each contender's first
// block, three runs before the others).
Interleaved timeInterleaved(Timer& timer, const std::vector<Contender>& contenders, const HarnessOptions& opt);
// The NVML reader of this worker's GPU (opened once).
const nvml::Clocks& workerClocks();

// The baselines a worker times beside its subject, on the subject's own operands: eager always;
// "compiled" (the AOTInductor package of WorkerJob::compiledPackage) and "graph" (the eager
// forward captured in a CUDA graph) when the run asked for them and they could be set up.
class BaselineSet {
public:
    BaselineSet(const WorkerJob& job, const TaskSpec& spec, const CompiledTask& ct, std::vector<at::Tensor> inputs,
                std::vector<at::Tensor> params);
    ~BaselineSet();
    std::vector<Contender> contenders() const; // eager first
    std::vector<std::string> kinds() const;    // the kinds of contenders(), in order
    std::map<std::string, std::string> errors; // kind -> why it could not be set up
    const CompiledModel* compiled() const { return m_compiled.get(); }
    // The graph's output after a replay (undefined without a graph).
    at::Tensor graphOutput() const { return m_graph ? m_graph->output() : at::Tensor(); }
    void replayGraph();

private:
    const TaskSpec& m_spec;
    const CompiledTask& m_ct;
    std::vector<at::Tensor> m_inputs, m_params, m_all;
    std::unique_ptr<CompiledModel> m_compiled;
    std::unique_ptr<CapturedForward> m_graph;
};

// A subject timed after `baselines.size()` baseline contenders in `timed`: its speedup and
// interval against eager (r.speedup, r.speedupStats) and against the others (r.vs).
void compareWithBaselines(VariantResult& r, const Interleaved& timed, const std::vector<std::string>& baselines);

} // namespace ks::harness

namespace ks {
// Bytes an implementation of any task must move at least: each operand read once, the output
// written once (the ops of the built-in kernels count more precisely).
double minimumTraffic(const std::vector<at::Tensor>& operands, const at::Tensor& out);
// A function bound by a compiled external kernel, loaded in this process (workers and tests).
struct ExternalFunction {
    const struct ::KsExtFunction* fn = nullptr;
    std::string signature() const;
};
ExternalFunction loadExternalFunction(const std::string& soPath, const std::string& function); // throws ks::Error
// Calls it; missing trailing arguments take their py::arg defaults. Throws ks::Error with the
// kernel's own message when it throws.
at::Tensor callExternalFunction(const ExternalFunction& f, std::vector<c10::IValue> args);
// The external-kernel worker job (external/runner.cpp).
nlohmann::json jobExternal(const WorkerJob& job);
} // namespace ks
