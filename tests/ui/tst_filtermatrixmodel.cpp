// SPDX-License-Identifier: MIT
// FilterMatrixModel + FilterProxyModel on the fixed results file, checked through
// QAbstractItemModelTester and a readable dump of the matrix.

#include <models/filtermatrixmodel.h>
#include <models/filterproxymodel.h>

#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QTest>

namespace {

ks::RunResults fixture() {
    const std::string path = KS_UI_TEST_DATA "/results.json";
    return ks::resultsFromJson(ks::readFile(path), path);
}

// One line per row: "id | R S A I B D Z | any" (the four statistical filters, baseline
// inefficiency, redundant computation, zeros pass), with F = flagged, . = passed, - = not run,
// E = error.
QString dump(const QAbstractItemModel& model) {
    QStringList lines;
    for (int row = 0; row < model.rowCount(); ++row) {
        QString line =
            model.index(row, FilterMatrixModel::IdColumn).data().toString().leftJustified(7) +
            QStringLiteral("|");
        for (int c = FilterMatrixModel::FirstCriterionColumn;
             c <= FilterMatrixModel::LastCriterionColumn; ++c) {
            const auto state = model.index(row, c)
                                   .data(FilterMatrixModel::CellStateRole)
                                   .value<FilterMatrixModel::CellState>();
            line += QLatin1Char(' ');
            switch (state) {
            case FilterMatrixModel::CellState::Flagged:
                line += QLatin1Char('F');
                break;
            case FilterMatrixModel::CellState::Passed:
                line += QLatin1Char('.');
                break;
            case FilterMatrixModel::CellState::NotRun:
                line += QLatin1Char('-');
                break;
            case FilterMatrixModel::CellState::Error:
                line += QLatin1Char('E');
                break;
            }
        }
        line += QStringLiteral(" | ") +
                model.index(row, FilterMatrixModel::AnyFlagColumn).data().toString();
        lines << line;
    }
    return lines.join(QLatin1Char('\n'));
}

} // namespace

