// SPDX-License-Identifier: MIT
// SummaryModel (flag counts per criterion and level) follows the matrix; RunInfoModel shows how
// the run was made.

#include <models/filtermatrixmodel.h>
#include <models/runinfomodel.h>
#include <models/summarymodel.h>

#include <QAbstractItemModelTester>
#include <QTest>

namespace {
ks::RunResults fixture() {
    const std::string path = KS_UI_TEST_DATA "/results.json";
    return ks::resultsFromJson(ks::readFile(path), path);
}

// "label: all L1 L2 L3 extra" per row.
QString dump(const SummaryModel& m) {
    QStringList lines;
    for (int r = 0; r < m.rowCount(); ++r) {
        QStringList cells;
        for (int c = 0; c < m.columnCount(); ++c)
            cells << m.index(r, c).data().toString();
        lines << cells.join(QLatin1Char(' '));
    }
    return lines.join(QLatin1Char('\n'));
}
} // namespace

class TestSummaryModel : public QObject {
    Q_OBJECT
  private slots:
    void testCountsFollowThresholds() {
        FilterMatrixModel matrix;
        SummaryModel summary;
        QAbstractItemModelTester tester(&summary,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        summary.setSourceModel(&matrix);
        QCOMPARE(summary.count(SummaryModel::TaskRow, SummaryModel::TotalColumn), 0);

        matrix.setResults(fixture());
        QCOMPARE(dump(summary), QStringLiteral("Output Range 2 1 1 0 0\n"
                                               "Output Std 6 2 3 0 1\n"
                                               "Output Axes 6 2 3 0 1\n"
                                               "Input Impact 6 2 3 0 1\n"
                                               "Baseline Inefficiency 4 3 0 0 1\n"
                                               "Redundant Computation 4 0 3 0 1\n"
                                               "Zeros Pass 6 2 3 0 1\n"
                                               "Any flag 8 4 3 0 1\n"
                                               "Failed 1 0 0 1 0\n"
                                               "Not run 1 1 0 0 0\n"
                                               "Tasks 16 10 4 1 1"));

        auto th = matrix.thresholds();
        th.set(ks::Criterion::OutputRange, 2.0);
        matrix.setThresholds(th);
        QCOMPARE(summary.count(int(ks::Criterion::OutputRange), SummaryModel::TotalColumn), 6);
        QCOMPARE(summary.count(int(ks::Criterion::OutputRange), SummaryModel::Level2Column), 4);
        QCOMPARE(summary.count(SummaryModel::AnyFlagRow, SummaryModel::TotalColumn), 9);
        // Filters 5-6 re-count from their stored reports too: a rewrite bound of 60x drops L1-12.
        th.set(ks::Threshold::BaselineRewriteSpeedup, 60);
        matrix.setThresholds(th);
        QCOMPARE(summary.count(int(ks::Criterion::BaselineInefficiency), SummaryModel::TotalColumn),
                 3);
        QVERIFY(summary.index(int(ks::Criterion::BaselineInefficiency), SummaryModel::LabelColumn)
                    .data(Qt::ToolTipRole)
                    .toString()
                    .contains(QStringLiteral("baseline_rewrite_speedup >= 60")));

        ks::TaskResult t = *matrix.task(0);
        t.id = "L3-50";
        t.level = 3;
        t.range.maxAbs = 0.001;
        matrix.upsertTask(t);
        QCOMPARE(summary.count(int(ks::Criterion::OutputRange), SummaryModel::Level3Column), 1);
        QCOMPARE(summary.count(SummaryModel::TaskRow, SummaryModel::TotalColumn), 17);
        matrix.clear();
        QCOMPARE(summary.count(SummaryModel::TaskRow, SummaryModel::TotalColumn), 0);
    }

    void testRunInfo() {
        RunInfoModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        const auto r = fixture();
        model.setRunInfo(r.run, r.thresholds, int(r.tasks.size()));
        QCOMPARE(model.columnCount(), int(RunInfoModel::ColumnCount));
        QCOMPARE(model.value(QStringLiteral("Device")), QStringLiteral("cuda (NVIDIA H200)"));
        QCOMPARE(model.value(QStringLiteral("LibTorch")), QStringLiteral("2.11.0"));
        QCOMPARE(model.value(QStringLiteral("Preset")), QStringLiteral("full"));
        QCOMPARE(model.value(QStringLiteral("Seeds")), QStringLiteral("5"));
        QCOMPARE(model.value(QStringLiteral("Tasks")), QStringLiteral("16"));
        QVERIFY(model.value(QStringLiteral("Thresholds in file"))
                    .startsWith(QStringLiteral("robust-kbench")));
        QVERIFY(model.value(QStringLiteral("Thresholds in file"))
                    .contains(QStringLiteral("redundant_flop_fraction >= 0")));
        QVERIFY2(model.value(QStringLiteral("Device ceilings (filter 5)"))
                     .contains(QStringLiteral("copy 4300.0 GB/s, FP32 51000.0 GFLOP/s")),
                 qPrintable(model.value(QStringLiteral("Device ceilings (filter 5)"))));
        ks::RunInfo thp = r.run;
        thp.hostHugePages = "THP_MEM_ALLOC_ENABLE=1, kernel: madvise";
        model.setRunInfo(thp, r.thresholds, int(r.tasks.size()));
        QCOMPARE(model.value(QStringLiteral("Host huge pages")), QStringLiteral("THP_MEM_ALLOC_ENABLE=1, kernel: madvise"));
        model.setRunInfo({}, ks::Thresholds::defaults(), 0);
        QCOMPARE(model.value(QStringLiteral("Host huge pages")), QStringLiteral("\u2014"));
        QCOMPARE(model.value(QStringLiteral("LibTorch")), QStringLiteral("\u2014"));
    }
};

QTEST_GUILESS_MAIN(TestSummaryModel)
#include "tst_summarymodel.moc"
