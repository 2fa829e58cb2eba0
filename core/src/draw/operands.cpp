// SPDX-License-Identifier: MIT
#include "ks/core/operands.h"
#include "ks/core/procinfo.h"
#include "ks/core/splitdraw.h"
#include "ks/core/torchtask.h"

#include <ATen/CPUGeneratorImpl.h>
#include <ATen/core/Generator.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <exception>
#include <fstream>
#include <map>
#include <mutex>
#include <optional>
#include <sstream>
#include <thread>

namespace ks {
namespace {

using Clock = std::chrono::steady_clock;

constexpr int64_t kDefaultMaxPinnedBytes = int64_t{1} << 30;
// Pageable tensors from this size on may upload through staging buffers (ks/core/operands.h).
constexpr int64_t kMinStagedBytes = int64_t{64} << 20;

double secondsSince(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

int64_t tensorBytes(const std::vector<at::Tensor>& ts) {
    int64_t b = 0;
    for (const auto& t : ts) b += static_cast<int64_t>(t.numel()) * static_cast<int64_t>(t.element_size());
    return b;
}

// Upper bound of one set's host bytes before it is drawn: floats are drawn in float32 and cast
// afterwards, integers as int64, so 8 bytes an element covers every dtype and the cast's copy.
// Never throws (it runs in the drawing threads' scheduling): a shape that cannot be resolved
// counts 0 here, and its draw reports the error to the pass that asks for it.
int64_t estimateBytes(const TaskSpec& spec, Preset preset, bool withInputs) noexcept {
    int64_t b = 0;
    auto add = [&](const std::vector<TensorSpec>& list) {
        for (const auto& t : list) b += 8 * spec.elementsOf(t, preset);
    };
    try {
        if (withInputs) add(spec.inputs);
        add(spec.params);
    } catch (...) {
        return 0;
    }
    return b;
}

void installCpuState(const at::Tensor& state) {
    at::Generator gen = at::detail::getDefaultCPUGenerator();
    std::lock_guard<std::mutex> lock(gen.mutex());
    gen.set_state(state);
}

} // namespace

int64_t defaultOperandBudget() {
    return std::max<int64_t>(procBytes("/proc/meminfo", {"MemAvailable"})[0] / 2, int64_t{1} << 30);
}

int64_t deviceKeepBudget(int64_t capBytes, int64_t setBytes, int64_t forwardPeakBytes) {
    if (capBytes <= 0 || setBytes < 0) return 0;
    const int64_t forward = forwardPeakBytes > 0 ? forwardPeakBytes : 2 * setBytes;
    return std::clamp<int64_t>(capBytes - forward - 3 * setBytes - capBytes / 16, 0, capBytes / 8);
}

int defaultDrawThreads(int share) {
    const int hw = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    if (share > 1) return std::min(8, std::max(1, (hw - 2) / share));
    return std::min(8, std::max(1, hw / 2));
}

struct OperandSource::Impl {
    enum class State { Absent, Queued, Drawing, Ready, Failed };
    struct Entry {
        bool paramsOnly = false;
        uint64_t seed = 0;
        State state = State::Absent;
        bool everDrawn = false;
        int served = 0;
        std::vector<at::Tensor> inputs, params; // on the host (CPU generator runs)
        at::Tensor afterInputs, afterParams;     // CPU generator states after each part
        int64_t bytes = 0;
        std::exception_ptr error;
    };
    using Key = std::pair<bool, uint64_t>; // (params only, seed)

    TaskSpec spec;
    Options opt;
    mutable std::mutex mu;
    std::condition_variable cv;
    std::map<Key, std::shared_ptr<Entry>> entries;
    std::deque<Key> queue;
    std::vector<std::thread> workers;
    bool stopping = false, paused = false;
    int running = 0;
    int64_t held = 0, reserved = 0;
    OperandStats st;
    // Untouched device copies of uploaded parts (Options::deviceKeepBytes), with the generator
    // state each part leaves, so that a request they serve needs no host entry.
    struct Kept {
        std::vector<at::Tensor> inputs, params;
        bool hasInputs = false, hasParams = false;
        at::Tensor afterInputs, afterParams;
        int64_t bytes = 0;
        std::vector<at::Tensor> sums; // once lent (borrowSeed): bitSums() at the first loan
    };
    std::map<Key, Kept> kept;
    int64_t keptBytes = 0;

