// SPDX-License-Identifier: MIT
// Results files (`filter --results`, the GUI's Open) and the worker protocol's lines (one task
// result or the run info per line): resultsFromJson, taskResultFromJson, runInfoFromJson. Each
// text goes to all three, since the corpus holds whole files, single task entries and run objects.
// What a loaded file is then used for runs too: the CSV, the terminal table, re-writing it.

#include "fuzz.h"
#include "ks/core/results.h"

using namespace ks;

namespace {

void results(const std::string& text) {
    RunResults r;
    try {
        r = resultsFromJson(text, "fuzz.json");
    } catch (const Error&) {
        return;
    }
    resultsToCsv(r, r.thresholds);
    resultsToTable(r, r.thresholds);
    resultsToCsv(r, Thresholds::defaults());
    fuzz::checkRoundTrip(
        "results", resultsToJson(r),
        [](const std::string& t) { return resultsFromJson(t, "w.json"); },
        [](const RunResults& x) { return resultsToJson(x); });
}

void taskResult(const std::string& text) {
    TaskResult t;
    try {
        t = taskResultFromJson(text, "line 1");
    } catch (const Error&) {
        return;
    }
    const Thresholds d = Thresholds::defaults();
    for (const auto& c : criteria()) {
        t.metric(c.criterion, d);
        t.flagged(c.criterion, d);
    }
    t.borderline(d);
    fuzz::checkRoundTrip(
        "task result", taskResultToJson(t),
        [](const std::string& s) { return taskResultFromJson(s, "line 2"); },
        [](const TaskResult& x) { return taskResultToJson(x); });
}

void runInfo(const std::string& text) {
    RunInfo r;
    try {
        r = runInfoFromJson(text, "worker");
    } catch (const Error&) {
        return;
    }
    fuzz::checkRoundTrip(
        "run info", runInfoToJson(r), [](const std::string& s) { return runInfoFromJson(s, "w"); },
        [](const RunInfo& x) { return runInfoToJson(x); });
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string text = fuzz::text(data, size);
    results(text);
    taskResult(text);
    runInfo(text);
    return 0;
}
