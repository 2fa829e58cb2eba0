// SPDX-License-Identifier: MIT
#include "graphmemory.h"

#include <ATen/ATen.h>

#include <algorithm>

namespace ks {

using torch::jit::Graph;
using torch::jit::Node;
using torch::jit::Value;

bool isMutating(const Node* n) {
    if (n->hasSideEffects()) return true;
    const auto* schema = n->maybeSchema();
    return schema && schema->is_mutable();
}

void forEachNested(Node* n, const std::function<void(Node*)>& f) {
    f(n);
    for (auto* b : n->blocks())
        for (Node* inner : b->nodes()) forEachNested(inner, f);
}

bool containsTensor(const c10::TypePtr& t) {
    if (t->kind() == c10::TypeKind::TensorType) return true;
    for (const auto& c : t->containedTypes())
        if (containsTensor(c)) return true;
    return false;
}

MemoryRoots::MemoryRoots(const std::vector<Value*>& roots) {
    for (const Value* v : roots) m_memo.emplace(v, std::vector<const Value*>{v});
}

const MemoryRoots::Set& MemoryRoots::of(const Value* v) {
    if (auto it = m_memo.find(v); it != m_memo.end()) return it->second;
    Set r = std::vector<const Value*>{};
    const Node* n = v->node();
    const auto* schema = n->maybeSchema();
    const bool tensor = v->type()->kind() == c10::TypeKind::TensorType;
    if (!containsTensor(v->type())) {
        // no tensor memory: an int list, a scalar (a write into a list is an unknown write)
    } else if (n->kind() == c10::prim::Param || n->kind() == c10::prim::Constant || n->kind() == c10::prim::GetAttr) {
        r->push_back(v);
    } else if (n->kind() == c10::prim::ListConstruct || n->kind() == c10::prim::TupleConstruct ||
               n->kind() == c10::prim::ListUnpack || n->kind() == c10::prim::TupleUnpack) {
        // a container holds its elements; an element unpacked may be any of the container's
        for (const Value* in : n->inputs()) {
            const Set& e = of(in);
            if (!e) {
                r.reset();
                break;
            }
            r->insert(r->end(), e->begin(), e->end());
        }
    } else if (!tensor || !schema || v->offset() >= schema->returns().size()) {
        r.reset();
    } else if (const c10::AliasInfo* a = schema->returns()[v->offset()].alias_info(); !a) {
        r->push_back(v); // a fresh tensor made by the op
    } else if (a->isWildcardBefore() || a->isWildcardAfter()) {
        r.reset();
    } else {
        for (size_t i = 0; r && i < schema->arguments().size() && i < n->inputs().size(); ++i) {
            const c10::AliasInfo* b = schema->arguments()[i].alias_info();
            if (!b) continue;
            bool shared = b->isWildcardBefore();
            for (const auto& set : a->beforeSets()) shared = shared || b->beforeSets().count(set) > 0;
            if (!shared) continue;
            const Set& in = of(n->input(i));
            if (!in || b->isWildcardBefore()) r.reset();
            else r->insert(r->end(), in->begin(), in->end());
        }
    }
    return m_memo.emplace(v, std::move(r)).first->second;
}

MemoryRoots::Set MemoryRoots::written(const Node* x) {
    if (x->kind() == c10::prim::RaiseException || x->kind() == c10::prim::Print || x->kind() == c10::aten::warn)
        return std::vector<const Value*>{};
    const auto* schema = x->maybeSchema();
    if (!schema) return std::nullopt;
    std::vector<const Value*> out;
    bool named = false;
    for (size_t i = 0; i < schema->arguments().size() && i < x->inputs().size(); ++i) {
        const c10::AliasInfo* b = schema->arguments()[i].alias_info();
        if (!b || !b->isWrite()) continue;
        if (x->input(i)->type()->kind() != c10::TypeKind::TensorType || b->isWildcardBefore()) return std::nullopt;
        const Set& in = of(x->input(i));
        if (!in) return std::nullopt;
        out.insert(out.end(), in->begin(), in->end());
        named = true;
    }
    if (!named) return std::nullopt;
    return out;
}

bool MemoryRoots::changes(const Set& w, const Value* v) {
    if (!w) return true;
    if (w->empty()) return false;
    const Set& r = of(v);
    if (!r) return true;
    for (const Value* a : *r)
        if (std::find(w->begin(), w->end(), a) != w->end()) return true;
    return false;
}

std::vector<bool> writtenInputs(const std::vector<Node*>& nodes, const std::vector<Value*>& inputs) {
    MemoryRoots roots(inputs);
    std::vector<MemoryRoots::Set> writes;
    for (Node* top : nodes)
        forEachNested(top, [&](Node* x) {
            if (isMutating(x)) writes.push_back(roots.written(x));
        });
    std::vector<bool> out;
    for (const Value* in : inputs) {
        bool w = false;
        for (const auto& set : writes) w = w || roots.changes(set, in);
        out.push_back(w);
    }
    return out;
}

std::vector<bool> writtenInputs(Graph& g) {
    return writtenInputs({g.nodes().begin(), g.nodes().end()}, {g.inputs().begin(), g.inputs().end()});
}

const c10::StorageImpl* storageOf(const c10::IValue& v) {
    if (!v.isTensor()) return nullptr;
    const at::Tensor& t = v.toTensor();
    return t.defined() && t.layout() == at::kStrided && t.has_storage() ? t.storage().unsafeGetStorageImpl() : nullptr;
}

bool cloneTogether(torch::jit::Stack& stack, const std::vector<bool>& which) {
    std::unordered_map<const c10::StorageImpl*, at::Tensor> copies; // marked storages -> their copy
    for (size_t i = 0; i < stack.size(); ++i) {
        if (!which[i] || !stack[i].isTensor() || !stack[i].toTensor().defined()) continue;
        if (const auto* key = storageOf(stack[i])) copies.emplace(key, at::Tensor());
        else stack[i] = stack[i].toTensor().clone();
    }
    for (auto& v : stack) {
        const auto* key = storageOf(v);
        auto it = key ? copies.find(key) : copies.end();
        if (it == copies.end()) continue;
        const at::Tensor t = v.toTensor();
        if (!it->second.defined()) {
            const auto item = static_cast<size_t>(t.element_size());
            if (item == 0 || t.storage().nbytes() % item != 0) return false;
            const auto n = static_cast<int64_t>(t.storage().nbytes() / item);
            it->second = t.as_strided({n}, {1}, 0).clone();
        } else if (it->second.scalar_type() != t.scalar_type()) {
            return false;
        }
        v = it->second.as_strided(t.sizes(), t.strides(), t.storage_offset());
    }
    return true;
}

torch::jit::Stack copiedArgs(const std::vector<c10::IValue>& args) {
    torch::jit::Stack stack;
    for (const auto& a : args) stack.push_back(a.isTensor() ? c10::IValue(a.toTensor().clone()) : a);
    return stack;
}

} // namespace ks
