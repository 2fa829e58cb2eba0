// SPDX-License-Identifier: MIT
#include "ks/core/taskspec.h"
#include "jsonutil.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <optional>
#include <set>
#include <utility>

namespace ks {
namespace {
using json = nlohmann::json;

[[noreturn]] void fail(const std::string& path, const std::string& what) {
    throw Error(path + ": " + what);
}

bool flag(const json& j, const char* key, const std::string& ctx) {
    if (!j.contains(key)) return false;
    if (!j.at(key).is_boolean()) fail(ctx, std::string("'") + key + "' must be true or false");
    return j.at(key).get<bool>();
}

double num(const json& j, const char* key, double def, const std::string& ctx) {
    if (!j.contains(key)) return def;
    if (!j.at(key).is_number()) fail(ctx, std::string("'") + key + "' must be a number");
    return j.at(key).get<double>();
}

// An integer field in [lo, hi]: 1.5, 1e30 and "1" are errors (a static_cast of 1e30 to int is
// undefined behaviour, and 1.5 silently read as 1).
int64_t integer(const json& j, const char* key, int64_t def, int64_t lo, int64_t hi,
                const std::string& ctx) {
    try {
        return jsonutil::getInt(j, key, def, lo, hi);
    } catch (const Error& e) {
        fail(ctx, e.what());
    }
}

std::string str(const json& j, const char* key, const std::string& ctx, bool required,
                const std::string& def = {}) {
    if (!j.contains(key)) {
        if (required) fail(ctx, std::string("missing required field '") + key + "'");
        return def;
    }
    if (!j.at(key).is_string()) fail(ctx, std::string("'") + key + "' must be a string");
    return j.at(key).get<std::string>();
}

const std::vector<std::string>& knownDtypes() {
    static const std::vector<std::string> d{"float32", "float64", "float16", "bfloat16",
                                            "int64",   "int32",   "bool"};
    return d;
}

Distribution parseDistribution(const json& j, const std::string& ctx) {
    Distribution d;
    if (!j.is_object()) fail(ctx, "'init' must be an object like {\"dist\": \"normal\"}");
    const std::string dist = str(j, "dist", ctx, true);
    if (dist == "normal") {
        d.kind = Distribution::Kind::Normal;
        d.a = num(j, "mean", 0.0, ctx);
        d.b = num(j, "std", 1.0, ctx);
        if (!(d.b >= 0)) fail(ctx, "normal 'std' must be >= 0");
        d.inplace = flag(j, "inplace", ctx);
    } else if (dist == "uniform") {
        d.kind = Distribution::Kind::Uniform;
        d.a = num(j, "low", 0.0, ctx);
        d.b = num(j, "high", 1.0, ctx);
        if (!(d.b >= d.a)) fail(ctx, "uniform needs low <= high");
        d.inplace = flag(j, "inplace", ctx);
    } else if (dist == "randint") {
        d.kind = Distribution::Kind::RandInt;
        d.a = num(j, "low", 0.0, ctx);
        if (!j.contains("high")) fail(ctx, "randint needs 'high' (exclusive)");
        d.b = num(j, "high", 0.0, ctx);
        if (!(d.b > d.a)) fail(ctx, "randint needs low < high");
    } else if (dist == "kaiming_uniform") {
        d.kind = Distribution::Kind::KaimingUniform;
        if (j.contains("fan_in")) {
            d.fanIn = num(j, "fan_in", 0.0, ctx);
            if (!(*d.fanIn > 0)) fail(ctx, "kaiming_uniform 'fan_in' must be > 0");
        }
        d.fanInOf = str(j, "fan_in_of", ctx, false);
        if (j.contains("a")) d.gainA = num(j, "a", 0.0, ctx);
    } else if (dist == "constant") {
        d.kind = Distribution::Kind::Constant;
        if (!j.contains("value")) fail(ctx, "constant needs 'value'");
        d.a = num(j, "value", 0.0, ctx);
    } else if (dist == "exponential") {
        d.kind = Distribution::Kind::Exponential;
        d.a = num(j, "lambd", 1.0, ctx);
        if (!(d.a > 0) || !std::isfinite(d.a)) fail(ctx, "exponential 'lambd' must be a finite number > 0");
        d.inplace = true; // the only form PyTorch has
    } else {
        fail(ctx, "unknown distribution '" + dist +
                      "' (expected normal, uniform, randint, kaiming_uniform, constant or exponential)");
    }
    return d;
}

Transform parseTransform(const json& j, const std::string& ctx) {
    Transform t;
    if (!j.is_object()) fail(ctx, "each 'post' entry must be an object like {\"op\": \"abs\"}");
    const std::string op = str(j, "op", ctx, true);
    if (op == "softmax") t.kind = Transform::Kind::Softmax;
    else if (op == "log_softmax") t.kind = Transform::Kind::LogSoftmax;
    else if (op == "abs") t.kind = Transform::Kind::Abs;
    else if (op == "affine") t.kind = Transform::Kind::Affine;
    else if (op == "triu") t.kind = Transform::Kind::Triu;
    else if (op == "tril") t.kind = Transform::Kind::Tril;
    else if (op == "add_transpose") t.kind = Transform::Kind::AddTranspose;
    else if (op == "matmul_transpose") t.kind = Transform::Kind::MatmulTranspose;
    else if (op == "exp") t.kind = Transform::Kind::Exp;
    else if (op == "div") t.kind = Transform::Kind::Div;
    else
        fail(ctx, "unknown transform '" + op +
                      "' (expected softmax, log_softmax, abs, affine, triu, tril, add_transpose, "
                      "matmul_transpose, exp or div)");
    // A dim or diagonal beyond +-2^40 addresses no tensor; the bound only keeps the cast defined.
    if (t.kind == Transform::Kind::Triu || t.kind == Transform::Kind::Tril)
        t.dim = integer(j, "diagonal", 0, -jsonutil::MaxDimSize, jsonutil::MaxDimSize, ctx);
    else
        t.dim = integer(j, "dim", -1, -jsonutil::MaxDimSize, jsonutil::MaxDimSize, ctx);
    if (t.kind == Transform::Kind::Div) {
        if (!j.contains("value")) fail(ctx, "div needs 'value'");
        t.value = num(j, "value", 1.0, ctx);
        if (t.value == 0) fail(ctx, "div 'value' must not be 0");
    }
    t.scale = num(j, "scale", 1.0, ctx);
    t.shift = num(j, "shift", 0.0, ctx);
    return t;
}

// Why a tensor spec is approximated, or empty. Exporter 1.3 writes "approximated": "<why>"; earlier
// exporters wrote "inferred": false with the reason in "note", which reads the same.
std::string approximationOf(const json& j) {
    const auto note = [&] {
        return j.contains("note") && j.at("note").is_string() && !j.at("note").get<std::string>().empty()
                   ? j.at("note").get<std::string>()
                   : std::string("the exporter could not infer how it was drawn");
    };
    if (j.contains("approximated")) {
        const json& a = j.at("approximated");
        if (a.is_string()) return a.get<std::string>().empty() ? note() : a.get<std::string>();
        return a.is_boolean() && a.get<bool>() ? note() : std::string();
    }
    if (j.contains("inferred") && j.at("inferred").is_boolean() && !j.at("inferred").get<bool>()) return note();
    return {};
}

TensorSpec parseTensor(const json& j, const std::string& ctx) {
    TensorSpec t;
    if (!j.is_object()) fail(ctx, "each tensor spec must be an object");
    t.name = str(j, "name", ctx, true);
    const std::string tctx = ctx + " tensor '" + t.name + "'";
    if (!j.contains("shape") || !j.at("shape").is_array())
        fail(tctx, "'shape' must be a list of sizes or dim names");
    for (const auto& d : j.at("shape")) {
        Dim dim;
        if (d.is_number_integer()) {
            if (!d.is_number_unsigned() && d.get<int64_t>() < 0)
                fail(tctx, "negative size in 'shape'");
            if (d.get<uint64_t>() > uint64_t(jsonutil::MaxDimSize))
                fail(tctx, "'shape' sizes must lie in [0, " + std::to_string(jsonutil::MaxDimSize) +
                               "], got " + jsonutil::brief(d));
            dim.value = d.get<int64_t>();
        } else if (d.is_string()) {
            dim.name = d.get<std::string>();
        } else {
            fail(tctx, "'shape' entries must be integers or dim names");
        }
        t.shape.push_back(dim);
    }
    t.dtype = str(j, "dtype", tctx, false, "float32");
    const auto& known = knownDtypes();
    if (std::find(known.begin(), known.end(), t.dtype) == known.end())
        fail(tctx, "unknown dtype '" + t.dtype + "'");
    if (j.contains("init")) t.init = parseDistribution(j.at("init"), tctx);
    if (j.contains("draw_before")) {
        t.drawBefore = parseDistribution(j.at("draw_before"), tctx + " draw_before");
        if (t.drawBefore->kind == Distribution::Kind::Constant)
            fail(tctx, "'draw_before' must be a random distribution (it stands for numbers the original drew), "
                       "not a constant");
    }
    if (j.contains("discard_before")) {
        const std::string dctx = tctx + " discard_before";
        if (!j.at("discard_before").is_array()) fail(dctx, "must be a list of {\"shape\": [...], \"init\": {...}}");
        for (const auto& d : j.at("discard_before")) {
            if (!d.is_object() || !d.contains("shape") || !d.at("shape").is_array() || !d.contains("init"))
                fail(dctx, "each entry needs 'shape' (a list of sizes) and 'init'");
            TensorSpec::Discard x;
            for (const auto& n : d.at("shape")) {
                if (!n.is_number_unsigned() || n.get<uint64_t>() > uint64_t(jsonutil::MaxDimSize))
                    fail(dctx, "'shape' sizes must be integers in [0, " + std::to_string(jsonutil::MaxDimSize) +
                                   "], got " + jsonutil::brief(n));
                x.shape.push_back(n.get<int64_t>());
            }
            x.init = parseDistribution(d.at("init"), dctx);
            if (x.init.kind == Distribution::Kind::Constant || x.init.kind == Distribution::Kind::KaimingUniform)
                fail(dctx, "'init' must be normal, uniform, randint or exponential (the numbers the original drew)");
            t.discardBefore.push_back(std::move(x));
        }
    }
    if (j.contains("copy_of")) {
        if (!j.at("copy_of").is_string() || j.at("copy_of").get<std::string>().empty())
            fail(tctx, "'copy_of' must name an earlier parameter");
        t.copyOfName = j.at("copy_of").get<std::string>();
    }
    if (j.contains("post")) {
        if (!j.at("post").is_array()) fail(tctx, "'post' must be a list");
        for (const auto& p : j.at("post")) t.post.push_back(parseTransform(p, tctx));
    }
    if (j.contains("approximated") && !j.at("approximated").is_string() && !j.at("approximated").is_boolean())
        fail(tctx, "'approximated' must be a string (the reason) or false");
    t.approximated = approximationOf(j);
    return t;
}

// "2.11.0+cu130" -> {2, 11}; {-1, -1} when it does not start with two numbers.
std::pair<int, int> majorMinor(const std::string& v) {
    int major = -1, minor = -1;
    size_t used = 0;
    try {
        major = std::stoi(v, &used);
        if (used < v.size() && v[used] == '.') minor = std::stoi(v.substr(used + 1));
        else minor = 0;
    } catch (const std::exception&) {
        return {-1, -1};
    }
    if (major < 0 || minor < 0) return {-1, -1};
    return {major, minor};
}

// An imported task: a traced artifact beside the JSON, and the versions it was made with.
void parseArtifact(const json& j, const std::string& path, const std::string& ctx, TaskSpec& t) {
    const std::string rel = str(j, "artifact", ctx, true);
    if (rel.empty()) fail(ctx, "'artifact' must name a file");
    t.artifactPath = (std::filesystem::path(path).parent_path() / rel).generic_string();
    std::error_code ec;
    if (!std::filesystem::is_regular_file(t.artifactPath, ec))
        fail(ctx, "artifact '" + rel + "' not found (looked for " + t.artifactPath +
                      "); re-import the task with kernelsieve-cli import-kernelbench");
    if (!j.contains("exporter_version"))
        fail(ctx, "has an 'artifact' but no 'exporter_version'; re-import the task with kernelsieve-cli "
                  "import-kernelbench");
    t.exporterVersion = str(j, "exporter_version", ctx, true);
    const int major = majorMinor(t.exporterVersion).first;
    if (major < 0) fail(ctx, "'exporter_version' must look like \"1.0\", got \"" + t.exporterVersion + "\"");
    if (major != ExporterMajorVersion)
        fail(ctx, "the artifact was written by exporter version " + t.exporterVersion +
                      ", but this build reads exporter version " + std::to_string(ExporterMajorVersion) +
                      ".x; re-import the folder with this build's kernelsieve-cli import-kernelbench");
    t.torchVersion = str(j, "torch_version", ctx, false);
    // The exporter's eager run on CUDA: its peak device memory (optional; older specs lack it).
    if (j.contains("import") && j.at("import").is_object()) {
        const json& im = j.at("import");
        if (im.contains("peak_device_bytes")) {
            try {
                t.importPeakDeviceBytes = jsonutil::toInt(im.at("peak_device_bytes"), "import.peak_device_bytes", 0,
                                                          std::numeric_limits<int64_t>::max());
            } catch (const Error& e) {
                fail(ctx, e.what());
            }
            t.importPeakDevice = str(im, "peak_device", ctx + " import", false);
        }
    }
#ifdef KS_LIBTORCH_VERSION
    if (!t.torchVersion.empty() && majorMinor(t.torchVersion) != majorMinor(KS_LIBTORCH_VERSION)) {
        const std::string w = "the artifact was traced with torch " + t.torchVersion + " but this build runs LibTorch " +
                              KS_LIBTORCH_VERSION + "; outputs may differ slightly (re-import to be sure)";
        t.warnings.push_back(w);
        t.description += (t.description.empty() ? "" : "\n") + std::string("Warning: ") + w;
    }
#endif
}

} // namespace

const char* presetName(Preset p) { return p == Preset::Small ? "small" : "full"; }

std::optional<Preset> parsePreset(const std::string& s) {
    if (s == "small") return Preset::Small;
    if (s == "full") return Preset::Full;
    return std::nullopt;
}

const char* distributionName(Distribution::Kind k) {
    switch (k) {
    case Distribution::Kind::Normal: return "normal";
    case Distribution::Kind::Uniform: return "uniform";
    case Distribution::Kind::RandInt: return "randint";
    case Distribution::Kind::KaimingUniform: return "kaiming_uniform";
    case Distribution::Kind::Constant: return "constant";
    case Distribution::Kind::Exponential: return "exponential";
    }
    return "?";
}

std::vector<std::string> approximatedTensorsInSpec(const std::string& specJson) {
    std::vector<std::string> out;
    const json j = json::parse(specJson, nullptr, false);
    if (!j.is_object()) return out;
    for (const char* key : {"inputs", "params"})
        if (j.contains(key) && j.at(key).is_array())
            for (const auto& ts : j.at(key))
                if (ts.is_object() && ts.contains("name") && ts.at("name").is_string() && !approximationOf(ts).empty())
                    out.push_back(ts.at("name").get<std::string>());
    return out;
}

std::vector<std::string> TaskSpec::approximatedTensors() const {
    std::vector<std::string> out;
    for (const auto* list : {&inputs, &params})
        for (const auto& ts : *list)
            if (!ts.approximated.empty()) out.push_back(ts.name);
    return out;
}

bool TaskSpec::hasTag(const std::string& t) const {
    return std::find(tags.begin(), tags.end(), t) != tags.end();
}

int64_t TaskSpec::elementsOf(const TensorSpec& t, Preset p) const {
    int64_t n = 1;
    for (int64_t d : shapeOf(t, p)) n *= std::max<int64_t>(d, 0);
    return n;
}

std::vector<int64_t> TaskSpec::shapeOf(const TensorSpec& t, Preset p) const {
    // A preset names only the dims it changes; the rest come from `full`.
    const std::string preset = presetName(p);
    auto lookup = [&](const std::string& name) -> std::optional<int64_t> {
        for (const std::string& pr : {preset, std::string("full")}) {
            auto it = dims.find(pr);
            if (it != dims.end() && it->second.count(name)) return it->second.at(name);
        }
        return std::nullopt;
    };
    std::vector<int64_t> out;
    for (const auto& d : t.shape) {
        if (d.name.empty()) {
            out.push_back(d.value);
            continue;
        }
        const auto v = lookup(d.name);
        if (!v)
            throw Error("task " + id + ": tensor '" + t.name + "' uses dim '" + d.name +
                        "' which is not defined in dims." + preset + (p == Preset::Full ? "" : " or dims.full"));
        out.push_back(*v);
    }
    return out;
}

std::vector<std::string> TaskSpec::dimNames() const {
    std::set<std::string> names;
    for (const auto& [preset, m] : dims)
        for (const auto& [name, size] : m) names.insert(name);
    return {names.begin(), names.end()};
}

std::vector<std::string> TaskSpec::overrideDims(Preset p, const std::map<std::string, int64_t>& sizes) {
    const std::vector<std::string> mine = dimNames();
    std::vector<std::string> set;
    for (const auto& [name, size] : sizes)
        if (std::binary_search(mine.begin(), mine.end(), name)) {
            dims[presetName(p)][name] = size;
            set.push_back(name);
        }
    return set;
}

double TaskSpec::fanInOf(const TensorSpec& t, Preset p) const {
    if (t.init.fanIn) return *t.init.fanIn;
    const TensorSpec* src = &t;
    if (!t.init.fanInOf.empty()) {
        src = nullptr;
        for (const auto& q : params)
            if (q.name == t.init.fanInOf) src = &q;
        for (const auto& q : inputs)
            if (!src && q.name == t.init.fanInOf) src = &q;
        if (!src)
            throw Error("task " + id + ": tensor '" + t.name + "' takes fan_in_of '" +
                        t.init.fanInOf + "', which is not a tensor of this task");
    }
    const auto shape = shapeOf(*src, p);
    if (shape.size() < 2)
        throw Error("task " + id + ": kaiming_uniform on '" + src->name +
                    "' needs a shape of rank >= 2 (or give 'fan_in' / 'fan_in_of')");
    double fan = static_cast<double>(shape[1]);
    for (size_t i = 2; i < shape.size(); ++i) fan *= static_cast<double>(shape[i]);
    if (!(fan > 0)) throw Error("task " + id + ": fan-in of '" + src->name + "' is zero");
    return fan;
}

TaskSpec parseTaskSpec(const std::string& jsonText, const std::string& path,
                       const std::function<std::string(const std::string&)>& readFile) {
    const json j = jsonutil::parse(jsonText, path);
    if (!j.is_object()) fail(path, "a task file must hold a JSON object");
    if (str(j, "kind", path, true) != "kernelsieve.task")
        fail(path, "'kind' must be \"kernelsieve.task\"");
    // Strict: 1.5 and "1" are no version we wrote, and casting 1e30 to int is undefined.
    if (!j.contains("format_version") || !j.at("format_version").is_number_integer() ||
        j.at("format_version").get<int64_t>() != 1)
        fail(path, "unsupported format_version " +
                       (j.contains("format_version") ? jsonutil::brief(j.at("format_version"))
                                                     : std::string("(missing)")) +
                       " (this build reads the integer 1)");

    TaskSpec t;
    t.specPath = path;
    t.specText = jsonText;
    t.id = str(j, "id", path, true);
    if (t.id.empty()) fail(path, "'id' must not be empty");
    const std::string ctx = path + " (task " + t.id + ")";
    t.level = static_cast<int>(integer(j, "level", 0, 0, 1000, ctx));
    t.number = static_cast<int>(integer(j, "number", 0, 0, std::numeric_limits<int>::max(), ctx));
    t.name = str(j, "name", ctx, true);
    t.category = str(j, "category", ctx, false, "uncategorized");
    t.description = str(j, "description", ctx, false);
    t.entry = str(j, "entry", ctx, false, "forward");
    if (j.contains("source")) {
        t.source = str(j, "source", ctx, true);
    } else if (j.contains("source_file")) {
        const std::string rel = str(j, "source_file", ctx, true);
        if (rel.empty() || std::filesystem::path(rel).is_absolute())
            fail(ctx, "'source_file' must be a path relative to the task file, got '" + rel + "'");
        const auto full = (std::filesystem::path(path).parent_path() / rel).generic_string();
        try {
            t.source = readFile(full);
        } catch (const std::exception& e) {
            fail(ctx, "cannot read source_file '" + rel + "': " + e.what());
        }
        t.sourcePath = full;
    } else if (!j.contains("artifact")) {
        fail(ctx, "needs 'source' or 'source_file'");
    }
    if (j.contains("artifact")) parseArtifact(j, path, ctx, t);
    if (j.contains("forward_seed") && !j.at("forward_seed").is_null()) {
        if (!j.at("forward_seed").is_number_integer()) fail(ctx, "'forward_seed' must be an integer");
        t.forwardSeed = j.at("forward_seed").get<int64_t>();
    }
    if (j.contains("dims")) {
        if (!j.at("dims").is_object()) fail(ctx, "'dims' must map presets to {name: size}");
        for (const auto& [preset, m] : j.at("dims").items()) {
            if (!parsePreset(preset)) fail(ctx, "unknown preset '" + preset + "' in dims");
            if (!m.is_object()) fail(ctx, "dims." + preset + " must be an object");
            for (const auto& [name, v] : m.items()) {
                try {
                    t.dims[preset][name] =
                        jsonutil::toInt(v, "dims." + preset + "." + name, 0, jsonutil::MaxDimSize);
                } catch (const Error& e) {
                    fail(ctx, e.what());
                }
            }
        }
    }
    for (const char* key : {"inputs", "params"}) {
        if (!j.contains(key)) continue;
        if (!j.at(key).is_array()) fail(ctx, std::string("'") + key + "' must be a list");
        for (const auto& e : j.at(key))
            (std::string(key) == "inputs" ? t.inputs : t.params).push_back(parseTensor(e, ctx));
    }
    if (t.inputs.empty() && t.params.empty()) fail(ctx, "a task needs at least one input");
    for (const auto& in : t.inputs)
        if (!in.copyOfName.empty())
            fail(ctx + " tensor '" + in.name + "'", "'copy_of' is for parameters (inputs are each drawn)");
    for (size_t i = 0; i < t.params.size(); ++i) {
        TensorSpec& p = t.params[i];
        if (p.copyOfName.empty()) continue;
        const std::string pctx = ctx + " tensor '" + p.name + "'";
        for (size_t k = 0; k < i && p.copyOf < 0; ++k)
            if (t.params[k].name == p.copyOfName) p.copyOf = static_cast<int>(k);
        if (p.copyOf < 0)
            fail(pctx, "'copy_of' names '" + p.copyOfName + "', which is not a parameter listed before it");
        const TensorSpec& src = t.params[static_cast<size_t>(p.copyOf)];
        bool sameShape = src.shape.size() == p.shape.size();
        for (size_t d = 0; sameShape && d < p.shape.size(); ++d)
            sameShape = src.shape[d].name == p.shape[d].name && src.shape[d].value == p.shape[d].value;
        if (!sameShape || src.dtype != p.dtype)
            fail(pctx, "'copy_of' names '" + p.copyOfName + "', whose shape or dtype differs");
        if (p.drawBefore || !p.post.empty() || !p.discardBefore.empty())
            fail(pctx, "a 'copy_of' parameter is not drawn: it takes no 'draw_before', 'discard_before' or 'post'");
    }
    if (j.contains("tags")) {
        if (!j.at("tags").is_array()) fail(ctx, "'tags' must be a list of strings");
        for (const auto& tag : j.at("tags")) {
            if (!tag.is_string()) fail(ctx, "'tags' must be a list of strings");
            t.tags.push_back(tag.get<std::string>());
        }
    }
    // Resolve every shape now so a bad dim name is reported at load time, not mid-run.
    try {
        for (Preset p : {Preset::Full, Preset::Small}) {
            for (const auto* list : {&t.inputs, &t.params})
                for (const auto& ts : *list) {
                    t.shapeOf(ts, p);
                    if (ts.init.kind == Distribution::Kind::KaimingUniform) t.fanInOf(ts, p);
                }
        }
    } catch (const Error& e) {
        fail(path, e.what());
    }
    return t;
}

} // namespace ks
