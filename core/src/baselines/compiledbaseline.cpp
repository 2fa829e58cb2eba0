// SPDX-License-Identifier: MIT
// The compiled baseline's build step: one sandboxed aoti_compile.py per task, cached, in parallel.
#include "ks/core/compiledbaseline.h"

#include "ks/core/external.h"
#include "ks/core/process.h"
#include "ks/core/results.h"
#include "ks/core/sandbox.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <mutex>
#include <sstream>
#include <thread>
#include <unistd.h>

namespace ks {
namespace {
namespace fs = std::filesystem;
using json = nlohmann::json;

constexpr const char* ScriptName = "aoti_compile.py";
constexpr const char* KeyVersion = "ks-aoti-1";

std::string findScript(const std::string& given) {
    if (!given.empty()) {
        if (!fs::is_regular_file(given)) throw Error("the baseline compile script " + given + " does not exist");
        return given;
    }
    std::vector<fs::path> c;
    std::error_code ec;
    const fs::path self = fs::read_symlink("/proc/self/exe", ec);
    if (!ec) {
        c.push_back(self.parent_path().parent_path() / "share/kernelsieve/importer" / ScriptName);
        c.push_back(self.parent_path() / "importer" / ScriptName);
    }
#ifdef KS_SOURCE_DIR
    c.push_back(fs::path(KS_SOURCE_DIR) / "resources/importer" / ScriptName);
#endif
    std::string looked;
    for (const auto& p : c) {
        if (fs::is_regular_file(p, ec)) return p.lexically_normal().string();
        looked += (looked.empty() ? "" : ", ") + p.lexically_normal().string();
    }
    throw Error(std::string("the baseline compile script (") + ScriptName + ") was not found; looked at " + looked);
}

// The script's verdict: its last stdout line that is a JSON object with "ok".
json verdictOf(const std::string& logPath) {
    std::istringstream in(fileTail(logPath, 64 * 1024));
    std::string line;
    json last;
    while (std::getline(in, line)) {
        if (line.empty() || line.front() != '{') continue;
        try {
            json j = json::parse(line);
            if (j.is_object() && j.contains("ok") && j["ok"].is_boolean()) last = std::move(j);
        } catch (const json::exception&) {
        }
    }
    return last;
}

std::string lastLine(std::string text) {
    while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
    const auto nl = text.rfind('\n');
    return nl == std::string::npos ? text : text.substr(nl + 1);
}

struct Job {
    const TaskSpec* task;
    std::string spec, key;
};

BaselineCompileResult compileOne(const Job& job, const BaselineCompileOptions& opt, const TorchPython& py,
                                 const std::string& script, const std::string& cacheDir, int threads,
                                 const std::atomic<bool>* cancel) {
    BaselineCompileResult r;
    r.taskId = job.task->id;
    r.key = job.key;
    const fs::path dir = fs::path(cacheDir) / r.key.substr(0, 2) / r.key;
    std::error_code ec;
    if (fs::exists(dir / "status.json", ec)) {
        try {
            const json s = json::parse(readFile((dir / "status.json").string()));
            r.cacheHit = true;
            r.ok = s.value("ok", false);
            r.exportMethod = s.value("export", "");
            r.error = s.value("error", "");
            r.log = fileTail((dir / "compile.log").string(), 4000);
            r.packagePath = r.ok ? (dir / "model").string() : "";
            if (!r.ok || fs::exists(r.packagePath, ec)) return r;
        } catch (const std::exception&) {
            // A damaged entry is compiled again.
        }
        r = BaselineCompileResult{};
        r.taskId = job.task->id;
        r.key = job.key;
    }
    // Compile in a private folder, renamed into place when done: parallel runs never see half a package.
    static std::atomic<int> counter{0};
    const fs::path tmp = fs::path(cacheDir) / r.key.substr(0, 2) /
                         (r.key + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter++));
    fs::create_directories(tmp / "home", ec);
    if (ec) {
        r.error = "cannot create the baseline cache folder " + tmp.string() + ": " + ec.message();
        return r;
    }
    try {
        writeFileAtomic((tmp / "spec.json").string(), job.spec);
    } catch (const Error& e) {
        r.error = e.what();
        removeTree(tmp.string());
        return r;
    }
    // Inductor's and Triton's own caches go into the private folder (the sandbox lets it write
    // nowhere else) and are dropped afterwards: the package is what we keep.
    const std::string t = tmp.string();
    const std::vector<std::string> argv{"/usr/bin/env",
                                        "TORCHINDUCTOR_CACHE_DIR=" + t + "/inductor",
                                        "TRITON_CACHE_DIR=" + t + "/triton",
                                        "XDG_CACHE_HOME=" + t + "/cache",
                                        "HOME=" + t + "/home",
                                        "TORCHINDUCTOR_COMPILE_THREADS=" + std::to_string(threads),
                                        "PYTHONDONTWRITEBYTECODE=1",
                                        py.python, script, t + "/spec.json", t + "/model.pt2"};
    SandboxSpec box;
    box.writable = {t};
    const std::string log = t + "/compile.log";
    const auto t0 = std::chrono::steady_clock::now();
    const ProcessResult p = runProcess(sandboxed(argv, box), log, opt.timeoutSeconds, cancel, t);
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    r.log = fileTail(log, 4000);
    const json v = verdictOf(log);
    r.ok = p.ok() && v.is_object() && v.value("ok", false) && fs::exists(tmp / "model.pt2", ec) &&
           fs::is_directory(tmp / "model", ec);
    r.exportMethod = v.is_object() ? v.value("export", "") : "";
    if (!r.ok) {
        if (v.is_object() && !v.value("ok", true))
            r.error = v.value("stage", "compile") + " failed: " + v.value("error", "no message");
        else if (!p.startError.empty())
            r.error = "cannot start " + py.python + ": " + p.startError;
        else
            r.error = "the compile script " + p.describe() + (r.log.empty() ? "" : ": " + lastLine(r.log));
    }
    // Only the task's own failures are cached; a timeout, a cancel, a missing Python or torch is not
    // the task's fault.
    const int code = p.exitCode;
    if (!r.ok && (p.timedOut || p.cancelled || !p.startError.empty() || code != 2)) {
        if (p.timedOut) r.error = "the compile took longer than " + std::to_string(static_cast<int>(opt.timeoutSeconds)) + " s and was stopped";
        if (p.cancelled) r.error = "cancelled";
        removeTree(t);
        return r;
    }
    for (const char* sub : {"inductor", "triton", "cache", "home"}) removeTree((tmp / sub).string());
    try {
        writeFileAtomic((tmp / "status.json").string(),
                        json{{"ok", r.ok}, {"seconds", r.seconds}, {"export", r.exportMethod}, {"error", r.error},
                             {"task", r.taskId}, {"torch", py.torchVersion}}
                            .dump());
    } catch (const Error& e) {
        r.ok = false;
        r.error = e.what();
        removeTree(t);
        return r;
    }
    std::error_code rec;
    fs::rename(tmp, dir, rec);
    if (rec) removeTree(t); // another run put it there first: use theirs
    r.packagePath = r.ok ? (dir / "model").string() : "";
    if (r.ok && !fs::exists(r.packagePath, ec)) {
        r.ok = false;
        r.error = "the compiled package is missing from the cache folder " + dir.string();
    }
    return r;
}

} // namespace