class TestFilterMatrixModel : public QObject {
    Q_OBJECT
  private slots:
    void testTesterThroughLifecycle() {
        FilterMatrixModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        FilterProxyModel proxy;
        QAbstractItemModelTester proxyTester(
            &proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
        proxy.setSourceModel(&model);

        model.setResults(fixture());
        QCOMPARE(model.rowCount(), 16);
        QCOMPARE(model.columnCount(), int(FilterMatrixModel::ColumnCount));

        auto th = model.thresholds();
        th.set(ks::Criterion::OutputRange, 2.0);
        model.setThresholds(th);
        proxy.setFlaggedOnly(true);
        proxy.sort(FilterMatrixModel::OutputRangeColumn);

        ks::TaskResult extra = *model.task(0);
        extra.id = "L1-999";
        model.upsertTask(extra);
        QCOMPARE(model.rowCount(), 17);
        extra.range.maxAbs = 1e-4;
        model.upsertTask(extra); // replaces, no new row
        QCOMPARE(model.rowCount(), 17);
        QVERIFY(model.anyFlag(model.rowOf(QStringLiteral("L1-999"))));

        // A run whose tasks finish out of order (--devices): its rows in the plan's order, as
        // in its results file; a replaced row keeps its place; no order appends.
        {
            FilterMatrixModel streamed;
            ks::TaskResult t = *model.task(0);
            for (const auto& [id, order] : std::vector<std::pair<std::string, int>>{
                     {"L1-3", 2}, {"L1-1", 0}, {"L1-4", 3}, {"L1-2", 1}, {"L1-1", 0}, {"L1-9", -1}}) {
                t.id = id;
                streamed.upsertTask(t, order);
            }
            QStringList ids;
            for (int r = 0; r < streamed.rowCount(); ++r) ids << QString::fromStdString(streamed.task(r)->id);
            QCOMPARE(ids, (QStringList{"L1-1", "L1-2", "L1-3", "L1-4", "L1-9"}));
            for (int r = 0; r < streamed.rowCount(); ++r) QCOMPARE(streamed.rowOf(ids[r]), r);
        }

        proxy.setSearchText(QStringLiteral("soft"));
        proxy.setLevel(1);
        proxy.setCategory(QStringLiteral("activation"));
        model.clear();
        QCOMPARE(model.rowCount(), 0);
        QCOMPARE(proxy.rowCount(), 0);
    }

    void testMatrixDump() {
        FilterMatrixModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setResults(fixture());
        const QString expected =
            QStringLiteral("L1-1   | . . . . . . . | clean\n"
                           "L1-4   | - - - - - - - | \u2014\n"
                           "L1-12  | . . . . F . . | flagged\n"
                           "L1-19  | . . . . . . . | clean\n"
                           "L1-23  | F F F F . . F | flagged\n"
                           "L1-24  | . . . . . . . | clean\n"
                           "L1-33  | . . . . . . . | clean\n"
                           "L1-36  | . . . . . . . | clean\n" // passes: information by default
                           "L1-47  | . . . . F . . | flagged\n"
                           "L1-95  | . F F F F . F | flagged\n"
                           "L2-13  | . F F F . F F | flagged\n"
                           "L2-13r | . . . . . . . | clean\n"
                           "L2-66  | . F F F . F F | flagged\n"
                           "L2-80  | F F F F . F F | flagged\n"
                           "L3-11  | E E E E E E E | error\n"
                           "KS-3   | . F F F F F F | flagged");
        QCOMPARE(dump(model), expected);
        QCOMPARE(model.flaggedCount(ks::Criterion::OutputRange), 2);
        QCOMPARE(model.flaggedCount(ks::Criterion::OutputStd), 6);
        QCOMPARE(model.flaggedCount(ks::Criterion::BaselineInefficiency), 4);
        QCOMPARE(model.flaggedCount(ks::Criterion::RedundantComputation), 4);
        // Zeros pass on a file written before it existed: the near-zero softmax (L1-23), the
        // constant outputs, and L1-95 (a loss around 2.75 whose mean is within 1e-2 + 1e-2 |ref|).
        QCOMPARE(model.flaggedCount(ks::Criterion::ZerosPass), 6);
        QCOMPARE(model.headerData(FilterMatrixModel::ZerosPassColumn, Qt::Horizontal).toString(),
                 QStringLiteral("Zeros Pass (6)"));
        QCOMPARE(model.anyFlagCount(), 8);
        QCOMPARE(model.errorCount(), 1);
        // The seed's Table 1 reading (profile fusion-headroom): RMSNorm's 2.52 passes flag again.
        auto fusion = ks::Thresholds::defaults();
        fusion.set(ks::Threshold::BaselinePasses, 2.0);
        model.setThresholds(fusion);
        QVERIFY(model.anyFlag(model.rowOf(QStringLiteral("L1-36"))));
        QCOMPARE(model.flaggedCount(ks::Criterion::BaselineInefficiency), 5);
        QCOMPARE(model.headerData(FilterMatrixModel::OutputStdColumn, Qt::Horizontal).toString(),
                 QStringLiteral("Output Std (6)"));
    }

    void testTooltipShowsMetricAndThreshold() {
        FilterMatrixModel model;
        model.setResults(fixture());
        const int row = model.rowOf(QStringLiteral("L1-23"));
        const QString tip =
            model.index(row, FilterMatrixModel::OutputRangeColumn).data(Qt::ToolTipRole).toString();
        QVERIFY2(tip.contains(QStringLiteral("0.00261")), qPrintable(tip));
        QVERIFY2(tip.contains(QStringLiteral("threshold = 0.01")), qPrintable(tip));
        QVERIFY(tip.contains(QStringLiteral("flagged")));
        const int err = model.rowOf(QStringLiteral("L3-11"));
        QVERIFY(model.index(err, FilterMatrixModel::OutputStdColumn)
                    .data(Qt::ToolTipRole)
                    .toString()
                    .contains(QStringLiteral("out of memory")));
        QCOMPARE(model.index(row, FilterMatrixModel::OutputRangeColumn)
                     .data(Qt::BackgroundRole)
                     .value<QColor>(),
                 FilterMatrixModel::stateColor(FilterMatrixModel::CellState::Flagged));
    }

    void testAnalysisColumnsShowTheReason() {
        FilterMatrixModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setResults(fixture());
        auto cell = [&](const char* id, int column, int role = Qt::DisplayRole) {
            return model.index(model.rowOf(QString::fromLatin1(id)), column).data(role);
        };
        const int B = FilterMatrixModel::BaselineInefficiencyColumn;
        const int D = FilterMatrixModel::RedundantComputationColumn;
        QCOMPARE(model.headerData(B, Qt::Horizontal).toString(),
                 QStringLiteral("Baseline Inefficiency (4)"));
        QCOMPARE(model.headerData(D, Qt::Horizontal).toString(), QStringLiteral("Redundant Computation (4)"));
        // The dominant reason of each flag, and for a passed task the closest call.
        QCOMPARE(cell("L1-12", B).toString(), QStringLiteral("\u2691 51.1x diag-matmul"));
        QCOMPARE(cell("L1-36", B).toString(),
                 QStringLiteral("eff 0.0647")); // passed: passes are information
        QCOMPARE(cell("L1-47", B).toString(), QStringLiteral("\u2691 eff 0.00839"));
        QCOMPARE(cell("L1-24", B).toString(), QStringLiteral("1.02x repeated-layout"));
        QCOMPARE(cell("L1-23", B).toString(), QStringLiteral("eff 0.403"));
        QCOMPARE(cell("L2-13", D).toString(), QStringLiteral("\u2691 99.6%, 4 ops"));
        QCOMPARE(cell("L1-1", D).toString(), QStringLiteral("none"));
        QCOMPARE(cell("L1-4", B).toString(), QStringLiteral("\u2014")); // not run
        QCOMPARE(cell("L3-11", D).toString(), QStringLiteral("error"));  // the task failed
        QCOMPARE(cell("L1-12", B, FilterMatrixModel::MetricRole).toDouble(), 2.702 / 0.0529);
        QCOMPARE(cell("L1-12", B, FilterMatrixModel::ThresholdRole).toDouble(), 2.0);
        QCOMPARE(cell("L1-12", B, Qt::BackgroundRole).value<QColor>(),
                 FilterMatrixModel::stateColor(FilterMatrixModel::CellState::Flagged));
        QCOMPARE(cell("L1-23", B, Qt::BackgroundRole).value<QColor>(),
                 FilterMatrixModel::stateColor(FilterMatrixModel::CellState::Passed));

        // Tooltips say every rule with its value and bound, the firing one marked, CPU or CUDA.
        const QString info = cell("L1-36", B, Qt::ToolTipRole).toString();
        QVERIFY2(info.contains(
                     QStringLiteral("2.52 passes over the data, memory-bound (information only")),
                 qPrintable(info));
        auto fusion = model.thresholds();
        fusion.set(ks::Threshold::BaselinePasses, 2.0); // profile fusion-headroom
        model.setThresholds(fusion);
        QCOMPARE(cell("L1-36", B).toString(), QStringLiteral("\u2691 2.52 passes"));
        const QString tip = cell("L1-36", B, Qt::ToolTipRole).toString();
        QVERIFY2(tip.contains(QStringLiteral("<b>\u2691 2.52 passes over the data, memory-bound")), qPrintable(tip));
        QVERIFY2(tip.contains(QStringLiteral("efficiency = floor / eager")), qPrintable(tip));
        QVERIFY2(tip.contains(QStringLiteral("timings on CUDA")), qPrintable(tip));
        QVERIFY2(tip.contains(QStringLiteral("baseline_passes &gt;= 2")), qPrintable(tip));
        model.setThresholds(ks::Thresholds::defaults());
        QVERIFY2(!tip.contains(QStringLiteral("CUDA graph")), qPrintable(tip)); // no replay measured
        {
            // Where the eager forward's CUDA-graph replay was measured, the host's share is said.
            auto withGraph = fixture();
            auto& ie = *const_cast<ks::TaskResult&>(*withGraph.find("L1-47")).inefficiency;
            ie.graphMs = ie.eagerMs / 4;
            FilterMatrixModel m2;
            m2.setResults(withGraph);
            const QString gtip =
                m2.index(m2.rowOf(QStringLiteral("L1-47")), B).data(Qt::ToolTipRole).toString();
            QVERIFY2(gtip.contains(QStringLiteral("the host's dispatch is")) && gtip.contains(QStringLiteral("(75%)")),
                     qPrintable(gtip));
        }
        const QString dtip = cell("L2-13", D, Qt::ToolTipRole).toString();
        QVERIFY2(dtip.contains(QStringLiteral("constant <tt>aten::softmax</tt> (line 5)")),
                 qPrintable(dtip));
        QVERIFY2(dtip.contains(QStringLiteral("parameter <tt>w</tt> only feeds redundant ops")), qPrintable(dtip));
        QVERIFY(model.headerData(B, Qt::Horizontal, Qt::ToolTipRole)
                    .toString()
                    .contains(QStringLiteral("baseline_efficiency &lt; 0.05")));

        // Sorting ascending puts the most suspicious first: flagged, then the largest speedup.
        FilterProxyModel proxy;
        proxy.setSourceModel(&model);
        proxy.sort(B, Qt::AscendingOrder);
        QCOMPARE(proxy.index(0, 0).data().toString(), QStringLiteral("L1-12"));
        proxy.sort(D, Qt::AscendingOrder);
        QCOMPARE(proxy.index(0, 0).data().toString(), QStringLiteral("L2-66")); // the largest share
    }

    void testAnalysisErrorAndOldResults() {
        FilterMatrixModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        auto r = fixture();
        // An analysis that failed: orange, its error in the tooltip, never flagged or passed.
        auto& t = const_cast<ks::TaskResult&>(*r.find("L1-12"));
        t.inefficiency->error = "task L1-12: baseline-inefficiency analysis failed: boom";
        // A task from a results file written before filters 5-6: not run, grey.
        auto& old = const_cast<ks::TaskResult&>(*r.find("L1-23"));
        old.inefficiency.reset();
        old.redundancy.reset();
        model.setResults(r);
        const int row = model.rowOf(QStringLiteral("L1-12"));
        QCOMPARE(model.cellState(row, ks::Criterion::BaselineInefficiency), FilterMatrixModel::CellState::Error);
        QVERIFY(model.index(row, FilterMatrixModel::BaselineInefficiencyColumn)
                    .data(Qt::ToolTipRole)
                    .toString()
                    .contains(QStringLiteral("the analysis failed: task L1-12")));
        QCOMPARE(model.cellState(row, ks::Criterion::OutputRange), FilterMatrixModel::CellState::Passed);
        QCOMPARE(model.anyFlagState(row), FilterMatrixModel::CellState::Passed);
        const int oldRow = model.rowOf(QStringLiteral("L1-23"));
        QCOMPARE(model.cellState(oldRow, ks::Criterion::BaselineInefficiency), FilterMatrixModel::CellState::NotRun);
        QCOMPARE(model.cellState(oldRow, ks::Criterion::RedundantComputation), FilterMatrixModel::CellState::NotRun);
        QCOMPARE(model.flaggedCount(ks::Criterion::BaselineInefficiency), 3);
    }

    void testZerosPassCellsAndTolerances() {
        FilterMatrixModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setResults(fixture());
        const int Z = FilterMatrixModel::ZerosPassColumn;
        auto cell = [&](const char* id, int role = Qt::DisplayRole) {
            return model.index(model.rowOf(QString::fromLatin1(id)), Z).data(role);
        };
        // L1-95: outputs 2.726 .. 2.777, mean 2.7512; the worst element is the max:
        // (2.77682 - 2.75123) / (0.01 + 0.01 * 2.77682) = 0.6778 of the tolerance.
        QCOMPARE(cell("L1-95").toString(), QStringLiteral("\u2691 0.678"));
        QVERIFY(qAbs(cell("L1-95", FilterMatrixModel::MetricRole).toDouble() - 0.6778) < 1e-4);
        QCOMPARE(cell("L2-80").toString(), QStringLiteral("\u2691 0")); // all zeros
        QCOMPARE(cell("L1-1").toString(), QStringLiteral("99.6"));       // matmul: no constant is close
        QCOMPARE(cell("L1-4").toString(), QStringLiteral("\u2014"));
        const QString tip = cell("L1-95", Qt::ToolTipRole).toString();
        QVERIFY2(tip.contains(QStringLiteral("<b>\u2691 the mean 2.75 everywhere")), qPrintable(tip));
        QVERIFY2(tip.contains(QStringLiteral("uses 0.678 of the tolerance")), qPrintable(tip));
        QVERIFY2(tip.contains(QStringLiteral("zeros_pass_atol = 0.01")), qPrintable(tip));

        // The seed's bar (1e-5 / 1e-4): only the exactly constant outputs still pass.
        auto th = model.thresholds();
        th.set(ks::Threshold::ZerosPassAtol, 1e-5);
        th.set(ks::Threshold::ZerosPassRtol, 1e-4);
        model.setThresholds(th);
        QCOMPARE(model.flaggedCount(ks::Criterion::ZerosPass), 4);
        QCOMPARE(model.cellState(model.rowOf(QStringLiteral("L1-95")), ks::Criterion::ZerosPass),
                 FilterMatrixModel::CellState::Passed);
        QCOMPARE(model.cellState(model.rowOf(QStringLiteral("KS-3")), ks::Criterion::ZerosPass),
                 FilterMatrixModel::CellState::Flagged);

        // Sorting ascending puts the smallest share of the tolerance (the most suspicious) first.
        FilterProxyModel proxy;
        proxy.setSourceModel(&model);
        proxy.sort(Z, Qt::AscendingOrder);
        QCOMPARE(proxy.index(0, Z).data(FilterMatrixModel::CellStateRole).value<FilterMatrixModel::CellState>(),
                 FilterMatrixModel::CellState::Flagged);
        QCOMPARE(proxy.index(proxy.rowCount() - 1, Z).data(FilterMatrixModel::CellStateRole)
                     .value<FilterMatrixModel::CellState>(),
                 FilterMatrixModel::CellState::Error);
    }

    void testBorderlineMarkTooltipAndMargin() {
        FilterMatrixModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setResults(fixture());
        const int A = FilterMatrixModel::OutputAxesColumn;
        const int row = model.rowOf(QStringLiteral("L1-95"));
        // L1-95's axes metric 0.0087 is 13% below 0.01: flagged, not borderline at 10%.
        QCOMPARE(model.index(row, A).data().toString(), QStringLiteral("\u2691 0.0087"));
        QVERIFY(!model.index(row, A).data(FilterMatrixModel::BorderlineRole).toBool());
        QVERIFY(!model.index(row, A).data(Qt::FontRole).isValid());

        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        auto th = model.thresholds();
        th.borderlineMargin = 0.2; // the margin is a threshold too: no re-run, the flag columns repaint
        model.setThresholds(th);
        QCOMPARE(changed.count(), 1);
        const QModelIndex cell = model.index(row, A);
        QVERIFY(cell.data(FilterMatrixModel::BorderlineRole).toBool());
        QVERIFY(model.borderline(row, ks::Criterion::OutputAxes));
        // Readable without colour: a "~" after the text, and italic.
        QCOMPARE(cell.data().toString(), QStringLiteral("\u2691 0.0087 ~"));
        QVERIFY(cell.data(Qt::FontRole).value<QFont>().italic());
        QCOMPARE(cell.data(FilterMatrixModel::CellStateRole).value<FilterMatrixModel::CellState>(),
                 FilterMatrixModel::CellState::Flagged); // still flagged: the mark adds, never replaces
        const QString tip = cell.data(Qt::ToolTipRole).toString();
        QVERIFY2(tip.contains(QStringLiteral("borderline: 0.0087 is within 20% of 0.01")), qPrintable(tip));
        // Other cells of the row keep their plain look.
        QVERIFY(!model.index(row, FilterMatrixModel::OutputRangeColumn).data(FilterMatrixModel::BorderlineRole).toBool());

        th.borderlineMargin = 0; // off
        model.setThresholds(th);
        QVERIFY(!cell.data(FilterMatrixModel::BorderlineRole).toBool());
        QCOMPARE(cell.data().toString(), QStringLiteral("\u2691 0.0087"));

        // Zeros pass near its tolerance: L1-23's mean 6.03e-5 is within 0.00236 of every value,
        // 0.98 of atol = 0.0024 (rtol = 0); zeros would need 0.00261.
        th = ks::Thresholds::defaults();
        th.set(ks::Threshold::ZerosPassAtol, 0.0024);
        th.set(ks::Threshold::ZerosPassRtol, 0);
        model.setThresholds(th);
        const int softmax = model.rowOf(QStringLiteral("L1-23"));
        const QModelIndex z = model.index(softmax, FilterMatrixModel::ZerosPassColumn);
        QCOMPARE(z.data().toString(), QStringLiteral("\u2691 0.982 ~"));
        QVERIFY2(z.data(Qt::ToolTipRole).toString().contains(QStringLiteral("borderline: tolerance used 0.982 is within 10% of 1")),
                 qPrintable(z.data(Qt::ToolTipRole).toString()));
    }

    void testRethresholdTouchesOnlyFlagColumns() {
        FilterMatrixModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setResults(fixture());
        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        QSignalSpy reset(&model, &QAbstractItemModel::modelReset);
        QSignalSpy flags(&model, &FilterMatrixModel::flagsChanged);

        auto th = model.thresholds();
        th.set(ks::Criterion::OutputRange,
               2.0); // catches the constant 1.0 and 1.52 outputs and L2-13r (1.21)
        model.setThresholds(th);

        QCOMPARE(reset.count(), 0);
        QCOMPARE(flags.count(), 1);
        QCOMPARE(changed.count(), 1);
        const auto topLeft = changed.first().at(0).toModelIndex();
        const auto bottomRight = changed.first().at(1).toModelIndex();
        QCOMPARE(topLeft.column(), int(FilterMatrixModel::OutputRangeColumn));
        QCOMPARE(bottomRight.column(), int(FilterMatrixModel::AnyFlagColumn));
        QCOMPARE(topLeft.row(), 0);
        QCOMPARE(bottomRight.row(), model.rowCount() - 1);

        QCOMPARE(model.flaggedCount(ks::Criterion::OutputRange), 6);
        QCOMPARE(model.cellState(model.rowOf(QStringLiteral("L2-13")), ks::Criterion::OutputRange),
                 FilterMatrixModel::CellState::Flagged);
        QVERIFY(model.anyFlag(model.rowOf(QStringLiteral("L2-13r"))));
        QCOMPARE(model.anyFlagCount(), 9);

        // Back to the profile: the original matrix again, with nothing re-run.
        model.setThresholds(ks::Thresholds::defaults());
        QCOMPARE(model.flaggedCount(ks::Criterion::OutputRange), 2);
        QCOMPARE(model.anyFlagCount(), 8);
    }

    void testProxyFilters() {
        FilterMatrixModel model;
        FilterProxyModel proxy;
        QAbstractItemModelTester tester(&proxy,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        proxy.setSourceModel(&model);
        model.setResults(fixture());
        QCOMPARE(proxy.rowCount(), 16);
        QVERIFY(!proxy.isFiltering());

        proxy.setFlaggedOnly(true);
        QCOMPARE(proxy.rowCount(), 8);
        // Dynamic: loosening a threshold adds rows to "flagged only" without touching the proxy.
        auto th = model.thresholds();
        th.set(ks::Criterion::OutputRange, 2.0);
        model.setThresholds(th);
        QCOMPARE(proxy.rowCount(), 9);
        // Filters 5-6 count for "flagged only" like the others: without the efficiency bound
        // L1-47 (flagged by nothing else) goes; L1-12 (rewrite) stays; a passes bound of 2 brings
        // L1-36 in.
        th = ks::Thresholds::defaults();
        th.set(ks::Threshold::BaselineEfficiency, 0);
        model.setThresholds(th);
        QCOMPARE(proxy.rowCount(), 7);
        QVERIFY(proxy.acceptedSourceRows().contains(model.rowOf(QStringLiteral("L1-12"))));
        QVERIFY(!proxy.acceptedSourceRows().contains(model.rowOf(QStringLiteral("L1-36"))));
        QVERIFY(!proxy.acceptedSourceRows().contains(model.rowOf(QStringLiteral("L1-47"))));
        th.set(ks::Threshold::BaselinePasses, 2);
        model.setThresholds(th);
        QCOMPARE(proxy.rowCount(), 8);
        QVERIFY(proxy.acceptedSourceRows().contains(model.rowOf(QStringLiteral("L1-36"))));
        model.setThresholds(ks::Thresholds::defaults());
        QCOMPARE(proxy.rowCount(), 8);

        proxy.setLevel(2);
        QCOMPARE(proxy.rowCount(), 3); // L2-13, L2-66, L2-80
        proxy.setFlaggedOnly(false);
        QCOMPARE(proxy.rowCount(), 4);
        proxy.setLevel(0);
        proxy.setCategory(QStringLiteral("activation"));
        QCOMPARE(proxy.rowCount(), 3);
        proxy.setCategory({});
        proxy.setSearchText(QStringLiteral("SOFTMAX"));
        QCOMPARE(proxy.rowCount(), 6); // L1-23, L1-24, L2-13, L2-13r, L2-66, KS-3
        proxy.setSearchText(QStringLiteral("l3-"));
        QCOMPARE(proxy.rowCount(), 1);
        QCOMPARE(proxy.acceptedSourceRows(), QList<int>{model.rowOf(QStringLiteral("L3-11"))});
    }

    void testNaturalSort() {
        FilterMatrixModel model;
        FilterProxyModel proxy;
        proxy.setSourceModel(&model);
        model.setResults(fixture());
        proxy.sort(FilterMatrixModel::IdColumn, Qt::DescendingOrder);
        QCOMPARE(proxy.index(0, 0).data().toString(), QStringLiteral("KS-3"));
        proxy.sort(FilterMatrixModel::IdColumn, Qt::AscendingOrder);
        QStringList ids;
        for (int r = 0; r < 4; ++r)
            ids << proxy.index(r, 0).data().toString();
        QCOMPARE(ids, (QStringList{"L1-1", "L1-4", "L1-12", "L1-19"}));
        // A streamed task lands in sorted position, not at the end.
        ks::TaskResult streamed = *model.task(0);
        streamed.id = "L1-2";
        streamed.number = 2;
        model.upsertTask(streamed);
        QCOMPARE(proxy.index(1, 0).data().toString(), QStringLiteral("L1-2"));
        // Metric sort: the smallest max |value| first, not-run and failed tasks last.
        proxy.sort(FilterMatrixModel::OutputRangeColumn, Qt::AscendingOrder);
        QCOMPARE(proxy.index(0, 0).data().toString(), QStringLiteral("L2-80"));
        QCOMPARE(proxy.index(1, 0).data().toString(), QStringLiteral("L1-23"));
    }

    // Issue 14: a column sorts by the value it shows. Filter 5's cells show a rewrite speedup, an
    // efficiency or a pass count; sorting by the best speedup alone left "4.3 passes, 10.6
    // passes, 2.95 passes" in file order.
    void testSortByTheValueShown() {
        FilterMatrixModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        FilterProxyModel proxy;
        QAbstractItemModelTester proxyTester(
            &proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
        proxy.setSourceModel(&model);
        const ks::RunResults base = fixture();
        const ks::TaskResult l136 = *base.find("L1-36"); // memory-bound, 2.52 passes, no rewrite
        QVERIFY(l136.inefficiency && l136.inefficiency->memoryBound);
        ks::RunResults r;
        r.run = base.run;
        r.thresholds = ks::Thresholds::defaults();
        r.thresholds.set(ks::Threshold::BaselinePasses, 2.0); // fusion-headroom: passes flag
        int number = 1;
        auto add = [&](const char* id, double passes, double efficiency) {
            ks::TaskResult t = l136;
            t.id = id;
            t.number = number++;
            t.inefficiency->passes = passes;
            t.inefficiency->efficiency = efficiency;
            r.tasks.push_back(t);
        };
        add("T-a", 4.3, 0.5);
        add("T-b", 10.6, 0.5);
        add("T-c", 2.95, 0.5);
        add("T-d", 1.2, 0.5);                    // not flagged: shows its efficiency
        add("T-e", 1.2, 0.02);                   // flagged on efficiency
        ks::TaskResult rw = *base.find("L1-12"); // a 51x equal rewrite
        r.tasks.push_back(rw);
        model.setResults(r);
        model.setThresholds(r.thresholds); // the model applies the thresholds it is given
        const int B = FilterMatrixModel::BaselineInefficiencyColumn;
        auto column = [&] {
            QStringList cells;
            for (int row = 0; row < proxy.rowCount(); ++row)
                cells << proxy.index(row, B).data().toString();
            return cells.join(QStringLiteral(" | "));
        };
        proxy.sort(B, Qt::AscendingOrder); // the most suspicious first, like with like
        QCOMPARE(column(),
                 QStringLiteral("\u2691 51.1x diag-matmul | \u2691 eff 0.02 | \u2691 10.6 passes | "
                                "\u2691 4.3 passes | \u2691 2.95 passes | eff 0.5"));
        proxy.sort(B, Qt::DescendingOrder);
        QCOMPARE(column(),
                 QStringLiteral("eff 0.5 | \u2691 2.95 passes | \u2691 4.3 passes | "
                                "\u2691 10.6 passes | \u2691 eff 0.02 | \u2691 51.1x diag-matmul"));
        // Re-thresholding re-sorts by what the cells show now: passes information only.
        model.setThresholds(ks::Thresholds::defaults());
        proxy.sort(B, Qt::AscendingOrder);
        QCOMPARE(column(),
                 QStringLiteral("\u2691 51.1x diag-matmul | \u2691 eff 0.02 | eff 0.5 | eff 0.5 | "
                                "eff 0.5 | eff 0.5"));
        // Numbers sort as numbers in every metric column (10 after 2, not before).
        const int R = FilterMatrixModel::OutputRangeColumn;
        ks::RunResults nums;
        nums.thresholds = ks::Thresholds::defaults();
        for (double v : {10.0, 2.0, 0.5, 100.0}) {
            ks::TaskResult t = l136;
            t.id = "N-" + std::to_string(nums.tasks.size());
            t.range.maxAbs = v;
            nums.tasks.push_back(t);
        }
        model.setResults(nums);
        proxy.sort(R, Qt::AscendingOrder);
        QStringList shown;
        for (int row = 0; row < proxy.rowCount(); ++row)
            shown << proxy.index(row, R).data().toString();
        QCOMPARE(shown, (QStringList{"0.5", "2", "10", "100"}));
    }

    // "Flagged only" per criterion: the tasks one filter flags, whatever the others say.
    void testFlaggedOnlyPerCriterion() {
        FilterMatrixModel model;
        FilterProxyModel proxy;
        QAbstractItemModelTester proxyTester(
            &proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
        proxy.setSourceModel(&model);
        model.setResults(fixture());
        auto ids = [&] {
            QStringList out;
            for (int row = 0; row < proxy.rowCount(); ++row)
                out << proxy.index(row, 0).data().toString();
            return out;
        };
        proxy.setFlaggedCriterion(
            ks::Criterion::BaselineInefficiency); // no effect until "flagged only"
        QCOMPARE(proxy.rowCount(), 16);
        proxy.setFlaggedOnly(true);
        QStringList expected;
        for (int row = 0; row < model.rowCount(); ++row)
            if (model.cellState(row, ks::Criterion::BaselineInefficiency) ==
                FilterMatrixModel::CellState::Flagged)
                expected << QString::fromStdString(model.task(row)->id);
        QCOMPARE(ids(), expected);
        QVERIFY(ids().contains(QStringLiteral("L1-12"))); // the seed's Table 1: only inefficiency
        QVERIFY(!ids().contains(QStringLiteral("L1-23")));
        QCOMPARE(proxy.filterDescription(),
                 QStringLiteral("flagged only by Baseline Inefficiency"));
        proxy.setFlaggedCriterion(ks::Criterion::OutputRange);
        QCOMPARE(ids(), (QStringList{"L1-23", "L2-80"}));
        // A threshold edit re-filters: range < 2 also flags L2-13r (1.21) and more.
        auto th = model.thresholds();
        th.set(ks::Criterion::OutputRange, 2.0);
        model.setThresholds(th);
        QCOMPARE(proxy.rowCount(), model.flaggedCount(ks::Criterion::OutputRange));
        QVERIFY(ids().contains(QStringLiteral("L2-13r")));
        proxy.setFlaggedCriterion(std::nullopt); // back to any flag
        QCOMPARE(proxy.rowCount(), model.anyFlagCount());
        proxy.setLevel(2);
        QCOMPARE(proxy.filterDescription(), QStringLiteral("flagged only, level 2"));
    }

    // Issue 14, point 4: ranges on the metrics, inclusive, combined with each other, with
    // "flagged only" and the other filters; a NaN metric (not run, failed) is never inside.
    void testMetricRanges() {
        FilterMatrixModel model;
        FilterProxyModel proxy;
        QAbstractItemModelTester proxyTester(
            &proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
        proxy.setSourceModel(&model);
        model.setResults(fixture());
        auto ids = [&] {
            QStringList out;
            for (int row = 0; row < proxy.rowCount(); ++row)
                out << proxy.index(row, 0).data().toString();
            return out;
        };
        using R = FilterProxyModel::MetricRange;
        QCOMPARE(proxy.activeRangeCount(), 0);
        proxy.setMetricRange(ks::Criterion::OutputRange, R{20.0, std::nullopt});
        QCOMPARE(ids(), (QStringList{"L1-1", "L1-12", "L1-47"})); // 251.3, 24.8, 61.2
        QVERIFY(proxy.isFiltering());
        QCOMPARE(proxy.filterDescription(), QStringLiteral("Output Range \u2265 20"));
        // Both bounds, inclusive: L2-66's max |value| is exactly 1. L1-4 (skipped) and L3-11
        // (failed) have no metric and are never inside.
        proxy.setMetricRange(ks::Criterion::OutputRange, R{1.0, 6.0});
        QCOMPARE(ids(),
                 (QStringList{"L1-19", "L1-33", "L1-36", "L1-95", "L2-13", "L2-13r", "L2-66"}));
        // A second range narrows (AND): std at most 0.01 (0.0087, 0, 0).
        proxy.setMetricRange(ks::Criterion::OutputStd, R{std::nullopt, 0.01});
        QCOMPARE(ids(), (QStringList{"L1-95", "L2-13", "L2-66"}));
        QCOMPARE(proxy.activeRangeCount(), 2);
        QCOMPARE(proxy.filterDescription(),
                 QStringLiteral("Output Range in [1, 6], Output Std \u2264 0.01"));
        // With "flagged only by" a criterion that none of them is flagged by: nothing.
        proxy.setFlaggedOnly(true);
        proxy.setFlaggedCriterion(ks::Criterion::OutputRange);
        QCOMPARE(proxy.rowCount(), 0);
        proxy.setFlaggedCriterion(ks::Criterion::OutputStd);
        QCOMPARE(ids(), (QStringList{"L1-95", "L2-13", "L2-66"}));
        proxy.setFlaggedOnly(false);
        proxy.setLevel(2);
        QCOMPARE(ids(), (QStringList{"L2-13", "L2-66"}));
        proxy.setLevel(0);
        proxy.clearMetricRanges();
        QCOMPARE(proxy.rowCount(), 16);
        QVERIFY(!proxy.isFiltering());
        // A narrow window's headers: the count under the name, the model's text otherwise.
        QSignalSpy headers(&proxy, &QAbstractItemModel::headerDataChanged);
        proxy.setTwoLineHeaders(true);
        QCOMPARE(headers.count(), 1);
        QCOMPARE(proxy.headerData(FilterMatrixModel::OutputStdColumn, Qt::Horizontal).toString(),
                 QStringLiteral("Output Std\n(6)"));
        QCOMPARE(proxy.headerData(FilterMatrixModel::IdColumn, Qt::Horizontal).toString(),
                 QStringLiteral("ID"));
        proxy.setTwoLineHeaders(false);
        QCOMPARE(proxy.headerData(FilterMatrixModel::OutputStdColumn, Qt::Horizontal).toString(),
                 model.headerData(FilterMatrixModel::OutputStdColumn, Qt::Horizontal).toString());

        // The zeros pass metric (tolerance used) moves with its tolerances: a range on it is
        // re-applied on every re-threshold. "At most 1" is exactly the flagged tasks.
        proxy.setMetricRange(ks::Criterion::ZerosPass, R{std::nullopt, 1.0});
        const int before = model.flaggedCount(ks::Criterion::ZerosPass);
        QCOMPARE(proxy.rowCount(), before);
        auto th = model.thresholds();
        th.set(ks::Threshold::ZerosPassAtol, 10.0);
        model.setThresholds(th);
        QVERIFY(model.flaggedCount(ks::Criterion::ZerosPass) > before);
        QCOMPARE(proxy.rowCount(), model.flaggedCount(ks::Criterion::ZerosPass));
        // A streamed task is judged by the ranges as it arrives.
        ks::TaskResult extra = *model.task(model.rowOf(QStringLiteral("L2-80")));
        extra.id = "L2-81";
        extra.number = 81;
        const int shown = proxy.rowCount();
        model.upsertTask(extra);
        QCOMPARE(proxy.rowCount(), shown + 1); // L2-80's zeros pass: all-zero output, flagged
        extra.id = "L2-82";
        extra.number = 82;
        extra.range.maxAbs = extra.range.max = 1e6; // far outside any tolerance
        extra.range.min = -1e6;
        model.upsertTask(extra);
        QCOMPARE(proxy.rowCount(), shown + 1);
    }
};

QTEST_GUILESS_MAIN(TestFilterMatrixModel)
#include "tst_filtermatrixmodel.moc"
