// SPDX-License-Identifier: MIT
#include "ks/core/results.h"
#include "ks/core/analysisreports.h"
#include "ks/core/taskspec.h"
#include "jsonutil.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

namespace ks {
namespace {
using json = nlohmann::json;

using jsonutil::getBool;
using jsonutil::getInt;
using jsonutil::getNum;
using jsonutil::getString;
using jsonutil::num;

constexpr int64_t Int64Max = std::numeric_limits<int64_t>::max();
constexpr int64_t Int64Min = std::numeric_limits<int64_t>::min();
constexpr int64_t IntMax = std::numeric_limits<int>::max();
constexpr int64_t IntMin = std::numeric_limits<int>::min();

int64_t getCount(const json& j, const char* key) {
    return getInt(j, key, 0, 0, Int64Max);
}

json histToJson(const Histogram& h) {
    return json{{"lo", num(h.lo)},           {"hi", num(h.hi)},
                {"counts", h.counts},        {"underflow", h.underflow},
                {"overflow", h.overflow},    {"non_finite", h.nonFinite}};
}

Histogram histFromJson(const json& j) {
    Histogram h;
    if (j.is_null()) return h;
    h.lo = getNum(j, "lo", 0);
    h.hi = getNum(j, "hi", 0);
    if (j.contains("counts")) {
        if (!j.at("counts").is_array()) throw Error("field 'counts' must be a list of counts");
        for (const auto& c : j.at("counts"))
            h.counts.push_back(static_cast<uint64_t>(jsonutil::toInt(c, "counts", 0, Int64Max)));
    }
    h.underflow = static_cast<uint64_t>(getCount(j, "underflow"));
    h.overflow = static_cast<uint64_t>(getCount(j, "overflow"));
    h.nonFinite = static_cast<uint64_t>(getCount(j, "non_finite"));
    return h;
}

json spreadToJson(const SpreadMetrics& m) {
    return json{{"run", m.run}, {"max_std", num(m.maxStd)}, {"mean_std", num(m.meanStd)}};
}

SpreadMetrics spreadFromJson(const json& j) {
    SpreadMetrics m;
    if (j.is_null()) return m;
    m.run = getBool(j, "run", false);
    m.maxStd = getNum(j, "max_std");
    m.meanStd = getNum(j, "mean_std");
    return m;
}

json taskToJsonObj(const TaskResult& t) {
    json j;
    j["id"] = t.id;
    j["name"] = t.name;
    j["level"] = t.level;
    j["number"] = t.number;
    j["category"] = t.category;
    j["description"] = t.description;
    j["tags"] = t.tags;
    j["status"] = taskStatusName(t.status);
    j["error"] = t.error;
    j["output_shape"] = t.outputShape;
    j["output_dtype"] = t.outputDtype;
    j["seeds"] = t.seeds;
    json m;
    m["output_range"] = {{"run", t.range.run},
                         {"max_abs", num(t.range.maxAbs)},
                         {"min", num(t.range.min)},
                         {"max", num(t.range.max)},
                         {"non_finite", t.range.nonFinite}};
    m["output_std"] = spreadToJson(t.outputStd);
    json axes = json::array();
    for (double v : t.axes.perAxis) axes.push_back(num(v));
    m["output_axes"] = {{"run", t.axes.run},
                        {"per_axis", axes},
                        {"min_value", num(t.axes.minValue())},
                        {"min_axis", t.axes.minAxis()}};
    m["input_impact"] = spreadToJson(t.inputImpact);
    j["metrics"] = m;
    j["value_histogram"] = histToJson(t.valueHistogram);
    j["std_histogram"] = histToJson(t.stdHistogram);
    json seeds = json::array();
    for (const auto& s : t.seedStats)
        seeds.push_back({{"seed", s.seed},
                         {"mean", num(s.mean)},
                         {"std", num(s.std)},
                         {"min", num(s.min)},
                         {"max", num(s.max)}});
    j["seed_stats"] = seeds;
    j["timings"] = {{"wall_s", num(t.wallSeconds)},
                    {"run_ms_median", num(t.runMsMedian)},
                    {"peak_memory_bytes", t.peakMemoryBytes}};
    if (!t.phaseSeconds.empty()) {
        json ph = json::object();
        for (const auto& [k, v] : t.phaseSeconds) ph[k] = num(v);
        json& tj = j["timings"];
        tj["phases_s"] = ph;
        tj["operand_draws"] = t.operandDraws;
        tj["operand_reuses"] = t.operandReuses;
        tj["operand_redraws"] = t.operandRedraws;
        if (t.operandDeviceReuses > 0 || t.peakOperandDeviceKeptBytes > 0) {
            tj["operand_device_reuses"] = t.operandDeviceReuses;
            tj["peak_operand_device_kept_bytes"] = t.peakOperandDeviceKeptBytes;
        }
        if (t.impactAfterOutputPass) tj["impact_after_output_pass"] = true;
        tj["operand_set_bytes"] = t.operandSetBytes;
        if (t.operandUploadBytes > 0) tj["operand_upload_bytes"] = t.operandUploadBytes;
        tj["peak_operand_host_bytes"] = t.peakOperandHostBytes;
        tj["peak_host_bytes"] = t.peakHostBytes;
        tj["peak_host_per_task"] = t.peakHostPerTask;
        tj["pinned_cache_freed_bytes"] = t.pinnedCacheFreedBytes;
        tj["end_rss_anon_bytes"] = t.rssAnonBytes;
        tj["end_rss_file_bytes"] = t.rssFileBytes;
        tj["end_pinned_held_bytes"] = t.pinnedHeldBytes;
        tj["end_pinned_in_use_bytes"] = t.pinnedInUseBytes;
        if (t.deviceReservedBytes > 0) tj["end_device_reserved_bytes"] = t.deviceReservedBytes;
    }
    if (!t.gpu.empty()) j["gpu"] = t.gpu;
    if (t.inefficiency) j["inefficiency"] = inefficiencyReportToJson(*t.inefficiency);
    if (t.redundancy) j["redundancy"] = redundancyReportToJson(*t.redundancy);
    j["source"] = t.source;
    j["spec"] = t.specJson.empty() ? json(nullptr) : json::parse(t.specJson, nullptr, false);
    return j;
}

TaskResult taskFromJsonObj(const json& j) {
    TaskResult t;
    if (!j.is_object()) throw Error("a task entry is not an object");
    if (!j.contains("id") || !j.at("id").is_string()) throw Error("a task entry has no 'id'");
    t.id = j.at("id").get<std::string>();
    try {
        t.name = getString(j, "name");
        t.level = static_cast<int>(getInt(j, "level", 0, IntMin, IntMax));
        t.number = static_cast<int>(getInt(j, "number", 0, IntMin, IntMax));
        t.category = getString(j, "category");
        t.description = getString(j, "description");
        t.tags = jsonutil::getStrings(j, "tags");
        const auto status = getString(j, "status", "ok");
        t.status = status == "ok"      ? TaskStatus::Ok
                   : status == "error" ? TaskStatus::Error
                                       : TaskStatus::Skipped;
        t.error = getString(j, "error");
        t.outputShape = jsonutil::getShape(j, "output_shape");
        t.outputDtype = getString(j, "output_dtype");
        t.seeds = static_cast<int>(getInt(j, "seeds", 0, 0, jsonutil::MaxSeeds));
        const json m = j.value("metrics", json::object());
        if (m.contains("output_range")) {
            const auto& r = m.at("output_range");
            t.range.run = getBool(r, "run", false);
            t.range.maxAbs = getNum(r, "max_abs");
            t.range.min = getNum(r, "min");
            t.range.max = getNum(r, "max");
            t.range.nonFinite = static_cast<uint64_t>(getCount(r, "non_finite"));
        }
        t.outputStd = spreadFromJson(m.value("output_std", json()));
        if (m.contains("output_axes")) {
            const auto& a = m.at("output_axes");
            t.axes.run = getBool(a, "run", false);
            for (const auto& v : a.value("per_axis", json::array())) {
                json wrap{{"v", v}};
                t.axes.perAxis.push_back(getNum(wrap, "v"));
            }
        }
        t.inputImpact = spreadFromJson(m.value("input_impact", json()));
        t.valueHistogram = histFromJson(j.value("value_histogram", json()));
        t.stdHistogram = histFromJson(j.value("std_histogram", json()));
        for (const auto& s : j.value("seed_stats", json::array()))
            t.seedStats.push_back({getInt(s, "seed", 0, Int64Min, Int64Max), getNum(s, "mean"),
                                   getNum(s, "std"), getNum(s, "min"), getNum(s, "max")});
        const json tim = j.value("timings", json::object());
        t.wallSeconds = getNum(tim, "wall_s", 0);
        t.runMsMedian = getNum(tim, "run_ms_median");
        t.peakMemoryBytes = getCount(tim, "peak_memory_bytes");
        if (tim.contains("phases_s") && tim.at("phases_s").is_object())
            for (const auto& [k, v] : tim.at("phases_s").items()) {
                json wrap{{"v", v}};
                t.phaseSeconds[k] = getNum(wrap, "v", 0);
            }
        t.operandDraws = static_cast<int>(getInt(tim, "operand_draws", 0, 0, IntMax));
        t.operandReuses = static_cast<int>(getInt(tim, "operand_reuses", 0, 0, IntMax));
        t.operandRedraws = static_cast<int>(getInt(tim, "operand_redraws", 0, 0, IntMax));
        t.operandDeviceReuses = static_cast<int>(getInt(tim, "operand_device_reuses", 0, 0, IntMax));
        t.peakOperandDeviceKeptBytes = getCount(tim, "peak_operand_device_kept_bytes");
        t.impactAfterOutputPass = getBool(tim, "impact_after_output_pass", false);
        t.operandSetBytes = getCount(tim, "operand_set_bytes");
        t.operandUploadBytes = getCount(tim, "operand_upload_bytes");
        t.peakOperandHostBytes = getCount(tim, "peak_operand_host_bytes");
        t.peakHostBytes = getCount(tim, "peak_host_bytes");
        t.peakHostPerTask = getBool(tim, "peak_host_per_task", false);
        t.pinnedCacheFreedBytes = getCount(tim, "pinned_cache_freed_bytes");
        t.rssAnonBytes = getCount(tim, "end_rss_anon_bytes");
        t.rssFileBytes = getCount(tim, "end_rss_file_bytes");
        t.pinnedHeldBytes = getCount(tim, "end_pinned_held_bytes");
        t.pinnedInUseBytes = getCount(tim, "end_pinned_in_use_bytes");
        t.deviceReservedBytes = getCount(tim, "end_device_reserved_bytes");
        t.gpu = getString(j, "gpu");
        // Absent in files written before filters 5-6 joined the matrix: those criteria are "not run".
        try {
            if (j.contains("inefficiency") && !j.at("inefficiency").is_null())
                t.inefficiency = inefficiencyReportFromJson(j.at("inefficiency"));
        } catch (const Error& e) {
            throw Error(std::string("inefficiency: ") + e.what());
        }
        try {
            if (j.contains("redundancy") && !j.at("redundancy").is_null())
                t.redundancy = redundancyReportFromJson(j.at("redundancy"));
        } catch (const Error& e) {
            throw Error(std::string("redundancy: ") + e.what());
        }
        t.source = getString(j, "source");
        if (j.contains("spec") && !j.at("spec").is_null()) t.specJson = j.at("spec").dump(2);
    } catch (const Error& e) {
        throw Error("task " + t.id + ": " + e.what());
    } catch (const json::exception& e) {
        throw Error("task " + t.id + ": " + e.what());
    }
    return t;
}

json runInfoToObj(const RunInfo& r) {
    json j{{"tool_version", r.toolVersion},
                {"created", r.created},
                {"suite", r.suite},
                {"preset", r.preset},
                {"device", r.device},
                {"device_name", r.deviceName},
                {"driver", r.driver},
                {"libtorch_version", r.libtorchVersion},
                {"cuda_version", r.cudaVersion},
                {"host", r.host},
                {"seeds", r.seeds},
                {"input_impact_param_seed", r.inputImpactParamSeed},
                {"seed_semantics", r.seedSemantics},
                {"total_s", num(r.totalSeconds)},
                {"peak_memory_bytes", r.peakMemoryBytes},
                {"host_huge_pages", r.hostHugePages},
                {"cancelled", r.cancelled},
                {"ceilings", r.ceilings ? deviceCeilingsToJson(*r.ceilings) : json(nullptr)}};
    // Only when set: files of unsharded, unmerged runs stay as they were.
    if (r.shardCount > 0) j["shard"] = {{"index", r.shardIndex}, {"count", r.shardCount}};
    if (!r.mergedFrom.empty()) j["merged_from"] = r.mergedFrom;
    if (!r.gpus.empty()) j["gpus"] = r.gpus;
    return j;
}

RunInfo runInfoFromObj(const json& j) {
    RunInfo r;
    if (!j.is_object()) throw Error("'run' must be an object");
    try {
        r.toolVersion = getString(j, "tool_version");
        r.created = getString(j, "created");
        r.suite = getString(j, "suite");
        r.preset = getString(j, "preset");
        r.device = getString(j, "device");
        r.deviceName = getString(j, "device_name");
        r.driver = getString(j, "driver");
        r.libtorchVersion = getString(j, "libtorch_version");
        r.cudaVersion = getString(j, "cuda_version");
        r.host = getString(j, "host");
        r.seeds = static_cast<int>(getInt(j, "seeds", 0, 0, jsonutil::MaxSeeds));
        r.inputImpactParamSeed = getInt(j, "input_impact_param_seed", 42, Int64Min, Int64Max);
        r.seedSemantics = getString(j, "seed_semantics");
        r.totalSeconds = getNum(j, "total_s", 0);
        r.peakMemoryBytes = getCount(j, "peak_memory_bytes");
        r.hostHugePages = getString(j, "host_huge_pages");
        r.cancelled = getBool(j, "cancelled", false);
        if (j.contains("shard")) {
            const json& sh = j.at("shard");
            if (!sh.is_object()) throw Error("field 'shard' must be an object {index, count}");
            r.shardCount = static_cast<int>(getInt(sh, "count", 0, 1, 1 << 20));
            if (r.shardCount == 0) throw Error("field 'shard' needs its 'count'");
            r.shardIndex = static_cast<int>(getInt(sh, "index", 0, 1, r.shardCount));
        }
        if (j.contains("merged_from")) {
            const json& m = j.at("merged_from");
            if (!m.is_array()) throw Error("field 'merged_from' must be a list of strings");
            for (const auto& x : m) {
                if (!x.is_string()) throw Error("field 'merged_from' must be a list of strings");
                r.mergedFrom.push_back(x.get<std::string>());
            }
        }
        if (j.contains("gpus")) r.gpus = jsonutil::getStrings(j, "gpus");
    } catch (const Error& e) {
        throw Error(std::string("run: ") + e.what());
    }
    if (j.contains("ceilings") && !j.at("ceilings").is_null()) r.ceilings = deviceCeilingsFromJson(j.at("ceilings"));
    return r;
}

std::string fmt(double v, int prec = 4) {
    if (std::isnan(v)) return "nan";
    std::ostringstream os;
    os << std::setprecision(prec) << v;
    return os.str();
}

} // namespace

uint64_t Histogram::total() const {
    uint64_t n = underflow + overflow + nonFinite;
    for (auto c : counts) n += c;
    return n;
}

double AxesMetrics::minValue() const {
    const int a = minAxis();
    return a < 0 ? NaN : perAxis[static_cast<size_t>(a)];
}

int AxesMetrics::minAxis() const {
    int best = -1;
    for (size_t i = 0; i < perAxis.size(); ++i) {
        if (std::isnan(perAxis[i])) continue; // NaN never passes, so it can't be the minimum
        if (best < 0 || perAxis[i] < perAxis[static_cast<size_t>(best)])
            best = static_cast<int>(i);
    }
    return best;
}

const char* taskStatusName(TaskStatus s) {
    switch (s) {
    case TaskStatus::Ok: return "ok";
    case TaskStatus::Error: return "error";
    case TaskStatus::Skipped: return "skipped";
    }
    return "?";
}

double toleranceUsed(double lo, double hi, double c, double atol, double rtol) {
    if (!std::isfinite(lo) || !std::isfinite(hi) || !std::isfinite(c)) return NaN;
    // float32, in torch's order: allowed = atol + |rtol * ref|, actual = |out - ref|, and an exact
    // match passes even at zero tolerances. The ratio is taken in double from the float32 sides,
    // so "<= 1" agrees with torch's "actual <= allowed" to the last bit.
    const float fc = static_cast<float>(c), fa = static_cast<float>(atol),
                fr = static_cast<float>(rtol);
    auto used = [&](float x) {
        const float actual = std::fabs(fc - x);
        const float allowed = fa + std::fabs(fr * x);
        if (actual == 0.0f) return 0.0;
        return allowed > 0.0f ? static_cast<double>(actual) / static_cast<double>(allowed)
                              : std::numeric_limits<double>::infinity();
    };
    // Only the range [lo, hi] is stored, not the values. On each interval between the kinks x = 0
    // and x = c, |c - x| / (atol + rtol |x|) is a ratio of linear functions with a positive
    // denominator, hence monotone, so its maximum over [lo, hi] lies at lo, hi, 0 or c; at c it is
    // 0. lo and hi are values the output takes, so the verdict is exact there. 0 lies inside (lo,
    // hi) but need not be a value: counting it can only call a passing constant a failure, never
    // the reverse, so a flag is always one torch.allclose would give. (For rtol <= 1 it never
    // decides: the extreme on the other side of c from 0 then uses at least as much of the
    // tolerance.)
    double worst = std::max(used(static_cast<float>(lo)), used(static_cast<float>(hi)));
    if (lo < 0 && 0 < hi) worst = std::max(worst, used(0.0f));
    return worst;
}

std::string borderlineText(const BorderlineHit& hit, double margin) {
    std::ostringstream os;
    os << "borderline: ";
    if (hit.hostDispatch) {
        const double share = hit.metric > hit.bound ? 1 - hit.bound / hit.metric : 0.0;
        os << std::setprecision(3) << "the host's dispatch is " << std::lround(100 * share)
           << "% of the eager " << hit.metric << " ms (replayed from a CUDA graph: " << hit.bound
           << " ms), and on the replayed time the "
           << (hit.threshold == Threshold::BaselinePasses ? "passes" : "efficiency") << " rule's verdict differs";
        return os.str();
    }
    if (hit.launchBoundTest) {
        os << std::setprecision(3) << "eager " << hit.metric << " ms is within " << 100 * margin
           << "% of the launch-bound limit " << hit.bound << " ms (2 x launches x one launch), which decides the "
           << (hit.threshold == Threshold::BaselinePasses ? "passes" : "efficiency") << " rule";
        return os.str();
    }
    if (isTolerance(hit.threshold)) os << "tolerance used ";
    os << std::setprecision(3) << hit.metric << " is within " << 100 * margin << "% of "
       << hit.bound;
    return os.str();
}

double TaskResult::constantMean() const {
    if (seedStats.empty()) return NaN;
    double sum = 0;
    for (const auto& s : seedStats)
        sum += s.mean; // every seed has the output's size
    return sum / static_cast<double>(seedStats.size());
}

double TaskResult::zerosPass(const Thresholds& t) const {
    if (!range.run || range.nonFinite > 0 || !std::isfinite(range.maxAbs)) return NaN;
    const double atol = t.value(Threshold::ZerosPassAtol), rtol = t.value(Threshold::ZerosPassRtol);
    // Zeros: |x| / (atol + rtol |x|) grows with |x|, so max |value| alone decides (and files
    // without min/max still get a verdict).
    const double zeros = toleranceUsed(range.maxAbs, range.maxAbs, 0.0, atol, rtol);
    const double mean = toleranceUsed(range.min, range.max, constantMean(), atol, rtol);
    return std::isnan(mean) ? zeros : std::min(zeros, mean);
}

double TaskResult::metric(Criterion c) const {
    // An empty Thresholds reads every value as its default, without building the defaults' map
    // on each call (borderline() asks this for every rule of every task on every re-threshold).
    return metric(c, Thresholds{});
}

double TaskResult::thresholdMetric(Threshold th) const {
    const Criterion c = thresholdInfo(th).criterion;
    if (isTolerance(th) || !criterionRun(c)) return NaN;
    switch (th) {
    case Threshold::BaselineEfficiency:
        return inefficiency->efficiency;
    case Threshold::BaselinePasses:
        return inefficiency->passes;
    default:
        return metric(c);
    }
}

std::vector<BorderlineHit> TaskResult::borderline(const Thresholds& t) const {
    std::vector<BorderlineHit> out;
    const double margin = t.borderlineMargin;
    if (!(margin > 0)) return out;
    // "Within the margin" is asked of the rule itself: does its verdict change when its threshold
    // moves by the margin either way? That is |metric - t| <= margin * t wherever the rule can
    // fire, and never where it cannot (no rewrite found, a launch-bound task, passes switched off,
    // a major redundancy that flags at any bound), so no precondition of filters 5-6 is repeated
    // here; the launch-bound test itself is asked below.
    auto fires = [this](Threshold th, const Thresholds& u) {
        switch (th) {
        case Threshold::BaselineRewriteSpeedup:
            return inefficiencyVerdict(*inefficiency, u).rewrite;
        case Threshold::BaselineEfficiency:
            return inefficiencyVerdict(*inefficiency, u).efficiency;
        case Threshold::BaselinePasses:
            return inefficiencyVerdict(*inefficiency, u).passes;
        default:
            return flagged(thresholdInfo(th).criterion, u);
        }
    };
    // One copy of `t`, each bound moved and put back in turn: copying the thresholds' map twice per
    // rule made this most of a re-threshold of 250 tasks.
    Thresholds moved = t;
    for (const auto& i : thresholdInfos()) {
        if (isTolerance(i.threshold) || !criterionRun(i.criterion)) continue;
        const double bound = t.value(i.threshold);
        const bool now = fires(i.threshold, t);
        moved.set(i.threshold, bound * (1 - margin));
        bool changes = fires(i.threshold, moved) != now;
        moved.set(i.threshold, bound * (1 + margin));
        changes = changes || fires(i.threshold, moved) != now;
        moved.set(i.threshold, bound);
        if (changes) out.push_back({i.threshold, thresholdMetric(i.threshold), bound});
    }
    // Filter 5's launch-bound test: the eager time against 2 x launches x one launch, both
    // measured. Near that limit, a rule whose verdict flips with the test is borderline too.
    if (criterionRun(Criterion::BaselineInefficiency) && inefficiency->error.empty() && inefficiency->eagerMs > 0 &&
        inefficiency->launchMs > 0) {
        const InefficiencyReport& r = *inefficiency;
        const InefficiencyVerdict now = inefficiencyVerdict(r, t);
        const double limit = r.launchBoundLimitMs();
        if (std::abs(r.eagerMs - limit) <= margin * limit) {
            InefficiencyReport flipped = r;
            flipped.launchBound = !r.launchBound;
            const InefficiencyVerdict other = inefficiencyVerdict(flipped, t);
            if (now.efficiency != other.efficiency)
                out.push_back({Threshold::BaselineEfficiency, r.eagerMs, limit, true});
            if (now.passes != other.passes) out.push_back({Threshold::BaselinePasses, r.eagerMs, limit, true});
        }
        // The same rules on the replayed GPU time: a verdict that differs there is the host's.
        if (const auto g = onGraphReplay(r)) {
            const InefficiencyVerdict replayed = inefficiencyVerdict(*g, t);
            if (now.efficiency != replayed.efficiency)
                out.push_back({Threshold::BaselineEfficiency, r.eagerMs, r.graphMs, false, true});
            if (now.passes != replayed.passes)
                out.push_back({Threshold::BaselinePasses, r.eagerMs, r.graphMs, false, true});
        }
    }
    // Zeros pass flags at tolerance used <= 1; both tolerances scaled by (1 +- margin) move that
    // bound to 1 +- margin, the same question as above.
    if (const double used = zerosPass(t); std::abs(used - 1) <= margin)
        out.push_back({Threshold::ZerosPassAtol, used, 1.0});
    return out;
}

double TaskResult::metric(Criterion c, const Thresholds& t) const {
    switch (c) {
    case Criterion::OutputRange: return range.maxAbs;
    case Criterion::OutputStd: return outputStd.maxStd;
    case Criterion::OutputAxes: return axes.minValue();
    case Criterion::InputImpact: return inputImpact.maxStd;
    case Criterion::BaselineInefficiency: return criterionRun(c) ? inefficiency->bestSpeedup : NaN;
    case Criterion::RedundantComputation: return criterionRun(c) ? redundancy->flopFraction() : NaN;
    case Criterion::ZerosPass:
        return zerosPass(t);
    }
    return NaN;
}

bool TaskResult::criterionRun(Criterion c) const {
    switch (c) {
    case Criterion::OutputRange: return range.run;
    case Criterion::OutputStd: return outputStd.run;
    case Criterion::OutputAxes: return axes.run;
    case Criterion::InputImpact: return inputImpact.run;
    case Criterion::BaselineInefficiency: return inefficiency && inefficiency->error.empty();
    case Criterion::RedundantComputation: return redundancy && redundancy->error.empty();
    case Criterion::ZerosPass:
        return range.run; // derived from the range and the seed stats
    }
    return false;
}

std::string TaskResult::criterionError(Criterion c) const {
    if (c == Criterion::BaselineInefficiency && inefficiency) return inefficiency->error;
    if (c == Criterion::RedundantComputation && redundancy) return redundancy->error;
    return {};
}

bool TaskResult::flagged(Criterion c, const Thresholds& t) const {
    if (!criterionRun(c)) return false;
    switch (c) {
    case Criterion::BaselineInefficiency: return inefficiencyVerdict(*inefficiency, t).flagged();
    case Criterion::RedundantComputation: return redundancyFlagged(*redundancy, t);
    case Criterion::ZerosPass:
        return zerosPass(t) <= 1.0; // NaN never flags
    default: return flaggedBelow(metric(c), t.value(c));
    }
}

bool TaskResult::anyFlag(const Thresholds& t) const {
    for (const auto& c : criteria())
        if (flagged(c.criterion, t)) return true;
    return false;
}

const TaskResult* RunResults::find(const std::string& id) const {
    for (const auto& t : tasks)
        if (t.id == id) return &t;
    return nullptr;
}

std::string resultsToJson(const RunResults& r, int indent) {
    json j;
    j["schema"] = "kernelsieve.results";
    j["schema_version"] = ResultsSchemaVersion;
    j["run"] = runInfoToObj(r.run);
    json th;
    th["profile"] = r.thresholds.profile;
    for (const auto& i : thresholdInfos()) th[i.key] = num(r.thresholds.value(i.threshold));
    th[BorderlineMarginKey] = num(r.thresholds.borderlineMargin);
    j["thresholds"] = th;
    j["tasks"] = json::array();
    for (const auto& t : r.tasks) {
        json tj = taskToJsonObj(t);
        // Flags are derived data, written for readers without our code; we never read them back.
        json flags;
        for (const auto& c : criteria())
            flags[c.key] = t.criterionRun(c.criterion) ? json(t.flagged(c.criterion, r.thresholds))
                                                       : json(nullptr);
        tj["flags"] = flags;
        json borderline = json::array(); // derived too: the criteria with a borderline metric
        for (const auto& hit : t.borderline(r.thresholds)) {
            const char* key = criterionInfo(thresholdInfo(hit.threshold).criterion).key;
            if (borderline.empty() || borderline.back() != key) borderline.push_back(key);
        }
        tj["borderline"] = borderline;
        j["tasks"].push_back(std::move(tj));
    }
    return j.dump(indent, ' ', false, json::error_handler_t::replace) + "\n";
}

RunResults resultsFromJson(const std::string& text, const std::string& path) {
    const json j = jsonutil::parse(text, path);
    const json schema = j.is_object() && j.contains("schema") ? j.at("schema") : json();
    if (!schema.is_string() || schema.get<std::string>() != "kernelsieve.results")
        throw Error(path + ": not a KernelSieve results file (schema is not kernelsieve.results)");
    // Strict: 1.5 or "1" is no version we wrote, so neither reads as 1.
    const json& sv = j.contains("schema_version") ? j.at("schema_version") : json();
    if (!sv.is_number_integer() || sv.get<int64_t>() < 1 ||
        sv.get<int64_t>() > ResultsSchemaVersion)
        throw Error(path + ": results schema_version " + sv.dump() +
                    " is not supported (this build reads the integers 1.." +
                    std::to_string(ResultsSchemaVersion) + ")");
    RunResults r;
    try {
        r.run = runInfoFromObj(j.value("run", json::object()));
        r.thresholds = Thresholds::defaults();
        const json th = j.value("thresholds", json::object());
        if (!th.is_object()) throw Error("'thresholds' must be an object {threshold: value}");
        r.thresholds.profile = getString(th, "profile", "robust-kbench");
        // Keys a file lacks keep their defaults; a NaN or negative one (stored as "NaN" strings or
        // edited by hand) would silently switch a filter off, so it is refused like --threshold's.
        auto read = [&th](const char* key, double def) {
            const double v = getNum(th, key, def);
            if (const std::string why = thresholdValueProblem(key, v); !why.empty())
                throw Error(std::string("thresholds.") + key + " " + why);
            return v;
        };
        for (const auto& i : thresholdInfos())
            if (th.contains(i.key)) r.thresholds.values[i.key] = read(i.key, i.defaultValue);
        r.thresholds.borderlineMargin = read(BorderlineMarginKey, DefaultBorderlineMargin);
        const json tasks = j.value("tasks", json::array());
        if (!tasks.is_array()) throw Error("'tasks' must be a list");
        for (const auto& tj : tasks)
            r.tasks.push_back(taskFromJsonObj(tj));
    } catch (const Error& e) {
        throw Error(path + ": " + e.what());
    } catch (const json::exception& e) {
        throw Error(path + ": " + e.what());
    }
    return r;
}

std::string taskResultToJson(const TaskResult& t, int indent) {
    return taskToJsonObj(t).dump(indent, ' ', false, json::error_handler_t::replace);
}

TaskResult taskResultFromJson(const std::string& text, const std::string& path) {
    const json j = jsonutil::parse(text, path);
    try {
        return taskFromJsonObj(j);
    } catch (const json::exception& e) {
        throw Error(path + ": " + e.what());
    } catch (const Error& e) {
        throw Error(path + ": " + e.what());
    }
}

std::string runInfoToJson(const RunInfo& r, int indent) { return runInfoToObj(r).dump(indent); }

RunInfo runInfoFromJson(const std::string& text, const std::string& path) {
    const json j = jsonutil::parse(text, path);
    try {
        return runInfoFromObj(j);
    } catch (const json::exception& e) {
        throw Error(path + ": " + e.what());
    } catch (const Error& e) {
        throw Error(path + ": " + e.what());
    }
}

void writeFileAtomic(const std::string& path, const std::string& contents, bool keepBackup) {
    namespace fs = std::filesystem;
    // POSIX calls, not an ofstream: a full disk often shows only at close() or fsync(), which an
    // ofstream's destructor swallows, and then the rename would replace a good file with half of one.
    const std::string tmp = path + ".tmp-" + std::to_string(::getpid());
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) throw Error(path + ": cannot open for writing: " + std::strerror(errno));
    auto fail = [&](const char* what, int err) {
        ::close(fd);
        ::unlink(tmp.c_str());
        return Error(path + ": " + what + ": " + std::strerror(err) +
                     (err == ENOSPC || err == EDQUOT || err == EFBIG ? " (the previous file, if any, is unchanged)" : ""));
    };
    size_t done = 0;
    while (done < contents.size()) {
        const ssize_t n = ::write(fd, contents.data() + done, contents.size() - done);
        if (n < 0) {
            if (errno == EINTR) continue;
            throw fail("write failed", errno);
        }
        done += static_cast<size_t>(n);
    }
    // On disk before the rename: after a power loss the name points at the old or the new file.
    if (::fsync(fd) != 0 && errno != EINVAL) throw fail("write failed", errno);
    if (::close(fd) != 0) {
        const int err = errno;
        ::unlink(tmp.c_str());
        throw Error(path + ": write failed: " + std::strerror(err));
    }
    if (keepBackup) {
        struct stat st {};
        if (::lstat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode)) {
            // A hard link keeps the old file under .bak without a moment in which `path` is missing.
            const std::string bak = path + ".bak";
            ::unlink(bak.c_str());
            if (::link(path.c_str(), bak.c_str()) != 0) {
                std::error_code ec;
                fs::copy_file(path, bak, fs::copy_options::overwrite_existing, ec);
            }
        }
    }
    if (::rename(tmp.c_str(), path.c_str()) != 0) {
        const int err = errno;
        ::unlink(tmp.c_str());
        throw Error(path + ": cannot replace the file: " + std::strerror(err));
    }
}

