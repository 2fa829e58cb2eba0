// SPDX-License-Identifier: MIT
// kernelsieve-cli filter's worker (`filter --worker-fd 3`, in kernelsieve-engine): the engine over the
// tasks it is given, one protocol line per event on the inherited descriptor.
#include "cli_common.h"
#include "cli_filter_common.h"

#include "ks/core/engine.h"
#include "ks/core/gpugate.h"
#include "ks/core/results.h"
#include "ks/core/suite.h"

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <fcntl.h>
#include <fstream>
#include <iostream>
#include <memory>
#include <poll.h>
#include <random>
#include <set>
#include <thread>
#include <unistd.h>

namespace ks::cli::filter {
namespace {

// Lines from a file descriptor, with a non-blocking read for the ones already written.
class FdLineReader {
public:
    explicit FdLineReader(int fd) : m_fd(fd) {}
    // One line without its newline, waiting up to timeoutMs for it (-1: as long as it takes).
    // False at the end of input (a last line without a newline is still returned) or when none
    // came in time.
    bool readLine(std::string& line, int timeoutMs) {
        const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(std::max(timeoutMs, 0));
        for (;;) {
            if (const auto nl = m_buf.find('\n'); nl != std::string::npos) {
                line = m_buf.substr(0, nl);
                m_buf.erase(0, nl + 1);
                return true;
            }
            if (m_eof) {
                if (m_buf.empty()) return false;
                line.swap(m_buf);
                m_buf.clear();
                return true;
            }
            int wait = -1;
            if (timeoutMs >= 0)
                wait = static_cast<int>(std::max<int64_t>(
                    0, std::chrono::duration_cast<std::chrono::milliseconds>(until - std::chrono::steady_clock::now())
                           .count()));
            pollfd p{m_fd, POLLIN, 0};
            const int ready = ::poll(&p, 1, wait);
            if (ready < 0 && errno == EINTR) continue;
            if (ready <= 0) return false;
            char chunk[4096];
            const ssize_t n = ::read(m_fd, chunk, sizeof chunk);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) {
                m_eof = true;
                continue;
            }
            m_buf.append(chunk, static_cast<size_t>(n));
        }
    }

private:
    int m_fd;
    std::string m_buf;
    bool m_eof = false;
};

// Tests only (KS_TEST_WORKER_LOG): "id CUDA_VISIBLE_DEVICES start end worker" (seconds since the
// epoch; `worker` a random number drawn once per process: sandboxed workers all have pid 2).
void logWorkerTask(const char* path, const std::string& id, double t0) {
    static const unsigned long long worker = (static_cast<unsigned long long>(std::random_device{}()) << 32) ^
                                             std::random_device{}();
    const char* visible = std::getenv("CUDA_VISIBLE_DEVICES");
    std::ofstream log(path, std::ios::app);
    char line[256];
    std::snprintf(line, sizeof line, " %s %.6f %.6f %llx\n", visible ? visible : "unset", t0, epochSeconds(), worker);
    log << id << line;
}

// The worker's end once every result is in the protocol: the protocol is closed and the process
// ends at once. The engine's drawing threads and pinned blocks, LibTorch's and CUDA's teardown
// took 0.3-0.5 s on the H200, which the driver spent waiting for the exit (RESULTS.md).
// Its stdout and stderr (the caller's stderr) are closed too, so that a caller reading our stderr
// through a pipe sees its end without waiting for this process's teardown: the driver does not
// wait for it either (Driver::letEnd).
[[noreturn]] void endWorker(FILE* proto, int rc) {
    std::fclose(proto);
    std::cout.flush();
    std::cerr.flush();
    std::fflush(nullptr);
    if (const int null = ::open("/dev/null", O_WRONLY); null >= 0) {
        ::dup2(null, 1);
        ::dup2(null, 2);
    }
    // Tests only (tests/tools/test_filter_devices.py): an exit as slow as KS_TEST_WORKER_EXIT_DELAY
    // seconds, its end appended to KS_TEST_WORKER_EXIT_LOG as "exit SECONDS-SINCE-THE-EPOCH".
    if (const char* delay = std::getenv("KS_TEST_WORKER_EXIT_DELAY")) {
        std::this_thread::sleep_for(std::chrono::duration<double>(std::atof(delay)));
        if (const char* log = std::getenv("KS_TEST_WORKER_EXIT_LOG"))
            std::ofstream(log, std::ios::app) << "exit " << std::fixed << epochSeconds() << "\n";
    }
    std::_Exit(rc);
}

} // namespace

