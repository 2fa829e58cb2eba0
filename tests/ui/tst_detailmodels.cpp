// SPDX-License-Identifier: MIT
// The detail models (axes, seed stats, filter 5's roofline and rewrites, filter 6's redundant
// nodes, kernel variants) and the ResultsUtil conversions.

#include <models/axesmodel.h>
#include <models/redundancymodel.h>
#include <models/resultsutil.h>
#include <models/rewritesmodel.h>
#include <models/rooflinemodel.h>
#include <models/seedstatsmodel.h>
#include <models/variantsmodel.h>

#include <ks/core/benchresults.h>

#include <models/filtermatrixmodel.h>

#include <QAbstractItemModelTester>
#include <QFont>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

#include <cmath>
#include <optional>

namespace {
ks::RunResults fixture() {
    const std::string path = KS_UI_TEST_DATA "/results.json";
    return ks::resultsFromJson(ks::readFile(path), path);
}
ks::BenchRun benchFixture() {
    const std::string path = KS_UI_TEST_DATA "/bench.json";
    return ks::benchFromJson(ks::readFile(path), path);
}
ks::BenchRun externalFixture() {
    const std::string path = KS_UI_TEST_DATA "/bench-external.json";
    return ks::benchFromJson(ks::readFile(path), path);
}
const ks::TaskBench* benchTask(const ks::BenchRun& b, const std::string& id) {
    for (const auto& t : b.tasks)
        if (t.taskId == id) return &t;
    return nullptr;
}
} // namespace

class TestDetailModels : public QObject {
    Q_OBJECT
  private slots:
    void testAxes() {
        AxesModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        const auto r = fixture();
        model.setTask(r.find("L1-47"), 0.01);
        QCOMPARE(model.rowCount(), 4);
        QCOMPARE(model.index(0, AxesModel::AxisColumn).data().toString(),
                 QStringLiteral("0 (seeds)"));
        QCOMPARE(model.index(0, AxesModel::SizeColumn).data().toLongLong(), 5);
        QCOMPARE(model.index(2, AxesModel::SizeColumn).data().toLongLong(), 1);
        QCOMPARE(model.index(2, AxesModel::ValueColumn).data().toString(), QStringLiteral("NaN"));
        QVERIFY(!model.flagged(2)); // NaN never passes '<'
        QVERIFY(!model.flagged(3));
        model.setThreshold(30.0);
        QVERIFY(model.flagged(3));
        QVERIFY(model.flagged(1));
        QVERIFY(!model.flagged(0));
        model.setTask(r.find("L3-11"), 0.01); // failed task: no axes
        QCOMPARE(model.rowCount(), 0);
        model.setTask(nullptr, 0.01);
        QCOMPARE(model.rowCount(), 0);
    }

