// SPDX-License-Identifier: MIT
// Filter 6: redundant computation, found on the task's TorchScript graph in three passes.
//  1. Observe: run the graph on a few seeds with every top-level tensor exposed as an extra output,
//     to learn shapes (for bypasses and FLOPs) and which ops yield one constant whatever the input.
//  2. Ablate: replace constant-output ops by their constant, then, from the output backwards,
//     bypass each op (its output := an input of the same shape, or an earlier identical node) and
//     keep the bypass when the task output stays equal on every seed and stays finite wherever it
//     was on an all-zero input (so epsilon guards against 0/0 and log 0 are not "redundant").
//  3. Dataflow: whatever no longer reaches the output's values only fed redundant ops; whatever
//     never did was dead in the task as written.
// Bypasses are kept greedily, so two ops that each make the other unnecessary are reported once.

#include "ks/core/redundancy.h"
#include "ks/core/operands.h"
#include "ks/core/analysisreports.h"

#include "ks/core/engine.h"
#include "ks/core/torchtask.h"

#include <torch/csrc/jit/api/function_impl.h>
#include <torch/csrc/jit/api/module.h>
#include <torch/csrc/jit/ir/ir.h>
#include <torch/csrc/jit/passes/constant_pooling.h>
#include <torch/csrc/jit/passes/dead_code_elimination.h>
#include <torch/csrc/jit/passes/inliner.h>
#include <torch/csrc/jit/runtime/interpreter.h>
#include <torch/csrc/jit/serialization/import.h>
#include <ATen/ATen.h>
#include <c10/core/GradMode.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <sstream>
#include <limits>
#include <unordered_map>
#include <unordered_set>

