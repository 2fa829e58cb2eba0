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
// A check runs only the graph after the latest cut before its candidate, from values the graph
// before the cut computed once (planCuts; docs/redundancy.md, "Check runs").

#include "ks/core/redundancy.h"
#include "ks/core/operands.h"
#include "ks/core/analysisreports.h"

#include "ks/core/engine.h"
#include "ks/core/torchtask.h"
#include "nodeflops.h"
#include "graphmemory.h"
#include "nodeprogram.h"
#include "compareslices.h"

#include <torch/csrc/jit/api/function_impl.h>
#include <torch/csrc/jit/api/module.h>
#include <torch/csrc/jit/ir/constants.h>
#include <torch/csrc/jit/ir/ir.h>
#include <torch/csrc/jit/passes/constant_pooling.h>
#include <torch/csrc/jit/passes/dead_code_elimination.h>
#include <torch/csrc/jit/passes/inliner.h>
#include <torch/csrc/jit/runtime/interpreter.h>
#include <ATen/ATen.h>
#include <c10/core/GradMode.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cmath>
#include <cstdio>
#include <functional>
#include <sstream>
#include <limits>
#include <map>
#include <optional>
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

// The comparisons below and allCloseBySlices (compareslices.h) go a slice at a time, in float64.

// Every element of `a` close to `value` (allclose against a tensor full of it, in float64).
bool allCloseToValue(const at::Tensor& a, double value, double rtol, double atol) {
    return everySlice(a, at::Tensor(), [&](const at::Tensor& x, const at::Tensor&) {
        const at::Tensor d = x.to(at::kDouble);
        return at::allclose(d, at::full_like(d, value), rtol, atol, /*equal_nan=*/true);
    });
}

// Finite in `a` exactly where finite in `b` (same sizes).
bool sameFiniteness(const at::Tensor& a, const at::Tensor& b) {
    return everySlice(a, b, [](const at::Tensor& x, const at::Tensor& y) {
        return at::equal(at::isfinite(x), at::isfinite(y));
    });
}

// Why the check runs' arguments may not all stay on the device (empty: they may): on CUDA with a
// known memory size, `seeds + 1` sets beside one forward (the import's measured peak, else two
// sets) and a sixteenth spare must fit. The references and a run's copies come on top:
// analyzeRedundancy still falls back to one set at a time when holding them all runs out of memory.
std::string checkSetsMisfit(const TaskSpec& spec, const RedundancyOptions& o, const DeviceInfo& dev) {
    if (o.deviceBytes <= 0 || dev.device != "cuda") return "";
    try {
        const int64_t set = operandDeviceBytes(spec, o.preset.value_or(Preset::Full));
        const int64_t peak = importPeakAt(spec, set);
        const int64_t forward = peak > 0 ? peak : 2 * set;
        const int runs = std::max(1, o.seeds) + 1;
        if (runs * set + forward <= o.deviceBytes - o.deviceBytes / 16) return "";
        char buf[300];
        std::snprintf(buf, sizeof buf,
                      "%d check runs' arguments of %.2f GiB each beside a forward of %.2f GiB%s would not fit in "
                      "the %.2f GiB this worker may use",
                      runs, static_cast<double>(set) / (1 << 30), static_cast<double>(forward) / (1 << 30),
                      peak > 0 ? " (measured at import)" : " (estimated)", static_cast<double>(o.deviceBytes) / (1 << 30));
        return buf;
    } catch (const std::exception&) {
        return ""; // an unresolvable shape: the run reports it
    }
}

class Analysis {
public:
    // oneSet: hold one check run's arguments on the device at a time (checkArgs()).
    Analysis(const TaskSpec& spec, const RedundancyOptions& opt, RedundancyReport& rep, bool oneSet)
        : m_spec(spec), m_opt(opt), m_rep(rep), m_oneSet(oneSet) {}

    void run(const DeviceInfo& dev);

private:
    // A cut: the point just before top-level node m_top[top]. The nodes before it are the same in
    // every check of a candidate at or after it (bypasses go from the output backwards), so a check
    // runs only the graph after it, from what the nodes before it computed (saved once per check
    // run, before the ablation; docs/redundancy.md, "Check runs").
    struct Cut {
        size_t top = 0;
        std::vector<Value*> values; // what the graph after the cut reads of what came before it
        std::vector<size_t> slots;  // their places in m_saved[r]
    };
    // What one run executes: the nodes one by one, or (nested blocks, a node the interpreter
    // handles itself, KS_NODE_RUNS=0) interpreter code built for a copy of them.
    struct Program {
        std::optional<NodeProgram> nodes;
        std::optional<torch::jit::Code> code;
        std::vector<bool> copy; // inputs a run copies first: those it may write into
    };
    // One candidate's programs: the graph after a cut (when one serves) and the whole graph.
    struct Check {
        std::optional<Program> full, tail;
        const Cut* cut = nullptr;
    };

