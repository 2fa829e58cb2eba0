// SPDX-License-Identifier: MIT
// Writes the GUI test fixtures (tests/ui/data/results.json, bench.json, bench-external.json,
// stream.jsonl) through the
// engine's own serialisers, so the files always match the schemas. The metrics are hand-picked
// to look like an H200 run of the built-in suite, including the seed's Table 1 cases, a task
// with a NaN (size-1) axis, constant-output tasks, one failed task and one that was not run.
// Deterministic (fixed RNG seed): re-running it reproduces the committed files byte for byte.
//
//   ks_ui_make_fixtures tests/ui/data

#include <ks/core/benchresults.h>
#include <ks/core/results.h>

#include <cstdlib>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <random>
#include <string>
#include <vector>

namespace {

std::mt19937_64 rng(20261129);

ks::Histogram histogramOf(const std::vector<double>& values, int bins, uint64_t total) {
    ks::Histogram h;
    if (values.empty()) return h;
    const auto [mn, mx] = std::minmax_element(values.begin(), values.end());
    h.lo = *mn;
    h.hi = *mx;
    h.counts.assign(static_cast<size_t>(bins), 0);
    const double width = h.hi > h.lo ? (h.hi - h.lo) / bins : 1.0;
    for (double v : values) {
        int b = h.hi > h.lo ? static_cast<int>((v - h.lo) / width) : 0;
        b = std::clamp(b, 0, bins - 1);
        ++h.counts[static_cast<size_t>(b)];
    }
    // Samples stand in for the full [S, *out] tensor: scale counts to the real element count.
    const double scale = double(total) / double(values.size());
    for (auto& c : h.counts)
        c = static_cast<uint64_t>(std::llround(double(c) * scale));
    return h;
}

struct Shape {
    std::vector<int64_t> dims;
    uint64_t numel() const {
        uint64_t n = 1;
        for (auto d : dims)
            n *= static_cast<uint64_t>(d);
        return n;
    }
};

// A task whose outputs are drawn from `draw`; metrics are given explicitly (as the engine
// measured them on the full tensors), histograms and seed stats are simulated from `draw`.
ks::TaskResult makeTask(const std::string& id, int level, int number, const std::string& name,
                        const std::string& category, const std::string& description, Shape shape,
                        std::function<double()> draw, double maxAbs, double maxStd, double meanStd,
                        std::vector<double> perAxis, double inputImpact, const std::string& source,
                        double wall, double runMs) {
    ks::TaskResult t;
    t.id = id;
    t.level = level;
    t.number = number;
    t.name = name;
    t.category = category;
    t.description = description;
    t.source = source;
    t.specJson = "{\n  \"kind\": \"kernelsieve.task\",\n  \"id\": \"" + id + "\",\n  \"name\": \"" +
                 name + "\"\n}";
    t.outputShape = shape.dims;
    t.outputDtype = "float32";
    t.seeds = 5;
    t.range = {true, maxAbs, 0, 0, 0};
    t.outputStd = {true, maxStd, meanStd};
    t.axes.run = true;
    t.axes.perAxis = std::move(perAxis);
    t.inputImpact = {true, inputImpact, inputImpact * 0.4};

    std::vector<double> values(20000);
    for (auto& v : values)
        v = draw();
    double mn = *std::min_element(values.begin(), values.end());
    double mx = *std::max_element(values.begin(), values.end());
    t.range.min = mn;
    t.range.max = mx;
    t.valueHistogram = histogramOf(values, 64, shape.numel() * 5);

    // Per-element std across 5 seeds, simulated the same way the engine measures it.
    std::vector<double> stds(8000);
    for (auto& s : stds) {
        double x[5], m = 0;
        for (double& xi : x) {
            xi = draw();
            m += xi;
        }
        m /= 5;
        double ss = 0;
        for (double xi : x)
            ss += (xi - m) * (xi - m);
        s = std::sqrt(ss / 4);
    }
    t.stdHistogram = histogramOf(stds, 48, shape.numel());

    for (int seed = 0; seed < 5; ++seed) {
        double sum = 0, sq = 0, lo = 1e300, hi = -1e300;
        const int n = 4000;
        for (int i = 0; i < n; ++i) {
            const double v = draw();
            sum += v;
            sq += v * v;
            lo = std::min(lo, v);
            hi = std::max(hi, v);
        }
        const double mean = sum / n;
        t.seedStats.push_back({seed, mean, std::sqrt(std::max(0.0, sq / n - mean * mean)), lo, hi});
    }
    t.wallSeconds = wall;
    t.runMsMedian = runMs;
    t.peakMemoryBytes = static_cast<int64_t>(shape.numel() * 4 * 6);
    return t;
}

std::function<double()> normal(double mean, double sd) {
    return [mean, sd] { return std::normal_distribution<double>(mean, sd)(rng); };
}

ks::TimingStats timing(double median, double relIqr, int n = 200) {
    ks::TimingStats t;
    t.warmup = 25;
    t.runs = 2000;
    std::lognormal_distribution<double> d(std::log(median), relIqr / 1.35);
    for (int i = 0; i < n; ++i)
        t.samplesMs.push_back(d(rng));
    auto s = t.samplesMs;
    std::sort(s.begin(), s.end());
    auto q = [&](double p) { return s[static_cast<size_t>(p * double(s.size() - 1))]; };
    t.medianMs = q(0.5);
    t.q1Ms = q(0.25);
    t.q3Ms = q(0.75);
    t.minMs = s.front();
    double sum = 0;
    for (double v : s)
        sum += v;
    t.meanMs = sum / double(s.size());
    return t;
}

ks::VariantResult variant(int version, const std::string& name, const std::string& summary,
                          double medianMs, double baselineMs, double minBytes, bool passed,
                          bool shortcut = false) {
    ks::VariantResult v;
    v.name = name;
    v.summary = summary;
    v.version = version;
    v.shortcut = shortcut;
    v.validation.run = true;
    v.validation.passed = passed;
    v.validation.seeds = 100;
    v.validation.maxAbsErr = passed ? 2.4e-7 : 0.73;
    v.validation.maxRelErr = passed ? 1.1e-6 : 1.0;
    v.validation.checks = {"seeds x100",
                           "edge: empty",
                           "edge: extreme values",
                           "edge: misaligned",
                           "edge: odd sizes",
                           "guard: poisoned output",
                           "guard: inputs unchanged",
                           "guard: side streams"};
    if (!passed) {
        v.validation.firstMismatch = {0, 0, 3};
        v.validation.failures = {"seed 0: max abs err 0.73 at [0, 0, 3] (atol 1e-05, rtol 0.0001)",
                                 "edge odd sizes: max abs err 0.71"};
    }
    v.timing = timing(medianMs, 0.06);
    v.speedup = baselineMs / v.timing.medianMs;
    v.gbps = minBytes / (v.timing.medianMs * 1e-3) / 1e9;
    v.pctCopyBandwidth = 100.0 * v.gbps / 4300.0;
    return v;
}

// An external kernel (docs/external-kernels.md) as `bench --kernels` reports it: no version, no
// summary, where it came from and what its corpus manifest expects.
ks::VariantResult externalKernel(const std::string& name, const std::string& format,
                                 const std::string& file, const std::string& expect,
                                 double medianMs, double baselineMs, double minBytes, bool passed) {
    ks::VariantResult v = variant(0, name, "", medianMs, baselineMs, minBytes, passed);
    v.version = 0;
    v.validation.checks = {"seeds x100",           "edge: extreme values",
                           "edge: misaligned",     "guard: stale-memory",
                           "guard: replay",        "guard: async-work",
                           "guard: input-write",   "guard: input-read-after-return",
                           "guard: out-of-bounds", "guard: precision",
                           "guard: library"};
    v.external.format = format;
    v.external.file = file;
    v.external.function = "forward";
    v.external.args = {"input x"};
    v.external.expect = expect;
    // A stand-in for the compile cache's SHA-256 key: 64 hex digits, stable per file.
    uint64_t h = 1469598103934665603ULL; // FNV-1a
    for (char c : format + ":" + file)
        h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ULL;
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
    for (int i = 0; i < 4; ++i)
        v.external.sourceHash += hex;
    v.external.compiled = true;
    v.external.compileSeconds = 20.5;
    v.external.precisionRatio = 1.0;
    if (!std::isfinite(minBytes)) v.gbps = v.pctCopyBandwidth = ks::NaN;
    return v;
}

// Filters 5 and 6 as the engine would report them on an H200 (ceilings below): floors follow
// from bytes, FLOPs and the bandwidth at the task's size; no RNG, so the statistical fixtures
// above stay byte for byte what they were.
constexpr double PeakGflops = 51000;

ks::InefficiencyReport inefficiency(const ks::TaskResult& t, double bytes, double flops, double bandwidthGBs,
                                    double eagerMs, double passes) {
    ks::InefficiencyReport r;
    r.taskId = t.id;
    r.taskName = t.name;
    r.device = "cuda";
    r.preset = ks::Preset::Full;
    r.runs = 20;
    r.bytes = bytes;
    r.flops = flops;
    r.bandwidthGBs = bandwidthGBs;
    r.memoryFloorMs = bytes / (bandwidthGBs * 1e9) * 1e3;
    r.computeFloorMs = flops / (PeakGflops * 1e9) * 1e3;
    r.floorMs = std::max(r.memoryFloorMs, r.computeFloorMs);
    r.eagerMs = eagerMs;
    r.eagerMedianMs = eagerMs;
    r.efficiency = r.floorMs / eagerMs;
    r.eagerTrafficBytes = passes * bytes;
    r.passes = passes;
    r.memoryBound = r.memoryFloorMs >= r.computeFloorMs;
    r.hostSyncs = 0; // counted on CUDA: the forward never waits for the GPU
    return r;
}

ks::RedundancyReport redundancy(const ks::TaskResult& t, int opsExamined, double totalFlops) {
    ks::RedundancyReport r;
    r.taskId = t.id;
    r.taskName = t.name;
    r.device = "cuda";
    r.preset = ks::Preset::Full;
    r.seeds = 3;
    r.opsExamined = opsExamined;
    r.totalFlops = totalFlops;
    r.wallSeconds = 0.05 * opsExamined;
    return r;
}

void addNode(ks::RedundancyReport& r, ks::RedundantNode::Kind kind, const std::string& op, int line,
             const std::string& source, const std::string& reason, double flops) {
    r.nodes.push_back({kind, op, line, source, reason, "%" + std::to_string(line) + " : Tensor = " + op + "(...)", flops});
    r.redundantFlops += flops;
}

ks::TaskResult& find(ks::RunResults& r, const std::string& id) {
    for (auto& t : r.tasks)
        if (t.id == id) return t;
    std::fprintf(stderr, "no task %s\n", id.c_str());
    std::exit(1);
}

void addAnalyses(ks::RunResults& r) {
    using K = ks::RedundantNode::Kind;
    ks::DeviceCeilings c;
    c.device = "cuda";
    c.deviceName = "NVIDIA H200";
    c.measured = "2026-11-29T09:58:00Z";
    c.copyBandwidthGBs = 4300;
    // Small copies are launch-bound: the curve charges a small task the same overhead.
    c.copyCurve = {{2.1e6, 420}, {1.68e7, 2100}, {1.34e8, 3900}, {2.15e9, 4300}};
    c.fp32PeakGflops = PeakGflops;
    c.method = "copy_ of 1 MiB..1 GiB float32 (read+write), mm 8192^2 float32 TF32 off; CUDA events, medians";
    c.source = "/home/researcher/.cache/kernelsieve/ceilings-cuda.json";
    r.run.ceilings = c;

    auto plain = [&](const std::string& id, double bytes, double flops, double bw, double eager, double passes,
                     int ops) {
        auto& t = find(r, id);
        t.inefficiency = inefficiency(t, bytes, flops, bw, eager, passes);
        t.redundancy = redundancy(t, ops, flops);
        return std::ref(t);
    };
    const double n2048 = 2048.0 * 2048;
    plain("L1-1", 3 * n2048 * 4, 2 * n2048 * 2048, 3500, 0.412, 1.0, 1);
    {
        // The seed's Table 1: the eager time is its own (wasteful) matmul's floor, so only the
        // rewrite catches it.
        const double n = 4096.0;
        auto& t = plain("L1-12", (n + 2 * n * n) * 4, 2 * n * n * n, 3900, 2.702, 1.5, 2).get();
        ks::RewriteResult rw;
        rw.rule = "diag-matmul";
        rw.what = "diag(v) @ B builds an N x N matrix and multiplies by it; rewritten to v.unsqueeze(1) * B";
        rw.node = "%3 : Tensor = aten::matmul(%2, %B)";
        rw.line = 2;
        rw.equal = true;
        rw.maxAbsDiff = 0;
        rw.timeMs = 0.0529;
        rw.speedup = 2.702 / 0.0529;
        t.inefficiency->rewrites.push_back(rw);
        t.inefficiency->bestSpeedup = rw.speedup;
        t.inefficiency->bestRule = rw.rule;
    }
    plain("L1-19", 2 * 16 * 16384 * 4.0, 16 * 16384.0, 420, 0.0091, 1.0, 1);
    plain("L1-23", 2 * 16 * 16384 * 4.0, 16 * 16384 * 3.0, 420, 0.0124, 1.0, 1);
    {
        auto& t = plain("L1-24", 2 * 16 * 16384 * 4.0, 16 * 16384 * 3.0, 420, 0.0131, 1.0, 1).get();
        // A rewrite that fired but is no faster: listed, not flagged.
        ks::RewriteResult rw;
        rw.rule = "repeated-layout";
        rw.what = "contiguous() of a fresh tensor; rewritten to use it directly";
        rw.node = "%4 : Tensor = aten::contiguous(%3, %5)";
        rw.line = 2;
        rw.equal = true;
        rw.timeMs = 0.0128;
        rw.speedup = 0.0131 / 0.0128;
        t.inefficiency->rewrites.push_back(rw);
        t.inefficiency->bestSpeedup = rw.speedup;
        t.inefficiency->bestRule = rw.rule;
    }
    const double big = 16.0 * 64 * 256 * 256;
    plain("L1-33", 2 * big * 4, 8 * big, 4300, 1.84, 1.6, 3);
    // RMSNorm: pow, mean, add, sqrt and div each go over the tensor: 2.5x the bytes of one fused pass.
    plain("L1-36", 2 * big * 4, 5 * big, 4300, 1.93, 2.52, 5);
    plain("L1-47", 16 * 256 * 4.0 * 2, 16 * 256.0, 420, 0.0093, 1.0, 1);
    plain("L1-95", 4096 * 10 * 4.0 * 2, 4096 * 10 * 4.0, 420, 0.021, 1.9, 3);
    {
        auto& t = plain("L2-13", 16 * 32 * 16 * 32 * 32 * 4.0 + 16 * 64 * 64 * 32 * 4.0, 2.1e11, 1900, 4.86, 1.8, 6).get();
        auto& rd = *t.redundancy;
        addNode(rd, K::ConstantOutput, "aten::softmax", 5,
                "x = torch.softmax(x, dim=1)  # size-1 axis: always 1.0",
                "softmax over a size-1 axis: 1.0 on every element and seed, whatever the inputs",
                2.1e6);
        addNode(rd, K::FeedsRedundant, "aten::conv_transpose3d", 2,
                "x = F.conv_transpose3d(x, w, b, stride=2, padding=1)",
                "only feeds the constant softmax", 2.09e11);
        addNode(rd, K::FeedsRedundant, "aten::mean", 3, "x = torch.mean(x, dim=1, keepdim=True)",
                "only feeds the constant softmax", 6.7e7);
        addNode(rd, K::FeedsRedundant, "aten::add", 4, "x = x + bias",
                "only feeds the constant softmax", 2.1e6);
        rd.unused.push_back({"x", false, "only feeds redundant ops"});
        rd.unused.push_back({"w", true, "only feeds redundant ops"});
    }
    plain("L2-13r", 16 * 32 * 16 * 32 * 32 * 4.0 + 16 * 64 * 64 * 32 * 4.0, 2.1e11, 1900, 4.91, 1.9, 6);
    {
        auto& t = plain("L2-66", 128 * 1024 * 4.0 + 1024 * 512 * 4.0, 2 * 128 * 1024 * 512.0 + 4e5, 420, 0.034, 1.4, 4).get();
        auto& rd = *t.redundancy;
        addNode(rd, K::ConstantOutput, "aten::softmax", 5, "return torch.softmax(x, dim=1)",
                "softmax over a size-1 axis: 1.0 everywhere", 128);
        addNode(rd, K::NoEffect, "aten::dropout", 3, "x = F.dropout(x, 0.2, training=False)",
                "bypassed by its input: output unchanged on 3 seeds", 65536);
        addNode(rd, K::FeedsRedundant, "aten::linear", 2, "x = F.linear(x, w, b)",
                "only feeds the constant softmax", 2 * 128 * 1024 * 512.0);
        addNode(rd, K::FeedsRedundant, "aten::mean", 4, "x = torch.mean(x, dim=1, keepdim=True)",
                "only feeds the constant softmax", 65536);
    }
    {
        auto& t = plain("L2-80", 128 * 1024 * 4.0 + 1024 * 512 * 4.0, 2 * 128 * 1024 * 512.0 + 4e5, 420, 0.031, 1.4, 4).get();
        auto& rd = *t.redundancy;
        addNode(rd, K::ConstantOutput, "aten::sub", 4, "x = x - x.mean(dim=1, keepdim=True)",
                "x minus its mean over a size-1 axis: 0 everywhere", 128);
        addNode(rd, K::FeedsRedundant, "aten::linear", 2, "x = F.linear(x, w, b)",
                "only feeds the constant sub", 2 * 128 * 1024 * 512.0);
        addNode(rd, K::FeedsRedundant, "aten::max", 3,
                "x = torch.max(x, dim=1, keepdim=True).values", "only feeds the constant sub",
                65536);
    }
    {
        auto& t = plain("KS-3", 64 * 128 * 4.0 * 2 + 128 * 128 * 4.0, 2 * 64 * 128 * 128.0 + 1e5, 420, 0.0112, 1.3, 3).get();
        auto& rd = *t.redundancy;
        addNode(rd, K::ConstantOutput, "aten::softmax", 2, "y = torch.softmax(x @ w, dim=1)",
                "softmax over a size-1 axis: 1.0 everywhere", 8192);
        addNode(rd, K::FeedsRedundant, "aten::matmul", 2, "y = torch.softmax(x @ w, dim=1)",
                "only feeds the constant softmax", 2 * 64 * 128 * 128.0);
    }
}

void write(const std::string& path, const std::string& text) {
    ks::writeFileAtomic(path, text);
    std::printf("wrote %s (%zu bytes)\n", path.c_str(), text.size());
}

} // namespace

