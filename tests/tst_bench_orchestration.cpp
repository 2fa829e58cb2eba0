// SPDX-License-Identifier: MIT
// The harness's orchestration on a machine without a GPU: a fake worker script answers the jobs,
// and crashes on some variants, to check isolation, assembly and the results file round trip.
#include "ks/core/harness.h"
#include "ks/core/process.h"
#include "ks/core/suite.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

using namespace ks;

namespace {
BenchRun runFake(bool crash) {
    if (crash) setenv("FAKE_CRASH", "1", 1);
    else unsetenv("FAKE_CRASH");
    HarnessOptions o;
    const auto tasks = selectTasks(loadBuiltinSuite(), "L1-12,L1-23,L1-1");
    return runBench(tasks, "builtin", o, {std::string(KS_TEST_DATA) + "/fake_worker.sh", {}});
}
} // namespace

TEST(BenchOrchestration, AssemblesEveryTaskWithKernels) {
    const BenchRun run = runFake(false);
    ASSERT_EQ(run.tasks.size(), 2u); // L1-1 has no kernels
    EXPECT_EQ(run.deviceName, "Fake GPU");
    EXPECT_DOUBLE_EQ(run.copyBandwidthGBs, 4000);
    EXPECT_EQ(run.tasks[0].taskId, "L1-12");
    EXPECT_DOUBLE_EQ(run.tasks[0].baseline.medianMs, 2.0);
    EXPECT_DOUBLE_EQ(run.tasks[0].minBytes, 134234112);
    EXPECT_EQ(run.tasks[0].variants.size(), 3u);
    for (const auto& v : run.tasks[0].variants) EXPECT_TRUE(v.validation.passed) << v.name;
    const BenchRun back = benchFromJson(benchToJson(run), "mem");
    EXPECT_EQ(benchToJson(back), benchToJson(run));
    // The speedup's interval and U test come from both sample sets (baseline 1.9-2.1 ms, variant
    // 0.49-0.51 ms): every resampled ratio lies between 1.9/0.51 and 2.1/0.49.
    const VariantResult& v = back.tasks[0].variants[0];
    ASSERT_TRUE(v.speedupStats.measured());
    EXPECT_DOUBLE_EQ(v.speedupStats.ratio, 4.0);
    EXPECT_GE(v.speedupStats.lo, 1.9 / 0.51);
    EXPECT_LE(v.speedupStats.hi, 2.1 / 0.49);
    EXPECT_FALSE(v.speedupStats.noMeasurableDifference());
    EXPECT_DOUBLE_EQ(v.speedupStats.pValue, 0.1); // exact U test, 3 against 3, no overlap
    EXPECT_EQ(v.speedupStats.resamples, 2000);
}

// Bench files written before the interval was recorded load, with it unmeasured.
TEST(BenchOrchestration, OldBenchFilesLoadWithoutAnInterval) {
    const std::string text = R"({"schema":"kernelsieve.bench","schema_version":1,"run":{},"tasks":[{"task_id":"L1-12",
        "baseline":{"median_ms":2.0},"variants":[{"name":"v1","speedup":4.0,"timing":{"median_ms":0.5}}]}]})";
    const BenchRun b = benchFromJson(text, "old.json");
    ASSERT_EQ(b.tasks.size(), 1u);
    ASSERT_EQ(b.tasks[0].variants.size(), 1u);
    const VariantResult& v = b.tasks[0].variants[0];
    EXPECT_DOUBLE_EQ(v.speedup, 4.0);
    EXPECT_FALSE(v.speedupStats.measured());
    EXPECT_FALSE(v.speedupStats.noMeasurableDifference());
    EXPECT_THROW(benchFromJson(std::string(text).insert(text.find("\"speedup\""), R"("speedup_ci95":[1],)"), "bad.json"),
                 Error);
}

