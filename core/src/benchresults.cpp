// SPDX-License-Identifier: MIT
#include "ks/core/benchresults.h"
#include "jsonutil.h"

#include <cmath>
#include <cstdio>
#include <tuple>

namespace ks {
namespace {
using json = nlohmann::json;
using jsonutil::getBool;
using jsonutil::getInt;
using jsonutil::getNum;
using jsonutil::getString;
using jsonutil::num;

constexpr int64_t IntMax = std::numeric_limits<int>::max();

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
    json j{{"warmup", t.warmup},       {"runs", t.runs},         {"l2_flush", t.l2Flush},
           {"hide_launch_latency", t.hideLaunchLatency}, {"spin_us", num(t.spinUs)},
           {"median_ms", num(t.medianMs)}, {"mean_ms", num(t.meanMs)}, {"min_ms", num(t.minMs)},
           {"q1_ms", num(t.q1Ms)},     {"q3_ms", num(t.q3Ms)},   {"samples_ms", numArray(t.samplesMs)}};
    if (t.blocks > 0) j["blocks"] = t.blocks;
    if (!t.clockSource.empty()) j["clock_source"] = t.clockSource;
    if (!t.clockBlocks.empty()) {
        json a = json::array();
        for (const auto& c : t.clockBlocks)
            a.push_back({{"sm_mhz", json::array({num(c.smMhzBefore), num(c.smMhzAfter)})},
                         {"reasons", json::array({c.reasonsBefore, c.reasonsAfter})},
                         {"moved", c.moved}});
        j["clock_blocks"] = a;
        j["clock_blocks_moved"] = t.movedBlocks();
    }
    return j;
}

// [a, b] of two numbers (NaN for a missing entry).
std::pair<double, double> numPair(const json& j, const char* key) {
    if (!j.contains(key)) return {NaN, NaN};
    const json& p = j.at(key);
    if (!p.is_array() || p.size() != 2) throw Error(std::string("'") + key + "' must be a pair [a, b]");
    return {jsonutil::toNum(p[0], key), jsonutil::toNum(p[1], key)};
}

TimingStats timingFromJson(const json& j) {
    TimingStats t;
    if (!j.is_object()) return t;
    t.warmup = static_cast<int>(getInt(j, "warmup", 0, 0, IntMax));
    t.runs = static_cast<int>(getInt(j, "runs", 0, 0, IntMax));
    t.l2Flush = getBool(j, "l2_flush", false);
    t.hideLaunchLatency = getBool(j, "hide_launch_latency", false);
    t.spinUs = j.contains("spin_us") ? getNum(j, "spin_us") : 0.0;
    t.medianMs = getNum(j, "median_ms");
    t.meanMs = getNum(j, "mean_ms");
    t.minMs = getNum(j, "min_ms");
    t.q1Ms = getNum(j, "q1_ms");
    t.q3Ms = getNum(j, "q3_ms");
    t.samplesMs = numArrayFrom(j, "samples_ms");
    t.blocks = static_cast<int>(getInt(j, "blocks", 0, 0, IntMax));
    t.clockSource = getString(j, "clock_source");
    for (const auto& c : j.value("clock_blocks", json::array())) {
        ClockBlock b;
        std::tie(b.smMhzBefore, b.smMhzAfter) = numPair(c, "sm_mhz");
        if (c.contains("reasons")) {
            const json& r = c.at("reasons");
            if (!r.is_array() || r.size() != 2 || !r[0].is_number_unsigned() || !r[1].is_number_unsigned())
                throw Error("'reasons' of a clock block must be two unsigned bit masks");
            b.reasonsBefore = r[0].get<uint64_t>();
            b.reasonsAfter = r[1].get<uint64_t>();
        }
        b.moved = getBool(c, "moved", false);
        t.clockBlocks.push_back(b);
    }
    return t;
}

json statsToJson(const SpeedupStats& s, const char* prefix) {
    const std::string p = prefix;
    return json{{p, num(s.ratio)},
                {p + "_ci95", json::array({num(s.lo), num(s.hi)})},
                {p + "_p_value", num(s.pValue)},
                {p + "_resamples", s.resamples}};
}

SpeedupStats statsFromJson(const json& j, const char* prefix) {
    const std::string p = prefix;
    SpeedupStats s;
    s.ratio = getNum(j, p.c_str());
    std::tie(s.lo, s.hi) = numPair(j, (p + "_ci95").c_str());
    s.pValue = getNum(j, (p + "_p_value").c_str());
    s.resamples = static_cast<int>(getInt(j, (p + "_resamples").c_str(), 0, 0, IntMax));
    return s;
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
    v.run = getBool(j, "run", false);
    v.passed = getBool(j, "passed", false);
    v.seeds = static_cast<int>(getInt(j, "seeds", 0, 0, jsonutil::MaxSeeds));
    v.atol = getNum(j, "atol", 1e-5);
    v.rtol = getNum(j, "rtol", 1e-4);
    v.maxAbsErr = getNum(j, "max_abs_err");
    v.maxRelErr = getNum(j, "max_rel_err");
    v.firstMismatch =
        jsonutil::getInts(j, "first_mismatch", 0, std::numeric_limits<int64_t>::max());
    v.failures = jsonutil::getStrings(j, "failures");
    v.checks = jsonutil::getStrings(j, "checks");
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
    e.format = getString(j, "format");
    e.file = getString(j, "file");
    e.function = getString(j, "function");
    e.args = jsonutil::getStrings(j, "args");
    e.expect = getString(j, "expect");
    e.sourceHash = getString(j, "source_hash");
    e.compiled = getBool(j, "compiled", false);
    e.cacheHit = getBool(j, "cache_hit", false);
    e.compileSeconds = getNum(j, "compile_s");
    e.compileLog = getString(j, "compile_log");
    e.kernelNames = jsonutil::getStrings(j, "kernel_names");
    e.precisionRatio = getNum(j, "precision_ratio");
    return e;
}

} // namespace

