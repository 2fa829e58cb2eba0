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

    // One call on the current CUDA stream. Throws ks::Error when the tensors are not those it
    // was compiled for (count, shapes, dtypes, contiguity) or it does not return one tensor.
    at::Tensor run(const std::vector<at::Tensor>& args) const;
    // The same call without the argument check, for timed loops over arguments run() accepted
    // (the check is host work a timing with launch latency counted would charge to the model).
    at::Tensor runUnchecked(const std::vector<at::Tensor>& args) const;
    const std::string& path() const { return m_path; }

private:
    void checkArgs(const std::vector<at::Tensor>& args) const;
    struct Impl;
    std::string m_path;
    std::unique_ptr<Impl> m_impl;
};

} // namespace ks
