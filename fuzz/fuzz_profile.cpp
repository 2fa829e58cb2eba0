// SPDX-License-Identifier: MIT
// Threshold profiles (`--profile FILE`, the GUI's threshold panel): parseProfile, the rule texts
// the table and tooltips show under it, then re-writing it as the GUI's "Save profile" does.

#include "fuzz.h"
#include "ks/core/criteria.h"

using namespace ks;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    Thresholds t;
    try {
        t = parseProfile(fuzz::text(data, size), "fuzz.json");
    } catch (const Error&) {
        return 0;
    }
    for (const auto& c : criteria())
        criterionRuleText(c.criterion, t);
    for (const auto& i : thresholdInfos())
        thresholdRuleText(i.threshold, t.value(i.threshold));
    fuzz::checkRoundTrip(
        "profile", profileToJson(t), [](const std::string& s) { return parseProfile(s, "w.json"); },
        [](const Thresholds& x) { return profileToJson(x); });
    return 0;
}