    Entry& entry(const Key& k) {
        auto& e = entries[k];
        if (!e) {
            e = std::make_shared<Entry>();
            e->paramsOnly = k.first;
            e->seed = k.second;
        }
        return *e;
    }


    // Draws on the host with the entry's own generator: the same numbers as the global generator
    // seeded with e.seed would give, so seeds can be drawn on several threads at once.
    // Returns the seconds of the helper threads that drew parts of its tensors.
    double draw(Entry& e) const {
        at::Generator g = at::make_generator<at::CPUGeneratorImpl>(e.seed);
        DrawSplit split;
        split.coreLimit = opt.splitCores;
        if (opt.splitMinElements > 0) split.minPartElements = opt.splitMinElements;
        double helpers = 0;
        std::vector<at::Tensor> inputs, params;
        // For a CUDA run, tensors are drawn into page-locked memory: they upload asynchronously
        // at full PCIe speed, and the pinned allocator's cached blocks spare the page faults of
        // fresh memory. Not huge tensors: pinned blocks are cached in power-of-two sizes for the
        // rest of the run (or until the engine trims them; Options::maxPinnedBytes).
        const int64_t maxPinned = opt.maxPinnedBytes >= 0 ? opt.maxPinnedBytes : kDefaultMaxPinnedBytes;
        auto one = [&](const TensorSpec& t) {
            const bool pin = opt.device.is_cuda() && 4 * spec.elementsOf(t, opt.preset) <= maxPinned;
            at::Tensor x = drawTensor(spec, t, opt.preset, at::kCPU, at::ScalarType::Undefined, g, pin, &split, &helpers);
            // A post-transform or a cast made a new (pageable) tensor: a pinned copy, made here,
            // off the passes' path.
            if (pin && !x.is_pinned()) x = x.pin_memory();
            return x;
        };
        if (!e.paramsOnly) {
            for (const auto& t : spec.inputs) inputs.push_back(one(t));
            e.afterInputs = g.get_state();
        }
        for (const auto& t : spec.params) params.push_back(t.copyOf >= 0 ? copiedParam(t, params) : one(t));
        e.afterParams = g.get_state();
        e.inputs = std::move(inputs);
        e.params = std::move(params);
        e.bytes = tensorBytes(e.inputs) + tensorBytes(e.params);
        return helpers;
    }

    // Called with the lock held, which it gives up while drawing. `reservation`: what a worker
    // reserved for this draw, returned when the set's real size is counted.
    void drawLocked(Entry& e, std::unique_lock<std::mutex>& lock, int64_t reservation = 0) {
        const bool again = e.everDrawn;
        e.state = State::Drawing;
        lock.unlock();
        const auto t0 = Clock::now();
        std::exception_ptr err;
        double helpers = 0;
        try {
            DrawingNow counted;
            helpers = draw(e);
        } catch (...) {
            err = std::current_exception();
        }
        const double secs = secondsSince(t0);
        lock.lock();
        reserved -= reservation;
        st.drawSeconds += secs;
        st.helperSeconds += helpers;
        ++st.draws;
        if (again) ++st.redraws;
        e.everDrawn = true;
        if (err) {
            e.error = err;
            e.state = State::Failed;
        } else {
            e.state = State::Ready;
            held += e.bytes;
            st.setBytes = std::max(st.setBytes, e.paramsOnly ? 0 : e.bytes);
            st.peakHostBytes = std::max(st.peakHostBytes, held + reserved);
        }
        cv.notify_all();
    }

    bool admits(const Key& k) const {
        const int64_t want = estimateBytes(spec, opt.preset, !k.first);
        return (held + reserved == 0 && !opt.strictBudget) || held + reserved + want <= st.hostBudgetBytes;
    }

    void workerLoop() {
        std::unique_lock<std::mutex> lock(mu);
        for (;;) {
            // Keys a caller has drawn meanwhile (no longer queued) are skipped.
            auto next = [&] {
                while (!queue.empty() && entry(queue.front()).state != State::Queued) queue.pop_front();
                return !queue.empty() && admits(queue.front());
            };
            cv.wait(lock, [&] { return stopping || (!paused && next()); });
            if (stopping) return;
            const Key k = queue.front();
            queue.pop_front();
            Entry& e = entry(k);
            const int64_t want = estimateBytes(spec, opt.preset, !k.first);
            reserved += want;
            ++running;
            drawLocked(e, lock, want);
            --running;
            cv.notify_all();
        }
    }

