// SPDX-License-Identifier: MIT
// Kernel manifests (`--kernels DIR` with a kernels.json): the input is the manifest, in a folder
// beside one kernel file k.cu, discovered against the built-in suite. ModelNew capture runs the
// given Python; /bin/false stands in for it, so a .py entry fails fast instead of starting one.

#include "fuzz.h"
#include "ks/core/external.h"

#include <fstream>

using namespace ks;
namespace fs = std::filesystem;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static const Suite suite = loadBuiltinSuite();
    fuzz::emptyScratchDir();
    const fs::path dir = fuzz::scratchDir() / "kernels";
    fs::create_directories(dir);
    std::ofstream(dir / "k.cu") << "// a kernel\n";
    std::ofstream(dir / "kernels.json", std::ios::binary) << fuzz::text(data, size);
    DiscoverOptions opt;
    opt.python = "/bin/false";
    opt.captureScript = "/bin/false";
    opt.captureTimeoutSeconds = 5;
    std::vector<std::string> warnings;
    try {
        for (const auto& k : discoverKernels(dir.string(), suite, opt, &warnings))
            for (const auto& a : k.args)
                a.describe();
    } catch (const Error&) {
    }
    return 0;
}