    void testRoofline() {
        RooflineModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        const auto r = fixture();
        model.setTask(r.find("L1-36"));
        QCOMPARE(model.columnCount(), int(RooflineModel::ColumnCount));
        QCOMPARE(model.value(QStringLiteral("Timed on")), QStringLiteral("CUDA (median of 20 calls)"));
        QCOMPARE(model.value(QStringLiteral("Fewest bytes")), QStringLiteral("537 MB"));
        QCOMPARE(model.value(QStringLiteral("Passes")), QStringLiteral("2.52"));
        QCOMPARE(model.value(QStringLiteral("Verdict")),
                 QStringLiteral("passed")); // passes: information by default
        auto fusion = ks::Thresholds::defaults();
        fusion.set(ks::Threshold::BaselinePasses, 2); // profile fusion-headroom
        model.setThresholds(fusion);
        QCOMPARE(model.value(QStringLiteral("Verdict")), QStringLiteral("flagged: 2.52 passes"));
        QVERIFY(model.value(QStringLiteral("Floor")).contains(QStringLiteral("memory-bound")));
        auto row = [&](const QString& q) {
            for (int i = 0; i < model.rowCount(); ++i)
                if (model.index(i, RooflineModel::QuantityColumn).data().toString() == q) return i;
            return -1;
        };
        QVERIFY(model.index(row(QStringLiteral("Passes")), 0).data(RooflineModel::FlaggedRole).toBool());
        QVERIFY(!model.index(row(QStringLiteral("Efficiency")), 0).data(RooflineModel::FlaggedRole).toBool());
        // Live re-thresholding: a higher pass bound clears the flag without new data.
        auto th = ks::Thresholds::defaults();
        th.set(ks::Threshold::BaselinePasses, 3);
        model.setThresholds(th);
        QCOMPARE(model.value(QStringLiteral("Verdict")), QStringLiteral("passed"));
        QVERIFY(!model.index(row(QStringLiteral("Passes")), 1).data(RooflineModel::FlaggedRole).toBool());

        // The launch-bound test and the graph replay, when measured, are shown with their numbers.
        {
            ks::TaskResult t = *r.find("L1-36");
            auto& ie = *t.inefficiency;
            ie.launches = 5;
            ie.launchMs = 0.01;
            ie.eagerMs = 0.08;
            ie.launchBound = true;
            ie.graphMs = 0;
            ie.graphError.clear();
            model.setTask(&t);
            QCOMPARE(model.value(QStringLiteral("Launch-bound")), QStringLiteral("yes: eager \u2264 0.1 ms"));
            QCOMPARE(row(QStringLiteral("Graph replay")), -1); // not measured, no reason: no row
            ie.graphMs = 0.02;
            ie.graphLaunchMs = 0.003;
            model.setTask(&t);
            QCOMPARE(model.value(QStringLiteral("Graph replay")),
                     QStringLiteral("0.02 ms (host dispatch 0.06 ms, 75% of eager)"));
            ie.graphMs = 0;
            ie.graphError = "operation not permitted when stream is capturing";
            model.setTask(&t);
            QCOMPARE(model.value(QStringLiteral("Graph replay")), QStringLiteral("not measured"));
            // The forward's waits for the GPU: a row once counted (CUDA), none before.
            ie.hostSyncs = -1;
            model.setTask(&t);
            QCOMPARE(row(QStringLiteral("Host waits")), -1);
            ie.hostSyncs = 0;
            model.setTask(&t);
            QCOMPARE(model.value(QStringLiteral("Host waits")), QStringLiteral("none"));
            ie.hostSyncs = 16;
            model.setTask(&t);
            QCOMPARE(model.value(QStringLiteral("Host waits")), QStringLiteral("16 per forward"));
            model.setTask(r.find("L1-36"));
        }

        QCOMPARE(row(QStringLiteral("Serial floor")), -1); // no recurrence, no row
        // A recurrence whose dependent steps cost more than its bytes and FLOPs: serial-bound.
        ks::TaskResult lstm = *r.find("L1-36");
        lstm.inefficiency->serialSteps = 517;
        lstm.inefficiency->launchMs = 0.007;
        lstm.inefficiency->serialFloorMs = 517 * 0.007;
        lstm.inefficiency->floorMs = lstm.inefficiency->serialFloorMs;
        model.setTask(&lstm);
        QVERIFY(row(QStringLiteral("Serial floor")) >= 0);
        QVERIFY2(model.value(QStringLiteral("Floor")).contains(QStringLiteral("serial-bound")),
                 qPrintable(model.value(QStringLiteral("Floor"))));

        // CPU timings are marked as CPU timings.
        ks::TaskResult cpu = *r.find("L1-12");
        cpu.inefficiency->device = "cpu";
        model.setTask(&cpu);
        QVERIFY(model.value(QStringLiteral("Timed on")).startsWith(QStringLiteral("CPU (CPU timings")));
        QVERIFY(model.value(QStringLiteral("Eager time")).endsWith(QStringLiteral("(CPU)")));
        cpu.inefficiency->error = "task L1-12: boom";
        model.setTask(&cpu);
        QCOMPARE(model.value(QStringLiteral("Error")), QStringLiteral("task L1-12: boom"));
        model.setTask(r.find("L3-11"));
        QCOMPARE(model.value(QStringLiteral("Baseline inefficiency")), QStringLiteral("not analysed: the task failed"));
        model.setTask(nullptr);
        QCOMPARE(model.rowCount(), 1);
    }

    void testRewrites() {
        RewritesModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        const auto r = fixture();
        model.setTask(r.find("L1-12"));
        QCOMPARE(model.rowCount(), 1);
        QCOMPARE(model.index(0, RewritesModel::RuleColumn).data().toString(), QStringLiteral("diag-matmul"));
        QCOMPARE(model.index(0, RewritesModel::LineColumn).data().toString(), QStringLiteral("2"));
        QCOMPARE(model.index(0, RewritesModel::EqualColumn).data().toString(), QStringLiteral("equal"));
        QCOMPARE(model.index(0, RewritesModel::MaxDiffColumn).data().toString(), QStringLiteral("0"));
        QCOMPARE(model.index(0, RewritesModel::TimeColumn).data().toString(), QStringLiteral("0.0529"));
        QCOMPARE(model.index(0, RewritesModel::SpeedupColumn).data().toString(), QStringLiteral("\u2691 51.1x"));
        QVERIFY(model.index(0, 0).data(RewritesModel::FlaggedRole).toBool());
        QCOMPARE(model.headerData(RewritesModel::TimeColumn, Qt::Horizontal).toString(), QStringLiteral("Time ms"));
        auto th = ks::Thresholds::defaults();
        th.set(ks::Threshold::BaselineRewriteSpeedup, 100);
        model.setThresholds(th);
        QCOMPARE(model.index(0, RewritesModel::SpeedupColumn).data().toString(), QStringLiteral("51.1x"));
        // The fixture predates the interleaved timing (no original time): the tooltip says the rule
        // only; with the original's time it names both times.
        QVERIFY(!model.index(0, RewritesModel::SpeedupColumn).data(Qt::ToolTipRole).toString().contains(
            QStringLiteral("alternation")));
        ks::TaskResult timed = *r.find("L1-12");
        timed.inefficiency->rewrites[0].originalMs = 2.703;
        model.setTask(&timed);
        const QString tip = model.index(0, RewritesModel::SpeedupColumn).data(Qt::ToolTipRole).toString();
        QVERIFY2(tip.contains(QStringLiteral("original graph 2.703 ms / rewritten graph 0.0529 ms")) &&
                     tip.contains(QStringLiteral("alternation")),
                 qPrintable(tip));

        // Detected-only and unequal rewrites, on the CPU.
        ks::TaskResult t = *r.find("L1-12");
        t.inefficiency->device = "cpu";
        ks::RewriteResult mask;
        mask.rule = "mask-after-matmul";
        mask.implemented = false;
        ks::RewriteResult wrong;
        wrong.rule = "softmax-log";
        wrong.equal = false;
        wrong.maxAbsDiff = 0.5;
        t.inefficiency->rewrites = {mask, wrong};
        model.setTask(&t);
        QCOMPARE(model.headerData(RewritesModel::TimeColumn, Qt::Horizontal).toString(), QStringLiteral("Time ms (CPU)"));
        QCOMPARE(model.index(0, RewritesModel::EqualColumn).data().toString(), QStringLiteral("detected only"));
        QCOMPARE(model.index(0, RewritesModel::LineColumn).data().toString(), QStringLiteral("?"));
        QCOMPARE(model.index(1, RewritesModel::EqualColumn).data().toString(), QStringLiteral("NOT equal"));
        QCOMPARE(model.index(1, RewritesModel::MaxDiffColumn).data().toString(), QStringLiteral("0.5"));
        QCOMPARE(model.index(1, RewritesModel::SpeedupColumn).data().toString(), QStringLiteral("\u2014"));
        model.setTask(r.find("L1-4"));
        QCOMPARE(model.rowCount(), 0);
    }