// The worker: runs the tasks of --task-ids in this process and reports on --worker-fd. Its stdout
// is sent to stderr first, so a task that prints (TorchScript has print) cannot forge a line.
int runWorker(const FilterArgs& a, std::atomic<bool>& cancel) {
    const int protoFd = ::dup(a.workerFd);
    FILE* proto = protoFd >= 0 ? ::fdopen(protoFd, "w") : nullptr;
    if (!proto) {
        std::cerr << "error: --worker-fd " << a.workerFd << " is not open\n";
        return Exit::Usage;
    }
    ::close(a.workerFd);
    std::cout.flush();
    ::dup2(2, 1);
    std::cout << std::unitbuf; // a task's prints show even when a timeout kills us right after
    std::cerr << std::unitbuf;
    auto emit = [proto](const std::string& line) {
        std::fputs(line.c_str(), proto);
        std::fputc('\n', proto);
        std::fflush(proto);
    };
    ks::Thresholds th;
    ks::Suite s;
    std::vector<ks::TaskSpec> tasks;
    // `--task-ids -`: the ids come on stdin, one at a time, as the driver hands them out (--devices).
    const bool streamed = a.taskIdsFile == "-";
    try {
        th = resolveThresholds(a.profile, a.thresholds);
        s = ks::loadSuite(a.suite);
        std::set<std::string> seen;
        std::string text = streamed ? std::string() : ks::readFile(a.taskIdsFile);
        size_t pos = 0;
        while (pos < text.size()) {
            const size_t nl = text.find('\n', pos);
            const std::string id = text.substr(pos, nl == std::string::npos ? std::string::npos : nl - pos);
            pos = nl == std::string::npos ? text.size() : nl + 1;
            if (id.empty()) continue;
            const ks::TaskSpec* t = s.find(id);
            if (!t) throw ks::Error("--task-ids: no task '" + id + "' in suite '" + a.suite + "'");
            tasks.push_back(*t);
        }
    } catch (const ks::Error& e) {
        std::cerr << "error: " << e.what() << "\n";
        return Exit::BadSuite;
    }
    traceStart("worker: suite loaded");
    ks::EngineOptions opt;
    opt.device = a.device;
    opt.seeds = a.seeds;
    opt.cpuGenerator = a.rng == "cpu";
    opt.drawThreads = a.drawThreads;
    opt.drawAhead = !a.noDrawAhead;
    opt.drawAheadTasks = a.drawAheadTasks;
    opt.gpuShare = std::max(1, a.gpuShare);
    if (!a.gpuGate.empty()) {
        try {
            opt.gate = std::make_shared<ks::GpuGate>(a.gpuGate);
        } catch (const ks::Error& e) {
            std::cerr << "error: --gpu-gate: " << e.what() << "\n";
            return Exit::BadDevice;
        }
    }
    opt.hostBudgetBytes = static_cast<int64_t>(a.hostMemoryGiB * double(int64_t{1} << 30));
    if (!a.preset.empty()) opt.preset = ks::parsePreset(a.preset);
    opt.cancel = &cancel;
    try {
        Criteria c;
        applyCriteria(a.criteria, c);
        opt.statistics = c.statistics;
        opt.inefficiency = c.inefficiency;
        opt.redundancy = c.redundancy;
    } catch (const ks::Error& e) {
        std::cerr << "error: " << e.what() << "\n";
        return Exit::Usage;
    }
    opt.inefficiencyOptions.minSpeedup = th.value(ks::Threshold::BaselineRewriteSpeedup);
    opt.inefficiencyOptions.minEfficiency = th.value(ks::Threshold::BaselineEfficiency);
    opt.inefficiencyOptions.maxPasses = th.value(ks::Threshold::BaselinePasses);
    opt.remeasureCeilings = a.remeasure;
    std::string currentId;
    opt.onPhase = [&](const ks::TaskSpec& t, const std::string& phase) {
        emit("{\"event\":\"task_phase\",\"id\":" + jsonString(t.id) + ",\"phase\":" + jsonString(phase) + "}");
    };
    std::unique_ptr<ks::Engine> engine;
    try {
        engine = std::make_unique<ks::Engine>(opt);
    } catch (const std::exception& e) {
        std::cerr << "error: " << e.what() << "\n";
        return Exit::BadDevice;
    }
    traceStart("worker: engine made (the device's context)");
    if (opt.inefficiency) {
        std::cerr << "device ceilings for filter 5 (copy bandwidth, FP32 peak)... " << std::flush;
        if (const auto* c = engine->ceilings())
            std::fprintf(stderr, "copy %.1f GB/s, FP32 %.1f GFLOP/s [%s]%s\n", c->copyBandwidthGBs, c->fp32PeakGflops,
                         c->source.c_str(), c->device == "cpu" ? " -- CPU timings" : "");
        else
            std::cerr << "unavailable: " << engine->ceilingsError() << " (filter 5 reports this error per task)\n";
    }
    const ks::RunInfo info = engine->runInfo(s.name);
    emit("{\"event\":\"start\",\"run\":" + ks::runInfoToJson(info) + "}");
    // --worker-memory: what this worker holds at a task's end beyond the page-locked blocks of its
    // operands (those are the host budget's and the pinned cache's, trimmed after each task):
    // libraries' caches that grow with every new shape (cuDNN's plans: bench/engine/RESULTS.md).
    // Past the limit it says so and ends; the driver runs the tasks after it in a fresh worker.
    const int64_t memoryLimit = static_cast<int64_t>(a.workerMemoryGiB * double(int64_t{1} << 30));
    auto overMemoryLimit = [&](const ks::TaskResult& tr) {
        const int64_t own = tr.rssAnonBytes - tr.pinnedHeldBytes;
        if (memoryLimit <= 0 || tr.rssAnonBytes <= 0 || own <= memoryLimit) return false;
        emit("{\"event\":\"recycle\",\"after\":" + jsonString(tr.id) + ",\"own_bytes\":" + std::to_string(own) +
             ",\"limit_bytes\":" + std::to_string(memoryLimit) + "}");
        return true;
    };
    // A task that broke the CUDA context (a device-side assert, an illegal address in one of its
    // kernels) leaves nothing usable in this process: every later CUDA call fails. It is an error,
    // whatever it reported (a fault found only at this sync may have struck any of its kernels, so
    // what it computed is not kept), and the tasks after it go to a fresh worker, as after
    // --worker-memory. Checked after every task of a CUDA run (one device sync).
    const bool cudaRun = info.device == "cuda";
    // Tests only (tests/tools/test_filter_devices.py): as if task ID had broken the CUDA context.
    const char* breakOn = std::getenv("KS_TEST_BREAK_CONTEXT_ON_TASK");
    auto brokeContext = [&](ks::TaskResult& tr) {
        std::string fault = cudaRun ? ks::cudaContextFault() : std::string();
        if (fault.empty() && breakOn && tr.id == breakOn)
            fault = "cudaErrorAssert: device-side assert triggered (KS_TEST_BREAK_CONTEXT_ON_TASK)";
        if (fault.empty()) return false;
        const std::string why = "the CUDA context is broken after it (" + fault + "); the tasks after it run in a fresh worker";
        if (tr.status == ks::TaskStatus::Error) {
            tr.error += "; " + why;
        } else if (const ks::TaskSpec* spec = s.find(tr.id)) {
            ks::TaskResult failed = ks::resultSkeleton(*spec);
            failed.status = ks::TaskStatus::Error;
            failed.error = "task " + tr.id + ": " + why + ". What it computed is not kept: the fault may have struck any of its kernels";
            failed.wallSeconds = tr.wallSeconds;
            failed.gpu = tr.gpu;
            tr = std::move(failed);
        }
        return true;
    };
    auto emitContextRecycle = [&](const ks::TaskResult& tr) {
        emit("{\"event\":\"recycle\",\"after\":" + jsonString(tr.id) + ",\"reason\":\"cuda_context\"}");
    };
    // Fault injection for the tests (tests/results_safety_test.cmake): a worker that crashes.
    const char* crashOn = std::getenv("KS_TEST_CRASH_ON_TASK");
    if (streamed) {
        // For the tests of --devices (tests/filter_devices_test.cmake), also test-only: each task
        // takes KS_TEST_TASK_SLEEP seconds longer (and KS_TEST_GATE_WAIT more, reported as a wait
        // for the GPU), and KS_TEST_WORKER_LOG gets "id
        // CUDA_VISIBLE_DEVICES start end" (seconds since the epoch) per task.
        const char* sleepFor = std::getenv("KS_TEST_TASK_SLEEP");
        const char* gateWaitFor = std::getenv("KS_TEST_GATE_WAIT"); // seconds, as if waiting for the GPU
        const char* logTo = std::getenv("KS_TEST_WORKER_LOG");
        const char* visible = std::getenv("CUDA_VISIBLE_DEVICES");
        bool cancelled = false;
        // The driver hands out the next --draw-ahead-tasks tasks before this one is done
        // (Driver::runOnGpu): read without blocking, they are the tasks whose operands are drawn
        // while this one runs.
        FdLineReader in(0);
        std::deque<std::string> ahead;
        const size_t aheadWanted = static_cast<size_t>(std::max(1, a.drawAheadTasks));
        auto known = [&](const std::string& name) -> const ks::TaskSpec* {
            const ks::TaskSpec* t = s.find(name);
            if (!t) std::cerr << "error: --task-ids -: no task '" << name << "' in suite '" << a.suite << "'\n";
            return t;
        };
        while (!cancelled) {
            std::string id;
            if (!ahead.empty()) {
                id = ahead.front();
                ahead.pop_front();
            } else if (!in.readLine(id, /*timeoutMs=*/-1)) {
                break;
            }
            if (id.empty()) continue;
            const ks::TaskSpec* t = known(id);
            if (!t) return Exit::BadSuite;
            // The driver tops the worker up as soon as it has read the last result: a moment's
            // wait gets the next task in time for drawing it ahead (or the end of input).
            // An empty line: nothing more for now (the driver keeps the last tasks for the others).
            std::string next;
            while (ahead.size() < aheadWanted && in.readLine(next, /*timeoutMs=*/250) && !next.empty())
                ahead.push_back(next);
            std::vector<const ks::TaskSpec*> upcoming;
            for (const auto& n : ahead) {
                const ks::TaskSpec* u = known(n);
                if (!u) return Exit::BadSuite;
                upcoming.push_back(u);
            }
            engine->setUpcoming(upcoming);
            const double t0 = epochSeconds();
            emit("{\"event\":\"task_start\",\"id\":" + jsonString(t->id) + "}");
            if (crashOn && t->id == crashOn) std::raise(SIGSEGV);
            if (sleepFor) std::this_thread::sleep_for(std::chrono::duration<double>(std::atof(sleepFor)));
            if (gateWaitFor) { // a wait for another worker's timing, as the engine reports one
                emit("{\"event\":\"task_phase\",\"id\":" + jsonString(t->id) + ",\"phase\":" +
                     jsonString(ks::kPhaseWaitingForGpu) + "}");
                std::this_thread::sleep_for(std::chrono::duration<double>(std::atof(gateWaitFor)));
            }
            ks::TaskResult tr;
            try {
                tr = engine->runTask(*t);
            } catch (const ks::Cancelled&) {
                cancelled = true;
                break;
            }
            if (logTo) logWorkerTask(logTo, t->id, t0);
            if (const char* aheadLog = std::getenv("KS_TEST_AHEAD_LOG")) { // tests: the tasks known next
                std::string names;
                for (const ks::TaskSpec* u : upcoming) names += (names.empty() ? "" : ",") + u->id;
                std::ofstream log(aheadLog, std::ios::app);
                log << t->id << ' ' << (names.empty() ? std::string("-") : names) << ' ' << (visible ? visible : "unset")
                    << '\n';
            }
            const bool broken = brokeContext(tr);
            emit("{\"event\":\"task\",\"result\":" + ks::taskResultToJson(tr) + "}");
            if (broken) {
                emitContextRecycle(tr);
                break; // the tasks handed to it and not run go back to the queue
            }
            if (overMemoryLimit(tr)) break; // the tasks handed to it and not run go back to the queue
        }
        emit(std::string("{\"event\":\"done\",\"cancelled\":") + (cancelled ? "true" : "false") + "}");
        endWorker(proto, cancelled ? Exit::Cancelled : Exit::Ok);
    }
    double taskT0 = 0;
    ks::RunResults r = engine->runAll(
        tasks, s.name, th,
        [&](const ks::TaskSpec& t, int, int) {
            taskT0 = epochSeconds();
            emit("{\"event\":\"task_start\",\"id\":" + jsonString(t.id) + "}");
            if (crashOn && t.id == crashOn) std::raise(SIGSEGV);
        },
        [&](const ks::TaskResult& t, int i, int total) {
            if (const char* logTo = std::getenv("KS_TEST_WORKER_LOG")) logWorkerTask(logTo, t.id, taskT0);
            ks::TaskResult tr = t;
            const bool broken = brokeContext(tr);
            emit("{\"event\":\"task\",\"result\":" + ks::taskResultToJson(tr) + "}");
            if (i + 1 == total) return true;
            if (broken) {
                emitContextRecycle(tr);
                return false;
            }
            return !overMemoryLimit(tr);
        });
    emit(std::string("{\"event\":\"done\",\"cancelled\":") + (r.run.cancelled ? "true" : "false") + "}");
    endWorker(proto, r.run.cancelled ? Exit::Cancelled : Exit::Ok);
}

} // namespace ks::cli::filter