    void loadGraph();
    std::vector<c10::IValue> runGraph(const std::vector<c10::IValue>& args, const std::vector<Value*>& extra,
                                      std::vector<c10::IValue>* copies = nullptr);
    Program program(const std::vector<Node*>& nodes, const std::vector<Value*>& inputs,
                    const std::vector<Value*>& outputs, bool remake,
                    const std::function<std::shared_ptr<Graph>()>& graph);
    Program wholeProgram(const std::vector<Value*>& extra);
    std::vector<c10::IValue> runProgram(const Program& p, torch::jit::Stack stack);
    // Check run r's arguments (r < seeds: seed r; the last: seed 0's parameters, all-zero inputs)
    // and the original graph's output on them (the last's: zeroReferenceAfterConstants()). In
    // one-set mode only one run's are on the device: asking for another frees them, fetches r's
    // from the operands again and, when `reference`, recomputes its reference with m_originalRun
    // (observe() takes its own).
    const std::vector<c10::IValue>& checkArgs(size_t r, bool reference = true);
    const at::Tensor& reference(size_t r) const { return m_reference.at(r); }
    std::vector<c10::IValue> fetchArgs(size_t r);
    // The check runs in the order a candidate tries them: the one on the device first (most
    // candidates fail on their first run, and then cost no fetch).
    std::vector<size_t> runOrder() const;
    void dropResident(); // one-set mode: frees the resident run's arguments and reference
    Program snapshot(const char* name) const;
    void observe();
    // A value a cut may save (a graph input or a top-level node's output read after it), and
    // where in-place ops write into it (first and last writer's place).
    struct CutValue {
        Value* v;
        size_t def; // place of its node; 0 for graph inputs (before every node)
        bool input;
        size_t firstWrite = SIZE_MAX, lastWrite = 0;
        bool written = false;
    };
    // A usable cut, before m_top[top], and what it saves (indices into the CutValues).
    struct CutPlan {
        size_t top;
        std::vector<size_t> values;
    };
    void planCuts();
    std::vector<CutPlan> usableCuts(std::vector<CutValue>& cands);
    void saveCuts(const std::vector<Value*>& saved, size_t runs);
    Program tailProgram(const Cut& cut);
    std::shared_ptr<Graph> tailGraph(const Cut& cut, const std::vector<Node*>& nodes) const;
    std::vector<c10::IValue> runCheck(Check& c, size_t r);
    void dropSaved(const std::string& why);
    bool outputUnchanged(size_t top);
    double flops(const Node* n) const;
    double numel(const Value* v) const;
    const Observed* info(const Value* v) const {
        const auto it = m_obs.find(v);
        return it == m_obs.end() ? nullptr : &it->second;
    }
    void addNode(Node* n, RedundantNode::Kind kind, std::string reason, double bytes = 0);
    Value* liveOutput(Node* n, const Liveness& live) const;
    double copyBytes(const Node* n) const;
    bool constantPass(); // whether it substituted a constant
    void zeroReferenceAfterConstants();
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
    std::map<const Value*, std::vector<int64_t>> m_shapes; // m_obs's sizes, for the FLOP model
    // The check runs' arguments, seeds then the all-zero-input run, and the original output on
    // each: all on the device, or in one-set mode only m_resident's (the others empty).
    std::vector<std::vector<c10::IValue>> m_checkArgs;
    std::vector<at::Tensor> m_reference;
    OperandSource* m_src = nullptr;
    std::unique_ptr<OperandSource> m_ownSrc;
    bool m_oneSet = false;
    size_t m_resident = SIZE_MAX;
    std::optional<Program> m_originalRun; // one-set mode: the graph as it was, for the references
    // One-set mode, after a constant changed the all-zero input's output: the graph with its
    // constants, for that run's reference (zeroReferenceAfterConstants()).
    std::optional<Program> m_zeroRun;
    Liveness m_original;
    std::unordered_set<const Node*> m_reported;
    std::unordered_set<const Value*> m_untainted; // values that no longer depend on the inputs
    std::vector<Cut> m_cuts;                       // in graph order
    std::unordered_map<const Node*, size_t> m_ord; // top-level nodes' places when the cuts were planned
    std::unordered_set<const Node*> m_remake;      // made again after a cut: constants, attribute reads, lists
    std::vector<std::vector<c10::IValue>> m_saved; // per check run r < size(): the cuts' values
    OperationCache m_ops;                          // the working graph's nodes' operations
};

