// SPDX-License-Identifier: MIT
// OperandSource: each seed drawn once, ahead, on several host threads, must give exactly the
// tensors (and leave exactly the generator state) of drawing the seeds one after the other on the
// global generator, as robust-kbench's code does; and it must honour its host budget.
#include "ks/core/engine.h"
#include "ks/core/operands.h"
#include "ks/core/suite.h"
#include "ks/core/torchtask.h"
#include "enginetestutil.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <thread>

using namespace ks;

namespace {

const at::Device cpu(at::kCPU);

void expectSame(const std::vector<at::Tensor>& a, const std::vector<at::Tensor>& b, const std::string& what) {
    ASSERT_EQ(a.size(), b.size()) << what;
    for (size_t i = 0; i < a.size(); ++i) {
        EXPECT_EQ(a[i].scalar_type(), b[i].scalar_type()) << what << " #" << i;
        EXPECT_TRUE(at::equal(a[i], b[i])) << what << " #" << i;
    }
}

OperandSource::Options opts(int threads, int64_t budget = 0) {
    OperandSource::Options o;
    o.preset = Preset::Small;
    o.device = cpu;
    o.threads = threads;
    o.hostBudgetBytes = budget;
    return o;
}

// Whether `nextGot` (three numbers drawn right after a request for seed s) is what the global
// generator gives after seed s's inputs and parameters, as robust-kbench's sequence leaves it.
bool generatorAfterSeed(const TaskSpec& spec, uint64_t s, const at::Tensor& nextGot) {
    seedAll(s);
    drawInputs(spec, Preset::Small, cpu);
    drawParams(spec, Preset::Small, cpu);
    return at::equal(nextGot, at::rand({3}));
}

// A source of `spec` on two threads that keeps `keep` bytes of device copies.
OperandSource::Options keptOpts(int64_t keep) {
    OperandSource::Options o = opts(2);
    o.deviceKeepBytes = keep;
    return o;
}

const TaskSpec& builtinTask(const Suite& s, const std::string& id) {
    const TaskSpec* t = s.find(id);
    if (!t) throw Error("no built-in task " + id);
    return *t;
}

} // namespace

// Every built-in task (normal, uniform, randint, in-place samplers, Kaiming parameters, softmax,
// triangular and other post-transforms): seeds 0-4 drawn at once on 4 threads equal the sequential
// draws, and so does the state each request leaves the CPU generator in.
void expectSequentialDraws(const OperandSource::Options& o) {
    const Suite suite = loadSuite("builtin");
    ASSERT_GT(suite.tasks.size(), 100u);
    int withParams = 0;
    for (const auto& spec : suite.tasks) {
        SCOPED_TRACE(spec.id);
        OperandSource src(spec, o);
        src.prefetchSeeds(0, 5);
        if (!spec.params.empty()) src.prefetchParamsOnly(42);
        for (int s = 0; s < 5; ++s) {
            const auto got = src.seed(s);
            const at::Tensor nextGot = at::rand({3});
            seedAll(static_cast<uint64_t>(s));
            const auto inputs = drawInputs(spec, Preset::Small, cpu);
            const auto params = drawParams(spec, Preset::Small, cpu);
            const at::Tensor nextWant = at::rand({3});
            expectSame(got.inputs, inputs, "inputs of seed " + std::to_string(s));
            expectSame(got.params, params, "params of seed " + std::to_string(s));
            EXPECT_TRUE(at::equal(nextGot, nextWant)) << "generator after seed " << s;

            const auto again = src.inputsOf(s);
            const at::Tensor afterInputs = at::rand({3});
            seedAll(static_cast<uint64_t>(s));
            drawInputs(spec, Preset::Small, cpu);
            expectSame(again, inputs, "inputsOf(" + std::to_string(s) + ")");
            EXPECT_TRUE(at::equal(afterInputs, at::rand({3}))) << "generator after the inputs of seed " << s;
        }
        if (!spec.params.empty()) {
            ++withParams;
            const auto fixed = src.paramsOnly(42);
            seedAll(42);
            expectSame(fixed, drawParams(spec, Preset::Small, cpu), "params alone from seed 42");
        }
        const OperandStats st = src.stats();
        EXPECT_EQ(st.draws, spec.params.empty() ? 5 : 6); // 5 seeds (+ the params-only set), once each
        EXPECT_EQ(st.redraws, 0);
        EXPECT_EQ(st.reuses, 5); // inputsOf(s) after seed(s)
        // With device copies kept, inputsOf(s) is served from seed(s)'s (unless it had no inputs).
        if (o.deviceKeepBytes > 0 && !spec.inputs.empty()) EXPECT_EQ(st.deviceReuses, 5);
        if (o.deviceKeepBytes == 0) EXPECT_EQ(st.deviceReuses, 0);
        if (!spec.inputs.empty() || !spec.params.empty()) {
            EXPECT_GT(st.setBytes, 0);
        }
    }
    EXPECT_GT(withParams, 20);
}