    void testRedundancy() {
        RedundancyModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        const auto r = fixture();
        model.setTask(r.find("L2-13"));
        QCOMPARE(model.rowCount(), 6); // 4 nodes, 2 unused arguments
        QCOMPARE(model.index(0, RedundancyModel::KindColumn).data().toString(), QStringLiteral("constant"));
        QCOMPARE(model.index(0, RedundancyModel::OpColumn).data().toString(), QStringLiteral("aten::softmax"));
        QCOMPARE(model.index(0, RedundancyModel::LineColumn).data().toString(),
                 QStringLiteral("5"));
        QVERIFY(model.index(0, RedundancyModel::SourceColumn).data().toString().startsWith(QStringLiteral("x = torch.softmax")));
        QVERIFY(model.index(0, RedundancyModel::ReasonColumn).data().toString().contains(QStringLiteral("size-1 axis")));
        QCOMPARE(model.index(1, RedundancyModel::FlopsColumn).data().toString(), QStringLiteral("2.09e+11"));
        QCOMPARE(model.index(1, RedundancyModel::KindColumn).data().toString(), QStringLiteral("feeds-redundant"));
        QCOMPARE(model.index(5, RedundancyModel::KindColumn).data().toString(), QStringLiteral("unused parameter"));
        QCOMPARE(model.index(5, RedundancyModel::OpColumn).data().toString(), QStringLiteral("w"));
        QVERIFY(model.summary().startsWith(QStringLiteral("99.6% of the FLOPs are redundant: 4 ops, 2 unused arguments")));
        QVERIFY2(model.summary().contains(QStringLiteral("3 seeds, full preset, CUDA")), qPrintable(model.summary()));
        model.setTask(r.find("L1-1"));
        QCOMPARE(model.rowCount(), 0);
        QVERIFY(model.summary().startsWith(QStringLiteral("No redundant computation")));
        model.setTask(r.find("L1-4"));
        QVERIFY(model.summary().contains(QStringLiteral("not run")));
        model.setTask(nullptr);
        QCOMPARE(model.rowCount(), 0);
    }

    void testSeedStats() {
        SeedStatsModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        const auto r = fixture();
        model.setTask(r.find("L1-23"));
        QCOMPARE(model.rowCount(), 5);
        QCOMPARE(model.columnCount(), int(SeedStatsModel::ColumnCount));
        QCOMPARE(model.index(4, SeedStatsModel::SeedColumn).data().toLongLong(), 4);
        const double mean =
            model.index(0, SeedStatsModel::MeanColumn).data(Qt::EditRole).toDouble();
        QVERIFY2(mean > 4e-5 && mean < 9e-5, qPrintable(QString::number(mean))); // ~1/16384
        model.setTask(nullptr);
        QCOMPARE(model.rowCount(), 0);
    }

    void testVariants() {
        VariantsModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        const auto b = benchFixture();
        model.setTask(benchTask(b, "L1-23"));
        QCOMPARE(model.rowCount(), 5); // baseline + 4 variants
        QCOMPARE(model.index(0, VariantsModel::SpeedupColumn).data().toString(),
                 QStringLiteral("1x"));
        QVERIFY(model.index(4, VariantsModel::ValidationColumn)
                    .data()
                    .toString()
                    .startsWith(QStringLiteral("FAILED")));
        QVERIFY(model.index(3, VariantsModel::ValidationColumn)
                    .data()
                    .toString()
                    .startsWith(QStringLiteral("passed")));
        model.setTask(nullptr);
        QCOMPARE(model.rowCount(), 0);
    }

