// SPDX-License-Identifier: MIT
// The worker job for a kernel written by someone else: load its kernel.so, call the bound
// function with the task's tensors as its call plan says, and check it with guards that do not
// assume we allocate the output (docs/external-kernels.md, "Guards").
#include "../harness_common.h"
#include "ks/core/external.h"
#include "ks/core/guards.h"
#include "ks/core/torchtask.h"

#include <kernelsieve/ext_abi.h>

#include <ATen/cuda/CUDAContext.h>
#include <c10/core/InferenceMode.h>
#include <c10/cuda/CUDACachingAllocator.h>
#include <torch/csrc/autograd/profiler_kineto.h>

#include <cmath>
#include <dlfcn.h>
#include <set>
#include <thread>

namespace ks {
namespace {

using json = nlohmann::json;
using namespace harness;

// A kernel's own exception (TORCH_CHECK, a bad argument): refused, not crashed.
struct KernelThrew : Error {
    using Error::Error;
};

struct Loaded {
    void* handle = nullptr;
    const KsExtFunction* fn = nullptr;
};

Loaded loadKernel(const std::string& so, const std::string& function) {
    Loaded l;
    l.handle = dlopen(so.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!l.handle) throw Error(std::string("cannot load the compiled kernel: ") + dlerror());
    auto abi = reinterpret_cast<int (*)()>(dlsym(l.handle, "ks_ext_abi_version"));
    auto fns = reinterpret_cast<int (*)(const KsExtFunction**)>(dlsym(l.handle, "ks_ext_functions"));
    if (!abi || !fns)
        throw Error("the kernel binds nothing: no PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def(...); } was compiled "
                    "(TORCH_LIBRARY registration is not supported)");
    if (abi() != KS_EXT_ABI_VERSION) throw Error("the cached kernel.so was built for another KernelSieve; clear the kernel cache");
    const KsExtFunction* list = nullptr;
    const int n = fns(&list);
    std::string names;
    for (int i = 0; i < n; ++i) {
        if (function == list[i].name) l.fn = &list[i];
        names += (names.empty() ? "" : ", ") + std::string(list[i].name) + " " + list[i].signature;
    }
    if (!l.fn) throw Error("the module binds no function '" + function + "' (it binds: " + (names.empty() ? "nothing" : names) + ")");
    return l;
}

} // namespace

std::string ExternalFunction::signature() const {
    return fn ? fn->signature : "";
}

ExternalFunction loadExternalFunction(const std::string& soPath, const std::string& function) {
    const Loaded l = loadKernel(soPath, function);
    return ExternalFunction{l.fn};
}

at::Tensor callExternalFunction(const ExternalFunction& f, std::vector<c10::IValue> args) {
    const KsExtFunction* fn = f.fn;
    if (static_cast<int>(args.size()) < fn->arity && static_cast<int>(args.size()) >= fn->firstDefault)
        for (int i = static_cast<int>(args.size()); i < fn->arity; ++i) args.push_back(fn->defaults[i - fn->firstDefault]);
    at::Tensor out;
    std::string err;
    if (!fn->call(fn->callable, args.data(), static_cast<int>(args.size()), &out, &err)) throw Error(err);
    return out;
}

namespace {

c10::IValue literal(const json& v) {
    if (v.is_boolean()) return v.get<bool>();
    if (v.is_number_integer()) return v.get<int64_t>();
    if (v.is_number()) return v.get<double>();
    if (v.is_array()) return c10::IValue(v.get<std::vector<int64_t>>());
    return c10::IValue();
}

struct Operands {
    std::vector<at::Tensor> inputs, params;
    std::vector<at::Tensor> all() const {
        std::vector<at::Tensor> a = inputs;
        a.insert(a.end(), params.begin(), params.end());
        return a;
    }
};

// Canary zones around a tensor: writes just outside it land in them and are seen afterwards.
constexpr int64_t CanaryBytes = 16384;
constexpr uint8_t CanaryByte = 0xA5;

struct Guarded {
    at::Tensor buffer; // bytes: canary | tensor | canary
    at::Tensor view;
};

Guarded guardedCopy(const at::Tensor& t, bool misalign) {
    const int64_t bytes = static_cast<int64_t>(t.nbytes());
    const int64_t shift = misalign ? t.element_size() : 0;
    Guarded g;
    g.buffer = at::full({CanaryBytes * 2 + bytes + 256}, CanaryByte, t.options().dtype(at::kByte));
    at::Tensor region = g.buffer.narrow(0, CanaryBytes + shift, bytes);
    g.view = bytes ? region.view(t.scalar_type()).view(t.sizes()) : at::empty(t.sizes(), t.options());
    g.view.copy_(t);
    return g;
}

// Every operand of `o` copied into canary-guarded buffers (kept in `guards`, same order).
Operands guardedOperands(const Operands& o, bool misalign, std::vector<Guarded>& guards) {
    Operands g;
    for (const auto& t : o.inputs) g.inputs.push_back(guards.emplace_back(guardedCopy(t, misalign)).view);
    for (const auto& t : o.params) g.params.push_back(guards.emplace_back(guardedCopy(t, misalign)).view);
    return g;
}

// New values written into existing operands: same addresses, other contents.
void overwrite(const Operands& dst, const Operands& src) {
    const auto d = dst.all(), s = src.all();
    for (size_t i = 0; i < d.size(); ++i) d[i].copy_(s[i]);
}

bool canariesIntact(const Guarded& g, const at::Tensor& t, bool misalign) {
    const int64_t bytes = static_cast<int64_t>(t.nbytes());
    const int64_t shift = misalign ? t.element_size() : 0;
    const at::Tensor before = g.buffer.narrow(0, 0, CanaryBytes + shift);
    const int64_t afterStart = CanaryBytes + shift + bytes;
    const at::Tensor after = g.buffer.narrow(0, afterStart, g.buffer.numel() - afterStart);
    return before.eq(CanaryByte).all().item<bool>() && after.eq(CanaryByte).all().item<bool>();
}

double rms(const at::Tensor& t) {
    return t.numel() ? std::sqrt(t.square().mean().item<double>()) : 0.0;
}

// Library kernels by the names the profiler records (ATen, cuBLAS, cuDNN, cuBLASLt's jit
// kernels); informational, so a miss only hides the note.
bool isLibraryKernel(const std::string& n) {
    for (const char* p : {"at::native", "at_cuda_detail", "cublas", "cudnn", "cutlass_", "sm90_xmma", "sm80_xmma",
                          "sm75_xmma", "ampere_", "nvjet", "gemv", "gemmSN", "gemmk", "splitKreduce", "cask_",
                          "xmma_", "void cudnn", "magma", "cub::", "DeviceReduce", "elementwise_kernel",
                          "vectorized_elementwise", "reduce_kernel", "softmax_warp", "cunn_"})
        if (n.find(p) != std::string::npos) return true;
    return false;
}

} // namespace

json jobExternal(const WorkerJob& job) {
    c10::InferenceMode inference;
    useEagerSemantics();
    const TaskSpec spec = findTask(job);
    const CompiledTask ct = compileTask(spec);
    const HarnessOptions& opt = job.options;
    const Loaded kernel = loadKernel(job.soPath, job.function.empty() ? "forward" : job.function);
    const std::vector<CallArg> plan = callPlanFromJson(job.plan);
    const at::Device dev(at::kCUDA, 0);
    cudaStream_t stream = at::cuda::getCurrentCUDAStream().stream();

    VariantResult r;
    r.name = job.variant;
    ValidationResult& val = r.validation;
    val.run = true;
    val.atol = opt.atol;
    val.rtol = opt.rtol;
    double maxAbs = 0, maxRel = 0;
    std::set<std::string> hitGuards;
    auto hit = [&](const std::string& guard, const std::string& detail) {
        if (hitGuards.insert(guard).second) r.guardHits.push_back({guard, detail});
    };

    const int arity = kernel.fn->arity;
    auto call = [&](const Operands& o) -> at::Tensor {
        std::vector<c10::IValue> args;
        for (const auto& a : plan) {
            if (a.kind == CallArg::Kind::Input) args.emplace_back(o.inputs.at(static_cast<size_t>(a.index)));
            else if (a.kind == CallArg::Kind::Param) args.emplace_back(o.params.at(static_cast<size_t>(a.index)));
            else args.push_back(literal(json::parse(a.valueJson)));
        }
        if (static_cast<int>(args.size()) < arity && static_cast<int>(args.size()) >= kernel.fn->firstDefault)
            for (int i = static_cast<int>(args.size()); i < arity; ++i)
                args.push_back(kernel.fn->defaults[i - kernel.fn->firstDefault]);
        if (static_cast<int>(args.size()) != arity)
            throw Error("the call plan has " + std::to_string(plan.size()) + " arguments, " + job.function + " takes " +
                        std::to_string(arity) + " (" + kernel.fn->signature +
                        "): give the arguments in the manifest's \"args\"");
        at::Tensor out;
        std::string err;
        if (!kernel.fn->call(kernel.fn->callable, args.data(), static_cast<int>(args.size()), &out, &err))
            throw KernelThrew("the kernel threw: " + err);
        if (!out.defined()) throw Error("the kernel returned an undefined tensor");
        return out;
    };
    auto draw = [&](const TaskSpec& s, uint64_t seed) {
        seedAll(seed); // the engine's order: inputs, then parameters
        Operands o;
        o.inputs = drawInputs(s, opt.preset, dev);
        o.params = drawParams(s, opt.preset, dev);
        return o;
    };
    auto reference = [&](const TaskSpec& s, const CompiledTask& c, const Operands& o) {
        return runForward(s, c, toDouble(o.inputs), toDouble(o.params));
    };
    // Tensors the harness computed and freed, NaN-filled first: an output that aliases one of
    // them and fails is stale memory handed back by the allocator.
    std::vector<std::pair<uintptr_t, uintptr_t>> poisoned;
    auto poisonAndFree = [&](at::Tensor& t) {
        if (!t.defined()) return;
        if (at::isFloatingType(t.scalar_type())) t.fill_(NAN);
        else t.fill_(0);
        const auto p = reinterpret_cast<uintptr_t>(t.data_ptr());
        poisoned.push_back({p, p + t.nbytes()});
        if (poisoned.size() > 64) poisoned.erase(poisoned.begin());
        t = at::Tensor();
    };
    auto aliasesPoisoned = [&](const at::Tensor& out) {
        const auto p = reinterpret_cast<uintptr_t>(out.data_ptr());
        for (const auto& [a, b] : poisoned)
            if (p >= a && p < b) return true;
        return false;
    };
    auto compare = [&](const at::Tensor& out, const at::Tensor& ref) {
        if (!out.sizes().equals(ref.sizes())) {
            guards::Comparison c;
            c.pass = false;
            c.firstBadValues = "output shape " + c10::str(out.sizes()) + ", expected " + c10::str(ref.sizes());
            return c;
        }
        return guards::compareToReference(out, ref, opt.atol, opt.rtol);
    };
    auto record = [&](const guards::Comparison& c, const std::string& label) {
        maxAbs = std::max(maxAbs, c.maxAbsErr);
        maxRel = std::max(maxRel, c.maxRelErr);
        if (c.pass) return;
        if (val.firstMismatch.empty()) val.firstMismatch = c.firstBad;
        val.failures.push_back(label + ": " + (c.describe().empty() ? c.firstBadValues : c.describe()));
    };
    // Error energy against the float64 reference, of the kernel and of eager float32, over the
    // elements where the reference is finite: the precision guard's ratio.
    double kernelErr2 = 0, eagerErr2 = 0, ref2 = 0;
    int64_t errCount = 0;
    auto accumulateError = [&](const at::Tensor& out, const at::Tensor& eager, const at::Tensor& ref) {
        if (!out.sizes().equals(ref.sizes()) || !at::isFloatingType(ref.scalar_type())) return;
        const at::Tensor finite = ref.isfinite() & out.to(at::kDouble).isfinite() & eager.to(at::kDouble).isfinite();
        const at::Tensor rf = ref.masked_select(finite);
        kernelErr2 += (out.to(at::kDouble).masked_select(finite) - rf).square().sum().item<double>();
        eagerErr2 += (eager.to(at::kDouble).masked_select(finite) - rf).square().sum().item<double>();
        ref2 += rf.square().sum().item<double>();
        errCount += rf.numel();
    };

    at::Tensor prevRef; // the last seed's reference: a wrong output equal to it is a replay
    int calls = 0;
    try {
        for (int s = 0; s < opt.seeds; ++s) {
            const uint64_t seed = 1000 + static_cast<uint64_t>(s);
            const std::string label = "seed " + std::to_string(seed);
            const Operands o = draw(spec, seed);
            const at::Tensor ref = reference(spec, ct, o);
            // Eager float32 right before the kernel, as the AI-CUDA-Engineer harness did: its
            // freed output is where an uninitialised torch::empty_like lands.
            at::Tensor eager = runForward(spec, ct, o.inputs, o.params);
            const at::Tensor eagerKeep = eager.clone();
            poisonAndFree(eager);

            // Call A: read the output stream-ordered right after return, then overwrite the
            // inputs on the same stream; a device-wide sync and a pause only after that.
            std::vector<Guarded> ga;
            Operands oa = guardedOperands(o, false, ga);
            at::Tensor outA = call(oa);
            ++calls;
            const at::Tensor orderedA = outA.clone(); // on the current stream: what a caller sees
            for (auto& t : oa.inputs)
                if (at::isFloatingType(t.scalar_type())) t.fill_(NAN);
            cudaCheck(cudaStreamSynchronize(stream), "stream sync (" + label + ")");
            std::this_thread::sleep_for(std::chrono::milliseconds(s < 3 ? 30 : 2));
            cudaCheck(cudaDeviceSynchronize(), "device sync (" + label + ")");
            const guards::Comparison cOrdered = compare(orderedA, ref);
            const guards::Comparison cFinal = compare(outA, ref);

            // Call B: fresh guarded copies, full sync, then every check.
            std::vector<Guarded> gb;
            const Operands ob = guardedOperands(o, false, gb);
            at::Tensor outB = call(ob);
            ++calls;
            const at::Tensor orderedB = outB.clone();
            cudaCheck(cudaStreamSynchronize(stream), "stream sync (" + label + ")");
            std::this_thread::sleep_for(std::chrono::milliseconds(s < 3 ? 30 : 2));
            cudaCheck(cudaDeviceSynchronize(), "device sync (" + label + ")");
            const guards::Comparison cB = compare(outB, ref);
            const guards::Comparison cOrderedB = compare(orderedB, ref);
            const auto allO = o.all(), allB = ob.all();
            for (size_t i = 0; i < allO.size(); ++i) {
                const std::string name = i < spec.inputs.size() ? spec.inputs[i].name : spec.params[i - spec.inputs.size()].name;
                if (!guards::bitwiseEqual(allO[i], allB[i]))
                    hit("input-write", label + ": the kernel modified " + std::string(i < spec.inputs.size() ? "input " : "parameter ") + name);
                if (!canariesIntact(gb[i], allO[i], false))
                    hit("out-of-bounds", label + ": the kernel wrote outside " + name + " (the canary zone around it changed)");
            }
            for (size_t i = 0; i < allO.size() && i < ga.size(); ++i)
                if (!canariesIntact(ga[i], allO[i], false))
                    hit("out-of-bounds", label + ": the kernel wrote outside " +
                                             (i < spec.inputs.size() ? spec.inputs[i].name : spec.params[i - spec.inputs.size()].name));
            const bool stale = (!cOrdered.pass && aliasesPoisoned(outA)) || (!cB.pass && aliasesPoisoned(outB));
            if (stale)
                hit("stale-memory", label + ": the output is memory the harness had just freed (NaN-filled) and the kernel "
                                            "left it unwritten: an uninitialised output that would hold the reference's result");
            if (!cOrdered.pass && cFinal.pass)
                hit("async-work", label + ": the result was not there when the call returned (read on the call's stream), "
                                          "only after a device-wide sync: work on another stream or thread");
            else if (!cOrderedB.pass && cB.pass)
                hit("async-work", label + ": the result was complete only after a device-wide sync, not on the call's stream");
            if (!cB.pass || !cOrderedB.pass) {
                // nothing to tell apart: a plain call is wrong already
            } else if ((!cOrdered.pass && !cFinal.pass) || (cOrdered.pass && !cFinal.pass))
                hit("input-read-after-return", label + ": right when its inputs stay intact, wrong when they are overwritten "
                                                       "on the call's stream after it returned: it reads them after returning");
            for (const at::Tensor* out : {&orderedA, static_cast<const at::Tensor*>(&outB)})
                if (prevRef.defined() && prevRef.sizes().equals(out->sizes()) && !compare(*out, ref).pass &&
                    compare(*out, prevRef).pass)
                    hit("replay", label + ": the output is the previous seed's result: the kernel replays a cached result");
            // Call C (first seeds): new values written into call B's buffers, same addresses.
            if (s < 5 && cB.pass) {
                const Operands fresh = draw(spec, seed + 100000);
                const at::Tensor freshRef = reference(spec, ct, fresh);
                overwrite(ob, fresh);
                at::Tensor outC = call(ob);
                ++calls;
                cudaCheck(cudaDeviceSynchronize(), "device sync (" + label + ", same buffers)");
                const guards::Comparison cC = compare(outC, freshRef);
                if (!cC.pass && compare(outC, ref).pass)
                    hit("replay", label + ": new values in the same input buffers gave the old values' result: a result "
                                          "cached by address or shape");
                record(cC, label + " (new values, same buffers)");
            }
            record(cOrdered.pass ? cB : cOrdered, label);
            if (!cB.pass && cOrdered.pass) record(cB, label + " (second call)");
            accumulateError(orderedB, eagerKeep, ref);
            prevRef = ref.to(at::kFloat);
            if (val.failures.size() > 20) break;
        }
        if (!opt.time && r.error.empty()) {
            // Validation without timing still runs the kernel as often as a timed run would,
            // then checks new values in the same buffers: a kernel that counts its calls and
            // changes behaviour in the timing phase is caught here too.
            const Operands o = draw(spec, 3);
            const int burst = std::max(0, std::min(opt.warmup + opt.runs, 2100) - calls);
            at::Tensor last;
            for (int i = 0; i < burst; ++i) last = call(o);
            calls += burst;
            const Operands fresh = draw(spec, 4);
            const at::Tensor freshRef = reference(spec, ct, fresh);
            overwrite(o, fresh);
            const at::Tensor out = call(o);
            cudaCheck(cudaDeviceSynchronize(), "after " + std::to_string(calls) + " calls");
            const guards::Comparison c = compare(out, freshRef);
            if (!c.pass) {
                hit("replay", "after " + std::to_string(calls) + " calls on the same buffers, new values gave a wrong "
                              "result: the kernel changes behaviour once it has been called often (as in a timing phase)");
                record(c, "after " + std::to_string(calls) + " calls");
            }
            val.checks.push_back(std::to_string(burst) + " more calls on the same buffers (as many as a timed run), then "
                                 "new values checked");
        }
        val.seeds = opt.seeds;
        val.checks.push_back(std::to_string(opt.seeds) +
                             " random seeds, each called twice on fresh copies inside canary zones: output read on the "
                             "call's stream, inputs overwritten after return, then a device-wide sync; inputs checked "
                             "bit-identical; eager float32 computed and NaN-filled before the kernel");

        if (opt.edgeCases) {
            auto edge = [&](const std::string& name, const TaskSpec& s, const CompiledTask& c, Operands o, bool misalign) {
                at::Tensor ref;
                try {
                    ref = reference(s, c, o);
                } catch (const std::exception& e) {
                    val.checks.push_back("edge " + name + ": skipped, the task itself rejects it (" + shortError(e) + ")");
                    return;
                }
                std::vector<Guarded> g;
                const Operands og = guardedOperands(o, misalign, g);
                at::Tensor out;
                try {
                    out = call(og);
                    ++calls;
                } catch (const KernelThrew& e) {
                    val.checks.push_back("edge " + name + ": refused by the kernel (" + e.what() + ")");
                    return;
                }
                cudaCheck(cudaDeviceSynchronize(), "edge " + name);
                guards::Comparison cmp = compare(out, ref);
                std::string note;
                if (!cmp.pass && out.sizes().equals(ref.sizes()) && at::isFloatingType(ref.scalar_type())) {
                    // Fair to the kernel where the task itself is ill-conditioned: elements the
                    // reference makes non-finite (a matmul spreads one NaN over a column) are not
                    // judged, and where eager float32 is off too the kernel may be off by 8x as much.
                    const at::Tensor finite = ref.isfinite();
                    const at::Tensor o64 = out.to(at::kDouble), r64 = ref;
                    const at::Tensor eager = runForward(s, c, o.inputs, o.params).to(at::kDouble);
                    const at::Tensor eagerErr = (eager - r64).abs().masked_fill(~finite, 0);
                    const at::Tensor kernelErr = (o64 - r64).abs().masked_fill(~finite, 0);
                    const at::Tensor tol = (opt.atol + opt.rtol * r64.abs()).masked_fill(~finite, 0);
                    // Per element 8x eager's error, and 4x eager's largest error anywhere: a sum of
                    // large values is off by its summands' rounding wherever it lands.
                    const double eagerMax = eagerErr.numel() ? eagerErr.max().item<double>() : 0.0;
                    const at::Tensor allowed = at::maximum(at::maximum(tol, eagerErr * 8), at::full_like(tol, 4 * eagerMax));
                    const at::Tensor bad = (kernelErr > allowed) | (finite & ~o64.isfinite());
                    const int64_t nBad = bad.sum().item<int64_t>();
                    if (nBad == 0) {
                        cmp.pass = true;
                        note = " (judged where the reference is finite, against eager float32's own error there)";
                    }
                }
                val.checks.push_back("edge " + name + note);
                record(cmp, "edge " + name);
            };
            const Operands base = draw(spec, 7);
            edge("misaligned (+1 element) pointers", spec, ct, base, true);
            Operands special = base;
            for (auto& t : special.inputs)
                if (at::isFloatingType(t.scalar_type()) && t.numel() >= 3) {
                    t = t.clone();
                    auto flat = t.view({-1});
                    flat.index_put_({0}, NAN);
                    flat.index_put_({t.numel() / 2}, INFINITY);
                    flat.index_put_({t.numel() - 1}, -INFINITY);
                }
            edge("NaN/Inf inputs", spec, ct, special, false);
            Operands big = base;
            for (auto& t : big.inputs)
                if (at::isFloatingType(t.scalar_type())) t = t * 1e3;
            edge("large inputs (x1e3)", spec, ct, big, false);
            if (spec.artifactPath.empty() && !spec.dimNames().empty()) {
                // Odd sizes: every named dim at the small preset made odd (a traced task's
                // shapes are baked in, so only TorchScript-source tasks get this).
                TaskSpec odd = spec;
                std::map<std::string, int64_t> sizes;
                for (const auto& n : spec.dimNames()) {
                    const auto& small = spec.dims.count("small") && spec.dims.at("small").count(n) ? spec.dims.at("small")
                                                                                                     : spec.dims.at("full");
                    const int64_t v = small.count(n) ? small.at(n) : 1;
                    sizes[n] = v > 2 ? ((v / 2) | 1) : v;
                }
                odd.overrideDims(opt.preset, sizes);
                try {
                    const CompiledTask oc = compileTask(odd);
                    std::string desc;
                    for (const auto& [n, v] : sizes) desc += (desc.empty() ? "" : ",") + n + "=" + std::to_string(v);
                    edge("odd sizes (" + desc + ")", odd, oc, draw(odd, 8), false);
                } catch (const Error& e) {
                    val.checks.push_back(std::string("edge odd sizes: skipped (") + e.what() + ")");
                }
            }
        }
    } catch (const KernelThrew& e) {
        r.error = std::string(e.what()) + " (at the task's shape)";
    } catch (const Error& e) {
        r.error = e.what();
    } catch (const std::exception& e) {
        r.error = shortError(e);
    }
    if (cudaGetLastError() != cudaSuccess || cudaDeviceSynchronize() != cudaSuccess) {
        if (r.error.empty()) r.error = "the CUDA context is broken after this kernel";
    }
    val.maxAbsErr = maxAbs;
    val.maxRelErr = maxRel;
    if (errCount > 0 && ref2 > 0) {
        // The floor keeps exact ops (relu, copies: eager error 0) comparable: float32 rounding
        // of the output itself.
        const double eagerRms = std::sqrt(eagerErr2 / static_cast<double>(errCount));
        const double refRms = std::sqrt(ref2 / static_cast<double>(errCount));
        const double kernelRms = std::sqrt(kernelErr2 / static_cast<double>(errCount));
        const double floorRms = std::ldexp(1.0, -24) * refRms;
        r.external.precisionRatio = kernelRms / std::max(eagerRms, floorRms);
        // Reduced precision makes errors of 1e-4..1e-2 of the values; a bug makes them O(1).
        if (r.external.precisionRatio > opt.precisionRatio && kernelRms <= 1e-2 * refRms)
            hit("precision", "error against float64 is " + c10::str(r.external.precisionRatio) +
                                 "x eager float32's (RMS " + c10::str(kernelRms) + " vs " + c10::str(std::max(eagerRms, floorRms)) +
                                 "): lower precision than the task's float32");
    }
    val.passed = r.error.empty() && val.failures.empty();

    // Which kernels one call launches (the profiler's names): only library kernels = "library".
    if (r.error.empty()) {
        try {
            using namespace torch::autograd::profiler;
            using torch::profiler::impl::ActivityType;
            const Operands o = draw(spec, 11);
            torch::profiler::impl::ProfilerConfig cfg(torch::profiler::impl::ProfilerState::KINETO);
            const std::set<ActivityType> acts{ActivityType::CPU, ActivityType::CUDA};
            prepareProfiler(cfg, acts);
            enableProfiler(cfg, acts);
            at::Tensor out = call(o);
            cudaCheck(cudaDeviceSynchronize(), "profiled call");
            auto res = disableProfiler();
            std::set<std::string> names;
            for (const auto& e : res->events())
                if (e.deviceType() == c10::DeviceType::CUDA && e.name().rfind("Memcpy", 0) != 0 &&
                    e.name().rfind("Memset", 0) != 0)
                    names.insert(e.name());
            r.external.kernelNames.assign(names.begin(), names.end());
            if (names.empty()) val.checks.push_back("profiler: no CUDA kernel recorded (profiler unavailable or no launch)");
            else if (std::all_of(names.begin(), names.end(), isLibraryKernel))
                hit("library", "every kernel a call launched is a library kernel (" + *names.begin() +
                                   (names.size() > 1 ? ", ..." : "") + ")");
        } catch (const std::exception& e) {
            val.checks.push_back("profiler: " + shortError(e));
        }
    }

    // Timing on seed-0 operands, then re-checks: the last timed output, fresh values at the
    // same addresses, and fresh values against repeated ones for speed.
    if (opt.time && r.error.empty()) {
        // A kernel already wrong on the seeds is wrong when timed too: only a kernel that was
        // right can be caught changing behaviour in the timing phase.
        const bool wasRight = val.failures.empty();
        auto hitTimed = [&](const std::string& guard, const std::string& detail) {
            if (wasRight) hit(guard, detail);
        };
        try {
            const Operands o = draw(spec, 0);
            const at::Tensor ref = reference(spec, ct, o);
            Timer timer(stream, opt.l2Flush, job.l2Bytes, opt.hideLaunchLatency);
            at::Tensor last;
            auto launch = [&] { last = call(o); };
            // Timed interleaved with the baselines on the same operands (A/B blocks).
            BaselineSet set(job, spec, ct, o.inputs, o.params);
            std::vector<Contender> contenders = set.contenders();
            contenders.push_back({r.name, launch});
            const Interleaved timed = timeInterleaved(timer, contenders, opt);
            calls += static_cast<int>(timed.ms.back().size()) + opt.warmup + 3 * (timed.stats.back().blocks - 1);
            r.timing = timed.stats.back();
            compareWithBaselines(r, timed, set.kinds());
            cudaCheck(cudaDeviceSynchronize(), "after the timed runs");
            // Against the inputs as they are now: a kernel that wrote its inputs is the
            // input-write guard's, not a timing-phase change of behaviour.
            if (!compare(last, reference(spec, ct, o)).pass)
                hitTimed("replay", "after " + std::to_string(calls) + " calls (the timed runs) the output of the last timed run is "
                                                                 "wrong: the kernel behaves differently when timed");
            // Fresh values written into the same buffers: a result cached by pointer or by call
            // count comes back stale.
            std::vector<double> freshMs;
            const int freshSets = 4;
            std::vector<Operands> sets;
            std::vector<at::Tensor> refs;
            for (int k = 0; k < freshSets; ++k) {
                sets.push_back(draw(spec, 5000 + static_cast<uint64_t>(k)));
                refs.push_back(reference(spec, ct, sets.back()));
            }
            cudaEvent_t a, b;
            cudaCheck(cudaEventCreate(&a), "cudaEventCreate");
            cudaCheck(cudaEventCreate(&b), "cudaEventCreate");
            const int freshRuns = std::max(8, std::min(opt.runs, 64));
            for (int i = 0; i < freshRuns; ++i) {
                overwrite(o, sets[static_cast<size_t>(i % freshSets)]);
                if (opt.hideLaunchLatency) cudaCheck(kernels::spinFor(timer.spinUs, stream), "spin kernel");
                cudaCheck(cudaEventRecord(a, stream), "cudaEventRecord");
                at::Tensor out = call(o);
                cudaCheck(cudaEventRecord(b, stream), "cudaEventRecord");
                cudaCheck(cudaEventSynchronize(b), "cudaEventSynchronize");
                float t = 0;
                cudaCheck(cudaEventElapsedTime(&t, a, b), "cudaEventElapsedTime");
                freshMs.push_back(t);
                cudaCheck(cudaDeviceSynchronize(), "fresh-value run");
                if (!compare(out, refs[static_cast<size_t>(i % freshSets)]).pass) {
                    hitTimed("replay", "during the timed phase, new values written into the same input buffers gave a wrong "
                                  "result (run " + std::to_string(i) + " after the timed runs): a result cached by address, "
                                  "shape or call count");
                    break;
                }
            }
            cudaEventDestroy(a);
            cudaEventDestroy(b);
            if (freshMs.size() >= 8) {
                std::sort(freshMs.begin(), freshMs.end());
                const double freshMedian = freshMs[freshMs.size() / 2];
                // An honest kernel runs as fast on new values (they were just written, so they sit
                // in L2 like repeated ones); skipping work on recognised inputs shows as a gap.
                if (r.timing.medianMs > 0 && r.timing.medianMs < 0.7 * freshMedian)
                    hitTimed("replay", "runs on repeated inputs took " + c10::str(r.timing.medianMs) + " ms, on fresh values " +
                                      c10::str(freshMedian) + " ms (" + c10::str(freshMedian / r.timing.medianMs) +
                                      "x): the kernel skips work when it sees inputs again");
                val.checks.push_back("timed phase: last output checked; " + std::to_string(freshMs.size()) +
                                     " runs on fresh values in the same buffers checked and timed (median " +
                                     c10::str(freshMedian) + " ms)");
            }
            const double synced = timer.syncedPerRun(launch, std::max(1, std::min(opt.runs, 200)));
            std::string why;
            if (guards::escapesTimedStream(r.timing.medianMs, synced, &why)) hit("async-work", "timing: " + why);
            const double bytes = minimumTraffic(o.all(), ref);
            if (r.timing.medianMs > 0) {
                r.gbps = bytes / (r.timing.medianMs * 1e-3) / 1e9;
                if (job.copyBandwidthGBs > 0) r.pctCopyBandwidth = 100.0 * r.gbps / job.copyBandwidthGBs;
                if (std::isnan(r.speedup) && job.baselineMedianMs > 0) r.speedup = job.baselineMedianMs / r.timing.medianMs;
                r.impossible = guards::impossibleSpeed(bytes, 0, r.timing.medianMs, job.copyBandwidthGBs,
                                                       job.fp32PeakTflops, job.l2Bytes, opt.l2Flush, &r.impossibleWhy);
            }
        } catch (const KernelThrew& e) {
            r.error = std::string(e.what()) + " (timing)";
        } catch (const std::exception& e) {
            r.error = shortError(e);
        }
    }
    if (!r.guardHits.empty())
        for (const auto& h : r.guardHits)
            if (h.guard != "library") val.passed = false;
    BenchRun tmp;
    TaskBench tb;
    tb.variants.push_back(r);
    tmp.tasks.push_back(tb);
    return json::parse(benchToJson(tmp))["tasks"][0]["variants"][0];
}

} // namespace ks