TEST(Operands, ParallelSeedsEqualSequentialDraws) { expectSequentialDraws(opts(4)); }

// The same with every tensor of 32 elements or more split over helper threads (what large
// tensors get on a CUDA run, ks/core/splitdraw.h), the helpers taking what 4 drawing threads leave
// of 12 cores.
TEST(Operands, SplitTensorsEqualSequentialDraws) {
    OperandSource::Options o = opts(4);
    o.splitCores = 12;
    o.splitMinElements = 16;
    expectSequentialDraws(o);
    OperandSource::Options one = opts(1);
    one.splitCores = 12;
    one.splitMinElements = 16;
    const Suite suite = loadSuite("builtin");
    OperandSource src(builtinTask(suite, "L1-1"), one);
    src.seed(0);
    EXPECT_GT(src.stats().helperSeconds, 0.0) << "no tensor was split: the test above tests nothing new";
}

// The same served from kept copies (on the CPU an upload is a copy, so the keeping runs there):
// every repeat request gives the drawn tensors and leaves the generators as drawing them would.
TEST(Operands, KeptCopiesEqualSequentialDraws) {
    OperandSource::Options o = opts(4);
    o.deviceKeepBytes = int64_t{1} << 30;
    expectSequentialDraws(o);
}

// The requests of the analyses after the statistics, on L2-66 (inputs and parameters), with kept
// copies (the parameter: 1 GiB of them) and without (0): `src` has served seed 0 once, as `first`.
class AfterTheStatistics : public testing::TestWithParam<int64_t> {
protected:
    const Suite suite = loadSuite("builtin");
    const TaskSpec& spec = builtinTask(suite, "L2-66");
    const int64_t keep = GetParam();
    OperandSource src{spec, keptOpts(keep)};
    const OperandSource::Set first = src.seed(0);
};

// A set's last request (takeSeed: filter 5, the last analysis) gets the kept copies themselves,
// not copies of them, and the set is released: what the caller writes into them is never served,
// and a later request draws the set again. The values and the generator state are seed(s)'s;
// without kept copies takeSeed is seed(s) then release(s).
TEST_P(AfterTheStatistics, TheLastRequestTakesTheKeptCopiesThemselves) {
    const at::Tensor pristineIn = first.inputs[0].clone(), pristineParam = first.params[0].clone();
    auto last = src.takeSeed(0);
    const at::Tensor nextGot = at::rand({3});
    EXPECT_TRUE(generatorAfterSeed(spec, 0, nextGot)) << "the generator after takeSeed(0)";
    EXPECT_TRUE(at::equal(last.inputs[0], pristineIn));
    EXPECT_TRUE(at::equal(last.params[0], pristineParam));
    EXPECT_NE(last.inputs[0].data_ptr(), first.inputs[0].data_ptr());
    OperandStats st = src.stats();
    EXPECT_EQ(st.draws, 1);
    EXPECT_EQ(st.deviceReuses, keep > 0 ? 1 : 0);
    EXPECT_EQ(st.deviceHandovers, keep > 0 ? 1 : 0);
    last.inputs[0].fill_(7);
    last.params[0].fill_(7);
    const auto again = src.seed(0); // released: drawn again, untouched by the writes above
    EXPECT_TRUE(at::equal(again.inputs[0], pristineIn));
    EXPECT_TRUE(at::equal(again.params[0], pristineParam));
    st = src.stats();
    EXPECT_EQ(st.draws, 2);
    EXPECT_EQ(st.deviceHandovers, keep > 0 ? 1 : 0);
}

// Filter 6 borrows a kept set for reading: the kept copies themselves (the same tensors at every
// loan), the values and generator state of seed(s); without kept copies it is seed(s). A write
// into a lent copy is caught at the next request for the set, which throws instead of serving
// what filter 5 would then measure on.
TEST_P(AfterTheStatistics, ALentSetIsTheKeptCopyAndAWriteIntoItIsCaught) {
    const auto lent = src.borrowSeed(0);
    EXPECT_TRUE(generatorAfterSeed(spec, 0, at::rand({3}))) << "the generator after borrowSeed(0)";
    expectSame(lent.inputs, first.inputs, "lent inputs");
    expectSame(lent.params, first.params, "lent parameters");
    const auto again = src.borrowSeed(0);
    EXPECT_EQ(again.inputs[0].data_ptr() == lent.inputs[0].data_ptr(), keep > 0);
    EXPECT_NE(lent.inputs[0].data_ptr(), first.inputs[0].data_ptr());
    EXPECT_EQ(src.stats().deviceLoans, keep > 0 ? 2 : 0);
    expectSame(src.seed(0).inputs, first.inputs, "a copy after the loans");
    lent.inputs[0].add_(1);
    if (keep > 0) {
        EXPECT_THROW(src.seed(0), Error);
        EXPECT_THROW(src.borrowSeed(0), Error); // a later loan checks too (filter 6's one-set mode)
        EXPECT_THROW(src.takeSeed(0), Error);
    } else {
        expectSame(src.seed(0).inputs, first.inputs, "seed(0) after a write into its own copy");
    }
}