    void startWorkers() {
        if (!workers.empty() || !opt.cpuGenerator) return;
        for (int i = 0; i < st.threads; ++i) workers.emplace_back([this] { workerLoop(); });
    }

    void enqueue(const Key& k) {
        if (!opt.cpuGenerator) return;
        std::lock_guard<std::mutex> lock(mu);
        Entry& e = entry(k);
        if (e.state != State::Absent) return;
        e.state = State::Queued;
        queue.push_back(k);
        startWorkers();
        cv.notify_all();
    }

    // The host tensors of k, drawn now if nobody has; the entry stays (until released) unless
    // holding it would exceed the budget.
    Entry& ready(const Key& k, std::unique_lock<std::mutex>& lock) {
        Entry& e = entry(k);
        const auto t0 = Clock::now();
        bool waited = false;
        for (;;) {
            if (e.state == State::Ready) break;
            if (e.state == State::Failed) {
                std::exception_ptr err = e.error;
                e.state = State::Absent; // a later request tries again
                std::rethrow_exception(err);
            }
            if (e.state == State::Drawing) {
                waited = true;
                cv.wait(lock);
                continue;
            }
            drawLocked(e, lock); // Absent or Queued (a queued key is then skipped by the workers)
        }
        if (waited) st.waitSeconds += secondsSince(t0);
        if (e.served++ > 0) ++st.reuses;
        return e;
    }

    // uploadThroughStaging itself sends pinned and strided tensors to host.to().
    static bool stagedUpload(const at::Tensor& t) {
        return stagedUploadEnabled() && static_cast<int64_t>(t.nbytes()) >= kMinStagedBytes;
    }

    std::vector<at::Tensor> upload(const std::vector<at::Tensor>& host) {
        const auto t0 = Clock::now();
        std::vector<at::Tensor> out;
        out.reserve(host.size());
        // The cache must stay as drawn: a task that writes into its inputs gets its own copy.
        // On CUDA the copy from pinned memory is asynchronous on the current stream, ahead of
        // the forward that reads it.
        // Large pageable tensors (over Options::maxPinnedBytes, drawn outside the pinned cache) may go
        // through page-locked staging buffers (unless KS_STAGED_UPLOAD=0), asynchronous too, or
        // with KS_UPLOAD_REGISTER=1 straight from their own pages, locked for the copy.
        for (const auto& t : host)
            out.push_back(opt.device.is_cpu() ? t.clone()
                          : stagedUpload(t)   ? (registeredUploadEnabled() ? uploadRegistered(t, opt.device)
                                                                           : uploadThroughStaging(t, opt.device))
                                              : t.to(at::TensorOptions().device(opt.device), /*non_blocking=*/t.is_pinned()));
        std::lock_guard<std::mutex> lock(mu);
        st.uploadSeconds += secondsSince(t0);
        st.uploadBytes += tensorBytes(host);
        return out;
    }

    void dropIfOverBudget(Entry& e) {
        if (held <= st.hostBudgetBytes || e.state != State::Ready) return;
        held -= e.bytes;
        e.inputs.clear();
        e.params.clear();
        e.state = State::Absent;
        e.served = 0; // drawn again when asked for: a redraw, not a reuse
    }

    void release(const Key& k) {
        std::lock_guard<std::mutex> lock(mu);
        if (auto kt = kept.find(k); kt != kept.end()) {
            keptBytes -= kt->second.bytes;
            kept.erase(kt);
        }
        auto it = entries.find(k);
        if (it == entries.end()) return;
        Entry& e = *it->second;
        if (e.state == State::Queued) {
            queue.erase(std::remove(queue.begin(), queue.end(), k), queue.end());
            e.state = State::Absent;
        }
        if (e.state == State::Ready) {
            held -= e.bytes;
            e.inputs.clear();
            e.params.clear();
            e.state = State::Absent;
            e.served = 0;
            cv.notify_all(); // room for the next prefetch
        }
    }

    // Set k's kept copies when they hold the parts asked for (the lock held); nullptr otherwise.
    Kept* keptWith(const Key& k, bool inputs, bool params) {
        auto kt = kept.find(k);
        if (kt == kept.end() || (inputs && !kt->second.hasInputs) || (params && !kt->second.hasParams)) return nullptr;
        return &kt->second;
    }