std::string readFile(const std::string& path, std::uintmax_t maxBytes) {
    // Non-blocking open, then fstat on the descriptor we read: checking the name first would leave
    // a window in which it is swapped for a FIFO, and opening a FIFO blocks until a writer comes.
    const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) throw Error(path + ": cannot open for reading: " + std::strerror(errno));
    struct FdCloser {
        int fd;
        ~FdCloser() { ::close(fd); }
    } closer{fd};
    struct stat st {};
    if (::fstat(fd, &st) != 0) throw Error(path + ": cannot read: " + std::strerror(errno));
    if (!S_ISREG(st.st_mode)) {
        const char* what = S_ISDIR(st.st_mode)                          ? "a folder"
                           : S_ISFIFO(st.st_mode)                       ? "a FIFO"
                           : S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? "a device"
                           : S_ISSOCK(st.st_mode)                       ? "a socket"
                                                                        : "not a plain file";
        throw Error(path + ": is " + std::string(what) +
                    ", not a regular file; give a regular file");
    }
    auto tooLarge = [&] {
        return Error(path + ": larger than " + std::to_string(maxBytes) +
                     " bytes, the most accepted here");
    };
    if (static_cast<std::uintmax_t>(st.st_size) > maxBytes) throw tooLarge();
    // Read to EOF rather than st_size bytes: /proc files report 0 and a file may grow meanwhile.
    std::string out;
    out.reserve(static_cast<size_t>(st.st_size));
    char buf[1 << 16];
    for (;;) {
        const ssize_t n = ::read(fd, buf, sizeof buf);
        if (n < 0) {
            if (errno == EINTR) continue;
            throw Error(path + ": read failed: " + std::strerror(errno));
        }
        if (n == 0) break;
        if (out.size() + static_cast<size_t>(n) > maxBytes) throw tooLarge();
        out.append(buf, static_cast<size_t>(n));
    }
    return out;
}