void Analysis::loadGraph() {
    m_task = m_opt.compiled ? *m_opt.compiled : compileTask(m_spec);
    if (m_task.module) {
        m_module = artifactOn(m_spec, m_task, m_device);
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

void Analysis::observe() {
    std::vector<Value*> extra;
    for (Node* n : m_top)
        for (Value* v : n->outputs())
            if (isTensor(v)) extra.push_back(v);
    for (int s = 0; s < m_rep.seeds; ++s) {
        const auto& args = checkArgs(static_cast<size_t>(s), /*reference=*/false);
        auto out = runGraph(args, extra);
        if (out.empty() || !out[0].isTensor())
            throw Error("'" + m_spec.entry + "' must return one Tensor, got " + (out.empty() ? "nothing" : out[0].tagKind()));
        m_reference[static_cast<size_t>(s)] = out[0].toTensor();
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
            if (o.constant) o.constant = allCloseToValue(t, o.value, m_opt.rtol, m_opt.atol);
        };
        for (size_t i = 0; i < m_graph->inputs().size(); ++i)
            if (args[i].isTensor()) record(m_graph->inputs()[i], args[i].toTensor());
        for (size_t i = 0; i < extra.size(); ++i)
            if (out[1 + i].isTensor()) record(extra[i], out[1 + i].toTensor());
    }
    // The zero-input run's reference: epsilon guards and clamps against zero only matter there.
    const size_t z = m_checkArgs.size() - 1;
    auto zero = runGraph(checkArgs(z, /*reference=*/false), {});
    m_reference[z] = zero.at(0).toTensor();
}

std::vector<c10::IValue> Analysis::fetchArgs(size_t r) {
    const bool zero = r + 1 == m_checkArgs.size();
    // Every run copies what it may write into (runGraph, runCheck), so a seed's kept device copies
    // serve as they are (borrowSeed), not copied beside themselves.
    auto [inputs, params] = zero ? m_src->seedWithZeroInputs(0) : m_src->borrowSeed(static_cast<int>(r));
    std::vector<c10::IValue> args;
    if (m_module) args.emplace_back(m_module->_ivalue());
    for (auto& t : inputs) args.emplace_back(t);
    for (auto& t : params) args.emplace_back(t);
    if (args.size() != m_graph->inputs().size())
        throw Error("the graph takes " + std::to_string(m_graph->inputs().size()) + " arguments, the spec gives " +
                    std::to_string(args.size()));
    return args;
}

const std::vector<c10::IValue>& Analysis::checkArgs(size_t r, bool reference) {
    if (!m_oneSet || r == m_resident) return m_checkArgs.at(r);
    dropResident();
    m_checkArgs.at(r) = fetchArgs(r);
    m_resident = r;
    if (reference) {
        // The original graph on these arguments, as observe() ran it: the same ops and seeded
        // generator, so the same output (an op that varies from run to run stays within tolerance);
        // for the all-zero input, once constants changed its output, the graph with them.
        const bool zero = r + 1 == m_checkArgs.size();
        auto out = runProgram(zero && m_zeroRun ? *m_zeroRun : *m_originalRun, copiedArgs(m_checkArgs[r]));
        m_reference[r] = out.at(0).toTensor();
        ++m_rep.referenceRuns;
    }
    return m_checkArgs[r];
}

void Analysis::dropResident() {
    if (m_resident < m_checkArgs.size()) {
        m_checkArgs[m_resident].clear();
        m_reference[m_resident] = at::Tensor();
    }
    m_resident = SIZE_MAX;
}

std::vector<size_t> Analysis::runOrder() const {
    std::vector<size_t> order;
    if (m_resident < m_checkArgs.size()) order.push_back(m_resident);
    for (size_t r = 0; r < m_checkArgs.size(); ++r)
        if (r != m_resident) order.push_back(r);
    return order;
}

namespace {
// Why `x` returns its input itself, by its constant arguments: a dropout whose p is 0 or whose
// train flag is false (ATen's dropouts return the input tensor then, before drawing anything);
// empty when it does not, or not by constants.
std::string identityByArguments(const Node* x) {
    if (!kindIn(x, {"aten::dropout", "aten::dropout_", "aten::feature_dropout", "aten::feature_dropout_",
                    "aten::alpha_dropout", "aten::alpha_dropout_", "aten::feature_alpha_dropout",
                    "aten::feature_alpha_dropout_"}) ||
        x->inputs().size() != 3)
        return {};
    const auto p = torch::jit::toIValue(x->input(1));
    const auto train = torch::jit::toIValue(x->input(2));
    if (p && p->isDouble() && p->toDouble() == 0.0) return "p = 0";
    if (train && train->isBool() && !train->toBool()) return "train = False";
    return {};
}

// `x` draws random numbers. A dropout that returns its input draws none, whatever the JIT's
// nondeterministic-op list says.
bool drawsRandom(const Node* x) { return x->isNondeterministic() && identityByArguments(x).empty(); }

struct NotSaved {}; // a tail reads a value from before its cut that the cut did not save

// `name`=0 in the environment: a same-machine reference for benchmarks (read once).
bool switchedOff(const char* name) {
    const char* v = std::getenv(name);
    return v && std::string(v) == "0";
}
} // namespace

// `nodes` of the working graph as a program taking `inputs` and returning `outputs`, reading
// constants and, when `remake`, nodes of m_remake before the first node. Node by node when every
// node runs so; else interpreter code for graph(). Throws NotSaved when `remake` and the nodes read
// a value that is neither given nor made again.
Analysis::Program Analysis::program(const std::vector<Node*>& nodes, const std::vector<Value*>& inputs,
                                    const std::vector<Value*>& outputs, bool remake,
                                    const std::function<std::shared_ptr<Graph>()>& graph) {
    static const bool off = switchedOff("KS_NODE_RUNS");
    Program p;
    if (m_opt.nodeRuns && !off) {
        try {
            p.nodes = NodeProgram::make(nodes, inputs, outputs, m_ops,
                                        [&](const Node* d) { return remake && m_remake.count(d) > 0; });
            p.copy = writtenInputs(p.nodes->nodes(), inputs);
            return p;
        } catch (const NodeProgram::Missing&) {
            if (remake) throw NotSaved{};
        } catch (const NodeProgram::Unsupported&) {
        }
    }
    auto g = graph();
    p.copy = writtenInputs(*g);
    p.code.emplace(g, "ks_redundancy");
    return p;
}

// The working graph as it stands, returning its output and then `extra`.
Analysis::Program Analysis::wholeProgram(const std::vector<Value*>& extra) {
    std::vector<Node*> nodes(m_graph->nodes().begin(), m_graph->nodes().end());
    std::vector<Value*> inputs(m_graph->inputs().begin(), m_graph->inputs().end());
    std::vector<Value*> outputs(m_graph->outputs().begin(), m_graph->outputs().end());
    outputs.insert(outputs.end(), extra.begin(), extra.end());
    return program(nodes, inputs, outputs, false, [&] {
        const size_t base = m_graph->outputs().size();
        for (Value* v : extra) m_graph->registerOutput(v);
        std::shared_ptr<Graph> copy = m_graph->copy();
        while (m_graph->outputs().size() > base) m_graph->eraseOutput(m_graph->outputs().size() - 1);
        return copy;
    });
}

// `copies`, when given, receives the arguments the run took, copied or not (what its values may
// be views of).
std::vector<c10::IValue> Analysis::runGraph(const std::vector<c10::IValue>& args, const std::vector<Value*>& extra,
                                            std::vector<c10::IValue>* copies) {
    const Program p = wholeProgram(extra);
    // Copies of the tensors it may write into, as a check's whole-graph run takes: an in-place op
    // in the task must not change the next run's inputs. Copying every argument held a whole set
    // more beside the check runs' sets and references (KernelBench level 1's 7-8 GiB sets then
    // ran out of memory while saving the cuts).
    torch::jit::Stack stack(args.begin(), args.end());
    if (!cloneTogether(stack, p.copy)) stack = copiedArgs(args); // one storage, two dtypes
    if (copies) *copies = stack;
    return runProgram(p, std::move(stack));
}

std::vector<c10::IValue> Analysis::runProgram(const Program& p, torch::jit::Stack stack) {
    seedAll(977); // random ops in the task draw the same numbers on every run
    if (p.nodes) return p.nodes->run(std::move(stack));
    torch::jit::InterpreterState state(*p.code);
    state.run(stack);
    return stack;
}

// Plans the cuts and saves their values (docs/redundancy.md, "Check runs"). A cut is usable when
// no op before it draws random numbers (the tail would draw other numbers), nothing after it
// writes in place into a value it saves, and what it saves is tensors or values without tensors
// (a list of tensors is made again after the cut, from saved tensors). What all cuts save, over
// the check runs, stays within RedundancyOptions::cutBytes: every cut for every check run when it
// fits, else the first check run only (most candidates fail there), with every k-th cut.
void Analysis::planCuts() {
    static const bool off = switchedOff("KS_CUT_RUNS");
    if (off || !m_opt.cutRuns || m_opt.cutBytes <= 0) return;
    if (m_oneSet) {
        m_rep.notes.push_back("check runs from a cut: off (one check run's arguments on the device at a time)");
        return;
    }
    std::vector<CutValue> cands;
    const std::vector<CutPlan> plans = usableCuts(cands);
    if (plans.empty()) return;
    auto bytesOf = [&](size_t i) {
        const Observed* o = info(cands[i].v);
        return o && isTensor(cands[i].v) ? product(o->sizes) * static_cast<double>(c10::elementSize(o->dtype)) : 0.0;
    };
    auto planBytes = [&](size_t stride) {
        std::unordered_set<size_t> seen;
        double b = 0;
        for (size_t j = 0; j < plans.size(); j += stride)
            for (size_t i : plans[j].values)
                if (seen.insert(i).second) b += bytesOf(i);
        return b;
    };
    const double budget = static_cast<double>(m_opt.cutBytes);
    size_t runs = m_checkArgs.size(), stride = 1;
    if (planBytes(1) * static_cast<double>(runs) > budget) {
        runs = 1;
        while (stride < plans.size() && planBytes(stride) > budget) stride *= 2;
        if (planBytes(stride) > budget) {
            m_rep.notes.push_back("check runs from a cut: off (even one cut's values exceed the budget of " +
                                  std::to_string(m_opt.cutBytes >> 20) + " MiB)");
            return;
        }
    }
    std::unordered_map<size_t, size_t> slotOf; // cands index -> place among the saved values
    std::vector<Value*> saved;
    for (size_t j = 0; j < plans.size(); j += stride) {
        Cut cut;
        cut.top = plans[j].top;
        for (size_t i : plans[j].values) {
            auto [it, fresh] = slotOf.emplace(i, saved.size());
            if (fresh) saved.push_back(cands[i].v);
            cut.values.push_back(cands[i].v);
            cut.slots.push_back(it->second);
        }
        m_cuts.push_back(std::move(cut));
    }
    saveCuts(saved, runs);
}

// The cuts that keep a tail's run equal to a whole run (planCuts' comment says which), with the
// values each saves; numbers the top-level nodes (m_ord) and picks the nodes made again after a
// cut (m_remake).
std::vector<Analysis::CutPlan> Analysis::usableCuts(std::vector<CutValue>& cands) {
    size_t end = 0;
    for (Node* n : m_graph->nodes()) m_ord[n] = end++;
    MemoryRoots roots;
    std::vector<std::pair<size_t, MemoryRoots::Set>> writes; // (top-level place, what it writes)
    size_t firstRandom = end;
    std::unordered_map<const Value*, size_t> lastUse; // the last top-level node that reads it
    for (Node* n : m_graph->nodes()) {
        const size_t o = m_ord[n];
        forEachNested(n, [&](Node* x) {
            if (drawsRandom(x)) firstRandom = std::min(firstRandom, o);
            if (isMutating(x)) writes.emplace_back(o, roots.written(x));
            for (const Value* in : x->inputs()) lastUse[in] = std::max(lastUse[in], o);
        });
    }
    for (Node* n : m_graph->nodes()) {
        // Constants and attribute reads are the same objects in every run (a whole run shares
        // them with the run before too); a list or tuple is made again when nothing writes into it.
        bool remake = kindIn(n, {"prim::Constant", "prim::GetAttr"});
        if (n->blocks().empty() && kindIn(n, {"prim::ListConstruct", "prim::TupleConstruct"})) {
            remake = std::none_of(writes.begin(), writes.end(), [](const auto& w) { return !w.second; });
        }
        if (remake) m_remake.insert(n);
    }
    for (const Value* out : m_graph->outputs()) lastUse[out] = end;
    // What a remade node reads lives as long as what it makes.
    std::vector<Node*> order(m_graph->nodes().begin(), m_graph->nodes().end());
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
        if (!m_remake.count(*it)) continue;
        size_t u = 0;
        for (const Value* v : (*it)->outputs())
            if (auto f = lastUse.find(v); f != lastUse.end()) u = std::max(u, f->second);
        for (const Value* in : (*it)->inputs()) lastUse[in] = std::max(lastUse[in], u);
    }
    // Values a cut may save: graph inputs and outputs of top-level nodes that are not remade.
    for (Value* in : m_graph->inputs())
        if (lastUse.count(in)) cands.push_back({in, 0, true});
    for (Node* n : order)
        if (!m_remake.count(n))
            for (Value* v : n->outputs())
                if (lastUse.count(v) && lastUse[v] > m_ord[n]) cands.push_back({v, m_ord[n], false});
    for (auto& c : cands)
        for (const auto& [o, w] : writes)
            if (roots.changes(w, c.v)) {
                c.written = true;
                c.firstWrite = std::min(c.firstWrite, o);
                c.lastWrite = std::max(c.lastWrite, o);
            }
    // Usable cuts, before each top-level aten op.
    std::vector<CutPlan> plans;
    for (size_t k = 0; k < m_top.size(); ++k) {
        const size_t at = m_ord.at(m_top[k]);
        if (at > firstRandom) break;
        if (!m_top[k]->kind().is_aten() || at == 0) continue;
        CutPlan p{k, {}};
        bool ok = true;
        for (size_t i = 0; ok && i < cands.size(); ++i) {
            const auto& c = cands[i];
            if ((!c.input && c.def >= at) || lastUse[c.v] < at) continue;
            if (c.input) {
                // A graph input goes in as an argument: not where an op before the cut wrote into it.
                ok = !isTensor(c.v) || !c.written || c.firstWrite >= at;
                continue;
            } else if (isTensor(c.v)) {
                ok = (!c.written || c.lastWrite < at) && info(c.v) != nullptr;
            } else {
                ok = !c.written && !containsTensor(c.v->type());
            }
            p.values.push_back(i);
        }
        if (ok) plans.push_back(std::move(p));
    }
    return plans;
}