TEST(BenchOrchestration, ACrashingWorkerFailsOnlyItsVariant) {
    const BenchRun run = runFake(true);
    ASSERT_EQ(run.tasks.size(), 2u);
    int crashed = 0, ok = 0;
    for (const auto& t : run.tasks)
        for (const auto& v : t.variants) {
            if (v.name.find("kernel2") != std::string::npos) {
                ++crashed;
                EXPECT_FALSE(v.validation.passed);
                EXPECT_NE(v.error.find("signal 11"), std::string::npos) << v.error;
                EXPECT_NE(v.error.find("about to crash"), std::string::npos) << v.error; // the worker's last words
            } else {
                ++ok;
                EXPECT_TRUE(v.validation.passed) << v.name;
            }
        }
    EXPECT_EQ(crashed, 2);
    EXPECT_GE(ok, 4); // the variants after the crash ran too
}

TEST(BenchOrchestration, DimsSetForTheRunReachEveryWorkerAndTheResults) {
    unsetenv("FAKE_CRASH");
    const std::string log = ::testing::TempDir() + "ks_fake_options.log";
    std::remove(log.c_str());
    setenv("FAKE_OPTIONS_LOG", log.c_str(), 1);
    HarnessOptions o;
    o.dims = {{"batch_size", 1024}, {"dim", 393216}};
    const auto tasks = selectTasks(loadBuiltinSuite(), "L1-12,L1-23");
    const BenchRun run = runBench(tasks, "builtin", o, {std::string(KS_TEST_DATA) + "/fake_worker.sh", {}});
    unsetenv("FAKE_OPTIONS_LOG");
    ASSERT_EQ(run.tasks.size(), 2u);
    // L1-23 has both dims; L1-12 (N, M) has neither and keeps its shapes
    EXPECT_EQ(run.tasks[0].taskId, "L1-12");
    EXPECT_EQ(run.tasks[0].shape, (std::vector<int64_t>{4096, 4096, 4096}));
    EXPECT_EQ(run.tasks[1].taskId, "L1-23");
    EXPECT_EQ(run.tasks[1].shape, (std::vector<int64_t>{1024, 393216}));
    EXPECT_EQ(run.dims, o.dims);
    const BenchRun back = benchFromJson(benchToJson(run), "mem");
    EXPECT_EQ(back.dims, o.dims);
    // every job (ceilings, baselines, variants) was told the dims
    std::ifstream in(log);
    std::string line;
    int jobs = 0;
    while (std::getline(in, line)) {
        ++jobs;
        const auto sp = line.find(' ');
        ASSERT_NE(sp, std::string::npos) << line;
        EXPECT_EQ(harnessOptionsFromJson(line.substr(sp + 1)).dims, o.dims) << line;
    }
    EXPECT_GE(jobs, 1 + 2 + 3 + 6); // ceilings, two baselines, every variant of both ops
    // a run without --dim writes no dims (files stay as before)
    EXPECT_EQ(benchToJson(runFake(false)).find("\"dims\""), std::string::npos);
}

TEST(BenchOrchestration, BadDimsInABenchFileNameTheFile) {
    const std::string text = R"({"schema":"kernelsieve.bench","schema_version":1,
        "run":{"dims":{"dim":"wide"}},"tasks":[]})";
    try {
        benchFromJson(text, "b.json");
        FAIL();
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("b.json"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("run.dims.dim"), std::string::npos) << e.what();
    }
}

TEST(BenchOrchestration, AMissingWorkerIsAClearError) {
    HarnessOptions o;
    const auto tasks = selectTasks(loadBuiltinSuite(), "L1-12");
    try {
        runBench(tasks, "builtin", o, {"/nonexistent/worker", {}});
        FAIL();
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("/nonexistent/worker"), std::string::npos) << e.what();
    }
}