std::string csvField(const std::string& s) {
    if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
    std::string out = "\"";
    for (char c : s) {
        if (c == '"') out += '"';
        out += c;
    }
    return out + "\"";
}

namespace {

// The error column: the task's own error, then those of the analyses, each named, so that one
// column explains every empty flag cell.
std::string allErrors(const TaskResult& task) {
    std::string out = task.error;
    for (Criterion c : {Criterion::BaselineInefficiency, Criterion::RedundantComputation}) {
        const std::string e = task.criterionError(c);
        if (!e.empty()) out += (out.empty() ? "" : "; ") + std::string(criterionInfo(c).key) + ": " + e;
    }
    return out;
}

// "output_axes;zeros_pass": each criterion once, however many of its rules are borderline.
std::string borderlineKeys(const TaskResult& task, const Thresholds& t) {
    std::string out;
    const char* last = nullptr;
    for (const auto& hit : task.borderline(t)) {
        const char* key = criterionInfo(thresholdInfo(hit.threshold).criterion).key;
        if (key == last) continue;
        if (last) out += ';';
        out += key;
        last = key;
    }
    return out;
}

std::string inefficiencyReasons(const InefficiencyVerdict& v) {
    std::string out;
    for (const auto& [on, name] : {std::pair{v.rewrite, "rewrite"}, {v.efficiency, "efficiency"}, {v.passes, "passes"}})
        if (on) {
            if (!out.empty()) out += '+';
            out += name;
        }
    return out;
}

} // namespace

