// SPDX-License-Identifier: MIT
// kernelsieve-cli import-kernelbench / import-robust-kbench: run the Python exporter
// (resources/importer/kernelbench_export.py, or robust_kbench_export.py for robust-kbench task
// folders) on a folder, show one line per task and check every task it wrote with the same loader
// `filter` uses. export-robust-kbench: a results file back out as one robust-kbench
// filter_results.json per task.

#include "cli_import.h"
#include "cli_common.h"

#include "ks/core/analysisreports.h"
#include "ks/core/criteria.h"
#include "ks/core/process.h"
#include "ks/core/sandbox.h"
#include "ks/core/results.h"
#include "ks/core/suite.h"
#include "ks/core/taskspec.h"
#include "ks/core/torchtask.h"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <cctype>
#include <chrono>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace ks::cli {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

enum Exit { Ok = 0, Usage = 2, BadInput = 3, WriteFailed = 5, NoPython = 6 };

constexpr const char* KernelBenchExporter = "kernelbench_export.py";
constexpr const char* RobustKbenchExporter = "robust_kbench_export.py";
constexpr const char* TorchHint = "python3 -m pip install torch==2.11.0";

struct ImportOptions {
    bool robustKbench = false; // import-robust-kbench: task folders, robust_kbench_export.py
    std::string folder, out, python, tasks, exporter, device = "auto";
    double timeout = 300;
    int jobs = 0, level = -1;
    bool jsonl = false;
};

struct ExportOptions {
    std::string results, out, profile, tasks, dirName = "name";
    std::vector<std::string> thresholds;
};

// Where the exporter may be: installed beside the binary, then the source tree this binary was
// built from. The first that exists wins; all are named when none does.
std::vector<fs::path> exporterCandidates(const char* name) {
    std::vector<fs::path> out;
    std::error_code ec;
    const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    if (!ec) {
        out.push_back(exe.parent_path() / ".." / "share" / "kernelsieve" / "importer" / name);
        out.push_back(exe.parent_path() / "importer" / name);
    }
#ifdef KS_SOURCE_DIR
    out.push_back(fs::path(KS_SOURCE_DIR) / "resources" / "importer" / name);
#endif
    return out;
}

std::optional<fs::path> findExporter(const std::string& given, const char* name, std::string& looked) {
    if (!given.empty()) {
        looked = given;
        return fs::is_regular_file(given) ? std::optional<fs::path>(given) : std::nullopt;
    }
    for (const auto& c : exporterCandidates(name)) {
        std::error_code ec;
        looked += (looked.empty() ? "" : ", ") + c.lexically_normal().string();
        if (fs::is_regular_file(c, ec)) return c.lexically_normal();
    }
    return std::nullopt;
}

// Pythons to try, in order: --python, then $KS_PYTHON, then python3 on PATH and the python this
// binary was built against (a development build finds its .venv that way).
std::vector<std::string> pythonCandidates(const std::string& given) {
    if (!given.empty()) return {given};
    if (const char* env = std::getenv("KS_PYTHON"); env && *env) return {env};
    std::vector<std::string> out{"python3"};
#ifdef KS_BUILD_PYTHON
    std::error_code ec;
    if (std::string(KS_BUILD_PYTHON) != "python3" && fs::exists(KS_BUILD_PYTHON, ec)) out.push_back(KS_BUILD_PYTHON);
#endif
    return out;
}