std::string defaultBaselineCacheDir() { return userCacheDir("KS_BASELINE_CACHE", "baselines"); }

TorchPython findTorchPython(const std::string& given) {
    static std::mutex m;
    static std::map<std::string, TorchPython> found;
    std::lock_guard<std::mutex> lock(m);
    if (auto it = found.find(given); it != found.end()) return it->second;
    std::vector<std::string> candidates;
    if (!given.empty()) candidates = {given};
    else if (const char* env = std::getenv("KS_PYTHON"); env && *env) candidates = {env};
    else {
        candidates = {"python3"};
#ifdef KS_BUILD_PYTHON
        std::error_code ec;
        if (std::string(KS_BUILD_PYTHON) != "python3" && fs::exists(KS_BUILD_PYTHON, ec)) candidates.push_back(KS_BUILD_PYTHON);
#endif
    }
    std::string tried;
    const std::string out = (fs::temp_directory_path() / ("ks-torch-version-" + std::to_string(::getpid()))).string();
    for (const auto& py : candidates) {
        const ProcessResult p = runProcess(
            {py, "-c", "import sys, torch; sys.stdout.write('ks-torch ' + torch.__version__.split('+')[0] + '\\n')"},
            out, 120);
        const std::string text = fileTail(out, 4000);
        ::unlink(out.c_str());
        const auto at = text.rfind("ks-torch ");
        if (p.ok() && at != std::string::npos) {
            std::string v = text.substr(at + 9);
            while (!v.empty() && (v.back() == '\n' || v.back() == '\r')) v.pop_back();
            return found[given] = TorchPython{py, v};
        }
        tried += (tried.empty() ? "" : "; ") + py + " (" +
                 (p.startError.empty() ? (text.empty() ? p.describe() : lastLine(text)) : p.startError) + ")";
    }
    throw Error("no Python with torch was found for compiling baselines (tried " + tried +
                "); pass --python /path/to/python3 or set KS_PYTHON, or run with --baselines eager");
}

