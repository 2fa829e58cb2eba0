// SPDX-License-Identifier: MIT
#pragma once
// The filter engine: runs tasks on CUDA or CPU through LibTorch, measures the four statistical
// filters and then runs the analyses of filters 5 (baseline inefficiency) and 6 (redundant
// computation) on each task. No torch in this header (pimpl), so front ends compile fast.

#include "ks/core/results.h"
#include "ks/core/gpugate.h"
#include "ks/core/taskspec.h"

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ks {

struct DeviceInfo {
    std::string device;     // "cuda" | "cpu"
    std::string name;       // "NVIDIA H200" or the CPU
    std::string driver;     // CUDA driver version, if any
    std::string libtorch;   // e.g. "2.11.0"
    std::string cuda;       // CUDA runtime LibTorch was built with, "" if none
    bool cudaAvailable = false;
};

// "auto" picks CUDA when a device is usable. Throws ks::Error for "cuda" without a GPU or an
// unknown name.
DeviceInfo probeDevice(const std::string& requested = "auto");

// After a task on CUDA: empty when this process's CUDA context still works, else CUDA's error. A
// device-side assert or an illegal address in a task's kernel leaves the context unusable for
// the rest of the process (every later call fails with the same error), so a filter worker runs
// no further task after one (README, "filter"). Waits for the device; a one-off error
// left by an earlier call (a refused capture) is cleared, not reported. Empty in a build without
// CUDA.
std::string cudaContextFault();

struct EngineOptions {
    std::string device = "auto";
    std::optional<Preset> preset; // default: full on CUDA, small on CPU
    int seeds = 5;
    int64_t paramSeed = 42; // parameters for the input-impact pass
    // Draw every tensor on the CPU generator and copy it to the run's device, as robust-kbench
    // does on a GPU run (so CPU and CUDA runs see the same samples). false: draw on the device
    // (faster for multi-GB inputs; other samples, same distributions).
    bool cpuGenerator = true;
    // Host threads drawing a task's seeds ahead of the device (CPU generator: one stream per seed,
    // so the samples do not depend on it); 0: min(8, hardware threads).
    int drawThreads = 0;
    // Host memory the drawn operands may hold per task (ahead and for reuse); 0: half of what the
    // machine has available when the task starts. Over it, seeds are drawn again when reused.
    int64_t hostBudgetBytes = 0;
    // CUDA runs of several tasks: draw the next task's seeds while the current one runs (also
    // while filter 5 times it). false: each task draws its own.
    bool drawAhead = true;
    // How many of the following tasks are drawn ahead at once (runAll and setUpcoming; each gets
    // 1/N of the ahead threads and budget). 1: the next one only. A task whose draws are done
    // does not count: later upcoming ones start (within the N shares of the budget). 2 (filter's default) was
    // measured faster on the H200 with filter 5's timings as scattered as before (RESULTS.md).
    int drawAheadTasks = 2;
    // Tests only: draw ahead on the CPU too (where a run's host is busy anyway).
    bool drawAheadOnCpu = false;
    // Several workers on this GPU (filter --workers-per-gpu): `gpuShare` of them, each with that
    // share of the GPU's memory (95 % of it split evenly; more is an out-of-memory error, which
    // the driver retries alone), of the default drawing threads and of the default host budget;
    // `gate` keeps their timings apart: a task's untimed GPU work holds it shared, filter 5's
    // timing (and the ceilings' measurement) exclusive (see GpuGate). Null: alone on the GPU.
    int gpuShare = 1;
    std::shared_ptr<GpuGate> gate;
    // On CUDA, alone on the GPU (no gate): a thread loads cuDNN, cuBLAS and the statistics'
    // kernels from the engine's construction on, beside the context's making and the first task,
    // instead of the first task paying for their first use (Engine::Impl::startWarmUp).
    // KS_WARMUP=0 in the environment turns it off.
    bool warmUp = true;
    // Device memory this worker may use (0: a CUDA device's total, times 0.95 / gpuShare when
    // shared; none on the CPU). A task whose inputs and parameters alone exceed it is reported
    // out of memory without running (the driver then retries it alone); tests set it on the CPU.
    int64_t memoryCapBytes = 0;
    // Device bytes for untouched copies of a task's uploaded operands (OperandSource::Options::
    // deviceKeepBytes: the analyses' seeds and the input-impact pass's inputs then cost a copy on
    // the device instead of another upload). -1: on CUDA up to an eighth of memoryCap(), less for
    // a task whose analyses need the room (Engine::Impl::deviceKeepBytes), none with
    // KS_DEVICE_KEEP=0; none on the CPU.
    int64_t deviceKeepBytes = -1;
    // The input-impact pass (filter 4) runs seed by seed beside pass 1 (filters 1-3), each keeping
    // running moments of the output (16 bytes an output element on the device). -1: on CUDA, unless
    // both passes' moments would not fit in memoryCap() beside a forward, then pass 2 after pass 1
    // (Engine::Impl::impactFitsBeside; KernelBench level 1's 8 GiB outputs on an 80 GiB GPU); 1: always beside;
    // 0: always after. The results are the same: each pass accumulates in seed order.
    int impactBesidePass1 = -1;
    int histogramBins = 64;
    const std::atomic<bool>* cancel = nullptr; // checked between seeds and between analyses

    // Which filters run. The analyses follow the statistics on the same device and preset (their
    // options' device and preset are ignored); a failed analysis lands in its report's `error`.
    bool statistics = true;   // filters 1-4
    bool inefficiency = true; // filter 5 (needs the device ceilings, measured once per engine)
    bool redundancy = true;   // filter 6
    InefficiencyOptions inefficiencyOptions;
    RedundancyOptions redundancyOptions;
    bool remeasureCeilings = false;        // ignore the ceilings cache
    std::string ceilingsCacheDir;          // default: defaultCeilingsCacheDir()
    // Called as a task enters each phase ("statistics", "inefficiency", "redundancy"), for
    // progress displays.
    std::function<void(const TaskSpec&, const std::string& phase)> onPhase;
};

// Thrown out of runTask when the cancel flag is set; finished tasks are kept by the caller.
struct Cancelled : Error {
    Cancelled() : Error("cancelled") {}
};

class Engine {
public:
    explicit Engine(EngineOptions options);
    ~Engine();
    Engine(const Engine&) = delete;
    Engine& operator=(const Engine&) = delete;

    const DeviceInfo& device() const;
    Preset preset() const;
    const EngineOptions& options() const;

    // Never throws for problems of the task itself: they are reported in TaskResult::error with
    // the task id and the cause. Throws Cancelled when cancelled.
    TaskResult runTask(const TaskSpec& spec);
    // The tasks the caller will run after the next runTask, in order: the first
    // EngineOptions::drawAheadTasks of them are drawn while that one runs (EngineOptions::drawAhead).
    // runAll sets them itself. The specs must outlive that runTask call.
    void setUpcoming(std::vector<const TaskSpec*> next);
    // The tasks whose operands are being drawn ahead now, in order.
    std::vector<std::string> drawingAhead() const;

    using StartFn = std::function<void(const TaskSpec&, int index, int total)>;
    // Returns whether to go on: false ends the run after that task (the rest are not run, and
    // the run is not cancelled; the filter's worker ends so when it holds too much memory).
    using DoneFn = std::function<bool(const TaskResult&, int index, int total)>;
    // Runs tasks in order; a cancel stops after the current seed and keeps finished tasks.
    RunResults runAll(const std::vector<TaskSpec>& tasks, const std::string& suiteName,
                      const Thresholds& thresholds, const StartFn& onStart = {},
                      const DoneFn& onDone = {});
    RunInfo runInfo(const std::string& suiteName) const;

    // The device ceilings filter 5 uses, from the cache or measured on the first call (seconds on
    // a CPU without a cache). Null when filter 5 is off or they could not be measured
    // (ceilingsError() says why; every inefficiency report then carries that error).
    const DeviceCeilings* ceilings();
    const std::string& ceilingsError() const;

private:
    struct Impl;
    std::unique_ptr<Impl> d;
};

std::string isoTimeNow();

} // namespace ks
