// SPDX-License-Identifier: MIT
#include "cli_filter.h"
#include "cli_common.h"
#include "cli_filter_common.h"

#include "ks/core/analysisreports.h"
#include "ks/core/devices.h"
#include "ks/core/gpugate.h"
#include "ks/core/inefficiency.h"
#include "ks/core/sandbox.h"
#include "ks/core/procinfo.h"
#include "ks/core/process.h"
#include "ks/core/results.h"
#include "ks/core/resultsfile.h"
#include "ks/core/resultsmerge.h"
#include "ks/core/suite.h"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <thread>
#include <optional>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <fcntl.h>

namespace ks::cli {
using namespace filter;

namespace {

// LibTorch's words for an allocation that failed, on CUDA and on the CPU.
bool isOutOfMemory(const std::string& error) {
    for (const char* m : {"out of memory", "OutOfMemoryError", "not enough memory", "can't allocate memory"})
        if (error.find(m) != std::string::npos) return true;
    return false;
}

// --worker-memory's default, GiB: a quarter of this host's memory shared by the workers it runs at
// once, at least 4 GiB (a worker's libraries alone hold about 2).
double workerMemoryDefault(size_t workers) {
    const double gib = double(ks::procBytes("/proc/meminfo", {"MemTotal"})[0]) / double(int64_t{1} << 30);
    return std::max(4.0, gib / 4.0 / double(std::max<size_t>(1, workers)));
}

std::string gibText(double bytes) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3g GiB", bytes / double(int64_t{1} << 30));
    return buf;
}

std::string verdictLine(const ks::TaskResult& r, const ks::Thresholds& th) {
    std::string flags;
    for (const auto& c : ks::criteria()) {
        if (!r.flagged(c.criterion, th)) continue;
        flags += (flags.empty() ? "" : ",") + std::string(c.key);
        // Filters 5-6 say why: "baseline_inefficiency (34.5x diag-matmul)".
        // An efficiency flag says how much of the eager time was the host's dispatch, where the
        // CUDA-graph replay measured it: such a verdict moves with the host (docs/inefficiency.md).
        if (c.criterion == ks::Criterion::BaselineInefficiency) {
            std::string why = ks::inefficiencySummary(*r.inefficiency, th);
            if (const std::string host = ks::inefficiencyDispatchNote(*r.inefficiency, th); !host.empty())
                why += "; " + host;
            flags += " (" + why + ")";
        }
        if (c.criterion == ks::Criterion::RedundantComputation)
            flags += " (" + ks::redundancySummary(*r.redundancy) + ")";
    }
    std::string verdict = r.status != ks::TaskStatus::Ok ? "ERROR " + r.error
                          : flags.empty()                  ? std::string("no flags")
                                                           : "flagged: " + flags;
    for (ks::Criterion c : {ks::Criterion::BaselineInefficiency, ks::Criterion::RedundantComputation})
        if (const std::string e = r.criterionError(c); !e.empty())
            verdict += "; " + std::string(ks::criterionInfo(c).key) + " failed: " + e;
    return verdict;
}

// ---------------------------------------------------------------------------------------------
// The command: plans, starts workers, enforces the per-task timeout, saves.
class Driver {
public:
    Driver(const FilterArgs& a, std::atomic<bool>& cancel, std::atomic<bool>& kill)
        : m_a(a), m_cancel(cancel), m_kill(kill) {}
    int run();

private:
    const FilterArgs& m_a;
    std::atomic<bool>& m_cancel;
    std::atomic<bool>& m_kill;
    ks::Thresholds m_th;
    Criteria m_criteria; // which filters run (--criteria), parsed once
    ks::Suite m_suite;
    std::vector<ks::TaskSpec> m_tasks;
    std::map<std::string, size_t> m_index; // task id -> position in m_tasks
    std::map<size_t, ks::TaskResult> m_done;
    std::unique_ptr<ks::ResultsSink> m_sink;
    ks::RunInfo m_info;
    bool m_started = false;
    bool m_cancelled = false;
    bool m_sinkFailed = false; // begin() refused: nothing may be written
    int m_shardK = 0, m_shardN = 0;
    int m_rc = Exit::Ok;
    // --devices: one worker per GPU, fed task by task from m_queue (positions in m_tasks, in
    // order); m_mu guards the queue and everything record() and onStart() touch.
    std::vector<ks::GpuSlot> m_gpus;
    std::string m_workerDevice; // what the workers are told (--device; cuda for real GPUs)
    std::deque<size_t> m_queue;
    std::mutex m_mu;
    std::atomic<bool> m_stop{false}; // a worker's problem ends the whole run (usage, unwritable)
    std::map<int, std::string> m_gpuNames; // ordinal -> device name its worker reported
    // --workers-per-gpu: workers on each GPU in this round (1 for the out-of-memory retry), and
    // the folder of each GPU's locks (gpu<ordinal>/, made by run(), removed at its end).
    int m_share = 1;
    size_t m_slots = 1; // workers in this round (runOnDevices), whom the last tasks are spread over
    std::string m_gateRoot;
    std::condition_variable m_startedCv; // a GPU's first worker started (--remeasure-ceilings)
    // Workers of runWorkerOnce that said "done" and end on their own: their exit (CUDA's and
    // LibTorch's teardown, 0.3-0.5 s on the H200) is not waited for, except before another worker
    // starts, which may need the whole GPU (the out-of-memory retry). runOnGpu waits for its own.
    std::vector<std::unique_ptr<ks::ChildProcess>> m_ending;
    std::mutex m_endingMu;
    void waitForEnding();
    // The result of a worker that said "done" (`cancelled` as it said): its own when it has ended
    // already, else the one it said, and it is let go.
    ks::ProcessResult letEnd(std::unique_ptr<ks::ChildProcess> child, bool cancelled);