// Filter 6's all-zero run: seed(s)'s parameters and generator state, its inputs' sizes, strides
// and dtypes all zero, without uploading the values it zeroes (on the CPU an "upload" is the copy
// handed out: only the parameters' bytes are counted), from kept copies or from the host set.
TEST_P(AfterTheStatistics, TheAllZeroRunCopiesOnlyTheParameters) {
    const int64_t inputBytes = first.inputs[0].nbytes(), before = src.stats().uploadBytes;
    ASSERT_GT(inputBytes, 0);
    auto zero = src.seedWithZeroInputs(0);
    const at::Tensor nextGot = at::rand({3});
    EXPECT_TRUE(generatorAfterSeed(spec, 0, nextGot)) << "the generator after seedWithZeroInputs(0)";
    expectSame(zero.params, first.params, "parameters");
    ASSERT_EQ(zero.inputs.size(), first.inputs.size());
    for (size_t i = 0; i < zero.inputs.size(); ++i) {
        EXPECT_EQ(zero.inputs[i].sizes(), first.inputs[i].sizes());
        EXPECT_EQ(zero.inputs[i].strides(), first.inputs[i].strides());
        EXPECT_EQ(zero.inputs[i].scalar_type(), first.inputs[i].scalar_type());
        EXPECT_EQ(zero.inputs[i].count_nonzero().item<int64_t>(), 0);
    }
    int64_t paramBytes = 0;
    for (const auto& t : first.params) paramBytes += t.nbytes();
    const OperandStats st = src.stats();
    // Kept copies: parameters cloned on the device, nothing uploaded; else only they are.
    EXPECT_EQ(st.uploadBytes - before, keep > 0 ? 0 : paramBytes);
    EXPECT_EQ(st.draws, 1);
    EXPECT_EQ(st.deviceReuses, keep > 0 ? 1 : 0);
    zero.params[0].fill_(7); // fresh tensors: the next request is untouched
    expectSame(src.seed(0).params, first.params, "parameters after a write into the zero run's");
}

INSTANTIATE_TEST_SUITE_P(Operands, AfterTheStatistics, testing::Values(int64_t{1} << 30, int64_t{0}),
                         [](const testing::TestParamInfo<int64_t>& i) { return i.param > 0 ? "Kept" : "NotKept"; });

// A kept copy is never handed out itself: what a task writes into a set it was given does not
// reach the next request, which is served from the kept copy. Sets over the keep budget are
// uploaded again; release() frees the kept copies with the host ones.
TEST(Operands, KeptCopiesStayUntouchedAndWithinTheirBudget) {
    const Suite suite = loadSuite("builtin");
    const TaskSpec& spec = builtinTask(suite, "L2-66"); // inputs and parameters
    ASSERT_FALSE(spec.inputs.empty());
    ASSERT_FALSE(spec.params.empty());
    OperandSource::Options o = opts(2);
    o.deviceKeepBytes = int64_t{1} << 30;
    OperandSource src(spec, o);
    auto a = src.seed(0);
    const at::Tensor pristineIn = a.inputs[0].clone(), pristineParam = a.params[0].clone();
    a.inputs[0].fill_(7);
    a.params[0].fill_(7);
    auto b = src.seed(0);
    EXPECT_TRUE(at::equal(b.inputs[0], pristineIn));
    EXPECT_TRUE(at::equal(b.params[0], pristineParam));
    EXPECT_NE(b.inputs[0].data_ptr(), a.inputs[0].data_ptr());
    b.inputs[0].fill_(8);
    EXPECT_TRUE(at::equal(src.inputsOf(0)[0], pristineIn));
    OperandStats st = src.stats();
    EXPECT_EQ(st.deviceReuses, 2);
    EXPECT_EQ(st.draws, 1);
    const int64_t setBytes = st.setBytes;
    EXPECT_EQ(st.peakDeviceKeptBytes, setBytes); // drawn as float32, as the upload holds it

    // The kept copies go with release(): seed 0 is drawn and uploaded again.
    src.release(0);
    EXPECT_TRUE(at::equal(src.seed(0).inputs[0], pristineIn));
    EXPECT_EQ(src.stats().draws, 2);
    EXPECT_EQ(src.stats().deviceReuses, 2);

    // A budget under one set keeps nothing; one set's worth keeps the first set only.
    for (const int64_t budget : {setBytes - 1, setBytes}) {
        SCOPED_TRACE(budget);
        OperandSource::Options ob = opts(2);
        ob.deviceKeepBytes = budget;
        OperandSource small(spec, ob);
        small.seed(0);
        small.seed(1);
        small.seed(1);
        small.seed(0);
        EXPECT_EQ(small.stats().deviceReuses, budget < setBytes ? 0 : 1);
        EXPECT_LE(small.stats().peakDeviceKeptBytes, budget);
        EXPECT_EQ(small.stats().reuses, 2);
    }
}

