// SPDX-License-Identifier: MIT
#pragma once
// The compiled PyTorch baseline (issue 12): each task made by PyTorch Inductor ahead of time
// (torch.export + AOTInductor, resources/importer/aoti_compile.py, run sandboxed in a Python with
// torch), cached by everything that shapes the package, and loaded by the harness workers with
// LibTorch's AOTIModelPackageLoader (baselines/aotimodel.h). No torch in this header.

#include "ks/core/taskspec.h"

#include <atomic>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace ks {

struct BaselineCompileOptions {
    std::string cacheDir;        // empty = defaultBaselineCacheDir()
    std::string python;          // empty = $KS_PYTHON, python3 on PATH, the build's Python
    std::string script;          // empty = aoti_compile.py installed or in the source tree
    std::string device = "cuda"; // "cuda" or "cpu": where the package runs
    std::string deviceName;      // part of the cache key (a package is tuned to its GPU)
    Preset preset = Preset::Full;
    std::map<std::string, int64_t> dims; // the run's `--dim` sizes
    int jobs = 0;                // parallel compiles; 0 = a quarter of the cores (at least 1)
    double timeoutSeconds = 1800;
};

struct BaselineCompileResult {
    std::string taskId;
    bool ok = false, cacheHit = false;
    double seconds = 0;       // this compile's wall time (0 for a hit)
    std::string key;          // SHA-256 of everything that shapes the package
    std::string packagePath;  // when ok: the extracted model folder (beside it, model.pt2)
    std::string exportMethod; // "ts2ep" | "python"
    std::string error;        // why not: the stage and the exporter's or compiler's message
    std::string log;          // the compile log's tail
};

std::string defaultBaselineCacheDir(); // $KS_BASELINE_CACHE, else $XDG_CACHE_HOME or ~/.cache /kernelsieve/baselines

// The Python used for compiling and its torch version ("python3", "2.11.0"); throws ks::Error
// naming what was tried when none imports torch.
struct TorchPython {
    std::string python, torchVersion;
};
TorchPython findTorchPython(const std::string& given);

// Compiles (or finds in the cache) the package of each task, in parallel; result i belongs to
// tasks[i]. Never throws for a task's problem (it is in its result); a missing Python or script
// makes every result a failure naming it.
using BaselineCompileProgress = std::function<void(const BaselineCompileResult&, int done, int total)>;
std::vector<BaselineCompileResult> compileBaselines(const std::vector<TaskSpec>& tasks, const BaselineCompileOptions& opt,
                                                    const BaselineCompileProgress& progress = {},
                                                    const std::atomic<bool>* cancel = nullptr);

// The spec aoti_compile.py reads: the task's TorchScript and its argument shapes at the preset.
std::string baselineCompileSpec(const TaskSpec& task, const BaselineCompileOptions& opt);

// The baselines a run may time, in the order given; throws ks::Error on an unknown name or a
// list without "eager" (every speedup is defined against it).
std::vector<std::string> parseBaselines(const std::string& list);

} // namespace ks
