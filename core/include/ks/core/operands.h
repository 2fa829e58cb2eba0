// SPDX-License-Identifier: MIT
#pragma once
// A task's operands, drawn once per seed and shared by every pass that runs the task on that seed:
// the output and input-impact passes (filters 1-4), filter 6's check runs and filter 5's checks
// and timings. On the CPU generator (robust-kbench's samples) each seed is its own generator
// stream, so the seeds are drawn in parallel on host threads, ahead of the device work that needs
// them; the samples are exactly those of drawing them one after the other on the global generator.
// This header pulls in ATen; include it only from engine-side translation units.

#include "ks/core/taskspec.h"

#include <ATen/ATen.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace ks {

struct OperandStats {
    int threads = 0;             // host threads that may draw at once (0: drawn on the device)
    int draws = 0;               // operand sets drawn (a seed's inputs + params, or params alone)
    int reuses = 0;              // requests served from a set drawn before
    int redraws = 0;             // sets drawn again: the host budget had not let them stay
    double drawSeconds = 0;      // summed over the drawing threads
    double helperSeconds = 0;    // summed over the helper threads of split tensors
    double waitSeconds = 0;      // callers blocked on a draw that was not ready
    double uploadSeconds = 0;    // host -> device copies
    int64_t uploadBytes = 0;     // what those copies moved (on the CPU: the copies handed out)
    int64_t setBytes = 0;        // one seed's inputs + params (as drawn, on the host)
    int64_t peakHostBytes = 0;   // most operand bytes held on the host at once
    int64_t hostBudgetBytes = 0; // what prefetching and keeping may hold
    int deviceReuses = 0;        // of the reuses, those served from a device copy kept after an upload
    int deviceHandovers = 0;     // of those, kept copies handed over themselves at their last use (takeSeed)
    int deviceLoans = 0;         // of those, kept copies lent for reading only (borrowSeed)
    int64_t peakDeviceKeptBytes = 0; // most bytes those device copies held at once
};

// Host memory the operand caches may hold when the caller sets no budget: half of what the machine
// reports available (MemAvailable) at the call, at least 1 GiB.
int64_t defaultOperandBudget();
// Drawing threads when the caller sets none: min(8, half the hardware threads), at least 1. For
// one of `share` workers on a GPU (filter --workers-per-gpu): min(8, (hardware threads - 2) /
// share), at least 1, so that together they leave two threads to the engines.
int defaultDrawThreads(int share = 1);

// A host tensor on a CUDA device, the same bytes as host.to(device). A contiguous pageable one goes
// through page-locked staging buffers (chunks of `chunkBytes`, 0: 64 MiB), copied into them on a
// few threads while the previous chunk is on its way: the driver's own pageable copy is limited by
// one core's memcpy. The copies are queued on the device's current stream and the call returns
// once the last is queued, as a non-blocking copy from pinned memory does. Anything else (pinned,
// strided, a CPU device) is host.to(device). The operands' uploads use it for pageable tensors of
// 64 MiB or more unless KS_STAGED_UPLOAD=0 (stagedUploadEnabled(); measured in
// bench/engine/RESULTS.md, 2026-12-06).
at::Tensor uploadThroughStaging(const at::Tensor& host, const at::Device& device, int64_t chunkBytes = 0);
bool stagedUploadEnabled();
// A host tensor on a CUDA device, the same bytes as host.to(device), a contiguous pageable one
// copied straight from its own pages: they are page-locked in place (cudaHostRegister), copied
// with one cudaMemcpyAsync on the device's current stream, and unlocked once that copy is done (the
// call waits for it). No memcpy through staging buffers; the locking costs per page, so huge pages
// (ks::hugePageEnv) make it cheap. Where locking fails it goes through the staging buffers.
// Anything else as uploadThroughStaging. Opt-in for the operands' uploads (KS_UPLOAD_REGISTER=1,
// registeredUploadEnabled()) until measured against the staging buffers (bench/engine/upload_bench.cpp).
at::Tensor uploadRegistered(const at::Tensor& host, const at::Device& device);
bool registeredUploadEnabled();

// Device bytes a task's kept copies (Options::deviceKeepBytes) may take in a worker that may use
// `capBytes` of the device: an eighth of it at most, and only what leaves room for the heaviest
// holder of operands, filter 6, which holds four sets (three seeds and the zero-input run) beside
// one forward of `forwardPeakBytes` (the import's measured peak; <= 0: taken as two sets), with a
// sixteenth of the memory spare. 0 where that leaves nothing.
int64_t deviceKeepBudget(int64_t capBytes, int64_t setBytes, int64_t forwardPeakBytes);

