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

#include <vector>

namespace ResultsUtil {

// A suite's tasks as "not run" rows (identity, source and spec only), so that opening a suite
// shows what a run would cover before anything was measured.
ks::RunResults resultsFromSuite(const ks::Suite& suite);

// The tasks at `rows` (in that order), with the run info and thresholds of `results`.
ks::RunResults subset(const ks::RunResults& results, const QList<int>& rows);

// One task's metrics as a JSON document, with the flags under `thresholds` and the thresholds.
std::string taskMetricsJson(const ks::TaskResult& task, const ks::Thresholds& thresholds);

// Labels of the criteria that flag `task`, e.g. {"Output Std", "Output Axes"}.
QStringList flaggedCriteria(const ks::TaskResult& task, const ks::Thresholds& thresholds);

// One bar of a speedup chart: the baseline (1x) or one kernel variant.
struct SpeedupBar {
    enum class Kind { Baseline, Passed, Failed, Shortcut, Impossible, NotRun };
    QString taskId;
    QString label; // "baseline", "v1 naive", ...
    Kind kind = Kind::NotRun;
    double speedup = ks::NaN;             // baseline median / variant median
    double low = ks::NaN, high = ks::NaN; // from the variant's IQR: base / q3, base / q1
    QString note;                         // why failed / not run / impossible
    QString summary;                      // what the variant changes ("one pass with online max")
};
std::vector<SpeedupBar> speedupBars(const ks::TaskBench& task);
// "v3", "v2 online": the variant's version and its name without the op prefix the kernel
// registry puts on every name ("softmax_kernel2" -> "v2").
QString variantLabel(const ks::TaskBench& task, const ks::VariantResult& variant);
QString speedupKindName(SpeedupBar::Kind kind);

} // namespace ResultsUtil
