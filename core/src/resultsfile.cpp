// SPDX-License-Identifier: MIT
#include "ks/core/resultsfile.h"
#include "jsonutil.h"

#include <nlohmann/json.hpp>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <set>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

namespace ks {
namespace {
namespace fs = std::filesystem;
using json = nlohmann::json;

constexpr const char* JournalKind = "kernelsieve.journal";
constexpr int JournalVersion = 1;

std::string folderOf(const std::string& path) {
    const fs::path parent = fs::path(path).parent_path();
    return parent.empty() ? std::string(".") : parent.string();
}

// A file we create and remove: access(W_OK) says yes on some read-only mounts for root.
std::string writableProblem(const std::string& dir) {
    struct stat st {};
    if (::stat(dir.c_str(), &st) != 0) return "the folder " + dir + " does not exist";
    if (!S_ISDIR(st.st_mode)) return dir + " is not a folder";
    const std::string probe = dir + "/.kernelsieve-write-probe-" + std::to_string(::getpid());
    const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) return "cannot write in the folder " + dir + ": " + std::strerror(errno);
    ::close(fd);
    ::unlink(probe.c_str());
    return "";
}

std::string describeRun(const RunInfo& r) {
    return "suite '" + r.suite + "', " + r.device + (r.deviceName.empty() ? "" : " (" + r.deviceName + ")") +
           ", preset " + r.preset + ", " + std::to_string(r.seeds) + " seeds";
}

// The first of PATH-2.ext, PATH-3.ext... that no file, journal or lock uses.
std::string freeNameNextTo(const std::string& path) {
    const fs::path p(path);
    const std::string stem = (p.parent_path() / p.stem()).string();
    const std::string ext = p.extension().string();
    for (int i = 2;; ++i) {
        const std::string cand = stem + "-" + std::to_string(i) + ext;
        std::error_code ec;
        if (!fs::exists(cand, ec) && !fs::exists(ResultsSink::journalPath(cand), ec) &&
            !fs::exists(ResultsSink::lockPath(cand), ec))
            return cand;
    }
}

} // namespace

std::string resultsConflict(const RunResults& existing, const RunInfo& run, const std::vector<std::string>& plannedIds) {
    std::vector<std::string> why;
    const RunInfo& e = existing.run;
    auto differs = [&](const char* what, const std::string& a, const std::string& b) {
        if (a != b) why.push_back(std::string(what) + " " + (a.empty() ? "(none)" : a) + " (this run: " + b + ")");
    };
    differs("suite", e.suite, run.suite);
    differs("device", e.device + (e.deviceName.empty() ? "" : " " + e.deviceName),
            run.device + (run.deviceName.empty() ? "" : " " + run.deviceName));
    differs("preset", e.preset, run.preset);
    if (e.seeds != run.seeds)
        why.push_back("seeds " + std::to_string(e.seeds) + " (this run: " + std::to_string(run.seeds) + ")");
    if (!e.seedSemantics.empty()) differs("seed semantics", e.seedSemantics, run.seedSemantics);
    const std::set<std::string> planned(plannedIds.begin(), plannedIds.end());
    size_t dropped = 0;
    std::string example;
    for (const auto& t : existing.tasks)
        if (!planned.count(t.id)) {
            if (!dropped++) example = t.id;
        }
    if (dropped)
        why.push_back(std::to_string(dropped) + " of its " + std::to_string(existing.tasks.size()) +
                      " tasks are not in this run (e.g. " + example + ")");
    std::string out;
    for (const auto& w : why) out += (out.empty() ? "" : "; ") + w;
    return out;
}

