// SPDX-License-Identifier: MIT
// Bench files (`kernelsieve-cli bench --out`, the GUI's bench view): benchFromJson, then what the
// CLI and GUI show of each variant (its verdict and the line that explains it), then re-writing.

#include "fuzz.h"
#include "ks/core/benchresults.h"

using namespace ks;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    BenchRun b;
    try {
        b = benchFromJson(fuzz::text(data, size), "fuzz.json");
    } catch (const Error&) {
        return 0;
    }
    for (const auto& t : b.tasks)
        for (const auto& v : t.variants) {
            variantVerdict(v);
            verdictDetail(v);
        }
    fuzz::checkRoundTrip(
        "bench", benchToJson(b), [](const std::string& t) { return benchFromJson(t, "w.json"); },
        [](const BenchRun& x) { return benchToJson(x); });
    return 0;
}