    // The generators as seed k's draws up to `state` leave them (torch.manual_seed(seed) for the
    // device ones), as robust-kbench's sequence has them when the forward runs.
    static void leaveGenerators(const Key& k, const at::Tensor& state) {
        seedAll(k.second);
        installCpuState(state);
    }

    // The bits of every kept tensor summed as integers (one 0-dim tensor each, on its device): a NaN
    // equals itself there, and a write into a lent copy changes its sum.
    static std::vector<at::Tensor> bitSums(const Kept& c) {
        std::vector<at::Tensor> sums;
        for (const auto* part : {&c.inputs, &c.params})
            for (const at::Tensor& t : *part) {
                at::Tensor v = t.is_complex() ? at::view_as_real(t) : t;
                const auto size = v.element_size();
                const at::ScalarType as = size == 1   ? at::kByte
                                          : size == 2 ? at::kShort
                                          : size == 4 ? at::kInt
                                                      : at::kLong;
                sums.push_back(v.view(as).sum(at::kLong)); // 0 without elements
            }
        return sums;
    }

    // A lent set's kept copies as the loan found them, or an error naming the set.
    static void checkUnwritten(const Key& k, const Kept& c) {
        if (c.sums.empty()) return;
        const auto now = bitSums(c);
        for (size_t i = 0; i < now.size(); ++i)
            if (!at::equal(now[i], c.sums[i]))
                throw Error("operands of seed " + std::to_string(k.second) +
                            ": a device copy lent for reading only (filter 6) was written into; results that "
                            "use it would be wrong (report this as a bug)");
    }

    // Set k's kept copies themselves, for reading (borrowSeed); nullopt when it has none.
    std::optional<Set> lend(const Key& k) {
        std::unique_lock<std::mutex> lock(mu);
        Kept* kc = keptWith(k, true, true);
        if (!kc) return std::nullopt;
        Kept& c = *kc;
        checkUnwritten(k, c); // an earlier loan's holder may have written into them
        if (c.sums.empty()) c.sums = bitSums(c);
        ++st.reuses;
        ++st.deviceReuses;
        ++st.deviceLoans;
        Set out{c.inputs, c.params};
        const at::Tensor state = c.afterParams;
        lock.unlock();
        leaveGenerators(k, state);
        return out;
    }

    // The parts asked for of set k, on the device; the generators left as torch.manual_seed(seed)
    // and the draws up to the last part asked for leave them. `last`: nobody asks for set k again
    // (takeSeed): kept copies are handed over themselves and nothing new is kept.
    Set take(const Key& k, bool wantInputs, bool wantParams, bool last = false) {
        // The parts asked for of a drawn entry or of kept copies, and the CPU generator's state
        // after the last of them.
        auto pick = [&](const auto& from, at::Tensor& state) {
            state = wantParams ? from.afterParams : from.afterInputs;
            return Set{wantInputs ? from.inputs : std::vector<at::Tensor>{},
                       wantParams ? from.params : std::vector<at::Tensor>{}};
        };
        std::unique_lock<std::mutex> lock(mu);
        Set out;
        at::Tensor state;
        if (Kept* c = keptWith(k, wantInputs, wantParams)) {
            // Served on the device: copies of the untouched parts, which stay for the next request,
            // or at the last request the parts themselves.
            checkUnwritten(k, *c);
            const Set parts = pick(*c, state);
            ++st.reuses;
            ++st.deviceReuses;
            if (last) {
                ++st.deviceHandovers; // the kept entry goes with takeSeed's release()
                out = parts;
            } else {
                lock.unlock();
                const auto t0 = Clock::now();
                out = Set{clones(parts.inputs), clones(parts.params)};
                lock.lock();
                st.uploadSeconds += secondsSince(t0);
            }
        } else {
            Entry& e = ready(k, lock);
            const Set parts = pick(e, state);
            const at::Tensor afterInputs = e.afterInputs, afterParams = e.afterParams;
            dropIfOverBudget(e);
            lock.unlock();
            out = Set{upload(parts.inputs), upload(parts.params)};
            lock.lock();
            if (!last) keep(k, out, wantInputs, wantParams, afterInputs, afterParams, lock);
        }
        lock.unlock();
        leaveGenerators(k, state);
        return out;
    }