std::vector<std::string> clockReasonNames(uint64_t mask) {
    // nvml.h's nvmlClocksEventReason* bits.
    static const std::pair<uint64_t, const char*> names[] = {
        {0x1, "GpuIdle"},       {0x2, "ApplicationsClocksSetting"}, {0x4, "SwPowerCap"},
        {0x8, "HwSlowdown"},    {0x10, "SyncBoost"},                {0x20, "SwThermalSlowdown"},
        {0x40, "HwThermalSlowdown"}, {0x80, "HwPowerBrakeSlowdown"}, {0x100, "DisplayClockSetting"}};
    std::vector<std::string> out;
    uint64_t known = 0;
    for (const auto& [bit, name] : names) {
        known |= bit;
        if (mask & bit) out.push_back(name);
    }
    if (mask & ~known) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(mask & ~known));
        out.push_back(buf);
    }
    return out;
}

bool clockMoved(double beforeMhz, double afterMhz, double limit) {
    if (!(beforeMhz > 0) || !(afterMhz > 0)) return false;
    return std::fabs(afterMhz - beforeMhz) > limit * beforeMhz;
}

TimingStats::ClockSpan TimingStats::clockSpan() const {
    ClockSpan c;
    for (const auto& b : clockBlocks) {
        for (double m : {b.smMhzBefore, b.smMhzAfter})
            if (std::isfinite(m)) {
                c.loMhz = std::isfinite(c.loMhz) ? std::min(c.loMhz, m) : m;
                c.hiMhz = std::isfinite(c.hiMhz) ? std::max(c.hiMhz, m) : m;
            }
        c.reasons |= b.reasonsBefore | b.reasonsAfter;
    }
    return c;
}

int TimingStats::movedBlocks() const {
    int n = 0;
    for (const auto& b : clockBlocks) n += b.moved;
    return n;
}

std::string baselineLabel(const std::string& kind) {
    if (kind == "eager") return "eager (LibTorch)";
    if (kind == "compiled") return "compiled (AOTInductor)";
    if (kind == "graph") return "eager in a CUDA graph";
    return kind;
}

const BaselineComparison* VariantResult::versus(const std::string& kind) const {
    for (const auto& c : vs)
        if (c.baseline == kind) return &c;
    return nullptr;
}

double VariantResult::speedupVs(const std::string& kind) const {
    if (kind == "eager") return speedup;
    const auto* c = versus(kind);
    return c ? c->stats.ratio : NaN;
}