    // Issue 12: a bench file with the compiled and CUDA-graph baselines (the H200 run of
    // bench/kernels/h200-2026-12-02): their rows after eager's, the variants' speedups over each
    // with intervals, an unavailable compiled baseline with its reason, the clock record.
    void testVariantsWithBaselines() {
        using Kind = ResultsUtil::SpeedupBar::Kind;
        VariantsModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        const std::string path = KS_UI_TEST_DATA "/bench-baselines.json";
        const ks::BenchRun b = ks::benchFromJson(ks::readFile(path), path);
        QCOMPARE(b.baselines, (std::vector<std::string>{"eager", "compiled", "graph"}));
        model.setTask(benchTask(b, "L1-36"));
        QCOMPARE(model.rowCount(), 5); // eager, compiled, graph, 2 variants
        QVERIFY(model.columnUsed(VariantsModel::VsCompiledColumn));
        QVERIFY(model.columnUsed(VariantsModel::VsGraphColumn));
        QCOMPARE(model.variantOf(0), -1);
        QCOMPARE(model.variantOf(1), -1);
        QCOMPARE(model.variantOf(2), -1);
        QCOMPARE(model.variantOf(3), 0);
        QCOMPARE(model.index(1, VariantsModel::NameColumn).data().toString(),
                 QStringLiteral("compiled (AOTInductor) (baseline)"));
        QCOMPARE(model.index(1, VariantsModel::SpeedupColumn).data().toString(),
                 QStringLiteral("1.29x [1.29, 1.29]"));
        QVERIFY(model.index(1, VariantsModel::ValidationColumn).data().toString().startsWith(
            QStringLiteral("passed (100 seeds")));
        QCOMPARE(model.index(1, VariantsModel::MedianColumn).data().toString(), QStringLiteral("0.3278"));
        QCOMPARE(model.index(2, VariantsModel::NameColumn).data().toString(),
                 QStringLiteral("eager in a CUDA graph (baseline)"));
        // rmsnorm_kernel2: 3.11x eager, 2.40x compiled, 3.08x graph, each with its interval
        QCOMPARE(model.index(4, VariantsModel::SpeedupColumn).data().toString(),
                 QStringLiteral("3.11x [3.11, 3.11]"));
        QCOMPARE(model.index(4, VariantsModel::VsCompiledColumn).data().toString(),
                 QStringLiteral("2.4x [2.4, 2.4]"));
        QCOMPARE(model.index(4, VariantsModel::VsGraphColumn).data().toString(),
                 QStringLiteral("3.08x [3.08, 3.08]"));
        QVERIFY(model.index(4, VariantsModel::MedianColumn)
                    .data(Qt::ToolTipRole)
                    .toString()
                    .contains(QStringLiteral("2000 runs in 10 interleaved blocks; SM clock 1980-1980 MHz (NVML), 0 of 10")));
        // The cells' tooltips carry the interval, the U test's p-value and the baseline's median.
        const QString tip = model.index(4, VariantsModel::VsCompiledColumn).data(Qt::ToolTipRole).toString();
        QVERIFY2(tip.contains(QStringLiteral("2.399x over compiled (AOTInductor): 95 % interval [2.398, 2.4]")) &&
                     tip.contains(QStringLiteral("Mann-Whitney U p")) && tip.contains(QStringLiteral("2000 bootstrap")),
                 qPrintable(tip));
        QVERIFY(model.index(1, VariantsModel::SpeedupColumn).data(Qt::ToolTipRole).toString().contains(
            QStringLiteral("over PyTorch eager")));
        // The chart's bars: the compiled baseline's own speedup over eager, with its interval.
        const auto bars = ResultsUtil::speedupBars(*benchTask(b, "L1-36"));
        QCOMPARE(bars[1].baseline, QStringLiteral("compiled"));
        QVERIFY(bars[1].interval);
        QCOMPARE(bars[1].kind, Kind::Baseline);
        QCOMPARE(bars[3].variant, 0);
        // L2-13's compile failed in that run: an unavailable row that says why, no comparison.
        model.setTask(benchTask(b, "L2-13"));
        QCOMPARE(model.index(1, VariantsModel::VerdictColumn).data().toString(), QStringLiteral("unavailable"));
        QVERIFY(model.index(1, VariantsModel::NoteColumn).data().toString().contains(QStringLiteral("compile failed")));
        QCOMPARE(model.index(3, VariantsModel::VsCompiledColumn).data().toString(), QStringLiteral("\u2014"));
        // A file without them keeps its table.
        const auto old = benchFixture();
        model.setTask(benchTask(old, "L1-23"));
        QVERIFY(!model.columnUsed(VariantsModel::VsCompiledColumn));
        QCOMPARE(model.rowCount(), 5);
    }

    // Issue 14, point 5: one task's rows from several bench files, each tagged with its file and
    // device; the File column is used only then. The column table is what the header shows.
    void testVariantsSeveralFiles() {
        VariantsModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        const auto builtin = benchFixture();
        const auto external = externalFixture();
        model.setTask(benchTask(builtin, "L2-13"));
        QCOMPARE(model.sourceCount(), 1);
        QVERIFY(!model.columnUsed(VariantsModel::FileColumn));
        const int builtinRows = model.rowCount();
        model.setSources({{benchTask(builtin, "L2-13"), QStringLiteral("[1] bench.json"),
                           QStringLiteral("NVIDIA H200")},
                          {benchTask(external, "L2-13"), QStringLiteral("[2] bench-external.json"),
                           QStringLiteral("NVIDIA H100")}});
        QCOMPARE(model.sourceCount(), 2);
        QVERIFY(model.columnUsed(VariantsModel::FileColumn));
        QVERIFY(model.columnUsed(VariantsModel::ExpectColumn)); // the external file has a manifest
        const int externalRows = int(benchTask(external, "L2-13")->variants.size()) + 1;
        QCOMPARE(model.rowCount(), builtinRows + externalRows);
        // Each file's baseline first, then its variants, in file order.
        QCOMPARE(model.sourceOf(0), 0);
        QCOMPARE(model.variantOf(0), -1);
        QCOMPARE(model.sourceOf(builtinRows), 1);
        QCOMPARE(model.variantOf(builtinRows), -1);
        QCOMPARE(model.variantOf(builtinRows + 1), 0);
        QCOMPARE(model.index(builtinRows, VariantsModel::FileColumn).data().toString(),
                 QStringLiteral("[2] bench-external.json \u00b7 NVIDIA H100"));
        QCOMPARE(model.index(builtinRows, VariantsModel::NameColumn).data().toString(),
                 QStringLiteral("PyTorch eager (baseline)"));
        QCOMPARE(model.index(builtinRows + 1, VariantsModel::FormatColumn).data().toString(),
                 QString::fromStdString(benchTask(external, "L2-13")->variants[0].external.format));
        QCOMPARE(model.index(1, VariantsModel::FormatColumn).data().toString(),
                 QStringLiteral("built-in"));
        for (int c = 0; c < VariantsModel::ColumnCount; ++c)
            QCOMPARE(model.headerData(c, Qt::Horizontal).toString(),
                     QString::fromUtf8(VariantsModel::columnSpecs()[size_t(c)].title));
        QCOMPARE(model.headerData(VariantsModel::SpeedupColumn, Qt::Horizontal).toString(),
                 QStringLiteral("Speedup"));
        model.setSources({});
        QCOMPARE(model.rowCount(), 0);
    }

