// SPDX-License-Identifier: MIT
// Part of a TorchScript graph run node by node, each node through its registered operation,
// without building interpreter code for it. Filter 6 runs a slightly different graph for every
// candidate (one op bypassed), and building torch::jit::Code for it (a copy of the graph, the
// interpreter's passes over it, its instructions) is host work a faster GPU does not shorten
// (docs/redundancy.md, "Check runs"). A NodeProgram is only the nodes' operations and where their
// arguments lie, made from the working graph as it stands. Internal to core/src/analysis.
#pragma once

#include <torch/csrc/jit/ir/ir.h>
#include <ATen/core/stack.h>

#include <functional>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace ks {

// Each node's operation, looked up once (getOperation matches the node against the operator
// registry's schemas). A node that is destroyed must be forgotten: its address may come back.
class OperationCache {
public:
    // nullptr when the node has no operation of its own here (see NodeProgram::make)
    torch::jit::Operation* of(const torch::jit::Node* n);
    void forget(const torch::jit::Node* n) { m_ops.erase(n); }

private:
    std::unordered_map<const torch::jit::Node*, std::optional<torch::jit::Operation>> m_ops;
};

class NodeProgram {
public:
    // make() reads a value that is neither an input, a constant, an output of an earlier node nor
    // made by a node `remake` accepts.
    struct Missing {};
    // make() met a node it cannot run on its own: nested blocks (if/loop), a call, a vararg
    // schema, a prim op the interpreter handles itself. The caller builds interpreter code instead.
    struct Unsupported {};

    // `nodes` in order, reading `inputs` (run()'s arguments, in this order), constants, outputs of
    // earlier nodes, and outputs of nodes outside `nodes` that `remake` accepts (made again, before
    // the first node that reads them: attribute reads, lists); run() returns `outputs`.
    static NodeProgram make(const std::vector<torch::jit::Node*>& nodes, const std::vector<torch::jit::Value*>& inputs,
                            const std::vector<torch::jit::Value*>& outputs, OperationCache& ops,
                            const std::function<bool(const torch::jit::Node*)>& remake = {});

    torch::jit::Stack run(torch::jit::Stack args) const;

    // The nodes run, in order (those remade included): what the caller asks which inputs they write.
    const std::vector<torch::jit::Node*>& nodes() const { return m_nodes; }

private:
    enum class Kind { Op, GetAttr, ListConstruct, TupleConstruct, ListUnpack, TupleUnpack };
    struct Step {
        Kind kind = Kind::Op;
        torch::jit::Operation* op = nullptr; // in the cache, which outlives the program
        size_t attr = 0;             // GetAttr: the attribute's slot
        c10::TypePtr element;        // ListConstruct
        std::vector<size_t> in, out; // slots
        std::vector<size_t> drop;    // slots this step reads last (released after it, as the interpreter does)
    };
    std::vector<Step> m_steps;
    std::vector<torch::jit::Node*> m_nodes;
    std::vector<std::pair<size_t, c10::IValue>> m_constants;
    std::vector<size_t> m_outputs;
    size_t m_inputs = 0, m_slots = 0;
};

} // namespace ks