// Runs the graph once per check run r < runs, keeping `saved` (the cuts' values) in m_saved[r];
// drops the cuts whose values the runs show to be views of an argument. Where saving them for
// every run runs out of device memory, the first run's alone are saved (most candidates fail on
// it): on KernelBench level 1 the check runs' arguments and references beside a forward left too
// little for every run's (lease 14: ten tasks checked whole graphs only).
void Analysis::saveCuts(const std::vector<Value*>& saved, size_t runs) {
    try {
        std::vector<bool> viewsAnInput(saved.size(), false);
        for (size_t r = 0; r < runs; ++r) {
            if (runs > 1 && static_cast<int>(r) + 1 == m_opt.outOfMemoryAtCutSave)
                TORCH_CHECK_WITH(OutOfMemoryError, false,
                                 "out of memory (injected by the test option outOfMemoryAtCutSave)");
            std::vector<c10::IValue> args;
            auto out = runGraph(checkArgs(r), saved, &args);
            // The run must repeat the reference run: an op that varies from run to run (atomics,
            // an algorithm the library picks anew) would make tails and whole runs disagree.
            const at::Tensor& ref = reference(r);
            if (out.empty() || !out[0].isTensor() || out[0].toTensor().sizes() != ref.sizes() ||
                !allCloseBySlices(out[0].toTensor(), ref, m_opt.rtol, m_opt.atol)) {
                dropSaved("a second run of the graph differs from the first");
                return;
            }
            // A saved value that shares memory with an argument (a view of the input) would part
            // from the tail's own argument, which a write in the tail then reaches alone.
            std::unordered_set<const c10::StorageImpl*> argMemory;
            for (const auto& a : args)
                if (const auto* m = storageOf(a)) argMemory.insert(m);
            for (size_t k = 0; k + 1 < out.size(); ++k)
                if (const auto* m = storageOf(out[k + 1]); m && argMemory.count(m)) viewsAnInput[k] = true;
            m_saved.emplace_back(std::make_move_iterator(out.begin() + 1), std::make_move_iterator(out.end()));
        }
        // Cuts that save such a value are not used (their candidates take an earlier cut, or run
        // the whole graph).
        std::vector<Cut> kept;
        for (auto& cut : m_cuts)
            if (std::none_of(cut.slots.begin(), cut.slots.end(), [&](size_t k) { return viewsAnInput[k]; }))
                kept.push_back(std::move(cut));
        m_cuts = std::move(kept);
        if (m_cuts.empty()) m_saved.clear();
    } catch (const c10::OutOfMemoryError& e) {
        m_saved.clear();
        if (runs == 1) {
            dropSaved(std::string("saving the cuts' values failed: ") + shortError(e));
            return;
        }
        releaseCachedDeviceMemory();
        m_rep.notes.push_back("check runs from a cut: the first check run's only (saving the cuts' values for every "
                              "run ran out of memory: " + shortError(e) + ")");
        saveCuts(saved, 1);
    } catch (const std::exception& e) {
        dropSaved(std::string("saving the cuts' values failed: ") + shortError(e));
    }
}

