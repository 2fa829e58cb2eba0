// SPDX-License-Identifier: MIT
#include "ks/core/torchtask.h"
#include "ks/core/fastdraw.h"
#include "ks/core/splitdraw.h"

#include <torch/csrc/jit/api/compilation_unit.h>
#include <torch/csrc/jit/api/module.h>
#include <torch/csrc/jit/serialization/import.h>
#include <torch/csrc/jit/frontend/resolver.h>
#include <torch/csrc/jit/frontend/sugared_value.h>
#include <torch/csrc/jit/ir/ir.h>
#include <torch/csrc/jit/passes/inliner.h>
#include <torch/csrc/jit/python/update_graph_executor_opt.h>
#include <torch/csrc/jit/runtime/graph_iterator.h>
#include <torch/csrc/jit/runtime/graph_executor.h>
#include <torch/jit.h>
#include <ATen/CPUGeneratorImpl.h>
#include <ATen/Context.h>
#include <c10/core/InferenceMode.h>
#include <c10/util/Exception.h>
#ifdef KS_TORCH_CUDA
#include <c10/cuda/CUDACachingAllocator.h>
#endif

#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <iterator>
#include <map>
#include <mutex>
#include <set>
#include <sstream>
#include <string_view>

namespace ks {

struct ArtifactCopies {
    std::mutex mutex;
    std::map<std::string, std::shared_ptr<torch::jit::Module>> byDevice;
};

namespace {

std::atomic<long long> g_artifactLoads{0};

torch::jit::Module loadCounted(const std::string& path, const at::Device& device,
                               torch::jit::ExtraFilesMap* extra = nullptr) {
    ++g_artifactLoads;
    // Normal tensors, also when loaded inside the statistics' InferenceMode: the loaded module
    // serves filter 6 too, which runs outside it, and a task writes into its buffers in place
    // (BatchNorm's running statistics), which an inference tensor refuses there.
    c10::InferenceMode normal(false);
    return extra ? torch::jit::load(path, device, *extra) : torch::jit::load(path, device);
}

at::ScalarType scalarType(const std::string& dtype) {
    if (dtype == "float32") return at::kFloat;
    if (dtype == "float64") return at::kDouble;
    if (dtype == "float16") return at::kHalf;
    if (dtype == "bfloat16") return at::kBFloat16;
    if (dtype == "int64") return at::kLong;
    if (dtype == "int32") return at::kInt;
    if (dtype == "bool") return at::kBool;
    throw Error("unknown dtype '" + dtype + "'");
}

// `torch` as LibTorch's native resolver sees it (aten builtins), plus the dtype names
// (torch.float32, torch.long, ...) that only Python's resolver knows. Without this, sources that
// compile under torch.jit.CompilationUnit in Python fail here.
struct TorchModule : torch::jit::BuiltinModule {
    TorchModule() : BuiltinModule("aten") {}
    std::shared_ptr<torch::jit::SugaredValue> attr(const torch::jit::SourceRange& loc, torch::jit::GraphFunction& m,
                                                   const std::string& field) override {
        static const std::map<std::string, at::ScalarType> dtypes{
            {"float32", at::kFloat}, {"float", at::kFloat},   {"float64", at::kDouble},
            {"double", at::kDouble}, {"float16", at::kHalf},  {"half", at::kHalf},
            {"bfloat16", at::kBFloat16}, {"int64", at::kLong}, {"long", at::kLong},
            {"int32", at::kInt},     {"int", at::kInt},       {"int16", at::kShort},
            {"int8", at::kChar},     {"uint8", at::kByte},    {"bool", at::kBool}};
        const auto it = dtypes.find(field);
        if (it != dtypes.end())
            return std::make_shared<torch::jit::SimpleValue>(
                m.graph()->insertConstant(c10::IValue(it->second), loc));
        return BuiltinModule::attr(loc, m, field);
    }
};

struct TaskResolver : torch::jit::Resolver {
    std::shared_ptr<torch::jit::SugaredValue> resolveValue(const std::string& name, torch::jit::GraphFunction& m,
                                                           const torch::jit::SourceRange& loc) override {
        if (name == "torch") return std::make_shared<TorchModule>();
        if (name == "math") return std::make_shared<torch::jit::BuiltinModule>("aten");
        return nullptr;
    }
};

} // namespace

std::string shortError(const std::exception& e) {
    std::string msg;
    if (const auto* c10e = dynamic_cast<const c10::Error*>(&e)) msg = c10e->what_without_backtrace();
    else msg = e.what();
    auto trim = [](std::string s) {
        while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
        return s;
    };
    // A CUDA error's message ends in advice lines ("Search for `cudaError...' in ...", "CUDA kernel
    // errors might be asynchronously reported ...", "For debugging consider passing ...", "Compile
    // with `TORCH_USE_CUDA_DSA` ..."), which the cause below would otherwise be read from: eight
    // level-3 captures on the H200 reported only "Compile with `TORCH_USE_CUDA_DSA` ...".
    {
        static constexpr std::string_view advice[] = {"Search for `cuda", "CUDA kernel errors might be asynchronously",
                                                      "For debugging consider passing CUDA_LAUNCH_BLOCKING",
                                                      "Compile with `TORCH_USE_CUDA_DSA`"};
        std::istringstream lines(msg);
        std::string line, kept;
        while (std::getline(lines, line)) {
            const std::string_view text = std::string_view(line).substr(std::min(line.find_first_not_of(' '), line.size()));
            if (std::none_of(std::begin(advice), std::end(advice), [&](std::string_view a) { return text.starts_with(a); }))
                kept += (kept.empty() ? "" : "\n") + line;
        }
        msg = kept;
    }
    msg = trim(msg);
    // Interpreter errors start with a TorchScript traceback; the cause is the last line and the
    // place is the innermost `File "<string>", line N, in fn` entry.
    if (msg.find("Traceback of TorchScript") != std::string::npos) {
        const auto lastNl = msg.rfind('\n');
        std::string cause = lastNl == std::string::npos ? msg : msg.substr(lastNl + 1);
        const std::string marker = "File \"<string>\", ";
        const auto at = msg.rfind(marker);
        if (at != std::string::npos) {
            const auto from = at + marker.size();
            const auto eol = msg.find('\n', from);
            cause += " (source " + msg.substr(from, eol == std::string::npos ? std::string::npos : eol - from) + ")";
        }
        return cause;
    }
    // Compile errors carry a source excerpt after the first line; keep a few lines of it.
    const auto first = msg.find_first_not_of(" \n");
    msg = first == std::string::npos ? std::string() : msg.substr(first);
    size_t cut = 0;
    for (int lines = 0; lines < 6 && cut != std::string::npos; ++lines) {
        cut = msg.find('\n', lines == 0 ? 0 : cut + 1);
    }
    if (cut != std::string::npos) msg = msg.substr(0, cut);
    return trim(msg);
}

void useEagerSemantics() {
    torch::jit::setGraphExecutorOptimize(false);
    torch::jit::getProfilingMode() = false;
}

void seedAll(uint64_t seed) { at::manual_seed(seed); }

void releaseCachedDeviceMemory() {
#ifdef KS_TORCH_CUDA
    try {
        c10::cuda::CUDACachingAllocator::emptyCache();
    } catch (...) {
    }
#endif
}

namespace {
std::string baseName(const std::string& path) {
    const auto slash = path.find_last_of("/\\");
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

// Line `line` (1-based) of `text`, trimmed and on one line; empty when out of range.
std::string lineOfText(const std::string& text, int line) {
    size_t start = 0;
    for (int i = 1; i < line; ++i) {
        start = text.find('\n', start);
        if (start == std::string::npos) return {};
        ++start;
    }
    if (start >= text.size() && line > 1) return {};
    std::string s = text.substr(start, text.find('\n', start) - start);
    const auto a = s.find_first_not_of(" \t\r");
    const auto b = s.find_last_not_of(" \t\r");
    return a == std::string::npos ? std::string() : s.substr(a, b - a + 1);
}
} // namespace

SourceLine taskSourceLine(const torch::jit::Node* n, const TaskSpec& spec) {
    SourceLine out;
    // A loaded artifact's nodes point into the code torch.jit.save wrote; its debug records map
    // that code back to the ranges the tracer recorded (the Python stack of each call).
    torch::jit::SourceRange range = n->sourceRange();
    for (int hops = 0; hops < 8; ++hops) {
        auto origin = range.findSourceRangeThatGenerated();
        if (!origin || !origin->source()) break;
        range = *origin;
    }
    const auto& src = range.source();
    if (!src) return out;
    const std::string text = src->text_str().str();
    // Compiled from spec.source itself (built-in tasks; CompilationUnit::define names it
    // "<string>"): the offset's line in that text.
    if (!src->filename() || text == spec.source) {
        const size_t line = src->lineno_for_offset(range.start());
        out.line = static_cast<int>(line) + 1;
        out.text = lineOfText(text, out.line);
        return out;
    }
    // A tracer's range: its text is the Python stack, one "FILE(LINE): FUNCTION" per frame,
    // innermost first; the first frame in the task's own file (its stem: the suite keeps a copy
    // of the original under the same name) is the task's line.
    auto stem = [](const std::string& path) {
        const std::string b = baseName(path);
        return b.substr(0, b.rfind('.'));
    };
    const std::string own = stem(!spec.sourcePath.empty() ? spec.sourcePath : spec.specPath);
    size_t pos = 0;
    while (pos < text.size()) {
        const size_t end = std::min(text.find('\n', pos), text.size());
        const std::string frame = text.substr(pos, end - pos);
        pos = end + 1;
        const auto open = frame.find('(');
        const auto close = open == std::string::npos ? open : frame.find("):", open);
        if (close == std::string::npos || stem(frame.substr(0, open)) != own) continue;
        try {
            out.line = std::stoi(frame.substr(open + 1, close - open - 1));
        } catch (const std::exception&) {
            continue;
        }
        out.text = lineOfText(spec.source, out.line);
        return out;
    }
    return out;
}

void inlineAllCalls(torch::jit::Graph& g) {
    auto hasCall = [](torch::jit::Block* b, const auto& self) -> bool {
        for (torch::jit::Node* n : b->nodes()) {
            if (n->kind() == c10::prim::CallMethod || n->kind() == c10::prim::CallFunction) return true;
            for (torch::jit::Block* sub : n->blocks())
                if (self(sub, self)) return true;
        }
        return false;
    };
    // Each round inlines at least one level; 64 levels of modules is beyond any task.
    for (int round = 0; round < 64 && hasCall(g.block(), hasCall); ++round) torch::jit::Inline(g);
}

namespace {
// The 0-dim tensor constants of every method of `module` and its submodules, in a fixed order:
// modules in registration order, methods in definition order, nodes in graph order. Modules of
// one type share their methods' graphs, so each graph is walked once.
std::vector<torch::jit::Node*> scalarConstants(const torch::jit::Module& module) {
    std::vector<torch::jit::Node*> out;
    std::set<const torch::jit::Graph*> seen;
    for (const torch::jit::Module& m : module.modules())
        for (const torch::jit::Method& method : m.get_methods()) {
            std::shared_ptr<torch::jit::Graph> g = method.graph();
            if (!seen.insert(g.get()).second) continue;
            torch::jit::DepthFirstGraphNodeIterator it(g);
            for (torch::jit::Node* n = it.next(); n; n = it.next())
                if (n->kind() == c10::prim::Constant && n->hasAttribute(c10::attr::value) &&
                    n->kindOf(c10::attr::value) == torch::jit::AttributeKind::t && n->t(c10::attr::value).dim() == 0)
                    out.push_back(n);
        }
    return out;
}
} // namespace

int keepScalarConstantsOnHost(torch::jit::Module& onDevice, const torch::jit::Module& onHost) {
    const std::vector<torch::jit::Node*> dev = scalarConstants(onDevice);
    const std::vector<torch::jit::Node*> host = scalarConstants(onHost);
    // Both loaded from one archive: the same graphs. Anything else is left as it is.
    if (dev.size() != host.size()) return 0;
    for (size_t i = 0; i < dev.size(); ++i) {
        const at::Tensor& d = dev[i]->t(c10::attr::value);
        const at::Tensor& h = host[i]->t(c10::attr::value);
        if (d.scalar_type() != h.scalar_type() || !h.is_cpu()) return 0;
    }
    int moved = 0;
    for (size_t i = 0; i < dev.size(); ++i) {
        if (dev[i]->t(c10::attr::value).is_cpu()) continue;
        dev[i]->t_(c10::attr::value, host[i]->t(c10::attr::value).clone());
        ++moved;
    }
    return moved;
}

namespace {

std::string shapeText(const std::vector<int64_t>& s) {
    std::string out = "[";
    for (size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
    return out + "]";
}

// The exporter stores what it traced (names, shapes, dtypes, its version) as kernelsieve.json
// inside the archive; a spec edited by hand must still describe exactly those tensors, because a
// trace bakes its shapes into views, reshapes and the like.
void checkArtifactMetadata(const TaskSpec& spec, const std::string& where, const std::string& text) {
    using json = nlohmann::json;
    if (text.empty())
        throw Error(where + ": has no kernelsieve.json inside, so it was not written by the KernelSieve "
                            "exporter; re-import the task with kernelsieve-cli import-kernelbench");
    json j;
    try {
        j = json::parse(text);
    } catch (const std::exception&) {
        throw Error(where + ": its kernelsieve.json is not valid JSON; re-import the task");
    }
    try {
        const std::string ev = j.at("exporter_version").get<std::string>();
        int major = -1;
        try {
            major = std::stoi(ev);
        } catch (const std::exception&) {
        }
        if (major != ExporterMajorVersion)
            throw Error(where + ": written by exporter version " + ev + ", but this build reads exporter version " +
                        std::to_string(ExporterMajorVersion) + ".x; re-import the folder with this build");
        for (const char* key : {"inputs", "params"}) {
            const auto& list = std::string(key) == "inputs" ? spec.inputs : spec.params;
            const json& arr = j.at(key);
            if (!arr.is_array() || arr.size() != list.size())
                throw Error(where + ": the spec lists " + std::to_string(list.size()) + " " + key +
                            " but the artifact was traced with " + std::to_string(arr.is_array() ? arr.size() : 0));
            for (size_t i = 0; i < list.size(); ++i) {
                const TensorSpec& t = list[i];
                const json& a = arr.at(i);
                const std::string name = a.at("name").get<std::string>();
                if (name != t.name)
                    throw Error(where + ": " + key + "[" + std::to_string(i) + "] is '" + t.name +
                                "' in the spec but '" + name + "' in the artifact");
                const std::string dtype = a.at("dtype").get<std::string>();
                if (dtype != t.dtype)
                    throw Error(where + ": '" + t.name + "' has dtype " + t.dtype + " in the spec but was traced as " +
                                dtype + "; re-import instead of editing dtypes");
                const auto traced = a.at("shape").get<std::vector<int64_t>>();
                for (Preset p : {Preset::Full, Preset::Small}) {
                    const auto shape = spec.shapeOf(t, p);
                    if (shape != traced)
                        throw Error(where + ": shape mismatch: '" + t.name + "' is " + shapeText(shape) +
                                    " at preset " + presetName(p) + " but the artifact was traced with " +
                                    shapeText(traced) +
                                    "; an imported task runs only at its traced shapes (re-import with other "
                                    "shape constants to change them)");
                }
            }
        }
    } catch (const json::exception& e) {
        throw Error(where + ": its kernelsieve.json is malformed (" + e.what() + "); re-import the task");
    }
}

CompiledTask loadArtifact(const TaskSpec& spec) {
    const std::string where = "task " + spec.id + ": artifact " + spec.artifactPath;
    CompiledTask ct;
    torch::jit::ExtraFilesMap extra{{"kernelsieve.json", ""}};
    try {
        ct.module = std::make_shared<torch::jit::Module>(
            loadCounted(spec.artifactPath, at::Device(at::kCPU), &extra));
    } catch (const std::exception& e) {
        throw Error(where + ": cannot be loaded as TorchScript (" + shortError(e) +
                    "); it is damaged or not an exporter artifact - re-import the task");
    }
    checkArtifactMetadata(spec, where, extra["kernelsieve.json"]);
    const auto method = ct.module->find_method(spec.entry);
    if (!method) throw Error(where + ": has no method '" + spec.entry + "'");
    // The first argument of a module method is `self`.
    const size_t got = method->function().getSchema().arguments().size() - 1;
    const size_t want = spec.inputs.size() + spec.params.size();
    if (got != want)
        throw Error(where + ": '" + spec.entry + "' takes " + std::to_string(got) + " arguments but the spec lists " +
                    std::to_string(spec.inputs.size()) + " inputs and " + std::to_string(spec.params.size()) +
                    " params");
    ct.copies = std::make_shared<ArtifactCopies>();
    ct.copies->byDevice["cpu"] = ct.module;
    return ct;
}

} // namespace

std::shared_ptr<torch::jit::Module> artifactOn(const TaskSpec& spec, const CompiledTask& ct, const at::Device& device) {
    if (device.is_cpu() || !ct.copies) return ct.module;
    std::lock_guard<std::mutex> lock(ct.copies->mutex);
    auto& slot = ct.copies->byDevice[device.str()];
    if (!slot) {
        try {
            slot = std::make_shared<torch::jit::Module>(loadCounted(spec.artifactPath, device));
            // KS_HOST_CONSTANTS=0: mapped with the rest, as before (a benchmark's reference only).
            static const bool keep = [] {
                const char* v = std::getenv("KS_HOST_CONSTANTS");
                return !(v && std::string_view(v) == "0");
            }();
            if (keep) keepScalarConstantsOnHost(*slot, *ct.module);
        } catch (const std::exception& e) {
            ct.copies->byDevice.erase(device.str());
            throw Error("cannot load artifact " + spec.artifactPath + " onto " + device.str() + ": " + shortError(e));
        }
    }
    return slot;
}

long long artifactLoads() { return g_artifactLoads.load(); }

CompiledTask compileTask(const TaskSpec& spec) {
    if (!spec.artifactPath.empty()) return loadArtifact(spec);
    CompiledTask ct;
    try {
        ct.unit = std::make_shared<torch::jit::CompilationUnit>();
        ct.unit->define(std::nullopt, spec.source, std::make_shared<TaskResolver>(), nullptr);
    } catch (const std::exception& e) {
        throw Error("task " + spec.id + ": TorchScript compile error in " +
                    (spec.sourcePath.empty() ? std::string("its source") : spec.sourcePath) + ": " +
                    shortError(e));
    }
    ct.fn = ct.unit->find_function(spec.entry);
    if (!ct.fn)
        throw Error("task " + spec.id + ": the source defines no function '" + spec.entry + "'");
    const auto& schema = ct.fn->getSchema();
    const size_t want = spec.inputs.size() + spec.params.size();
    if (schema.arguments().size() != want)
        throw Error("task " + spec.id + ": '" + spec.entry + "' takes " +
                    std::to_string(schema.arguments().size()) + " arguments but the spec lists " +
                    std::to_string(spec.inputs.size()) + " inputs and " +
                    std::to_string(spec.params.size()) + " params");
    return ct;
}

at::Tensor drawTensor(const TaskSpec& spec, const TensorSpec& t, Preset preset, const at::Device& device,
                      at::ScalarType floatOverride, const std::optional<at::Generator>& gen, bool pinned,
                      const DrawSplit* split, double* helperSeconds) {
    // Numbers the original drew and no tensor kept: drawn with `x`'s init alone, then thrown away.
    auto discard = [&](TensorSpec x) {
        x.drawBefore.reset();
        x.discardBefore.clear();
        x.post.clear();
        (void)drawTensor(spec, x, preset, device, at::ScalarType::Undefined, gen, false, split, helperSeconds);
    };
    for (const auto& d : t.discardBefore) { // draws into tensors a later init drew again
        TensorSpec x;
        x.name = t.name + " (discarded draw)";
        for (int64_t n : d.shape) x.shape.push_back(Dim{n, {}});
        x.dtype = d.init.kind == Distribution::Kind::RandInt ? "int64" : "float32";
        x.init = d.init;
        discard(std::move(x));
    }
    if (t.drawBefore) { // the draw into this tensor that a constant then overwrote
        TensorSpec first = t;
        first.init = *t.drawBefore;
        discard(std::move(first));
    }
    const auto shape = spec.shapeOf(t, preset);
    const at::ScalarType target = scalarType(t.dtype);
    const bool isFloat = at::isFloatingType(target);
    // Draw floats in float32 (as torch.randn does by default) and cast afterwards.
    const auto fopts = at::TensorOptions().device(device).dtype(at::kFloat).pinned_memory(pinned);
    const auto& d = t.init;
    // torch.randn(s) is torch.empty(s).normal_(0, 1), torch.rand uniform_(0, 1), torch.randint
    // random_(low, high): the split forms call the same kernels on parts of the tensor.
    const bool splits = split && gen && device.is_cpu();
    // On the CPU the fast forms (ks/core/fastdraw.h) need the generator named: the caller's, or the
    // default one, which the kernels take when none is given.
    std::optional<at::Generator> named = gen;
    if (!named && device.is_cpu()) named = at::detail::getDefaultCPUGenerator();
    double helpers = 0;
    // One float draw into a new tensor: split over helper threads (splitNormal, splitUniform), or
    // whole by the fast form (drawNormal, drawUniform; it falls back to the kernel itself), or by
    // the kernel on the device's default generator where no generator is named.
    auto sample = [&](auto splitFill, auto fastFill, auto kernelFill, double a, double b) {
        at::Tensor y = at::empty(shape, fopts);
        if (splits) {
            at::Generator g = *gen;
            helpers += splitFill(y, a, b, g, *split);
        } else if (named) {
            at::Generator g = *named;
            fastFill(y, a, b, g);
        } else {
            kernelFill(y, a, b);
        }
        return y;
    };
    auto normal = [&](double mean, double std) {
        return sample(splitNormal, drawNormal, [](at::Tensor& y, double m, double sd) { y.normal_(m, sd); }, mean, std);
    };
    auto uniform = [&](double from, double to) {
        return sample(splitUniform, drawUniform, [](at::Tensor& y, double f, double t) { y.uniform_(f, t); }, from, to);
    };
    at::Tensor x;
    switch (d.kind) {
    // The in-place samplers round differently from the two-step forms (their CPU kernels fuse
    // the multiply-add, and small tensors go through double), so each form replays its own call.
    case Distribution::Kind::Normal:
        if (d.inplace) {
            x = normal(d.a, d.b);
            break;
        }
        x = normal(0.0, 1.0);
        if (d.b != 1.0) x.mul_(d.b);
        if (d.a != 0.0) x.add_(d.a);
        break;
    case Distribution::Kind::Uniform:
        if (d.inplace) {
            x = uniform(d.a, d.b);
            break;
        }
        x = uniform(0.0, 1.0);
        if (d.b - d.a != 1.0) x.mul_(d.b - d.a);
        if (d.a != 0.0) x.add_(d.a);
        break;
    case Distribution::Kind::RandInt: {
        const auto lo = static_cast<int64_t>(d.a), hi = static_cast<int64_t>(d.b);
        x = at::empty(shape, at::TensorOptions().device(device).dtype(at::kLong).pinned_memory(pinned));
        if (!splits) {
            if (named) {
                at::Generator g = *named;
                drawRandom(x, lo, hi, g);
            } else {
                x.random_(lo, hi);
            }
        } else {
            at::Generator g = *gen;
            helpers += splitRandom(x, lo, hi, g, *split);
        }
        break;
    }
    case Distribution::Kind::KaimingUniform: {
        // PyTorch's arithmetic, double for double (torch/nn/init.py): kaiming_uniform_(w, a) takes
        // gain = sqrt(2 / (1 + a**2)), std = gain / sqrt(fan), bound = sqrt(3) * std; the bias rule
        // is 1 / sqrt(fan). Both then call uniform_(-bound, bound), which we call too: rand * 2b - b
        // differed from it in about half the values (torch 2.11, CPU).
        const double fan = spec.fanInOf(t, preset);
        double bound = 1.0 / std::sqrt(fan);
        if (d.gainA) {
            const double gain = std::sqrt(2.0 / (1.0 + std::pow(*d.gainA, 2.0)));
            bound = std::sqrt(3.0) * (gain / std::sqrt(fan));
        }
        x = uniform(-bound, bound);
        break;
    }
    case Distribution::Kind::Constant:
        x = at::full(shape, d.a, fopts);
        break;
    case Distribution::Kind::Exponential:
        // One call on the whole tensor, as torch.distributions makes it. The split forms do not apply:
        // they rest on normal_/uniform_/random_ taking the generator's outputs in element order.
        x = at::empty(shape, fopts);
        x.exponential_(d.a, gen);
        break;
    }
    for (const auto& p : t.post) {
        if (!at::isFloatingType(x.scalar_type())) x = x.to(at::kFloat);
        switch (p.kind) {
        case Transform::Kind::Softmax: x = x.softmax(p.dim); break;
        case Transform::Kind::LogSoftmax: x = x.log_softmax(p.dim); break;
        case Transform::Kind::Abs: x = x.abs(); break;
        case Transform::Kind::Affine: x = x.mul(p.scale).add(p.shift); break;
        case Transform::Kind::Triu: x = x.triu(p.dim); break;
        case Transform::Kind::Tril: x = x.tril(p.dim); break;
        case Transform::Kind::AddTranspose: x = x.add(x.mT()); break;
        case Transform::Kind::MatmulTranspose: x = x.matmul(x.mT()); break;
        case Transform::Kind::Exp: x = x.exp(); break;
        case Transform::Kind::Div: x = x.div(p.value); break;
        }
    }
    if (helperSeconds) *helperSeconds += helpers;
    at::ScalarType out = target;
    if (isFloat && floatOverride != at::ScalarType::Undefined) out = floatOverride;
    return x.scalar_type() == out ? x : x.to(out);
}

int64_t operandDeviceBytes(const TaskSpec& spec, Preset preset) {
    int64_t bytes = 0;
    for (const auto* list : {&spec.inputs, &spec.params})
        for (const auto& t : *list)
            bytes += spec.elementsOf(t, preset) * static_cast<int64_t>(c10::elementSize(scalarType(t.dtype)));
    return bytes;
}

int64_t importPeakAt(const TaskSpec& spec, int64_t operandBytes) {
    return spec.importPeakDeviceBytes > 0 && operandBytes == operandDeviceBytes(spec, Preset::Full)
               ? spec.importPeakDeviceBytes
               : 0;
}

at::Tensor copiedParam(const TensorSpec& t, const std::vector<at::Tensor>& drawn) {
    const at::Tensor& src = drawn.at(static_cast<size_t>(t.copyOf));
    // copy.deepcopy: no draw. Made page-locked at once where the original is (clone() would not
    // be, and pinning it after is a second copy).
    at::Tensor x = at::empty(src.sizes(), src.options().pinned_memory(src.is_pinned()));
    x.copy_(src);
    return x;
}

std::vector<at::Tensor> drawParams(const TaskSpec& spec, Preset preset, const at::Device& device) {
    std::vector<at::Tensor> out;
    for (const auto& p : spec.params)
        out.push_back(p.copyOf >= 0 ? copiedParam(p, out) : drawTensor(spec, p, preset, device));
    return out;
}

std::vector<at::Tensor> drawInputs(const TaskSpec& spec, Preset preset, const at::Device& device) {
    std::vector<at::Tensor> out;
    for (const auto& p : spec.inputs) out.push_back(drawTensor(spec, p, preset, device));
    return out;
}

at::Tensor runForward(const TaskSpec& spec, const CompiledTask& ct, const std::vector<at::Tensor>& inputs,
                      const std::vector<at::Tensor>& params) {
    std::vector<c10::IValue> args;
    args.reserve(inputs.size() + params.size());
    for (const auto& t : inputs) args.emplace_back(t);
    for (const auto& t : params) args.emplace_back(t);
    c10::IValue result;
    // The original forward reseeds before its first random op (torch.manual_seed(N)); a trace does
    // not record that call, so the engine makes it (at::manual_seed seeds the CPU and CUDA generators,
    // as torch.manual_seed does).
    if (spec.forwardSeed) at::manual_seed(static_cast<uint64_t>(*spec.forwardSeed));
    if (ct.module) {
        const at::Device device = !inputs.empty() ? inputs.front().device()
                                  : !params.empty() ? params.front().device() : at::Device(at::kCPU);
        torch::jit::Module& m = *artifactOn(spec, ct, device);
        try {
            result = m.get_method(spec.entry)(std::move(args));
        } catch (const c10::OutOfMemoryError&) {
            throw; // the engine reports OOM with its own advice
        } catch (const Error&) {
            throw;
        } catch (const std::exception& e) {
            // No "task <id>:" prefix: the engine adds it with the phase and the seed.
            throw Error("error in artifact " + spec.artifactPath + ": " + shortError(e));
        }
    } else {
        result = (*ct.fn)(std::move(args));
    }
    if (!result.isTensor())
        throw Error("task " + spec.id + ": '" + spec.entry + "' must return one Tensor, got " +
                    result.tagKind());
    return result.toTensor();
}

} // namespace ks
