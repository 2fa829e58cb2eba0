// SPDX-License-Identifier: MIT
#include "ks/core/criteria.h"
#include "ks/core/suite.h"
#include "ks/core/taskspec.h"

#include <nlohmann/json.hpp>

#include <array>

namespace ks {

std::span<const CriterionInfo> criteria() {
    static const std::array<CriterionInfo, CriterionCount> table{{
        {Criterion::OutputRange, "output_range", "Output Range", "max |value|",
         "every output value of every seed lies in (-t, t)", 0.01},
        {Criterion::OutputStd, "output_std", "Output Std", "max std over seeds",
         "the per-element std across seeds (unbiased) is below t everywhere", 0.01},
        {Criterion::OutputAxes, "output_axes", "Output Axes", "min over axes of max std",
         "for some axis of the stacked [S, *out] outputs, the std along it is below t everywhere",
         0.01},
        {Criterion::InputImpact, "input_impact", "Input Impact", "max std over inputs",
         "with parameters fixed (seed 42), the per-element std across input seeds is below t "
         "everywhere",
         0.01},
    }};
    return table;
}

const CriterionInfo& criterionInfo(Criterion c) { return criteria()[static_cast<int>(c)]; }

std::optional<Criterion> criterionFromKey(const std::string& key) {
    for (const auto& c : criteria())
        if (key == c.key) return c.criterion;
    return std::nullopt;
}

Thresholds Thresholds::defaults() {
    Thresholds t;
    for (const auto& c : criteria()) t.values[c.key] = c.defaultThreshold;
    return t;
}

double Thresholds::value(Criterion c) const {
    const auto& info = criterionInfo(c);
    auto it = values.find(info.key);
    return it == values.end() ? info.defaultThreshold : it->second;
}

void Thresholds::set(Criterion c, double v) { values[criterionInfo(c).key] = v; }

Thresholds parseProfile(const std::string& jsonText, const std::string& path) {
    nlohmann::json j;
    try {
        j = nlohmann::json::parse(jsonText);
    } catch (const nlohmann::json::parse_error& e) {
        throw Error(path + ": not valid JSON: " + e.what());
    }
    if (!j.is_object() || j.value("kind", "") != "kernelsieve.profile")
        throw Error(path + ": not a threshold profile (needs \"kind\": \"kernelsieve.profile\")");
    Thresholds t = Thresholds::defaults();
    t.profile = j.value("name", path);
    if (!j.contains("thresholds") || !j.at("thresholds").is_object())
        throw Error(path + ": needs an object 'thresholds' {criterion: value}");
    for (const auto& [k, v] : j.at("thresholds").items()) {
        if (!criterionFromKey(k)) throw Error(path + ": unknown criterion '" + k + "'");
        if (!v.is_number()) throw Error(path + ": threshold '" + k + "' must be a number");
        t.values[k] = v.get<double>();
    }
    return t;
}

std::string profileToJson(const Thresholds& t, const std::string& description) {
    nlohmann::json j;
    j["kind"] = "kernelsieve.profile";
    j["name"] = t.profile;
    if (!description.empty()) j["description"] = description;
    j["thresholds"] = nlohmann::json::object();
    for (const auto& c : criteria()) j["thresholds"][c.key] = t.value(c.criterion);
    return j.dump(2) + "\n";
}

std::optional<Thresholds> builtinProfile(const std::string& name) {
    const std::string n = name == "default" ? "robust-kbench" : name;
    for (const auto& f : embeddedFiles())
        if (std::string(f.path) == "profiles/" + n + ".json")
            return parseProfile(std::string(f.data, f.size), f.path);
    return std::nullopt;
}

std::vector<std::string> builtinProfileNames() {
    std::vector<std::string> names;
    for (const auto& f : embeddedFiles()) {
        const std::string p = f.path;
        if (p.rfind("profiles/", 0) == 0 && p.ends_with(".json"))
            names.push_back(p.substr(9, p.size() - 9 - 5));
    }
    return names;
}

} // namespace ks
