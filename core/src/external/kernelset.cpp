// SPDX-License-Identifier: MIT
// Finding external kernels and their tasks (docs/external-kernels.md, "Layout"), resolving call
// plans, and capturing ModelNew files through the Python capture script.
#include "../jsonutil.h"
#include "ks/core/external.h"
#include "ks/core/sandbox.h"
#include "ks/core/process.h"
#include "ks/core/results.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <unistd.h>

namespace ks {
namespace fs = std::filesystem;
using json = nlohmann::json;

std::string CallArg::describe() const {
    switch (kind) {
    case Kind::Input: return "input " + name;
    case Kind::Param: return "param " + name;
    case Kind::Value: return valueJson;
    }
    return "";
}

std::vector<CallArg> defaultCallPlan(const TaskSpec& spec) {
    std::vector<CallArg> plan;
    for (size_t i = 0; i < spec.inputs.size(); ++i)
        plan.push_back({CallArg::Kind::Input, static_cast<int>(i), spec.inputs[i].name, ""});
    for (size_t i = 0; i < spec.params.size(); ++i)
        plan.push_back({CallArg::Kind::Param, static_cast<int>(i), spec.params[i].name, ""});
    return plan;
}

namespace {

CallArg argByName(const TaskSpec& spec, const std::string& name, const std::string& where) {
    for (size_t i = 0; i < spec.inputs.size(); ++i)
        if (spec.inputs[i].name == name) return {CallArg::Kind::Input, static_cast<int>(i), name, ""};
    for (size_t i = 0; i < spec.params.size(); ++i)
        if (spec.params[i].name == name) return {CallArg::Kind::Param, static_cast<int>(i), name, ""};
    std::string known;
    for (const auto& t : spec.inputs) known += (known.empty() ? "" : ", ") + t.name;
    for (const auto& t : spec.params) known += (known.empty() ? "" : ", ") + t.name;
    throw Error(where + ": task " + spec.id + " has no input or parameter named '" + name + "' (it has: " +
                (known.empty() ? "none" : known) + ")");
}

bool isLiteral(const json& v) {
    if (v.is_number() || v.is_boolean() || v.is_null()) return true;
    if (v.is_array()) return std::all_of(v.begin(), v.end(), [](const json& x) { return x.is_number_integer(); });
    return false;
}

// One plan entry: "name", a literal, or {"input": i} / {"param": "name"} / {"value": v}.
CallArg parseArg(const TaskSpec& spec, const json& a, const std::string& where) {
    if (a.is_string()) return argByName(spec, a.get<std::string>(), where);
    if (isLiteral(a)) return {CallArg::Kind::Value, -1, "", a.dump()};
    if (a.is_object() && a.size() == 1) {
        if (a.contains("input")) {
            const json& i = a["input"];
            if (i.is_number_integer() && i.get<int>() >= 0 && i.get<size_t>() < spec.inputs.size())
                return {CallArg::Kind::Input, i.get<int>(), spec.inputs[i.get<size_t>()].name, ""};
            if (i.is_string()) return argByName(spec, i.get<std::string>(), where);
            throw Error(where + ": input " + i.dump() + " is not one of task " + spec.id + "'s " +
                        std::to_string(spec.inputs.size()) + " inputs");
        }
        if (a.contains("param")) {
            if (!a["param"].is_string()) throw Error(where + ": a param is named by a string");
            const CallArg c = argByName(spec, a["param"].get<std::string>(), where);
            if (c.kind != CallArg::Kind::Param)
                throw Error(where + ": '" + c.name + "' is an input of task " + spec.id + ", not a parameter");
            return c;
        }
        if (a.contains("value") && isLiteral(a["value"])) return {CallArg::Kind::Value, -1, "", a["value"].dump()};
    }
    throw Error(where + ": argument " + a.dump() +
                " is neither a task input/parameter name nor a number, bool, null or list of ints");
}

} // namespace

std::vector<CallArg> resolveCallPlan(const TaskSpec& spec, const std::string& argsJson) {
    const json a = jsonutil::parse(argsJson, "call plan");
    if (!a.is_array()) throw Error("call plan: `args` must be a list");
    std::vector<CallArg> plan;
    for (size_t i = 0; i < a.size(); ++i) plan.push_back(parseArg(spec, a[i], "args[" + std::to_string(i) + "]"));
    return plan;
}

std::string callPlanToJson(const std::vector<CallArg>& plan) {
    json a = json::array();
    for (const auto& c : plan) {
        switch (c.kind) {
        case CallArg::Kind::Input: a.push_back({{"input", c.index}, {"name", c.name}}); break;
        case CallArg::Kind::Param: a.push_back({{"param", c.index}, {"name", c.name}}); break;
        case CallArg::Kind::Value: a.push_back({{"value", json::parse(c.valueJson)}}); break;
        }
    }
    return a.dump();
}

std::vector<CallArg> callPlanFromJson(const std::string& text) {
    // callPlanToJson wrote it, but it reaches the bench worker as text (--plan): a bad one is a
    // ks::Error, not an nlohmann exception or a read of a missing key (an entry {} crashed here).
    const json j = jsonutil::parse(text, "call plan");
    if (!j.is_array()) throw Error("call plan: must be a list, got " + jsonutil::brief(j));
    std::vector<CallArg> plan;
    for (size_t i = 0; i < j.size(); ++i) {
        const json& a = j[i];
        const std::string where = "call plan: args[" + std::to_string(i) + "]: ";
        if (!a.is_object()) throw Error(where + "must be an object, got " + jsonutil::brief(a));
        CallArg c;
        try {
            if (a.contains("input") || a.contains("param")) {
                const char* key = a.contains("input") ? "input" : "param";
                c.kind = a.contains("input") ? CallArg::Kind::Input : CallArg::Kind::Param;
                c.index = static_cast<int>(
                    jsonutil::getInt(a, key, 0, 0, std::numeric_limits<int>::max()));
            } else if (a.contains("value") && isLiteral(a.at("value"))) {
                c.kind = CallArg::Kind::Value;
                c.valueJson = a.at("value").dump();
            } else {
                throw Error(
                    "needs \"input\", \"param\" or a \"value\" that is a number, bool, null or "
                    "list of ints, got " +
                    jsonutil::brief(a));
            }
            c.name = jsonutil::getString(a, "name");
        } catch (const Error& e) {
            throw Error(where + e.what());
        }
        plan.push_back(c);
    }
    return plan;
}

namespace {

std::string lower(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return s;
}

// A task by id or name (case-insensitive), or nullptr.
const TaskSpec* findTaskRef(const Suite& suite, const std::string& ref) {
    if (const TaskSpec* t = suite.find(ref)) return t;
    for (const auto& t : suite.tasks)
        if (lower(t.id) == lower(ref) || lower(t.name) == lower(ref)) return &t;
    return nullptr;
}

std::string formatOf(const fs::path& file) {
    const std::string ext = lower(file.extension().string());
    if (ext == ".cu" || ext == ".cuh" || ext == ".cpp") return "torch-extension";
    if (ext == ".py") return "modelnew";
    return "";
}

std::string findCaptureScript(const std::string& given) {
    if (!given.empty()) return given;
    std::vector<fs::path> c;
    std::error_code ec;
    const fs::path self = fs::read_symlink("/proc/self/exe", ec);
    if (!ec) c.push_back(self.parent_path().parent_path() / "share/kernelsieve/importer/kernel_capture.py");
#ifdef KS_SOURCE_DIR
    c.push_back(fs::path(KS_SOURCE_DIR) / "resources/importer/kernel_capture.py");
#endif
    for (const auto& p : c)
        if (fs::is_regular_file(p, ec)) return p.string();
    throw Error("the ModelNew capture script (kernel_capture.py) was not found; reinstall kernelsieve");
}

std::string findPython(const std::string& given) {
    if (!given.empty()) return given;
    if (const char* e = std::getenv("KS_PYTHON"); e && *e) return e;
#ifdef KS_BUILD_PYTHON
    std::error_code ec;
    if (fs::exists(KS_BUILD_PYTHON, ec)) return KS_BUILD_PYTHON;
#endif
    return "python3";
}

// load_inline's two files: cpp_sources after <torch/extension.h> with the bindings, cuda_sources
// after the headers it prepends.
void captureModelNew(ExternalKernel& k, const TaskSpec& spec, const DiscoverOptions& opt) {
    const fs::path tmp = fs::temp_directory_path() /
                         ("kernelsieve-capture-" + std::to_string(::getpid()) + "-" + sha256Hex(k.file + k.taskId).substr(0, 12));
    fs::create_directories(tmp);
    struct Cleanup {
        std::string dir;
        ~Cleanup() { removeTree(dir); }
    } cleanup{tmp.string()};
    const std::string taskJson = (tmp / "task.json").string();
    writeFileAtomic(taskJson, spec.specText);
    const std::string result = (tmp / "capture.json").string();
    const std::string log = (tmp / "capture.log").string();
    // The ModelNew file is a stranger's Python: run it in the sandbox, writing its scratch only.
    SandboxSpec box;
    box.writable = {tmp.string()};
    const ProcessResult p = runProcess(sandboxed({findPython(opt.python), findCaptureScript(opt.captureScript), "modelnew",
                                                  k.file, "--task-json", taskJson, "--out", result},
                                                 box),
                                       log, opt.captureTimeoutSeconds, nullptr, tmp.string());
    std::error_code ec;
    if (!fs::exists(result, ec))
        throw Error("the ModelNew capture did not finish (" + p.describe() + "): " + fileTail(log, 1500));
    json c;
    try {
        c = json::parse(readFile(result));
    } catch (const json::exception& e) {
        throw Error(std::string("the ModelNew capture wrote no valid JSON: ") + e.what());
    }
    if (c.contains("error")) throw Error(c["error"].get<std::string>());
    auto joined = [&](const char* key) {
        const json& v = c.value(key, json());
        if (v.is_string()) return v.get<std::string>();
        std::string s;
        if (v.is_array())
            for (const auto& x : v) s += x.get<std::string>() + "\n";
        return s;
    };
    const json call = c.value("call", json::object());
    k.function = call.value("function", "");
    if (k.function.empty()) throw Error("the capture names no function that forward calls");
    std::vector<std::string> functions;
    const json fj = c.value("functions", json::array());
    if (fj.is_array())
        for (const auto& f : fj) functions.push_back(f.get<std::string>());
    else if (fj.is_object())
        for (const auto& [name, doc] : fj.items()) functions.push_back(name);
    else if (fj.is_string())
        functions.push_back(fj.get<std::string>());
    std::string main = "#include <torch/extension.h>\n" + joined("cpp_sources") + "\nPYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {\n";
    for (const auto& f : functions) main += "  m.def(\"" + f + "\", &" + f + ", \"" + f + "\");\n";
    main += "}\n";
    k.sources = {{"main.cpp", main}};
    const std::string cuda = joined("cuda_sources");
    if (!cuda.empty())
        k.sources.push_back({"cuda.cu", "#include <torch/types.h>\n#include <cuda.h>\n#include <cuda_runtime.h>\n" + cuda});
    for (const char* key : {"extra_cuda_cflags", "extra_cflags"})
        for (const auto& f : c.value(key, json::array())) {
            const std::string flag = f.get<std::string>();
            k.nvccFlags.push_back(std::string(key) == "extra_cflags" ? "-Xcompiler=" + flag : flag);
        }
    k.args = resolveCallPlan(spec, call.value("args", json::array()).dump());
}

// The plan a robust-kbench import recorded (`kernel_call` in the task JSON), if any.
std::optional<std::vector<CallArg>> recordedCallPlan(const TaskSpec& spec, std::string* function) {
    try {
        const json j = json::parse(spec.specText);
        if (!j.contains("kernel_call")) return std::nullopt;
        const json& kc = j["kernel_call"];
        if (function) *function = kc.value("function", "forward");
        return resolveCallPlan(spec, kc.value("args", json::array()).dump());
    } catch (const json::exception&) {
        return std::nullopt;
    }
}

// Fills the kernel's sources, plan and flags from its file and task; problems go to `error`.
void prepare(ExternalKernel& k, const Suite& suite, const std::string& taskRef, const json& entry,
             const DiscoverOptions& opt) {
    try {
        const TaskSpec* spec = findTaskRef(suite, taskRef);
        if (!spec) throw Error("no task '" + taskRef + "' in suite '" + suite.name + "'");
        k.taskId = spec->id;
        if (entry.contains("function")) k.function = entry["function"].get<std::string>();
        if (entry.contains("expect")) k.expect = entry["expect"].get<std::string>();
        if (entry.contains("nvcc_flags"))
            for (const auto& f : entry["nvcc_flags"]) k.nvccFlags.push_back(f.get<std::string>());
        std::error_code ec;
        if (!fs::is_regular_file(k.file, ec)) throw Error("not a regular file");
        if (fs::file_size(k.file, ec) > 4u << 20) throw Error("larger than 4 MiB; not a kernel source");
        if (k.format == "modelnew") {
            captureModelNew(k, *spec, opt);
        } else {
            k.sources = {{fs::path(k.file).filename().string(), readFile(k.file)}};
            if (fs::path(k.sources[0].first).extension() != ".cu") k.sources[0].first += ".cu";
            std::string fn;
            if (entry.contains("args")) k.args = resolveCallPlan(*spec, entry["args"].dump());
            else if (auto rec = recordedCallPlan(*spec, &fn)) {
                k.args = *rec;
                if (!entry.contains("function")) k.function = fn;
            } else
                k.args = defaultCallPlan(*spec);
        }
    } catch (const Error& e) {
        k.error = fs::path(k.file).filename().string() + ": " + e.what();
    } catch (const json::exception& e) {
        k.error = fs::path(k.file).filename().string() + ": " + e.what();
    }
}

} // namespace

std::vector<ExternalKernel> discoverKernels(const std::string& path, const Suite& suite, const DiscoverOptions& opt,
                                            std::vector<std::string>* warnings) {
    std::error_code ec;
    const fs::path root = fs::weakly_canonical(path, ec);
    if (ec || !fs::exists(root, ec)) throw Error("--kernels " + path + ": no such file or folder");
    std::vector<ExternalKernel> out;
    auto warn = [&](const std::string& w) {
        if (warnings) warnings->push_back(w);
    };
    auto add = [&](const fs::path& file, const std::string& taskRef, const std::string& name, const std::string& format,
                   const json& entry) {
        ExternalKernel k;
        k.file = file.string();
        k.name = name;
        k.format = format;
        prepare(k, suite, taskRef, entry, opt);
        out.push_back(std::move(k));
    };

    if (fs::is_regular_file(root, ec)) {
        const std::string format = formatOf(root);
        if (format.empty()) throw Error("--kernels " + path + ": not a .cu or .py kernel file");
        const auto tasks = selectTasks(suite, opt.tasksPattern);
        if (tasks.size() != 1)
            throw Error("--kernels " + path + " is one file: --tasks must name exactly one task of suite '" + suite.name +
                        "' (it matches " + std::to_string(tasks.size()) + ")");
        add(root, tasks[0].id, root.stem().string(), format, json::object());
        return out;
    }
    if (!fs::is_directory(root, ec)) throw Error("--kernels " + path + ": neither a file nor a folder");

    const fs::path manifest = root / "kernels.json";
    if (fs::exists(manifest, ec)) {
        const json m = jsonutil::parse(readFile(manifest.string()), manifest.string());
        const json kind = m.is_object() && m.contains("kind") ? m.at("kind") : json();
        if (!kind.is_string() || kind.get<std::string>() != "kernelsieve.kernels")
            throw Error(manifest.string() + ": not a kernel manifest (\"kind\" must be \"kernelsieve.kernels\")");
        // Strict: 1.5 read as 1 through value<int>().
        const json fv = m.contains("format_version") ? m.at("format_version") : json();
        if (!fv.is_number_integer() || fv.get<int64_t>() != 1)
            throw Error(manifest.string() + ": format_version must be the integer 1, got " +
                        jsonutil::brief(fv));
        if (!m.contains("kernels") || !m["kernels"].is_array())
            throw Error(manifest.string() + ": \"kernels\" must be a list");
        std::set<std::pair<std::string, std::string>> seen;
        int i = 0;
        for (const auto& e : m["kernels"]) {
            const std::string where = manifest.filename().string() + " kernels[" + std::to_string(i++) + "]";
            // A bad entry becomes a refused kernel of its own, so the rest of the manifest still
            // runs.
            auto refuse = [&](const std::string& why) {
                ExternalKernel k;
                k.name = where;
                k.file = manifest.string();
                k.format = "torch-extension";
                k.error = where + ": " + why;
                out.push_back(std::move(k));
            };
            if (!e.is_object() || !e.contains("file") || !e["file"].is_string() ||
                !e.contains("task") || !e["task"].is_string()) {
                refuse("needs \"file\" and \"task\" strings");
                continue;
            }
            const fs::path file = (root / e["file"].get<std::string>()).lexically_normal();
            const std::string rel = file.lexically_relative(root).string();
            std::string format, name;
            try {
                format = jsonutil::getString(e, "format", formatOf(file));
                name = jsonutil::getString(e, "name", file.stem().string());
                for (const char* key : {"function", "expect"})
                    jsonutil::getString(e, key);
                jsonutil::getStrings(e, "nvcc_flags");
            } catch (const Error& bad) {
                refuse(bad.what());
                continue;
            }
            if (!opt.tasksPattern.empty()) {
                const TaskSpec* t = findTaskRef(suite, e["task"].get<std::string>());
                if (t && !matchesAnyGlob(opt.tasksPattern, t->id) && !matchesAnyGlob(opt.tasksPattern, t->name)) continue;
            }
            ExternalKernel k;
            k.file = file.string();
            k.name = name;
            k.format = format.empty() ? "torch-extension" : format;
            if (rel.empty() || rel.rfind("..", 0) == 0) k.error = where + ": " + rel + " leaves the manifest's folder";
            else if (format.empty()) k.error = where + ": " + rel + " is neither .cu nor .py (set \"format\")";
            else if (const TaskSpec* t = findTaskRef(suite, e["task"].get<std::string>());
                     !seen.insert({t ? t->id : e["task"].get<std::string>(), name}).second)
                k.error = where + ": a second kernel named '" + name + "' for task " + e["task"].get<std::string>();
            if (k.error.empty()) prepare(k, suite, e["task"].get<std::string>(), e, opt);
            else if (const TaskSpec* t = findTaskRef(suite, e["task"].get<std::string>())) k.taskId = t->id;
            out.push_back(std::move(k));
        }
        return out;
    }

    // No manifest: subfolders named after tasks; robust-kbench task folders.
    std::vector<fs::path> dirs;
    for (const auto& d : fs::directory_iterator(root, ec))
        if (d.is_directory()) dirs.push_back(d.path());
        else warn(d.path().filename().string() + ": a file at the top of --kernels without a manifest; skipped");
    std::sort(dirs.begin(), dirs.end());
    for (const auto& d : dirs) {
        const std::string folder = d.filename().string();
        const TaskSpec* t = findTaskRef(suite, folder);
        const bool robust = fs::exists(d / "func_forward.py", ec);
        if (!t) {
            warn(folder + "/: no task of suite '" + suite.name + "' has this id or name" +
                 (robust ? " (import the robust-kbench folder first: kernelsieve-cli import-robust-kbench)" : "") +
                 "; skipped");
            continue;
        }
        if (!opt.tasksPattern.empty() && !matchesAnyGlob(opt.tasksPattern, t->id) &&
            !matchesAnyGlob(opt.tasksPattern, t->name))
            continue;
        std::vector<fs::path> files;
        for (const auto& f : fs::directory_iterator(d, ec))
            if (f.is_regular_file() && !formatOf(f.path()).empty()) files.push_back(f.path());
        std::sort(files.begin(), files.end());
        for (const auto& f : files) {
            if (robust && f.filename() != "forward.cu") continue; // func_forward.py is the task, not a kernel
            add(f, t->id, f.stem().string(), robust ? "robust-kbench" : formatOf(f), json::object());
        }
    }
    return out;
}

} // namespace ks