    void testSpeedupBars() {
        const auto b = benchFixture();
        using Kind = ResultsUtil::SpeedupBar::Kind;
        const auto diag = ResultsUtil::speedupBars(*benchTask(b, "L1-12"));
        QCOMPARE(diag.size(), size_t(4));
        QCOMPARE(diag[0].kind, Kind::Baseline);
        QCOMPARE(diag[0].speedup, 1.0);
        QCOMPARE(diag[3].kind, Kind::Passed);
        QVERIFY2(diag[3].speedup > 60 && diag[3].speedup < 85,
                 qPrintable(QString::number(diag[3].speedup)));
        QVERIFY(diag[3].low < diag[3].speedup && diag[3].speedup < diag[3].high);

        const auto broken = ResultsUtil::speedupBars(*benchTask(b, "L2-13"));
        QCOMPARE(broken[2].kind,
                 Kind::Shortcut); // the constant-output kernel passes on the broken task
        QVERIFY(broken[2].speedup > 100);
        const auto repaired = ResultsUtil::speedupBars(*benchTask(b, "L2-13r"));
        QCOMPARE(repaired[2].kind, Kind::Failed); // ... and fails once the task is repaired
        QVERIFY(repaired[2].note.contains(QStringLiteral("seed 0")));
    }

    // External kernels (bench-external.json): one row per kernel with verdict, format, guards,
    // precision and the manifest's expectation; colours and tooltips say what the words mean.
    void testVariantsExternal() {
        VariantsModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        const auto b = externalFixture();
        model.setTask(benchTask(b, "L1-19"));
        QCOMPARE(model.rowCount(), 6); // baseline + 5 kernels
        QCOMPARE(model.columnCount(), int(VariantsModel::ColumnCount));
        auto text = [&](int row, int column, int role = Qt::DisplayRole) {
            return model.index(row, column).data(role).toString();
        };
        auto color = [&](int row, int column) {
            return model.index(row, column).data(Qt::BackgroundRole).value<QColor>();
        };
        const QColor red = FilterMatrixModel::stateColor(FilterMatrixModel::CellState::Flagged);
        const QColor green = FilterMatrixModel::stateColor(FilterMatrixModel::CellState::Passed);
        const QColor orange = FilterMatrixModel::stateColor(FilterMatrixModel::CellState::Error);

        // Names as given: an external kernel has no version ("v0") and its task no op.
        QCOMPARE(text(1, VariantsModel::NameColumn), QStringLiteral("relu_vec4"));
        QCOMPARE(text(0, VariantsModel::VerdictColumn), QStringLiteral("reference"));
        const QStringList verdicts{"valid", "cheat", "cheat", "valid \u00b7 library",
                                   "compile error"};
        const QStringList raw{"valid", "cheat", "cheat", "valid", "compile error"};
        for (int row = 1; row <= 5; ++row) {
            QCOMPARE(text(row, VariantsModel::VerdictColumn), verdicts[row - 1]);
            QCOMPARE(text(row, VariantsModel::NameColumn, VariantsModel::VerdictRole),
                     raw[row - 1]);
            QCOMPARE(color(row, VariantsModel::VerdictColumn),
                     raw[row - 1] == QLatin1String("valid") ? green : red);
        }
        QVERIFY(
            model.index(2, VariantsModel::VerdictColumn).data(Qt::FontRole).value<QFont>().bold());

        // Format, with where the file came from and how it was called in the tooltip.
        QCOMPARE(text(0, VariantsModel::FormatColumn), QStringLiteral("eager"));
        QCOMPARE(text(1, VariantsModel::FormatColumn), QStringLiteral("torch-extension"));
        QCOMPARE(text(3, VariantsModel::FormatColumn), QStringLiteral("modelnew"));
        QVERIFY(text(3, VariantsModel::FormatColumn, Qt::ToolTipRole)
                    .contains(QStringLiteral("calls: relu_half_cuda(input x)")));
        QVERIFY(text(3, VariantsModel::FormatColumn, Qt::ToolTipRole)
                    .contains(QStringLiteral("from the cache")));

        // Guards: the names in the cell, what was seen in the tooltip; red only for a cheat.
        QCOMPARE(text(1, VariantsModel::GuardsColumn), QStringLiteral("\u2014"));
        QCOMPARE(text(2, VariantsModel::GuardsColumn), QStringLiteral("stale-memory"));
        QVERIFY(text(2, VariantsModel::GuardsColumn, Qt::ToolTipRole)
                    .startsWith(QStringLiteral("stale-memory: the output aliases")));
        QCOMPARE(color(2, VariantsModel::GuardsColumn), red);
        QCOMPARE(text(4, VariantsModel::GuardsColumn), QStringLiteral("library"));
        QVERIFY(!model.index(4, VariantsModel::GuardsColumn).data(Qt::BackgroundRole).isValid());
        QVERIFY(text(4, VariantsModel::VerdictColumn, Qt::ToolTipRole)
                    .contains(QStringLiteral("no CUDA kernel of its own")));

        // Precision ratio: the half-precision kernel trips the guard.
        QCOMPARE(text(1, VariantsModel::PrecisionColumn), QStringLiteral("1"));
        QCOMPARE(text(3, VariantsModel::PrecisionColumn), QStringLiteral("1024"));
        QCOMPARE(color(3, VariantsModel::PrecisionColumn), red);
        QCOMPARE(text(2, VariantsModel::PrecisionColumn), QStringLiteral("\u2014"));

        // The compile error: the compiler's first *error* line, not the warning about a file
        // whose name holds "error"; nothing to time.
        const QString tip = text(5, VariantsModel::VerdictColumn, Qt::ToolTipRole);
        QVERIFY2(tip.contains(QStringLiteral(
                     "compile_error.cu(23): error: identifier \"blockDimx\" is undefined")),
                 qPrintable(tip));
        QVERIFY2(!tip.contains(QStringLiteral("warning")), qPrintable(tip));
        QVERIFY(text(5, VariantsModel::NoteColumn).startsWith(QStringLiteral("compile error: ")));
        QCOMPARE(text(5, VariantsModel::ValidationColumn), QStringLiteral("not compiled"));
        QCOMPARE(text(5, VariantsModel::SpeedupColumn), QStringLiteral("\u2014"));
        QVERIFY(text(5, VariantsModel::FormatColumn, Qt::ToolTipRole)
                    .contains(QStringLiteral("2 errors detected")));

        // A cheat's speedup is struck out: not a result.
        QVERIFY(model.index(2, VariantsModel::SpeedupColumn)
                    .data(Qt::FontRole)
                    .value<QFont>()
                    .strikeOut());
        QVERIFY(!model.index(1, VariantsModel::SpeedupColumn).data(Qt::FontRole).isValid());

        // The manifest's expectation, marked where the verdict disagrees (relu_half: "valid").
        QCOMPARE(text(2, VariantsModel::ExpectColumn), QStringLiteral("cheat:stale-memory"));
        QCOMPARE(
            model.index(2, VariantsModel::ExpectColumn).data(VariantsModel::ExpectMetRole).toBool(),
            true);
        QCOMPARE(text(3, VariantsModel::ExpectColumn), QStringLiteral("\u26a0 valid"));
        QCOMPARE(
            model.index(3, VariantsModel::ExpectColumn).data(VariantsModel::ExpectMetRole).toBool(),
            false);
        QCOMPARE(color(3, VariantsModel::ExpectColumn), orange);
        QVERIFY(text(3, VariantsModel::VerdictColumn, Qt::ToolTipRole)
                    .contains(QStringLiteral("expects: valid")));
        QCOMPARE(
            model.index(4, VariantsModel::ExpectColumn).data(VariantsModel::ExpectMetRole).toBool(),
            true); // library
        QCOMPARE(
            model.index(5, VariantsModel::ExpectColumn).data(VariantsModel::ExpectMetRole).toBool(),
            true); // compile-error

        // L2-13: a robust-kbench import without an expectation, no byte count (no op).
        model.setTask(benchTask(b, "L2-13"));
        QCOMPARE(model.rowCount(), 3);
        QCOMPARE(text(1, VariantsModel::FormatColumn), QStringLiteral("robust-kbench"));
        QCOMPARE(text(1, VariantsModel::ExpectColumn), QStringLiteral("\u2014"));
        QVERIFY(!model.index(1, VariantsModel::ExpectColumn)
                     .data(VariantsModel::ExpectMetRole)
                     .isValid());
        QCOMPARE(text(1, VariantsModel::BandwidthColumn), QStringLiteral("\u2014"));
        QCOMPARE(text(2, VariantsModel::VerdictColumn), QStringLiteral("valid"));
        QCOMPARE(text(2, VariantsModel::SpeedupColumn), QStringLiteral("124x"));

        // Built-in variants keep their labels and get a verdict and format too.
        const auto builtin = benchFixture();
        model.setTask(benchTask(builtin, "L1-23"));
        QCOMPARE(text(1, VariantsModel::NameColumn), QStringLiteral("v1 three_pass"));
        QCOMPARE(text(1, VariantsModel::FormatColumn), QStringLiteral("built-in"));
        QCOMPARE(text(4, VariantsModel::VerdictColumn), QStringLiteral("invalid"));
        QCOMPARE(color(4, VariantsModel::VerdictColumn), red);
        QCOMPARE(text(4, VariantsModel::ExpectColumn), QString());
        model.setTask(benchTask(builtin, "L2-13"));
        QCOMPARE(text(2, VariantsModel::VerdictColumn), QStringLiteral("valid \u00b7 shortcut"));
        QCOMPARE(color(2, VariantsModel::VerdictColumn), orange);
    }

