// SPDX-License-Identifier: MIT
#pragma once
// Filters 5 (baseline inefficiency) and 6 (redundant computation) as criteria of the filter
// matrix, without torch: their flag rules under editable thresholds, the text a matrix cell or
// the terminal table shows, and the JSON form of their reports, shared by results files, the
// standalone `inefficiency` / `redundancy` outputs and the GUI (which never links the engine).

#include "ks/core/criteria.h"
#include "ks/core/inefficiency.h"
#include "ks/core/redundancy.h"

#include <nlohmann/json_fwd.hpp>

#include <optional>
#include <string>
#include <string_view>

namespace ks {

// Which rules of filter 5 fire under `t`. Derived from the report's measurements on every call,
// never from the report's own flagged* fields (those hold the thresholds of the run).
struct InefficiencyVerdict {
    bool rewrite = false;    // an equal, implemented rewrite is >= baseline_rewrite_speedup times faster
    bool efficiency = false; // not launch-bound and roofline floor / eager time < baseline_efficiency
    bool passes = false;     // baseline_passes > 0, memory-bound, not launch-bound and passes >= it
    bool flagged() const { return rewrite || efficiency || passes; }
};
InefficiencyVerdict inefficiencyVerdict(const InefficiencyReport& r, const Thresholds& t);
// Filter 6's severity: a constant output, a dead op, or an argument whose values are never used
// (a dead branch). Ops whose removal merely changes nothing (a clamp that never binds) are minor.
bool redundancyMajor(const RedundancyReport& r);
// Filter 6: a major finding, or minor ones whose FLOP share >= redundant_flop_fraction.
bool redundancyFlagged(const RedundancyReport& r, const Thresholds& t);

// What a matrix cell or table cell shows. Flagged: the dominant reason, in the order rewrite,
// efficiency, passes ("97.5x diag-matmul", "eff 0.03", "2.5 passes"); otherwise the best rewrite
// if one was found, else the efficiency.
std::string inefficiencySummary(const InefficiencyReport& r, const Thresholds& t);
// The report as filter 5's efficiency and launch-bound tests would read it on the eager
// forward's CUDA-graph replay instead of the eager time: eagerMs = graphMs, one launch =
// graphLaunchMs (in the floor and in the launch-bound limit), efficiency = that floor / graphMs.
// nullopt where no replay was measured. The verdicts use the eager time; this is what the
// borderline mark compares them with (docs/inefficiency.md, "Host dispatch").
std::optional<InefficiencyReport> onGraphReplay(const InefficiencyReport& r);
// "host dispatch 78% of the eager time" for a task its efficiency rule flags and whose CUDA-graph
// replay was measured (such a verdict moves with the host: docs/inefficiency.md); "" otherwise.
std::string inefficiencyDispatchNote(const InefficiencyReport& r, const Thresholds& t);
// "12%, 2 ops", "0%, 2 unused", "none".
std::string redundancySummary(const RedundancyReport& r);

// One report as a JSON object (the measurements only; flags are derived by whoever reads it).
// The readers accept what older writers left out; a wrong type throws ks::Error naming the field.
nlohmann::json inefficiencyReportToJson(const InefficiencyReport& r);
InefficiencyReport inefficiencyReportFromJson(const nlohmann::json& j);
nlohmann::json redundancyReportToJson(const RedundancyReport& r);
RedundancyReport redundancyReportFromJson(const nlohmann::json& j);
// The ceilings' JSON, as in the cache file ($XDG_CACHE_HOME/kernelsieve/ceilings-<device>.json).
nlohmann::json deviceCeilingsToJson(const DeviceCeilings& c);
DeviceCeilings deviceCeilingsFromJson(const nlohmann::json& j);

// Redundancy kind keys ("dead", "no-effect", "duplicate", "constant", "feeds-redundant") and back.
const char* redundantKindName(RedundantNode::Kind k);
std::optional<RedundantNode::Kind> redundantKindFromKey(std::string_view key);

} // namespace ks