// Runs argv with stdout on a pipe, calling onLine for each line; stderr goes to ours. Returns
// the exit status (128 + signal when killed), or -1 with `spawnError` set when it cannot start.
// Runs the exporter in its own process group (killed whole at the end: a task file may leave a
// daemon), dying with us; every line it prints on stdout goes to `onLine`. Returns its exit
// status (128 + signal when killed), or -1 with `spawnError` when it could not start.
int runChild(const std::vector<std::string>& argv, const std::function<void(const std::string&)>& onLine,
             std::string& spawnError) {
    std::unique_ptr<ks::ChildProcess> child;
    try {
        // Huge pages for the CPU tensors the exporter draws at the task's full shapes (not measured
        // on the import yet; the filter's draws were 22-28 % faster with them).
        child = std::make_unique<ks::ChildProcess>(argv, -1, ks::ChildProcess::Protocol::Stdout, ks::hugePageEnv());
    } catch (const ks::Error& e) {
        spawnError = e.what();
        return -1;
    }
    std::string line;
    try {
        for (;;) {
            const auto got = child->readLine(line, 3600.0);
            if (got == ks::ChildProcess::Read::Eof) break;
            if (got != ks::ChildProcess::Read::Line) continue;
            while (!line.empty() && line.back() == '\r') line.pop_back();
            onLine(line);
        }
    } catch (const ks::Error& e) {
        std::cerr << "error: " << e.what() << "; the exporter was stopped\n";
        child->kill();
    }
    const ks::ProcessResult r = child->wait();
    if (r.exitCode == 127 && r.signal == 0) {
        spawnError = "it could not be executed (not found, or not a program)";
        // 127 is also what a shell says for "command not found"; the exporter never exits with it.
        return -1;
    }
    return r.exitCode >= 0 ? r.exitCode : 128 + r.signal;
}

std::string shapeText(const json& shape) {
    std::string s = "[";
    for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + shape[i].dump();
    return s + "]";
}

// The C++ side of an import: the spec must load and its artifact must match it, exactly as
// `filter` will need. Returns the error, or "" when fine.
std::string checkImported(const std::string& specPath, std::vector<std::string>& warnings) {
    try {
        const TaskSpec t = parseTaskSpec(readFile(specPath), specPath, [](const std::string& f) { return readFile(f); });
        compileTask(t);
        for (const auto& w : t.warnings) warnings.push_back(t.id + ": " + w);
        return {};
    } catch (const std::exception& e) {
        return std::string("written, but the engine cannot load it: ") + e.what();
    }
}

// "forward(in0, weight, 0.5)": a kernel call plan as one line (robust-kbench imports).
std::string callPlanText(const json& call) {
    std::string s = call.value("function", "forward") + "(";
    const json args = call.value("args", json::array());
    for (size_t i = 0; i < args.size(); ++i) {
        const json& a = args[i];
        s += i ? ", " : "";
        if (a.contains("input")) s += "in" + a["input"].dump();
        else if (a.contains("param")) s += a["param"].is_string() ? a["param"].get<std::string>() : a["param"].dump();
        else s += a.value("value", json()).dump();
    }
    return s + ")";
}

