// SPDX-License-Identifier: MIT
#include "ks/core/resultsmerge.h"
#include "ks/core/criteria.h"

#include <algorithm>
#include <map>
#include <set>

namespace ks {

std::vector<size_t> shardPositions(size_t total, int k, int n) {
    std::vector<size_t> out;
    if (n < 1 || k < 1 || k > n) return out;
    for (size_t i = static_cast<size_t>(k - 1); i < total; i += static_cast<size_t>(n)) out.push_back(i);
    return out;
}

namespace {

std::string describe(const ResultsPart& p) {
    const RunInfo& r = p.results.run;
    std::string s = p.path + ":";
    if (r.shardCount) s += " shard " + std::to_string(r.shardIndex) + "/" + std::to_string(r.shardCount) + ",";
    s += " " + std::to_string(p.results.tasks.size()) + " tasks, " + r.device +
         (r.deviceName.empty() ? "" : " (" + r.deviceName + ")") + (r.host.empty() ? "" : ", host " + r.host) +
         (r.created.empty() ? "" : ", " + r.created);
    return s;
}

// Loads of a task that failed before it ran (a load issue) have no level; they came first in
// the run and stay first.
bool isLoadFailure(const TaskResult& t) { return t.status == TaskStatus::Error && t.seeds == 0 && t.specJson.empty(); }

} // namespace

RunResults mergeResults(const std::vector<ResultsPart>& parts, const MergeOptions& opt) {
    if (parts.empty()) throw Error("merge: no results files given");
    const ResultsPart& first = parts.front();
    const RunInfo& a = first.results.run;
    for (const auto& p : parts) {
        const RunInfo& b = p.results.run;
        std::vector<std::string> why;
        auto differs = [&](const char* what, const std::string& x, const std::string& y) {
            if (x != y) why.push_back(std::string(what) + " '" + x + "' vs '" + y + "'");
        };
        differs("suite", a.suite, b.suite);
        differs("preset", a.preset, b.preset);
        if (a.seeds != b.seeds) why.push_back("seeds " + std::to_string(a.seeds) + " vs " + std::to_string(b.seeds));
        differs("seed semantics", a.seedSemantics, b.seedSemantics);
        differs("device", a.device, b.device);
        if (!opt.allowDevices) differs("device model (--allow-devices merges them)", a.deviceName, b.deviceName);
        if (!(first.results.thresholds == p.results.thresholds)) why.push_back("thresholds");
        if ((a.shardCount == 0) != (b.shardCount == 0) || a.shardCount != b.shardCount)
            why.push_back("shard count " + std::to_string(a.shardCount) + " vs " + std::to_string(b.shardCount));
        if (!why.empty()) {
            std::string all;
            for (const auto& w : why) all += (all.empty() ? "" : "; ") + w;
            throw Error("merge: " + p.path + " is not a part of the run of " + first.path + " (" + all + ")");
        }
    }

    RunResults out;
    out.run = a;
    out.thresholds = first.results.thresholds;
    out.run.shardIndex = out.run.shardCount = 0;
    out.run.mergedFrom.clear();
    out.run.totalSeconds = 0;
    out.run.peakMemoryBytes = 0;
    out.run.cancelled = false;
    std::set<std::string> seen;
    for (const auto& p : parts) {
        const RunInfo& r = p.results.run;
        out.run.mergedFrom.push_back(describe(p));
        out.run.totalSeconds += r.totalSeconds; // device time spent, over all parts
        out.run.peakMemoryBytes = std::max(out.run.peakMemoryBytes, r.peakMemoryBytes);
        out.run.cancelled = out.run.cancelled || r.cancelled;
        if (!r.created.empty() && (out.run.created.empty() || r.created < out.run.created)) out.run.created = r.created;
        for (const auto& t : p.results.tasks)
            if (!seen.insert(t.id).second)
                throw Error("merge: task " + t.id + " is in more than one file (" + p.path +
                            " again): overlapping shards or the same file twice");
    }
    if (opt.allowDevices) {
        std::set<std::string> names;
        for (const auto& p : parts) names.insert(p.results.run.deviceName);
        if (names.size() > 1) {
            std::string all;
            for (const auto& n : names) all += (all.empty() ? "" : " + ") + n;
            out.run.deviceName = all;
        }
    }

    if (a.shardCount == 0) { // task selections of one suite: in the order given
        for (const auto& p : parts) out.tasks.insert(out.tasks.end(), p.results.tasks.begin(), p.results.tasks.end());
        return out;
    }
    // Shards: task j of shard k was at position j*N + k-1 of the single run.
    const int n = a.shardCount;
    std::map<int, const ResultsPart*> byShard;
    for (const auto& p : parts) {
        const int k = p.results.run.shardIndex;
        if (!byShard.emplace(k, &p).second)
            throw Error("merge: shard " + std::to_string(k) + "/" + std::to_string(n) + " is given twice (" +
                        byShard[k]->path + ", " + p.path + ")");
    }
    std::vector<int> missing;
    for (int k = 1; k <= n; ++k)
        if (!byShard.count(k)) missing.push_back(k);
    if (!missing.empty() && !opt.allowMissingShards) {
        std::string ks;
        for (int k : missing) ks += (ks.empty() ? "" : ", ") + std::to_string(k);
        throw Error("merge: shards " + ks + " of " + std::to_string(n) +
                    " are missing; give every shard's file, or --allow-missing to merge what is there");
    }
    std::map<size_t, TaskResult> atPosition;
    for (const auto& [k, p] : byShard) {
        size_t j = 0;
        for (const auto& t : p->results.tasks) {
            if (isLoadFailure(t)) {
                out.tasks.push_back(t); // shard 1 carries the suite's load failures, first
                continue;
            }
            atPosition.emplace(j * static_cast<size_t>(n) + static_cast<size_t>(k - 1), t);
            ++j;
        }
    }
    for (auto& [pos, t] : atPosition) out.tasks.push_back(std::move(t));
    if (!missing.empty()) out.run.cancelled = true; // an incomplete run, said so
    return out;
}

} // namespace ks