std::string resultsToCsv(const RunResults& r, const Thresholds& t) {
    std::ostringstream os;
    os << "Task ID,Task Name";
    for (const auto& c : criteria()) os << ',' << c.label;
    os << ",Any Flag,Level,Category,Status";
    for (int c = 0; c < StatisticalCriterionCount; ++c) os << ',' << criteria()[c].key << "_metric";
    // Filter 5's three measurements (any one flags) and filter 6's, each in its own column.
    os << ",baseline_rewrite_speedup,baseline_rewrite_rule,baseline_efficiency,baseline_passes"
          ",baseline_memory_bound,baseline_eager_ms,baseline_graph_ms,baseline_host_syncs,baseline_floor_ms"
          ",baseline_timed_on"
          ",baseline_reasons"
          ",redundant_flop_fraction,redundant_nodes,redundant_unused_args";
    os << ",zeros_pass_metric";
    for (const auto& i : thresholdInfos()) os << ',' << i.key << "_threshold";
    os << ",borderline_margin,borderline";
    os << ",output_axes_argmin,seeds,output_shape,error,approximated\r\n";
    for (const auto& task : r.tasks) {
        os << csvField(task.id) << ',' << csvField(task.name);
        for (const auto& c : criteria())
            os << ',' << (task.criterionRun(c.criterion) ? (task.flagged(c.criterion, t) ? "True" : "False") : "");
        os << ',' << (task.anyFlag(t) ? "True" : "False") << ',' << task.level << ','
           << csvField(task.category) << ',' << taskStatusName(task.status);
        for (int c = 0; c < StatisticalCriterionCount; ++c) {
            os << ',';
            if (task.criterionRun(static_cast<Criterion>(c))) os << fmt(task.metric(static_cast<Criterion>(c)), 9);
        }
        if (task.criterionRun(Criterion::BaselineInefficiency)) {
            const auto& ie = *task.inefficiency;
            os << ',' << fmt(ie.bestSpeedup, 9) << ',' << csvField(ie.bestRule) << ',' << fmt(ie.efficiency, 9) << ','
               << fmt(ie.passes, 9) << ',' << (ie.memoryBound ? "True" : "False") << ',' << fmt(ie.eagerMs, 9) << ','
               << (ie.graphMs > 0 ? fmt(ie.graphMs, 9) : std::string()) << ','
               << (ie.hostSyncs >= 0 ? std::to_string(ie.hostSyncs) : std::string()) << ',' << fmt(ie.floorMs, 9) << ','
               << (ie.device == "cpu" ? "CPU" : ie.device == "cuda" ? "CUDA" : "") << ','
               << inefficiencyReasons(inefficiencyVerdict(ie, t));
        } else {
            os << ",,,,,,,,,,,";
        }
        if (task.criterionRun(Criterion::RedundantComputation)) {
            const auto& re = *task.redundancy;
            os << ',' << fmt(re.flopFraction(), 9) << ',' << re.nodes.size() << ',' << re.unused.size();
        } else {
            os << ",,,";
        }
        os << ',';
        if (task.criterionRun(Criterion::ZerosPass))
            os << fmt(task.metric(Criterion::ZerosPass, t), 9);
        for (const auto& i : thresholdInfos()) os << ',' << fmt(t.value(i.threshold), 9);
        os << ',' << fmt(t.borderlineMargin, 9) << ',' << borderlineKeys(task, t);
        os << ',' << (task.axes.run ? std::to_string(task.axes.minAxis()) : "") << ','
           << task.seeds << ',';
        std::string shape;
        for (size_t i = 0; i < task.outputShape.size(); ++i) {
            if (i) shape += 'x';
            shape += std::to_string(task.outputShape[i]);
        }
        // Tensors the engine draws as another sample than the original file (spec "approximated").
        std::string approx;
        for (const auto& n : approximatedTensorsInSpec(task.specJson))
            approx += (approx.empty() ? "" : ";") + n;
        os << csvField(shape) << ',' << csvField(allErrors(task)) << ',' << csvField(approx)
           << "\r\n";
    }
    return os.str();
}