// The compiled baseline (issue 12): every job of a task with a package is given it, a task whose
// compile failed carries the reason, the baseline job's other baselines and the variants'
// comparisons reach the results and survive the file round trip.
TEST(BenchOrchestration, CompiledBaselinesReachEveryJobAndTheResults) {
    unsetenv("FAKE_CRASH");
    setenv("FAKE_BASELINES", "1", 1);
    const std::string log = ::testing::TempDir() + "ks_fake_args.log";
    std::remove(log.c_str());
    setenv("FAKE_ARGS_LOG", log.c_str(), 1);
    HarnessOptions o;
    o.baselines = {"eager", "compiled", "graph"};
    std::map<std::string, BaselineCompileResult> compiled;
    compiled["L1-12"].ok = true;
    compiled["L1-12"].packagePath = "/cache/ab/L1-12/model";
    compiled["L1-12"].seconds = 41.5;
    compiled["L1-12"].key = "ab12";
    compiled["L1-23"].error = "export failed: the TorchScript converter said: no";
    const auto tasks = selectTasks(loadBuiltinSuite(), "L1-12,L1-23");
    const BenchRun run =
        runBench(tasks, "builtin", o, {std::string(KS_TEST_DATA) + "/fake_worker.sh", {}}, {}, nullptr, {}, true, compiled);
    unsetenv("FAKE_BASELINES");
    unsetenv("FAKE_ARGS_LOG");
    ASSERT_EQ(run.tasks.size(), 2u);
    EXPECT_EQ(run.baselines, o.baselines);
    // L1-12: every job got the package; L1-23's none
    std::ifstream in(log);
    std::string line;
    int withPackage = 0;
    while (std::getline(in, line))
        if (line.find("compiled=/cache/ab/L1-12/model") != std::string::npos) ++withPackage;
    EXPECT_EQ(withPackage, 1 + 3); // the baseline job and L1-12's three variants
    const TaskBench& t12 = run.tasks[0];
    ASSERT_EQ(t12.taskId, "L1-12");
    const BaselineRun* c12 = t12.baselineOf("compiled");
    ASSERT_NE(c12, nullptr);
    EXPECT_TRUE(c12->usable());
    EXPECT_DOUBLE_EQ(c12->timing.medianMs, 1.0);
    EXPECT_DOUBLE_EQ(c12->vsEager.ratio, 2.0);
    EXPECT_DOUBLE_EQ(c12->compileSeconds, 41.5);
    EXPECT_EQ(c12->cacheKey, "ab12");
    EXPECT_EQ(c12->timing.blocks, 3);
    EXPECT_EQ(c12->timing.movedBlocks(), 1); // the clock fell from 1980 to 1500 MHz in block 2
    ASSERT_NE(t12.baselineOf("graph"), nullptr);
    EXPECT_FALSE(t12.baselineOf("graph")->usable());
    EXPECT_NE(t12.baselineOf("graph")->error.find("CUDA graph"), std::string::npos);
    const VariantResult& v = t12.variants[0];
    EXPECT_DOUBLE_EQ(v.speedupVs("eager"), 4.0);
    EXPECT_DOUBLE_EQ(v.speedupVs("compiled"), 2.0);
    EXPECT_DOUBLE_EQ(v.statsVs("compiled").lo, 1.8);
    EXPECT_DOUBLE_EQ(v.statsVs("eager").lo, 3.7); // the worker's interleaved interval, not recomputed
    EXPECT_TRUE(std::isnan(v.speedupVs("graph")));
    // L1-23: the compile's reason, and no comparison with it
    const BaselineRun* c23 = run.tasks[1].baselineOf("compiled");
    ASSERT_NE(c23, nullptr);
    EXPECT_FALSE(c23->usable());
    EXPECT_EQ(c23->error, "export failed: the TorchScript converter said: no");
    EXPECT_EQ(run.tasks[1].variants[0].versus("compiled"), nullptr);
    // round trip
    const BenchRun back = benchFromJson(benchToJson(run), "mem");
    EXPECT_EQ(benchToJson(back), benchToJson(run));
    EXPECT_EQ(back.baselines, o.baselines);
    EXPECT_EQ(back.tasks[0].baselineOf("compiled")->timing.clockBlocks.size(), 3u);
    EXPECT_EQ(back.tasks[0].baselineOf("compiled")->timing.clockBlocks[1].reasonsAfter, 4u);
    EXPECT_DOUBLE_EQ(back.tasks[0].variants[0].speedupVs("compiled"), 2.0);
    // the options told every worker which baselines to time
    EXPECT_EQ(harnessOptionsFromJson(harnessOptionsToJson(o)).baselines, o.baselines);
    // bench --csv: a column group per baseline, a row per baseline and variant, the clock record
    const std::string csv = benchToCsv(run);
    EXPECT_EQ(csv.rfind("task_id,task_name,row,name,kind,verdict,valid,median_ms,q1_ms,q3_ms,runs,blocks,"
                        "speedup_vs_eager,ci95_lo_vs_eager,ci95_hi_vs_eager,p_value_vs_eager,"
                        "speedup_vs_compiled,ci95_lo_vs_compiled,ci95_hi_vs_compiled,p_value_vs_compiled,"
                        "speedup_vs_graph,ci95_lo_vs_graph,ci95_hi_vs_graph,p_value_vs_graph,"
                        "clock_source,clock_min_mhz,clock_max_mhz,clock_blocks,clock_blocks_moved,clock_reasons,note\r\n",
                        0),
              0u)
        << csv.substr(0, 400);
    // L1-12's compiled baseline: 2x eager [1.8, 2.3], the clock fell to 1500 MHz in one of 3 blocks
    EXPECT_NE(csv.find("L1-12,12_Matmul_with_diagonal_matrices_,baseline,compiled,compiled,reference,true,1,0.95,1.05,3,3,"
                       "2,1.8,2.3,0.1,1,,,,,,,,nvml,1500,1980,3,1,SwPowerCap,\r\n"),
              std::string::npos)
        << csv;
    // a variant: 4x eager [3.7, 4.3], 2x compiled [1.8, 2.2], nothing against graph
    EXPECT_NE(csv.find(",0.5,0.5,0.5,3,0,4,3.7,4.3,0.1,2,1.8,2.2,0.1,,,,,"), std::string::npos) << csv;
    // L1-23's compiled baseline: unavailable, with the compile's reason
    EXPECT_NE(csv.find("baseline,compiled,compiled,unavailable,,"), std::string::npos) << csv;
    EXPECT_NE(csv.find("export failed: the TorchScript converter said: no\r\n"), std::string::npos) << csv;
    size_t lines = 0;
    for (char c : csv) lines += c == '\n';
    EXPECT_EQ(lines, 1u + 2 * 3 + 3 + 6); // header; per task eager, compiled, graph; L1-12 3 variants, L1-23 6
}