SpeedupStats VariantResult::statsVs(const std::string& kind) const {
    if (kind == "eager") {
        SpeedupStats s = speedupStats;
        if (!std::isfinite(s.ratio)) s.ratio = speedup; // a point estimate without its interval
        return s;
    }
    const auto* c = versus(kind);
    return c ? c->stats : SpeedupStats{};
}

const BaselineRun* TaskBench::baselineOf(const std::string& kind) const {
    for (const auto& b : otherBaselines)
        if (b.kind == kind) return &b;
    return nullptr;
}

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
    j["run"]["baselines"] = b.baselines;
    if (!b.clockSource.empty()) j["run"]["clock_source"] = b.clockSource;
    if (!b.gpus.empty()) {
        j["run"]["gpus"] = json::array();
        for (const auto& g : b.gpus)
            j["run"]["gpus"].push_back({{"id", g.id},
                                        {"visible_id", g.visibleId},
                                        {"device_name", g.name},
                                        {"sm_clock", g.smClock},
                                        {"mem_clock", g.memClock},
                                        {"clock_source", g.clockSource},
                                        {"copy_bandwidth_gbs", num(g.copyBandwidthGBs)},
                                        {"fp32_peak_tflops", num(g.fp32PeakTflops)}});
    }
    if (b.shardCount > 0) j["run"]["shard"] = {{"index", b.shardIndex}, {"count", b.shardCount}};
    j["tasks"] = json::array();
    for (const auto& t : b.tasks) {
        json tj{{"task_id", t.taskId},        {"task_name", t.taskName},     {"op", t.op},
                {"shape", t.shape},           {"min_bytes", num(t.minBytes)}, {"flops", num(t.flops)},
                {"baseline", timingToJson(t.baseline)}, {"baseline_error", t.baselineError}};
        if (!t.gpu.empty()) tj["gpu"] = t.gpu;
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
                                      {"speedup_ci95", json::array({num(v.speedupStats.lo), num(v.speedupStats.hi)})},
                                      {"speedup_p_value", num(v.speedupStats.pValue)},
                                      {"speedup_resamples", v.speedupStats.resamples},
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
            if (!v.vs.empty()) {
                vj["vs"] = json::array();
                for (const auto& c : v.vs) {
                    json cj = statsToJson(c.stats, "speedup");
                    cj["baseline"] = c.baseline;
                    cj["baseline_median_ms"] = num(c.baselineMedianMs);
                    vj["vs"].push_back(std::move(cj));
                }
            }
            vj["verdict"] = variantVerdict(v);
        }
        if (!t.otherBaselines.empty()) {
            tj["baselines"] = json::array();
            for (const auto& o : t.otherBaselines) {
                json oj = statsToJson(o.vsEager, "speedup_vs_eager");
                oj.update({{"kind", o.kind},
                           {"timing", timingToJson(o.timing)},
                           {"error", o.error},
                           {"validation", validationToJson(o.validation)},
                           {"compile_s", num(o.compileSeconds)},
                           {"cache_hit", o.cacheHit},
                           {"cache_key", o.cacheKey},
                           {"compile_log", o.compileLog}});
                tj["baselines"].push_back(std::move(oj));
            }
        }
        j["tasks"].push_back(std::move(tj));
    }
    return j.dump(indent, ' ', false, json::error_handler_t::replace) + "\n";
}

namespace {
std::string csvNum(double v) {
    if (!std::isfinite(v)) return "";
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.10g", v);
    return buf;
}

} // namespace