void Analysis::dropSaved(const std::string& why) {
    m_saved.clear();
    m_cuts.clear();
    m_rep.notes.push_back("check runs from a cut: off (" + why + "); every check runs the whole graph");
}

// A graph of the working graph's `nodes` after `cut` as they stand now (bypasses applied), taking
// the graph's inputs and then the cut's saved values. Throws NotSaved when they read a value from
// before the cut that the cut did not save (an earlier duplicate's result that was dead there).
std::shared_ptr<Graph> Analysis::tailGraph(const Cut& cut, const std::vector<Node*>& nodes) const {
    auto g = std::make_shared<Graph>();
    std::unordered_map<Value*, Value*> env;
    for (Value* in : m_graph->inputs()) env[in] = g->addInput()->copyMetadata(in);
    for (Value* v : cut.values) env[v] = g->addInput()->copyMetadata(v);
    std::function<Value*(Value*)> map = [&](Value* v) -> Value* {
        if (auto it = env.find(v); it != env.end()) return it->second;
        Node* d = v->node();
        if (!m_remake.count(d)) throw NotSaved{};
        Node* made = g->appendNode(g->createClone(d, map));
        for (size_t i = 0; i < d->outputs().size(); ++i) env[d->outputs()[i]] = made->outputs()[i];
        return env.at(v);
    };
    for (Node* n : nodes) {
        Node* made = g->appendNode(g->createClone(n, map));
        for (size_t i = 0; i < n->outputs().size(); ++i) env[n->outputs()[i]] = made->outputs()[i];
    }
    for (Value* out : m_graph->outputs()) g->registerOutput(map(out));
    return g;
}

