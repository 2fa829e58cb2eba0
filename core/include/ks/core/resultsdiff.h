// SPDX-License-Identifier: MIT
#pragma once
// Two results files side by side: the tasks of either, per criterion the flag in A and in B under
// each side's thresholds, and the metric delta. One implementation for `kernelsieve-cli diff` and
// the workbench's compare view (heaptrack's rule: the CLI proves the core never needs the UI).
// No torch, no Qt.
//
// A flag "differs" only where both files measured the criterion and one flags it while the other
// does not; a task or criterion that only one side measured (another task list, a run without
// filters 5-6, a failed task) is listed, but is no flag difference.

#include "ks/core/results.h"

#include <array>
#include <string>
#include <vector>

namespace ks {

enum class FlagState { Missing, NotRun, Error, Passed, Flagged };
const char* flagStateName(FlagState s); // "missing", "not run", "error", "passed", "flagged"
// A task's state for one criterion under `t`; Missing for a null task.
FlagState flagState(const TaskResult* task, Criterion c, const Thresholds& t);
// What a cell shows, without the flag mark: the metric ("0.0098"), for filters 5-6 the reason
// ("51.1x diag-matmul", "99.6%, 4 ops"), "error", "not run" or "missing".
std::string flagCellText(const TaskResult* task, Criterion c, const Thresholds& t);

struct CriterionDiff {
    FlagState a = FlagState::Missing, b = FlagState::Missing;
    double metricA = NaN, metricB = NaN; // TaskResult::metric(c, that side's thresholds)
    // Empty: metricA/B are the criterion's metric (criterionInfo(c).metricLabel). Filter 5's verdict
    // can turn on another rule than its metric (best rewrite speedup): when the flagged side is
    // flagged by efficiency or passes alone, metricA/B are that rule's quantity, named here
    // ("efficiency", "passes").
    std::string metricName;
    // That side's verdict is borderline under its thresholds (TaskResult::borderline: within
    // borderline_margin of a threshold or of filter 5's launch-bound limit, or resting on the
    // host's dispatch): a flag that differs there may be run-to-run noise rather than a change.
    bool borderlineA = false, borderlineB = false;
    bool measuredA() const { return a == FlagState::Passed || a == FlagState::Flagged; }
    bool measuredB() const { return b == FlagState::Passed || b == FlagState::Flagged; }
    bool differs() const { return measuredA() && measuredB() && a != b; }
    // B - A, NaN unless both measured it.
    double delta() const { return measuredA() && measuredB() ? metricB - metricA : NaN; }
};

struct TaskDiff {
    std::string id, name, category;
    int level = 0, number = 0;
    int indexA = -1, indexB = -1; // into RunResults::tasks of each side; -1 when absent
    std::array<CriterionDiff, CriterionCount> criteria{};
    bool anyFlagA = false, anyFlagB = false;
    int differingCount() const;
    bool differs() const { return differingCount() > 0; }
    bool inA() const { return indexA >= 0; }
    bool inB() const { return indexB >= 0; }
};

// A run setting or threshold on which the two files differ: {"seeds", "5", "100"}.
struct RunDifference {
    std::string what, a, b;
};

struct ResultsDiff {
    std::vector<TaskDiff> tasks; // A's order, then the tasks only B has, in B's order
    std::vector<RunDifference> run;
    std::array<int, CriterionCount> flaggedA{}, flaggedB{}, differing{};
    int differingTasks = 0, onlyInA = 0, onlyInB = 0;
    bool anyDiffers() const { return differingTasks > 0; }
};

// `ta` / `tb`: the thresholds each side is judged by (each file's own, a profile for both, ...).
ResultsDiff diffResults(const RunResults& a, const Thresholds& ta, const RunResults& b,
                        const Thresholds& tb);
// The flags and counts again under new thresholds, keeping the task union: O(tasks), no lookup
// by id (the compare view re-thresholds on every edit of the panel).
void rethresholdDiff(ResultsDiff& d, const RunResults& a, const Thresholds& ta, const RunResults& b,
                     const Thresholds& tb);

// One line: "suite 'builtin', cuda (NVIDIA H200), preset full, 5 seeds, 122 tasks".
std::string describeResults(const RunResults& r);

// CSV, one row per task of either file: Task ID, Task Name, Level, Category, In A, In B, Status
// A, Status B, Differs (True when some flag differs), Differing Criteria (keys, ';'-separated),
// Any Flag A, Any Flag B, then per criterion `<key>_a`, `<key>_b` (True/False, empty when not
// measured), `<key>_metric_a`, `<key>_metric_b`, `<key>_delta`, then baseline_inefficiency_metric,
// Borderline A, Borderline B (the keys of the criteria borderline on that side). RFC 4180, CRLF
// line ends.
std::string resultsDiffToCsv(const ResultsDiff& d, const RunResults& a, const RunResults& b);
// The terminal report: both runs, what differs between them, flag counts per criterion, then one
// line per differing flag (task, criterion, A, B, delta; "FLAG~" / "ok~" where that side is
// borderline, with a count of those after the lines). `nameA` / `nameB` label the sides.
std::string resultsDiffToText(const ResultsDiff& d, const RunResults& a, const Thresholds& ta,
                              const std::string& nameA, const RunResults& b, const Thresholds& tb,
                              const std::string& nameB);

} // namespace ks