std::string benchToCsv(const BenchRun& b) {
    std::string out = "task_id,task_name,row,name,kind,verdict,valid,median_ms,q1_ms,q3_ms,runs,blocks";
    for (const auto& k : b.baselines)
        out += ",speedup_vs_" + k + ",ci95_lo_vs_" + k + ",ci95_hi_vs_" + k + ",p_value_vs_" + k;
    out += ",clock_source,clock_min_mhz,clock_max_mhz,clock_blocks,clock_blocks_moved,clock_reasons,note\r\n";
    auto timingCells = [](const TimingStats& t) {
        return csvNum(t.medianMs) + "," + csvNum(t.q1Ms) + "," + csvNum(t.q3Ms) + "," + std::to_string(t.runs) + "," +
               std::to_string(t.blocks);
    };
    auto clockCells = [](const TimingStats& t) {
        const TimingStats::ClockSpan c = t.clockSpan();
        std::string reasons;
        for (const auto& n : clockReasonNames(c.reasons)) reasons += (reasons.empty() ? "" : ";") + n;
        return csvField(t.clockSource) + "," + csvNum(c.loMhz) + "," + csvNum(c.hiMhz) + "," +
               std::to_string(t.clockBlocks.size()) + "," + std::to_string(t.movedBlocks()) + "," + csvField(reasons);
    };
    auto statCells = [](const SpeedupStats& st) {
        return "," + csvNum(st.ratio) + "," + csvNum(st.lo) + "," + csvNum(st.hi) + "," + csvNum(st.pValue);
    };
    for (const auto& t : b.tasks) {
        const std::string id = csvField(t.taskId) + "," + csvField(t.taskName) + ",";
        // eager, against itself 1 (no interval), against the other baselines: their inverse is
        // not recorded, so empty
        out += id + "baseline,eager,eager,reference,," + timingCells(t.baseline);
        for (const auto& k : b.baselines) {
            SpeedupStats self;
            if (k == "eager" && std::isfinite(t.baseline.medianMs)) self.ratio = 1.0;
            out += statCells(self);
        }
        out += "," + clockCells(t.baseline) + "," + csvField(t.baselineError) + "\r\n";
        for (const auto& o : t.otherBaselines) {
            const std::string verdict = !o.usable() ? "unavailable" : o.validation.run && !o.validation.passed ? "invalid" : "reference";
            out += id + "baseline," + csvField(o.kind) + "," + csvField(o.kind) + "," + verdict + "," +
                   (o.validation.run ? (o.validation.passed ? "true" : "false") : "") + "," + timingCells(o.timing);
            for (const auto& k : b.baselines) {
                SpeedupStats st;
                if (k == "eager") st = o.vsEager;
                else if (k == o.kind && o.usable()) st.ratio = 1.0;
                out += statCells(st);
            }
            out += "," + clockCells(o.timing) + "," + csvField(o.error) + "\r\n";
        }
        for (const auto& v : t.variants) {
            out += id + "variant," + csvField(v.name) + "," + (v.isExternal() ? csvField(v.external.format) : "built-in") +
                   "," + csvField(variantVerdict(v)) + "," + (v.validation.passed ? "true" : "false") + "," +
                   timingCells(v.timing);
            for (const auto& k : b.baselines) out += statCells(v.statsVs(k));
            out += "," + clockCells(v.timing) + "," + csvField(verdictDetail(v)) + "\r\n";
        }
    }
    return out;
}