int main(int argc, char** argv) {
    const std::string dir = argc > 1 ? argv[1] : ".";
    ks::RunResults r;
    r.run.toolVersion = "0.1.0";
    r.run.created = "2026-11-29T10:00:00Z";
    r.run.suite = "builtin";
    r.run.preset = "full";
    r.run.device = "cuda";
    r.run.deviceName = "NVIDIA H200";
    r.run.driver = "580.65";
    r.run.libtorchVersion = "2.11.0";
    r.run.cudaVersion = "13.0";
    r.run.host = "gpu-h200-01";
    r.run.seeds = 5;
    r.run.totalSeconds = 41.7;
    r.run.peakMemoryBytes = 6LL << 30;
    r.thresholds = ks::Thresholds::defaults();

    auto relu = [] { return std::max(0.0, std::normal_distribution<double>(0, 1)(rng)); };
    auto softmaxValue = [] {
        // exp(x) / (16384 E[exp x]): mean 1/16384 = 6.1e-5, log-normal spread.
        return std::exp(std::normal_distribution<double>(0, 1)(rng)) / (16384.0 * std::exp(0.5));
    };
    auto constant = [](double c) { return [c] { return c; }; };

    r.tasks.push_back(
        makeTask("L1-1", 1, 1, "1_Square_matrix_multiplication_", "matmul",
                 "C = A @ B for square 2048 x 2048 matrices.", {{2048, 2048}}, normal(0, 45.25),
                 251.3, 101.7, 42.4, {101.7, 52.9, 53.4}, 98.2,
                 "def forward(A: Tensor, B: Tensor) -> Tensor:\n    return torch.matmul(A, B)\n",
                 2.41, 0.412));
    r.tasks.push_back(
        makeTask("L1-4", 1, 4, "4_Matrix_vector_multiplication_", "matmul",
                 "y = A @ x for a 256 x 131072 matrix (not run: the run was cancelled before it).",
                 {{256, 1}}, normal(0, 362), 0, 0, 0, {}, 0,
                 "def forward(A, x):\n    return A @ x\n", 0, ks::NaN));
    {
        auto& t = r.tasks.back();
        t.status = ks::TaskStatus::Skipped;
        t.range = {};
        t.outputStd = {};
        t.axes = {};
        t.inputImpact = {};
        t.valueHistogram = {};
        t.stdHistogram = {};
        t.seedStats.clear();
        t.seeds = 0;
        t.outputShape.clear();
    }
    r.tasks.push_back(makeTask(
        "L1-12", 1, 12, "12_Matmul_with_diagonal_matrices_", "matmul",
        "C = diag(A) @ B. Flagged in the seed's Table 1 only for baseline inefficiency: "
        "A[:, None] * B is the same result without materialising a 4096 x 4096 diagonal matrix.",
        {{4096, 4096}},
        [] {
            return std::normal_distribution<double>(0, 1)(rng) *
                   std::normal_distribution<double>(0, 1)(rng);
        },
        24.8, 12.1, 0.86, {12.1, 6.3, 4.9}, 11.8,
        "def forward(A: Tensor, B: Tensor) -> Tensor:\n    return torch.diag(A) @ B\n", 3.95,
        2.702));
    r.tasks.push_back(
        makeTask("L1-19", 1, 19, "19_ReLU", "activation", "y = relu(x) on 16 x 16384.",
                 {{16, 16384}}, relu, 5.12, 2.86, 0.52, {2.86, 2.41, 1.31}, 2.86,
                 "def forward(x: Tensor) -> Tensor:\n    return torch.relu(x)\n", 0.31, 0.011));
    r.tasks.push_back(makeTask(
        "L1-23", 1, 23, "23_Softmax", "activation",
        "y = softmax(x, dim=1) over 16384 features. The outputs are about 6e-5, so every "
        "robust-kbench "
        "filter fires: range, std, axes and input impact.",
        {{16, 16384}}, softmaxValue, 2.61e-3, 1.48e-3, 5.2e-5, {1.48e-3, 9.1e-4, 3.2e-4}, 1.48e-3,
        "def forward(x: Tensor) -> Tensor:\n    return torch.softmax(x, dim=1)\n", 0.33, 0.0124));
    r.tasks.push_back(makeTask(
        "L1-24", 1, 24, "24_LogSoftmax", "activation", "y = log_softmax(x, dim=1), 16 x 16384.",
        {{16, 16384}}, normal(-10.2, 1.0), 15.9, 2.61, 0.94, {2.61, 1.72, 1.03}, 2.61,
        "def forward(x: Tensor) -> Tensor:\n    return torch.log_softmax(x, dim=1)\n", 0.34,
        0.0131));
    r.tasks.push_back(makeTask(
        "L1-33", 1, 33, "33_BatchNorm", "normalization",
        "Batch normalisation (training statistics) of 16 x 64 x 256 x 256.", {{16, 64, 256, 256}},
        normal(0, 1), 5.71, 2.94, 0.95, {2.94, 1.21, 1.02, 1.05, 1.04}, 2.93,
        "def forward(x: Tensor, weight: Tensor, bias: Tensor) -> Tensor:\n"
        "    return F.batch_norm(x, None, None, weight, bias, training=True)\n",
        5.12, 1.84));
    r.tasks.push_back(makeTask(
        "L1-36", 1, 36, "36_RMSNorm_", "normalization",
        "x / sqrt(mean(x^2, dim=1) + eps). Flagged in the seed's Table 1 only for baseline "
        "inefficiency (four eager kernels where one pass suffices).",
        {{16, 64, 256, 256}}, normal(0, 1), 5.83, 2.97, 0.95, {2.97, 1.19, 1.03, 1.04, 1.04}, 2.96,
        "def forward(x: Tensor) -> Tensor:\n"
        "    rms = torch.sqrt(torch.mean(x ** 2, dim=1, keepdim=True) + 1e-5)\n"
        "    return x / rms\n",
        5.31, 1.93));
    r.tasks.push_back(makeTask(
        "L1-47", 1, 47, "47_Sum_reduction_over_a_dimension", "reduction",
        "sum(x, dim=1, keepdim=True): the kept size-1 axis has a NaN std, which never "
        "passes '<', so the axes filter looks at the other axes.",
        {{16, 1, 256}}, normal(0, 16), 61.2, 31.4, 15.1, {31.4, 27.9, ks::NaN, 25.2}, 31.1,
        "def forward(x: Tensor) -> Tensor:\n    return torch.sum(x, dim=1, keepdim=True)\n", 0.21,
        0.0093));
    r.tasks.push_back(makeTask(
        "L1-95", 1, 95, "95_CrossEntropyLoss", "loss",
        "Mean cross-entropy over 4096 x 10 logits: a scalar that barely moves between seeds.", {{}},
        normal(2.7513, 0.0061), 2.7641, 8.7e-3, 8.7e-3, {8.7e-3}, 8.4e-3,
        "def forward(p: Tensor, t: Tensor) -> Tensor:\n    return F.cross_entropy(p, t)\n", 0.18,
        0.021));
    r.tasks.push_back(
        makeTask("L2-13", 2, 13, "13_ConvTranspose3d_Mean_Add_Softmax_Tanh_Scaling", "conv-fusion",
                 "ConvTranspose3d, mean over channels (keepdim), add bias, softmax over the size-1 "
                 "channel axis, "
                 "tanh, scale by 2: the output is the constant 2 tanh(1) = 1.5232. The seed's 124x "
                 "'speedup' "
                 "hard-codes that constant.",
                 {{16, 1, 32, 64, 64}}, constant(1.5231883), 1.5231883, 0.0, 0.0,
                 {0.0, 0.0, ks::NaN, 0.0, 0.0, 0.0}, 0.0,
                 "def forward(x: Tensor, w: Tensor, b: Tensor, bias: Tensor) -> Tensor:\n"
                 "    x = F.conv_transpose3d(x, w, b, stride=2, padding=1)\n"
                 "    x = torch.mean(x, dim=1, keepdim=True)\n"
                 "    x = x + bias\n"
                 "    x = torch.softmax(x, dim=1)  # size-1 axis: always 1.0\n"
                 "    x = torch.tanh(x)\n"
                 "    return x * 2.0\n",
                 4.86, 4.812));
    r.tasks.push_back(
        makeTask("L2-13r", 2, 13, "13_ConvTranspose3d_Mean_Add_Softmax_Tanh_Scaling (repaired)",
                 "conv-fusion",
                 "The repaired task: softmax over the channels before the mean, so the output "
                 "depends on the inputs.",
                 {{16, 1, 32, 64, 64}}, normal(0.48, 0.19), 1.21, 0.62, 0.19,
                 {0.62, 0.31, ks::NaN, 0.054, 0.061, 0.058}, 0.58,
                 "def forward(x: Tensor, w: Tensor, b: Tensor, bias: Tensor) -> Tensor:\n"
                 "    x = F.conv_transpose3d(x, w, b, stride=2, padding=1)\n"
                 "    x = torch.softmax(x, dim=1)\n"
                 "    x = torch.mean(x, dim=1, keepdim=True) + bias\n"
                 "    return torch.tanh(x) * 2.0\n",
                 5.02, 4.907));
    r.tasks.push_back(makeTask(
        "L2-66", 2, 66, "66_Matmul_Dropout_Mean_Softmax", "gemm-fusion",
        "Matmul, dropout, mean over dim 1 (keepdim), softmax over that size-1 axis: all ones.",
        {{128, 1}}, constant(1.0), 1.0, 0.0, 0.0, {0.0, 0.0, ks::NaN}, 0.0,
        "def forward(x: Tensor, w: Tensor, b: Tensor) -> Tensor:\n"
        "    x = F.linear(x, w, b)\n    x = F.dropout(x, 0.2, training=False)\n"
        "    x = torch.mean(x, dim=1, keepdim=True)\n    return torch.softmax(x, dim=1)\n",
        0.41, 0.034));
    r.tasks.push_back(makeTask(
        "L2-80", 2, 80, "80_Gemm_Max_Subtract_GELU", "gemm-fusion",
        "Gemm, max over dim 1 (keepdim), subtract its own mean over dim 1, GELU: GELU(0) = 0 "
        "everywhere.",
        {{128, 1}}, constant(0.0), 0.0, 0.0, 0.0, {0.0, 0.0, ks::NaN}, 0.0,
        "def forward(x: Tensor, w: Tensor, b: Tensor) -> Tensor:\n"
        "    x = F.linear(x, w, b)\n    x = torch.max(x, dim=1, keepdim=True).values\n"
        "    x = x - x.mean(dim=1, keepdim=True)\n    return F.gelu(x)\n",
        0.39, 0.031));
    {
        ks::TaskResult t;
        t.id = "L3-11";
        t.level = 3;
        t.number = 11;
        t.name = "11_VGG16";
        t.category = "model";
        t.description = "VGG16 forward on 10 x 3 x 224 x 224.";
        t.source = "def forward(x: Tensor, ...) -> Tensor:\n    ...\n";
        t.status = ks::TaskStatus::Error;
        t.error = "L3-11 11_VGG16: CUDA out of memory in seed 3 (tried to allocate 12.00 GiB; 3.1 "
                  "GiB free). "
                  "Run with --preset small, or close other GPU jobs.";
        t.wallSeconds = 7.9;
        r.tasks.push_back(t);
    }
    r.tasks.push_back(makeTask(
        "KS-3", 0, 3, "softmax_over_size1_axis_in_chain", "redundant",
        "A softmax over a size-1 axis in the middle of a chain: its result is 1.0 everywhere, "
        "so everything before it is dead computation.",
        {{64, 1, 128}}, constant(0.7615942), 0.7615942, 0.0, 0.0, {0.0, 0.0, ks::NaN, 0.0}, 0.0,
        "def forward(x: Tensor, w: Tensor) -> Tensor:\n"
        "    y = torch.softmax(x @ w, dim=1)\n    return torch.tanh(y)\n",
        0.12, 0.017));

    addAnalyses(r);
    write(dir + "/results.json", ks::resultsToJson(r));

    // The stream a worker would print for a 4-task run: the fake workers in tests/ui replay it.
    std::string stream;
    const int n = 4;
    ks::RunInfo info = r.run;
    stream += "{\"event\":\"start\",\"total\":" + std::to_string(n) +
              ",\"run\":" + ks::runInfoToJson(info) + "}\n";
    const std::vector<size_t> picks{0, 2, 4, 10};
    for (int i = 0; i < n; ++i) {
        const auto& t = r.tasks[picks[static_cast<size_t>(i)]];
        stream += "{\"event\":\"task_start\",\"index\":" + std::to_string(i) +
                  ",\"total\":" + std::to_string(n) + ",\"id\":\"" + t.id + "\"}\n";
        for (const char* phase : {"statistics", "inefficiency", "redundancy"})
            stream += "{\"event\":\"task_phase\",\"index\":" + std::to_string(i) + ",\"id\":\"" + t.id +
                      "\",\"phase\":\"" + phase + "\"}\n";
        stream += "{\"event\":\"task\",\"index\":" + std::to_string(i) +
                  ",\"total\":" + std::to_string(n) + ",\"result\":" + ks::taskResultToJson(t) +
                  "}\n";
    }
    stream += "{\"event\":\"done\",\"cancelled\":false,\"total_s\":12.5}\n";
    write(dir + "/stream.jsonl", stream);

    // Kernel bench: baseline and variants for the seed's cases.
    ks::BenchRun b;
    b.toolVersion = "0.1.0";
    b.created = "2026-11-29T11:00:00Z";
    b.device = "cuda";
    b.deviceName = "NVIDIA H200";
    b.driver = "580.65";
    b.libtorchVersion = "2.11.0";
    b.cudaVersion = "13.0";
    b.preset = "full";
    b.copyBandwidthGBs = 4300;
    b.fp32PeakTflops = 51;
    b.settings.warmup = 25;
    b.settings.runs = 2000;
    {
        ks::TaskBench t;
        t.taskId = "L1-12";
        t.taskName = "12_Matmul_with_diagonal_matrices_";
        t.op = "diag_matmul";
        t.shape = {4096, 4096};
        t.minBytes = 4096.0 * 4096 * 4 * 2 + 4096 * 4;
        t.flops = 4096.0 * 4096;
        t.baseline = timing(2.70, 0.03);
        const double base = t.baseline.medianMs;
        t.variants.push_back(variant(1, "naive", "one thread per element, row-major", 0.081, base,
                                     t.minBytes, true));
        t.variants.push_back(variant(2, "row_broadcast",
                                     "one block per row, diagonal value in a register", 0.052, base,
                                     t.minBytes, true));
        t.variants.push_back(variant(3, "float4", "grid-stride loop with float4 loads and stores",
                                     0.037, base, t.minBytes, true));
        b.tasks.push_back(t);
    }
    {
        ks::TaskBench t;
        t.taskId = "L1-23";
        t.taskName = "23_Softmax";
        t.op = "softmax";
        t.shape = {16, 16384};
        t.minBytes = 16.0 * 16384 * 4 * 2;
        t.flops = 16.0 * 16384 * 5;
        t.baseline = timing(0.0124, 0.05);
        const double base = t.baseline.medianMs;
        t.variants.push_back(variant(1, "three_pass",
                                     "max, sum, normalise: three passes over the row", 0.041, base,
                                     t.minBytes, true));
        t.variants.push_back(
            variant(2, "online", "one pass with online max", 0.0192, base, t.minBytes, true));
        t.variants.push_back(variant(3, "warp_shuffle", "warp-shuffle reductions, float4 loads",
                                     0.0089, base, t.minBytes, true));
        t.variants.push_back(variant(4, "skip_max",
                                     "drops the max subtraction: overflows on extreme inputs",
                                     0.0071, base, t.minBytes, false));
        b.tasks.push_back(t);
    }
    {
        ks::TaskBench t;
        t.taskId = "L1-36";
        t.taskName = "36_RMSNorm_";
        t.op = "rmsnorm";
        t.shape = {16, 64, 256, 256};
        t.minBytes = 16.0 * 64 * 256 * 256 * 4 * 2;
        t.flops = 16.0 * 64 * 256 * 256 * 4;
        t.baseline = timing(1.93, 0.02);
        const double base = t.baseline.medianMs;
        t.variants.push_back(variant(1, "naive", "one thread per (n, h, w), loops over channels",
                                     1.12, base, t.minBytes, true));
        t.variants.push_back(variant(2, "vectorized", "float4 over w, channel loop unrolled", 0.41,
                                     base, t.minBytes, true));
        b.tasks.push_back(t);
    }
    for (bool repaired : {false, true}) {
        ks::TaskBench t;
        t.taskId = repaired ? "L2-13r" : "L2-13";
        t.taskName = repaired ? "13_ConvTranspose3d_Mean_Add_Softmax_Tanh_Scaling (repaired)"
                              : "13_ConvTranspose3d_Mean_Add_Softmax_Tanh_Scaling";
        t.op = "convtranspose3d_mean_add_softmax_tanh_scaling";
        t.shape = {16, 32, 16, 32, 32};
        t.minBytes = 16.0 * 32 * 64 * 64 * 4;
        t.flops = 2.1e11;
        t.baseline = timing(repaired ? 4.91 : 4.86, 0.02);
        const double base = t.baseline.medianMs;
        t.variants.push_back(variant(
            1, "fused_epilogue", "cuDNN conv, then one fused mean/add/softmax/tanh/scale kernel",
            2.12, base, t.minBytes, true));
        auto shortcut = variant(2, "constant_output",
                                "writes 2 tanh(1) everywhere: valid only while the softmax runs "
                                "over a size-1 axis",
                                0.0392, base, t.minBytes, !repaired, true);
        if (!repaired) {
            shortcut.impossible = false;
        }
        t.variants.push_back(shortcut);
        b.tasks.push_back(t);
    }
    write(dir + "/bench.json", ks::benchToJson(b));

    // External kernels (`bench --kernels`): a small corpus on a task without built-in variants
    // (L1-19 ReLU: one of each verdict, one disagreeing with its manifest) and on the broken
    // L2-13, where an honest constant kernel is "valid" only because the task is flawed.
    ks::BenchRun e = b;
    e.created = "2026-11-30T09:00:00Z";
    e.tasks.clear();
    {
        ks::TaskBench t;
        t.taskId = "L1-19";
        t.taskName = "19_ReLU";
        t.shape = {16, 16384}; // no op: ReLU has no built-in kernels
        t.minBytes = 16.0 * 16384 * 4 * 2;
        t.flops = 16.0 * 16384;
        t.baseline = timing(0.0091, 0.05);
        const double base = t.baseline.medianMs;
        auto honest = externalKernel("relu_vec4", "torch-extension", "honest/relu_vec4.cu", "valid",
                                     0.0068, base, t.minBytes, true);
        honest.external.kernelNames = {"relu_vec4_kernel(float4 const*, float4*, long)"};
        t.variants.push_back(honest);

        auto stale = externalKernel("stale_memory", "torch-extension", "cheat/stale_memory.cu",
                                    "cheat:stale-memory", 0.0021, base, t.minBytes, false);
        stale.validation.failures = {
            "seed 1: 262144 of 262144 outputs NaN (the freed reference of seed 0)"};
        stale.guardHits.push_back(
            {"stale-memory", "the output aliases the eager output freed after seed 0 (NaN-filled "
                             "before it was freed): 262144 of 262144 elements NaN"});
        stale.external.precisionRatio = ks::NaN;
        t.variants.push_back(stale);

        auto half = externalKernel("relu_half", "modelnew", "modelnew/relu_half.py", "valid",
                                   0.0049, base, t.minBytes, true);
        half.external.function = "relu_half_cuda";
        half.external.cacheHit = true;
        half.external.compileSeconds = 0;
        half.external.kernelNames = {"relu_half_kernel(__half const*, __half*, long)"};
        half.external.precisionRatio = 1024;
        half.validation.maxAbsErr = 9.7e-6;
        half.guardHits.push_back({"precision",
                                  "kernel error 4.9e-04 (relative, against float64) is 1024x eager "
                                  "float32's own error (limit 32): computes in half precision"});
        t.variants.push_back(half);

        auto library = externalKernel("library_relu", "torch-extension", "library/library_relu.cu",
                                      "library", 0.0093, base, t.minBytes, true);
        library.guardHits.push_back(
            {"library", "launched only at::native::vectorized_elementwise_kernel (ATen); none of "
                        "library_relu.cu's own kernels"});
        library.external.kernelNames = {
            "void at::native::vectorized_elementwise_kernel<4, at::native::(anonymous "
            "namespace)::launch_clamp_scalar(...)>(int, ...)"};
        t.variants.push_back(library);

        auto broken = externalKernel("compile_error", "torch-extension", "broken/compile_error.cu",
                                     "compile-error", 1, base, t.minBytes, false);
        broken.validation = {};
        broken.timing = {};
        broken.speedup = broken.gbps = broken.pctCopyBandwidth = ks::NaN;
        broken.external.compiled = false;
        broken.external.compileSeconds = 3.2;
        broken.external.precisionRatio = ks::NaN;
        // The file name holds "error" too: the first *compiler* error is line 23's.
        broken.external.compileLog =
            "broken/compile_error.cu(14): warning #177-D: variable \"n\" was declared but never "
            "referenced\n"
            "broken/compile_error.cu(23): error: identifier \"blockDimx\" is undefined\n"
            "      const int i = blockIdx.x * blockDimx + threadIdx.x;\n"
            "                                 ^\n"
            "broken/compile_error.cu(31): error: expected a \";\"\n"
            "2 errors detected in the compilation of \"broken/compile_error.cu\".\n";
        t.variants.push_back(broken);
        e.tasks.push_back(t);
    }
    {
        ks::TaskBench t;
        t.taskId = "L2-13";
        t.taskName = "13_ConvTranspose3d_Mean_Add_Softmax_Tanh_Scaling";
        t.shape = {16, 32, 16, 32, 32};
        t.minBytes = ks::NaN; // an external-only run: no op, so no byte count
        t.flops = ks::NaN;
        t.baseline = timing(4.86, 0.02);
        const double base = t.baseline.medianMs;
        auto forward = externalKernel("forward", "robust-kbench",
                                      "13_ConvTranspose3d_Mean_Add_Softmax_Tanh_Scaling/forward.cu",
                                      "", 2.21, base, ks::NaN, true);
        forward.external.args = {"input x", "param conv_transpose.weight",
                                 "param conv_transpose.bias", "param bias", "2.0"};
        forward.external.kernelNames = {"cudnn::...::convolveNd_dgrad_engine",
                                        "fused_mean_add_softmax_tanh_scale_kernel"};
        forward.external.precisionRatio = 1.7;
        t.variants.push_back(forward);
        auto constant =
            externalKernel("l2_13_constant", "torch-extension", "honest/l2_13_constant.cu", "valid",
                           0.0392, base, ks::NaN, true);
        constant.external.kernelNames = {"fill_constant_kernel(float*, long, float)"};
        constant.external.precisionRatio = 0.5;
        t.variants.push_back(constant);
        e.tasks.push_back(t);
    }
    write(dir + "/bench-external.json", ks::benchToJson(e));
    return 0;
}