int runImport(const ImportOptions& o) {
    const char* exporterName = o.robustKbench ? RobustKbenchExporter : KernelBenchExporter;
    const char* what = o.robustKbench ? "robust-kbench" : "KernelBench";
    const char* units = o.robustKbench ? " task folders" : " files";
    std::error_code ec;
    if (!fs::is_directory(o.folder, ec)) {
        if (o.robustKbench)
            std::cerr << "error: " << o.folder << ": not a folder (expected a robust-kbench task folder with "
                      << "func_forward.py and config_forward.json, or a folder of them)\n";
        else
            std::cerr << "error: " << o.folder << ": not a folder (expected a KernelBench level folder such as "
                      << "KernelBench/KernelBench/level1)\n";
        return BadInput;
    }
    std::string looked;
    const auto exporter = findExporter(o.exporter, exporterName, looked);
    if (!exporter) {
        std::cerr << "error: the " << what << " exporter (" << exporterName << ") was not found; looked at: " << looked
                  << ". Reinstall kernelsieve, or pass --exporter PATH/TO/" << exporterName << "\n";
        return NoPython;
    }

    std::vector<std::string> tried;
    for (const auto& py : pythonCandidates(o.python)) {
        std::vector<std::string> argv{py, exporter->string(), o.folder, "--out", o.out, "--timeout",
                                      std::to_string(o.timeout), "--device", o.device};
        // Done below: the task files run in the sandbox, which may write the output suite only.
        if (!o.tasks.empty()) argv.insert(argv.end(), {"--tasks", o.tasks});
        if (o.jobs > 0) argv.insert(argv.end(), {"--jobs", std::to_string(o.jobs)});
        if (o.level >= 0 && !o.robustKbench) argv.insert(argv.end(), {"--level", std::to_string(o.level)});

        int ok = 0, failed = 0, fatalCode = 0;
        bool started = false, done = false, saidProgress = false;
        std::chrono::steady_clock::time_point lastProgress;
        std::string fatal, outDir;
        std::vector<std::string> warnings;
        auto onEvent = [&](const std::string& line, json& ev) {
            // (a malformed field throws json::exception, which onLine reports)
            const std::string event = ev.value("event", "");
            if (event == "fatal") {
                fatal = ev.value("error", "the exporter failed");
                fatalCode = ev.value("code", 1);
                return;
            }
            if (event == "start") {
                started = true;
                outDir = ev.value("out", "");
                if (o.jsonl) std::cout << line << "\n" << std::flush;
                else
                    std::cerr << "importing " << ev.value("total", 0) << units << " from " << ev.value("folder", o.folder)
                              << " into " << outDir << " (exporter " << ev.value("exporter_version", "?") << ", torch "
                              << ev.value("torch_version", "?") << ", " << py << ", " << ev.value("jobs", 1)
                              << " workers)\n";
                if (!o.jsonl && ev.contains("skipped") && ev["skipped"].is_array() && !ev["skipped"].empty()) {
                    std::string names;
                    for (const auto& n : ev["skipped"]) names += (names.empty() ? "" : ", ") + n.get<std::string>();
                    std::cerr << "skipped " << ev["skipped"].size() << " folders without func_forward.py: " << names << "\n";
                }
                return;
            }
            if (event == "file") {
                if (ev.value("status", "") == "ok") {
                    const std::string err = checkImported(ev.value("spec", ""), warnings);
                    if (!err.empty()) {
                        ev["status"] = "error";
                        ev["error"] = err;
                    }
                }
                const bool good = ev.value("status", "") == "ok";
                (good ? ok : failed) += 1;
                if (o.jsonl) {
                    std::cout << ev.dump() << "\n" << std::flush;
                    return;
                }
                std::string details;
                if (good) {
                    const int ni = ev.value("inputs", 0), np = ev.value("params", 0);
                    details = std::to_string(ni) + (ni == 1 ? " input, " : " inputs, ") + std::to_string(np) +
                              (np == 1 ? " param -> " : " params -> ") +
                              shapeText(ev["output"].value("shape", json::array())) + " " + ev["output"].value("dtype", "");
                    if (ev.contains("uninferred") && !ev["uninferred"].empty()) {
                        std::string names;
                        for (const auto& n : ev["uninferred"]) names += (names.empty() ? "" : ", ") + n.get<std::string>();
                        details += "; check the init of: " + names;
                    }
                    if (ev.contains("rng_compatible") && ev["rng_compatible"].is_boolean() && !ev["rng_compatible"].get<bool>())
                        details += "; seed 0 differs from robust-kbench's draws";
                    if (ev.contains("kernel_call") && ev["kernel_call"].is_object()) {
                        const json& kc = ev["kernel_call"];
                        details += kc.contains("error") ? "; no kernel call plan: " + kc.value("error", std::string())
                                                        : "; kernel call " + callPlanText(kc);
                    }
                } else {
                    details = ev.value("error", "failed");
                }
                // Out of GPU memory beside other import workers, then retried alone.
                if (ev.contains("note") && ev["note"].is_string()) details += " [" + ev["note"].get<std::string>() + "]";
                std::printf("%-5s %-9s %-44s %s\n", good ? "ok" : "error", ev.value("id", "").c_str(),
                            ev.value("file", "").c_str(), details.c_str());
                std::fflush(stdout);
                return;
            }
            if (event == "progress") {
                // Files done whose lines wait for an earlier file's: on stderr, at most every 5 s.
                if (o.jsonl) {
                    std::cout << line << "\n" << std::flush;
                    return;
                }
                const auto now = std::chrono::steady_clock::now();
                if (saidProgress && now - lastProgress < std::chrono::seconds(5)) return;
                saidProgress = true;
                lastProgress = now;
                std::cerr << ev.value("finished", 0) << " of " << ev.value("total", 0) << units
                          << " done; the next line waits for " << ev.value("waiting_for", std::string("?")) << "\n";
                return;
            }
            if (event == "retry_alone") {
                // The file's own line, and those of the files after it, come after the retry.
                if (o.jsonl) std::cout << line << "\n" << std::flush;
                else
                    std::cerr << "retry " << ev.value("file", "") << ": out of GPU memory beside the other import "
                              << "workers; imported again alone once the other files are done\n";
                return;
            }
            if (event == "done") {
                done = true;
                if (o.jsonl) {
                    json d = ev;
                    d["ok"] = ok;
                    d["failed"] = failed;
                    std::cout << d.dump() << "\n" << std::flush;
                } else {
                    std::printf("%d of %d%s imported, %d failed, in %.1f s -> %s\n", ok, ok + failed, units, failed,
                                ev.value("seconds", 0.0), ev.value("out", outDir).c_str());
                    std::fflush(stdout);
                }
            }
        };
        auto onLine = [&](const std::string& line) {
            json ev;
            try {
                if (!ks::jsonNestingProblem(line).empty()) throw std::runtime_error("too deep");
                ev = json::parse(line);
                if (!ev.is_object() || !ev.contains("event") || !ev.at("event").is_string())
                    throw std::runtime_error("no event");
            } catch (const std::exception&) {
                std::cerr << line.substr(0, 2000) << "\n"; // not protocol: let the user see it
                return;
            }
            try {
                onEvent(line, ev);
            } catch (const json::exception& e) {
                // A well-formed line with a field of the wrong type: say so and go on.
                std::cerr << "warning: the exporter wrote a malformed '" << ev.at("event").get<std::string>()
                          << "' event (" << e.what() << "): " << line.substr(0, 200) << "\n";
            }
        };
        std::string spawnError;
        ks::SandboxSpec box;
        box.writable = {std::filesystem::absolute(o.out).string()};
        const int rc = runChild(ks::sandboxed(argv, box), onLine, spawnError);
        for (const auto& w : warnings) std::cerr << "warning: " << w << "\n";
        if (rc < 0) {
            tried.push_back(py + " (cannot run it: " + spawnError + ")");
            continue;
        }
        if (fatalCode == 4) { // torch missing: maybe the next python has it
            tried.push_back(py + " (" + fatal + ")");
            continue;
        }
        if (!fatal.empty()) {
            std::cerr << "error: " << fatal << "\n";
            return fatalCode == 3 ? BadInput : fatalCode == 5 ? WriteFailed : NoPython;
        }
        if (!done && started) {
            std::cerr << "error: the exporter (" << py << " " << exporter->string() << ") stopped before it finished, "
                      << "exit status " << rc << "; see the messages above\n";
            return NoPython;
        }
        if (!done) { // it never spoke: an interpreter that cannot run the exporter (too old, broken)
            tried.push_back(py + " (it could not run the exporter, exit status " + std::to_string(rc) +
                            "; see the messages above)");
            continue;
        }
        if (!o.jsonl) std::cerr << "next: kernelsieve-cli filter --suite " << o.out << "\n";
        return Ok;
    }
    std::cerr << "error: no Python with torch could run the " << what << " exporter; tried: ";
    for (size_t i = 0; i < tried.size(); ++i) std::cerr << (i ? "; " : "") << tried[i];
    std::cerr << ".\nThe import needs Python 3 with torch (" << TorchHint
              << "); pass --python /path/to/python3 or set KS_PYTHON.\n";
    return NoPython;
}