    // take() for filter 6's all-zero run: set k's parameters (a kept copy's clone, else uploaded)
    // and zeros like its inputs, as an upload would lay them out (strides kept where dense).
    Set takeWithZeroInputs(const Key& k) {
        std::unique_lock<std::mutex> lock(mu);
        std::vector<at::Tensor> like, params;
        at::Tensor state;
        bool fromKept = false;
        if (Kept* c = keptWith(k, true, true)) {
            checkUnwritten(k, *c);
            like = c->inputs;
            params = c->params;
            state = c->afterParams;
            fromKept = true;
            ++st.reuses;
            ++st.deviceReuses;
        } else {
            Entry& e = ready(k, lock);
            like = e.inputs;
            params = e.params;
            state = e.afterParams;
            dropIfOverBudget(e);
        }
        lock.unlock();
        Set out;
        out.params = fromKept ? clones(params) : upload(params);
        for (const auto& t : like)
            out.inputs.push_back(at::zeros_like(t, at::TensorOptions().device(opt.device).pinned_memory(false)));
        leaveGenerators(k, state);
        return out;
    }

    static std::vector<at::Tensor> clones(const std::vector<at::Tensor>& ts) {
        std::vector<at::Tensor> out;
        out.reserve(ts.size());
        for (const auto& t : ts) out.push_back(t.clone());
        return out;
    }

    // Called with the lock held, which it gives up while copying: untouched copies of the parts
    // just uploaded, while they fit. On CUDA the copies are queued after the uploads on the same
    // stream, before the caller's forward. A copy that finds no device memory is not kept.
    void keep(const Key& k, const Set& up, bool withInputs, bool withParams, const at::Tensor& afterInputs,
              const at::Tensor& afterParams, std::unique_lock<std::mutex>& lock) {
        if (opt.deviceKeepBytes <= 0 || k.first) return;
        const Kept* have = kept.count(k) ? &kept.at(k) : nullptr;
        const bool addInputs = withInputs && !(have && have->hasInputs);
        const bool addParams = withParams && !(have && have->hasParams); // an empty part is kept too
        const int64_t add = (addInputs ? tensorBytes(up.inputs) : 0) + (addParams ? tensorBytes(up.params) : 0);
        if ((!addInputs && !addParams) || keptBytes + add > opt.deviceKeepBytes) return;
        keptBytes += add; // reserved while copying
        lock.unlock();
        std::vector<at::Tensor> inputs, params;
        bool ok = true;
        try {
            if (addInputs) inputs = clones(up.inputs);
            if (addParams) params = clones(up.params);
        } catch (const c10::OutOfMemoryError&) {
            ok = false;
        }
        lock.lock();
        if (!ok) {
            keptBytes -= add;
            return;
        }
        Kept& c = kept[k];
        if (addInputs) {
            c.inputs = std::move(inputs);
            c.hasInputs = true;
            c.afterInputs = afterInputs;
        }
        if (addParams) {
            c.params = std::move(params);
            c.hasParams = true;
            c.afterParams = afterParams;
        }
        c.bytes += add;
        st.peakDeviceKeptBytes = std::max(st.peakDeviceKeptBytes, keptBytes);
    }

