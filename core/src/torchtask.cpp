// SPDX-License-Identifier: MIT
#include "ks/core/torchtask.h"

#include <torch/csrc/jit/api/compilation_unit.h>
#include <torch/csrc/jit/frontend/resolver.h>
#include <torch/csrc/jit/frontend/sugared_value.h>
#include <torch/csrc/jit/ir/ir.h>
#include <torch/csrc/jit/python/update_graph_executor_opt.h>
#include <torch/csrc/jit/runtime/graph_executor.h>
#include <torch/jit.h>
#include <ATen/Context.h>
#include <c10/util/Exception.h>

#include <cmath>
#include <map>

namespace ks {
namespace {

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

CompiledTask compileTask(const TaskSpec& spec) {
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
                      at::ScalarType floatOverride) {
    const auto shape = spec.shapeOf(t, preset);
    const at::ScalarType target = scalarType(t.dtype);
    const bool isFloat = at::isFloatingType(target);
    // Draw floats in float32 (as torch.randn does by default) and cast afterwards.
    const auto fopts = at::TensorOptions().device(device).dtype(at::kFloat);
    const auto& d = t.init;
    at::Tensor x;
    switch (d.kind) {
    case Distribution::Kind::Normal:
        x = at::randn(shape, fopts);
        if (d.b != 1.0) x.mul_(d.b);
        if (d.a != 0.0) x.add_(d.a);
        break;
    case Distribution::Kind::Uniform:
        x = at::rand(shape, fopts);
        if (d.b - d.a != 1.0) x.mul_(d.b - d.a);
        if (d.a != 0.0) x.add_(d.a);
        break;
    case Distribution::Kind::RandInt:
        x = at::randint(static_cast<int64_t>(d.a), static_cast<int64_t>(d.b), shape,
                        at::TensorOptions().device(device).dtype(at::kLong));
        break;
    case Distribution::Kind::KaimingUniform: {
        const double bound = 1.0 / std::sqrt(spec.fanInOf(t, preset));
        x = at::rand(shape, fopts).mul_(2.0 * bound).sub_(bound);
        break;
    }
    case Distribution::Kind::Constant:
        x = at::full(shape, d.a, fopts);
        break;
    }
    for (const auto& p : t.post) {
        if (!at::isFloatingType(x.scalar_type())) x = x.to(at::kFloat);
        switch (p.kind) {
        case Transform::Kind::Softmax: x = x.softmax(p.dim); break;
        case Transform::Kind::LogSoftmax: x = x.log_softmax(p.dim); break;
        case Transform::Kind::Abs: x = x.abs(); break;
        case Transform::Kind::Affine: x = x.mul(p.scale).add(p.shift); break;
        }
    }
    at::ScalarType out = target;
    if (isFloat && floatOverride != at::ScalarType::Undefined) out = floatOverride;
    return x.scalar_type() == out ? x : x.to(out);
}

std::vector<at::Tensor> drawParams(const TaskSpec& spec, Preset preset, const at::Device& device) {
    std::vector<at::Tensor> out;
    for (const auto& p : spec.params) out.push_back(drawTensor(spec, p, preset, device));
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
    c10::IValue result = (*ct.fn)(std::move(args));
    if (!result.isTensor())
        throw Error("task " + spec.id + ": '" + spec.entry + "' must return one Tensor, got " +
                    result.tagKind());
    return result.toTensor();
}

} // namespace ks
