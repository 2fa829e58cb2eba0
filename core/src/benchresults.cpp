// SPDX-License-Identifier: MIT
#include "ks/core/benchresults.h"
#include "jsonutil.h"

namespace ks {
namespace {
using json = nlohmann::json;
using jsonutil::getNum;
using jsonutil::num;

json numArray(const std::vector<double>& v) {
    json a = json::array();
    for (double x : v) a.push_back(num(x));
    return a;
}

std::vector<double> numArrayFrom(const json& j, const char* key) {
    std::vector<double> out;
    if (!j.contains(key)) return out;
    for (const auto& v : j.at(key)) out.push_back(jsonutil::toNum(v, key));
    return out;
}

json timingToJson(const TimingStats& t) {
    return json{{"warmup", t.warmup},       {"runs", t.runs},         {"l2_flush", t.l2Flush},
                {"hide_launch_latency", t.hideLaunchLatency}, {"spin_us", num(t.spinUs)},
                {"median_ms", num(t.medianMs)}, {"mean_ms", num(t.meanMs)}, {"min_ms", num(t.minMs)},
                {"q1_ms", num(t.q1Ms)},     {"q3_ms", num(t.q3Ms)},   {"samples_ms", numArray(t.samplesMs)}};
}

TimingStats timingFromJson(const json& j) {
    TimingStats t;
    if (!j.is_object()) return t;
    t.warmup = j.value("warmup", 0);
    t.runs = j.value("runs", 0);
    t.l2Flush = j.value("l2_flush", false);
    t.hideLaunchLatency = j.value("hide_launch_latency", false);
    t.spinUs = j.contains("spin_us") ? getNum(j, "spin_us") : 0.0;
    t.medianMs = getNum(j, "median_ms");
    t.meanMs = getNum(j, "mean_ms");
    t.minMs = getNum(j, "min_ms");
    t.q1Ms = getNum(j, "q1_ms");
    t.q3Ms = getNum(j, "q3_ms");
    t.samplesMs = numArrayFrom(j, "samples_ms");
    return t;
}

json validationToJson(const ValidationResult& v) {
    return json{{"run", v.run},
                {"passed", v.passed},
                {"seeds", v.seeds},
                {"atol", v.atol},
                {"rtol", v.rtol},
                {"max_abs_err", num(v.maxAbsErr)},
                {"max_rel_err", num(v.maxRelErr)},
                {"first_mismatch", v.firstMismatch},
                {"failures", v.failures},
                {"checks", v.checks}};
}

ValidationResult validationFromJson(const json& j) {
    ValidationResult v;
    if (!j.is_object()) return v;
    v.run = j.value("run", false);
    v.passed = j.value("passed", false);
    v.seeds = j.value("seeds", 0);
    v.atol = getNum(j, "atol", 1e-5);
    v.rtol = getNum(j, "rtol", 1e-4);
    v.maxAbsErr = getNum(j, "max_abs_err");
    v.maxRelErr = getNum(j, "max_rel_err");
    v.firstMismatch = j.value("first_mismatch", std::vector<int64_t>{});
    v.failures = j.value("failures", std::vector<std::string>{});
    v.checks = j.value("checks", std::vector<std::string>{});
    return v;
}

json externalToJson(const ExternalInfo& e) {
    return json{{"format", e.format},           {"file", e.file},
                {"function", e.function},       {"args", e.args},
                {"expect", e.expect},           {"source_hash", e.sourceHash},
                {"compiled", e.compiled},       {"cache_hit", e.cacheHit},
                {"compile_s", num(e.compileSeconds)}, {"compile_log", e.compileLog},
                {"kernel_names", e.kernelNames}, {"precision_ratio", num(e.precisionRatio)}};
}

ExternalInfo externalFromJson(const json& j) {
    ExternalInfo e;
    if (!j.is_object()) return e;
    e.format = j.value("format", "");
    e.file = j.value("file", "");
    e.function = j.value("function", "");
    e.args = j.value("args", std::vector<std::string>{});
    e.expect = j.value("expect", "");
    e.sourceHash = j.value("source_hash", "");
    e.compiled = j.value("compiled", false);
    e.cacheHit = j.value("cache_hit", false);
    e.compileSeconds = getNum(j, "compile_s");
    e.compileLog = j.value("compile_log", "");
    e.kernelNames = j.value("kernel_names", std::vector<std::string>{});
    e.precisionRatio = getNum(j, "precision_ratio");
    return e;
}

} // namespace

bool VariantResult::hasGuard(const std::string& g) const {
    for (const auto& h : guardHits)
        if (h.guard == g) return true;
    return false;
}

std::string variantVerdict(const VariantResult& v) {
    // A file that never became a callable kernel: the compiler said no, or KernelSieve refused it
    // before compiling (a ModelNew forward it cannot reproduce, a manifest entry it cannot place).
    if (v.isExternal() && !v.external.compiled) return v.external.compileLog.empty() ? "refused" : "compile error";
    if (!v.error.empty()) return "failed";
    for (const auto& h : v.guardHits)
        if (h.guard != "library") return "cheat";
    if (v.impossible) return "cheat";
    if (!v.unsupported.empty()) return "unsupported";
    if (!v.validation.run) return "not run";
    return v.validation.passed ? "valid" : "invalid";
}

std::string verdictDetail(const VariantResult& v) {
    const std::string verdict = variantVerdict(v);
    if (verdict == "compile error") {
        std::string log = v.external.compileLog;
        // The compiler's first error line says the most ("file.cu(11): error: ...", "error: ...");
        // a bare "error" can be part of a file name.
        auto at = log.find(": error");
        if (at == std::string::npos) at = log.find("error:");
        if (at == std::string::npos) at = log.find("error");
        if (at != std::string::npos) {
            const auto start = log.rfind('\n', at);
            const auto end = log.find('\n', at);
            log = log.substr(start == std::string::npos ? 0 : start + 1,
                             end == std::string::npos ? std::string::npos : end - (start == std::string::npos ? 0 : start + 1));
        }
        return log;
    }
    if (verdict == "failed" || verdict == "refused") return v.error;
    if (verdict == "cheat") {
        std::string s;
        for (const auto& h : v.guardHits)
            if (h.guard != "library") s += (s.empty() ? "" : "; ") + h.guard + ": " + h.detail;
        if (v.impossible) s += (s.empty() ? "" : "; ") + std::string("impossible-speed: ") + v.impossibleWhy;
        return s;
    }
    if (verdict == "invalid" && !v.validation.failures.empty()) return v.validation.failures.front();
    if (verdict == "unsupported") return v.unsupported;
    if (v.hasGuard("library")) return "library: no CUDA kernel of its own ran";
    return "";
}

std::string benchToJson(const BenchRun& b, int indent) {
    json j;
    j["schema"] = "kernelsieve.bench";
    j["schema_version"] = BenchSchemaVersion;
    j["run"] = {{"tool_version", b.toolVersion},
                {"created", b.created},
                {"device", b.device},
                {"device_name", b.deviceName},
                {"driver", b.driver},
                {"libtorch_version", b.libtorchVersion},
                {"cuda_version", b.cudaVersion},
                {"preset", b.preset},
                {"sm_clock", b.smClock},
                {"mem_clock", b.memClock},
                {"copy_bandwidth_gbs", num(b.copyBandwidthGBs)},
                {"fp32_peak_tflops", num(b.fp32PeakTflops)},
                {"settings", timingToJson(b.settings)}};
    if (!b.dims.empty()) j["run"]["dims"] = b.dims;
    j["tasks"] = json::array();
    for (const auto& t : b.tasks) {
        json tj{{"task_id", t.taskId},        {"task_name", t.taskName},     {"op", t.op},
                {"shape", t.shape},           {"min_bytes", num(t.minBytes)}, {"flops", num(t.flops)},
                {"baseline", timingToJson(t.baseline)}, {"baseline_error", t.baselineError}};
        tj["variants"] = json::array();
        for (const auto& v : t.variants)
            tj["variants"].push_back({{"name", v.name},
                                      {"summary", v.summary},
                                      {"version", v.version},
                                      {"shortcut", v.shortcut},
                                      {"unsupported", v.unsupported},
                                      {"error", v.error},
                                      {"validation", validationToJson(v.validation)},
                                      {"timing", timingToJson(v.timing)},
                                      {"speedup", num(v.speedup)},
                                      {"gbps", num(v.gbps)},
                                      {"pct_copy_bandwidth", num(v.pctCopyBandwidth)},
                                      {"impossible", v.impossible},
                                      {"impossible_why", v.impossibleWhy}});
        for (size_t i = 0; i < t.variants.size(); ++i) {
            const auto& v = t.variants[i];
            json& vj = tj["variants"][i];
            if (!v.guardHits.empty()) {
                vj["guard_hits"] = json::array();
                for (const auto& h : v.guardHits) vj["guard_hits"].push_back({{"guard", h.guard}, {"detail", h.detail}});
            }
            if (v.isExternal()) vj["external"] = externalToJson(v.external);
            vj["verdict"] = variantVerdict(v);
        }
        j["tasks"].push_back(std::move(tj));
    }
    return j.dump(indent, ' ', false, json::error_handler_t::replace) + "\n";
}

BenchRun benchFromJson(const std::string& text, const std::string& path) {
    json j;
    try {
        j = json::parse(text);
    } catch (const json::parse_error& e) {
        throw Error(path + ": not valid JSON: " + e.what());
    }
    if (!j.is_object() || j.value("schema", "") != "kernelsieve.bench")
        throw Error(path + ": not a KernelSieve bench file (schema is not kernelsieve.bench)");
    const int v = j.value("schema_version", 0);
    if (v < 1 || v > BenchSchemaVersion)
        throw Error(path + ": bench schema version " + std::to_string(v) + " is not supported");
    BenchRun b;
    try {
        const json r = j.value("run", json::object());
        b.toolVersion = r.value("tool_version", "");
        b.created = r.value("created", "");
        b.device = r.value("device", "");
        b.deviceName = r.value("device_name", "");
        b.driver = r.value("driver", "");
        b.libtorchVersion = r.value("libtorch_version", "");
        b.cudaVersion = r.value("cuda_version", "");
        b.preset = r.value("preset", "");
        b.smClock = r.value("sm_clock", "");
        b.memClock = r.value("mem_clock", "");
        b.copyBandwidthGBs = getNum(r, "copy_bandwidth_gbs");
        b.fp32PeakTflops = getNum(r, "fp32_peak_tflops");
        b.settings = timingFromJson(r.value("settings", json::object()));
        if (r.contains("dims")) {
            if (!r.at("dims").is_object()) throw Error("run.dims must map dim names to sizes");
            for (const auto& [name, size] : r.at("dims").items()) {
                if (!size.is_number_integer()) throw Error("run.dims." + name + " must be an integer");
                b.dims[name] = size.get<int64_t>();
            }
        }
        for (const auto& tj : j.value("tasks", json::array())) {
            TaskBench t;
            t.taskId = tj.value("task_id", "");
            t.taskName = tj.value("task_name", "");
            t.op = tj.value("op", "");
            t.shape = tj.value("shape", std::vector<int64_t>{});
            t.minBytes = getNum(tj, "min_bytes");
            t.flops = getNum(tj, "flops");
            t.baseline = timingFromJson(tj.value("baseline", json::object()));
            t.baselineError = tj.value("baseline_error", "");
            for (const auto& vj : tj.value("variants", json::array())) {
                VariantResult vr;
                vr.name = vj.value("name", "");
                vr.summary = vj.value("summary", "");
                vr.version = vj.value("version", 0);
                vr.shortcut = vj.value("shortcut", false);
                vr.unsupported = vj.value("unsupported", "");
                vr.error = vj.value("error", "");
                vr.validation = validationFromJson(vj.value("validation", json::object()));
                vr.timing = timingFromJson(vj.value("timing", json::object()));
                vr.speedup = getNum(vj, "speedup");
                vr.gbps = getNum(vj, "gbps");
                vr.pctCopyBandwidth = getNum(vj, "pct_copy_bandwidth");
                vr.impossible = vj.value("impossible", false);
                vr.impossibleWhy = vj.value("impossible_why", "");
                for (const auto& h : vj.value("guard_hits", json::array()))
                    vr.guardHits.push_back({h.value("guard", ""), h.value("detail", "")});
                vr.external = externalFromJson(vj.value("external", json::object()));
                t.variants.push_back(std::move(vr));
            }
            b.tasks.push_back(std::move(t));
        }
    } catch (const json::exception& e) {
        throw Error(path + ": " + e.what());
    } catch (const Error& e) {
        throw Error(path + ": " + e.what());
    }
    return b;
}

} // namespace ks
