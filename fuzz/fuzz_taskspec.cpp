// SPDX-License-Identifier: MIT
// Task specs (a suite folder's *.json, imported tasks): parseTaskSpec, then what the engine asks
// of a loaded spec before it draws a tensor (every shape at both presets, fan-ins, dim names, a
// `--dim` override, the approximated tensors) and the default call plan of an external kernel.
// approximatedTensorsInSpec reads any text (the spec a results file carries), so it gets each
// input as well.

#include "fuzz.h"
#include "ks/core/external.h"

using namespace ks;

namespace {

// A suite's reader: a source file exists unless its name says otherwise, as readSuiteFile refuses
// files outside the suite with a ks::Error.
std::string readSource(const std::string& path) {
    if (path.find("missing") != std::string::npos) throw Error(path + ": cannot open for reading");
    return "def forward(x: Tensor) -> Tensor:\n    return x\n";
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string text = fuzz::text(data, size);
    approximatedTensorsInSpec(text);
    TaskSpec t;
    try {
        t = parseTaskSpec(text, "suite/L1/fuzz.json", readSource);
    } catch (const Error&) {
        return 0;
    }
    // parseTaskSpec resolved every shape and fan-in already, so these must not throw.
    for (Preset p : {Preset::Small, Preset::Full})
        for (const auto* list : {&t.inputs, &t.params})
            for (const auto& ts : *list) {
                t.shapeOf(ts, p);
                if (ts.init.kind == Distribution::Kind::KaimingUniform) t.fanInOf(ts, p);
            }
    t.approximatedTensors();
    approximatedTensorsInSpec(t.specText);
    std::map<std::string, int64_t> sizes;
    for (const auto& n : t.dimNames())
        sizes[n] = 3;
    t.overrideDims(Preset::Small, sizes);
    const std::vector<CallArg> plan = defaultCallPlan(t);
    const std::string planJson = callPlanToJson(plan);
    fuzz::checkRoundTrip(
        "default call plan", planJson, [](const std::string& s) { return callPlanFromJson(s); },
        [](const std::vector<CallArg>& p) { return callPlanToJson(p); });
    return 0;
}