    void jsonl(const std::string& line) const {
        if (m_a.jsonl) std::cout << line << "\n" << std::flush;
    }
    std::vector<std::string> workerArgs(const std::string& idsFile, bool first, const ks::GpuSlot* g = nullptr) const;
    bool onStart(const ks::RunInfo& info);
    void record(ks::TaskResult r);
    // The task `id` in flight when its worker was killed or died: an error result saying why
    // (nothing when it is unknown or already done). `gpu` is set on the result when not empty.
    void failInFlight(const std::string& id, const std::string& why, std::chrono::steady_clock::time_point t0,
                      const std::string& gpu = {});
    std::string timedOutReason() const;
    // A worker's "recycle" event (--worker-memory, or a task that broke the CUDA context): said on
    // stderr and in the JSON lines when tasks are left for a fresh worker (`more`). Under m_mu with
    // --devices.
    void onRecycle(const nlohmann::json& j, const std::string& tag, bool more);
    double m_workerMemoryGiB = 0; // --worker-memory, resolved
    // Runs one worker over the tasks not done yet. False when the run must stop.
    bool runWorkerOnce(bool first, int& startupFailures);
    // --devices: the tasks not done, spread over m_gpus, until none is left (or the run stops).
    // `first`: the run's first workers (--remeasure-ceilings goes to them), not the OOM retry's.
    void runOnDevices(bool first);
    // One worker on GPU `g` (its `slot`-th of m_share), handed tasks from m_queue one at a time.
    // False when this worker slot is done.
    bool runOnGpu(const ks::GpuSlot& g, int slot, bool first, int& startupFailures);
};

// A worker's environment beyond ours: its GPU, and huge pages for its drawn operands.
std::vector<std::string> workerEnv(const ks::GpuSlot* g) {
    std::vector<std::string> env = ks::hugePageEnv();
    if (g) env.push_back(g->env());
    return env;
}

std::vector<std::string> Driver::workerArgs(const std::string& idsFile, bool first, const ks::GpuSlot* g) const {
    std::vector<std::string> v = {engineProgram(), "filter", "--worker-fd", "3",
                                  "--task-ids", idsFile, "--suite", m_a.suite, "--seeds", std::to_string(m_a.seeds),
                                  "--rng", m_a.rng, "--device", m_workerDevice.empty() ? m_a.device : m_workerDevice,
                                  "--criteria", m_a.criteria};
    if (!m_a.preset.empty()) v.insert(v.end(), {"--preset", m_a.preset});
    if (m_a.drawThreads > 0) v.insert(v.end(), {"--draw-threads", std::to_string(m_a.drawThreads)});
    if (m_a.hostMemoryGiB > 0) v.insert(v.end(), {"--host-memory", std::to_string(m_a.hostMemoryGiB)});
    if (m_a.noDrawAhead) v.push_back("--no-draw-ahead");
    v.insert(v.end(), {"--draw-ahead-tasks", std::to_string(m_a.drawAheadTasks)});
    if (!m_a.profile.empty()) v.insert(v.end(), {"--profile", m_a.profile});
    for (const auto& t : m_a.thresholds) v.insert(v.end(), {"--threshold", t});
    if (first && m_a.remeasure) v.push_back("--remeasure-ceilings");
    if (m_workerMemoryGiB > 0) v.insert(v.end(), {"--worker-memory", std::to_string(m_workerMemoryGiB)});
    if (g && m_share > 1)
        v.insert(v.end(), {"--gpu-share", std::to_string(m_share), "--gpu-gate",
                           m_gateRoot + "/gpu" + std::to_string(g->ordinal)});
    return v;
}

void Driver::waitForEnding() {
    std::lock_guard<std::mutex> lock(m_endingMu);
    for (auto& c : m_ending) c->wait();
    m_ending.clear();
}

ks::ProcessResult Driver::letEnd(std::unique_ptr<ks::ChildProcess> child, bool cancelled) {
    if (child->exited()) return child->wait();
    child->letGo();
    ks::ProcessResult pr;
    pr.exitCode = cancelled ? Exit::Cancelled : Exit::Ok;
    std::lock_guard<std::mutex> lock(m_endingMu);
    m_ending.push_back(std::move(child));
    return pr;
}

bool Driver::onStart(const ks::RunInfo& info) {
    if (m_started) return true; // a later worker after a timeout or a crash: same run
    m_started = true;
    m_info = info;
    m_info.shardIndex = m_shardK;
    m_info.shardCount = m_shardN;
    std::string which;
    for (const auto& [on, name] : {std::pair{m_criteria.statistics, "statistics"},
                                   {m_criteria.inefficiency, "baseline inefficiency"}, {m_criteria.redundancy, "redundancy"}})
        if (on) which += (which.empty() ? "" : ", ") + std::string(name);
    std::cerr << "kernelsieve " << ks::toolVersion() << ": " << m_tasks.size() << " tasks from '" << m_suite.name
              << "', preset " << info.preset << ", " << m_a.seeds << " seeds, on " << info.device << " ("
              << info.deviceName << "), LibTorch " << info.libtorchVersion << "; filters: " << which
              << "; each task may take " << m_a.taskTimeout << " s (--task-timeout)\n";
    if (m_sink) {
        std::vector<std::string> planned;
        for (const auto& t : m_tasks) planned.push_back(t.id);
        try {
            m_sink->begin(m_info, m_th, planned);
        } catch (const ks::Error& e) {
            std::cerr << "error: " << e.what() << "\n";
            m_rc = m_a.resume ? Exit::Usage : Exit::WriteFailed; // resumed with other options, or unwritable
            m_sinkFailed = true;
            return false;
        }
        if (!m_sink->note().empty()) std::cerr << "note: " << m_sink->note() << "\n";
    }
    jsonl("{\"event\":\"start\",\"total\":" + std::to_string(m_tasks.size()) + ",\"run\":" + ks::runInfoToJson(m_info) + "}");
    return true;
}

// One protocol line of a filter worker: its JSON object and event name. Throws on anything else.
nlohmann::json workerEvent(const std::string& line, std::string& event) {
    if (const std::string p = ks::jsonNestingProblem(line); !p.empty()) throw ks::Error(p);
    nlohmann::json j = nlohmann::json::parse(line);
    if (!j.is_object() || !j.contains("event") || !j.at("event").is_string()) throw ks::Error("no \"event\" string");
    event = j.at("event").get<std::string>();
    return j;
}

void Driver::failInFlight(const std::string& id, const std::string& why, std::chrono::steady_clock::time_point t0,
                          const std::string& gpu) {
    const auto it = m_index.find(id);
    if (it == m_index.end() || m_done.count(it->second)) return;
    ks::TaskResult r = ks::resultSkeleton(m_tasks[it->second]);
    r.status = ks::TaskStatus::Error;
    r.error = "task " + id + ": " + why;
    r.wallSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (!gpu.empty()) r.gpu = gpu;
    record(std::move(r));
}

std::string Driver::timedOutReason() const {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%g", m_a.taskTimeout);
    return std::string("timed out: it ran longer than ") + buf +
           " s (--task-timeout); its worker was killed and the run went on";
}

void Driver::onRecycle(const nlohmann::json& j, const std::string& tag, bool more) {
    if (!more) return; // its last task: it ends anyway
    const std::string after = j.at("after").get<std::string>();
    if (j.value("reason", std::string()) == "cuda_context") { // that task's error says what CUDA said
        std::cerr << tag << "a fresh worker takes the tasks after " << after
                  << ": the CUDA context is broken after it (its error says how)\n";
        jsonl("{\"event\":\"worker_restart\",\"after\":" + jsonString(after) + ",\"reason\":\"cuda_context\"}");
        return;
    }
    const double own = j.at("own_bytes").get<double>(), limit = j.at("limit_bytes").get<double>();
    std::cerr << tag << "a fresh worker takes the tasks after " << after << ": this one held " << gibText(own)
              << " beyond its page-locked operand blocks, over --worker-memory " << gibText(limit) << "\n";
    jsonl("{\"event\":\"worker_restart\",\"after\":" + jsonString(after) + ",\"own_bytes\":" +
          std::to_string(static_cast<int64_t>(own)) + ",\"limit_bytes\":" + std::to_string(static_cast<int64_t>(limit)) +
          "}");
}

void Driver::record(ks::TaskResult r) {
    const auto it = m_index.find(r.id);
    if (it == m_index.end() || m_done.count(it->second)) {
        std::cerr << "warning: the worker reported task '" << r.id << "', which it was not given; ignored\n";
        return;
    }
    const size_t i = it->second;
    const int n = static_cast<int>(m_tasks.size());
    const std::string onGpu = r.gpu.empty() ? "" : " gpu " + r.gpu; // --devices
    std::fprintf(stderr, "[%*zu/%d] %-8s %-44.44s %6.2fs%s %s\n", static_cast<int>(std::to_string(n).size()), i + 1, n,
                 r.id.c_str(), r.name.c_str(), r.wallSeconds, onGpu.c_str(), verdictLine(r, m_th).c_str());
    const std::string line = ks::taskResultToJson(r); // once, for the stream and the journal
    jsonl("{\"event\":\"task\",\"index\":" + std::to_string(i) + ",\"total\":" + std::to_string(n) +
          ",\"result\":" + line + "}");
    if (m_sink) {
        try {
            m_sink->appendJson(line);
        } catch (const ks::Error& e) {
            std::cerr << "error: " << e.what() << "\n";
            m_rc = Exit::WriteFailed;
            m_cancel = m_kill = true; // nothing more can be saved: stop, keep what is on disk
        }
    }
    m_done[i] = std::move(r);
}

bool Driver::runWorkerOnce(bool first, int& startupFailures) {
    std::string ids;
    size_t left = 0;
    for (size_t i = 0; i < m_tasks.size(); ++i)
        if (!m_done.count(i)) {
            ids += m_tasks[i].id + "\n";
            ++left;
        }
    // With nothing left a worker still starts once: it reports the device (a suite of load
    // failures only, a resumed run with every task done).
    if (!left && m_started) return false;
    // Not in /tmp: the sandboxed worker has a /tmp of its own. The ceilings cache folder is one it
    // reads anyway.
    const std::string scratch = ks::defaultCeilingsCacheDir();
    std::error_code mkEc;
    std::filesystem::create_directories(scratch, mkEc);
    std::string tmplS = scratch + "/filter-tasks-XXXXXX";
    const int idsFd = ::mkstemp(tmplS.data());
    if (idsFd < 0) {
        std::cerr << "error: cannot create a temporary file in " << scratch << ": " << std::strerror(errno) << "\n";
        m_rc = Exit::WriteFailed;
        return false;
    }
    const std::string idsFile = tmplS;
    const bool wrote = ::write(idsFd, ids.data(), ids.size()) == static_cast<ssize_t>(ids.size());
    ::close(idsFd);
    struct Unlink {
        std::string p;
        ~Unlink() { ::unlink(p.c_str()); }
    } unlinkIds{idsFile};
    if (!wrote) {
        std::cerr << "error: cannot write " << idsFile << "\n";
        m_rc = Exit::WriteFailed;
        return false;
    }

    waitForEnding();
    traceStart("driver: starting a worker");
    // The worker's stdout goes to our stderr: whatever the tasks print is log, never protocol.
    std::unique_ptr<ks::ChildProcess> child;
    try {
        // It may write the ceilings cache, nothing else; the results are ours to write.
        ks::SandboxSpec box;
        box.writable = {ks::defaultCeilingsCacheDir()};
        child = std::make_unique<ks::ChildProcess>(ks::sandboxed(workerArgs(idsFile, first), box), 2,
                                                   ks::ChildProcess::Protocol::Fd3, workerEnv(nullptr));
    } catch (const ks::Error& e) {
        std::cerr << "error: cannot start the filter worker: " << e.what() << "\n";
        m_rc = Exit::BadDevice;
        return false;
    }
    std::string current; // id of the task in flight
    auto taskT0 = std::chrono::steady_clock::now();
    bool sentInt = false, sawDone = false, doneCancelled = false, sawTask = false, killedForTimeout = false;
    bool recycled = false; // it ended early, over --worker-memory: the tasks left go to a new worker
    auto graceEnd = std::chrono::steady_clock::time_point::max();
    std::string protocolError;
    while (!sawDone) { // after "done" it has nothing more to say: its exit is not waited for
        std::string line;
        ks::ChildProcess::Read got;
        try {
            got = child->readLine(line, 0.2);
        } catch (const ks::Error& e) {
            protocolError = e.what();
            child->kill();
            got = ks::ChildProcess::Read::Eof;
        }
        const auto now = std::chrono::steady_clock::now();
        if (got == ks::ChildProcess::Read::Line) {
            try {
                std::string ev;
                const nlohmann::json j = workerEvent(line, ev);
                if (ev == "start") {
                    if (!onStart(ks::runInfoFromJson(j.at("run").dump(), "filter worker"))) {
                        child->kill();
                        child->wait();
                        return false;
                    }
                } else if (ev == "task_start") {
                    current = j.at("id").get<std::string>();
                    taskT0 = now;
                    if (auto it = m_index.find(current); it != m_index.end())
                        jsonl("{\"event\":\"task_start\",\"index\":" + std::to_string(it->second) + ",\"total\":" +
                              std::to_string(m_tasks.size()) + ",\"id\":" + jsonString(current) + "}");
                } else if (ev == "task_phase") {
                    const std::string id = j.at("id").get<std::string>();
                    if (auto it = m_index.find(id); it != m_index.end())
                        jsonl("{\"event\":\"task_phase\",\"index\":" + std::to_string(it->second) + ",\"id\":" +
                              jsonString(id) + ",\"phase\":" + jsonString(j.at("phase").get<std::string>()) + "}");
                } else if (ev == "task") {
                    record(ks::taskResultFromJson(j.at("result").dump(), "filter worker"));
                    sawTask = true;
                    current.clear();
                } else if (ev == "recycle") {
                    onRecycle(j, "", true); // it ends early only with tasks left
                    recycled = true;
                } else if (ev == "done") {
                    sawDone = true;
                    doneCancelled = j.value("cancelled", false);
                }
            } catch (const std::exception& e) {
                std::cerr << "warning: unreadable line from the filter worker (" << e.what() << "): "
                          << line.substr(0, 200) << "\n";
            }
            continue;
        }
        if (got == ks::ChildProcess::Read::Eof) break;
        // Timeout of the read: the clocks and the flags.
        if (m_kill) {
            child->kill();
            continue;
        }
        if (m_cancel && !sentInt) {
            sentInt = true;
            child->signal(SIGINT); // it stops after the current seed
            graceEnd = now + std::chrono::seconds(10);
            std::cerr << "stopping after the current seed (Ctrl-C again to stop now)\n";
        }
        if (now > graceEnd) {
            std::cerr << "the worker did not stop within 10 s; killing it\n";
            child->kill();
            continue;
        }
        if (!current.empty() && !m_cancel &&
            std::chrono::duration<double>(now - taskT0).count() > m_a.taskTimeout) {
            killedForTimeout = true;
            child->kill();
        }
    }
    const ks::ProcessResult pr = sawDone ? letEnd(std::move(child), doneCancelled) : child->wait();
    if (m_cancel) {
        m_cancelled = true;
        return false;
    }
    if (killedForTimeout) {
        failInFlight(current, timedOutReason(), taskT0);
        startupFailures = 0;
        return true;
    }
    if (sawDone && pr.exitCode == 0) { // every task it was given is done, or it made way for a fresh worker
        startupFailures = 0;
        return recycled;
    }
    if (!current.empty()) {
        failInFlight(current, "the filter worker died while running it (" + pr.describe() + ")" +
                                  (protocolError.empty() ? "" : ": " + protocolError) +
                                  "; the run went on in a new worker",
                     taskT0);
        startupFailures = 0;
        return true;
    }
    // It died between tasks, or before the first: try once more, then give up.
    if (!m_started && pr.exitCode > 0 && pr.exitCode < 128) {
        m_rc = pr.exitCode; // a usage or device error the worker printed
        return false;
    }
    if (sawTask) startupFailures = 0;
    if (++startupFailures >= 2) {
        std::cerr << "error: the filter worker keeps failing between tasks (" << pr.describe() << ")\n";
        m_rc = Exit::BadDevice;
        return false;
    }
    return true;
}

void Driver::runOnDevices(bool firstWorkers) {
    // A worker whose reader is gone must not end us with SIGPIPE; the write says EPIPE instead.
    std::signal(SIGPIPE, SIG_IGN);
    // A second round only when a GPU gave up on tasks after the others had finished.
    for (int round = 0; round < 2 && !m_cancel && !m_stop; ++round) {
    {
        std::lock_guard<std::mutex> lock(m_mu);
        m_queue.clear();
        for (size_t i = 0; i < m_tasks.size(); ++i)
            if (!m_done.count(i)) m_queue.push_back(i);
        if (m_started && m_queue.empty()) return;
    }
    // With nothing left, one worker still starts: it reports the device (as runWorkerOnce does).
    // Slots GPU by GPU: each GPU's first worker, then each one's second, ...
    std::vector<std::pair<size_t, int>> slots;
    for (int w = 0; w < m_share; ++w)
        for (size_t d = 0; d < m_gpus.size(); ++d) slots.emplace_back(d, w);
    const size_t n = m_queue.empty() ? 1 : std::min(slots.size(), m_queue.size());
    m_slots = n;
    std::vector<std::thread> threads;
    for (size_t k = 0; k < n; ++k)
        threads.emplace_back([this, k, &slots, firstWorkers] {
            const ks::GpuSlot& g = m_gpus[slots[k].first];
            const int slot = slots[k].second;
            int failures = 0;
            // --remeasure-ceilings: a GPU's first worker measures them (into the cache), its
            // other workers start after it has, and read them there: one set of ceilings a GPU.
            bool first = firstWorkers && slot == 0;
            if (firstWorkers && slot > 0 && m_a.remeasure) {
                std::unique_lock<std::mutex> lock(m_mu);
                m_startedCv.wait(lock, [&] { return m_gpuNames.count(g.ordinal) || m_cancel || m_stop || m_queue.empty(); });
            }
            while (!m_cancel && !m_stop) {
                {
                    std::lock_guard<std::mutex> lock(m_mu);
                    if (m_started && m_queue.empty()) break;
                }
                if (!runOnGpu(g, slot, first, failures)) break;
                first = false;
            }
            m_startedCv.notify_all(); // this slot is done: none waits for it
        });
    for (auto& t : threads) t.join();
    }
}

bool Driver::runOnGpu(const ks::GpuSlot& g, int slot, bool first, int& startupFailures) {
    std::unique_ptr<ks::ChildProcess> child;
    const std::string label = m_share > 1 ? g.label() + " worker " + std::to_string(slot + 1) : g.label();
    try {
        ks::SandboxSpec box;
        box.writable = {ks::defaultCeilingsCacheDir()};
        child = std::make_unique<ks::ChildProcess>(ks::sandboxed(workerArgs("-", first, &g), box), 2,
                                                   ks::ChildProcess::Protocol::Fd3, workerEnv(&g),
                                                   true);
    } catch (const ks::Error& e) {
        std::lock_guard<std::mutex> lock(m_mu);
        std::cerr << "error: cannot start the filter worker on " << label << ": " << e.what() << "\n";
        m_rc = Exit::BadDevice;
        m_stop = true;
        return false;
    }
    const std::string tag = "[" + label + "] ";
    // The tasks handed to it and not reported yet, in order: the one it runs and the
    // --draw-ahead-tasks after it, whose operands it draws meanwhile (EngineOptions::drawAhead).
    const size_t lookahead = 1 + static_cast<size_t>(std::max(1, m_a.drawAheadTasks));
    std::deque<size_t> given;
    std::string current;     // id of the task it said it started
    bool inputClosed = false;
    // Tops it up to lookahead tasks from the queue; end of input once the queue is empty.
    bool heldBack = false; // told "nothing more for now" since its last task
    auto handOut = [&] {
        std::lock_guard<std::mutex> lock(m_mu);
        while (!inputClosed && given.size() < lookahead) {
            if (m_queue.empty() || m_cancel || m_stop) {
                child->closeInput();
                inputClosed = true;
                return;
            }
            // Tasks to draw ahead only while the queue has one for every worker: the last ones
            // spread over the GPUs instead of waiting behind one worker. An empty line tells it
            // to start without waiting for more.
            if (!given.empty() && m_queue.size() < m_slots) {
                if (!heldBack) child->writeInput("\n");
                heldBack = true;
                return;
            }
            heldBack = false;
            given.push_back(m_queue.front());
            m_queue.pop_front();
            if (!child->writeInput(m_tasks[given.back()].id + "\n")) { // it is gone: found below
                child->closeInput();
                inputClosed = true;
            }
        }
    };
    handOut();
    auto taskT0 = std::chrono::steady_clock::now();
    // Time the current task spent waiting for another worker's timing (kPhaseWaitingForGpu):
    // not counted against --task-timeout. `gateSince`: the wait going on, if any.
    double gateWaited = 0;
    std::optional<std::chrono::steady_clock::time_point> gateSince;
    bool sentInt = false, sawDone = false, sawTask = false, killedForTimeout = false;
    auto graceEnd = std::chrono::steady_clock::time_point::max();
    std::string protocolError;
    while (!sawDone) { // after "done" it has nothing more to say
        std::string line;
        ks::ChildProcess::Read got;
        try {
            got = child->readLine(line, 0.2);
        } catch (const ks::Error& e) {
            protocolError = e.what();
            child->kill();
            got = ks::ChildProcess::Read::Eof;
        }
        const auto now = std::chrono::steady_clock::now();
        if (got == ks::ChildProcess::Read::Line) {
            std::lock_guard<std::mutex> lock(m_mu);
            try {
                std::string ev;
                const nlohmann::json j = workerEvent(line, ev);
                if (ev == "start") {
                    const ks::RunInfo info = ks::runInfoFromJson(j.at("run").dump(), "filter worker");
                    if (!m_gpuNames.count(g.ordinal)) {
                        m_gpuNames[g.ordinal] = info.deviceName;
                        m_info.gpus.push_back(std::to_string(g.ordinal) + ": " + info.deviceName +
                                              ", CUDA_VISIBLE_DEVICES=" + g.visibleId);
                        m_startedCv.notify_all();
                        if (m_started && info.deviceName != m_info.deviceName)
                            std::cerr << "warning: " << g.label() << " is a " << info.deviceName << ", not a "
                                      << m_info.deviceName << " like the first: its tasks' timings (filter 5) are "
                                      << "not comparable with the others'\n";
                    }
                    const std::vector<std::string> gpus = m_info.gpus;
                    if (!onStart(info)) {
                        m_stop = true;
                        child->kill();
                        child->wait();
                        return false;
                    }
                    m_info.gpus = gpus; // onStart took the first worker's run info
                } else if (ev == "task_start") {
                    current = j.at("id").get<std::string>();
                    taskT0 = now;
                    gateWaited = 0;
                    gateSince.reset();
                    if (auto it = m_index.find(current); it != m_index.end())
                        jsonl("{\"event\":\"task_start\",\"index\":" + std::to_string(it->second) + ",\"total\":" +
                              std::to_string(m_tasks.size()) + ",\"id\":" + jsonString(current) + ",\"gpu\":" +
                              std::to_string(g.ordinal) + "}");
                } else if (ev == "task_phase") {
                    const std::string id = j.at("id").get<std::string>();
                    if (gateSince) gateWaited += std::chrono::duration<double>(now - *gateSince).count();
                    gateSince.reset();
                    if (j.at("phase").get<std::string>() == ks::kPhaseWaitingForGpu) gateSince = now;
                    if (auto it = m_index.find(id); it != m_index.end())
                        jsonl("{\"event\":\"task_phase\",\"index\":" + std::to_string(it->second) + ",\"id\":" +
                              jsonString(id) + ",\"phase\":" + jsonString(j.at("phase").get<std::string>()) + "}");
                } else if (ev == "task") {
                    ks::TaskResult r = ks::taskResultFromJson(j.at("result").dump(), "filter worker");
                    r.gpu = std::to_string(g.ordinal);
                    if (given.empty() || r.id != m_tasks[given.front()].id) {
                        std::cerr << "warning: the worker on " << label << " reported task '" << r.id
                                  << "', which it was not given next; ignored\n";
                    } else {
                        record(std::move(r));
                        sawTask = true;
                        current.clear();
                        given.pop_front();
                    }
                } else if (ev == "recycle") {
                    // It ends after "done"; what it was given and did not run goes back to the queue.
                    onRecycle(j, tag, !given.empty() || !m_queue.empty());
                } else if (ev == "done") {
                    sawDone = true;
                }
            } catch (const std::exception& e) {
                std::cerr << "warning: unreadable line from the filter worker on " << label << " (" << e.what()
                          << "): " << line.substr(0, 200) << "\n";
            }
        } else if (got == ks::ChildProcess::Read::Eof) {
            break;
        }
        if (got == ks::ChildProcess::Read::Line) {
            if (given.size() < lookahead && !sawDone) handOut(); // the next task as soon as one is reported
            continue;
        }
        // Timeout of the read: the clocks and the flags.
        if (m_kill || m_stop) {
            child->kill();
            continue;
        }
        if (m_cancel && !sentInt) {
            sentInt = true;
            child->closeInput();
            child->signal(SIGINT); // it stops after the current seed
            graceEnd = now + std::chrono::seconds(10);
            std::lock_guard<std::mutex> lock(m_mu);
            std::cerr << tag << "stopping after the current seed (Ctrl-C again to stop now)\n";
        }
        if (now > graceEnd) {
            std::cerr << tag << "the worker did not stop within 10 s; killing it\n";
            child->kill();
            continue;
        }
        const double waiting = gateWaited + (gateSince ? std::chrono::duration<double>(now - *gateSince).count() : 0.0);
        if (!current.empty() && !m_cancel &&
            std::chrono::duration<double>(now - taskT0).count() - waiting > m_a.taskTimeout) {
            killedForTimeout = true;
            child->kill();
        }
    }
    // Waited for even after "done": this thread's end would kill the sandbox's helper
    // (PR_SET_PDEATHSIG goes by the thread that started it), and a helper killed early cannot say
    // when the worker has ended (the out-of-memory retry must find the GPU empty).
    const ks::ProcessResult pr = child->wait();
    std::lock_guard<std::mutex> lock(m_mu);
    // Tasks handed out but not started go back to the front of the queue: order is kept.
    auto giveBack = [&] {
        for (auto it = given.rbegin(); it != given.rend(); ++it)
            if (!m_done.count(*it) && (current.empty() || m_tasks[*it].id != current)) m_queue.push_front(*it);
        given.clear();
    };
    if (m_cancel || m_stop) {
        if (m_cancel) m_cancelled = true;
        return false;
    }
    const std::string gpu = std::to_string(g.ordinal);
    if (killedForTimeout) {
        failInFlight(current, timedOutReason(), taskT0, gpu);
        giveBack();
        startupFailures = 0;
        return true;
    }
    if (sawDone && pr.exitCode == 0) {
        giveBack();
        startupFailures = 0;
        return !m_queue.empty(); // none left, or a task given back (--worker-memory) goes to a new worker
    }
    if (!current.empty()) {
        failInFlight(current, "the filter worker died while running it (" + pr.describe() + ")" +
                                  (protocolError.empty() ? "" : ": " + protocolError) +
                                  "; the run went on in a new worker",
                     taskT0, gpu);
        giveBack();
        startupFailures = 0;
        return true;
    }
    giveBack();
    // It died between tasks, or before the first: try once more, then give up on this GPU.
    if (!m_started && pr.exitCode > 0 && pr.exitCode < 128) {
        m_rc = pr.exitCode; // a usage or device error the worker printed
        m_stop = true;
        return false;
    }
    if (sawTask) startupFailures = 0;
    if (++startupFailures >= 2) {
        std::cerr << "error: the filter worker on " << label << " keeps failing between tasks (" << pr.describe()
                  << "); its tasks go to the other GPUs\n";
        m_rc = Exit::BadDevice;
        return false;
    }
    return true;
}

int Driver::run() {
    try {
        m_th = resolveThresholds(m_a.profile, m_a.thresholds);
        applyCriteria(m_a.criteria, m_criteria);
        if (const std::string w = ks::seedCountWarning(m_a.seeds); m_criteria.statistics && !w.empty())
            std::cerr << "warning: --seeds " << m_a.seeds << ": " << w << "\n";
    } catch (const ks::Error& e) {
        std::cerr << "error: " << e.what() << "\n";
        return Exit::Usage;
    }
    // --workers-per-gpu without --devices: this process's first GPU.
    const std::string devices = !m_a.devices.empty() || m_a.workersPerGpu <= 1 ? m_a.devices : "0";
    const std::string devicesFlag = !m_a.devices.empty() ? "--devices" : "--workers-per-gpu";
    if (!devices.empty()) {
        // KS_FAKE_DEVICES (tests only) stands for GPUs on a machine without one: the workers then
        // run on --device as given, each told its CUDA_VISIBLE_DEVICES.
        try {
            const bool fake = ks::fakeDeviceCount() >= 0;
            if (m_a.device == "cpu" && !fake) {
                std::cerr << "error: " << devicesFlag << " spreads the tasks over GPUs; it does not go with --device cpu\n";
                return Exit::Usage;
            }
            if (ks::visibleCudaDeviceCount() <= 0) {
                std::cerr << "error: " << devicesFlag << " " << (m_a.devices.empty() ? std::to_string(m_a.workersPerGpu) : m_a.devices)
                          << ": no CUDA device is visible here\n";
                return Exit::BadDevice;
            }
            m_gpus = ks::resolveDevices(devices);
            m_workerDevice = fake ? m_a.device : "cuda";
        } catch (const ks::Error& e) {
            std::cerr << "error: " << e.what() << "\n";
            return Exit::Usage;
        }
        std::string which;
        for (const auto& g : m_gpus) which += (which.empty() ? "" : ", ") + std::to_string(g.ordinal);
        m_share = std::max(1, m_a.workersPerGpu);
        std::cerr << "devices: " << m_gpus.size() << " GPU(s) (" << which << "), "
                  << (m_share > 1 ? std::to_string(m_share) + " filter workers on each (filter 5 times with the GPU to "
                                                              "itself)"
                                  : std::string("one filter worker on each"))
                  << "\n";
    }
    m_workerMemoryGiB = m_a.workerMemoryGiB > 0
                            ? m_a.workerMemoryGiB
                            : workerMemoryDefault(m_gpus.empty() ? 1 : m_gpus.size() * static_cast<size_t>(m_share));
    // The locks the workers sharing a GPU take (ks::GpuGate): a folder per GPU, removed at the end.
    // (By hand: std::filesystem::remove_all binds to LibTorch's own copy and crashes there.)
    struct RemoveDir {
        std::string path;
        std::vector<std::string> subdirs;
        ~RemoveDir() {
            for (const auto& d : subdirs) {
                ks::GpuGate::removeFiles(d);
                ::rmdir(d.c_str());
            }
            if (!path.empty()) ::rmdir(path.c_str());
        }
    } gateDir;
    if (m_share > 1) {
        try {
            std::string tmpl = (std::filesystem::temp_directory_path() / "kernelsieve-gate-XXXXXX").string();
            if (!::mkdtemp(tmpl.data())) throw ks::Error("cannot make a folder in " + std::filesystem::temp_directory_path().string() +
                                                          ": " + std::strerror(errno));
            gateDir.path = m_gateRoot = tmpl;
            for (const auto& g : m_gpus) {
                const std::string dir = m_gateRoot + "/gpu" + std::to_string(g.ordinal);
                if (::mkdir(dir.c_str(), 0755) != 0) throw ks::Error("cannot make " + dir + ": " + std::strerror(errno));
                gateDir.subdirs.push_back(dir);
                ks::GpuGate::createFiles(dir);
            }
        } catch (const std::exception& e) {
            std::cerr << "error: --workers-per-gpu: the GPU locks: " << e.what() << "\n";
            return Exit::WriteFailed;
        }
    }
    try {
        m_suite = ks::loadSuite(m_a.suite);
    } catch (const ks::Error& e) {
        std::cerr << "error: " << e.what() << "\n";
        return Exit::BadSuite;
    }
    m_tasks = ks::selectTasks(m_suite, m_a.pattern);
    if (!m_a.shard.empty()) {
        // K/N: the tasks at positions K-1, K-1+N, ... of the selection (resultsmerge.h).
        int k = 0, n = 0;
        char extra = 0;
        if (std::sscanf(m_a.shard.c_str(), "%d/%d%c", &k, &n, &extra) != 2 || n < 1 || k < 1 || k > n) {
            std::cerr << "error: --shard '" << m_a.shard << "': expected K/N with 1 <= K <= N, e.g. 3/8\n";
            return Exit::Usage;
        }
        m_shardK = k;
        m_shardN = n;
        std::vector<ks::TaskSpec> mine;
        for (size_t i : ks::shardPositions(m_tasks.size(), k, n)) mine.push_back(m_tasks[i]);
        const size_t all = m_tasks.size();
        m_tasks = std::move(mine);
        std::cerr << "shard " << k << "/" << n << ": " << m_tasks.size() << " of " << all << " tasks\n";
        if (m_tasks.empty() && !(k == 1 && !m_suite.issues.empty())) {
            std::cerr << "error: shard " << k << "/" << n << " has no task (" << all << " selected)\n";
            return Exit::BadSuite;
        }
    }
    if (m_tasks.empty() && m_suite.issues.empty()) {
        std::cerr << "error: no task in suite '" << m_a.suite << "'"
                  << (m_a.pattern.empty() ? "" : " matches --tasks '" + m_a.pattern + "'") << "\n";
        return Exit::BadSuite;
    }
    for (size_t i = 0; i < m_tasks.size(); ++i) m_index.emplace(m_tasks[i].id, i);
    // The output is checked (folder, lock, unfinished journal) before anything runs.
    if (!m_a.out.empty()) {
        try {
            m_sink = std::make_unique<ks::ResultsSink>(m_a.out, ks::ResultsSinkOptions{m_a.force, m_a.resume});
        } catch (const ks::Error& e) {
            std::cerr << "error: " << e.what() << "\n";
            return Exit::WriteFailed;
        }
        for (const auto& r : m_sink->resumedTasks())
            if (auto it = m_index.find(r.id); it != m_index.end()) m_done[it->second] = r;
        if (m_a.resume)
            std::cerr << "resuming: " << m_done.size() << " of " << m_tasks.size() << " tasks are in the journal\n";
    } else if (m_a.resume) {
        std::cerr << "error: --resume needs --out (the results file whose journal it continues)\n";
        return Exit::Usage;
    }
    if (!m_a.csv.empty()) {
        const auto dir = std::filesystem::path(m_a.csv).parent_path();
        if (!dir.empty() && !std::filesystem::is_directory(dir)) {
            std::cerr << "error: --csv " << m_a.csv << ": the folder " << dir.string() << " does not exist; nothing was run\n";
            return Exit::WriteFailed;
        }
    }
    // Files the loader could not read become failed tasks, so they show in every output.
    std::vector<ks::TaskResult> loadFailures;
    if (m_a.pattern.empty() && m_shardK <= 1) // a sharded run's load failures are shard 1's
        for (const auto& issue : m_suite.issues) {
            std::cerr << "error: " << issue.message << "\n";
            loadFailures.push_back(ks::failedLoadResult(issue));
        }

    const auto t0 = std::chrono::steady_clock::now();
    bool first = true;
    int startupFailures = 0;
    // A resumed run whose tasks are all done still starts one worker: it reports the device the
    // journal is checked against.
    if (!m_gpus.empty()) runOnDevices(true);
    while (m_gpus.empty() && !m_cancel) {
        if (m_started && m_done.size() == m_tasks.size()) break;
        if (!runWorkerOnce(first, startupFailures)) break;
        first = false;
    }
    // A task that ran out of memory may have met what earlier tasks left in the caching allocator
    // (or, later, tasks of other workers): it runs once more, alone, in a fresh worker, before
    // the error stands.
    if (!m_cancel && m_started && !m_sinkFailed) {
        std::map<size_t, ks::TaskResult> firstTry;
        for (const auto& [i, r] : m_done)
            if (r.status == ks::TaskStatus::Error && isOutOfMemory(r.error)) firstTry.emplace(i, r);
        if (!firstTry.empty()) {
            std::cerr << "retrying " << firstTry.size() << " task(s) that ran out of memory, alone in a fresh worker\n";
            for (const auto& [i, r] : firstTry) m_done.erase(i);
            int failures = 0;
            m_share = 1; // alone on its GPU, with all of its memory
            if (!m_gpus.empty()) runOnDevices(false); // each GPU's retries alone on it, in fresh workers
            while (m_gpus.empty() && !m_cancel && m_done.size() < m_tasks.size() && runWorkerOnce(false, failures)) {
            }
            for (auto& [i, r] : firstTry) {
                auto it = m_done.find(i);
                if (it == m_done.end()) {
                    m_done.emplace(i, r); // the retry did not get to it (cancelled): the first answer
                } else if (it->second.status == ks::TaskStatus::Error) {
                    it->second.error += " (retried alone in a fresh worker: it ran out of memory again)";
                }
            }
        }
    }
    if (m_cancel) m_cancelled = true;
    if (m_sinkFailed) return m_rc;
    if (!m_started) return m_cancelled ? Exit::Cancelled : m_rc == Exit::Ok ? Exit::BadDevice : m_rc;

    ks::RunResults results;
    results.run = m_info;
    // --devices: the GPUs in ordinal order (their workers started in any order).
    std::sort(results.run.gpus.begin(), results.run.gpus.end(), [](const std::string& x, const std::string& y) {
        return std::atoi(x.c_str()) < std::atoi(y.c_str());
    });
    results.thresholds = m_th;
    results.tasks = loadFailures;
    for (size_t i = 0; i < m_tasks.size(); ++i)
        if (auto it = m_done.find(i); it != m_done.end()) {
            results.run.peakMemoryBytes = std::max(results.run.peakMemoryBytes, it->second.peakMemoryBytes);
            results.tasks.push_back(it->second);
        }
    results.run.cancelled = m_cancelled || results.tasks.size() < loadFailures.size() + m_tasks.size();
    results.run.totalSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (m_sink && m_started) {
        try {
            m_sink->finish(results);
        } catch (const ks::Error& e) {
            std::cerr << "error: " << e.what() << "\n";
            m_rc = Exit::WriteFailed;
        }
    }
    if (!m_a.csv.empty()) {
        try {
            ks::writeFileAtomic(m_a.csv, ks::resultsToCsv(results, m_th));
        } catch (const ks::Error& e) {
            std::cerr << "error: " << e.what() << "\n";
            m_rc = Exit::WriteFailed;
        }
    }
    if (!m_a.quiet && !m_a.jsonl) std::cout << ks::resultsToTable(results, m_th);
    jsonl(std::string("{\"event\":\"done\",\"cancelled\":") + (results.run.cancelled ? "true" : "false") +
          ",\"total_s\":" + std::to_string(results.run.totalSeconds) + "}");
    const std::string where = m_sink && m_started ? m_sink->path() : "";
    std::cerr << "done in " << results.run.totalSeconds << " s"
              << (results.run.cancelled ? " (cancelled; finished tasks kept)" : "")
              << (where.empty() ? "" : ", results in " + where) << (m_a.csv.empty() ? "" : ", CSV in " + m_a.csv) << "\n";
    if (m_sink && !m_sink->note().empty()) std::cerr << "note: " << m_sink->note() << "\n";
    if (results.run.cancelled && m_rc == Exit::Ok) m_rc = Exit::Cancelled;
    return m_rc;
}

} // namespace

