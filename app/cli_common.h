// SPDX-License-Identifier: MIT
#pragma once
// Option checks shared by the subcommands.

#include "ks/core/sandbox.h"

#include <CLI/CLI.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>

namespace ks::cli {

// KS_TRACE_START set: "[trace] WHAT" on stderr, for bench/engine/timeline.py, which stamps each
// line with the time it arrived (where a short run's start-up goes, bench/engine/RESULTS.md).
inline void traceStart(const std::string& what) {
    static const bool on = std::getenv("KS_TRACE_START") != nullptr;
    if (on) std::fprintf(stderr, "[trace] %s\n", what.c_str());
}

// Seconds that must be a positive, finite number: CLI11's PositiveNumber lets "nan" through (no
// comparison with NaN is true), and a NaN or infinite timeout silently means "never".
inline CLI::Validator finiteSeconds() {
    return CLI::Validator(
        [](const std::string& s) -> std::string {
            try {
                size_t used = 0;
                const double v = std::stod(s, &used);
                if (used == s.size() && std::isfinite(v) && v > 0) return "";
            } catch (const std::exception&) {
            }
            return "must be a positive, finite number of seconds (got '" + s + "')";
        },
        "SECONDS", "finite seconds");
}

// A finite number, 0 or more, of `unit` ("GiB"; empty for a tolerance): CLI11's NonNegativeNumber
// lets "nan" through (an infinite tolerance would pass every kernel) and names a range of 300
// digits when it refuses.
inline CLI::Validator finiteNonNegative(const std::string& unit = {}) {
    return CLI::Validator(
        [unit](const std::string& s) -> std::string {
            try {
                size_t used = 0;
                const double v = std::stod(s, &used);
                if (used == s.size() && std::isfinite(v) && v >= 0) return "";
            } catch (const std::exception&) {
            }
            return "must be a finite number" + (unit.empty() ? std::string() : " of " + unit) + ", 0 or more (got '" +
                   s + "')";
        },
        unit.empty() ? "NUMBER" : "GIB", "finite, 0 or more");
}

// Before a command runs untrusted code: 0 when it may (sandboxed, or --no-sandbox said so, with a
// warning), else the exit code (2) after the error that says how to go on.
inline int checkSandbox() {
    if (const std::string refusal = ks::sandboxRefusal(); !refusal.empty()) {
        std::cerr << "error: " << refusal << "\n";
        return 2;
    }
    if (const std::string w = ks::sandboxWarning(); !w.empty()) std::cerr << "WARNING: " << w << "\n";
    return 0;
}

// `--shard K/N` (filter, bench, validate): true and K, N when `s` is K/N with 1 <= K <= N.
inline bool parseShard(const std::string& s, int& k, int& n) {
    char extra = 0;
    return std::sscanf(s.c_str(), "%d/%d%c", &k, &n, &extra) == 2 && n >= 1 && k >= 1 && k <= n;
}

} // namespace ks::cli
