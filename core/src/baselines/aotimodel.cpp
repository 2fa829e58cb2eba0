// SPDX-License-Identifier: MIT
#include "ks/core/aotimodel.h"

#include "ks/core/results.h"
#include "ks/core/torchtask.h"

#include <nlohmann/json.hpp>
#include <torch/csrc/inductor/aoti_package/model_package_loader.h>
#include <torch/csrc/inductor/aoti_runner/model_container_runner_cpu.h>
#ifdef KS_TORCH_CUDA
#include <ATen/cuda/CUDAContext.h>
#include <torch/csrc/inductor/aoti_runner/model_container_runner_cuda.h>
#endif

#include <filesystem>
#include <map>
#include <string_view>

namespace ks {
namespace fs = std::filesystem;

// One argument a model was compiled for.
struct ModelArg {
    std::string name;
    std::vector<int64_t> shape;
    at::ScalarType dtype;
};

struct CompiledModel::Impl {
    std::unique_ptr<torch::inductor::AOTIModelPackageLoader> loader;
    std::unique_ptr<torch::inductor::AOTIModelContainerRunner> runner;
    bool cuda = false;
    // The arguments it was compiled for (spec.json beside the model folder): a compiled model
    // does not check what it is given and would read past a smaller tensor.
    std::vector<ModelArg> expected;
};

namespace {
// The extracted model folder (aoti_compile.py): its one .so and the device its metadata names.
std::pair<std::string, std::string> modelIn(const fs::path& dir) {
    std::string so, device;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir, ec)) {
        const std::string name = e.path().filename().string();
        if (e.path().extension() == ".so") {
            if (!so.empty()) throw Error(dir.string() + " holds more than one compiled model (.so)");
            so = e.path().string();
        } else if (std::string_view(name).ends_with("wrapper_metadata.json")) {
            const auto j = nlohmann::json::parse(readFile(e.path().string()), nullptr, false);
            if (j.is_object() && j.contains("AOTI_DEVICE_KEY") && j["AOTI_DEVICE_KEY"].is_string())
                device = j["AOTI_DEVICE_KEY"].get<std::string>();
        }
    }
    if (ec) throw Error("cannot read " + dir.string() + ": " + ec.message());
    if (so.empty()) throw Error(dir.string() + " holds no compiled model (.so)");
    if (device.empty()) throw Error(dir.string() + " has no wrapper metadata naming the model's device");
    return {so, device};
}
std::vector<ModelArg> expectedArgs(const fs::path& specPath) {
    static const std::map<std::string, at::ScalarType> dtypes{
        {"float32", at::kFloat}, {"float64", at::kDouble}, {"float16", at::kHalf}, {"bfloat16", at::kBFloat16},
        {"int64", at::kLong},    {"int32", at::kInt},      {"bool", at::kBool}};
    std::vector<ModelArg> out;
    const auto j = nlohmann::json::parse(readFile(specPath.string()), nullptr, false);
    if (!j.is_object() || !j.contains("args") || !j["args"].is_array())
        throw Error(specPath.string() + " does not list the model's arguments");
    for (const auto& a : j["args"]) {
        const auto dt = dtypes.find(a.value("dtype", ""));
        if (dt == dtypes.end() || !a.contains("shape") || !a["shape"].is_array())
            throw Error(specPath.string() + ": an argument without a known dtype and shape");
        out.push_back({a.value("name", ""), a["shape"].get<std::vector<int64_t>>(), dt->second});
    }
    return out;
}

} // namespace

CompiledModel::CompiledModel(const std::string& path) : m_path(path), m_impl(std::make_unique<Impl>()) {
    try {
        std::error_code ec;
        if (fs::is_directory(path, ec)) {
            const auto [so, device] = modelIn(path);
            if (const fs::path spec = fs::path(path).parent_path() / "spec.json"; fs::exists(spec, ec))
                m_impl->expected = expectedArgs(spec);
            if (device == "cpu") {
                m_impl->runner = std::make_unique<torch::inductor::AOTIModelContainerRunnerCpu>(so, 1);
            } else if (device == "cuda") {
#ifdef KS_TORCH_CUDA
                m_impl->runner = std::make_unique<torch::inductor::AOTIModelContainerRunnerCuda>(so, 1, "cuda", path);
                m_impl->cuda = true;
#else
                throw Error("the package was compiled for CUDA and this build has no CUDA");
#endif
            } else {
                throw Error("the package was compiled for device '" + device + "'");
            }
        } else {
            m_impl->loader = std::make_unique<torch::inductor::AOTIModelPackageLoader>(path);
        }
    } catch (const Error& e) {
        throw Error("cannot load the compiled baseline " + path + ": " + e.what());
    } catch (const std::exception& e) {
        throw Error("cannot load the compiled baseline " + path + ": " + shortError(e));
    }
}

CompiledModel::~CompiledModel() = default;

at::Tensor CompiledModel::run(const std::vector<at::Tensor>& args) const {
    checkArgs(args);
    return runUnchecked(args);
}

void CompiledModel::checkArgs(const std::vector<at::Tensor>& args) const {
    if (const auto& want = m_impl->expected; !want.empty()) {
        if (args.size() != want.size())
            throw Error("the compiled baseline takes " + std::to_string(want.size()) + " tensors, not " +
                        std::to_string(args.size()));
        for (size_t i = 0; i < args.size(); ++i)
            if (!args[i].defined() || args[i].sizes() != at::IntArrayRef(want[i].shape) ||
                args[i].scalar_type() != want[i].dtype || !args[i].is_contiguous())
                throw Error("the compiled baseline was compiled for " + want[i].name + " " +
                            c10::str(at::IntArrayRef(want[i].shape)) + " " + c10::toString(want[i].dtype) +
                            " (contiguous), not " +
                            (args[i].defined() ? c10::str(args[i].sizes()) + " " + c10::toString(args[i].scalar_type())
                                               : std::string("an undefined tensor")));
    }
}

at::Tensor CompiledModel::runUnchecked(const std::vector<at::Tensor>& args) const {
    std::vector<at::Tensor> out;
    try {
        void* stream = nullptr;
#ifdef KS_TORCH_CUDA
        if (!args.empty() && args.front().is_cuda()) stream = at::cuda::getCurrentCUDAStream().stream();
#endif
        if (m_impl->runner) {
            out = m_impl->runner->run(args, stream);
        } else {
            out = m_impl->loader->run(args, stream);
        }
    } catch (const std::exception& e) {
        throw Error("the compiled baseline failed: " + shortError(e));
    }
    if (out.size() != 1 || !out[0].defined())
        throw Error("the compiled baseline returned " + std::to_string(out.size()) + " outputs, not one tensor");
    return out[0];
}

} // namespace ks