namespace filter {

std::string jsonString(const std::string& s) { return nlohmann::json(s).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace); }

ks::Thresholds resolveThresholds(const std::string& profile, const std::vector<std::string>& overrides) {
    ks::Thresholds t = ks::Thresholds::defaults();
    if (!profile.empty()) {
        if (auto p = ks::builtinProfile(profile)) t = *p;
        else if (std::filesystem::exists(profile)) t = ks::parseProfile(ks::readFile(profile), profile);
        else {
            std::string names;
            for (const auto& n : ks::builtinProfileNames()) names += (names.empty() ? "" : ", ") + n;
            throw ks::Error("--profile '" + profile + "' is neither a built-in profile (" + names +
                            ") nor a readable profile file");
        }
    }
    for (const auto& o : overrides)
        ks::applyThresholdOverride(t, o);
    return t;
}

void applyCriteria(const std::string& list, Criteria& opt) {
    opt.statistics = opt.inefficiency = opt.redundancy = false;
    size_t start = 0;
    while (start <= list.size()) {
        const size_t comma = list.find(',', start);
        std::string item = list.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        item.erase(0, item.find_first_not_of(' '));
        item.erase(item.find_last_not_of(' ') + 1);
        if (item == "all") opt.statistics = opt.inefficiency = opt.redundancy = true;
        else if (item == "stat" || item == "statistics") opt.statistics = true;
        else if (item == "inefficiency" || item == "baseline_inefficiency") opt.inefficiency = true;
        else if (item == "redundancy" || item == "redundant_computation") opt.redundancy = true;
        else if (ks::criterionFromKey(item))
            throw ks::Error("--criteria: '" + item + "' is one of the four statistical filters, which run together; use 'stat'");
        else
            throw ks::Error("--criteria: unknown '" + item + "' (use all, or a comma-separated list of stat, inefficiency, redundancy)");
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
}

double epochSeconds() {
    return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

} // namespace filter

std::string thisProgram() {
    std::error_code ec;
    const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
    return ec ? std::string() : self.string();
}

std::string engineBeside() {
    const std::string self = thisProgram();
    if (self.empty()) return "kernelsieve-engine";
    return (std::filesystem::path(self).parent_path() / "kernelsieve-engine").string();
}

std::string engineProgram() {
    const std::string engine = engineBeside(), self = thisProgram();
    return ::access(engine.c_str(), X_OK) == 0 || self.empty() ? engine : self;
}

void addFilterCommand(CLI::App& app, std::function<int()>& action, std::atomic<bool>& cancel, std::atomic<bool>& kill,
                      FilterWorker worker) {
    auto a = std::make_shared<FilterArgs>();
    auto* filter = app.add_subcommand("filter", "Run the filters (statistics, baseline inefficiency, redundancy) over a suite");
    filter->fallthrough(); // --no-sandbox, an option of the program, may follow the subcommand
    filter->add_option("--suite", a->suite, "'builtin' or a suite folder")->capture_default_str();
    filter->add_option("--seeds", a->seeds, "Seeds per pass")->capture_default_str()->check(CLI::PositiveNumber);
    filter->add_option("--rng", a->rng,
                       "Generator the tensors are drawn on: cpu (robust-kbench's, copied to the device) or "
                       "device (faster for multi-GB inputs, other samples)")
        ->capture_default_str()->check(CLI::IsMember({"cpu", "device"}));
    filter->add_option("--draw-threads", a->drawThreads,
                       "Host threads drawing each task's seeds ahead of the device (--rng cpu; the samples do "
                       "not depend on it), and the most that draw at once with the helpers of large tensors; "
                       "0: min(8, cores / 2) threads, cores - 2 at once")
        ->capture_default_str()->check(CLI::NonNegativeNumber);
    filter->add_flag("--no-draw-ahead", a->noDrawAhead,
                     "CUDA: do not draw the next task's seeds while a task runs (slower; filter 5 then "
                     "always times with no drawing thread and no pause before it)");
    filter->add_option("--draw-ahead-tasks", a->drawAheadTasks,
                       "CUDA: how many of the following tasks are drawn while one runs (sharing the ahead "
                       "threads and budget); 1: the next one only")
        ->capture_default_str()->check(CLI::Range(1, 16));
    filter->add_option("--host-memory", a->hostMemoryGiB,
                       "GiB of host memory a task's drawn operands may hold (ahead, and kept for reuse by "
                       "the filters); 0: half of what is available when the task starts")
        ->capture_default_str()->check(finiteNonNegative("GiB"));
    filter->add_option("--preset", a->preset, "Shapes: small|full (default: full on CUDA, small on CPU)")
        ->check(CLI::IsMember({"small", "full"}));
    filter->add_option("--device", a->device, "auto|cuda|cpu")->capture_default_str()
        ->check(CLI::IsMember({"auto", "cuda", "cpu"}));
    filter->add_option("--profile", a->profile, "Threshold profile: a built-in name or a profile file");
    filter->add_option("--threshold", a->thresholds, "Override one threshold, NAME=VALUE (repeatable)");
    filter->add_option("--out", a->out,
                       "Results JSON file ('' to skip). A file of another run (suite, device, preset, seeds, or "
                       "tasks this run drops) is kept and the results go next to it, unless --force")
        ->capture_default_str();
    filter->add_flag("--no-out", a->noOut, "Do not write a results JSON file");
    filter->add_flag("--force", a->force,
                     "Replace --out even when it holds another run; discard an unfinished run's journal");
    filter->add_flag("--resume", a->resume,
                     "Continue the unfinished run whose journal (OUT.journal) is next to --out: its finished tasks "
                     "are kept and not run again");
    filter->add_option("--csv", a->csv, "Also write the filter table as CSV");
    filter->add_option("--tasks", a->pattern, "Only tasks whose id or name matches (globs, comma-separated)");
    filter->add_option("--shard", a->shard,
                       "K/N: run only the tasks at positions K-1, K-1+N, ... of the selection (a Slurm array "
                       "task); kernelsieve-cli merge joins the N files");
    filter->add_option("--devices", a->devices,
                       "Spread the tasks over these GPUs of this host: all, or ordinals like 0,1 (one worker per "
                       "GPU, tasks taken in order from one queue; the results are in task order, as one GPU's)");
    filter->add_option("--workers-per-gpu", a->workersPerGpu,
                       "Workers sharing each GPU (with --devices, or this process's first GPU): their untimed "
                       "work overlaps, filter 5 times with the GPU to itself; each gets 1/N of the GPU's memory, a "
                       "task that needs more is retried alone")
        ->capture_default_str()
        ->check(CLI::Range(1, 64));
    filter->add_option("--worker-memory", a->workerMemoryGiB,
                       "GiB a filter worker may hold beyond its page-locked operand blocks at a task's end (the "
                       "libraries' caches grow with every new shape); past it the tasks after that one run in a "
                       "fresh worker. 0: a quarter of this host's memory over the workers, at least 4")
        ->capture_default_str()
        ->check(finiteNonNegative("GiB"));
    filter->add_option("--criteria", a->criteria,
                       "Which filters run: all, or a comma-separated list of stat (filters 1-4), "
                       "inefficiency (5), redundancy (6)")
        ->capture_default_str();
    filter->add_option("--task-timeout", a->taskTimeout,
                       "Seconds one task may run before its worker is killed; the task is recorded as timed out "
                       "and the run goes on")
        ->capture_default_str()
        ->check(finiteSeconds());
    filter->add_flag("--remeasure-ceilings", a->remeasure, "Measure the device ceilings for filter 5 again (ignore the cache)");
    filter->add_flag("--jsonl", a->jsonl, "Stream progress and per-task results as JSON lines on stdout");
    filter->add_flag("-q,--quiet", a->quiet, "Do not print the table");
    filter->add_option("--worker-fd", a->workerFd, "(internal) run the tasks of --task-ids here, reporting on this fd")
        ->group("");
    filter->add_option("--task-ids", a->taskIdsFile, "(internal) file of task ids, one per line")->group("");
    filter->add_option("--gpu-share", a->gpuShare, "(internal) workers sharing this worker's GPU")->group("");
    filter->add_option("--gpu-gate", a->gpuGate, "(internal) folder of that GPU's locks")->group("");
    filter->callback([&action, &cancel, &kill, a, worker] {
        action = [a, &cancel, &kill, worker] {
            if (a->noOut) a->out.clear();
            if (a->workerFd >= 0) {
                if (worker) return worker(*a, cancel);
                std::cerr << "error: --worker-fd: the filter's worker is " << engineProgram() << ", not this program\n";
                return static_cast<int>(Exit::Usage);
            }
            if (a->resume && a->force) {
                std::cerr << "error: --resume and --force contradict each other (continue the journal, or discard it)\n";
                return static_cast<int>(Exit::Usage);
            }
            // The built-in tasks are KernelSieve's own: sandboxed where possible, never refused.
            if (a->suite == "builtin" && ks::sandboxMode() == ks::SandboxMode::Required && !ks::sandboxProblem().empty())
                ks::setSandboxMode(ks::SandboxMode::Off);
            else if (const int rc = checkSandbox())
                return rc;
            Driver d(*a, cancel, kill);
            return d.run();
        };
    });
}

} // namespace ks::cli
