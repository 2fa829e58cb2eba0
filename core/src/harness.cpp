// SPDX-License-Identifier: MIT
// The kernel harness: isolated worker jobs (ceilings, eager baseline, one variant) and the
// orchestrator that runs them and assembles a BenchRun.
#include "ks/core/harness.h"
#include "ks/core/sandbox.h"
#include "harness_common.h"
#include "ks/core/engine.h"
#include "ks/core/guards.h"
#include "ks/core/process.h"
#include "ks/core/suite.h"
#include "ks/core/torchtask.h"

#include "ks/kernels/registry.h"
#include "ks/kernels/timing.h"

#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/core/InferenceMode.h>
#include <cuda_runtime_api.h>
#include <nlohmann/json.hpp>
#include <torch/cuda.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstring>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <thread>
#include <unistd.h>

namespace ks {
namespace harness {

const nvml::Clocks& workerClocks() {
    static const nvml::Clocks clocks([] {
        char bus[32] = {0};
        return cudaDeviceGetPCIBusId(bus, sizeof bus, 0) == cudaSuccess ? std::string(bus) : std::string();
    }());
    return clocks;
}

Interleaved timeInterleaved(Timer& timer, const std::vector<Contender>& contenders, const HarnessOptions& opt) {
    const size_t n = contenders.size();
    Interleaved out;
    out.ms.resize(n);
    out.stats.resize(n);
    if (n == 0) return out;
    const int blocks = std::clamp(opt.blocks, 1, std::max(1, opt.runs));
    const nvml::Clocks& clocks = workerClocks();
    std::vector<std::vector<ClockBlock>> clockBlocks(n);
    std::vector<std::vector<double>> spins(n);
    for (int b = 0; b < blocks; ++b) {
        const int runs = opt.runs / blocks + (b < opt.runs % blocks ? 1 : 0);
        for (size_t k = 0; k < n; ++k) {
            const size_t c = (b % 2 == 0) ? k : n - 1 - k; // A B C, then C B A: the same mean position
            const nvml::Reading before = clocks.read();
            const auto ms = timer.time(contenders[c].fn, b == 0 ? opt.warmup : 3, runs);
            const nvml::Reading after = clocks.read();
            out.ms[c].insert(out.ms[c].end(), ms.begin(), ms.end());
            spins[c].push_back(timer.spinUs);
            if (clocks.available()) clockBlocks[c].push_back(nvml::blockOf(before, after));
        }
    }
    for (size_t c = 0; c < n; ++c) {
        TimingStats& t = out.stats[c];
        t = guards::summarize(out.ms[c], opt.warmup, opt.l2Flush);
        std::sort(spins[c].begin(), spins[c].end());
        t.spinUs = opt.hideLaunchLatency ? spins[c][spins[c].size() / 2] : 0;
        t.blocks = blocks;
        t.clockSource = clocks.source();
        t.clockBlocks = std::move(clockBlocks[c]);
    }
    return out;
}

BaselineSet::BaselineSet(const WorkerJob& job, const TaskSpec& spec, const CompiledTask& ct,
                         std::vector<at::Tensor> inputs, std::vector<at::Tensor> params)
    : m_spec(spec), m_ct(ct), m_inputs(std::move(inputs)), m_params(std::move(params)) {
    m_all = m_inputs;
    m_all.insert(m_all.end(), m_params.begin(), m_params.end());
    const auto& want = job.options.baselines;
    const bool wantCompiled = std::find(want.begin(), want.end(), "compiled") != want.end();
    const bool wantGraph = std::find(want.begin(), want.end(), "graph") != want.end();
    if (wantCompiled && !job.compiledPackage.empty()) {
        try {
            m_compiled = std::make_unique<CompiledModel>(job.compiledPackage);
            (void)m_compiled->run(m_all); // loads its kernels outside the timed runs
            cudaCheck(cudaDeviceSynchronize(), "compiled baseline");
        } catch (const std::exception& e) {
            m_compiled.reset();
            errors["compiled"] = shortError(e);
        }
    } else if (wantCompiled) {
        errors["compiled"] = "no compiled package";
    }
    if (wantGraph) {
        try {
            m_graph = std::make_unique<CapturedForward>(
                [this] { return runForward(m_spec, m_ct, m_inputs, m_params); }, /*threadLocal=*/false);
        } catch (const std::exception& e) {
            m_graph.reset();
            errors["graph"] = "the eager forward cannot be captured in a CUDA graph: " + shortError(e);
        }
    }
}

BaselineSet::~BaselineSet() = default;

void BaselineSet::replayGraph() {
    if (m_graph) m_graph->replay();
}

std::vector<std::string> BaselineSet::kinds() const {
    std::vector<std::string> k{"eager"};
    if (m_compiled) k.push_back("compiled");
    if (m_graph) k.push_back("graph");
    return k;
}

std::vector<Contender> BaselineSet::contenders() const {
    std::vector<Contender> c;
    c.push_back({"eager", [this] { (void)runForward(m_spec, m_ct, m_inputs, m_params); }});
    // run() checked these very tensors when the set was made
    if (m_compiled) c.push_back({"compiled", [this] { (void)m_compiled->runUnchecked(m_all); }});
    if (m_graph) c.push_back({"graph", [this] { m_graph->replay(); }});
    return c;
}

void compareWithBaselines(VariantResult& r, const Interleaved& timed, const std::vector<std::string>& baselines) {
    const size_t subject = baselines.size();
    if (timed.ms.size() != subject + 1) return;
    r.vs.clear();
    for (size_t i = 0; i < subject; ++i) {
        SpeedupStats st = speedupStats(timed.ms[i], timed.ms[subject]);
        // The point estimate is the ratio of the medians as summarised (the file's median_ms).
        const double bm = timed.stats[i].medianMs, vm = timed.stats[subject].medianMs;
        st.ratio = vm > 0 ? bm / vm : NaN;
        if (baselines[i] == "eager") {
            r.speedup = st.ratio;
            r.speedupStats = st;
        }
        r.vs.push_back({baselines[i], bm, st});
    }
}

} // namespace harness
namespace {

using namespace harness;

using json = nlohmann::json;
using Clock = std::chrono::steady_clock;

// ---------------------------------------------------------------------------------------------
// Task -> kernel operands. The constants (strides, eps, scale) are those of the built-in tasks'
// TorchScript sources; the reference is always the task function itself.
struct Binding {
    std::string op;
    int meanDim = 1; // conv chain: 1 = broken L2-13, 2 = repaired L2-13r
};

const std::map<std::string, Binding>& bindings() {
    static const std::map<std::string, Binding> b{
        {"L1-12", {"diag_matmul"}},
        {"L1-23", {"softmax"}},
        {"L1-36", {"rmsnorm"}},
        {"L2-13", {"convtranspose3d_mean_add_softmax_tanh_scale", 1}},
        {"L2-13r", {"convtranspose3d_mean_add_softmax_tanh_scale", 2}},
    };
    return b;
}

// Fills the operand pack from the task tensors (inputs then params, float32, contiguous).
kernels::Args makeArgs(const Binding& b, const std::vector<at::Tensor>& t, at::Tensor& out) {
    kernels::Args a;
    for (size_t i = 0; i < t.size() && i < 6; ++i) a.in[i] = t[i].const_data_ptr<float>();
    a.out = out.mutable_data_ptr<float>();
    if (b.op == "diag_matmul") {
        a.dims[0] = t[1].size(0);
        a.dims[1] = t[1].size(1);
    } else if (b.op == "softmax") {
        a.dims[0] = t[0].size(0);
        a.dims[1] = t[0].size(1);
    } else if (b.op == "rmsnorm") {
        for (int i = 0; i < 4; ++i) a.dims[i] = t[0].size(i);
        a.scalars[0] = 1e-5f;
    } else {
        for (int i = 0; i < 5; ++i) a.dims[i] = t[0].size(i);
        a.dims[5] = t[1].size(1); // Cout
        a.dims[6] = t[1].size(2); // K
        a.dims[7] = 2;            // stride
        a.dims[8] = 1;            // padding
        a.dims[9] = 0;            // output_padding
        a.dims[10] = b.meanDim;
        a.dims[11] = 1; // softmax dim
        a.scalars[0] = 2.0f;
    }
    return a;
}

struct Operands {
    std::vector<at::Tensor> inputs, params; // float32 on the device, as the kernel sees them
};

// Edge cases: (name, operands). Shapes respect the task's parameter shapes.
std::vector<std::pair<std::string, Operands>> edgeCases(const Binding& b, const Operands& base) {
    std::vector<std::pair<std::string, Operands>> cases;
    const auto opts = base.inputs[0].options();
    auto randn = [&](at::IntArrayRef s) { return at::randn(s, opts); };
    auto withInputs = [&](std::vector<at::Tensor> in) { return Operands{std::move(in), base.params}; };
    if (b.op == "diag_matmul") {
        cases.push_back({"empty N=0", withInputs({randn({0}), randn({0, 64})})});
        cases.push_back({"empty M=0", withInputs({randn({64}), randn({64, 0})})});
        cases.push_back({"odd 37x1001", withInputs({randn({37}), randn({37, 1001})})});
        cases.push_back({"extreme +-1e30", withInputs({randn({64}) * 1e30, randn({64, 515})})});
        cases.push_back({"denormals", withInputs({randn({64}), randn({64, 515}) * 1e-39})});
        // NaN and Inf in A only: with an infinity in B, torch.diag(A) @ B itself spreads NaN down
        // that column (0 * inf), which no broadcast kernel reproduces; that is the reference's
        // quirk, not a kernel bug, so we don't test it.
        at::Tensor a = randn({32});
        a.index_put_({3}, NAN);
        a.index_put_({5}, INFINITY);
        cases.push_back({"NaN/Inf in A", withInputs({a, randn({32, 33})})});
    } else if (b.op == "softmax") {
        cases.push_back({"empty rows=0", withInputs({randn({0, 1024})})});
        cases.push_back({"odd 7x1003", withInputs({randn({7, 1003})})});
        cases.push_back({"single column 100x1", withInputs({randn({100, 1})})});
        at::Tensor x = randn({6, 2048});
        x[0].mul_(1e30);
        x[1].sub_(1e4); // a large negative row: exp underflows without the max shift
        x[2].mul_(1e-39);
        x[3].fill_(-1e30);
        cases.push_back({"extreme rows (1e30, -1e4, denormal, -1e30)", withInputs({x})});
        at::Tensor y = randn({4, 999});
        y.index_put_({0, 5}, NAN);
        y.index_put_({1, 7}, INFINITY);
        y.index_put_({2, 9}, -INFINITY);
        y[3].fill_(-INFINITY);
        cases.push_back({"NaN/Inf rows", withInputs({y})});
    } else if (b.op == "rmsnorm") {
        cases.push_back({"empty B=0", withInputs({randn({0, 64, 8, 8})})});
        cases.push_back({"odd 3x5x7x9", withInputs({randn({3, 5, 7, 9})})});
        cases.push_back({"C=1", withInputs({randn({2, 1, 33, 17})})});
        cases.push_back({"extreme 1e15", withInputs({randn({2, 64, 16, 16}) * 1e15})});
        cases.push_back({"tiny 1e-15", withInputs({randn({2, 64, 16, 16}) * 1e-15})});
        at::Tensor x = randn({2, 8, 5, 5});
        x.index_put_({0, 3, 1, 1}, NAN);
        x.index_put_({1, 2, 2, 2}, INFINITY);
        cases.push_back({"NaN/Inf inputs", withInputs({x})});
    } else {
        const int64_t cin = base.params[0].size(0);
        cases.push_back({"empty N=0", withInputs({randn({0, cin, 4, 4, 4})})});
        cases.push_back({"odd 2xCinx5x7x6", withInputs({randn({2, cin, 5, 7, 6})})});
        cases.push_back({"large inputs x1e3", withInputs({randn({1, cin, 4, 6, 5}) * 1e3})});
        at::Tensor x = randn({1, cin, 3, 4, 5});
        x.index_put_({0, 0, 1, 1, 1}, NAN);
        cases.push_back({"NaN input", withInputs({x})});
    }
    return cases;
}

std::vector<at::Tensor> joined(const Operands& o) {
    std::vector<at::Tensor> all = o.inputs;
    all.insert(all.end(), o.params.begin(), o.params.end());
    return all;
}

std::mutex g_extraMutex;
std::vector<const kernels::Variant*>& extras() {
    static std::vector<const kernels::Variant*> v;
    return v;
}

// ---------------------------------------------------------------------------------------------
// Jobs (run inside a worker process)

json jobCeilings(const WorkerJob& job) {
    c10::InferenceMode guard;
    const auto dev = probeDevice("cuda");
    cudaDeviceProp prop{};
    cudaCheck(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
    const auto opts = at::TensorOptions().device(at::kCUDA).dtype(at::kFloat);
    cudaStream_t stream = at::cuda::getCurrentCUDAStream().stream();
    Timer timer(stream, false, 0);
    // Copy ceiling: 1 GiB device-to-device, bytes read + written.
    const int64_t n = (int64_t{1} << 30) / 4;
    at::Tensor src = at::randn({n}, opts), dst = at::empty({n}, opts);
    const auto copyMs = timer.time([&] {
        cudaCheck(cudaMemcpyAsync(dst.data_ptr(), src.data_ptr(), static_cast<size_t>(n) * 4,
                                  cudaMemcpyDeviceToDevice, stream), "cudaMemcpyAsync");
    }, 3, 20);
    const double copyMed = guards::summarize(copyMs, 3, false).medianMs;
    // FP32 peak (no TF32): a large matrix product on random data.
    const bool tf32 = at::globalContext().allowTF32CuBLAS();
    at::globalContext().setAllowTF32CuBLAS(false);
    const int64_t m = 8192;
    at::Tensor a = at::randn({m, m}, opts), b = at::randn({m, m}, opts), c = at::empty({m, m}, opts);
    const auto mmMs = timer.time([&] { at::mm_out(c, a, b); }, 2, 10);
    at::globalContext().setAllowTF32CuBLAS(tf32);
    const double mmMed = guards::summarize(mmMs, 2, false).medianMs;
    int smClock = 0, memClock = 0;
    cudaDeviceGetAttribute(&smClock, cudaDevAttrClockRate, 0);
    cudaDeviceGetAttribute(&memClock, cudaDevAttrMemoryClockRate, 0);
    return json{{"device_name", dev.name},
                {"driver", dev.driver},
                {"cuda", dev.cuda},
                {"libtorch", dev.libtorch},
                {"copy_bandwidth_gbs", 2.0 * static_cast<double>(n) * 4 / (copyMed * 1e-3) / 1e9},
                {"fp32_peak_tflops", 2.0 * std::pow(static_cast<double>(m), 3) / (mmMed * 1e-3) / 1e12},
                {"l2_bytes", prop.l2CacheSize},
                {"sm_clock", std::to_string(smClock / 1000) + " MHz (max)"},
                {"mem_clock", std::to_string(memClock / 1000) + " MHz (max)"},
                {"clock_source", workerClocks().source()}};
}

Operands drawOperands(const TaskSpec& spec, Preset preset, uint64_t seed) {
    seedAll(seed);
    const at::Device dev(at::kCUDA, 0);
    Operands o;
    o.params = drawParams(spec, preset, dev);
    o.inputs = drawInputs(spec, preset, dev);
    return o;
}

} // namespace

double minimumTraffic(const std::vector<at::Tensor>& operands, const at::Tensor& out) {
    double bytes = static_cast<double>(out.nbytes());
    for (const auto& t : operands) bytes += static_cast<double>(t.nbytes());
    return bytes;
}

namespace {

// The compiled baseline against the float64 reference on the variants' seeds, like a variant
// (a compiled graph can be wrong).
ValidationResult validateCompiled(const WorkerJob& job, const TaskSpec& spec, const CompiledTask& ct,
                                  const CompiledModel& model) {
    const HarnessOptions& opt = job.options;
    ValidationResult val;
    val.run = true;
    val.atol = opt.atol;
    val.rtol = opt.rtol;
    double maxAbs = 0, maxRel = 0;
    bool passed = true;
    try {
        for (int s = 0; s < opt.seeds; ++s) {
            const Operands o = drawOperands(spec, opt.preset, 1000 + static_cast<uint64_t>(s));
            const at::Tensor out = model.run(joined(o));
            const at::Tensor ref = runForward(spec, ct, toDouble(o.inputs), toDouble(o.params));
            const guards::Comparison c = guards::compareToReference(out, ref, opt.atol, opt.rtol);
            maxAbs = std::max(maxAbs, c.maxAbsErr);
            maxRel = std::max(maxRel, c.maxRelErr);
            if (!c.pass) {
                passed = false;
                if (val.firstMismatch.empty()) val.firstMismatch = c.firstBad;
                val.failures.push_back("seed " + std::to_string(1000 + s) + ": " + c.describe());
                if (val.failures.size() > 20) break;
            }
        }
        val.seeds = opt.seeds;
        val.checks.push_back(std::to_string(opt.seeds) + " random seeds against the float64 reference");
    } catch (const std::exception& e) {
        passed = false;
        val.failures.push_back(shortError(e));
    }
    val.passed = passed;
    val.maxAbsErr = maxAbs;
    val.maxRelErr = maxRel;
    return val;
}

json jobBaseline(const WorkerJob& job) {
    c10::InferenceMode guard;
    useEagerSemantics();
    const TaskSpec spec = findTask(job);
    const auto bit = bindings().find(spec.id); // none for tasks that only external kernels serve
    const CompiledTask ct = compileTask(spec);
    const Operands o = drawOperands(spec, job.options.preset, 0);
    cudaStream_t stream = at::cuda::getCurrentCUDAStream().stream();
    Timer timer(stream, job.options.l2Flush, job.l2Bytes, job.options.hideLaunchLatency);
    BaselineSet set(job, spec, ct, o.inputs, o.params);
    const std::vector<std::string> kinds = set.kinds();
    const Interleaved timed = timeInterleaved(timer, set.contenders(), job.options);
    BenchRun tmp;
    TaskBench tb;
    tb.baseline = timed.stats[0];
    const at::Tensor eagerOut = runForward(spec, ct, o.inputs, o.params);
    for (const auto& kind : job.options.baselines) {
        if (kind == "eager") continue;
        BaselineRun br;
        br.kind = kind;
        const auto at = std::find(kinds.begin(), kinds.end(), kind);
        if (at == kinds.end()) {
            const auto e = set.errors.find(kind);
            br.error = e == set.errors.end() ? "not set up" : e->second;
        } else {
            const size_t i = static_cast<size_t>(at - kinds.begin());
            br.timing = timed.stats[i];
            br.vsEager = speedupStats(timed.ms[0], timed.ms[i]);
            br.vsEager.ratio = br.timing.medianMs > 0 ? tb.baseline.medianMs / br.timing.medianMs : NaN;
            if (kind == "compiled") {
                br.validation = validateCompiled(job, spec, ct, *set.compiled());
            } else if (kind == "graph") {
                // A replay computes what eager computes: checked once on the timed operands.
                set.replayGraph();
                cudaCheck(cudaDeviceSynchronize(), "graph replay");
                ValidationResult& v = br.validation;
                v.run = true;
                v.atol = job.options.atol;
                v.rtol = job.options.rtol;
                const guards::Comparison c =
                    guards::compareToReference(set.graphOutput(), eagerOut.to(at::kDouble), v.atol, v.rtol);
                v.passed = c.pass;
                v.maxAbsErr = c.maxAbsErr;
                v.maxRelErr = c.maxRelErr;
                v.seeds = 1;
                v.checks.push_back("replayed output against eager on the timed operands");
                if (!c.pass) v.failures.push_back("replay: " + c.describe());
            }
        }
        tb.otherBaselines.push_back(std::move(br));
    }
    // The op's minimum traffic and FLOPs at the task shape, for GB/s and the roofline.
    at::Tensor out = eagerOut.contiguous();
    if (bit != bindings().end()) {
        const kernels::Args args = makeArgs(bit->second, joined(o), out);
        tb.minBytes = kernels::minBytes(bit->second.op, args);
        tb.flops = kernels::flops(bit->second.op, args);
    } else {
        // Any task: every input and parameter read once, the output written once.
        tb.minBytes = minimumTraffic(joined(o), out);
    }
    tmp.tasks.push_back(tb);
    const json t = json::parse(benchToJson(tmp))["tasks"][0];
    json res{{"baseline", t["baseline"]}, {"min_bytes", t["min_bytes"]}, {"flops", t["flops"]}};
    if (t.contains("baselines")) res["baselines"] = t["baselines"];
    return res;
}

json jobVariant(const WorkerJob& job) {
    c10::InferenceMode guard;
    useEagerSemantics();
    const TaskSpec spec = findTask(job);
    const auto bit = bindings().find(spec.id);
    if (bit == bindings().end()) throw Error("task " + spec.id + " has no kernel binding");
    const Binding& binding = bit->second;
    const kernels::Variant* v = lookupVariant(job.variant);
    if (!v) throw Error("unknown kernel variant '" + job.variant + "'");
    const CompiledTask ct = compileTask(spec);
    const HarnessOptions& opt = job.options;
    cudaStream_t stream = at::cuda::getCurrentCUDAStream().stream();

    VariantResult r;
    r.name = v->name;
    r.summary = v->summary;
    r.version = v->version;
    r.shortcut = v->shortcut;
    ValidationResult& val = r.validation;
    val.run = true;
    val.atol = opt.atol;
    val.rtol = opt.rtol;
    double maxAbs = 0, maxRel = 0;

    // One checked launch: poisoned output, inputs hashed before and after, full device sync.
    // Returns the output, or an undefined tensor if the variant refused the shape.
    auto launchChecked = [&](const Operands& o, at::IntArrayRef outShape, bool misalign,
                             const std::string& label) -> at::Tensor {
        std::vector<at::Tensor> all = joined(o);
        if (misalign)
            for (auto& t : all) t = misaligned(t);
        std::vector<at::Tensor> before;
        for (const auto& t : all) before.push_back(t.clone());
        at::Tensor out = at::empty(outShape, all[0].options());
        if (misalign) out = misaligned(out);
        out.fill_(NAN); // a kernel that writes nothing leaves NaN behind
        kernels::Args args = makeArgs(binding, all, out);
        at::Tensor workspace;
        if (v->workspaceBytes) {
            if (const size_t ws = v->workspaceBytes(args)) {
                workspace = at::empty({static_cast<int64_t>(ws)}, all[0].options().dtype(at::kByte));
                args.workspace = workspace.data_ptr();
                args.workspaceBytes = ws;
            }
        }
        if (const char* why = v->supports(args)) {
            if (label.rfind("seed", 0) == 0)
                throw Error(std::string("the variant does not support the task's shape: ") + why);
            val.checks.push_back(label + ": refused by the variant (" + why + ")");
            return at::Tensor();
        }
        cudaCheck(cudaDeviceSynchronize(), "before launch");
        const cudaError_t le = v->launch(args, stream);
        if (le != cudaSuccess) {
            const std::string ctx = kernels::lastErrorContext();
            throw Error("launch failed (" + label + "): " + cudaGetErrorName(le) + " " + cudaGetErrorString(le) +
                        (ctx.empty() ? "" : " at " + ctx));
        }
        // A device-wide sync, so work the variant left on any stream has finished before we look.
        cudaCheck(cudaDeviceSynchronize(), "kernel (" + label + ")");
        for (size_t i = 0; i < all.size(); ++i)
            if (!guards::bitwiseEqual(before[i], all[i]))
                throw Error(label + ": the kernel modified input " + std::to_string(i) + " (" +
                            (i < spec.inputs.size() ? spec.inputs[i].name : spec.params[i - spec.inputs.size()].name) +
                            ")");
        return out;
    };
    auto check = [&](const at::Tensor& out, const at::Tensor& ref, const std::string& label) {
        if (!out.defined()) return true; // refused, recorded in checks
        const guards::Comparison c = guards::compareToReference(out, ref, opt.atol, opt.rtol);
        maxAbs = std::max(maxAbs, c.maxAbsErr);
        maxRel = std::max(maxRel, c.maxRelErr);
        if (c.pass) return true;
        if (val.firstMismatch.empty()) val.firstMismatch = c.firstBad;
        val.failures.push_back(label + ": " + c.describe());
        return false;
    };
    auto reference = [&](const Operands& o) {
        return runForward(spec, ct, toDouble(o.inputs), toDouble(o.params));
    };

    bool passed = true;
    try {
        // Random seeds with fresh inputs. The variant runs before and after the reference, so a
        // result an earlier launch left in memory cannot pass, nor can one cached per input.
        for (int s = 0; s < opt.seeds; ++s) {
            const Operands o = drawOperands(spec, opt.preset, 1000 + static_cast<uint64_t>(s));
            const std::string label = "seed " + std::to_string(1000 + s);
            at::Tensor shapeProbe = runForward(spec, ct, o.inputs, o.params);
            const std::vector<int64_t> outShape = shapeProbe.sizes().vec();
            shapeProbe = at::Tensor();
            const at::Tensor first = launchChecked(o, outShape, false, label);
            const at::Tensor ref = reference(o);
            const at::Tensor second = launchChecked(o, outShape, false, label);
            passed = check(first, ref, label + " (before the reference)") && passed;
            passed = check(second, ref, label + " (after the reference)") && passed;
            if (val.failures.size() > 20) break; // enough evidence; keep the report readable
        }
        val.seeds = opt.seeds;
        val.checks.push_back(std::to_string(opt.seeds) + " random seeds (fresh inputs, NaN-poisoned output, inputs "
                             "checked unchanged, run before and after the reference)");
        if (opt.edgeCases) {
            const Operands base = drawOperands(spec, opt.preset, 7);
            const at::Tensor baseRef = reference(base);
            passed = check(launchChecked(base, baseRef.sizes(), true, "misaligned task shape"), baseRef,
                           "misaligned task shape") && passed;
            val.checks.push_back("misaligned (+1 element) pointers at the task shape");
            for (const auto& [name, o] : edgeCases(binding, base)) {
                at::Tensor ref;
                try {
                    ref = reference(o);
                } catch (const std::exception& e) {
                    val.checks.push_back("edge " + name + ": skipped, the task itself rejects it (" + shortError(e) + ")");
                    continue;
                }
                val.checks.push_back("edge " + name);
                passed = check(launchChecked(o, ref.sizes(), false, "edge " + name), ref, "edge " + name) && passed;
                if (ref.numel() > 0)
                    passed = check(launchChecked(o, ref.sizes(), true, "edge " + name + ", misaligned"), ref,
                                   "edge " + name + ", misaligned") && passed;
            }
        }
    } catch (const Error& e) {
        r.error = e.what();
        passed = false;
    } catch (const std::exception& e) {
        r.error = shortError(e);
        passed = false;
    }
    val.passed = passed && r.error.empty();
    val.maxAbsErr = maxAbs;
    val.maxRelErr = maxRel;
    if (cudaGetLastError() != cudaSuccess || cudaDeviceSynchronize() != cudaSuccess) {
        // Sticky context error (e.g. an illegal address): nothing more can run in this process.
        if (r.error.empty()) r.error = "the CUDA context is broken after this variant";
        val.passed = false;
    }

    // Timing, on seed-0 operands at the task shape.
    if (opt.time && r.error.empty()) {
        try {
            const Operands o = drawOperands(spec, opt.preset, 0);
            std::vector<at::Tensor> all = joined(o);
            const at::Tensor ref = reference(o);
            at::Tensor out = at::empty(ref.sizes(), all[0].options());
            kernels::Args args = makeArgs(binding, all, out);
            at::Tensor workspace;
            if (v->workspaceBytes) {
                const size_t ws = v->workspaceBytes(args);
                if (ws) {
                    workspace = at::empty({static_cast<int64_t>(ws)}, all[0].options().dtype(at::kByte));
                    args.workspace = workspace.data_ptr();
                    args.workspaceBytes = ws;
                }
            }
            Timer timer(stream, opt.l2Flush, job.l2Bytes, opt.hideLaunchLatency);
            auto launch = [&] { cudaCheck(v->launch(args, stream), std::string("launch of ") + v->name); };
            // Timed interleaved with the baselines on the same operands (A/B blocks).
            BaselineSet set(job, spec, ct, o.inputs, o.params);
            std::vector<Contender> contenders = set.contenders();
            contenders.push_back({v->name, launch});
            const Interleaved timed = timeInterleaved(timer, contenders, opt);
            r.timing = timed.stats.back();
            compareWithBaselines(r, timed, set.kinds());
            const double synced = timer.syncedPerRun(launch, std::max(1, std::min(opt.runs, 200)));
            std::string why;
            if (guards::escapesTimedStream(r.timing.medianMs, synced, &why)) {
                r.validation.passed = false;
                r.validation.failures.push_back("timing: " + why);
            }
            const double bytes = kernels::minBytes(binding.op, args), fl = kernels::flops(binding.op, args);
            if (r.timing.medianMs > 0) {
                r.gbps = bytes / (r.timing.medianMs * 1e-3) / 1e9;
                if (job.copyBandwidthGBs > 0) r.pctCopyBandwidth = 100.0 * r.gbps / job.copyBandwidthGBs;
                if (std::isnan(r.speedup) && job.baselineMedianMs > 0) r.speedup = job.baselineMedianMs / r.timing.medianMs;
                r.impossible = guards::impossibleSpeed(bytes, fl, r.timing.medianMs, job.copyBandwidthGBs,
                                                       job.fp32PeakTflops, job.l2Bytes, opt.l2Flush, &r.impossibleWhy);
            }
        } catch (const Error& e) {
            r.error = e.what();
        }
    }
    BenchRun tmp;
    TaskBench tb;
    tb.variants.push_back(r);
    tmp.tasks.push_back(tb);
    return json::parse(benchToJson(tmp))["tasks"][0]["variants"][0];
}

// ---------------------------------------------------------------------------------------------
// Orchestration (parent process)

struct SpawnResult {
    int exitCode = -1;
    int signal = 0;
    bool timedOut = false;
    std::string logTail;
};

// A worker runs through runProcess: its own process group, killed whole on a timeout or cancel.
SpawnResult spawnWorker(const WorkerCommand& w, const std::vector<std::string>& args, const std::string& logPath,
                        double timeoutSeconds, const std::atomic<bool>* cancel, const std::vector<std::string>& env = {}) {
    std::vector<std::string> argv{w.executable};
    argv.insert(argv.end(), w.prefixArgs.begin(), w.prefixArgs.end());
    argv.insert(argv.end(), args.begin(), args.end());
    // External kernels are strangers' native code: the worker may write its job folder only.
    SandboxSpec box;
    box.writable = {std::filesystem::path(logPath).parent_path().string()};
    const ProcessResult p = runProcess(sandboxed(argv, box), logPath, timeoutSeconds, cancel, {}, false, env);
    SpawnResult res;
    if (!p.startError.empty()) {
        res.logTail = "cannot start worker: " + p.startError;
        return res;
    }
    res.exitCode = p.exitCode;
    res.signal = p.signal;
    res.timedOut = p.timedOut;
    res.logTail = fileTail(logPath, 2000);
    return res;
}

std::string describeFailure(const SpawnResult& s) {
    std::string why;
    if (s.timedOut) why = "the worker did not finish in time and was killed";
    else if (s.signal) why = std::string("the worker crashed with signal ") + std::to_string(s.signal) + " (" + strsignal(s.signal) + ")";
    else why = "the worker exited with code " + std::to_string(s.exitCode) + " without a result";
    // The worker's last line usually names the CUDA error.
    std::string t = s.logTail;
    while (!t.empty() && (t.back() == '\n' || t.back() == ' ')) t.pop_back();
    const auto nl = t.rfind('\n');
    const std::string last = nl == std::string::npos ? t : t.substr(nl + 1);
    if (!last.empty()) why += ": " + last;
    return why;
}

// A worker's variant JSON read back through the bench file's own parser.
VariantResult variantFromWorker(const json& vj) {
    const BenchRun tmp = benchFromJson(json{{"schema", "kernelsieve.bench"}, {"schema_version", 1},
                                            {"tasks", json::array({json{{"variants", json::array({vj})}}})}}.dump(),
                                       "worker result");
    return tmp.tasks[0].variants[0];
}

// Numbers handed to a worker keep every digit: a speedup computed from a baseline rounded to
// six decimals (std::to_string) would differ from baseline / variant in the last places.
std::string exact(double v) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.17g", v);
    return buf;
}

} // namespace

std::string opForTask(const std::string& taskId) {
    const auto it = bindings().find(taskId);
    return it == bindings().end() ? std::string() : it->second.op;
}

std::vector<std::string> tasksWithKernels() {
    std::vector<std::string> ids;
    for (const auto& [id, b] : bindings()) ids.push_back(id);
    return ids;
}

void registerExtraVariants(const std::vector<const kernels::Variant*>& variants) {
    std::lock_guard<std::mutex> lock(g_extraMutex);
    extras().insert(extras().end(), variants.begin(), variants.end());
}

const kernels::Variant* lookupVariant(const std::string& name) {
    if (const auto* v = kernels::findVariant(name)) return v;
    std::lock_guard<std::mutex> lock(g_extraMutex);
    for (const auto* v : extras())
        if (name == v->name) return v;
    return nullptr;
}

std::vector<const kernels::Variant*> variantsForOp(const std::string& op) {
    std::vector<const kernels::Variant*> out = kernels::variantsFor(op);
    std::lock_guard<std::mutex> lock(g_extraMutex);
    for (const auto* v : extras())
        if (op == v->op) out.push_back(v);
    return out;
}

std::string harnessOptionsToJson(const HarnessOptions& o) {
    return json{{"seeds", o.seeds},     {"atol", o.atol},     {"rtol", o.rtol},   {"edge_cases", o.edgeCases},
                {"time", o.time},       {"warmup", o.warmup}, {"runs", o.runs},   {"l2_flush", o.l2Flush}, {"hide_launch_latency", o.hideLaunchLatency},
                {"preset", presetName(o.preset)}, {"dims", o.dims}, {"job_timeout_s", o.jobTimeoutSeconds},
                {"precision_ratio", o.precisionRatio}, {"baselines", o.baselines}, {"blocks", o.blocks}}
        .dump();
}

HarnessOptions harnessOptionsFromJson(const std::string& text) {
    const json j = json::parse(text);
    HarnessOptions o;
    o.seeds = j.value("seeds", o.seeds);
    o.atol = j.value("atol", o.atol);
    o.rtol = j.value("rtol", o.rtol);
    o.edgeCases = j.value("edge_cases", o.edgeCases);
    o.time = j.value("time", o.time);
    o.warmup = j.value("warmup", o.warmup);
    o.runs = j.value("runs", o.runs);
    o.l2Flush = j.value("l2_flush", o.l2Flush);
    o.hideLaunchLatency = j.value("hide_launch_latency", o.hideLaunchLatency);
    o.preset = parsePreset(j.value("preset", "full")).value_or(Preset::Full);
    o.jobTimeoutSeconds = j.value("job_timeout_s", o.jobTimeoutSeconds);
    o.precisionRatio = j.value("precision_ratio", o.precisionRatio);
    if (j.contains("dims")) o.dims = j.at("dims").get<std::map<std::string, int64_t>>();
    if (j.contains("baselines")) o.baselines = j.at("baselines").get<std::vector<std::string>>();
    o.blocks = j.value("blocks", o.blocks);
    return o;
}

WorkerJob workerJobFromArgs(const std::vector<std::string>& args) {
    WorkerJob j;
    for (size_t i = 0; i + 1 < args.size(); i += 2) {
        const std::string& k = args[i];
        const std::string& v = args[i + 1];
        try {
            if (k == "--job") j.job = v;
            else if (k == "--suite") j.suite = v;
            else if (k == "--task") j.task = v;
            else if (k == "--variant") j.variant = v;
            else if (k == "--result") j.resultFile = v;
            else if (k == "--options") j.options = harnessOptionsFromJson(v);
            else if (k == "--baseline-ms") j.baselineMedianMs = std::stod(v);
            else if (k == "--copy-gbs") j.copyBandwidthGBs = std::stod(v);
            else if (k == "--fp32-tflops") j.fp32PeakTflops = std::stod(v);
            else if (k == "--l2-bytes") j.l2Bytes = std::stod(v);
            else if (k == "--so") j.soPath = v;
            else if (k == "--function") j.function = v;
            else if (k == "--plan") j.plan = v;
            else if (k == "--compiled") j.compiledPackage = v;
            else throw Error("unknown worker argument '" + k + "'");
        } catch (const std::invalid_argument&) {
            throw Error("worker argument " + k + ": '" + v + "' is not a number");
        } catch (const nlohmann::json::exception& e) {
            throw Error(std::string("worker --options: ") + e.what());
        }
    }
    if (args.size() % 2) throw Error("worker arguments come in pairs");
    if (j.job.empty() || j.resultFile.empty()) throw Error("worker needs --job and --result");
    return j;
}

int runWorkerJob(const WorkerJob& job) {
    json result;
    try {
        if (!torch::cuda::is_available()) throw Error("no CUDA device is usable in the worker");
        if (job.job == "ceilings") result = jobCeilings(job);
        else if (job.job == "baseline") result = jobBaseline(job);
        else if (job.job == "variant") result = jobVariant(job);
        else if (job.job == "external") result = jobExternal(job);
        else throw Error("unknown worker job '" + job.job + "'");
    } catch (const std::exception& e) {
        std::fprintf(stderr, "worker %s %s %s: %s\n", job.job.c_str(), job.task.c_str(), job.variant.c_str(),
                     shortError(e).c_str());
        result = json{{"error", shortError(e)}};
    }
    try {
        writeFileAtomic(job.resultFile, result.dump());
    } catch (const Error& e) {
        std::fprintf(stderr, "%s\n", e.what());
        return 5;
    }
    return result.contains("error") && result.size() == 1 ? 1 : 0;
}

VariantResult externalSkeleton(const ExternalJob& job) {
    const ExternalKernel& k = job.kernel;
    VariantResult v;
    v.name = k.name;
    v.summary = k.format + " kernel " + k.file;
    ExternalInfo& e = v.external;
    e.format = k.format;
    e.file = k.file;
    e.function = k.function;
    for (const auto& a : k.args) e.args.push_back(a.describe());
    e.expect = k.expect;
    e.sourceHash = job.compile.key;
    e.compiled = k.error.empty() && job.compile.ok;
    e.cacheHit = job.compile.cacheHit;
    e.compileSeconds = job.compile.seconds;
    if (!e.compiled) {
        e.compileLog = job.compile.log;
        v.error = k.error.empty() ? "compile error" : k.error;
        v.validation.run = false;
    }
    return v;
}

// The interval and the U test from the samples both workers kept. The point estimate stays the
// worker's ratio of its full-sample medians.
// runBench's progress lines from the thread of a GPU (--devices) start with its name. At namespace
// scope: a block-scope thread_local is only constructed in threads that pass its declaration.
thread_local std::string sayPrefix;

static void attachSpeedupStats(VariantResult& vr, const TimingStats& baseline) {
    // Workers time the baselines interleaved with the variant and bring their own interval;
    // this fallback (the separate baseline job's kept samples) is for a worker that could not.
    if (vr.speedupStats.measured()) return;
    if (std::isnan(vr.speedup) || baseline.samplesMs.size() < 2 || vr.timing.samplesMs.size() < 2) return;
    vr.speedupStats = speedupStats(baseline.samplesMs, vr.timing.samplesMs);
    vr.speedupStats.ratio = vr.speedup;
}

BenchRun runBench(const std::vector<TaskSpec>& tasks, const std::string& suite, const HarnessOptions& opt,
                  const WorkerCommand& worker, const BenchProgress& progress, const std::atomic<bool>* cancel,
                  const std::vector<ExternalJob>& external, bool builtins,
                  const std::map<std::string, BaselineCompileResult>& compiled) {
    namespace fs = std::filesystem;
    const bool wantCompiled = std::find(opt.baselines.begin(), opt.baselines.end(), "compiled") != opt.baselines.end();
    // With --devices, one thread per GPU reports: lines are whole and say which GPU.
    std::mutex sayMutex;
    auto say = [&](const std::string& s) {
        std::lock_guard<std::mutex> lock(sayMutex);
        if (progress) progress(sayPrefix + s);
    };
    const fs::path dir = fs::temp_directory_path() / ("kernelsieve-bench-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    std::atomic<int> jobNo{0};
    const std::string optJson = harnessOptionsToJson(opt);
    // Runs one job (on the GPU `env` gives it, with --devices); returns its JSON or sets `failure`.
    auto runJobOn = [&](const std::vector<std::string>& env, std::vector<std::string> args, std::string& failure) -> json {
        const std::string base = (dir / ("job" + std::to_string(++jobNo))).string();
        args.insert(args.end(), {"--options", optJson, "--result", base + ".json"});
        const SpawnResult s = spawnWorker(worker, args, base + ".log", opt.jobTimeoutSeconds, cancel, env);
        json j;
        if (fs::exists(base + ".json")) {
            try {
                j = json::parse(readFile(base + ".json"));
            } catch (const std::exception&) {
            }
        }
        if (j.is_object() && !(j.contains("error") && j.size() == 1) && s.exitCode == 0) return j;
        failure = j.is_object() && j.contains("error") ? j["error"].get<std::string>() : describeFailure(s);
        return json();
    };

    BenchRun run;
    run.toolVersion = toolVersion();
    run.created = isoTimeNow();
    run.preset = presetName(opt.preset);
    run.settings.warmup = opt.warmup;
    run.settings.runs = opt.runs;
    run.settings.l2Flush = opt.l2Flush;
    run.settings.hideLaunchLatency = opt.hideLaunchLatency;
    run.dims = opt.dims;
    run.device = "cuda";
    run.baselines = opt.baselines;

    if (!opt.dims.empty()) {
        std::string set;
        for (const auto& [name, size] : opt.dims) set += (set.empty() ? "" : ", ") + name + "=" + std::to_string(size);
        say(std::string("task dims set for this run (") + presetName(opt.preset) + " preset): " + set);
    }
    say("measuring the device's copy bandwidth and FP32 peak");
    std::string ceilFailure;
    // With --devices, on every GPU at once (each on its own): a task's variants are judged by the
    // ceilings of the GPU they ran on. The run's device fields are the first GPU's.
    std::vector<json> gpuCeil(opt.devices.size());
    json ceil;
    if (opt.devices.empty()) {
        ceil = runJobOn({}, {"--job", "ceilings"}, ceilFailure);
    } else {
        std::vector<std::string> why(opt.devices.size());
        std::vector<std::thread> threads;
        for (size_t d = 0; d < opt.devices.size(); ++d)
            threads.emplace_back([&, d] { gpuCeil[d] = runJobOn({opt.devices[d].env()}, {"--job", "ceilings"}, why[d]); });
        for (auto& t : threads) t.join();
        ceil = gpuCeil[0];
        for (size_t d = 0; d < opt.devices.size(); ++d)
            if (gpuCeil[d].is_null()) {
                ceil = json();
                ceilFailure = opt.devices[d].label() + " (CUDA_VISIBLE_DEVICES=" + opt.devices[d].visibleId + "): " + why[d];
                break;
            }
    }
    if (ceil.is_null()) {
        removeTree(dir.string());
        throw Error("cannot measure the device (" + ceilFailure + ")");
    }
    run.deviceName = ceil.value("device_name", "");
    run.driver = ceil.value("driver", "");
    run.cudaVersion = ceil.value("cuda", "");
    run.libtorchVersion = ceil.value("libtorch", "");
    run.copyBandwidthGBs = ceil.value("copy_bandwidth_gbs", 0.0);
    run.fp32PeakTflops = ceil.value("fp32_peak_tflops", 0.0);
    run.smClock = ceil.value("sm_clock", "");
    run.memClock = ceil.value("mem_clock", "");
    run.clockSource = ceil.value("clock_source", "");
    if (run.clockSource != "nvml" && !run.clockSource.empty())
        say("clock records: " + run.clockSource + " (timings carry no clock record)");
    const double l2 = ceil.value("l2_bytes", 0.0);
    say("copy " + std::to_string(static_cast<int>(run.copyBandwidthGBs)) + " GB/s, FP32 " +
        std::to_string(run.fp32PeakTflops) + " TFLOP/s on " + run.deviceName);
    const std::vector<std::string> runCeilArgs{"--copy-gbs", exact(run.copyBandwidthGBs), "--fp32-tflops",
                                               exact(run.fp32PeakTflops), "--l2-bytes", exact(l2)};
    for (size_t d = 0; d < opt.devices.size(); ++d) {
        const json& c = gpuCeil[d];
        BenchGpu g;
        g.id = std::to_string(opt.devices[d].ordinal);
        g.visibleId = opt.devices[d].visibleId;
        g.name = c.value("device_name", "");
        g.smClock = c.value("sm_clock", "");
        g.memClock = c.value("mem_clock", "");
        g.clockSource = c.value("clock_source", "");
        g.copyBandwidthGBs = c.value("copy_bandwidth_gbs", 0.0);
        g.fp32PeakTflops = c.value("fp32_peak_tflops", 0.0);
        if (d > 0)
            say(opt.devices[d].label() + ": copy " + std::to_string(static_cast<int>(g.copyBandwidthGBs)) + " GB/s, FP32 " +
                std::to_string(g.fp32PeakTflops) + " TFLOP/s on " + g.name +
                (g.name == run.deviceName ? "" : " -- NOT the first GPU's model (" + run.deviceName +
                                                     "): its tasks' timings are not comparable with the others'"));
        run.gpus.push_back(std::move(g));
    }

    // The tasks' job sequences: in order on the one device, or (--devices) pulled in order from a
    // shared queue by one thread per GPU, each running one job at a time on its GPU. run.tasks is
    // assembled in task order either way.
    std::vector<std::optional<TaskBench>> benched(tasks.size());
    std::atomic<size_t> nextTask{0};
    auto benchTasks = [&](const std::vector<std::string>& env, const std::vector<std::string>& ceilArgs,
                          const std::string& gpu) {
    std::string failure;
    auto runJob = [&](std::vector<std::string> args, std::string& f) { return runJobOn(env, std::move(args), f); };
    for (size_t ti; (ti = nextTask++) < tasks.size();) {
        TaskSpec spec = tasks[ti];
        if (cancel && cancel->load()) break;
        spec.overrideDims(opt.preset, opt.dims); // as the workers will see it
        const auto bit = bindings().find(spec.id);
        const bool withBuiltins = builtins && bit != bindings().end();
        std::vector<const ExternalJob*> mine;
        for (const auto& e : external)
            if (e.kernel.taskId == spec.id) mine.push_back(&e);
        if (!withBuiltins && mine.empty()) continue;
        TaskBench tb;
        tb.taskId = spec.id;
        tb.taskName = spec.name;
        tb.op = bit != bindings().end() ? bit->second.op : "";
        for (const auto& in : spec.inputs)
            for (auto d : spec.shapeOf(in, opt.preset)) tb.shape.push_back(d);
        double baselineMs = 0;
        // The task's compiled package, when the run has one: every worker of the task times it.
        std::vector<std::string> compiledArgs;
        std::string compiledError;
        const BaselineCompileResult* cr = nullptr;
        if (wantCompiled) {
            const auto it = compiled.find(spec.id);
            cr = it == compiled.end() ? nullptr : &it->second;
            if (cr && cr->ok) compiledArgs = {"--compiled", cr->packagePath};
            else compiledError = cr ? cr->error : "not compiled";
        }
        if (opt.time) {
            std::string names;
            for (const auto& b : opt.baselines) names += (names.empty() ? "" : ", ") + b;
            say(spec.id + ": timing the baselines (" + names + ")");
            std::vector<std::string> args{"--job", "baseline", "--suite", suite, "--task", spec.id};
            args.insert(args.end(), compiledArgs.begin(), compiledArgs.end());
            const json b = runJob(args, failure);
            if (b.is_null()) {
                tb.baselineError = failure;
            } else {
                BenchRun tmp = benchFromJson(json{{"schema", "kernelsieve.bench"}, {"schema_version", 1},
                                                  {"tasks", json::array({b})}}.dump(), "baseline");
                tb.baseline = tmp.tasks[0].baseline;
                tb.minBytes = tmp.tasks[0].minBytes;
                tb.flops = tmp.tasks[0].flops;
                tb.otherBaselines = tmp.tasks[0].otherBaselines;
                baselineMs = tb.baseline.medianMs;
            }
            for (const auto& kind : opt.baselines) {
                if (kind == "eager" || tb.baselineOf(kind)) continue;
                BaselineRun br; // the baseline job failed as a whole
                br.kind = kind;
                br.error = tb.baselineError.empty() ? "not timed" : tb.baselineError;
                tb.otherBaselines.push_back(br);
            }
            for (auto& br : tb.otherBaselines) {
                if (br.kind != "compiled") continue;
                if (cr) {
                    br.compileSeconds = cr->cacheHit ? 0.0 : cr->seconds;
                    br.cacheHit = cr->cacheHit;
                    br.cacheKey = cr->key;
                    if (!cr->ok) br.compileLog = cr->log;
                }
                if (!compiledError.empty()) br.error = compiledError;
                say(spec.id + ": compiled baseline " +
                    (br.usable() ? std::to_string(br.timing.medianMs) + " ms (" + std::to_string(br.vsEager.ratio) +
                                       "x eager)" + (br.validation.passed ? "" : ", INVALID against the float64 reference")
                                 : "unavailable: " + br.error));
            }
        }
        for (const auto* v : withBuiltins ? variantsForOp(tb.op) : std::vector<const kernels::Variant*>{}) {
            if (cancel && cancel->load()) break;
            if (!opt.variantPattern.empty() && !matchesAnyGlob(opt.variantPattern, v->name)) continue;
            say(spec.id + ": " + v->name);
            std::vector<std::string> args{"--job", "variant", "--suite", suite, "--task", spec.id, "--variant", v->name,
                                          "--baseline-ms", exact(baselineMs)};
            args.insert(args.end(), ceilArgs.begin(), ceilArgs.end());
            args.insert(args.end(), compiledArgs.begin(), compiledArgs.end());
            const json vj = runJob(args, failure);
            VariantResult vr;
            if (vj.is_null()) {
                vr.name = v->name;
                vr.summary = v->summary;
                vr.version = v->version;
                vr.shortcut = v->shortcut;
                vr.error = failure;
                vr.validation.run = true;
                vr.validation.passed = false;
                vr.validation.failures.push_back("the variant could not be evaluated: " + failure);
            } else {
                vr = variantFromWorker(vj);
            }
            attachSpeedupStats(vr, tb.baseline);
            say(spec.id + ": " + vr.name + (vr.validation.passed ? " valid" : " INVALID") +
                (std::isnan(vr.speedup) ? "" : ", " + std::to_string(vr.speedup) + "x") +
                (vr.error.empty() ? "" : " (" + vr.error + ")"));
            tb.variants.push_back(std::move(vr));
        }
        for (const ExternalJob* e : mine) {
            if (cancel && cancel->load()) break;
            VariantResult vr = externalSkeleton(*e);
            if (vr.external.compiled) {
                say(spec.id + ": " + vr.name + " (" + e->kernel.format + ", " + e->kernel.file + ")");
                std::vector<std::string> args{"--job", "external", "--suite", suite, "--task", spec.id, "--variant",
                                              e->kernel.name, "--so", e->compile.soPath, "--function", e->kernel.function,
                                              "--plan", callPlanToJson(e->kernel.args), "--baseline-ms",
                                              exact(baselineMs)};
                args.insert(args.end(), ceilArgs.begin(), ceilArgs.end());
                args.insert(args.end(), compiledArgs.begin(), compiledArgs.end());
                const json vj = runJob(args, failure);
                if (vj.is_null()) {
                    vr.error = failure;
                    vr.validation.run = true;
                    vr.validation.passed = false;
                    vr.validation.failures.push_back("the kernel could not be evaluated: " + failure);
                } else {
                    VariantResult w = variantFromWorker(vj);
                    const double ratio = w.external.precisionRatio;
                    const auto names = w.external.kernelNames;
                    w.name = vr.name;
                    w.summary = vr.summary;
                    w.external = vr.external;
                    w.external.precisionRatio = ratio;
                    w.external.kernelNames = names;
                    vr = std::move(w);
                }
            }
            attachSpeedupStats(vr, tb.baseline);
            say(spec.id + ": " + vr.name + " -> " + variantVerdict(vr) +
                (std::isnan(vr.speedup) ? "" : ", " + std::to_string(vr.speedup) + "x") +
                (verdictDetail(vr).empty() ? "" : " (" + verdictDetail(vr).substr(0, 300) + ")"));
            tb.variants.push_back(std::move(vr));
        }
        tb.gpu = gpu;
        benched[ti] = std::move(tb);
    }
    };
    if (opt.devices.empty()) {
        benchTasks({}, runCeilArgs, "");
    } else {
        std::vector<std::thread> threads;
        std::vector<std::exception_ptr> errors(opt.devices.size());
        for (size_t d = 0; d < opt.devices.size(); ++d)
            threads.emplace_back([&, d] {
                sayPrefix = "[" + opt.devices[d].label() + "] ";
                const json& c = gpuCeil[d];
                const std::vector<std::string> ceilArgs{"--copy-gbs", exact(c.value("copy_bandwidth_gbs", 0.0)),
                                                        "--fp32-tflops", exact(c.value("fp32_peak_tflops", 0.0)),
                                                        "--l2-bytes", exact(c.value("l2_bytes", 0.0))};
                try {
                    benchTasks({opt.devices[d].env()}, ceilArgs, std::to_string(opt.devices[d].ordinal));
                } catch (...) {
                    errors[d] = std::current_exception();
                    nextTask = tasks.size(); // the others finish their task and stop
                }
            });
        for (auto& t : threads) t.join();
        for (const auto& e : errors)
            if (e) {
                removeTree(dir.string());
                std::rethrow_exception(e);
            }
    }
    for (auto& tb : benched)
        if (tb) run.tasks.push_back(std::move(*tb));
    removeTree(dir.string());
    return run;
}

} // namespace ks