namespace ks {

using torch::jit::Graph;
using torch::jit::Node;
using torch::jit::Value;

namespace {

bool isTensor(const Value* v) { return v->type()->kind() == c10::TypeKind::TensorType; }

bool kindIn(const Node* n, std::initializer_list<const char*> names) {
    const std::string k = n->kind().toQualString();
    for (const char* name : names)
        if (k == name) return true;
    return false;
}

// Ops that read only a tensor's metadata: a tensor used only through them is dead as values.
bool isMetaOp(const Node* n) {
    return kindIn(n, {"aten::size", "aten::sizes", "aten::dim", "aten::numel", "aten::len", "prim::dtype",
                      "prim::device", "prim::layout", "prim::is_cuda", "prim::shape", "aten::is_floating_point",
                      "prim::requires_grad", "aten::stride"});
}

// Views, copies and reshapes: no arithmetic, and often demanded by the calling convention, so
// ablation leaves them alone (they can still be dead).
bool isLayoutOp(const Node* n) {
    return kindIn(n, {"aten::view", "aten::reshape", "aten::contiguous", "aten::t", "aten::transpose",
                      "aten::permute", "aten::squeeze", "aten::unsqueeze", "aten::flatten", "aten::unflatten",
                      "aten::expand", "aten::expand_as", "aten::view_as", "aten::reshape_as", "aten::to",
                      "aten::type_as", "aten::detach", "aten::alias", "aten::select", "aten::slice",
                      "aten::narrow", "aten::clone", "aten::chunk", "aten::split", "aten::unbind",
                      "aten::numpy_T", "aten::mT", "aten::movedim", "aten::as_strided", "aten::unfold",
                      "aten::__getitem__", "aten::cat", "aten::stack", "aten::index_select"});
}

// Layout ops that copy their data (`clone`, `contiguous` of a strided tensor): the one kind of
// layout op the ablation tries, since a kernel that skips the copy saves its bytes. Reported with
// the bytes moved instead of FLOPs (they do none).
bool isCopyOp(const Node* n) {
    return kindIn(n, {"aten::clone", "aten::contiguous"});
}

// Ops whose constant output is their purpose (factories), never "redundant".
bool isFactoryOp(const Node* n) {
    const std::string k = n->kind().toQualString();
    if (k.size() > 5 && k.compare(k.size() - 5, 5, "_like") == 0) return true;
    return kindIn(n, {"aten::zeros", "aten::ones", "aten::full", "aten::empty", "aten::arange", "aten::eye",
                      "aten::new_zeros", "aten::new_ones", "aten::new_full", "aten::new_empty", "aten::tensor",
                      "aten::scalar_tensor", "aten::linspace"});
}

bool isMutating(const Node* n) {
    if (n->hasSideEffects()) return true;
    const auto* schema = n->maybeSchema();
    return schema && schema->is_mutable();
}

struct Observed {
    std::vector<int64_t> sizes;
    at::ScalarType dtype = at::kFloat;
    bool constant = true; // one value on every element and seed
    double value = 0;     // that value (seed 0's first element)
    // Seed 0's tensor was contiguous: a `contiguous()` of it copies nothing.
    bool contiguous = true;
};

struct Liveness {
    std::unordered_set<const Node*> nodes;
    std::unordered_set<const Value*> values;
};

// Which nodes and values reach the output as values: a backward walk from the graph outputs
// (and from side-effecting or mutating nodes) that does not follow metadata reads into tensors.
Liveness liveness(Graph& g) {
    Liveness l;
    std::vector<Value*> work(g.outputs().begin(), g.outputs().end());
    std::function<void(Node*)> markNode = [&](Node* n) {
        if (n == g.param_node() || !l.nodes.insert(n).second) return;
        const bool meta = isMetaOp(n);
        for (Value* in : n->inputs())
            if (!(meta && isTensor(in))) work.push_back(in);
        // Nested blocks (if/loop bodies) are kept whole: everything inside counts as used.
        for (auto* b : n->blocks()) {
            for (Value* out : b->outputs()) work.push_back(out);
            for (Node* inner : b->nodes()) markNode(inner);
        }
    };
    for (Node* n : g.nodes())
        if (isMutating(n)) markNode(n);
    while (!work.empty()) {
        Value* v = work.back();
        work.pop_back();
        if (!l.values.insert(v).second) continue;
        markNode(v->node());
    }
    return l;
}

double product(const std::vector<int64_t>& s, size_t from = 0) {
    double p = 1;
    for (size_t i = from; i < s.size(); ++i) p *= static_cast<double>(s[i]);
    return p;
}

std::string oneLine(std::string s) {
    for (char& c : s)
        if (c == '\n') c = ' ';
    const auto a = s.find_first_not_of(' ');
    const auto b = s.find_last_not_of(' ');
    return a == std::string::npos ? std::string() : s.substr(a, b - a + 1);
}

class Analysis {
public:
    Analysis(const TaskSpec& spec, const RedundancyOptions& opt, RedundancyReport& rep)
        : m_spec(spec), m_opt(opt), m_rep(rep) {}

    void run(const DeviceInfo& dev);

private:
    void loadGraph();
    std::vector<c10::IValue> runGraph(const std::vector<c10::IValue>& args, const std::vector<Value*>& extra);
    void observe();
    bool outputUnchanged();
    double flops(const Node* n) const;
    double numel(const Value* v) const;
    const Observed* info(const Value* v) const {
        const auto it = m_obs.find(v);
        return it == m_obs.end() ? nullptr : &it->second;
    }
    void addNode(Node* n, RedundantNode::Kind kind, std::string reason, double bytes = 0);
    Value* liveOutput(Node* n, const Liveness& live) const;
    double copyBytes(const Node* n) const;
    void constantPass();
    void bypassPass();
    void dataflowReport();