// Files written before the compiled baseline: eager only, no clock records.
TEST(BenchOrchestration, OldBenchFilesHaveOnlyTheEagerBaseline) {
    const std::string text = R"({"schema":"kernelsieve.bench","schema_version":1,"run":{},"tasks":[{"task_id":"L1-12",
        "baseline":{"median_ms":2.0},"variants":[{"name":"v1","speedup":4.0,"timing":{"median_ms":0.5}}]}]})";
    const BenchRun b = benchFromJson(text, "old.json");
    EXPECT_EQ(b.baselines, std::vector<std::string>{"eager"});
    EXPECT_TRUE(b.tasks[0].otherBaselines.empty());
    EXPECT_EQ(b.tasks[0].baseline.blocks, 0);
    EXPECT_TRUE(b.tasks[0].baseline.clockBlocks.empty());
    EXPECT_TRUE(std::isnan(b.tasks[0].variants[0].speedupVs("compiled")));
    // a baseline without a kind, a clock block with a bad reason mask: errors naming the file
    for (const std::string bad : {R"("baselines":[{"timing":{}}],)", R"("baselines":[{"kind":"compiled","timing":{"clock_blocks":[{"reasons":[-1,0]}]}}],)"}) {
        std::string t = text;
        t.insert(t.find("\"variants\""), bad);
        try {
            benchFromJson(t, "bad.json");
            ADD_FAILURE() << bad;
        } catch (const Error& e) {
            EXPECT_NE(std::string(e.what()).find("bad.json"), std::string::npos) << e.what();
        }
    }
}

