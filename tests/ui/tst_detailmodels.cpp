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

#include <QAbstractItemModelTester>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

namespace {
ks::RunResults fixture() {
    const std::string path = KS_UI_TEST_DATA "/results.json";
    return ks::resultsFromJson(ks::readFile(path), path);
}
ks::BenchRun benchFixture() {
    const std::string path = KS_UI_TEST_DATA "/bench.json";
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
        QCOMPARE(model.index(0, RedundancyModel::LineColumn).data().toString(), QStringLiteral("4"));
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
                 2.0);
        QCOMPARE(doc.value(QStringLiteral("flags")).toObject().value(QStringLiteral("baseline_inefficiency")).toBool(true),
                 false);
        QVERIFY(doc.value(QStringLiteral("redundancy")).isObject()); // the reports travel with the task
        QCOMPARE(ResultsUtil::flaggedCriteria(*r.find("L2-13"), ks::Thresholds::defaults()),
                 (QStringList{"Output Std", "Output Axes", "Input Impact", "Redundant Computation"}));
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
