// SPDX-License-Identifier: MIT
#pragma once
// Option checks shared by the subcommands.

#include <CLI/CLI.hpp>

#include <cmath>
#include <string>

namespace ks::cli {

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

} // namespace ks::cli
