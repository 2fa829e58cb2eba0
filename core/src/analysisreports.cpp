// SPDX-License-Identifier: MIT
#include "ks/core/analysisreports.h"
#include "jsonutil.h"
#include "ks/core/process.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <utility>

namespace ks {
namespace {
using json = nlohmann::json;
using jsonutil::getBool;
using jsonutil::getNum;
using jsonutil::num;

// The one table of redundancy kind keys, both ways (reports, CLI, GUI).
constexpr std::array<std::pair<RedundantNode::Kind, const char*>, 5> KindKeys{{
    {RedundantNode::Kind::Dead, "dead"},
    {RedundantNode::Kind::NoEffect, "no-effect"},
    {RedundantNode::Kind::Duplicate, "duplicate"},
    {RedundantNode::Kind::ConstantOutput, "constant"},
    {RedundantNode::Kind::FeedsRedundant, "feeds-redundant"},
}};

std::string fmt3(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3g", v);
    return buf;
}

std::string str(const json& j, const char* key) {
    if (!j.contains(key) || j.at(key).is_null()) return {};
    if (!j.at(key).is_string()) throw Error(std::string("field '") + key + "' is not a string");
    return j.at(key).get<std::string>();
}

std::vector<std::string> strings(const json& j, const char* key) {
    std::vector<std::string> out;
    if (!j.contains(key)) return out;
    for (const auto& v : j.at(key)) {
        if (!v.is_string()) throw Error(std::string("field '") + key + "' holds a non-string");
        out.push_back(v.get<std::string>());
    }
    return out;
}

// A count or line number. nlohmann's value<int>() cast 1e30 to int (undefined behaviour) and threw
// its own type_error for "3"; both are now errors naming the field.
int count(const json& j, const char* key) {
    return static_cast<int>(jsonutil::getInt(j, key, 0, 0, std::numeric_limits<int>::max()));
}

// The entries of list `key`, each an object; absent or null is an empty list.
const json& objects(const json& j, const char* key) {
    static const json none = json::array();
    if (!j.contains(key) || j.at(key).is_null()) return none;
    const json& v = j.at(key);
    if (!v.is_array())
        throw Error(std::string("field '") + key + "' must be a list, got " + jsonutil::brief(v));
    for (const auto& x : v)
        if (!x.is_object())
            throw Error(std::string("field '") + key +
                        "' holds a non-object: " + jsonutil::brief(x));
    return v;
}

Preset presetOf(const json& j) {
    const std::string p = str(j, "preset");
    if (p.empty()) return Preset::Small;
    if (const auto v = parsePreset(p)) return *v;
    throw Error("unknown preset '" + p + "'");
}

} // namespace

const char* redundantKindName(RedundantNode::Kind k) {
    for (const auto& [kind, key] : KindKeys)
        if (kind == k) return key;
    return "?";
}

std::optional<RedundantNode::Kind> redundantKindFromKey(std::string_view key) {
    for (const auto& [kind, k] : KindKeys)
        if (key == k) return kind;
    return std::nullopt;
}

InefficiencyVerdict inefficiencyVerdict(const InefficiencyReport& r, const Thresholds& t) {
    InefficiencyVerdict v;
    if (!r.error.empty()) return v;
    // bestSpeedup is 1 when no rewrite beat the original; without a rule there is nothing to flag,
    // even under a threshold of 1 or less.
    v.rewrite = !r.bestRule.empty() && flaggedAtLeast(r.bestSpeedup, t.value(Threshold::BaselineRewriteSpeedup));
    // A launch-bound task's eager time is its kernel launches: neither a low efficiency nor its
    // passes say anything about avoidable work there (docs/inefficiency.md).
    v.efficiency = r.eagerMs > 0 && !r.launchBound && r.efficiency < t.value(Threshold::BaselineEfficiency);
    // passes is 0 when it was not measured (reports from before the traffic estimate); a bound of 0
    // turns the rule off (the default: passes are information).
    const double maxPasses = t.value(Threshold::BaselinePasses);
    v.passes = maxPasses > 0 && r.memoryBound && !r.launchBound && r.passes > 0 && flaggedAtLeast(r.passes, maxPasses);
    return v;
}

bool redundancyMajor(const RedundancyReport& r) {
    if (!r.error.empty()) return false;
    for (const auto& n : r.nodes)
        if (n.kind == RedundantNode::Kind::ConstantOutput || n.kind == RedundantNode::Kind::Dead) return true;
    // An argument that only feeds ops found removable follows their severity; one whose values
    // are never used is a dead branch of the task.
    for (const auto& u : r.unused)
        if (u.reason != "only feeds redundant ops") return true;
    return false;
}

bool redundancyFlagged(const RedundancyReport& r, const Thresholds& t) {
    if (!r.error.empty() || !r.hasRedundancy()) return false;
    return redundancyMajor(r) || flaggedAtLeast(r.flopFraction(), t.value(Threshold::RedundantFlopFraction));
}

std::string inefficiencySummary(const InefficiencyReport& r, const Thresholds& t) {
    if (!r.error.empty()) return "error";
    const auto v = inefficiencyVerdict(r, t);
    const std::string rewrite = fmt3(r.bestSpeedup) + "x " + r.bestRule;
    const std::string efficiency = "eff " + fmt3(r.efficiency);
    if (v.rewrite) return rewrite;
    if (v.efficiency) return efficiency;
    if (v.passes) return fmt3(r.passes) + " passes";
    if (!r.bestRule.empty()) return rewrite;
    return r.eagerMs > 0 ? efficiency : "-";
}

std::optional<InefficiencyReport> onGraphReplay(const InefficiencyReport& r) {
    if (!r.error.empty() || !(r.graphMs > 0) || !(r.graphLaunchMs > 0)) return std::nullopt;
    InefficiencyReport g = r;
    g.eagerMs = g.eagerMedianMs = r.graphMs;
    g.launchMs = r.graphLaunchMs;
    g.serialFloorMs = r.serialSteps * g.launchMs;
    g.floorMs = std::max({r.memoryFloorMs, r.computeFloorMs, g.serialFloorMs, r.launches > 0 ? g.launchMs : 0.0});
    g.efficiency = g.floorMs / g.eagerMs;
    g.launchBound = g.eagerMs <= g.launchBoundLimitMs();
    return g;
}

std::string inefficiencyDispatchNote(const InefficiencyReport& r, const Thresholds& t) {
    if (!(r.graphMs > 0) || !(r.eagerMs > 0) || !inefficiencyVerdict(r, t).efficiency) return {};
    return "host dispatch " + std::to_string(std::lround(100.0 * r.dispatchShare())) + "% of the eager time";
}

std::string redundancySummary(const RedundancyReport& r) {
    if (!r.error.empty()) return "error";
    if (!r.hasRedundancy()) return "none";
    // Minor findings (ops that change nothing and cost little) carry a "minor" mark so a cell
    // that does not flag still says why it is not empty.
    const std::string pct = (redundancyMajor(r) ? "" : "minor ") + fmt3(100.0 * r.flopFraction()) + "%";
    if (!r.nodes.empty()) return pct + ", " + std::to_string(r.nodes.size()) + (r.nodes.size() == 1 ? " op" : " ops");
    return pct + ", " + std::to_string(r.unused.size()) + " unused";
}

json inefficiencyReportToJson(const InefficiencyReport& r) {
    json rw = json::array();
    for (const auto& x : r.rewrites)
        rw.push_back({{"rule", x.rule},
                      {"what", x.what},
                      {"node", x.node},
                      {"line", x.line},
                      {"implemented", x.implemented},
                      {"equal", x.equal},
                      {"max_abs_diff", num(x.maxAbsDiff)},
                      {"time_ms", num(x.timeMs)},
                      {"original_ms", num(x.originalMs)},
                      {"speedup", num(x.speedup)},
                      {"error", x.error}});
    return json{{"id", r.taskId},
                {"name", r.taskName},
                {"device", r.device},
                // Said in words because CPU timings say little about a GPU kernel's baseline.
                {"timings_on", r.device == "cpu" ? "CPU" : r.device == "cuda" ? "CUDA" : ""},
                {"preset", presetName(r.preset)},
                {"runs", r.runs},
                {"bytes", num(r.bytes)},
                {"flops", num(r.flops)},
                {"transcendentals", num(r.transcendentals)},
                {"bandwidth_gbs", num(r.bandwidthGBs)},
                {"memory_floor_ms", num(r.memoryFloorMs)},
                {"compute_floor_ms", num(r.computeFloorMs)},
                {"serial_steps", num(r.serialSteps)},
                {"serial_floor_ms", num(r.serialFloorMs)},
                {"floor_ms", num(r.floorMs)},
                {"eager_ms", num(r.eagerMs)},
                {"eager_median_ms", num(r.eagerMedianMs)},
                {"efficiency", num(r.efficiency)},
                {"eager_traffic_bytes", num(r.eagerTrafficBytes)},
                {"passes", num(r.passes)},
                {"unavoidable_bytes", num(r.unavoidableBytes)},
                {"memory_bound", r.memoryBound},
                {"launches", r.launches},
                {"launch_ms", num(r.launchMs)},
                {"launch_bound", r.launchBound},
                {"graph_ms", num(r.graphMs)},
                {"graph_launch_ms", num(r.graphLaunchMs)},
                {"graph_kernel_ms", num(r.graphKernelMs)},
                {"graph_error", r.graphError},
                {"host_syncs", r.hostSyncs},
                {"tf32", r.tf32},
                {"rewrites", rw},
                {"best_speedup", num(r.bestSpeedup)},
                {"best_rule", r.bestRule},
                {"notes", r.notes},
                {"error", r.error}};
}

InefficiencyReport inefficiencyReportFromJson(const json& j) {
    if (!j.is_object()) throw Error("an inefficiency report is not an object");
    InefficiencyReport r;
    r.taskId = str(j, "id");
    r.taskName = str(j, "name");
    r.device = str(j, "device");
    r.preset = presetOf(j);
    r.runs = count(j, "runs");
    r.bytes = getNum(j, "bytes", 0);
    r.flops = getNum(j, "flops", 0);
    r.transcendentals = getNum(j, "transcendentals", 0);
    r.bandwidthGBs = getNum(j, "bandwidth_gbs", 0);
    r.memoryFloorMs = getNum(j, "memory_floor_ms", 0);
    r.computeFloorMs = getNum(j, "compute_floor_ms", 0);
    r.serialSteps = getNum(j, "serial_steps", 0);
    r.serialFloorMs = getNum(j, "serial_floor_ms", 0);
    r.floorMs = getNum(j, "floor_ms", 0);
    r.eagerMs = getNum(j, "eager_ms", 0);
    r.eagerMedianMs = getNum(j, "eager_median_ms", 0);
    r.efficiency = getNum(j, "efficiency", 0);
    r.eagerTrafficBytes = getNum(j, "eager_traffic_bytes", 0);
    r.passes = getNum(j, "passes", 0);
    r.unavoidableBytes = getNum(j, "unavoidable_bytes", 0);
    r.memoryBound = getBool(j, "memory_bound", false);
    r.launches = count(j, "launches");
    r.launchMs = getNum(j, "launch_ms", 0);
    r.launchBound = getBool(j, "launch_bound", false);
    // 0 / "" in files from before the graph replay was measured.
    r.graphMs = getNum(j, "graph_ms", 0);
    r.graphLaunchMs = getNum(j, "graph_launch_ms", 0);
    r.graphKernelMs = getNum(j, "graph_kernel_ms", 0);
    r.graphError = str(j, "graph_error");
    r.hostSyncs = j.contains("host_syncs") && j["host_syncs"].is_number_integer() ? j["host_syncs"].get<int>() : -1;
    // Reports from before this field were timed with cuDNN's TF32 default (on).
    r.tf32 = getBool(j, "tf32", true);
    for (const auto& x : objects(j, "rewrites")) {
        RewriteResult rr;
        rr.rule = str(x, "rule");
        rr.what = str(x, "what");
        rr.node = str(x, "node");
        rr.line = count(x, "line");
        rr.implemented = getBool(x, "implemented", true);
        rr.equal = getBool(x, "equal", false);
        rr.maxAbsDiff = getNum(x, "max_abs_diff", 0);
        rr.timeMs = getNum(x, "time_ms", 0);
        // Files from before the interleaved timing have none (0: not recorded).
        rr.originalMs = getNum(x, "original_ms", 0);
        rr.speedup = getNum(x, "speedup", 0);
        rr.error = str(x, "error");
        r.rewrites.push_back(std::move(rr));
    }
    r.bestSpeedup = getNum(j, "best_speedup", 1);
    r.bestRule = str(j, "best_rule");
    // The standalone output also carries the run's flags; keep them, though criteria re-derive.
    r.flaggedRewrite = getBool(j, "flagged_rewrite", false);
    r.flaggedEfficiency = getBool(j, "flagged_efficiency", false);
    r.flaggedPasses = getBool(j, "flagged_passes", false);
    r.flagged = getBool(j, "flagged", false);
    r.notes = strings(j, "notes");
    r.error = str(j, "error");
    return r;
}

json redundancyReportToJson(const RedundancyReport& r) {
    json nodes = json::array();
    for (const auto& n : r.nodes)
        nodes.push_back({{"kind", redundantKindName(n.kind)},
                         {"op", n.op},
                         {"line", n.line},
                         {"source", n.sourceText},
                         {"reason", n.reason},
                         {"node", n.node},
                         {"flops", num(n.flops)},
                         {"bytes", num(n.bytes)}});
    json unused = json::array();
    for (const auto& u : r.unused) unused.push_back({{"name", u.name}, {"param", u.isParam}, {"reason", u.reason}});
    json t = {{"id", r.taskId},
              {"name", r.taskName},
              {"device", r.device},
              {"preset", presetName(r.preset)},
              {"seeds", r.seeds},
              {"redundant", r.hasRedundancy()},       // derived, for readers without our code
              {"flop_fraction", num(r.flopFraction())}, // derived, likewise
              {"total_flops", num(r.totalFlops)},
              {"redundant_flops", num(r.redundantFlops)},
              {"ops_examined", r.opsExamined},
              {"nodes", nodes},
              {"unused_arguments", unused},
              {"notes", r.notes},
              {"wall_s", num(r.wallSeconds)}};
    if (!r.error.empty()) t["error"] = r.error;
    return t;
}

RedundancyReport redundancyReportFromJson(const json& j) {
    if (!j.is_object()) throw Error("a redundancy report is not an object");
    RedundancyReport r;
    r.taskId = str(j, "id");
    r.taskName = str(j, "name");
    r.device = str(j, "device");
    r.preset = presetOf(j);
    r.seeds = count(j, "seeds");
    r.totalFlops = getNum(j, "total_flops", 0);
    r.redundantFlops = getNum(j, "redundant_flops", 0);
    r.opsExamined = count(j, "ops_examined");
    for (const auto& x : objects(j, "nodes")) {
        RedundantNode n;
        const std::string kind = str(x, "kind");
        const auto k = redundantKindFromKey(kind);
        if (!k) throw Error("unknown redundant-node kind '" + kind + "'");
        n.kind = *k;
        n.op = str(x, "op");
        n.line = count(x, "line");
        n.sourceText = str(x, "source");
        n.reason = str(x, "reason");
        n.node = str(x, "node");
        n.flops = getNum(x, "flops", 0);
        n.bytes = getNum(x, "bytes", 0);
        r.nodes.push_back(std::move(n));
    }
    for (const auto& x : objects(j, "unused_arguments"))
        r.unused.push_back({str(x, "name"), getBool(x, "param", false), str(x, "reason")});
    r.notes = strings(j, "notes");
    r.error = str(j, "error");
    r.wallSeconds = getNum(j, "wall_s", 0);
    return r;
}

json deviceCeilingsToJson(const DeviceCeilings& c) {
    json curve = json::array();
    for (const auto& [bytes, gbs] : c.copyCurve) curve.push_back({num(bytes), num(gbs)});
    return json{{"kind", "kernelsieve.ceilings"},
                {"device", c.device},
                {"device_name", c.deviceName},
                {"measured", c.measured},
                {"copy_bandwidth_gbs", num(c.copyBandwidthGBs)},
                {"copy_curve", curve},
                {"fp32_peak_gflops", num(c.fp32PeakGflops)},
                {"transcendental_gelems", num(c.transcendentalGelems)},
                {"launch_ms", num(c.launchMs)},
                {"graph_launch_ms", num(c.graphLaunchMs)},
                {"graph_kernel_ms", num(c.graphKernelMs)},
                {"threads", c.threads},
                {"method", c.method},
                {"source", c.source}};
}

DeviceCeilings deviceCeilingsFromJson(const json& j) {
    if (!j.is_object()) throw Error("the device ceilings are not an object");
    DeviceCeilings c;
    c.device = str(j, "device");
    c.deviceName = str(j, "device_name");
    c.measured = str(j, "measured");
    c.copyBandwidthGBs = getNum(j, "copy_bandwidth_gbs", 0);
    for (const auto& p : j.value("copy_curve", json::array())) {
        if (!p.is_array() || p.size() != 2) throw Error("field 'copy_curve' holds a point that is not [bytes, GB/s]");
        c.copyCurve.emplace_back(jsonutil::toNum(p.at(0), "copy_curve"), jsonutil::toNum(p.at(1), "copy_curve"));
    }
    c.fp32PeakGflops = getNum(j, "fp32_peak_gflops", 0);
    c.transcendentalGelems = getNum(j, "transcendental_gelems", 0);
    c.launchMs =
        getNum(j, "launch_ms", 0); // 0 in files written before it: the cache measures again
    c.graphLaunchMs = getNum(j, "graph_launch_ms", 0);
    c.graphKernelMs = getNum(j, "graph_kernel_ms", 0);
    c.threads = count(j, "threads");
    c.method = str(j, "method");
    c.source = str(j, "source");
    return c;
}

std::string defaultCeilingsCacheDir() { return userCacheDir(nullptr, ""); }

} // namespace ks
