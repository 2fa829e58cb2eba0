// SPDX-License-Identifier: MIT
#pragma once
// A compiled baseline package (compiledbaseline.h) loaded with LibTorch's AOTInductor package
// loader, called like the task: run(inputs then params) -> the output. Engine side (LibTorch).

#include <ATen/ATen.h>

#include <memory>
#include <string>
#include <vector>

namespace ks {

class CompiledModel {
public:
    // `path`: the extracted model folder aoti_compile.py writes beside the package (loaded with
    // AOTIModelContainerRunnerCuda/Cpu: nothing is unpacked, so it works in the sandbox), or a
    // model.pt2 (LibTorch's package loader, which unpacks it under /tmp). The device is the
    // package's. Throws ks::Error naming the path and the loader's message.
    explicit CompiledModel(const std::string& packagePath);
    ~CompiledModel();
    CompiledModel(const CompiledModel&) = delete;
    CompiledModel& operator=(const CompiledModel&) = delete;

    // One call on the current CUDA stream. Throws ks::Error when the model refuses the tensors
    // or does not return exactly one tensor.
    at::Tensor run(const std::vector<at::Tensor>& args) const;
    const std::string& path() const { return m_path; }

private:
    struct Impl;
    std::string m_path;
    std::unique_ptr<Impl> m_impl;
};

} // namespace ks