// --devices (issue 17): the tasks' job sequences spread over the GPUs of one host.
namespace {
struct JobRecord {
    std::string job, task, gpu;
    double start = 0, end = 0;
};
std::vector<JobRecord> readDeviceLog(const std::string& path) {
    std::vector<JobRecord> out;
    std::ifstream in(path);
    JobRecord r;
    while (in >> r.job >> r.task >> r.gpu >> r.start >> r.end) out.push_back(r);
    return out;
}
std::vector<TaskSpec> tasksWithKernelsOfBuiltins() {
    std::vector<TaskSpec> out;
    for (const auto& t : loadBuiltinSuite().tasks)
        if (!opForTask(t.id).empty()) out.push_back(t);
    return out;
}
// Pairs of jobs that ran at once on one GPU.
int overlapsOnOneGpu(const std::vector<JobRecord>& jobs) {
    int n = 0;
    for (size_t a = 0; a < jobs.size(); ++a)
        for (size_t b = a + 1; b < jobs.size(); ++b)
            n += jobs[a].gpu == jobs[b].gpu && jobs[a].start < jobs[b].end && jobs[b].start < jobs[a].end;
    return n;
}
// The file without what says where and when it ran.
std::string withoutProvenance(BenchRun b) {
    b.created.clear();
    b.gpus.clear();
    for (auto& t : b.tasks) t.gpu.clear();
    return benchToJson(b);
}
} // namespace

TEST(BenchDevices, ParsesTheDeviceList) {
    auto ids = [](const std::vector<GpuSlot>& v) {
        std::string s;
        for (const auto& g : v) s += std::to_string(g.ordinal) + "=" + g.visibleId + " ";
        return s;
    };
    EXPECT_EQ(ids(parseDeviceList("all", 3, nullptr)), "0=0 1=1 2=2 ");
    EXPECT_EQ(ids(parseDeviceList("2,0", 3, nullptr)), "2=2 0=0 ");
    // inside an allocation (CUDA_VISIBLE_DEVICES=4,GPU-ab12): ordinal i is its i-th entry
    EXPECT_EQ(ids(parseDeviceList("all", 2, "4,GPU-ab12")), "0=4 1=GPU-ab12 ");
    EXPECT_EQ(ids(parseDeviceList("1", 2, "4,5")), "1=5 ");
    EXPECT_EQ(parseDeviceList("0", 1, nullptr)[0].env(), "CUDA_VISIBLE_DEVICES=0");
    for (const auto& [spec, count, needle] :
         std::vector<std::tuple<std::string, int, std::string>>{{"2", 2, "does not exist"}, {"0,0", 2, "given twice"},
                                                                {"x", 2, "ordinals"}, {"", 2, "ordinals"},
                                                                {"-1", 2, "ordinals"}, {"all", 0, "no CUDA device"}}) {
        try {
            parseDeviceList(spec, count, nullptr);
            ADD_FAILURE() << spec;
        } catch (const Error& e) {
            EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << spec << ": " << e.what();
        }
    }
    setenv("KS_FAKE_DEVICES", "4", 1);
    EXPECT_EQ(ids(resolveDevices("all")), "0=0 1=1 2=2 3=3 ");
    EXPECT_EQ(visibleCudaDeviceCount(), 4);
    setenv("KS_FAKE_DEVICES", "lots", 1);
    EXPECT_THROW(resolveDevices("all"), Error);
    unsetenv("KS_FAKE_DEVICES");
}

