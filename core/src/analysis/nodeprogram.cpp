// SPDX-License-Identifier: MIT
#include "nodeprogram.h"

#include <torch/csrc/jit/ir/constants.h>
#include <torch/csrc/jit/runtime/operator.h>

#include <stdexcept>

namespace ks {

using torch::jit::Node;
using torch::jit::Value;

namespace {
// The prim ops NodeProgram runs itself, as the interpreter's own instructions do.
bool isContainerOp(const Node* n) {
    const auto k = n->kind();
    return k == c10::prim::GetAttr || k == c10::prim::ListConstruct || k == c10::prim::TupleConstruct ||
           k == c10::prim::ListUnpack || k == c10::prim::TupleUnpack;
}

// Ops whose registered operation does what the interpreter does with them. The interpreter emits
// its own instructions for many prim ops (calls, attribute writes, objects, forks, warnings,
// type checks); those are not run here. aten and other libraries' ops run through their
// operation, as in the interpreter.
bool runsThroughItsOperation(const Node* n) {
    const auto k = n->kind();
    if (k.is_prim()) return k == c10::prim::NumToTensor || k == c10::prim::device || k == c10::prim::dtype;
    return k != c10::aten::wait && k != c10::aten::warn && !k.is_onnx() && !k.is_attr();
}
} // namespace

torch::jit::Operation* OperationCache::of(const Node* n) {
    auto [it, fresh] = m_ops.try_emplace(n);
    if (fresh && n->blocks().empty() && runsThroughItsOperation(n)) {
        const torch::jit::Operator* op = n->maybeOperator();
        // A vararg operation takes its argument count on the stack (the interpreter's OPN);
        // none of the tasks' ops needs one, so those are left to the interpreter.
        if (op && !(op->hasOperation() && op->schema().is_vararg())) it->second = op->getOperation(n);
    }
    return it->second && *it->second ? &*it->second : nullptr;
}

NodeProgram NodeProgram::make(const std::vector<Node*>& nodes, const std::vector<Value*>& inputs,
                              const std::vector<Value*>& outputs, OperationCache& ops,
                              const std::function<bool(const Node*)>& remake) {
    NodeProgram p;
    std::unordered_map<const Value*, size_t> slotOf;
    for (Value* in : inputs) slotOf.emplace(in, p.m_slots++);
    p.m_inputs = p.m_slots;

    std::function<size_t(Value*)> slot;
    std::function<void(Node*)> add = [&](Node* n) {
        Step s;
        if (!n->blocks().empty()) throw Unsupported{};
        if (isContainerOp(n)) {
            const auto k = n->kind();
            s.kind = k == c10::prim::GetAttr         ? Kind::GetAttr
                     : k == c10::prim::ListConstruct  ? Kind::ListConstruct
                     : k == c10::prim::TupleConstruct ? Kind::TupleConstruct
                     : k == c10::prim::ListUnpack     ? Kind::ListUnpack
                                                      : Kind::TupleUnpack;
            if (s.kind == Kind::GetAttr) {
                // by its slot in the object, as the interpreter reads it (a name costs a search)
                const auto cls = n->input()->type()->cast<c10::ClassType>();
                if (!cls) throw Unsupported{};
                s.attr = cls->getAttributeSlot(n->s(c10::attr::name));
            }
            if (s.kind == Kind::ListConstruct) s.element = n->output()->type()->containedType(0);
            // A named tuple carries its type: the interpreter's own instruction makes it.
            if (s.kind == Kind::TupleConstruct && n->output()->type()->expectRef<c10::TupleType>().name())
                throw Unsupported{};
        } else if (!(s.op = ops.of(n))) {
            throw Unsupported{};
        }
        for (Value* in : n->inputs()) s.in.push_back(slot(in));
        for (Value* out : n->outputs()) {
            slotOf[out] = p.m_slots;
            s.out.push_back(p.m_slots++);
        }
        p.m_steps.push_back(std::move(s));
        p.m_nodes.push_back(n);
    };
    slot = [&](Value* v) -> size_t {
        if (auto it = slotOf.find(v); it != slotOf.end()) return it->second;
        Node* d = v->node();
        if (d->kind() == c10::prim::Constant) {
            auto c = torch::jit::toIValue(v);
            if (!c) throw Unsupported{};
            p.m_constants.emplace_back(p.m_slots, std::move(*c));
            return slotOf[v] = p.m_slots++;
        }
        if (!remake || !remake(d)) throw Missing{};
        add(d);
        return slotOf.at(v);
    };
    for (Node* n : nodes) {
        if (n->kind() == c10::prim::Constant) continue; // made when something reads it
        add(n);
    }
    for (Value* out : outputs) p.m_outputs.push_back(slot(out));

    // What each step reads last is released after it, as the interpreter's last uses do: a check
    // holds no more memory than a run of the same graph in the interpreter.
    // An output nothing reads goes at once.
    std::vector<size_t> last(p.m_slots, SIZE_MAX);
    for (size_t i = 0; i < p.m_steps.size(); ++i) {
        for (size_t s : p.m_steps[i].in) last[s] = i;
        for (size_t s : p.m_steps[i].out) last[s] = i;
    }
    for (size_t s : p.m_outputs) last[s] = SIZE_MAX;
    for (size_t s = 0; s < p.m_slots; ++s)
        if (last[s] != SIZE_MAX) p.m_steps[last[s]].drop.push_back(s);
    return p;
}

torch::jit::Stack NodeProgram::run(torch::jit::Stack args) const {
    if (args.size() != m_inputs)
        throw std::invalid_argument("node program: " + std::to_string(args.size()) + " arguments for " +
                                    std::to_string(m_inputs) + " inputs");
    std::vector<c10::IValue> slots(m_slots);
    for (size_t i = 0; i < m_inputs; ++i) slots[i] = std::move(args[i]);
    for (const auto& [s, v] : m_constants) slots[s] = v;
    torch::jit::Stack stack;
    for (const Step& s : m_steps) {
        stack.clear();
        for (size_t i : s.in) stack.push_back(slots[i]);
        switch (s.kind) {
        case Kind::Op:
            (*s.op)(stack);
            break;
        case Kind::GetAttr:
            stack.back() = stack.back().toObjectRef().getSlot(s.attr);
            break;
        case Kind::ListConstruct: {
            c10::impl::GenericList list(s.element);
            list.reserve(stack.size());
            for (auto& v : stack) list.push_back(std::move(v));
            stack.assign(1, c10::IValue(std::move(list)));
            break;
        }
        case Kind::TupleConstruct: {
            auto t = c10::ivalue::Tuple::create(std::vector<c10::IValue>(stack.begin(), stack.end()));
            stack.assign(1, c10::IValue(std::move(t)));
            break;
        }
        case Kind::ListUnpack: {
            const auto list = stack.back().toList();
            if (list.size() != s.out.size())
                throw std::runtime_error("expected " + std::to_string(s.out.size()) + " elements in a list, got " +
                                         std::to_string(list.size()));
            stack.assign(list.begin(), list.end());
            break;
        }
        case Kind::TupleUnpack: {
            const auto elements = stack.back().toTupleRef().elements().vec();
            stack.assign(elements.begin(), elements.end());
            break;
        }
        }
        if (stack.size() != s.out.size())
            throw std::runtime_error("an op left " + std::to_string(stack.size()) + " values for " +
                                     std::to_string(s.out.size()) + " outputs");
        for (size_t k = 0; k < s.out.size(); ++k) slots[s.out[k]] = std::move(stack[k]);
        for (size_t d : s.drop) slots[d] = c10::IValue();
    }
    torch::jit::Stack out;
    out.reserve(m_outputs.size());
    for (size_t s : m_outputs) out.push_back(slots[s]);
    return out;
}

} // namespace ks