ResultsSink::ResultsSink(std::string requestedPath, ResultsSinkOptions opt)
    : m_requested(std::move(requestedPath)), m_path(m_requested), m_opt(opt) {
    const std::string& p = m_requested;
    if (const std::string why = writableProblem(folderOf(p)); !why.empty())
        throw Error("--out " + p + ": " + why + "; nothing was run");
    struct stat st {};
    if (::lstat(p.c_str(), &st) == 0 && !S_ISREG(st.st_mode))
        throw Error("--out " + p + ": exists and is not a regular file; give a file name");

    // The lock: flock on PATH.lock, checked to still be the file at that name (a run finishing
    // meanwhile removes it, and a lock on a removed file protects nothing).
    const std::string lock = lockPath(p);
    for (int attempt = 0;; ++attempt) {
        m_lockFd = ::open(lock.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
        if (m_lockFd < 0) throw Error(lock + ": cannot create the lock file: " + std::strerror(errno));
        if (::flock(m_lockFd, LOCK_EX | LOCK_NB) != 0) {
            char buf[32] = {};
            const ssize_t n = ::pread(m_lockFd, buf, sizeof buf - 1, 0);
            ::close(m_lockFd);
            m_lockFd = -1;
            const std::string pid = n > 0 ? std::string(buf, static_cast<size_t>(n)) : "?";
            throw Error("--out " + p + ": another kernelsieve run is writing it (pid " + pid.substr(0, pid.find('\n')) +
                        "); wait for it to end or choose another --out");
        }
        struct stat a {}, b {};
        if (::fstat(m_lockFd, &a) == 0 && ::stat(lock.c_str(), &b) == 0 && a.st_ino == b.st_ino && a.st_dev == b.st_dev)
            break;
        ::close(m_lockFd);
        m_lockFd = -1;
        if (attempt > 10) throw Error(lock + ": the lock file keeps changing; is another run starting?");
    }
    const std::string pid = std::to_string(::getpid()) + "\n";
    if (::ftruncate(m_lockFd, 0) == 0 && ::pwrite(m_lockFd, pid.data(), pid.size(), 0) < 0) {
        // the pid is only for the message of a second run; the lock holds without it
    }

    // A constructor that throws runs no destructor: release the lock here.
    try {
        checkJournal();
    } catch (...) {
        ::unlink(lockPath(m_requested).c_str());
        ::close(m_lockFd);
        m_lockFd = -1;
        throw;
    }
}

void ResultsSink::checkJournal() {
    const std::string& p = m_requested;
    struct stat st {};
    const std::string journal = journalPath(p);
    const bool haveJournal = ::lstat(journal.c_str(), &st) == 0;
    if (m_opt.resume) {
        if (!haveJournal) throw Error("--resume: no unfinished run writes " + p + " (there is no " + journal + ")");
        readJournal();
        m_resume = true;
    } else if (haveJournal && !m_opt.force) {
        size_t lines = 0;
        try {
            const std::string text = readFile(journal);
            for (char c : text) lines += c == '\n';
        } catch (const Error&) {
        }
        throw Error("--out " + p + ": " + journal + " exists: a run writing this file did not finish (" +
                    std::to_string(lines > 2 ? lines - 2 : 0) +
                    " tasks saved in it). Continue that run with --resume, or pass --force to discard it");
    }
}

ResultsSink::~ResultsSink() {
    if (m_journalFd >= 0) ::close(m_journalFd);
    if (m_lockFd >= 0) {
        ::unlink(lockPath(m_requested).c_str());
        ::close(m_lockFd);
    }
}

void ResultsSink::readJournal() {
    const std::string path = journalPath(m_requested);
    const std::string text = readFile(path);
    std::vector<std::string> lines;
    size_t pos = 0;
    while (pos < text.size()) {
        const size_t nl = text.find('\n', pos);
        if (nl == std::string::npos) break; // the run died writing this line: not a finished task
        lines.push_back(text.substr(pos, nl - pos));
        pos = nl + 1;
    }
    if (lines.size() < 2) throw Error(path + ": not a KernelSieve journal (it ends before its header)");
    const json head = jsonutil::parse(lines[0], path);
    if (!head.is_object() || head.value("kind", json()) != JournalKind)
        throw Error(path + ": not a KernelSieve journal (line 1 is not its header)");
    const int64_t version = jsonutil::toInt(head.value("version", json()), "version", 1, 1000);
    if (version > JournalVersion)
        throw Error(path + ": journal version " + std::to_string(version) + " is newer than this kernelsieve reads (" +
                    std::to_string(JournalVersion) + ")");
    if (!head.contains("out") || !head.at("out").is_string()) throw Error(path + ": line 1: field 'out' is missing");
    m_path = head.at("out").get<std::string>();
    const RunResults header = resultsFromJson(lines[1], path + " (line 2)");
    m_resumedRun = header.run;
    for (size_t i = 2; i < lines.size(); ++i)
        m_resumed.push_back(taskResultFromJson(lines[i], path + " (line " + std::to_string(i + 1) + ")"));
}

void ResultsSink::begin(const RunInfo& run, const Thresholds& thresholds, const std::vector<std::string>& plannedIds) {
    const std::string journal = journalPath(m_requested);
    if (m_resume) {
        const RunInfo& j = m_resumedRun;
        std::vector<std::string> why;
        auto differs = [&](const char* what, const std::string& a, const std::string& b) {
            if (a != b) why.push_back(std::string(what) + " " + a + " in the journal, " + b + " now");
        };
        differs("suite", j.suite, run.suite);
        differs("device", j.device + " " + j.deviceName, run.device + " " + run.deviceName);
        differs("preset", j.preset, run.preset);
        differs("seeds", std::to_string(j.seeds), std::to_string(run.seeds));
        differs("seed semantics", j.seedSemantics, run.seedSemantics);
        if (!why.empty()) {
            std::string all;
            for (const auto& w : why) all += (all.empty() ? "" : "; ") + w;
            throw Error("--resume " + m_requested + ": this run differs from the one it would continue (" + all +
                        "); give the options of the first run");
        }
        // Drop a line the dead run left half-written, then append after it.
        const std::string text = readFile(journal);
        const size_t keep = text.rfind('\n') == std::string::npos ? 0 : text.rfind('\n') + 1;
        if (keep != text.size() && ::truncate(journal.c_str(), static_cast<off_t>(keep)) != 0)
            throw Error(journal + ": cannot drop its unfinished last line: " + std::strerror(errno));
        m_journalFd = ::open(journal.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
        if (m_journalFd < 0) throw Error(journal + ": cannot open for appending: " + std::strerror(errno));
        return;
    }

    m_path = m_requested;
    struct stat st {};
    if (::lstat(m_path.c_str(), &st) == 0 && !m_opt.force) {
        std::string why;
        try {
            const RunResults existing = resultsFromJson(readFile(m_path), m_path);
            if (const std::string c = resultsConflict(existing, run, plannedIds); !c.empty())
                why = "it holds another run (" + describeRun(existing.run) + ", " + std::to_string(existing.tasks.size()) +
                      " tasks; differs in " + c + ")";
        } catch (const Error& e) {
            why = "it is not a results file this run may replace (" + std::string(e.what()) + ")";
        }
        if (!why.empty()) {
            m_path = freeNameNextTo(m_requested);
            m_note = m_requested + " is kept: " + why + ". This run's results go to " + m_path +
                     "; pass --force to replace it";
        }
    }
    m_journalFd = ::open(journal.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
    if (m_journalFd < 0) throw Error(journal + ": cannot create the journal: " + std::strerror(errno));
    json head = {{"kind", JournalKind}, {"version", JournalVersion}, {"out", m_path}, {"tasks", plannedIds}};
    RunResults empty;
    empty.run = run;
    empty.thresholds = thresholds;
    writeLine(head.dump());
    writeLine(resultsToJson(empty, -1));
}

void ResultsSink::writeLine(const std::string& lineIn) {
    const std::string journal = journalPath(m_requested);
    if (m_journalFd < 0) throw Error(journal + ": the journal is not open (begin() was not called)");
    std::string line = lineIn;
    while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.pop_back();
    line += '\n';
    size_t done = 0;
    while (done < line.size()) {
        const ssize_t n = ::write(m_journalFd, line.data() + done, line.size() - done);
        if (n < 0) {
            if (errno == EINTR) continue;
            const int err = errno;
            // A half line is dropped on --resume; the tasks before it stay.
            throw Error(journal + ": cannot save a finished task: " + std::strerror(err) +
                        "; the tasks saved before it are kept there (--resume continues the run)");
        }
        done += static_cast<size_t>(n);
    }
    if (::fdatasync(m_journalFd) != 0 && errno != EINVAL)
        throw Error(journal + ": cannot save a finished task: " + std::strerror(errno));
}

void ResultsSink::append(const TaskResult& task) { writeLine(taskResultToJson(task)); }

void ResultsSink::finish(const RunResults& results) {
    const std::string journal = journalPath(m_requested);
    try {
        writeFileAtomic(m_path, resultsToJson(results), true);
    } catch (const Error& e) {
        throw Error(std::string(e.what()) + ". The finished tasks are kept in " + journal +
                    ": free the space or fix the folder, then run again with --resume");
    }
    if (m_journalFd >= 0) {
        ::close(m_journalFd);
        m_journalFd = -1;
    }
    ::unlink(journal.c_str());
}

} // namespace ks