BenchRun benchFromJson(const std::string& text, const std::string& path) {
    const json j = jsonutil::parse(text, path);
    const json schema = j.is_object() && j.contains("schema") ? j.at("schema") : json();
    if (!schema.is_string() || schema.get<std::string>() != "kernelsieve.bench")
        throw Error(path + ": not a KernelSieve bench file (schema is not kernelsieve.bench)");
    const json& sv = j.contains("schema_version") ? j.at("schema_version") : json();
    if (!sv.is_number_integer() || sv.get<int64_t>() < 1 || sv.get<int64_t>() > BenchSchemaVersion)
        throw Error(path + ": bench schema_version " + jsonutil::brief(sv) +
                    " is not supported (this build reads the integers 1.." +
                    std::to_string(BenchSchemaVersion) + ")");
    BenchRun b;
    try {
        const json r = j.value("run", json::object());
        b.toolVersion = getString(r, "tool_version");
        b.created = getString(r, "created");
        b.device = getString(r, "device");
        b.deviceName = getString(r, "device_name");
        b.driver = getString(r, "driver");
        b.libtorchVersion = getString(r, "libtorch_version");
        b.cudaVersion = getString(r, "cuda_version");
        b.preset = getString(r, "preset");
        b.smClock = getString(r, "sm_clock");
        b.memClock = getString(r, "mem_clock");
        b.copyBandwidthGBs = getNum(r, "copy_bandwidth_gbs");
        b.fp32PeakTflops = getNum(r, "fp32_peak_tflops");
        b.settings = timingFromJson(r.value("settings", json::object()));
        if (r.contains("baselines")) b.baselines = jsonutil::getStrings(r, "baselines");
        if (b.baselines.empty()) b.baselines = {"eager"};
        b.clockSource = getString(r, "clock_source");
        if (r.contains("dims")) {
            if (!r.at("dims").is_object()) throw Error("run.dims must map dim names to sizes");
            for (const auto& [name, size] : r.at("dims").items()) {
                if (!size.is_number_integer()) throw Error("run.dims." + name + " must be an integer");
                b.dims[name] = size.get<int64_t>();
            }
        }
        if (r.contains("gpus") && !r.at("gpus").is_array()) throw Error("run.gpus must be an array");
        for (const auto& gj : r.value("gpus", json::array())) {
            BenchGpu g;
            g.id = getString(gj, "id");
            g.visibleId = getString(gj, "visible_id");
            g.name = getString(gj, "device_name");
            g.smClock = getString(gj, "sm_clock");
            g.memClock = getString(gj, "mem_clock");
            g.clockSource = getString(gj, "clock_source");
            g.copyBandwidthGBs = getNum(gj, "copy_bandwidth_gbs");
            g.fp32PeakTflops = getNum(gj, "fp32_peak_tflops");
            b.gpus.push_back(std::move(g));
        }
        if (r.contains("shard")) {
            const json& sh = r.at("shard");
            b.shardCount = static_cast<int>(getInt(sh, "count", 0, 1, 1'000'000));
            b.shardIndex = static_cast<int>(getInt(sh, "index", 0, 1, b.shardCount));
        }
        for (const auto& tj : j.value("tasks", json::array())) {
            TaskBench t;
            t.taskId = getString(tj, "task_id");
            t.gpu = getString(tj, "gpu");
            t.taskName = getString(tj, "task_name");
            t.op = getString(tj, "op");
            t.shape = jsonutil::getShape(tj, "shape");
            t.minBytes = getNum(tj, "min_bytes");
            t.flops = getNum(tj, "flops");
            t.baseline = timingFromJson(tj.value("baseline", json::object()));
            t.baselineError = getString(tj, "baseline_error");
            for (const auto& oj : tj.value("baselines", json::array())) {
                BaselineRun o;
                o.kind = getString(oj, "kind");
                if (o.kind.empty()) throw Error("task " + t.taskId + ": a baseline has no 'kind'");
                o.timing = timingFromJson(oj.value("timing", json::object()));
                o.error = getString(oj, "error");
                o.validation = validationFromJson(oj.value("validation", json::object()));
                o.vsEager = statsFromJson(oj, "speedup_vs_eager");
                o.compileSeconds = getNum(oj, "compile_s");
                o.cacheHit = getBool(oj, "cache_hit", false);
                o.cacheKey = getString(oj, "cache_key");
                o.compileLog = getString(oj, "compile_log");
                t.otherBaselines.push_back(std::move(o));
            }
            for (const auto& vj : tj.value("variants", json::array())) {
                VariantResult vr;
                vr.name = getString(vj, "name");
                vr.summary = getString(vj, "summary");
                vr.version = static_cast<int>(getInt(vj, "version", 0, 0, IntMax));
                vr.shortcut = getBool(vj, "shortcut", false);
                vr.unsupported = getString(vj, "unsupported");
                vr.error = getString(vj, "error");
                vr.validation = validationFromJson(vj.value("validation", json::object()));
                vr.timing = timingFromJson(vj.value("timing", json::object()));
                vr.speedupStats = statsFromJson(vj, "speedup");
                vr.speedup = vr.speedupStats.ratio;
                for (const auto& cj : vj.value("vs", json::array())) {
                    BaselineComparison c;
                    c.baseline = getString(cj, "baseline");
                    if (c.baseline.empty()) throw Error("a 'vs' entry names no baseline");
                    c.baselineMedianMs = getNum(cj, "baseline_median_ms");
                    c.stats = statsFromJson(cj, "speedup");
                    vr.vs.push_back(std::move(c));
                }
                vr.gbps = getNum(vj, "gbps");
                vr.pctCopyBandwidth = getNum(vj, "pct_copy_bandwidth");
                vr.impossible = getBool(vj, "impossible", false);
                vr.impossibleWhy = getString(vj, "impossible_why");
                for (const auto& h : vj.value("guard_hits", json::array()))
                    vr.guardHits.push_back({getString(h, "guard"), getString(h, "detail")});
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
