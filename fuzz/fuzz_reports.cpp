// SPDX-License-Identifier: MIT
// The analysis reports of filters 5 and 6 and the device ceilings (a results task's
// "inefficiency" and "redundancy" objects, the run's "ceilings", the ceilings cache file
// $XDG_CACHE_HOME/kernelsieve/ceilings-<device>.json): each reader gets the parsed input, then
// the verdicts and matrix cells the GUI shows, then re-writing.

#include "fuzz.h"
#include "jsonutil.h"
#include "ks/core/analysisreports.h"

using namespace ks;
using json = nlohmann::json;

namespace {

template <class Report, class From, class To>
void report(const char* what, const json& j, From from, To to) {
    Report r;
    try {
        r = from(j);
    } catch (const Error&) {
        return;
    }
    const Thresholds d = Thresholds::defaults();
    if constexpr (std::is_same_v<Report, InefficiencyReport>) {
        inefficiencyVerdict(r, d);
        inefficiencySummary(r, d);
    } else if constexpr (std::is_same_v<Report, RedundancyReport>) {
        redundancyFlagged(r, d);
        redundancySummary(r);
    }
    fuzz::checkRoundTrip(
        what, to(r).dump(),
        [&](const std::string& s) { return from(jsonutil::parse(s, "w.json")); },
        [&](const Report& x) { return to(x).dump(); });
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    json j;
    try {
        j = jsonutil::parse(fuzz::text(data, size), "fuzz.json");
    } catch (const Error&) {
        return 0;
    }
    report<InefficiencyReport>("inefficiency report", j, inefficiencyReportFromJson,
                               inefficiencyReportToJson);
    report<RedundancyReport>("redundancy report", j, redundancyReportFromJson,
                             redundancyReportToJson);
    report<DeviceCeilings>("device ceilings", j, deviceCeilingsFromJson, deviceCeilingsToJson);
    return 0;
}
