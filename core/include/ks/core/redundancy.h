// SPDX-License-Identifier: MIT
#pragma once
// Filter 6, redundant computation: dataflow and ablation on a task's TorchScript graph.
// Plain result structs, no torch here (the analysis itself lives in redundancy.cpp), so the CLI
// and, later, the GUI can include it cheaply. docs/redundancy.md describes the method.

#include "ks/core/taskspec.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace torch::jit {
struct Graph;
}

namespace ks {

class OperandSource; // ks/core/operands.h (engine side)
struct CompiledTask;  // ks/core/torchtask.h (engine side)

// One graph node whose work does not reach the output, or reaches it without changing it.
struct RedundantNode {
    enum class Kind {
        Dead,           // its values never reach the output (at most its shape does)
        NoEffect,       // bypassing it (output := one of its inputs) leaves the output unchanged
        Duplicate,      // same op on the same inputs as an earlier node; reusing that one changes nothing
        ConstantOutput, // its output is one constant on every seed and element, whatever the inputs
        FeedsRedundant, // live in the task, but only feeds nodes found redundant above
    };
    Kind kind = Kind::Dead;
    std::string op;         // "aten::relu"
    int line = 0;           // 1-based line in the task source (0: unknown)
    std::string sourceText; // that line, trimmed
    std::string reason;     // human-readable, e.g. "bypassed by its input %h: output unchanged on 3 seeds"
    std::string node;       // the node as TorchScript prints it, for the curious
    double flops = 0;       // estimated FLOPs of this node at the analysed preset
    double bytes = 0; // bytes a removable copy (clone, contiguous) reads and writes; 0 otherwise
};
// Kind keys ("dead", "no-effect", ...): redundantKindName in analysisreports.h (torch-free).

// A task input or parameter whose values the output never depends on.
struct UnusedArgument {
    std::string name;
    bool isParam = false;
    std::string reason; // "never used", "only its shape is used", "only feeds redundant ops"
};

struct RedundancyOptions {
    std::string device = "auto";  // auto | cpu | cuda
    std::optional<Preset> preset; // default: full on CUDA, small on CPU (as the engine)
    int seeds = 3;                // random seeds 0..seeds-1; plus one all-zero-input run for bypasses
    // "Unchanged" means within the validation bar of the seed (|d| < 1e-5 + 1e-4 |ref|): an op
    // whose removal passes the benchmark's own correctness check is removable by a kernel author.
    double rtol = 1e-4;
    double atol = 1e-5;
    // Keep RedundancyReport::reducedGraph (the engine sets it for filter 5; it may hold a constant
    // tensor of the output's size on the device, so a caller that keeps many reports leaves it off).
    bool keepReducedGraph = false;
    // The seeds' operands: the engine passes its task's (drawn once for every filter); null: drawn
    // here, on the CPU generator (as the engine draws them) unless cpuGenerator is false.
    OperandSource* operands = nullptr;
    bool cpuGenerator = true;
    // The task as the engine compiled it for the statistics (its artifact loaded on each device
    // once): used as it is; null: compiled (loaded) here.
    const CompiledTask* compiled = nullptr;
    // Check runs from a cut: a candidate's check runs only the graph after the latest cut before
    // it, from the values the unchanged graph before the cut computed (saved once). Same verdicts,
    // less work (docs/redundancy.md). cutBytes bounds what is saved (on the analysis's device);
    // KS_CUT_RUNS=0 in the environment turns it off (a reference for benchmarks).
    bool cutRuns = true;
    long long cutBytes = 1LL << 30;
    // Runs go node by node through each node's operation, without building interpreter code for
    // every candidate's graph; graphs with nested blocks (or a node the interpreter handles itself)
    // build code as before. Same results, less host work per check (docs/redundancy.md).
    // KS_NODE_RUNS=0 in the environment turns it off (a reference for benchmarks).
    bool nodeRuns = true;
    // The check runs' arguments (each seed's inputs and parameters, and the all-zero-input run's)
    // are all held on the device, unless they would not fit in `deviceBytes` (0: unknown) beside a
    // forward, or holding them ran out of memory: then one run's at a time, fetched again from
    // the operands when a check needs another, its reference output recomputed (same verdicts,
    // fewer device bytes; KernelBench level 1's 16 GiB inputs on an 80 GiB GPU). oneCheckSet
    // forces that (tests and benchmarks).
    long long deviceBytes = 0;
    bool oneCheckSet = false;
    // Tests: check run number N (from 1) of a try holding every set throws out-of-memory, as a
    // device too small for them would (0: never).
    int outOfMemoryAtCheckRun = 0;
    // Tests: saving the cuts' values for check run number N (from 1) of a try that saves them for
    // every check run throws out-of-memory (0: never).
    int outOfMemoryAtCutSave = 0;
};

struct RedundancyReport {
    std::string taskId, taskName;
    std::string device; // "cpu" | "cuda"
    Preset preset = Preset::Small;
    int seeds = 0;
    std::vector<RedundantNode> nodes;
    std::vector<UnusedArgument> unused;
    int opsExamined = 0;   // op nodes tried by ablation
    double totalFlops = 0; // estimated FLOPs of the whole graph
    double redundantFlops = 0;
    int checkRuns = 0;        // graph runs of the ablation's checks (in memory only)
    int checkRunsFromCut = 0; // of them, runs of only the graph after a cut
    int checkRunsByNode = 0;  // of them, runs node by node (no interpreter code built)
    bool oneCheckSet = false; // one check run's arguments on the device at a time (RedundancyOptions)
    int referenceRuns = 0;    // of the one-set mode: reference outputs recomputed after a fetch
    std::vector<std::string> notes; // what was skipped and why
    std::string error;              // non-empty: the analysis failed (message names the task)
    double wallSeconds = 0;

    // The task's graph with what was found removed (constants folded in, bypasses applied, dead
    // code eliminated), for filter 5's "drop-redundant" rewrite. In memory only: never written to
    // a results file; the engine drops it once filter 5 has run.
    std::shared_ptr<torch::jit::Graph> reducedGraph;

    double flopFraction() const { return totalFlops > 0 ? redundantFlops / totalFlops : 0.0; }
    bool hasRedundancy() const { return !nodes.empty() || !unused.empty(); }
};

// Never throws for problems of the task itself (they land in `error`); throws ks::Error for a bad
// device request.
RedundancyReport analyzeRedundancy(const TaskSpec& spec, const RedundancyOptions& options = {});

std::string redundancyReportsToJson(const std::vector<RedundancyReport>& reports, const RedundancyOptions& options);

} // namespace ks
