// SPDX-License-Identifier: MIT
#pragma once
// Kernels written by someone else (docs/external-kernels.md): finding them (a file, a folder
// laid out by task, a kernels.json manifest, robust-kbench task folders), turning a ModelNew
// file into sources + a call plan (through the Python capture script), and compiling them with
// nvcc against the LibTorch headers into a cached kernel.so. No torch in this header: the
// compile step runs on machines without a GPU (`--compile-only`).

#include "ks/core/suite.h"

#include <atomic>
#include <functional>
#include <string>
#include <vector>

namespace ks {

// One argument of the call: a task input, a task parameter, or a literal (JSON text).
struct CallArg {
    enum class Kind { Input, Param, Value };
    Kind kind = Kind::Input;
    int index = -1;        // into the task's inputs or params
    std::string name;      // the input's or parameter's name
    std::string valueJson; // Value: a number, bool, null or list of ints, as JSON
    std::string describe() const; // "input x", "param conv.weight", "1e-05"
};

struct ExternalKernel {
    std::string name;     // unique per task
    std::string file;     // absolute path of the kernel file
    std::string format;   // "torch-extension" | "modelnew" | "robust-kbench"
    std::string taskId;   // resolved against the suite; empty when `error` says why
    std::string function = "forward";
    std::vector<CallArg> args; // resolved call plan
    std::vector<std::string> nvccFlags;
    std::string expect;
    std::string error;    // could not be placed or captured: a per-kernel result, the rest goes on
    // What nvcc compiles: (file name, contents). A torch-extension .cu is itself; a ModelNew is
    // the main.cpp + cuda.cu that load_inline would have written.
    std::vector<std::pair<std::string, std::string>> sources;
};

struct DiscoverOptions {
    std::string tasksPattern; // --tasks: a single kernel file needs exactly one task
    std::string python;       // for ModelNew capture; empty = the Python LibTorch came from
    std::string captureScript; // kernel_capture.py; empty = found beside the binary / source tree
    double captureTimeoutSeconds = 120;
};

// Finds every kernel under `path` for tasks of `suite`. Throws ks::Error when `path` itself is
// unusable (missing, an unreadable or invalid manifest); a kernel that cannot be placed or
// captured is returned with `error` set, never dropped. `warnings` collects skipped files.
std::vector<ExternalKernel> discoverKernels(const std::string& path, const Suite& suite, const DiscoverOptions& opt,
                                            std::vector<std::string>* warnings = nullptr);

// The default call plan: every input, then every parameter, in the task's order.
std::vector<CallArg> defaultCallPlan(const TaskSpec& spec);
// Resolves manifest `args` (names of inputs/params, or literals) against the task; throws ks::Error.
std::vector<CallArg> resolveCallPlan(const TaskSpec& spec, const std::string& argsJson);
std::string callPlanToJson(const std::vector<CallArg>& plan);
std::vector<CallArg> callPlanFromJson(const std::string& text);

struct CompileOptions {
    std::string cacheDir;      // empty = defaultKernelCacheDir()
    std::string nvcc;          // empty = found (build-time nvcc, PATH, /usr/local/cuda/bin)
    std::string arch = "90";   // sm_XX
    int jobs = 0;              // 0 = hardware threads
    double timeoutSeconds = 600;
};

struct CompileResult {
    bool ok = false;
    bool cacheHit = false;
    double seconds = 0;  // this compile's wall time (0 for a hit)
    std::string key;     // SHA-256 of sources + flags + toolchain
    std::string soPath;  // kernel.so when ok
    std::string log;     // compiler output (its tail)
};

std::string defaultKernelCacheDir();
std::string sha256Hex(const std::string& data);

// Compiles each kernel without `error` (parallel, cached, each with a timeout); the result i
// belongs to kernels[i]. Kernels with `error` get a failed result carrying it.
using CompileProgress = std::function<void(const ExternalKernel&, const CompileResult&, int done, int total)>;
std::vector<CompileResult> compileKernels(const std::vector<ExternalKernel>& kernels, const CompileOptions& opt,
                                          const CompileProgress& progress = {},
                                          const std::atomic<bool>* cancel = nullptr);

} // namespace ks
