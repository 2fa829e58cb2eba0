// SPDX-License-Identifier: MIT
// Where the values of a TorchScript graph keep their memory, and what a run of it may write into:
// filter 6 copies, before a check, exactly the arguments and saved values that the check's
// in-place ops may reach (docs/redundancy.md, "Check runs"). Internal to core/src/analysis.
#pragma once

#include <torch/csrc/jit/ir/ir.h>
#include <ATen/core/stack.h>

#include <functional>
#include <optional>
#include <unordered_map>
#include <vector>

namespace ks {

// The node writes in place or has side effects (its schema says so).
bool isMutating(const torch::jit::Node* n);

// `n` and every node nested in its blocks.
void forEachNested(torch::jit::Node* n, const std::function<void(torch::jit::Node*)>& f);

bool containsTensor(const c10::TypePtr& t);

// Where a value's memory comes from: the graph inputs, constants, attributes and fresh op results
// it may be a view of, followed backwards through the schemas' alias annotations. Unknown (empty
// optional) where the schemas cannot tell: an op without a schema (a list unpacked), a wildcard.
class MemoryRoots {
public:
    using Set = std::optional<std::vector<const torch::jit::Value*>>;

    // `roots` are followed no further back (a program's inputs: a cut's values).
    explicit MemoryRoots(const std::vector<torch::jit::Value*>& roots = {});

    const Set& of(const torch::jit::Value* v);
    // What the in-place op `x` writes into: unknown when it writes a list, through a wildcard, or
    // its schema says it mutates without naming a tensor argument.
    Set written(const torch::jit::Node* x);
    // The write `w` (from written()) may change `v`.
    bool changes(const Set& w, const torch::jit::Value* v);

private:
    std::unordered_map<const torch::jit::Value*, Set> m_memo;
};

// The `inputs` that an in-place op of `nodes` may write into, directly or through a view. A run
// copies only these: the others reach the ops as they are and come back unchanged.
std::vector<bool> writtenInputs(const std::vector<torch::jit::Node*>& nodes,
                                const std::vector<torch::jit::Value*>& inputs);
std::vector<bool> writtenInputs(torch::jit::Graph& g);

// The memory of a strided tensor (what views of one another share); null for anything else.
const c10::StorageImpl* storageOf(const c10::IValue& v);

// Copies the tensors of `stack` marked in `which`, and every other tensor of it that shares
// storage with one of them, so that tensors sharing storage still share it (a view and its base
// stay a view and its base: an in-place op through one shows through the other, as in the run
// that made them). False when one storage is seen with two dtypes.
bool cloneTogether(torch::jit::Stack& stack, const std::vector<bool>& which);

// The arguments with every tensor copied: what a run may write into must not be a check's inputs.
torch::jit::Stack copiedArgs(const std::vector<c10::IValue>& args);

} // namespace ks