    // Draws straight on the run's device with its generator (--rng device): nothing is kept.
    Set deviceDraw(uint64_t seed, bool inputs, bool params) {
        const auto t0 = Clock::now();
        seedAll(seed);
        Set s;
        if (inputs) s.inputs = drawInputs(spec, opt.preset, opt.device);
        if (params) s.params = drawParams(spec, opt.preset, opt.device);
        std::lock_guard<std::mutex> lock(mu);
        st.drawSeconds += secondsSince(t0);
        ++st.draws;
        return s;
    }
};

std::unique_ptr<OperandSource> OperandSource::forSeeds(const TaskSpec& spec, Preset preset, const at::Device& device,
                                                       bool cpuGenerator, int seeds) {
    Options o;
    o.preset = preset;
    o.device = device;
    o.cpuGenerator = cpuGenerator;
    auto src = std::make_unique<OperandSource>(spec, o);
    src->prefetchSeeds(0, seeds);
    return src;
}

OperandSource::OperandSource(const TaskSpec& spec, Options options) : d(std::make_unique<Impl>()) {
    d->spec = spec;
    d->opt = options;
    d->st.threads = d->opt.cpuGenerator ? (d->opt.threads > 0 ? d->opt.threads : defaultDrawThreads()) : 0;
    d->st.hostBudgetBytes = d->opt.hostBudgetBytes > 0 ? d->opt.hostBudgetBytes : defaultOperandBudget();
}

OperandSource::~OperandSource() {
    {
        std::lock_guard<std::mutex> lock(d->mu);
        d->stopping = true;
        d->queue.clear();
    }
    d->cv.notify_all();
    for (auto& t : d->workers) t.join();
}

const std::string& OperandSource::taskId() const { return d->spec.id; }

void OperandSource::promote(int threads, int64_t hostBudgetBytes) {
    {
        std::lock_guard<std::mutex> lock(d->mu);
        d->opt.strictBudget = false;
        if (hostBudgetBytes > 0) d->st.hostBudgetBytes = hostBudgetBytes;
    }
    addThreads(threads);
}

void OperandSource::addThreads(int threads) {
    {
        std::lock_guard<std::mutex> lock(d->mu);
        if (d->opt.cpuGenerator && threads > d->st.threads) {
            // Workers already started (a queue was drawing) get company; otherwise startWorkers
            // starts them all at the new count.
            if (!d->workers.empty())
                for (int i = d->st.threads; i < threads; ++i) d->workers.emplace_back([this] { d->workerLoop(); });
            d->st.threads = threads;
        }
    }
    d->cv.notify_all();
}

int64_t OperandSource::heldBytes() const {
    std::lock_guard<std::mutex> lock(d->mu);
    return d->held + d->reserved;
}

bool OperandSource::drawing() const {
    std::lock_guard<std::mutex> lock(d->mu);
    if (d->running > 0) return true;
    for (const auto& k : d->queue) {
        const auto it = d->entries.find(k);
        if (it != d->entries.end() && it->second->state == Impl::State::Queued) return true;
    }
    return false;
}

void OperandSource::prefetchSeeds(int first, int count) {
    for (int s = first; s < first + count; ++s) d->enqueue({false, static_cast<uint64_t>(s)});
}

void OperandSource::prefetchParamsOnly(uint64_t seed) { d->enqueue({true, seed}); }

double OperandSource::quiesce() {
    const auto t0 = Clock::now();
    std::unique_lock<std::mutex> lock(d->mu);
    d->paused = true;
    d->cv.wait(lock, [&] { return d->running == 0; });
    return secondsSince(t0);
}

void OperandSource::resume() {
    {
        std::lock_guard<std::mutex> lock(d->mu);
        d->paused = false;
    }
    d->cv.notify_all();
}

OperandSource::Set OperandSource::seed(int s) {
    const auto seed = static_cast<uint64_t>(s);
    if (!d->opt.cpuGenerator) return d->deviceDraw(seed, true, true);
    return d->take({false, seed}, true, true);
}

OperandSource::Set OperandSource::takeSeed(int s) {
    const auto seed = static_cast<uint64_t>(s);
    if (!d->opt.cpuGenerator) return d->deviceDraw(seed, true, true);
    Set out = d->take({false, seed}, true, true, /*last=*/true);
    d->release({false, seed});
    return out;
}

OperandSource::Set OperandSource::seedWithZeroInputs(int s) {
    const auto seed = static_cast<uint64_t>(s);
    if (!d->opt.cpuGenerator) { // drawn on the device anyway: the generators must pass the inputs
        Set out = d->deviceDraw(seed, true, true);
        for (auto& t : out.inputs) t.zero_();
        return out;
    }
    return d->takeWithZeroInputs({false, seed});
}

OperandSource::Set OperandSource::borrowSeed(int s) {
    const auto seed = static_cast<uint64_t>(s);
    if (!d->opt.cpuGenerator) return d->deviceDraw(seed, true, true);
    if (auto lent = d->lend({false, seed})) return std::move(*lent);
    return d->take({false, seed}, true, true);
}

std::vector<at::Tensor> OperandSource::inputsOf(int s) {
    const auto seed = static_cast<uint64_t>(s);
    if (!d->opt.cpuGenerator) return d->deviceDraw(seed, true, false).inputs;
    return d->take({false, seed}, true, false).inputs;
}

std::vector<at::Tensor> OperandSource::paramsOnly(uint64_t seed) {
    if (!d->opt.cpuGenerator) return d->deviceDraw(seed, false, true).params;
    return d->take({true, seed}, false, true).params;
}

void OperandSource::release(int s) { d->release({false, static_cast<uint64_t>(s)}); }

void OperandSource::releaseParamsOnly(uint64_t seed) { d->release({true, seed}); }

OperandStats OperandSource::stats() const {
    std::lock_guard<std::mutex> lock(d->mu);
    return d->st;
}

} // namespace ks