// The program of the graph after `cut`: its nodes run where they stand in the working graph (or,
// in the interpreter, tailGraph's copy of them). Throws NotSaved as tailGraph.
Analysis::Program Analysis::tailProgram(const Cut& cut) {
    const size_t at = m_ord.at(m_top[cut.top]);
    std::vector<Node*> nodes;
    for (Node* n : m_graph->nodes())
        if (auto o = m_ord.find(n); o == m_ord.end() || o->second >= at) nodes.push_back(n);
    std::vector<Value*> inputs(m_graph->inputs().begin(), m_graph->inputs().end());
    inputs.insert(inputs.end(), cut.values.begin(), cut.values.end());
    return program(nodes, inputs, {m_graph->outputs().begin(), m_graph->outputs().end()}, true,
                   [&] { return tailGraph(cut, nodes); });
}

// Check run r (a seed, or the all-zero input) of a candidate: the tail when a cut serves and its
// values for run r are saved, else the whole graph.
std::vector<c10::IValue> Analysis::runCheck(Check& c, size_t r) {
    const auto& args = checkArgs(r);
    ++m_rep.checkRuns;
    if (!m_oneSet && m_rep.checkRuns == m_opt.outOfMemoryAtCheckRun)
        TORCH_CHECK_WITH(OutOfMemoryError, false, "out of memory (injected by the test option outOfMemoryAtCheckRun)");
    if (c.tail && r < m_saved.size()) {
        torch::jit::Stack stack(args.begin(), args.end());
        for (size_t slot : c.cut->slots) stack.push_back(m_saved[r][slot]);
        // What the tail may write into is a copy: the check args and the saved values serve
        // every later check.
        if (cloneTogether(stack, c.tail->copy)) {
            try {
                auto out = runProgram(*c.tail, std::move(stack));
                ++m_rep.checkRunsFromCut;
                if (c.tail->nodes) ++m_rep.checkRunsByNode;
                return out;
            } catch (const c10::OutOfMemoryError& e) {
                dropSaved("out of memory in a check: " + shortError(e));
            } catch (const std::exception&) {
                // A bypass that breaks the graph: the whole graph's run decides, as without cuts.
            }
        }
    }
    if (!c.full) c.full = wholeProgram({});
    torch::jit::Stack stack(args.begin(), args.end());
    if (!cloneTogether(stack, c.full->copy)) stack = copiedArgs(args); // one storage, two dtypes
    auto out = runProgram(*c.full, std::move(stack));
    if (c.full->nodes) ++m_rep.checkRunsByNode;
    return out;
}