// The kept copies' budget: an eighth of the worker's memory at most, and never what filter 6's
// four sets beside the forward's peak (and a sixteenth spare) need.
TEST(Operands, KeptCopiesLeaveRoomForFilter6AndTheForward) {
    const int64_t G = int64_t{1} << 30;
    EXPECT_EQ(deviceKeepBudget(80 * G, G, 2 * G), 10 * G);           // small sets: an eighth
    EXPECT_EQ(deviceKeepBudget(80 * G, 8 * G, 16 * G), 10 * G);      // 80 - 16 - 24 - 5 = 35: an eighth
    EXPECT_EQ(deviceKeepBudget(80 * G, 16 * G, 20 * G), 7 * G);      // 80 - 20 - 48 - 5: less than one set
    EXPECT_EQ(deviceKeepBudget(80 * G, 16 * G, 0), 0);               // unmeasured forward: two sets
    EXPECT_EQ(deviceKeepBudget(80 * G, 4 * G, 70 * G), 0);           // a forward that needs it all
    EXPECT_EQ(deviceKeepBudget(0, G, G), 0);                         // no cap (the CPU)
    EXPECT_EQ(deviceKeepBudget(140 * G, 4 * G, 8 * G), 140 * G / 8); // the H200
}

// What a task writes into its operands must not reach the next request of the same seed.
TEST(Operands, HandsOutCopiesTheTaskMayWriteInto) {
    const Suite suite = loadSuite("builtin");
    const TaskSpec& spec = builtinTask(suite, "L1-23"); // softmax: one input
    OperandSource src(spec, opts(2));
    auto a = src.seed(0);
    ASSERT_EQ(a.inputs.size(), 1u);
    const at::Tensor pristine = a.inputs[0].clone();
    a.inputs[0].fill_(7.0);
    const auto b = src.seed(0);
    EXPECT_TRUE(at::equal(b.inputs[0], pristine));
    EXPECT_EQ(src.stats().draws, 1);
    EXPECT_EQ(src.stats().reuses, 1);
}

// A budget below one set: nothing is kept, a reused seed is drawn again, with the same values.
TEST(Operands, OverTheHostBudgetSeedsAreDrawnAgain) {
    const Suite suite = loadSuite("builtin");
    const TaskSpec& spec = builtinTask(suite, "L1-1");
    OperandSource src(spec, opts(2, /*budget*/ 1));
    const auto first = src.seed(1);
    const auto second = src.seed(1);
    expectSame(first.inputs, second.inputs, "inputs");
    expectSame(first.params, second.params, "params");
    const OperandStats st = src.stats();
    EXPECT_EQ(st.draws, 2);
    EXPECT_EQ(st.redraws, 1);
    EXPECT_EQ(st.reuses, 0); // a redraw is not a reuse
    EXPECT_EQ(st.hostBudgetBytes, 1);

    // A generous budget keeps it: the second request is a reuse.
    OperandSource kept(spec, opts(2, int64_t{1} << 30));
    kept.seed(1);
    kept.seed(1);
    EXPECT_EQ(kept.stats().draws, 1);
    EXPECT_EQ(kept.stats().reuses, 1);
    EXPECT_GE(kept.stats().peakHostBytes, kept.stats().setBytes);
}

