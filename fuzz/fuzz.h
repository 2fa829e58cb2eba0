// SPDX-License-Identifier: MIT
#pragma once
// Shared by the fuzz targets. A loader may refuse an input only with a ks::Error (the CLI and GUI
// show its message); anything else is a bug the fuzzer must see as a crash: another exception
// (an nlohmann type_error escaping aborted the CLI with rc 134), a sanitizer report, an abort.
// So nothing but ks::Error is ever caught here.
//
// Beyond "no crash", every target checks the round trip an accepted file takes in real use: what
// a writer makes of a loaded file must load again and write the same text (a results file that
// the next `filter --results` refuses is a lost result).

#include "ks/core/taskspec.h"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <unistd.h>

namespace ks::fuzz {

inline std::string text(const uint8_t* data, size_t size) {
    return std::string(reinterpret_cast<const char*>(data), size);
}

// Prints what broke and aborts, which libFuzzer reports as a crash with the input saved.
[[noreturn]] inline void violated(const char* what, const std::string& detail) {
    std::fprintf(stderr, "\nKernelSieve fuzz: %s\n%s\n", what, detail.c_str());
    std::abort();
}

// `write(load(text))` must load again and be a fixed point: write(load(written)) == written.
template <class Load, class Write>
void checkRoundTrip(const char* what, const std::string& written, Load load, Write write) {
    std::string again;
    try {
        again = write(load(written));
    } catch (const Error& e) {
        violated(what, std::string("what this build wrote does not load back: ") + e.what() +
                           "\n--- written:\n" + written.substr(0, 4000));
    }
    if (again != written)
        violated(what, "writing what was loaded changes it:\n--- first:\n" +
                           written.substr(0, 4000) + "\n--- second:\n" + again.substr(0, 4000));
}

// A scratch folder for the targets that load folders (suites, kernel manifests): made once per
// process, emptied before each input, removed at exit. fuzz/run.sh points TMPDIR into the build
// folder, so what a crash leaves behind is not left in /tmp.
inline const std::filesystem::path& scratchDir() {
    // Never destroyed: static destructors run before the atexit handler registered here.
    static const std::filesystem::path* const dir = [] {
        std::string tmpl = (std::filesystem::temp_directory_path() / "ks-fuzz-XXXXXX").string();
        if (!::mkdtemp(tmpl.data())) violated("mkdtemp failed", tmpl);
        std::atexit([] {
            std::error_code ec;
            std::filesystem::remove_all(scratchDir(), ec);
        });
        return new std::filesystem::path(tmpl);
    }();
    return *dir;
}

inline void emptyScratchDir() {
    for (const auto& e : std::filesystem::directory_iterator(scratchDir()))
        std::filesystem::remove_all(e.path());
}

} // namespace ks::fuzz