bool Analysis::outputUnchanged(size_t top) {
    Check c;
    // The latest cut at or before the candidate whose saved values cover what the rest reads.
    if (!m_saved.empty()) {
        auto it = std::upper_bound(m_cuts.begin(), m_cuts.end(), top,
                                   [](size_t t, const Cut& cut) { return t < cut.top; });
        for (int tries = 0; it != m_cuts.begin() && tries < 3; ++tries) {
            --it;
            try {
                c.tail = tailProgram(*it);
                c.cut = &*it;
                break;
            } catch (const NotSaved&) {
            }
        }
    }
    for (size_t r : runOrder()) {
        at::Tensor out;
        try {
            auto res = runCheck(c, r);
            if (res.empty() || !res[0].isTensor()) return false;
            out = res[0].toTensor();
        } catch (const c10::OutOfMemoryError&) {
            throw; // no verdict on the candidate: analyzeRedundancy holds less and runs again
        } catch (const std::exception&) {
            return false; // the bypass broke the graph (shapes, dtypes): not a valid removal
        }
        const at::Tensor& ref = reference(r);
        if (out.sizes() != ref.sizes()) return false;
        // The all-zero input is degenerate (normalisations of it see no variance), so it only
        // vetoes a bypass that turns finite values into inf/NaN: what epsilon guards exist for.
        if (r + 1 == m_checkArgs.size()) {
            if (!sameFiniteness(out, ref)) return false;
            continue;
        }
        if (!allCloseBySlices(out, ref, m_opt.rtol, m_opt.atol)) return false;
    }
    return true;
}

double Analysis::numel(const Value* v) const {
    const Observed* o = info(v);
    return o ? product(o->sizes) : 0.0;
}

// Recurrent layers, attention and einsum by filter 5's model (nodeflops.h: their products, from
// their weights or operands; as elementwise ops they counted hundreds of times too few), the rest
// as below (docs/redundancy.md, "FLOPs").
double Analysis::flops(const Node* n) const {
    if (!n->kind().is_aten() || n->outputs().empty() || !isTensor(n->output(0)) || isLayoutOp(n)) return 0;
    if (kindIn(n, {"aten::lstm", "aten::gru", "aten::rnn_tanh", "aten::rnn_relu", "aten::scaled_dot_product_attention",
                   "aten::einsum"}))
        return taskNodeFlops(n, m_shapes);
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

bool Analysis::constantPass() {
    bool substituted = false;
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
            substituted = true;
            continue; // its output is now untainted
        }
        if (anyTainted && !isMetaOp(n))
            for (const Value* out : n->outputs()) tainted.insert(out);
    }
    return substituted;
}

