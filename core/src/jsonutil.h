// SPDX-License-Identifier: MIT
#pragma once
// JSON has no NaN/Inf; we keep them lossless as strings because a NaN metric means
// "never passes" and must survive a round trip.

#include "ks/core/taskspec.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <limits>

namespace ks::jsonutil {

inline nlohmann::json num(double v) {
    if (std::isnan(v)) return "NaN";
    if (std::isinf(v)) return v > 0 ? "Infinity" : "-Infinity";
    return v;
}

inline double toNum(const nlohmann::json& v, const char* key) {
    if (v.is_number()) return v.get<double>();
    if (v.is_null()) return std::numeric_limits<double>::quiet_NaN();
    if (v.is_string()) {
        const auto s = v.get<std::string>();
        if (s == "NaN") return std::numeric_limits<double>::quiet_NaN();
        if (s == "Infinity") return std::numeric_limits<double>::infinity();
        if (s == "-Infinity") return -std::numeric_limits<double>::infinity();
    }
    throw Error(std::string("field '") + key + "' is not a number");
}

inline double getNum(const nlohmann::json& j, const char* key,
                     double def = std::numeric_limits<double>::quiet_NaN()) {
    if (!j.contains(key)) return def;
    return toNum(j.at(key), key);
}

} // namespace ks::jsonutil
