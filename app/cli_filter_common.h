// SPDX-License-Identifier: MIT
#pragma once
// What the filter command's two sides share: the options, the exit codes, --criteria and the
// thresholds. The driver (cli_filter.cpp) links no LibTorch; the worker (cli_filter_worker.cpp)
// runs the engine.

#include "ks/core/criteria.h"

#include <atomic>
#include <functional>
#include <string>
#include <vector>

namespace ks::cli::filter {

enum Exit { Ok = 0, Usage = 2, BadSuite = 3, BadDevice = 4, WriteFailed = 5, Cancelled = 130 };

struct FilterArgs {
    std::string suite = "builtin", preset, device = "auto", profile, out = "results.json", csv, pattern;
    std::string criteria = "all", rng = "cpu";
    std::vector<std::string> thresholds;
    int seeds = 5;
    int drawThreads = 0;
    double hostMemoryGiB = 0;
    bool noDrawAhead = false;
    int drawAheadTasks = 2; // measured: bench/engine/RESULTS.md (2026-12-02, fifth session)
    bool remeasure = false, jsonl = false, quiet = false, noOut = false, force = false, resume = false;
    double taskTimeout = 3600;
    std::string shard; // "K/N"
    std::string devices; // --devices all|0,1,...: one worker per GPU
    int workersPerGpu = 1; // --workers-per-gpu N: N workers share each GPU (their timings kept apart)
    // --worker-memory GIB: a worker that holds more than this beyond its page-locked operand blocks
    // at a task's end is replaced by a fresh one for the tasks after it; 0: the driver's default
    // (workerMemoryDefault), which it passes on to the workers resolved.
    double workerMemoryGiB = 0;
    // The worker side (hidden): the protocol fd, the file of task ids to run, and (with several
    // workers on its GPU) how many share it and the folder of that GPU's locks (ks::GpuGate).
    int workerFd = -1;
    std::string taskIdsFile;
    int gpuShare = 1;
    std::string gpuGate;
};

// Which filters run (--criteria).
struct Criteria {
    bool statistics = true, inefficiency = true, redundancy = true;
};

// Throws ks::Error naming the bad profile or override.
ks::Thresholds resolveThresholds(const std::string& profile, const std::vector<std::string>& overrides);
// --criteria: which filters run. "stat" is filters 1-4 (one pass over the seeds measures all
// four), "inefficiency" filter 5, "redundancy" filter 6; criterion keys work too. Throws ks::Error.
void applyCriteria(const std::string& list, Criteria& c);
// A JSON string literal (invalid UTF-8 replaced).
std::string jsonString(const std::string& s);
double epochSeconds();

// The worker's side: runs the tasks of --task-ids in this process, reports on --worker-fd.
int runWorker(const FilterArgs& a, std::atomic<bool>& cancel);

} // namespace ks::cli::filter
