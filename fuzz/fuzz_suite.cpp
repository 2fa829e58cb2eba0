// SPDX-License-Identifier: MIT
// Suite folders (`--suite DIR`): the input is up to eight task files separated by lines of
// "%%%", written into a folder beside a source file s.py, then loadSuiteDir (ordering, duplicate
// ids, sources and artifacts inside the folder) and what `filter` makes of the suite before the
// engine runs: a result row per task and per refused file, written as a results file.

#include "fuzz.h"
#include "ks/core/results.h"
#include "ks/core/suite.h"

#include <fstream>

using namespace ks;
namespace fs = std::filesystem;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string text = fuzz::text(data, size);
    fuzz::emptyScratchDir();
    const fs::path dir = fuzz::scratchDir() / "suite";
    fs::create_directories(dir / "sub");
    std::ofstream(dir / "s.py") << "def forward(x: Tensor) -> Tensor:\n    return x\n";
    const std::string sep = "\n%%%\n";
    size_t start = 0;
    for (int i = 0; i < 8 && start <= text.size(); ++i) {
        const size_t end = std::min(text.find(sep, start), text.size());
        // Alternate between the top and a subfolder so `../s.py` paths are reachable too.
        std::ofstream(dir / (i % 2 ? "sub" : ".") / ("t" + std::to_string(i) + ".json"),
                      std::ios::binary)
            << text.substr(start, end - start);
        start = end + sep.size();
    }
    Suite s;
    try {
        s = loadSuiteDir(dir.string());
    } catch (const Error&) {
        return 0;
    }
    RunResults r;
    r.thresholds = Thresholds::defaults();
    for (const auto& t : selectTasks(s, "*"))
        r.tasks.push_back(resultSkeleton(t));
    for (const auto& i : s.issues)
        r.tasks.push_back(failedLoadResult(i));
    fuzz::checkRoundTrip(
        "suite skeleton results", resultsToJson(r),
        [](const std::string& t) { return resultsFromJson(t, "w.json"); },
        [](const RunResults& x) { return resultsToJson(x); });
    return 0;
}