// Constants are found on the seeds alone, and on the all-zero input a substituted one may change
// the output (x / torch.norm(x): NaN, then 0). That run only guards finiteness, so from here on it
// is judged against the graph with its constants: against the original's, every later bypass and
// the saved cuts' own run would differ there (KernelBench L1-37 lost its cuts that way).
void Analysis::zeroReferenceAfterConstants() {
    const size_t z = m_checkArgs.size() - 1;
    if (m_oneSet) {
        // The references after a fetch: a resident all-zero run is fetched again (zeros made on
        // the device) when a check first asks for it, if one does.
        m_zeroRun = snapshot("ks_redundancy_zero_reference");
        if (m_resident == z) dropResident();
        return;
    }
    m_reference[z] = runGraph(checkArgs(z, /*reference=*/false), {}).at(0).toTensor();
}

// The working graph as it stands, in the interpreter, for the one-set mode's reference runs.
Analysis::Program Analysis::snapshot(const char* name) const {
    auto g = m_graph->copy();
    Program p;
    p.copy = writtenInputs(*g);
    p.code.emplace(g, name);
    return p;
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
    planCuts();
    std::optional<Liveness> live;
    for (auto it = m_top.rbegin(); it != m_top.rend(); ++it) {
        Node* n = *it;
        const size_t top = static_cast<size_t>(m_top.rend() - it) - 1;
        const bool copy = isCopyOp(n);
        if (m_reported.count(n) || !n->kind().is_aten() || n->outputs().empty() || isMutating(n) ||
            (isLayoutOp(n) && !copy) || isMetaOp(n) || !n->blocks().empty())
            continue;
        // What reaches the output changes only with a bypass kept (a rejected one is undone).
        if (!live) live = liveness(*m_graph);
        Value* out = liveOutput(n, *live); // none: already cut off by an earlier bypass
        if (!out) continue;
        const Observed* o = info(out);
        if (!o) continue;
        const double bytes = copy ? copyBytes(n) : 0.0;
        if (copy && bytes == 0) continue; // a copy that copies nothing costs nothing to keep
        ++m_rep.opsExamined;
        // An op that returns its input itself, by its constant arguments: bypassed without a check
        // run, which could only find the output unchanged (DenseNet's hundred Dropout(0.0)s).
        if (const std::string why = identityByArguments(n); !why.empty() && out == n->output(0)) {
            Value* in = n->input(0);
            const Observed* io = info(in);
            if (io && io->dtype == o->dtype && io->sizes == o->sizes) {
                out->replaceAllUsesWith(in);
                live.reset();
                addNode(n, RedundantNode::Kind::NoEffect,
                        "bypassed by its input " + describe(in) + ", the output is unchanged (" + why +
                            ": it returns its input)");
                continue;
            }
        }
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
            if (outputUnchanged(top)) {
                live.reset();
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
                m_ops.forget(made);
                made->destroy();
                if (sizes && sizes->kind() == c10::prim::Constant && !sizes->output()->hasUses())
                    sizes->destroy(); // a constant: never in m_ops
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
    m_src = m_opt.operands;
    if (!m_src)
        m_src = (m_ownSrc = OperandSource::forSeeds(m_spec, m_rep.preset, m_device, m_opt.cpuGenerator, m_rep.seeds)).get();
    const size_t runs = static_cast<size_t>(m_rep.seeds) + 1;
    m_checkArgs.resize(runs);
    m_reference.resize(runs);
    m_rep.oneCheckSet = m_oneSet;
    if (m_oneSet) {
        m_originalRun = snapshot("ks_redundancy_reference"); // before any pass changes the graph
    } else {
        for (size_t r = 0; r < runs; ++r) m_checkArgs[r] = fetchArgs(r);
    }
    observe();
    for (const auto& [v, o] : m_obs) m_shapes.emplace(v, o.sizes);
    m_original = liveness(*m_graph);
    for (const Node* n : m_top) m_rep.totalFlops += flops(n);
    if (constantPass()) zeroReferenceAfterConstants();
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
    const auto fresh = [&] {
        RedundancyReport r;
        r.taskId = spec.id;
        r.taskName = spec.name;
        return r;
    };
    RedundancyReport rep = fresh();
    const auto t0 = std::chrono::steady_clock::now();
    const DeviceInfo dev = probeDevice(options.device); // a bad device request is the caller's error
    at::NoGradGuard noGrad;
    try {
        const std::string misfit = checkSetsMisfit(spec, options, dev);
        const bool oneSet = options.oneCheckSet || !misfit.empty();
        try {
            Analysis(spec, options, rep, oneSet).run(dev);
            if (!misfit.empty()) rep.notes.push_back(misfit + ": analysed with one run's at a time on the device");
        } catch (const c10::OutOfMemoryError& e) {
            if (oneSet) throw;
            // What the first try held is freed with it; the second holds one run's arguments.
            const std::string why = shortError(e);
            rep = fresh();
            releaseCachedDeviceMemory();
            Analysis(spec, options, rep, true).run(dev);
            rep.notes.push_back("all check runs' arguments on the device at once ran out of memory (" + why +
                                "); analysed again with one run's at a time");
        }
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
