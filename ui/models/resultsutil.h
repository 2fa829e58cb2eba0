// SPDX-License-Identifier: MIT
#pragma once
// Small conversions between engine value structs and what the views need, kept out of widgets
// so that the model tests cover them.

#include "metatypes.h"

#include <ks/core/benchresults.h>
#include <ks/core/suite.h>

#include <QList>
#include <QString>
#include <QStringList>

#include <optional>
#include <vector>

namespace ResultsUtil {

// A suite's tasks as "not run" rows (identity, source and spec only), so that opening a suite
// shows what a run would cover before anything was measured.
ks::RunResults resultsFromSuite(const ks::Suite& suite);

// The tasks at `rows` (in that order), with the run info and thresholds of `results`.
ks::RunResults subset(const ks::RunResults& results, const QList<int>& rows);

// One task's metrics as a JSON document, with the flags under `thresholds` and the thresholds.
std::string taskMetricsJson(const ks::TaskResult& task, const ks::Thresholds& thresholds);

// The source line a researcher wants to see first: that of the best equal rewrite when it flags
// the task (filter 5), else of the first redundant node with a line when filter 6 flags it, else
// of any rewrite or redundant node found; 0 when none names a line.
int flaggedSourceLine(const ks::TaskResult& task, const ks::Thresholds& thresholds);

// Where the task's time and memory went, as rich text for a tooltip: the phases (statistics,
// filter 6, filter 5), drawing the operands (host threads, time waited), uploads, the sets drawn
// and reused, peak host and GPU memory. Only what the file records; older files: the wall time.
QString timingSummary(const ks::TaskResult& task);

// Labels of the criteria that flag `task`, e.g. {"Output Std", "Output Axes"}.
QStringList flaggedCriteria(const ks::TaskResult& task, const ks::Thresholds& thresholds);

// One bar of a speedup chart: the baseline (1x) or one kernel variant.
struct SpeedupBar {
    // Cheat: a guard fired (stale memory, replay, async work, ...): the time is not the task's.
    // Failed: a wrong result no guard explains, or a crash. Shortcut / Impossible: built-in
    // variants that declare a shortcut, or run faster than the measured ceiling allows.
    enum class Kind { Baseline, Passed, Failed, Shortcut, Impossible, NotRun, Cheat };
    QString taskId;
    QString label; // "baseline", "v1 naive", ... (external kernels: their name)
    Kind kind = Kind::NotRun;
    double speedup = ks::NaN;             // baseline median / variant median
    // The error bar: the bootstrap 95 % interval of the speedup where the bench file has it
    // (`interval`), else from the variant's IQR: base / q3, base / q1.
    double low = ks::NaN, high = ks::NaN;
    bool interval = false;
    bool noDifference = false; // the interval holds 1: no measurable difference
    QString note;                         // why failed / not run / impossible / a cheat
    QString summary;                      // what the variant changes ("one pass with online max")
    QString verdict;                      // ks::variantVerdict; empty for the baseline
    QStringList guards;                   // guards that fired, "library" included
    bool library = false;                 // valid, but no CUDA kernel of its own ran
    // Which row of the task it is: a baseline ("eager", "compiled", "graph"; `variant` -1) or
    // the variant task.variants[variant] (`baseline` empty).
    QString baseline;
    int variant = -1;
};
// The eager baseline, the task's other baselines (compiled, graph: their speedup over eager),
// then every variant.
std::vector<SpeedupBar> speedupBars(const ks::TaskBench& task);
// "PyTorch eager", "compiled (AOTInductor)", "eager in a CUDA graph".
QString baselineName(const QString& kind);
// "2000 runs in 10 interleaved blocks; SM clock 1980-1980 MHz (NVML), 0 blocks moved", or what
// the file lacks; empty for a timing with nothing recorded.
QString clockSummary(const ks::TimingStats& t);
// "2.40x over compiled (AOTInductor): 95 % interval [2.40, 2.40] (2000 bootstrap resamples),
// Mann-Whitney U p = 1.2e-300; its median 0.3278 ms"; empty when nothing was measured.
QString speedupStatsText(const ks::SpeedupStats& s, const QString& baseline, double baselineMedianMs);
// "v3", "v2 online": the variant's version and its name without the op prefix the kernel
// registry puts on every name ("softmax_kernel2" -> "v2"). External kernels have no version
// (and their task may have no op): their name as given.
QString variantLabel(const ks::TaskBench& task, const ks::VariantResult& variant);
QString speedupKindName(SpeedupBar::Kind kind);

// Guards that fired for `v`, in its order, with `impossible-speed` for a built-in variant's
// impossible flag (it has no guard entry of its own), "library" included.
QStringList guardNames(const ks::VariantResult& v);

// What the verdict column shows: the verdict, "valid · library" for a kernel that ran no
// CUDA kernel of its own, "valid · shortcut" for a built-in shortcut.
QString verdictText(const ks::VariantResult& v);

// ks::verdictDetail, except that a compile error names the compiler's first error line: the
// core takes the first line holding "error", which can be a warning about a file whose name
// holds it ("compile_error.cu(14): warning ...").
QString verdictDetail(const ks::VariantResult& v);
// The first line of a compiler log that reports an error (nvcc "f.cu(23): error: ...", gcc
// "f.cpp:3:10: fatal error: ...", ptxas "ptxas error   : ..."); empty if none does.
QString firstCompilerError(const std::string& log);

// The corpus manifest's `expect` against the verdict: true (agrees), false (disagrees), or
// nothing when there is no expectation or it is not one this version knows. `library` needs
// the library guard (`valid` accepts a library kernel: it is valid); `cheat:<guard>` needs that
// guard; any other verdict is compared by name (`invalid`, `failed`, `compile-error`, ...).
std::optional<bool> expectMet(const ks::VariantResult& v);

} // namespace ResultsUtil