// Prefetching never holds more than the budget (it always may hold one set, or nothing would
// run); a released seed makes room for the next.
TEST(Operands, PrefetchStaysWithinTheBudget) {
    const Suite suite = loadSuite("builtin");
    const TaskSpec& spec = builtinTask(suite, "L1-1");
    int64_t setBytes = 0;
    {
        OperandSource probe(spec, opts(1));
        probe.seed(0);
        setBytes = probe.stats().setBytes;
    }
    ASSERT_GT(setBytes, 0);
    // Room for about two estimated sets (the estimate is 8 bytes an element: twice float32).
    OperandSource src(spec, opts(4, 4 * setBytes + setBytes / 2));
    src.prefetchSeeds(0, 8);
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    EXPECT_LE(src.stats().peakHostBytes, 4 * setBytes + setBytes / 2);
    EXPECT_GE(src.stats().draws, 1);
    EXPECT_LT(src.stats().draws, 8); // the budget stopped the prefetch
    for (int s = 0; s < 8; ++s) {
        src.seed(s);
        src.release(s);
    }
    EXPECT_EQ(src.stats().draws, 8);
    EXPECT_EQ(src.stats().redraws, 0);
}

// A strict budget (the next task's drawing ahead) never prefetches a set that does not fit; the
// task draws it when it asks.
TEST(Operands, AStrictBudgetPrefetchesNothingThatDoesNotFit) {
    const Suite suite = loadSuite("builtin");
    const TaskSpec& spec = builtinTask(suite, "L1-1");
    auto o = opts(2, 1024);
    o.strictBudget = true;
    OperandSource src(spec, o);
    src.prefetchSeeds(0, 2);
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    EXPECT_EQ(src.stats().draws, 0);
    EXPECT_EQ(src.seed(0).inputs.size(), spec.inputs.size()); // drawn on request
    EXPECT_EQ(src.stats().draws, 1);
}