// --- export-robust-kbench ---------------------------------------------------------------------

Thresholds thresholdsFor(const ExportOptions& o, const Thresholds& stored) {
    Thresholds t = stored.values.empty() ? Thresholds::defaults() : stored;
    if (!o.profile.empty()) {
        if (auto p = builtinProfile(o.profile)) t = *p;
        else if (fs::exists(o.profile)) t = parseProfile(readFile(o.profile), o.profile);
        else throw Error("--profile '" + o.profile + "' is neither a built-in profile nor a readable profile file");
    }
    for (const auto& s : o.thresholds)
        applyThresholdOverride(t, s);
    return t;
}

json finiteOrNull(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }

// robust-kbench's four keys first (their code writes exactly these booleans per task), ours nested
// under "kernelsieve" so their tooling reads the file unchanged.
json filterResultsJson(const TaskResult& r, const RunResults& rr, const Thresholds& t) {
    static const std::pair<Criterion, const char*> keys[] = {
        {Criterion::OutputRange, "filter_output_range"},
        {Criterion::OutputStd, "filter_output_std"},
        {Criterion::OutputAxes, "filter_output_axes"},
        {Criterion::InputImpact, "filter_input_impact"}};
    json j = json::object();
    const bool ok = r.status == TaskStatus::Ok;
    for (const auto& [c, key] : keys) j[key] = ok && r.criterionRun(c) ? json(r.flagged(c, t)) : json(nullptr);
    json metrics = json::object(), thresholds = json::object(), flags = json::object();
    for (const auto& ci : criteria()) {
        metrics[ci.key] = finiteOrNull(r.metric(ci.criterion, t));
        flags[ci.key] = ok && r.criterionRun(ci.criterion) ? json(r.flagged(ci.criterion, t)) : json(nullptr);
    }
    for (const auto& ti : thresholdInfos()) thresholds[ti.key] = t.value(ti.threshold);
    metrics["output_axes_axis"] = r.axes.minAxis() >= 0 ? json(r.axes.minAxis()) : json(nullptr);
    json perAxis = json::array();
    for (double v : r.axes.perAxis) perAxis.push_back(finiteOrNull(v));
    metrics["output_axes_per_axis"] = perAxis;
    metrics["output_range_min"] = finiteOrNull(r.range.min);
    metrics["output_range_max"] = finiteOrNull(r.range.max);
    metrics["output_std_mean"] = finiteOrNull(r.outputStd.meanStd);
    metrics["input_impact_mean"] = finiteOrNull(r.inputImpact.meanStd);
    // Filters 5-6, where robust-kbench asks an LLM: what was measured and why it flags.
    if (r.inefficiency) {
        const auto& ie = *r.inefficiency;
        const auto v = inefficiencyVerdict(ie, t);
        metrics["baseline_inefficiency_detail"] = {
            {"best_rule", ie.bestRule},          {"best_speedup", finiteOrNull(ie.bestSpeedup)},
            {"efficiency", finiteOrNull(ie.efficiency)}, {"passes", finiteOrNull(ie.passes)},
            {"memory_bound", ie.memoryBound},    {"eager_ms", finiteOrNull(ie.eagerMs)},
            {"floor_ms", finiteOrNull(ie.floorMs)}, {"timed_on", ie.device == "cpu" ? "CPU" : "CUDA"},
            {"flagged_by", {{"rewrite", v.rewrite}, {"efficiency", v.efficiency}, {"passes", v.passes}}},
            {"summary", inefficiencySummary(ie, t)}, {"error", ie.error}};
    }
    if (r.redundancy) {
        const auto& re = *r.redundancy;
        const json rj = redundancyReportToJson(re);
        metrics["redundant_computation_detail"] = {{"flop_fraction", finiteOrNull(re.flopFraction())},
                                                   {"nodes", rj.at("nodes")},
                                                   {"unused_arguments", rj.at("unused_arguments")},
                                                   {"summary", redundancySummary(re)},
                                                   {"error", re.error}};
    }
    j["kernelsieve"] = {
        {"task_id", r.id},
        {"task_name", r.name},
        {"level", r.level},
        {"number", r.number},
        {"category", r.category},
        {"status", taskStatusName(r.status)},
        {"error", r.error},
        {"output_shape", r.outputShape},
        {"seeds", r.seeds},
        {"input_impact_param_seed", rr.run.inputImpactParamSeed},
        {"device", rr.run.device},
        {"device_name", rr.run.deviceName},
        {"preset", rr.run.preset},
        {"tool_version", rr.run.toolVersion},
        {"created", rr.run.created},
        {"threshold_profile", t.profile},
        {"thresholds", thresholds},
        {"metrics", metrics},
        {"flags", flags},
    };
    return j;
}

