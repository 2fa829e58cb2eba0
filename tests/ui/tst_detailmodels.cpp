// SPDX-License-Identifier: MIT
// The detail models (axes, seed stats, kernel variants) and the ResultsUtil conversions.

#include <models/axesmodel.h>
#include <models/resultsutil.h>
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
        QCOMPARE(ResultsUtil::flaggedCriteria(*r.find("L2-13"), ks::Thresholds::defaults()),
                 (QStringList{"Output Std", "Output Axes", "Input Impact"}));
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
