// SPDX-License-Identifier: MIT
// Call plans: a manifest's or a robust-kbench import's `args` (resolveCallPlan, against a task
// with two inputs and two parameters), and the `--plan` a bench worker is handed
// (callPlanFromJson; written by callPlanToJson, but it crosses a process boundary as text).

#include "fuzz.h"
#include "ks/core/external.h"

using namespace ks;

namespace {

const TaskSpec& task() {
    static const TaskSpec t =
        parseTaskSpec(R"({"kind":"kernelsieve.task","format_version":1,
        "id":"F-1","name":"fuzz","source":"def forward(x, y, weight, bias): return x",
        "inputs":[{"name":"x","shape":[2,3]},{"name":"y","shape":[3]}],
        "params":[{"name":"weight","shape":[3,3]},{"name":"bias","shape":[3]}]})",
                      "fuzz-task.json", [](const std::string& p) -> std::string {
                          throw Error(p + ": no files here");
                      });
    return t;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string text = fuzz::text(data, size);
    try {
        callPlanFromJson(text);
    } catch (const Error&) {
    }
    std::vector<CallArg> plan;
    try {
        plan = resolveCallPlan(task(), text);
    } catch (const Error&) {
        return 0;
    }
    for (const auto& a : plan)
        a.describe();
    fuzz::checkRoundTrip(
        "call plan", callPlanToJson(plan), [](const std::string& s) { return callPlanFromJson(s); },
        [](const std::vector<CallArg>& p) { return callPlanToJson(p); });
    return 0;
}