// Every task ran exactly once, all its jobs on one GPU of those given, never two jobs on one GPU
// at once, the GPUs in parallel; the file is the one-GPU run's, in task order.
TEST(BenchDevices, SpreadsTasksOverTheGpusOneJobPerGpuAtATime) {
    unsetenv("FAKE_CRASH");
    const auto tasks = tasksWithKernelsOfBuiltins();
    ASSERT_GE(tasks.size(), 4u);
    const WorkerCommand fake{std::string(KS_TEST_DATA) + "/fake_worker.sh", {}};
    HarnessOptions o;
    const BenchRun one = runBench(tasks, "builtin", o, fake);
    ASSERT_EQ(one.tasks.size(), tasks.size());
    EXPECT_TRUE(one.gpus.empty());

    const std::string log = ::testing::TempDir() + "ks_fake_devices.log";
    std::remove(log.c_str());
    setenv("FAKE_DEVICE_LOG", log.c_str(), 1);
    setenv("FAKE_SLEEP", "0.05", 1);
    o.devices = parseDeviceList("0,2,3", 4, nullptr);
    std::vector<std::string> lines;
    const BenchRun many = runBench(tasks, "builtin", o, fake, [&](const std::string& l) { lines.push_back(l); });
    unsetenv("FAKE_DEVICE_LOG");
    unsetenv("FAKE_SLEEP");

    ASSERT_EQ(many.tasks.size(), tasks.size());
    EXPECT_EQ(withoutProvenance(many), withoutProvenance(one));
    for (size_t i = 0; i < tasks.size(); ++i) EXPECT_EQ(many.tasks[i].taskId, one.tasks[i].taskId);
    ASSERT_EQ(many.gpus.size(), 3u);
    EXPECT_EQ(many.gpus[1].id, "2");
    EXPECT_EQ(many.gpus[1].name, "Fake GPU");
    EXPECT_DOUBLE_EQ(many.gpus[2].copyBandwidthGBs, 4000);
    const BenchRun back = benchFromJson(benchToJson(many), "mem");
    EXPECT_EQ(benchToJson(back), benchToJson(many));

    const auto jobs = readDeviceLog(log);
    std::map<std::string, int> ceilings;
    std::map<std::string, std::set<std::string>> gpusOfTask;
    std::map<std::string, int> baselines;
    for (const auto& j : jobs) {
        EXPECT_TRUE(j.gpu == "0" || j.gpu == "2" || j.gpu == "3") << j.job << " " << j.task << " ran on " << j.gpu;
        if (j.job == "ceilings") ++ceilings[j.gpu];
        else gpusOfTask[j.task].insert(j.gpu);
        if (j.job == "baseline") ++baselines[j.task];
    }
    EXPECT_EQ(ceilings, (std::map<std::string, int>{{"0", 1}, {"2", 1}, {"3", 1}})); // measured on each GPU
    std::set<std::string> used;
    for (const auto& t : many.tasks) {
        EXPECT_EQ(baselines[t.taskId], 1) << t.taskId; // ran exactly once
        ASSERT_EQ(gpusOfTask[t.taskId].size(), 1u) << t.taskId; // all its jobs on one GPU
        EXPECT_EQ(*gpusOfTask[t.taskId].begin(), t.gpu) << t.taskId; // the one the file names
        used.insert(t.gpu);
    }
    EXPECT_EQ(used.size(), 3u); // every GPU got work
    // No two jobs on one GPU at once; jobs on different GPUs did overlap (it ran in parallel).
    bool parallel = false;
    for (size_t a = 0; a < jobs.size(); ++a)
        for (size_t b = a + 1; b < jobs.size(); ++b) {
            const bool overlap = jobs[a].start < jobs[b].end && jobs[b].start < jobs[a].end;
            if (jobs[a].gpu == jobs[b].gpu)
                EXPECT_FALSE(overlap) << jobs[a].job << " " << jobs[a].task << " and " << jobs[b].job << " "
                                      << jobs[b].task << " overlap on GPU " << jobs[a].gpu;
            else parallel = parallel || overlap;
        }
    EXPECT_TRUE(parallel);
    EXPECT_EQ(overlapsOnOneGpu(jobs), 0);
    // progress lines say which GPU
    bool tagged = false;
    for (const auto& l : lines) tagged = tagged || l.rfind("[gpu 2] ", 0) == 0;
    EXPECT_TRUE(tagged);

    // The check can fail: two slots handed the same GPU do share it.
    std::remove(log.c_str());
    setenv("FAKE_DEVICE_LOG", log.c_str(), 1);
    setenv("FAKE_SLEEP", "0.05", 1);
    o.devices = {GpuSlot{0, "7"}, GpuSlot{1, "7"}};
    runBench(tasks, "builtin", o, fake);
    unsetenv("FAKE_DEVICE_LOG");
    unsetenv("FAKE_SLEEP");
    EXPECT_GT(overlapsOnOneGpu(readDeviceLog(log)), 0);
}