std::string safeDirName(const std::string& s) {
    std::string out;
    for (char c : s) out += (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.') ? c : '_';
    if (out.empty() || out == "." || out == "..") out = "task";
    return out;
}

int runExport(const ExportOptions& o) {
    RunResults rr;
    try {
        rr = resultsFromJson(readFile(o.results), o.results);
    } catch (const Error& e) {
        std::cerr << "error: " << e.what() << "\n";
        return BadInput;
    }
    Thresholds t;
    try {
        t = thresholdsFor(o, rr.thresholds);
    } catch (const Error& e) {
        std::cerr << "error: " << e.what() << "\n";
        return Usage;
    }
    // robust-kbench's std filters read as "no flag" on every task of a run with one seed.
    // (0 is a file without run info: unknown, not one seed.)
    if (const std::string w = seedCountWarning(rr.run.seeds); rr.run.seeds > 0 && !w.empty())
        std::cerr << "warning: " << o.results << " was run with " << rr.run.seeds << " seed: " << w
                  << "\n";
    int written = 0;
    // Folder name -> the task written there. Two names can sanitise alike ("a/b" and "a_b", or two
    // tasks sharing a name); the second one then gets its id appended, and we say so, because a
    // silently overwritten folder made "100 written" mean 97.
    std::map<std::string, std::string> folders;
    for (const auto& r : rr.tasks) {
        if (!o.tasks.empty()) {
            bool match = false;
            size_t start = 0;
            while (start <= o.tasks.size() && !match) {
                const size_t comma = o.tasks.find(',', start);
                const std::string g = o.tasks.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
                match = !g.empty() && (globMatch(g, r.id) || globMatch(g, r.name));
                if (comma == std::string::npos) break;
                start = comma + 1;
            }
            if (!match) continue;
        }
        const json j = filterResultsJson(r, rr, t);
        const std::string wanted = safeDirName(o.dirName == "id" || r.name.empty() ? r.id : r.name);
        std::string folder = wanted;
        for (int n = 2; folders.count(folder); ++n)
            folder = wanted + "_" + safeDirName(r.id) + (n == 2 ? "" : "_" + std::to_string(n - 1));
        if (folder != wanted)
            std::cerr << "warning: task " << r.id << " and task " << folders.at(wanted)
                      << " both map to folder '" << wanted << "'; " << r.id << " is written to '"
                      << folder << "' instead\n";
        folders.emplace(folder, r.id);
        const fs::path dir = fs::path(o.out) / folder;
        const fs::path file = dir / "filter_results.json";
        try {
            std::error_code ec;
            fs::create_directories(dir, ec);
            if (ec) throw Error(dir.string() + ": cannot create the folder: " + ec.message());
            writeFileAtomic(file.string(), j.dump(4) + "\n");
        } catch (const Error& e) {
            std::cerr << "error: " << e.what() << "\n";
            return WriteFailed;
        }
        std::string flagged;
        for (const char* k : {"filter_output_range", "filter_output_std", "filter_output_axes", "filter_input_impact"})
            if (j[k].is_boolean() && j[k].get<bool>()) flagged += (flagged.empty() ? "" : ",") + std::string(k + 7);
        std::printf("%-9s %s  %s\n", r.id.c_str(), file.string().c_str(),
                    r.status != TaskStatus::Ok ? "(error: flags null)" : flagged.empty() ? "no flags" : flagged.c_str());
        ++written;
    }
    if (written == 0) {
        std::cerr << "error: no task in " << o.results << (o.tasks.empty() ? "" : " matches --tasks '" + o.tasks + "'")
                  << "\n";
        return BadInput;
    }
    std::printf("%d filter_results.json files written under %s (thresholds: %s)\n", written, o.out.c_str(),
                t.profile.c_str());
    return Ok;
}

} // namespace