    const TaskSpec& m_spec;
    const RedundancyOptions& m_opt;
    RedundancyReport& m_rep;
    at::Device m_device{at::kCPU};
    CompiledTask m_task;
    std::shared_ptr<torch::jit::Module> m_module; // imported tasks: the artifact on m_device
    std::shared_ptr<Graph> m_graph;                // working copy; bypasses are applied to it
    size_t m_firstArg = 0;                         // 1 when input 0 is the module's `self`
    std::vector<Node*> m_top;                      // top-level nodes of the original graph, in order
    std::unordered_map<const Value*, Observed> m_obs;
    std::vector<std::vector<c10::IValue>> m_checkArgs; // seeds, then the all-zero-input run
    std::vector<at::Tensor> m_reference;               // the original output for each of m_checkArgs
    Liveness m_original;
    std::unordered_set<const Node*> m_reported;
    std::unordered_set<const Value*> m_untainted; // values that no longer depend on the inputs
};

void Analysis::loadGraph() {
    m_task = compileTask(m_spec);
    if (m_task.module) {
        m_module = m_device.is_cpu() ? m_task.module
                                     : std::make_shared<torch::jit::Module>(torch::jit::load(m_spec.artifactPath, m_device));
        m_graph = m_module->get_method(m_spec.entry).graph()->copy();
        m_firstArg = 1;
    } else {
        m_graph = torch::jit::toGraphFunction(*m_task.fn).graph()->copy();
    }
    inlineAllCalls(*m_graph);
    torch::jit::ConstantPooling(m_graph);
    if (m_graph->outputs().size() != 1 || !isTensor(m_graph->outputs()[0]))
        m_rep.notes.push_back("the graph output is not typed Tensor; checked at run time");
    for (Node* n : m_graph->nodes()) {
        m_top.push_back(n);
        if (!n->blocks().empty())
            m_rep.notes.push_back(std::string(n->kind().toQualString()) +
                                  " with nested blocks is kept whole: ops inside it are not ablated");
    }
}

std::vector<c10::IValue> Analysis::runGraph(const std::vector<c10::IValue>& args, const std::vector<Value*>& extra) {
    const size_t base = m_graph->outputs().size();
    for (Value* v : extra) m_graph->registerOutput(v);
    std::shared_ptr<Graph> copy = m_graph->copy();
    while (m_graph->outputs().size() > base) m_graph->eraseOutput(m_graph->outputs().size() - 1);
    torch::jit::Code code(copy, "ks_redundancy");
    torch::jit::InterpreterState state(code);
    // Fresh copies of the tensors: an in-place op in the task must not change the next run's inputs.
    torch::jit::Stack stack;
    for (const auto& a : args) stack.push_back(a.isTensor() ? c10::IValue(a.toTensor().clone()) : a);
    seedAll(977); // random ops in the task draw the same numbers on every run
    state.run(stack);
    return stack;
}

void Analysis::observe() {
    std::vector<Value*> extra;
    for (Node* n : m_top)
        for (Value* v : n->outputs())
            if (isTensor(v)) extra.push_back(v);
    for (int s = 0; s < m_rep.seeds; ++s) {
        const auto& args = m_checkArgs[static_cast<size_t>(s)];
        auto out = runGraph(args, extra);
        if (out.empty() || !out[0].isTensor())
            throw Error("'" + m_spec.entry + "' must return one Tensor, got " + (out.empty() ? "nothing" : out[0].tagKind()));
        m_reference.push_back(out[0].toTensor());
        auto record = [&](const Value* v, const at::Tensor& t) {
            auto& o = m_obs[v];
            if (s == 0) {
                o.sizes = t.sizes().vec();
                o.dtype = t.scalar_type();
                o.contiguous = t.is_contiguous();
                o.constant = t.numel() > 0 && !t.is_complex();
                if (o.constant) o.value = t.reshape(-1)[0].item<double>();
            } else if (t.sizes().vec() != o.sizes) {
                o.constant = false;
            }
            if (o.constant) {
                const auto d = t.to(at::kDouble);
                o.constant = at::allclose(d, at::full_like(d, o.value), m_opt.rtol, m_opt.atol, /*equal_nan=*/true);
            }
        };
        for (size_t i = 0; i < m_graph->inputs().size(); ++i)
            if (args[i].isTensor()) record(m_graph->inputs()[i], args[i].toTensor());
        for (size_t i = 0; i < extra.size(); ++i)
            if (out[1 + i].isTensor()) record(extra[i], out[1 + i].toTensor());
    }
    // The zero-input run's reference: epsilon guards and clamps against zero only matter there.
    auto zero = runGraph(m_checkArgs.back(), {});
    m_reference.push_back(zero.at(0).toTensor());
}

bool Analysis::outputUnchanged() {
    for (size_t r = 0; r < m_checkArgs.size(); ++r) {
        at::Tensor out;
        try {
            auto res = runGraph(m_checkArgs[r], {});
            if (res.empty() || !res[0].isTensor()) return false;
            out = res[0].toTensor();
        } catch (const std::exception&) {
            return false; // the bypass broke the graph (shapes, dtypes): not a valid removal
        }
        const at::Tensor& ref = m_reference[r];
        if (out.sizes() != ref.sizes()) return false;
        // The all-zero input is degenerate (normalisations of it see no variance), so it only
        // vetoes a bypass that turns finite values into inf/NaN: what epsilon guards exist for.
        if (r + 1 == m_checkArgs.size()) {
            if (!at::equal(at::isfinite(out), at::isfinite(ref))) return false;
            continue;
        }
        if (!at::allclose(out.to(at::kDouble), ref.to(at::kDouble), m_opt.rtol, m_opt.atol, /*equal_nan=*/true))
            return false;
    }
    return true;
}

double Analysis::numel(const Value* v) const {
    const Observed* o = info(v);
    return o ? product(o->sizes) : 0.0;
}

double Analysis::flops(const Node* n) const {
    if (!n->kind().is_aten() || n->outputs().empty() || !isTensor(n->output(0)) || isLayoutOp(n)) return 0;
    const Observed* out = info(n->output(0));
    if (!out) return 0;
    const double outNumel = product(out->sizes);
    auto sizesOf = [&](size_t i) -> std::vector<int64_t> {
        if (i >= n->inputs().size()) return {};
        const Observed* o = info(n->input(i));
        return o ? o->sizes : std::vector<int64_t>{};
    };
    if (kindIn(n, {"aten::matmul", "aten::mm", "aten::bmm", "aten::linear"})) {
        const auto a = sizesOf(0);
        return a.empty() ? 0 : 2.0 * outNumel * static_cast<double>(a.back());
    }
    if (kindIn(n, {"aten::addmm", "aten::baddbmm", "aten::addbmm"})) {
        const auto a = sizesOf(1);
        return a.empty() ? 0 : 2.0 * outNumel * static_cast<double>(a.back());
    }
    const bool conv = kindIn(n, {"aten::conv1d", "aten::conv2d", "aten::conv3d"});
    bool convT = kindIn(n, {"aten::conv_transpose1d", "aten::conv_transpose2d", "aten::conv_transpose3d"});
    if (kindIn(n, {"aten::convolution", "aten::_convolution"}) && n->inputs().size() > 6) {
        const auto t = torch::jit::toIValue(n->input(6));
        convT = t && t->isBool() && t->toBool();
        if (!convT) {
            const auto w = sizesOf(1);
            return w.size() < 2 ? 0 : 2.0 * outNumel * product(w, 1);
        }
    }
    if (conv) {
        const auto w = sizesOf(1); // [Cout, Cin/groups, k...]
        return w.size() < 2 ? 0 : 2.0 * outNumel * product(w, 1);
    }
    if (convT) {
        const auto w = sizesOf(1); // [Cin, Cout/groups, k...]: every input element meets Cout/groups*k weights
        return w.size() < 2 ? 0 : 2.0 * numel(n->input(0)) * product(w, 1);
    }
    // Elementwise ops and reductions: one operation per element of the larger side.
    double most = outNumel;
    for (const Value* in : n->inputs())
        if (isTensor(in)) most = std::max(most, numel(in));
    return most;
}

void Analysis::addNode(Node* n, RedundantNode::Kind kind, std::string reason, double bytes) {
    m_reported.insert(n);
    RedundantNode r;
    r.kind = kind;
    r.op = n->kind().toQualString();
    r.reason = std::move(reason);
    std::ostringstream os;
    n->print(os, 0, nullptr, /*print_source_locations=*/false);
    r.node = oneLine(os.str());
    const SourceLine at = taskSourceLine(n, m_spec); // the task file's line, for traced tasks too
    r.line = at.line;
    r.sourceText = at.text;
    r.flops = flops(n);
    r.bytes = bytes;
    m_rep.redundantFlops += r.flops;
    m_rep.nodes.push_back(std::move(r));
}

std::string describe(const Value* v) { return "%" + v->debugName(); }

void Analysis::constantPass() {
    // Values that depend on the task's inputs. Constant-initialised tensors (norm weights of one,
    // biases of zero) and module attributes do not: an op on them alone is a constant by design.
    for (size_t i = 0; i < m_graph->inputs().size(); ++i) {
        if (i < m_firstArg) {
            m_untainted.insert(m_graph->inputs()[i]);
            continue;
        }
        const size_t k = i - m_firstArg;
        const TensorSpec* t = k < m_spec.inputs.size() ? &m_spec.inputs[k]
                              : k - m_spec.inputs.size() < m_spec.params.size() ? &m_spec.params[k - m_spec.inputs.size()]
                                                                                 : nullptr;
        if (t && t->init.kind == Distribution::Kind::Constant && t->post.empty())
            m_untainted.insert(m_graph->inputs()[i]);
    }
    std::unordered_set<const Value*> tainted;
    for (size_t i = 0; i < m_graph->inputs().size(); ++i)
        if (!m_untainted.count(m_graph->inputs()[i])) tainted.insert(m_graph->inputs()[i]);
    const Liveness live = liveness(*m_graph);
    for (Node* n : m_top) {
        bool anyTaintedTensor = false, anyTainted = false;
        for (const Value* in : n->inputs()) {
            if (!tainted.count(in)) continue;
            anyTainted = true;
            anyTaintedTensor = anyTaintedTensor || isTensor(in);
        }
        Value* out = n->kind().is_aten() ? liveOutput(n, live) : nullptr;
        const bool candidate = out && anyTaintedTensor && !isMutating(n) && !isFactoryOp(n) &&
                               !isLayoutOp(n) && !n->isNondeterministic();
        const Observed* o = candidate ? info(out) : nullptr;
        if (o && o->constant) {
            at::Tensor c = at::full(o->sizes, o->value, at::TensorOptions().dtype(o->dtype).device(m_device));
            Value* cv = nullptr;
            {
                torch::jit::WithInsertPoint guard(m_graph->nodes().front());
                cv = m_graph->insertConstant(c);
            }
            out->replaceAllUsesWith(cv);
            char buf[64];
            std::snprintf(buf, sizeof buf, "%.6g", o->value);
            addNode(n, RedundantNode::Kind::ConstantOutput,
                    "yields the constant " + std::string(buf) + " on every element for every input (" +
                        std::to_string(m_rep.seeds) + " seeds); replacing it by that constant changes nothing");
            continue; // its output is now untainted
        }
        if (anyTainted && !isMetaOp(n))
            for (const Value* out : n->outputs()) tainted.insert(out);
    }
}

// The one output of `n` whose values reach the task output, when it is a tensor; nullptr when
// none or several do. Multi-output ops (`max` with indices, `var_mean`) are ablated through it:
// the other outputs feed nothing that matters.
Value* Analysis::liveOutput(Node* n, const Liveness& live) const {
    Value* found = nullptr;
    for (Value* v : n->outputs()) {
        if (!live.values.count(v)) continue;
        if (found) return nullptr;
        found = v;
    }
    return found && isTensor(found) ? found : nullptr;
}

// Bytes a copy op moves (read + write); 0 when it copies nothing (`contiguous` of a contiguous
// tensor returns the tensor itself).
double Analysis::copyBytes(const Node* n) const {
    const Observed* in = info(n->input(0));
    if (!in || (n->kind() == c10::aten::contiguous && in->contiguous)) return 0;
    return 2.0 * product(in->sizes) * static_cast<double>(c10::elementSize(in->dtype));
}

namespace {
// `a` without its size-1 dims equals `b` without its size-1 dims: a reshape between them only
// adds or drops unit axes (a mean over a size-1 axis without keepdim, a squeeze done by
// arithmetic).
bool sameUpToUnitDims(const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
    std::vector<int64_t> x, y;
    for (int64_t d : a)
        if (d != 1) x.push_back(d);
    for (int64_t d : b)
        if (d != 1) y.push_back(d);
    return x == y;
}

// `from` broadcasts to `to` (numpy rules) and is smaller: an expand can stand in for an op that
// only repeats its input along broadcast axes.
bool broadcastsTo(const std::vector<int64_t>& from, const std::vector<int64_t>& to) {
    if (from.size() > to.size() || product(from) >= product(to)) return false;
    for (size_t i = 0; i < from.size(); ++i) {
        const int64_t f = from[from.size() - 1 - i], t = to[to.size() - 1 - i];
        if (f != t && f != 1) return false;
    }
    return true;
}

std::string sizesText(const std::vector<int64_t>& s) {
    std::string out = "[";
    for (size_t i = 0; i < s.size(); ++i)
        out += (i ? ", " : "") + std::to_string(s[i]);
    return out + "]";
}
} // namespace

void Analysis::bypassPass() {
    for (auto it = m_top.rbegin(); it != m_top.rend(); ++it) {
        Node* n = *it;
        const bool copy = isCopyOp(n);
        if (m_reported.count(n) || !n->kind().is_aten() || n->outputs().empty() || isMutating(n) ||
            (isLayoutOp(n) && !copy) || isMetaOp(n) || !n->blocks().empty())
            continue;
        Value* out =
            liveOutput(n, liveness(*m_graph)); // none: already cut off by an earlier bypass
        if (!out) continue;
        const Observed* o = info(out);
        if (!o) continue;
        const double bytes = copy ? copyBytes(n) : 0.0;
        if (copy && bytes == 0) continue; // a copy that copies nothing costs nothing to keep
        ++m_rep.opsExamined;
        // A candidate stands in for `out`: an existing value, or (shape != out's) one made from an
        // input by a reshape or an expand inserted just before `n`, removed again if rejected.
        struct Candidate {
            Value* value;
            RedundantNode::Kind kind;
            std::string why;
            enum class Make { None, Reshape, Expand } make = Make::None;
        };
        std::vector<Candidate> candidates;
        // An earlier node with the same op on the same inputs (constants are pooled, so equal
        // arguments are the same value).
        const size_t outIndex = out->offset();
        for (Node* m : m_top) {
            if (m == n) break;
            if (m->kind() != n->kind() || m->outputs().size() != n->outputs().size() ||
                m->inputs().size() != n->inputs().size() || m_reported.count(m))
                continue;
            if (std::equal(m->inputs().begin(), m->inputs().end(), n->inputs().begin()))
                candidates.push_back({m->output(outIndex), RedundantNode::Kind::Duplicate,
                                      "same op on the same inputs as " +
                                          describe(m->output(outIndex)) +
                                          "; reusing that result leaves the output unchanged"});
        }
        const std::string what = copy ? "a copy of " : "bypassed by its input ";
        for (size_t i = 0; i < n->inputs().size(); ++i) {
            Value* in = n->input(i);
            const Observed* io = info(in);
            if (!isTensor(in) || !io || io->dtype != o->dtype) continue;
            if (io->sizes == o->sizes)
                candidates.push_back(
                    {in, RedundantNode::Kind::NoEffect,
                     copy ? what + describe(in) +
                                " that nothing needs; the output is unchanged without it"
                          : what + describe(in) + ", the output is unchanged"});
            else if (copy)
                continue;
            else if (sameUpToUnitDims(io->sizes, o->sizes))
                candidates.push_back({in, RedundantNode::Kind::NoEffect,
                                      what + describe(in) + " reshaped to " + sizesText(o->sizes) +
                                          ", the output is unchanged",
                                      Candidate::Make::Reshape});
            else if (broadcastsTo(io->sizes, o->sizes))
                candidates.push_back({in, RedundantNode::Kind::NoEffect,
                                      what + describe(in) + " expanded to " + sizesText(o->sizes) +
                                          ", the output is unchanged",
                                      Candidate::Make::Expand});
        }
        for (const auto& c : candidates) {
            Value* stand = c.value;
            Node* made = nullptr;
            if (c.make != Candidate::Make::None) {
                torch::jit::WithInsertPoint guard(n);
                stand = m_graph->insert(c.make == Candidate::Make::Reshape ? c10::aten::reshape
                                                                           : c10::aten::expand,
                                        {c.value, c10::IValue(o->sizes)});
                made = stand->node();
            }
            const auto uses = out->uses();
            out->replaceAllUsesWith(stand);
            if (outputUnchanged()) {
                addNode(n, c.kind,
                        c.why + " (" + std::to_string(m_rep.seeds) +
                            " seeds and an all-zero input)" +
                            (copy ? "; it moves " + std::to_string(static_cast<long long>(bytes)) +
                                        " bytes"
                                  : ""),
                        bytes);
                break;
            }
            for (const auto& u : uses)
                u.user->replaceInput(u.offset, out);
            if (made) {
                Node* sizes = made->inputs().size() > 1 ? made->input(1)->node() : nullptr;
                made->destroy();
                if (sizes && sizes->kind() == c10::prim::Constant && !sizes->output()->hasUses())
                    sizes->destroy();
            }
        }
    }
}

void Analysis::dataflowReport() {
    const Liveness now = liveness(*m_graph);
    std::vector<RedundantNode> ordered;
    for (Node* n : m_top) {
        if (m_reported.count(n) || n->outputs().empty() || !isTensor(n->output(0))) continue;
        if (!m_original.nodes.count(n)) {
            bool shapeOnly = false;
            for (const auto& u : n->output(0)->uses()) shapeOnly = shapeOnly || isMetaOp(u.user);
            addNode(n, RedundantNode::Kind::Dead,
                    shapeOnly ? "its values never reach the output; only its shape is read"
                              : "its values never reach the output");
        } else if (!now.nodes.count(n) && n->kind().is_aten()) {
            addNode(n, RedundantNode::Kind::FeedsRedundant, "its result only feeds the redundant ops listed here");
        }
    }
    for (size_t i = m_firstArg; i < m_graph->inputs().size(); ++i) {
        const Value* v = m_graph->inputs()[i];
        const size_t k = i - m_firstArg;
        UnusedArgument a;
        a.isParam = k >= m_spec.inputs.size();
        a.name = !a.isParam ? m_spec.inputs[k].name
                 : k - m_spec.inputs.size() < m_spec.params.size() ? m_spec.params[k - m_spec.inputs.size()].name
                                                                    : v->debugName();
        if (v->uses().empty()) {
            a.reason = "never used";
        } else if (!m_original.values.count(v)) {
            bool allMeta = true;
            for (const auto& u : v->uses()) allMeta = allMeta && isMetaOp(u.user);
            a.reason = allMeta ? "only its shape is used" : "only feeds dead ops";
        } else if (!now.values.count(v)) {
            a.reason = "only feeds redundant ops";
        } else {
            continue;
        }
        m_rep.unused.push_back(a);
    }
    // Report in graph order, dead first: easier to read next to the source.
    std::stable_sort(m_rep.nodes.begin(), m_rep.nodes.end(), [](const RedundantNode& a, const RedundantNode& b) {
        return a.line != b.line ? a.line < b.line : false;
    });
}

void Analysis::run(const DeviceInfo& dev) {
    m_rep.device = dev.device;
    m_device = dev.device == "cuda" ? at::Device(at::kCUDA, 0) : at::Device(at::kCPU);
    m_rep.preset = m_opt.preset.value_or(dev.device == "cuda" ? Preset::Full : Preset::Small);
    m_rep.seeds = std::max(1, m_opt.seeds);
    loadGraph();
    // Inputs and parameters of each seed, those the statistical filters ran (the engine's own,
    // drawn once for every filter), then seed 0's parameters with all-zero inputs.
    OperandSource* src = m_opt.operands;
    std::unique_ptr<OperandSource> own;
    if (!src) src = (own = OperandSource::forSeeds(m_spec, m_rep.preset, m_device, m_opt.cpuGenerator, m_rep.seeds)).get();
    for (int s = 0; s <= m_rep.seeds; ++s) {
        auto [inputs, params] = src->seed(s < m_rep.seeds ? s : 0);
        if (s == m_rep.seeds)
            for (auto& t : inputs) t = at::zeros_like(t);
        std::vector<c10::IValue> args;
        if (m_module) args.emplace_back(m_module->_ivalue());
        for (auto& t : inputs) args.emplace_back(t);
        for (auto& t : params) args.emplace_back(t);
        if (args.size() != m_graph->inputs().size())
            throw Error("the graph takes " + std::to_string(m_graph->inputs().size()) + " arguments, the spec gives " +
                        std::to_string(args.size()));
        m_checkArgs.push_back(std::move(args));
    }
    observe();
    m_original = liveness(*m_graph);
    for (const Node* n : m_top) m_rep.totalFlops += flops(n);
    constantPass();
    bypassPass();
    dataflowReport();
    if (m_opt.keepReducedGraph && !m_rep.nodes.empty()) {
        auto reduced = m_graph->copy();
        torch::jit::EliminateDeadCode(reduced);
        m_rep.reducedGraph = std::move(reduced);
    }
}

} // namespace

RedundancyReport analyzeRedundancy(const TaskSpec& spec, const RedundancyOptions& options) {
    RedundancyReport rep;
    rep.taskId = spec.id;
    rep.taskName = spec.name;
    const auto t0 = std::chrono::steady_clock::now();
    const DeviceInfo dev = probeDevice(options.device); // a bad device request is the caller's error
    at::NoGradGuard noGrad;
    Analysis a(spec, options, rep);
    try {
        a.run(dev);
    } catch (const Error& e) {
        const std::string msg = e.what();
        rep.error = msg.rfind("task ", 0) == 0 ? msg : "task " + spec.id + ": " + msg;
    } catch (const std::exception& e) {
        rep.error = "task " + spec.id + ": redundancy analysis failed: " + shortError(e);
    }
    rep.wallSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return rep;
}

std::string redundancyReportsToJson(const std::vector<RedundancyReport>& reports, const RedundancyOptions& options) {
    using json = nlohmann::json;
    json tasks = json::array();
    for (const auto& r : reports) tasks.push_back(redundancyReportToJson(r)); // as in a results file
    json root = {{"kind", "kernelsieve.redundancy"},
                 {"format_version", 1},
                 {"tool_version", toolVersion()},
                 {"rtol", options.rtol},
                 {"atol", options.atol},
                 {"tasks", tasks}};
    return root.dump(2) + "\n";
}

} // namespace ks
