// SPDX-License-Identifier: MIT
#pragma once
// Running a task through LibTorch: compile its TorchScript, draw its tensors, call it.
// This header pulls in LibTorch; include it only from engine-side translation units.

#include "ks/core/taskspec.h"

#include <ATen/ATen.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace torch::jit {
struct CompilationUnit;
struct Function;
struct Graph;
struct Module;
struct Node;
} // namespace torch::jit

namespace ks {

struct ArtifactCopies; // per-device copies of an imported task's module (torchtask.cpp)

struct CompiledTask {
    std::shared_ptr<torch::jit::CompilationUnit> unit;
    torch::jit::Function* fn = nullptr;
    // Imported tasks: the traced artifact, loaded on the CPU. Tensor constants inside a traced
    // graph do not follow Module::to(), so other devices get their own copy, loaded onto that
    // device on first use.
    std::shared_ptr<torch::jit::Module> module;
    std::shared_ptr<ArtifactCopies> copies;
};

// Throws ks::Error "task <id>: TorchScript compile error: ..." on bad source. For an imported
// task (spec.artifactPath set) it loads the artifact instead and checks it against the spec:
// exporter version, argument count, names, shapes (at both presets) and dtypes; errors name the
// task and the artifact file.
CompiledTask compileTask(const TaskSpec& spec);

// An imported task's module on `device`: ct.module on the CPU, else a copy loaded onto the device
// on first use and kept in ct (every copy of ct shares it). Null for a task that is not imported.
std::shared_ptr<torch::jit::Module> artifactOn(const TaskSpec& spec, const CompiledTask& ct, const at::Device& device);

// Artifacts loaded (torch::jit::load) in this process so far: what tests and benchmarks count to
// see that nothing is loaded twice.
long long artifactLoads();

struct DrawSplit;

// Draws one tensor from its spec with `generator`, by default the device's global one in its
// current state. `pinned` (a CPU device with CUDA present): drawn into page-locked memory.
// `split` (a CPU device and a generator given): a large tensor may be drawn on several threads
// (ks/core/splitdraw.h; the same numbers); their seconds are added to *helperSeconds.
// A parameter with TensorSpec::copyOf is not drawn but copied (copiedParam): drawParams and the
// operand source do that; this draws whatever it is given.
at::Tensor drawTensor(const TaskSpec& spec, const TensorSpec& t, Preset preset,
                      const at::Device& device, at::ScalarType floatOverride = at::ScalarType::Undefined,
                      const std::optional<at::Generator>& generator = std::nullopt, bool pinned = false,
                      const DrawSplit* split = nullptr, double* helperSeconds = nullptr);
// The parameter `t` (t.copyOf >= 0) of a seed whose earlier parameters are `drawn`: a copy of the
// one it names, in page-locked memory when that one is.
at::Tensor copiedParam(const TensorSpec& t, const std::vector<at::Tensor>& drawn);
// Bytes one seed's inputs and parameters take on the device, in their dtypes: what a forward
// needs at the least. Throws ks::Error where a shape cannot be resolved.
int64_t operandDeviceBytes(const TaskSpec& spec, Preset preset);
// The forward's device peak the import measured, where it ran at the shapes whose operands take
// `operandBytes` (the import traces at the spec's full shapes); 0 when unmeasured or other shapes.
// Throws ks::Error where a shape cannot be resolved.
int64_t importPeakAt(const TaskSpec& spec, int64_t operandBytes);
std::vector<at::Tensor> drawParams(const TaskSpec& spec, Preset preset, const at::Device& device);
std::vector<at::Tensor> drawInputs(const TaskSpec& spec, Preset preset, const at::Device& device);
// Seeds every generator (CPU and CUDA) like torch.manual_seed.
void seedAll(uint64_t seed);
// Gives the CUDA caching allocator's cached blocks back to the driver (an out-of-memory error
// leaves them behind); never throws; nothing without CUDA.
void releaseCachedDeviceMemory();

// Inlines every function and method call of `g`, however deeply nested. LibTorch's Inline pass
// leaves the calls inside a callee it has just inlined (a traced KernelBench Model's
// `self.gemm(x)` stays a prim::CallMethod), so it runs until no call is left.
void inlineAllCalls(torch::jit::Graph& g);

// Puts the 0-dim tensor constants of every method of `onDevice` (and its submodules) back on the
// host, as `onHost`, the same archive loaded onto the host, holds them; returns how many it
// replaced (0 when the two modules' graphs differ). A trace records the shape arithmetic of a forward
// (`channels // groups` on `x.size(1)`) as tensor ops on 0-dim host tensors, with the Python
// number as a 0-dim tensor constant. Loading an artifact onto a GPU maps those constants there
// too, and the arithmetic then runs on the device and reads its result back to the host: a
// synchronisation inside every forward, which the task's own PyTorch code does not have, which
// slows its eager time and makes its forward impossible to capture in a CUDA graph. On the host,
// the arithmetic stays on the host as it was traced; a 0-dim host tensor also mixes with device
// tensors in any elementwise op without a copy.
int keepScalarConstantsOnHost(torch::jit::Module& onDevice, const torch::jit::Module& onHost);

// The line of the task's own source file a graph node comes from, numbered as the GUI's source
// pane numbers `spec.source` (1-based), and that line's text; {0, ""} when unknown. A built-in
// task's node points into its compiled source. A traced (imported) task's node carries the Python
// stack of the call that made it: the innermost frame in the task's file wins, so an op that
// nn.Linear or F.softmax runs points at the task's `self.linear(x)` line, not at torch's code.
struct SourceLine {
    int line = 0;
    std::string text;
};
SourceLine taskSourceLine(const torch::jit::Node* n, const TaskSpec& spec);

// Calls the task function with (*inputs, *params); the result must be one Tensor.
// Throws ks::Error naming the task on any failure.
at::Tensor runForward(const TaskSpec& spec, const CompiledTask& ct, const std::vector<at::Tensor>& inputs,
                      const std::vector<at::Tensor>& params);

// Makes TorchScript run the graph as written (no fusion or profiling passes), so
// task outputs and timings are those of eager PyTorch.
void useEagerSemantics();

// First line of a c10/torch exception message, without the C++ backtrace.
std::string shortError(const std::exception& e);

} // namespace ks