// A worker that crashes on one GPU fails its own variants only; the other GPU's results stand.
TEST(BenchDevices, ACrashOnOneGpuLosesNothingOfTheOther) {
    unsetenv("FAKE_CRASH");
    setenv("FAKE_CRASH_DEVICE", "1", 1);
    setenv("FAKE_SLEEP", "0.02", 1);
    const auto tasks = tasksWithKernelsOfBuiltins();
    HarnessOptions o;
    o.devices = parseDeviceList("all", 2, nullptr);
    const BenchRun run = runBench(tasks, "builtin", o, {std::string(KS_TEST_DATA) + "/fake_worker.sh", {}});
    unsetenv("FAKE_CRASH_DEVICE");
    unsetenv("FAKE_SLEEP");
    ASSERT_EQ(run.tasks.size(), tasks.size());
    int on0 = 0, on1 = 0;
    for (size_t i = 0; i < tasks.size(); ++i) {
        const TaskBench& t = run.tasks[i];
        EXPECT_EQ(t.taskId, tasks[i].id);
        EXPECT_DOUBLE_EQ(t.baseline.medianMs, 2.0) << t.taskId;
        ASSERT_FALSE(t.variants.empty()) << t.taskId;
        for (const auto& v : t.variants) {
            if (t.gpu == "1") {
                EXPECT_FALSE(v.validation.passed) << t.taskId << " " << v.name;
                EXPECT_NE(v.error.find("signal 11"), std::string::npos) << v.error;
                EXPECT_NE(v.error.find("crashing on GPU 1"), std::string::npos) << v.error;
            } else {
                EXPECT_EQ(t.gpu, "0");
                EXPECT_TRUE(v.validation.passed) << t.taskId << " " << v.name;
                EXPECT_DOUBLE_EQ(v.speedup, 4.0);
            }
        }
        (t.gpu == "1" ? on1 : on0)++;
    }
    EXPECT_GT(on0, 0);
    EXPECT_GT(on1, 0);
}

// What the --devices schedulers rely on: a child gets the variables given (over ours) and, with an
// input pipe, the lines written to it and end of input when it is closed.
TEST(BenchDevices, ChildProcessEnvironmentAndInput) {
    setenv("KS_TEST_PARENT_VAR", "parent", 1);
    setenv("KS_TEST_REPLACED", "old", 1);
    ChildProcess c({"/bin/sh", "-c",
                    "read a; echo \"$a $KS_TEST_PARENT_VAR $KS_TEST_REPLACED $CUDA_VISIBLE_DEVICES\" >&3; cat >&3; "
                    "echo end >&3"},
                   -1, ChildProcess::Protocol::Fd3, {"KS_TEST_REPLACED=new", "CUDA_VISIBLE_DEVICES=3"}, true);
    ASSERT_TRUE(c.writeInput("L1-12\n"));
    std::string line;
    ASSERT_EQ(c.readLine(line, 20), ChildProcess::Read::Line);
    EXPECT_EQ(line, "L1-12 parent new 3");
    ASSERT_TRUE(c.writeInput("more\n"));
    ASSERT_EQ(c.readLine(line, 20), ChildProcess::Read::Line);
    EXPECT_EQ(line, "more");
    c.closeInput();
    EXPECT_FALSE(c.writeInput("late\n"));
    ASSERT_EQ(c.readLine(line, 20), ChildProcess::Read::Line);
    EXPECT_EQ(line, "end");
    EXPECT_EQ(c.readLine(line, 20), ChildProcess::Read::Eof);
    EXPECT_EQ(c.wait().exitCode, 0);
    // runProcess too
    const std::string out = ::testing::TempDir() + "ks_env_out.txt";
    const ProcessResult r = runProcess({"/bin/sh", "-c", "echo $CUDA_VISIBLE_DEVICES $KS_TEST_REPLACED"}, out, 20,
                                       nullptr, {}, false, {"CUDA_VISIBLE_DEVICES=GPU-ab"});
    EXPECT_TRUE(r.ok());
    EXPECT_EQ(fileTail(out), "GPU-ab old\n");
    unsetenv("KS_TEST_PARENT_VAR");
    unsetenv("KS_TEST_REPLACED");
}
