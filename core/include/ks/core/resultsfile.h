// SPDX-License-Identifier: MIT
#pragma once
// Where a filter run's results go, so that none is ever lost: the output is checked before the
// first task runs, a lock keeps two runs off one file, a results file of another run is never
// replaced without --force, finished tasks go to an append-only journal (PATH.journal) that
// survives kill -9 and a full disk, the final file is written once, atomically, keeping the
// previous one as PATH.bak, and a run that died can be resumed from its journal.

#include "ks/core/results.h"

#include <string>
#include <vector>

namespace ks {

struct ResultsSinkOptions {
    bool force = false;  // replace a results file of another run, discard an unfinished journal
    bool resume = false; // continue the unfinished run journaled next to the output
};

class ResultsSink {
public:
    // Checks that the folder exists and is writable and takes the lock; with `resume`, reads the
    // journal. Throws ks::Error saying what is wrong and what to do (another run holds the lock,
    // an unfinished journal exists, the folder is read-only...).
    ResultsSink(std::string requestedPath, ResultsSinkOptions opt);
    ~ResultsSink();
    ResultsSink(const ResultsSink&) = delete;
    ResultsSink& operator=(const ResultsSink&) = delete;

    // Tasks the resumed journal already holds (empty without --resume).
    const std::vector<TaskResult>& resumedTasks() const { return m_resumed; }
    // The journal's run, to check a resumed run against (null without --resume).
    const RunInfo* resumedRun() const { return m_resume ? &m_resumedRun : nullptr; }

    // Before the first task, once the run's device and preset are known: decides the final path
    // (the requested one, or one next to it when that holds another run and there is no --force)
    // and starts the journal. `plannedIds` are the tasks this run will produce (with the resumed
    // ones). Throws ks::Error when a resumed run differs from its journal's.
    void begin(const RunInfo& run, const Thresholds& thresholds, const std::vector<std::string>& plannedIds);
    const std::string& path() const { return m_path; }
    // Why path() is not the requested path, empty when it is.
    const std::string& note() const { return m_note; }

    // One finished task: a line appended and flushed to disk. Throws ks::Error (disk full...).
    void append(const TaskResult& task);
    // The same, for a task already serialised by taskResultToJson.
    void appendJson(const std::string& taskJson) { writeLine(taskJson); }
    // The whole run, written once (PATH.bak keeps the file it replaces); removes the journal.
    void finish(const RunResults& results);

    static std::string journalPath(const std::string& resultsPath) { return resultsPath + ".journal"; }
    static std::string lockPath(const std::string& resultsPath) { return resultsPath + ".lock"; }

private:
    std::string m_requested, m_path, m_note;
    ResultsSinkOptions m_opt;
    int m_lockFd = -1;
    int m_journalFd = -1;
    bool m_resume = false;
    RunInfo m_resumedRun;
    std::vector<TaskResult> m_resumed;

    void checkJournal();
    void readJournal();
    void writeLine(const std::string& line);
};

// Why an existing results file must not be replaced by `run` over `plannedIds`: another suite,
// device, preset, seed count or seed semantics, or tasks this run would drop. Empty when a
// re-run may replace it.
std::string resultsConflict(const RunResults& existing, const RunInfo& run, const std::vector<std::string>& plannedIds);

} // namespace ks