    void testSpeedupBarsExternal() {
        using Kind = ResultsUtil::SpeedupBar::Kind;
        const auto b = externalFixture();
        const auto relu = ResultsUtil::speedupBars(*benchTask(b, "L1-19"));
        QCOMPARE(relu.size(), size_t(6));
        QCOMPARE(relu[1].kind, Kind::Passed);
        QCOMPARE(relu[1].label, QStringLiteral("relu_vec4"));
        QCOMPARE(relu[1].summary, QStringLiteral("torch-extension")); // no summary: the format
        QCOMPARE(relu[2].kind, Kind::Cheat);
        QVERIFY(relu[2].speedup > 4); // the fastest bar, and it must not read as a win
        QCOMPARE(relu[2].guards, QStringList{QStringLiteral("stale-memory")});
        QVERIFY(relu[2].note.startsWith(QStringLiteral("stale-memory: ")));
        QCOMPARE(relu[3].kind, Kind::Cheat); // precision: validation passed, the guard did not
        QCOMPARE(relu[4].kind, Kind::Passed);
        QVERIFY(relu[4].library);
        QCOMPARE(relu[5].kind, Kind::NotRun);
        QCOMPARE(relu[5].verdict, QStringLiteral("compile error"));
        QVERIFY(relu[5].note.contains(QStringLiteral("(23): error:")));
        QVERIFY(!std::isfinite(relu[5].speedup));
        const auto broken = ResultsUtil::speedupBars(*benchTask(b, "L2-13"));
        QCOMPARE(broken[2].kind, Kind::Passed); // valid: only the task's flags say otherwise
        QVERIFY(broken[2].speedup > 100);
    }