class OperandSource {
public:
    struct Options {
        Preset preset = Preset::Small;
        at::Device device{at::kCPU};
        // true: robust-kbench's samples (CPU generator, copied to the device); false: drawn on the
        // device with its own generator, on demand, nothing kept.
        bool cpuGenerator = true;
        int threads = 0;             // drawing threads; 0: min(8, hardware threads)
        // A large tensor is split over helper threads while fewer than `splitCores` threads of the
        // process draw (ks/core/splitdraw.h: the same numbers); 0 or 1: never split. Parts of at
        // least `splitMinElements` (0: 2^20).
        int splitCores = 0;
        int64_t splitMinElements = 0;
        int64_t hostBudgetBytes = 0; // 0: defaultOperandBudget()
        // false: prefetching may always hold one set, even one larger than the budget (it is
        // needed anyway). true (drawing for a task that has not started): never over the budget;
        // what does not fit is drawn when the task asks for it.
        bool strictBudget = false;
        // Device bytes of untouched copies of uploaded sets kept on the run's device (0: none).
        // The analyses ask again for seeds 0..2 and the input-impact pass for each seed's inputs;
        // a kept part is then handed out as a device-to-device copy instead of another upload.
        // Parts are kept first come while they fit; release() frees them; params-only sets (asked
        // once) are never kept. On the CPU an "upload" is a copy too, so tests may set it there.
        int64_t deviceKeepBytes = 0;
        // CUDA runs draw tensors of up to this many bytes (as float32) into page-locked memory,
        // larger ones pageable (uploaded through the staging buffers); -1: 1 GiB. Page-locked
        // blocks are cached in power-of-two sizes until the engine trims the cache.
        int64_t maxPinnedBytes = -1;
    };
    OperandSource(const TaskSpec& spec, Options options);
    // Seeds 0..seeds-1 of `spec`, drawing ahead with the default threads and budget (what an
    // analysis run on its own draws).
    static std::unique_ptr<OperandSource> forSeeds(const TaskSpec& spec, Preset preset, const at::Device& device,
                                                   bool cpuGenerator, int seeds);
    ~OperandSource(); // waits for draws in flight; frees everything
    OperandSource(const OperandSource&) = delete;
    OperandSource& operator=(const OperandSource&) = delete;

    const std::string& taskId() const;
    // A source drawn ahead becomes the running task's: at least `threads` drawing threads from now
    // on, the budget `hostBudgetBytes`, no longer strict.
    void promote(int threads, int64_t hostBudgetBytes);
    // At least `threads` drawing threads from now on; the budget and its strictness are kept
    // (the ahead threads of a finished draw, given to one still drawing).
    void addThreads(int threads);
    // A prefetched draw is queued or running (false once everything asked for is drawn).
    bool drawing() const;
    // Host bytes its drawn sets hold, with those reserved by draws in flight.
    int64_t heldBytes() const;

    // What will be asked for, so it is drawn ahead in the background (CPU generator only; within
    // the host budget, first asked first drawn). Seed s is "inputs, then params, from seed s";
    // params-only p is "params alone from seed p" (the input-impact pass's fixed parameters).
    void prefetchSeeds(int first, int count);
    void prefetchParamsOnly(uint64_t seed);
    // Until resume(): no new background draw starts; returns when none is running, with the
    // seconds waited (filter 5: nothing left of this task's own prefetching runs beside its
    // timing).
    double quiesce();
    void resume();

    struct Set {
        std::vector<at::Tensor> inputs, params;
    };
    // On the run's device, fresh tensors the task may modify. Each call leaves the generators as
    // robust-kbench's sequence leaves them at that point (torch.manual_seed(seed), then the draws):
    // random ops of the forward that follows draw the numbers they would there.
    Set seed(int s);                          // inputs, then params, of seed s
    // seed(s) for the last time, then release(s): kept device copies of the set are handed over
    // themselves instead of copied (the caller may write into them: nobody asks for them again),
    // so the set is not on the device twice.
    Set takeSeed(int s);
    // seed(s) for reading only (filter 6, whose runs copy what they may write into): the kept
    // device copies themselves where there are, so the set is not on the device twice; else
    // seed(s). The caller must not write into them: the first loan takes a checksum of their bits
    // and every later request for the set checks it, throwing if they were written into.
    Set borrowSeed(int s);
    std::vector<at::Tensor> inputsOf(int s);  // the inputs of seed s (the first draws of its stream)
    // seed(s) with all-zero inputs (filter 6's all-zero run): the parameters as seed(s) gives
    // them, and zero tensors of the inputs' sizes, strides and dtypes made on the device, where
    // seed(s) then zero_() would upload values only to overwrite them. The generators as seed(s)
    // leaves them; nothing is kept for it.
    Set seedWithZeroInputs(int s);
    std::vector<at::Tensor> paramsOnly(uint64_t seed);

    // Seed s (or params-only p) will not be asked for again: its host copy is freed.
    void release(int s);
    void releaseParamsOnly(uint64_t seed);

    OperandStats stats() const;

    struct Impl;

private:
    std::unique_ptr<Impl> d;
};

} // namespace ks
