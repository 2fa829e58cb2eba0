// SPDX-License-Identifier: MIT
#pragma once
// Shared by every JSON loader in core/. JSON has no NaN/Inf; we keep them lossless as strings
// because a NaN metric means "never passes" and must survive a round trip. The readers below
// are strict on purpose: nlohmann's `value()` converts silently (1.5 reads as 1, 2^62 wraps into
// an int, a string throws a type_error nobody catches), and every file we load may come from
// someone else, so a field of the wrong type or out of range is an error that names it.

#include "ks/core/taskspec.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace ks::jsonutil {

// Nesting deeper than this is refused before parsing. nlohmann's parser and destructor are
// iterative, but copying, comparing and dumping a value recurse once per level: 200k levels of
// [[[...]]] (a 400 KB file) overflowed the stack. Nothing we write nests beyond ~10 levels.
inline constexpr int MaxDepth = 512;

// Parses `text` read from `path`, or throws ks::Error "path: not valid JSON: ..." for syntax
// errors, numbers beyond double range (1e999) and nesting deeper than MaxDepth alike.
nlohmann::json parse(const std::string& text, const std::string& path);
// The depth check alone, for callers that parse with their own options (the GUI's protocol
// reader): empty when fine, else why not.
std::string depthProblem(const char* begin, const char* end);

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
    if (!j.is_object() || !j.contains(key)) return def;
    return toNum(j.at(key), key);
}

// `v` as it reads in an error message: compact, cut at 40 characters.
std::string brief(const nlohmann::json& v);
// `v` as an integer in [lo, hi]; 1.5, 1e30, "2" and true are errors naming `key`.
int64_t toInt(const nlohmann::json& v, const std::string& key, int64_t lo, int64_t hi);
// Field readers: absent (or `j` not an object) gives `def`; present with the wrong type or out of
// range throws ks::Error naming the field.
int64_t getInt(const nlohmann::json& j, const char* key, int64_t def, int64_t lo, int64_t hi);
std::string getString(const nlohmann::json& j, const char* key, const std::string& def = {});
bool getBool(const nlohmann::json& j, const char* key, bool def);
std::vector<std::string> getStrings(const nlohmann::json& j, const char* key);
std::vector<int64_t> getInts(const nlohmann::json& j, const char* key, int64_t lo, int64_t hi);
// A tensor shape: a list of sizes in [0, MaxDimSize] whose product fits in int64.
std::vector<int64_t> getShape(const nlohmann::json& j, const char* key);

// The largest tensor size we accept in a file: 2^40 elements along one axis is far beyond any
// device's memory, while 1e30 or 2^62 is a corrupt or hostile file.
inline constexpr int64_t MaxDimSize = int64_t{1} << 40;
// Seeds per pass in a file: the engine streams over seeds, but a count beyond this is no run
// anyone made (100 seeds take minutes per task on an H200).
inline constexpr int64_t MaxSeeds = 1'000'000;

} // namespace ks::jsonutil