std::string resultsToTable(const RunResults& r, const Thresholds& t) {
    std::ostringstream os;
    auto cell = [&](const TaskResult& task, Criterion c) {
        if (!task.criterionRun(c)) return std::string(task.criterionError(c).empty() ? "  -   " : "error");
        std::string v = c == Criterion::BaselineInefficiency
                            ? inefficiencySummary(*task.inefficiency, t)
                        : c == Criterion::RedundantComputation ? redundancySummary(*task.redundancy)
                                                               : fmt(task.metric(c, t), 3);
        return std::string(task.flagged(c, t) ? "FLAG " : "ok   ") + v;
    };
    // Filter 5's cell names a rule ("FLAG 34.5x diag-matmul"); the others fit a narrower column.
    auto width = [](Criterion c) {
        return c == Criterion::BaselineInefficiency ? 29 : c == Criterion::RedundantComputation ? 22 : 15;
    };
    size_t idw = 4;
    for (const auto& task : r.tasks) idw = std::max(idw, task.id.size() + 2);
    const int idW = static_cast<int>(idw);
    os << std::left << std::setw(idW) << "id" << std::setw(36) << "name";
    for (const auto& c : criteria())
        os << std::setw(width(c.criterion))
           << std::string(c.key).substr(0, static_cast<size_t>(width(c.criterion) - 1));
    os << "status\n";
    for (const auto& task : r.tasks) {
        os << std::left << std::setw(idW) << task.id << std::setw(36) << task.name.substr(0, 35);
        for (const auto& c : criteria()) {
            std::string v = cell(task, c.criterion);
            const auto w = static_cast<size_t>(width(c.criterion));
            if (v.size() >= w) v = v.substr(0, w - 1);
            os << std::setw(static_cast<int>(w)) << v;
        }
        os << taskStatusName(task.status);
        const std::string err = allErrors(task);
        if (!err.empty()) os << ": " << err;
        os << '\n';
    }
    int flagged[CriterionCount] = {};
    int errors = 0;
    for (const auto& task : r.tasks) {
        for (const auto& c : criteria())
            if (task.flagged(c.criterion, t)) ++flagged[static_cast<int>(c.criterion)];
        if (task.status == TaskStatus::Error) ++errors;
    }
    os << "\n" << r.tasks.size() << " tasks, " << errors << " failed; flagged:";
    for (const auto& c : criteria()) os << ' ' << c.key << '=' << flagged[static_cast<int>(c.criterion)];
    os << "\n(thresholds: profile " << t.profile;
    for (const auto& i : thresholdInfos()) os << ", " << thresholdRuleText(i.threshold, t.value(i.threshold));
    os << ")\n";
    return os.str();
}

std::string toolVersion() { return KS_VERSION; }

} // namespace ks
