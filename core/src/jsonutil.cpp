// SPDX-License-Identifier: MIT
#include "jsonutil.h"
#include "ks/core/results.h"

namespace ks::jsonutil {
using json = nlohmann::json;

std::string depthProblem(const char* begin, const char* end) {
    // Brackets inside strings do not nest; a backslash escapes the next character.
    int depth = 0;
    bool inString = false, escaped = false;
    for (const char* p = begin; p != end; ++p) {
        const char c = *p;
        if (inString) {
            if (escaped)
                escaped = false;
            else if (c == '\\')
                escaped = true;
            else if (c == '"')
                inString = false;
        } else if (c == '"') {
            inString = true;
        } else if (c == '[' || c == '{') {
            if (++depth > MaxDepth)
                return "nested deeper than " + std::to_string(MaxDepth) + " levels (at byte " +
                       std::to_string(p - begin) + "); no KernelSieve file nests like that";
        } else if (c == ']' || c == '}') {
            --depth;
        }
    }
    return {};
}

} // namespace ks::jsonutil

namespace ks {
std::string jsonNestingProblem(const std::string& text) {
    return jsonutil::depthProblem(text.data(), text.data() + text.size());
}
} // namespace ks

namespace ks::jsonutil {

json parse(const std::string& text, const std::string& path) {
    if (const std::string why = depthProblem(text.data(), text.data() + text.size()); !why.empty())
        throw Error(path + ": not valid JSON: " + why);
    try {
        return json::parse(text);
    } catch (const json::exception& e) {
        // parse_error for syntax, out_of_range for numbers like 1e999 that no double holds.
        throw Error(path + ": not valid JSON: " + e.what());
    }
}

std::string brief(const json& v) {
    std::string s = v.dump(-1, ' ', false, json::error_handler_t::replace);
    return s.size() > 40 ? s.substr(0, 40) + "..." : s;
}

int64_t toInt(const json& v, const std::string& key, int64_t lo, int64_t hi) {
    const std::string range = " in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
    bool ok = false;
    int64_t out = 0;
    if (v.is_number_unsigned()) {
        const auto u = v.get<uint64_t>();
        ok = u <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
        out = static_cast<int64_t>(u);
    } else if (v.is_number_integer()) {
        ok = true;
        out = v.get<int64_t>();
    }
    if (!ok || out < lo || out > hi)
        throw Error("field '" + key + "' must be an integer" + range + ", got " + brief(v));
    return out;
}

int64_t getInt(const json& j, const char* key, int64_t def, int64_t lo, int64_t hi) {
    if (!j.is_object() || !j.contains(key)) return def;
    return toInt(j.at(key), key, lo, hi);
}

std::string getString(const json& j, const char* key, const std::string& def) {
    if (!j.is_object() || !j.contains(key)) return def;
    const json& v = j.at(key);
    if (!v.is_string())
        throw Error(std::string("field '") + key + "' must be a string, got " + brief(v));
    return v.get<std::string>();
}

bool getBool(const json& j, const char* key, bool def) {
    if (!j.is_object() || !j.contains(key)) return def;
    const json& v = j.at(key);
    if (!v.is_boolean())
        throw Error(std::string("field '") + key + "' must be true or false, got " + brief(v));
    return v.get<bool>();
}

std::vector<std::string> getStrings(const json& j, const char* key) {
    std::vector<std::string> out;
    if (!j.is_object() || !j.contains(key)) return out;
    const json& v = j.at(key);
    if (!v.is_array())
        throw Error(std::string("field '") + key + "' must be a list of strings, got " + brief(v));
    for (const auto& s : v) {
        if (!s.is_string())
            throw Error(std::string("field '") + key + "' must be a list of strings, has " +
                        brief(s));
        out.push_back(s.get<std::string>());
    }
    return out;
}

std::vector<int64_t> getInts(const json& j, const char* key, int64_t lo, int64_t hi) {
    std::vector<int64_t> out;
    if (!j.is_object() || !j.contains(key)) return out;
    const json& v = j.at(key);
    if (!v.is_array())
        throw Error(std::string("field '") + key + "' must be a list of integers, got " + brief(v));
    for (const auto& d : v)
        out.push_back(toInt(d, key, lo, hi));
    return out;
}

std::vector<int64_t> getShape(const json& j, const char* key) {
    const std::vector<int64_t> out = getInts(j, key, 0, MaxDimSize);
    int64_t numel = 1;
    for (const int64_t d : out)
        if (__builtin_mul_overflow(numel, d, &numel))
            throw Error(std::string("field '") + key +
                        "' has more elements than fit in 64 bits: " + brief(j.at(key)));
    return out;
}

} // namespace ks::jsonutil