std::string baselineCompileSpec(const TaskSpec& task, const BaselineCompileOptions& opt) {
    TaskSpec t = task;
    t.overrideDims(opt.preset, opt.dims);
    json args = json::array();
    for (const auto* list : {&t.inputs, &t.params})
        for (const auto& ts : *list) args.push_back({{"name", ts.name}, {"shape", t.shapeOf(ts, opt.preset)}, {"dtype", ts.dtype}});
    json j{{"task", t.id}, {"entry", t.entry}, {"device", opt.device}, {"args", args}};
    if (!t.artifactPath.empty()) {
        j["artifact"] = fs::absolute(t.artifactPath).lexically_normal().string();
        j["source"] = nullptr;
    } else {
        j["artifact"] = nullptr;
        j["source"] = t.source;
    }
    return j.dump(1);
}

std::vector<std::string> parseBaselines(const std::string& list) {
    std::vector<std::string> out;
    std::stringstream in(list);
    std::string item;
    while (std::getline(in, item, ',')) {
        item.erase(0, item.find_first_not_of(" \t"));
        item.erase(item.find_last_not_of(" \t") + 1);
        if (item.empty()) continue;
        if (item != "eager" && item != "compiled" && item != "graph")
            throw Error("unknown baseline '" + item + "' (the baselines are eager, compiled and graph)");
        if (std::find(out.begin(), out.end(), item) == out.end()) out.push_back(item);
    }
    if (std::find(out.begin(), out.end(), "eager") == out.end())
        throw Error("--baselines must include eager (every speedup is also given against it)");
    std::stable_partition(out.begin(), out.end(), [](const std::string& s) { return s == "eager"; });
    return out;
}

std::vector<BaselineCompileResult> compileBaselines(const std::vector<TaskSpec>& tasks, const BaselineCompileOptions& opt,
                                                    const BaselineCompileProgress& progress,
                                                    const std::atomic<bool>* cancel) {
    std::vector<BaselineCompileResult> results(tasks.size());
    auto failAll = [&](const std::string& why) {
        for (size_t i = 0; i < tasks.size(); ++i) {
            results[i].taskId = tasks[i].id;
            results[i].error = why;
            if (progress) progress(results[i], static_cast<int>(i + 1), static_cast<int>(tasks.size()));
        }
        return results;
    };
    TorchPython py;
    std::string script;
    try {
        py = findTorchPython(opt.python);
        script = findScript(opt.script);
    } catch (const Error& e) {
        return failAll(e.what());
    }
    const std::string cacheDir = opt.cacheDir.empty() ? defaultBaselineCacheDir() : opt.cacheDir;
    std::string scriptText;
    try {
        scriptText = readFile(script);
    } catch (const Error& e) {
        return failAll(e.what());
    }
    std::vector<Job> jobs;
    for (const auto& t : tasks) {
        Job j{&t, baselineCompileSpec(t, opt), ""};
        std::string keyText = std::string(KeyVersion) + "\n" + scriptText + "\ntorch " + py.torchVersion + "\ndevice " +
                              opt.device + " " + opt.deviceName + "\n";
        json spec = json::parse(j.spec);
        if (!t.artifactPath.empty()) {
            try {
                keyText += "artifact " + sha256Hex(readFile(t.artifactPath)) + "\n";
            } catch (const Error& e) {
                keyText += std::string("artifact unreadable ") + e.what() + "\n";
            }
            spec.erase("artifact"); // where the suite lies does not shape the package
        }
        j.key = sha256Hex(keyText + spec.dump());
        jobs.push_back(std::move(j));
    }
    const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    int n = opt.jobs > 0 ? opt.jobs : std::max(1, cores / 4);
    n = std::min<int>(n, static_cast<int>(std::max<size_t>(1, tasks.size())));
    const int threads = std::max(1, cores / n); // Inductor's own compile threads per compile
    std::atomic<int> done{0};
    std::mutex m;
    forEachParallel(jobs.size(), n, [&](size_t i) {
        BaselineCompileResult r;
        if (cancel && cancel->load()) {
            r.taskId = tasks[i].id;
            r.key = jobs[i].key;
            r.error = "cancelled before compiling";
        } else {
            r = compileOne(jobs[i], opt, py, script, cacheDir, threads, cancel);
        }
        results[i] = r;
        const int d = ++done;
        std::lock_guard<std::mutex> lock(m);
        if (progress) progress(results[i], d, static_cast<int>(tasks.size()));
    });
    return results;
}

} // namespace ks