void addImportCommands(CLI::App& app, std::function<int()>& action) {
    auto io = std::make_shared<ImportOptions>();
    auto* imp = app.add_subcommand("import-kernelbench",
                                   "Turn a KernelBench folder of <N>_<Name>.py tasks into a KernelSieve suite "
                                   "(needs Python with torch while importing)");
    imp->add_option("PATH", io->folder, "A KernelBench level folder, e.g. KernelBench/KernelBench/level1")->required();
    imp->add_option("--out", io->out, "Suite folder to write (tasks go to OUT/<folder name>/)")->required();
    imp->add_option("--python", io->python, "Python with torch (default: $KS_PYTHON, else python3 on PATH)");
    imp->add_option("--tasks", io->tasks, "Only files whose name or id matches (globs, comma-separated)");
    imp->add_option("--timeout", io->timeout, "Seconds per file before it is abandoned")->capture_default_str()
        ->check(finiteSeconds());
    imp->add_option("--jobs", io->jobs, "Files exported in parallel (default: min(4, cores))")->check(CLI::NonNegativeNumber);
    imp->add_option("--level", io->level, "Level to record (default: from the folder name, e.g. level1)")
        ->check(CLI::Range(0, 9));
    imp->add_option("--trace-device", io->device, "Where the models run while tracing: auto|cpu|cuda")
        ->capture_default_str()->check(CLI::IsMember({"auto", "cpu", "cuda"}));
    imp->add_option("--exporter", io->exporter, "The exporter script (default: found next to the binary)");
    imp->add_flag("--jsonl", io->jsonl, "Print the exporter's JSON lines (one per file) instead of a table");
    imp->fallthrough(); // --no-sandbox may follow the subcommand
    imp->callback([&action, io] {
        action = [io] {
            if (const int rc = checkSandbox()) return rc;
            return runImport(*io);
        };
    });

    auto ro = std::make_shared<ImportOptions>();
    ro->robustKbench = true;
    auto* rk = app.add_subcommand("import-robust-kbench",
                                  "Turn robust-kbench task folders (func_forward.py, config_forward.json) into a "
                                  "KernelSieve suite (needs Python with torch while importing)");
    rk->add_option("PATH", ro->folder, "A robust-kbench task folder, or a folder of task folders")->required();
    rk->add_option("--out", ro->out, "Suite folder to write (each task goes to OUT/<task folder name>/)")->required();
    rk->add_option("--python", ro->python, "Python with torch (default: $KS_PYTHON, else python3 on PATH)");
    rk->add_option("--tasks", ro->tasks, "Only task folders whose name or id (RK-<name>) matches (globs, comma-separated)");
    rk->add_option("--timeout", ro->timeout, "Seconds per task before it is abandoned")->capture_default_str()
        ->check(finiteSeconds());
    rk->add_option("--jobs", ro->jobs, "Tasks exported in parallel (default: min(4, cores))")->check(CLI::NonNegativeNumber);
    rk->add_option("--trace-device", ro->device, "Where the models run while tracing: auto|cpu|cuda")
        ->capture_default_str()->check(CLI::IsMember({"auto", "cpu", "cuda"}));
    rk->add_option("--exporter", ro->exporter, "The exporter script (default: found next to the binary)");
    rk->add_flag("--jsonl", ro->jsonl, "Print the exporter's JSON lines (one per task) instead of a table");
    rk->fallthrough();
    rk->callback([&action, ro] {
        action = [ro] {
            if (const int rc = checkSandbox()) return rc;
            return runImport(*ro);
        };
    });

    auto eo = std::make_shared<ExportOptions>();
    auto* exp = app.add_subcommand("export-robust-kbench",
                                   "Write one robust-kbench filter_results.json per task from a results file");
    exp->add_option("RESULTS", eo->results, "A results file written by `filter` (results.json)")->required();
    exp->add_option("--out", eo->out, "Folder to write <task>/filter_results.json into")->required();
    exp->add_option("--profile", eo->profile, "Thresholds: a built-in profile or a profile file (default: the results')");
    exp->add_option("--threshold", eo->thresholds, "Override one threshold, NAME=VALUE (repeatable)");
    exp->add_option("--tasks", eo->tasks, "Only tasks whose id or name matches (globs, comma-separated)");
    exp->add_option("--dir-name", eo->dirName, "Name each task folder by its KernelBench name or its id")
        ->capture_default_str()->check(CLI::IsMember({"name", "id"}));
    exp->callback([&action, eo] { action = [eo] { return runExport(*eo); }; });
}

} // namespace ks::cli