    void testExpectAndCompilerErrors() {
        ks::VariantResult v;
        v.external.format = "torch-extension";
        v.external.compiled = true;
        v.validation.run = true;
        v.validation.passed = true;
        QVERIFY(!ResultsUtil::expectMet(v)); // no expectation
        v.external.expect = "valid";
        QCOMPARE(ResultsUtil::expectMet(v), std::optional<bool>(true));
        v.external.expect = "library";
        QCOMPARE(ResultsUtil::expectMet(v), std::optional<bool>(false));
        v.guardHits.push_back({"library", "ATen only"});
        QCOMPARE(ResultsUtil::expectMet(v), std::optional<bool>(true));
        QCOMPARE(ResultsUtil::verdictText(v), QStringLiteral("valid \u00b7 library"));
        v.external.expect = "cheat:impossible-speed";
        QCOMPARE(ResultsUtil::expectMet(v), std::optional<bool>(false));
        v.impossible = true;
        QCOMPARE(ResultsUtil::expectMet(v), std::optional<bool>(true));
        QCOMPARE(ResultsUtil::guardNames(v), (QStringList{"library", "impossible-speed"}));
        v.external.expect = "cheat:replay";
        QCOMPARE(ResultsUtil::expectMet(v), std::optional<bool>(false));
        v.external.expect = "cheat";
        QCOMPARE(ResultsUtil::expectMet(v), std::optional<bool>(true));
        v.external.expect = "something-new";
        QVERIFY(!ResultsUtil::expectMet(v));
        v.impossible = false;
        v.error = "CUDA error: an illegal memory access was encountered";
        v.external.expect = "invalid"; // a crash is "failed", not "invalid"
        QCOMPARE(ResultsUtil::expectMet(v), std::optional<bool>(false));
        v.external.expect = "failed";
        QCOMPARE(ResultsUtil::expectMet(v), std::optional<bool>(true));
        v.external.compiled = false;
        v.external.compileLog = "k.cu(3): error: expected a \";\"\n";
        v.external.expect = "compile-error"; // as tests/data/external/kernels.json spells it
        QCOMPARE(ResultsUtil::expectMet(v), std::optional<bool>(true));

        QCOMPARE(
            ResultsUtil::firstCompilerError("k.cpp:3:10: fatal error: missing.h: No such file\n"),
            QStringLiteral("k.cpp:3:10: fatal error: missing.h: No such file"));
        QCOMPARE(ResultsUtil::firstCompilerError(
                     "error_kernels.cu(4): warning #550-D: set but not used\n"
                     "ptxas error   : Entry function uses too much shared data\n"),
                 QStringLiteral("ptxas error   : Entry function uses too much shared data"));
        QCOMPARE(ResultsUtil::firstCompilerError("all fine\n"), QString());
    }