// quiesce(): no background draw starts until resume().
TEST(Operands, QuiesceStopsBackgroundDraws) {
    const Suite suite = loadSuite("builtin");
    const TaskSpec& spec = builtinTask(suite, "L1-1");
    OperandSource src(spec, opts(2));
    src.quiesce();
    src.prefetchSeeds(0, 4);
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    EXPECT_EQ(src.stats().draws, 0);
    src.resume();
    for (int i = 0; i < 200 && src.stats().draws < 4; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    EXPECT_EQ(src.stats().draws, 4);
}

// A draw that fails reaches the caller, each time it asks.
TEST(Operands, ADrawThatFailsThrowsToTheCaller) {
    TaskSpec spec;
    spec.id = "T-bad-draw";
    TensorSpec t;
    t.name = "x";
    t.dtype = "float32";
    t.shape = {Dim{4, ""}};
    t.init.kind = Distribution::Kind::RandInt;
    t.init.a = 5; // low >= high: randint refuses
    t.init.b = 5;
    spec.inputs.push_back(t);
    OperandSource src(spec, opts(2));
    src.prefetchSeeds(0, 1);
    EXPECT_ANY_THROW(src.seed(0));
    EXPECT_ANY_THROW(src.seed(0));

    // A dim the spec does not define: the prefetch's size estimate and the draw both meet it in
    // the drawing threads; the error reaches the caller, the process goes on.
    TaskSpec unknownDim = spec;
    unknownDim.inputs[0].init.kind = Distribution::Kind::Normal;
    unknownDim.inputs[0].shape = {Dim{0, "no_such_dim"}};
    OperandSource src2(unknownDim, opts(2, 1));
    src2.prefetchSeeds(0, 3);
    EXPECT_ANY_THROW(src2.seed(1));
    EXPECT_ANY_THROW(src2.seed(0));
}

// The input-impact pass after the output pass (what a task whose two passes' running moments do
// not fit on the device gets) gives the statistics of running them seed by seed side by side.
TEST(Operands, TheInputImpactPassAfterTheOutputPassGivesTheSameStatistics) {
    const Suite suite = loadSuite("builtin");
    std::vector<TaskSpec> tasks;
    for (const char* id : {"L1-23", "L2-66", "L2-13", "KS-10"}) tasks.push_back(builtinTask(suite, id));
    auto run = [&](int beside) {
        EngineOptions o;
        o.device = "cpu";
        o.seeds = 3;
        o.impactBesidePass1 = beside;
        o.redundancy = o.inefficiency = false;
        Engine e(o);
        return e.runAll(tasks, "builtin", Thresholds::defaults());
    };
    const RunResults a = run(1), b = run(0), c = run(-1);
    test::expectSameStatistics(a, b, tasks.size());
    test::expectSameStatistics(a, c, tasks.size());
    int after = 0;
    for (size_t i = 0; i < tasks.size(); ++i) {
        SCOPED_TRACE(tasks[i].id);
        EXPECT_FALSE(a.tasks[i].impactAfterOutputPass);
        EXPECT_FALSE(c.tasks[i].impactAfterOutputPass); // the CPU has no device to run out of
        after += b.tasks[i].impactAfterOutputPass;
        // Without parameters there is no second pass to move.
        EXPECT_EQ(b.tasks[i].impactAfterOutputPass, !tasks[i].params.empty());
    }
    EXPECT_GT(after, 0);
}

// The filters' results do not depend on how many threads draw, nor on the budget.
TEST(Operands, EngineResultsDoNotDependOnDrawThreadsOrBudget) {
    const Suite suite = loadSuite("builtin");
    std::vector<TaskSpec> tasks;
    for (const char* id : {"L1-1", "L1-23", "L1-95", "L2-66", "L2-13"}) tasks.push_back(builtinTask(suite, id));
    auto run = [&](int threads, int64_t budget, int64_t keep = 0, bool inefficiency = false) {
        EngineOptions o;
        o.device = "cpu";
        o.seeds = 3;
        o.drawThreads = threads;
        o.hostBudgetBytes = budget;
        o.deviceKeepBytes = keep;
        // Timings differ run to run; filter 6 and the statistics must not.
        o.inefficiency = inefficiency;
        Engine e(o);
        return e.runAll(tasks, "builtin", Thresholds::defaults());
    };
    // d: the analyses' seeds and the input-impact pass's inputs served from kept copies, filter 6
    // borrowing them; e: filter 5 after it too, which finds them unwritten (or the task errs).
    const RunResults a = run(1, 0), b = run(6, 0), c = run(3, 1), d = run(2, 0, int64_t{1} << 30),
                     e = run(2, 0, int64_t{1} << 30, true);
    ASSERT_EQ(a.tasks.size(), tasks.size());
    for (size_t i = 0; i < tasks.size(); ++i) {
        SCOPED_TRACE(tasks[i].id);
        EXPECT_EQ(a.tasks[i].operandDeviceReuses, 0);
        EXPECT_GT(d.tasks[i].operandDeviceReuses, 0);
        EXPECT_GT(d.tasks[i].peakOperandDeviceKeptBytes, 0);
        EXPECT_TRUE(e.tasks[i].inefficiency && e.tasks[i].inefficiency->error.empty())
            << (e.tasks[i].inefficiency ? e.tasks[i].inefficiency->error : e.tasks[i].error);
        for (const RunResults* other : {&b, &c, &d, &e}) {
            const TaskResult &x = a.tasks[i], &y = other->tasks[i];
            EXPECT_EQ(x.status, y.status) << x.error << " / " << y.error;
            EXPECT_EQ(x.range.maxAbs, y.range.maxAbs);
            EXPECT_EQ(x.outputStd.maxStd, y.outputStd.maxStd);
            EXPECT_EQ(x.inputImpact.maxStd, y.inputImpact.maxStd);
            ASSERT_EQ(x.seedStats.size(), y.seedStats.size());
            for (size_t s = 0; s < x.seedStats.size(); ++s) EXPECT_EQ(x.seedStats[s].mean, y.seedStats[s].mean);
            ASSERT_TRUE(x.redundancy && y.redundancy);
            EXPECT_EQ(x.redundancy->nodes.size(), y.redundancy->nodes.size());
        }
        // Each seed is drawn once for the statistics and filter 6 (budget permitting).
        EXPECT_GT(a.tasks[i].operandReuses, 0);
        EXPECT_GT(c.tasks[i].operandRedraws, 0);
        EXPECT_TRUE(a.tasks[i].phaseSeconds.count("statistics"));
        EXPECT_TRUE(a.tasks[i].phaseSeconds.count("redundancy"));
        EXPECT_GT(a.tasks[i].peakHostBytes, 0);
        // What the worker holds at the task's end, by kind: heap and LibTorch's allocations are
        // anonymous, the libraries mapped from files; no page-locked blocks on the CPU.
        EXPECT_GT(a.tasks[i].rssAnonBytes, int64_t{1} << 20);
        EXPECT_GT(a.tasks[i].rssFileBytes, int64_t{1} << 20);
        EXPECT_LE(a.tasks[i].rssAnonBytes + a.tasks[i].rssFileBytes, a.tasks[i].peakHostBytes);
        EXPECT_EQ(a.tasks[i].pinnedHeldBytes, 0);
    }
}

// A task whose inputs and parameters alone exceed the worker's device memory is reported out of
// memory at once (an error the filter driver retries alone), naming the sizes; one that fits runs.
TEST(Operands, ATaskWhoseOperandsCannotFitIsReportedWithoutRunning) {
    const Suite suite = loadSuite("builtin");
    const TaskSpec& spec = builtinTask(suite, "L1-1"); // two matrices
    const int64_t need = operandDeviceBytes(spec, Preset::Small);
    ASSERT_GT(need, 1024);
    auto run = [&](int64_t cap) {
        EngineOptions o;
        o.device = "cpu";
        o.seeds = 2;
        o.inefficiency = false;
        o.redundancy = false;
        o.memoryCapBytes = cap;
        Engine e(o);
        return e.runTask(spec);
    };
    const TaskResult tight = run(need - 1);
    EXPECT_EQ(tight.status, TaskStatus::Error);
    EXPECT_NE(tight.error.find("task L1-1: out of memory before it ran"), std::string::npos) << tight.error;
    EXPECT_NE(tight.error.find("GiB this worker may use"), std::string::npos) << tight.error;
    EXPECT_EQ(tight.operandDraws, 0) << "drawn although it could not run";
    const TaskResult fits = run(need);
    EXPECT_EQ(fits.status, TaskStatus::Ok) << fits.error;
    EXPECT_EQ(fits.seeds, 2);
}

// The exporter's measured forward (import.peak_device_bytes) beyond what the worker may use: out
// of memory before it runs, though the operands alone would fit; at other shapes than the
// measured ones (a smaller preset) the measurement says nothing and the task runs.
TEST(Operands, ATaskWhoseImportedForwardCannotFitIsReportedWithoutRunning) {
    const Suite suite = loadSuite("builtin");
    TaskSpec spec = builtinTask(suite, "L1-1");
    const int64_t operands = operandDeviceBytes(spec, Preset::Full);
    ASSERT_NE(operands, operandDeviceBytes(spec, Preset::Small));
    spec.importPeakDeviceBytes = 3 * operands;
    spec.importPeakDevice = "NVIDIA H200";
    auto run = [&](Preset p) {
        EngineOptions o;
        o.device = "cpu";
        o.seeds = 2;
        o.preset = p;
        o.inefficiency = false;
        o.redundancy = false;
        o.memoryCapBytes = 2 * operands;
        Engine e(o);
        return e.runTask(spec);
    };
    const TaskResult full = run(Preset::Full);
    EXPECT_EQ(full.status, TaskStatus::Error);
    EXPECT_NE(full.error.find("task L1-1: out of memory before it ran: its forward took"), std::string::npos)
        << full.error;
    EXPECT_NE(full.error.find("when it was imported (NVIDIA H200)"), std::string::npos) << full.error;
    EXPECT_EQ(full.operandDraws, 0) << "drawn although it could not run";
    const TaskResult small = run(Preset::Small);
    EXPECT_EQ(small.status, TaskStatus::Ok) << small.error;
}

// Drawing one or three of the following tasks ahead (on the CPU here, as CUDA runs do) or none
// gives the same results; with three, the three after the current task draw while it runs.
TEST(Operands, EngineResultsDoNotDependOnHowFarAheadItDraws) {
    const Suite suite = loadSuite("builtin");
    std::vector<TaskSpec> tasks;
    for (const char* id : {"L1-1", "L1-23", "L1-95", "L2-66", "L2-13", "L1-19"}) tasks.push_back(builtinTask(suite, id));
    auto options = [](bool ahead, int k) {
        EngineOptions o;
        o.device = "cpu";
        o.seeds = 3;
        o.inefficiency = false;
        o.redundancy = false;
        o.drawAhead = ahead;
        o.drawAheadOnCpu = true;
        o.drawAheadTasks = k;
        return o;
    };
    auto run = [&](bool ahead, int k) {
        Engine e(options(ahead, k));
        return e.runAll(tasks, "builtin", Thresholds::defaults());
    };
    const RunResults none = run(false, 1), one = run(true, 1), three = run(true, 3);
    for (const RunResults* other : {&one, &three}) {
        ASSERT_EQ(other->tasks.size(), tasks.size());
        for (size_t i = 0; i < tasks.size(); ++i) {
            SCOPED_TRACE(tasks[i].id);
            const TaskResult &x = none.tasks[i], &y = other->tasks[i];
            EXPECT_EQ(x.status, y.status) << x.error << " / " << y.error;
            EXPECT_EQ(x.range.maxAbs, y.range.maxAbs);
            EXPECT_EQ(x.outputStd.maxStd, y.outputStd.maxStd);
            EXPECT_EQ(x.inputImpact.maxStd, y.inputImpact.maxStd);
            ASSERT_EQ(x.axes.perAxis.size(), y.axes.perAxis.size());
            for (size_t a = 0; a < x.axes.perAxis.size(); ++a) // NaN for a size-1 axis, in both
                EXPECT_TRUE(x.axes.perAxis[a] == y.axes.perAxis[a] ||
                            (std::isnan(x.axes.perAxis[a]) && std::isnan(y.axes.perAxis[a])))
                    << "axis " << a;
            ASSERT_EQ(x.seedStats.size(), y.seedStats.size());
            for (size_t s = 0; s < x.seedStats.size(); ++s) {
                EXPECT_EQ(x.seedStats[s].mean, y.seedStats[s].mean);
                EXPECT_TRUE(x.seedStats[s].std == y.seedStats[s].std ||
                            (std::isnan(x.seedStats[s].std) && std::isnan(y.seedStats[s].std))); // one value: NaN
            }
            EXPECT_EQ(x.valueHistogram.counts, y.valueHistogram.counts);
        }
    }
    // Task by task: after the first, the next three draw; a task no longer upcoming is dropped.
    Engine e(options(true, 3));
    e.setUpcoming({&tasks[1], &tasks[2], &tasks[3]});
    e.runTask(tasks[0]);
    EXPECT_EQ(e.drawingAhead(), (std::vector<std::string>{"L1-23", "L1-95", "L2-66"}));
    e.setUpcoming({&tasks[5]});
    e.runTask(tasks[1]);
    EXPECT_EQ(e.drawingAhead(), (std::vector<std::string>{"L1-19"}));
    Engine single(options(true, 1));
    single.setUpcoming({&tasks[1]});
    single.runTask(tasks[0]);
    EXPECT_EQ(single.drawingAhead(), (std::vector<std::string>{"L1-23"}));
    // One ahead (K = 1) of four upcoming: once that one's draws are done it no longer takes the
    // place, and the next starts, in order (checked at each task's start and between its seeds).
    Engine window(options(true, 1));
    window.setUpcoming({&tasks[2], &tasks[3], &tasks[4], &tasks[5]});
    std::vector<std::string> ahead;
    for (int round = 0; round < 20 && ahead.size() < 2; ++round) {
        window.runTask(tasks[0]);
        ahead = window.drawingAhead();
    }
    ASSERT_GE(ahead.size(), 2u) << "a finished draw ahead still held the only place";
    const std::vector<std::string> order = {"L1-95", "L2-66", "L2-13", "L1-19"};
    EXPECT_EQ(ahead, std::vector<std::string>(order.begin(), order.begin() + static_cast<long>(ahead.size())));
}

// A source drawn ahead, promoted to the running task's: more drawing threads at once (started
// beside those already running), the same numbers.
TEST(Operands, APromotedSourceDrawsOnMoreThreadsTheSameNumbers) {
    const Suite suite = loadSuite("builtin");
    const TaskSpec& spec = builtinTask(suite, "L1-1");
    OperandSource::Options o = opts(1);
    o.strictBudget = true;
    OperandSource src(spec, o);
    src.prefetchSeeds(0, 6);
    EXPECT_EQ(src.stats().threads, 1);
    src.promote(4, 0);
    EXPECT_EQ(src.stats().threads, 4);
    src.promote(2, 0); // never fewer
    EXPECT_EQ(src.stats().threads, 4);
    for (int s = 0; s < 6; ++s) {
        const auto got = src.seed(s);
        seedAll(static_cast<uint64_t>(s));
        expectSame(got.inputs, drawInputs(spec, Preset::Small, cpu), "inputs of seed " + std::to_string(s));
        expectSame(got.params, drawParams(spec, Preset::Small, cpu), "params of seed " + std::to_string(s));
    }
    EXPECT_EQ(src.stats().draws, 6);
}

// The ahead threads of a finished draw given to a source still drawing (Engine's drawUpcoming):
// more threads, the same budget, still strict; drawing() says whether anything asked for is left.
TEST(Operands, AddedThreadsKeepAnAheadSourcesStrictBudget) {
    const Suite suite = loadSuite("builtin");
    const TaskSpec& spec = builtinTask(suite, "L1-1");
    OperandSource::Options o = opts(1);
    o.strictBudget = true;
    o.hostBudgetBytes = 1; // no set fits: nothing may be drawn ahead
    OperandSource src(spec, o);
    src.prefetchSeeds(0, 2);
    EXPECT_TRUE(src.drawing());
    src.addThreads(3);
    EXPECT_EQ(src.stats().threads, 3);
    src.addThreads(2); // never fewer
    EXPECT_EQ(src.stats().threads, 3);
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    EXPECT_EQ(src.stats().draws, 0) << "a draw ahead went over the strict budget";
    EXPECT_TRUE(src.drawing());
    for (int s = 0; s < 2; ++s) { // asked for: drawn by the caller, over the budget or not
        const auto got = src.seed(s);
        seedAll(static_cast<uint64_t>(s));
        expectSame(got.inputs, drawInputs(spec, Preset::Small, cpu), "inputs of seed " + std::to_string(s));
    }
    EXPECT_FALSE(src.drawing());
}