    void testSubsetAndJson() {
        const auto r = fixture();
        const auto s = ResultsUtil::subset(r, {4, 0});
        QCOMPARE(s.tasks.size(), size_t(2));
        QCOMPARE(s.tasks[0].id, std::string("L1-23"));
        QCOMPARE(s.run.deviceName, r.run.deviceName);

        const auto json =
            ResultsUtil::taskMetricsJson(*r.find("L1-23"), ks::Thresholds::defaults());
        const auto doc = QJsonDocument::fromJson(QByteArray::fromStdString(json)).object();
        QCOMPARE(doc.value(QStringLiteral("id")).toString(), QStringLiteral("L1-23"));
        QCOMPARE(doc.value(QStringLiteral("any_flag")).toBool(), true);
        QCOMPARE(doc.value(QStringLiteral("flags"))
                     .toObject()
                     .value(QStringLiteral("output_range"))
                     .toBool(),
                 true);
        QCOMPARE(doc.value(QStringLiteral("thresholds"))
                     .toObject()
                     .value(QStringLiteral("output_std"))
                     .toDouble(),
                 0.01);
        QCOMPARE(doc.value(QStringLiteral("thresholds"))
                     .toObject()
                     .value(QStringLiteral("baseline_passes"))
                     .toDouble(),
                 0.0);
        QCOMPARE(doc.value(QStringLiteral("flags")).toObject().value(QStringLiteral("baseline_inefficiency")).toBool(true),
                 false);
        QVERIFY(doc.value(QStringLiteral("redundancy")).isObject()); // the reports travel with the task
        QCOMPARE(ResultsUtil::flaggedCriteria(*r.find("L2-13"), ks::Thresholds::defaults()),
                 (QStringList{"Output Std", "Output Axes", "Input Impact", "Redundant Computation", "Zeros Pass"}));
    }

    // The task header's tooltip: where the time and memory went, from the file's timings; a file
    // from before they were recorded gives only the wall time. Also through the JSON round trip.
    void testTimingSummary() {
        ks::TaskResult t;
        t.id = "L2-34";
        t.wallSeconds = 7.49;
        QCOMPARE(ResultsUtil::timingSummary(t), QStringLiteral("<b>7.49 s</b> in all"));
        t.phaseSeconds = {{"statistics", 1.22}, {"redundancy", 1.21}, {"inefficiency", 5.06},
                          {"draw", 1.9}, {"draw_wait", 0.0}, {"upload", 0.004}};
        t.operandDraws = 6;
        t.operandReuses = 12;
        t.operandSetBytes = int64_t{268960512};
        t.peakHostBytes = int64_t{3} << 30;
        t.peakHostPerTask = true;
        t.peakOperandHostBytes = int64_t{1} << 30;
        t.peakMemoryBytes = int64_t{89} << 30;
        t.rssAnonBytes = int64_t{6} << 30;
        t.rssFileBytes = int64_t{1} << 29;
        t.pinnedHeldBytes = int64_t{4} << 30;
        t.pinnedInUseBytes = int64_t{1} << 30;
        t.impactAfterOutputPass = true;
        ks::RunResults rr;
        rr.tasks.push_back(t);
        const ks::RunResults back = ks::resultsFromJson(ks::resultsToJson(rr), "mem.json");
        const QString s = ResultsUtil::timingSummary(back.tasks.at(0));
        QVERIFY2(s.contains(QStringLiteral("baseline inefficiency (filter 5): 5.06 s")), qPrintable(s));
        QVERIFY2(s.contains(QStringLiteral("drawing the operands: 1.90 s on host threads, 0.00 s waited for")), qPrintable(s));
        QVERIFY2(s.contains(QStringLiteral("operand sets: 6 drawn (0.25 GiB each), 12 reused, 0 drawn again")), qPrintable(s));
        QVERIFY2(s.contains(QStringLiteral("host memory: 3.00 GiB at most; operands held 1.00 GiB at most")), qPrintable(s));
        QVERIFY2(s.contains(QStringLiteral("GPU memory: 89.00 GiB at most")), qPrintable(s));
        QVERIFY2(s.contains(QStringLiteral("the worker at the task's end: 6.50 GiB resident (6.00 GiB anonymous, "
                                           "0.50 GiB mapped from files); page-locked blocks 4.00 GiB, 1.00 GiB of "
                                           "them holding tasks drawn ahead")),
                 qPrintable(s));
        QVERIFY2(s.contains(QStringLiteral("the input-impact pass ran after the output pass")), qPrintable(s));
        t.impactAfterOutputPass = false;
        QVERIFY(!ResultsUtil::timingSummary(t).contains(QStringLiteral("input-impact pass")));
        t.pinnedHeldBytes = 0; // the CPU: no page-locked blocks to speak of
        QVERIFY(!ResultsUtil::timingSummary(t).contains(QStringLiteral("page-locked")));
        t.peakHostPerTask = false;
        QVERIFY(ResultsUtil::timingSummary(t).contains(QStringLiteral("(the worker's peak so far)")));
    }

    void testSuiteAsNotRunRows() {
        ks::Suite suite;
        suite.name = "dir";
        ks::TaskSpec spec;
        spec.id = "T-1";
        spec.name = "one";
        spec.level = 1;
        spec.source = "def forward(x):\n    return x\n";
        spec.specPath = "/nonexistent/T-1.json";
        suite.tasks.push_back(spec);
        suite.issues.push_back({"/some/dir/bad.json", "bad.json: not valid JSON"});
        const auto r = ResultsUtil::resultsFromSuite(suite);
        QCOMPARE(r.tasks.size(), size_t(2));
        QCOMPARE(r.tasks[0].status, ks::TaskStatus::Skipped);
        QCOMPARE(r.tasks[0].source, spec.source);
        QVERIFY(!r.tasks[0].criterionRun(ks::Criterion::OutputStd));
        QCOMPARE(r.tasks[1].status, ks::TaskStatus::Error);
        QCOMPARE(r.tasks[1].id, std::string("bad.json"));
    }
};

QTEST_GUILESS_MAIN(TestDetailModels)
#include "tst_detailmodels.moc"
