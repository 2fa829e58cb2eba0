// SPDX-License-Identifier: MIT
// CompareModel (issue 14, point 2): two results side by side, checked through
// QAbstractItemModelTester (created before the model is filled) and a readable dump.

#include <models/comparemodel.h>
#include <models/filtermatrixmodel.h>

#include <QAbstractItemModelTester>
#include <QFont>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTest>

#include <algorithm>

namespace {

ks::RunResults fixture() {
    const std::string path = KS_UI_TEST_DATA "/results.json";
    return ks::resultsFromJson(ks::readFile(path), path);
}

ks::TaskResult& task(ks::RunResults& r, const std::string& id) {
    return *std::find_if(r.tasks.begin(), r.tasks.end(),
                         [&](const ks::TaskResult& t) { return t.id == id; });
}

// B: another seed count, L2-13r's outputs shrunk into the range band, KS-3 dropped, L1-2 added.
ks::RunResults fixtureB() {
    ks::RunResults b = fixture();
    b.run.seeds = 100;
    task(b, "L2-13r").range.maxAbs = 0.005;
    b.tasks.erase(std::find_if(b.tasks.begin(), b.tasks.end(),
                               [](const ks::TaskResult& t) { return t.id == "KS-3"; }));
    ks::TaskResult extra = task(b, "L1-1");
    extra.id = "L1-2";
    extra.number = 2;
    b.tasks.push_back(extra);
    return b;
}

// One line per row: "id | presence | differs | key: A -> B (delta); ..." for the differing flags.
QString dump(const CompareModel& m) {
    QStringList lines;
    for (int row = 0; row < m.rowCount(); ++row) {
        QStringList cells;
        for (const auto& c : ks::criteria()) {
            const int a = m.columnOf(c.criterion, CompareModel::Part::A);
            if (!m.index(row, a).data(CompareModel::DiffersRole).toBool()) continue;
            cells << QStringLiteral("%1: %2 -> %3 (%4)")
                         .arg(QString::fromUtf8(c.key), m.index(row, a).data().toString(),
                              m.index(row, a + 1).data().toString(),
                              m.index(row, a + 2).data().toString());
        }
        lines << QStringLiteral("%1 | %2 | %3 | %4")
                     .arg(m.index(row, CompareModel::IdColumn).data().toString(),
                          m.index(row, CompareModel::PresenceColumn).data().toString(),
                          m.index(row, CompareModel::DiffersColumn).data().toString(),
                          cells.join(QStringLiteral("; ")));
    }
    return lines.join(QLatin1Char('\n'));
}

// Several files: "id | presence | differs | key: A -> B1 (delta1), B2 (delta2); ...".
QString dumpN(const CompareModel& m) {
    QStringList lines;
    for (int row = 0; row < m.rowCount(); ++row) {
        QStringList cells;
        for (const auto& c : ks::criteria()) {
            const int a = m.columnOf(c.criterion, CompareModel::Part::A);
            if (!m.index(row, a).data(CompareModel::DiffersRole).toBool()) continue;
            QStringList others;
            for (int k = 0; k < m.otherCount(); ++k)
                others << QStringLiteral("%1 (%2)").arg(
                    m.index(row, m.columnOf(c.criterion, CompareModel::Part::B, k))
                        .data()
                        .toString(),
                    m.index(row, m.columnOf(c.criterion, CompareModel::Part::Delta, k))
                        .data()
                        .toString());
            cells << QStringLiteral("%1: %2 -> %3")
                         .arg(QString::fromUtf8(c.key), m.index(row, a).data().toString(),
                              others.join(QStringLiteral(", ")));
        }
        lines << QStringLiteral("%1 | %2 | %3 | %4")
                     .arg(m.index(row, CompareModel::IdColumn).data().toString(),
                          m.index(row, CompareModel::PresenceColumn).data().toString(),
                          m.index(row, CompareModel::DiffersColumn).data().toString(),
                          cells.join(QStringLiteral("; ")));
    }
    return lines.join(QLatin1Char('\n'));
}

// A third file: L1-19's outputs shrunk into the range band, L1-3 added.
ks::RunResults fixtureC() {
    ks::RunResults c = fixture();
    task(c, "L1-19").range.maxAbs = 0.005;
    ks::TaskResult extra = task(c, "L1-1");
    extra.id = "L1-3";
    extra.number = 3;
    c.tasks.push_back(extra);
    return c;
}

} // namespace

class TestCompareModel : public QObject {
    Q_OBJECT
  private slots:
    void testCompareTwoFiles() {
        CompareModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSortFilterProxyModel proxy;
        QAbstractItemModelTester proxyTester(
            &proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
        proxy.setSourceModel(&model);
        proxy.setSortRole(CompareModel::SortRole);
        QCOMPARE(model.rowCount(), 0);
        QVERIFY(model.summaryText().contains(QStringLiteral("Compare With")));

        const ks::RunResults a = fixture();
        model.setThresholds(a.thresholds, a.thresholds);
        model.setA(&a, QStringLiteral("h200-5.json"));
        QVERIFY(!model.isActive());
        QCOMPARE(model.rowCount(), 0);
        model.setB(fixtureB(), QStringLiteral("h200-100.json"));
        QVERIFY(model.isActive());
        QCOMPARE(model.columnCount(), 4 + 3 * ks::CriterionCount);

        // Differing only (the default): L2-13r, whose range now flags, and zeros pass with it.
        QCOMPARE(dump(model),
                 QStringLiteral(
                     "L2-13r | both | 2 flag(s) | output_range: 1.21 -> \u2691 0.005 (-1.21); "
                     "zeros_pass: 54.8 -> \u2691 0.498 (-54.3)"));
        QCOMPARE(model.headerData(CompareModel::DiffersColumn, Qt::Horizontal).toString(),
                 QStringLiteral("Differs (1)"));
        const int rangeA = model.columnOf(ks::Criterion::OutputRange, CompareModel::Part::A);
        QCOMPARE(model.headerData(rangeA, Qt::Horizontal).toString(),
                 QStringLiteral("Output Range A (2)"));
        QCOMPARE(model.headerData(rangeA + 1, Qt::Horizontal).toString(), QStringLiteral("B (3)"));
        QCOMPARE(model.headerData(rangeA + 2, Qt::Horizontal).toString(),
                 QStringLiteral("\u0394 (1 differ)"));
        QCOMPARE(model.index(0, rangeA + 1).data(Qt::BackgroundRole).value<QColor>(),
                 FilterMatrixModel::stateColor(FilterMatrixModel::CellState::Flagged));
        QCOMPARE(model.index(0, rangeA + 1).data(CompareModel::FlagStateRole).toInt(),
                 int(ks::FlagState::Flagged));
        QVERIFY(model.index(0, rangeA + 2)
                    .data(Qt::ToolTipRole)
                    .toString()
                    .contains(QStringLiteral("the flags differ")));
        const QString summary = model.summaryText();
        QVERIFY2(summary.contains(QStringLiteral("seeds 5 | 100")), qPrintable(summary));
        QVERIFY(summary.contains(QStringLiteral("1 of 17 tasks differ in a flag")));
        QVERIFY(summary.contains(QStringLiteral("1 only in A, 1 only in B")));

        // Every task of either file.
        QSignalSpy changed(&model, &CompareModel::comparisonChanged);
        model.setDifferingOnly(false);
        QCOMPARE(changed.count(), 1);
        QCOMPARE(model.rowCount(), 17);
        QCOMPARE(model.index(model.rowOf(QStringLiteral("KS-3")), CompareModel::PresenceColumn)
                     .data()
                     .toString(),
                 QStringLiteral("only in A"));
        QCOMPARE(model.index(model.rowCount() - 1, CompareModel::IdColumn).data().toString(),
                 QStringLiteral("L1-2"));
        QCOMPARE(model.index(model.rowCount() - 1, rangeA).data().toString(),
                 QString()); // missing in A
        QCOMPARE(model.index(model.rowOf(QStringLiteral("L1-4")), rangeA).data().toString(),
                 QStringLiteral("\u2014"));
        QCOMPARE(model.index(model.rowOf(QStringLiteral("L3-11")), rangeA).data().toString(),
                 QStringLiteral("error"));
        // Sorted by the delta: the largest drop first; not comparable (NaN) last.
        proxy.sort(rangeA + 2, Qt::AscendingOrder);
        QCOMPARE(proxy.index(0, CompareModel::IdColumn).data().toString(),
                 QStringLiteral("L2-13r"));
        QCOMPARE(proxy.index(proxy.rowCount() - 1, rangeA + 2).data().toString(), QString());
        proxy.sort(CompareModel::DiffersColumn, Qt::AscendingOrder);
        QCOMPARE(proxy.index(0, CompareModel::IdColumn).data().toString(),
                 QStringLiteral("L2-13r"));

        // Two threshold profiles: B judged by range < 2 also flags L2-13 (1.52) and L2-66 (1.0),
        // with L2-13r three differ (KS-3 is not in B).
        ks::Thresholds loose = a.thresholds;
        loose.profile = "loose";
        loose.set(ks::Criterion::OutputRange, 2.0);
        model.setThresholds(a.thresholds, loose);
        QCOMPARE(model.rowCount(), 17); // rows kept: re-thresholding is in place
        QCOMPARE(model.diff().differing[size_t(ks::Criterion::OutputRange)], 3);
        model.setDifferingOnly(true);
        QCOMPARE(model.rowCount(), model.diff().differingTasks);
        QVERIFY(model.rowOf(QStringLiteral("L2-66")) >= 0);
        QCOMPARE(model.index(model.rowOf(QStringLiteral("L2-66")), rangeA + 2).data().toString(),
                 QStringLiteral("0"));
        QVERIFY(model.summaryText().contains(QStringLiteral("output_range 0.01 | 2")));
        model.setThresholds(loose, loose);
        QVERIFY(model.rowOf(QStringLiteral("L2-66")) < 0);

        // A changes (a run streams in): refresh() takes the new rows.
        ks::RunResults a2 = a;
        model.setA(&a2, QStringLiteral("run"));
        task(a2, "L1-19").range.maxAbs = 0.001;
        model.refresh();
        QVERIFY(model.rowOf(QStringLiteral("L1-19")) >= 0);
        model.clear();
        QCOMPARE(model.rowCount(), 0);
        QVERIFY(!model.isActive());
    }

    // A side whose verdict is borderline is marked as the filter matrix marks it: " ~", italic,
    // and a tooltip line. Here B's L1-33 sits on filter 5's launch-bound limit (4.71 ms eager
    // against 2 x 234 x 0.00944 = 4.42 ms; level-3 ShuffleNet on the H200) and is flagged by
    // efficiency; A's L1-33 passes, far from every bound.
    void testBorderlineSideIsMarked() {
        CompareModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        const ks::RunResults a = fixture();
        ks::RunResults b = fixture();
        auto& r = *task(b, "L1-33").inefficiency;
        r.efficiency = 0.0118;
        r.launches = 234;
        r.launchMs = 0.00944;
        r.eagerMs = 4.71;
        r.launchBound = false;
        model.setThresholds(a.thresholds, b.thresholds);
        model.setA(&a, QStringLiteral("lease1.json"));
        model.setB(b, QStringLiteral("lease3.json"));
        const int row = model.rowOf(QStringLiteral("L1-33"));
        QVERIFY(row >= 0);
        const int ieA = model.columnOf(ks::Criterion::BaselineInefficiency, CompareModel::Part::A);
        const QString cellB = model.index(row, ieA + 1).data().toString();
        QVERIFY2(cellB.startsWith(QStringLiteral("\u2691 ")) && cellB.endsWith(QStringLiteral(" ~")),
                 qPrintable(cellB));
        QVERIFY(model.index(row, ieA + 1).data(Qt::FontRole).value<QFont>().italic());
        QVERIFY(model.index(row, ieA + 1).data(Qt::FontRole).value<QFont>().bold()); // differs
        QVERIFY(model.index(row, ieA + 1).data(Qt::ToolTipRole).toString().contains(QStringLiteral("borderline")));
        const QString cellA = model.index(row, ieA).data().toString();
        QVERIFY2(!cellA.endsWith(QStringLiteral(" ~")), qPrintable(cellA));
        QVERIFY(!model.index(row, ieA).data(Qt::FontRole).value<QFont>().italic());
        QVERIFY(!model.index(row, ieA).data(Qt::ToolTipRole).toString().contains(QStringLiteral("borderline")));
    }

    // Issue 14, point 2, more than two files: A against B1 and B2, one column pair per file
    // under each criterion; each pair is what `kernelsieve-cli diff A Bk` computes.
    void testCompareSeveralFiles() {
        CompareModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSortFilterProxyModel proxy;
        QAbstractItemModelTester proxyTester(
            &proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
        proxy.setSourceModel(&model);
        proxy.setSortRole(CompareModel::SortRole);
        const ks::RunResults a = fixture();
        model.setThresholds(a.thresholds, a.thresholds);
        model.setA(&a, QStringLiteral("a.json"));
        model.setB(fixtureB(), QStringLiteral("b1.json"));
        QSignalSpy changed(&model, &CompareModel::comparisonChanged);
        model.addB(fixtureC(), QStringLiteral("b2.json"));
        QCOMPARE(changed.count(), 1);
        QCOMPARE(model.otherCount(), 2);
        QCOMPARE(model.columnCount(), 4 + 5 * ks::CriterionCount);
        QCOMPARE(model.nameB(1), QStringLiteral("b2.json"));

        QCOMPARE(dumpN(model),
                 QStringLiteral(
                     "L1-19 | all | 2 flag(s) | output_range: 5.12 -> 5.12 (0), \u2691 0.005 "
                     "(-5.12); zeros_pass: 73.2 -> 73.2 (0), \u2691 0.498 (-72.7)\n"
                     "L2-13r | all | 2 flag(s) | output_range: 1.21 -> \u2691 0.005 (-1.21), 1.21 "
                     "(0); zeros_pass: 54.8 -> \u2691 0.498 (-54.3), 54.8 (0)"));
        const int rangeA = model.columnOf(ks::Criterion::OutputRange, CompareModel::Part::A);
        QCOMPARE(model.headerData(rangeA, Qt::Horizontal).toString(),
                 QStringLiteral("Output Range A (2)"));
        QCOMPARE(model.headerData(rangeA + 1, Qt::Horizontal).toString(), QStringLiteral("B1 (3)"));
        QCOMPARE(model.headerData(rangeA + 2, Qt::Horizontal).toString(),
                 QStringLiteral("\u03941 (1 differ)"));
        QCOMPARE(model.headerData(rangeA + 3, Qt::Horizontal).toString(), QStringLiteral("B2 (3)"));
        QCOMPARE(model.otherOf(rangeA + 3), 1);
        QCOMPARE(model.partOf(rangeA + 4), CompareModel::Part::Delta);
        QCOMPARE(model.headerData(CompareModel::DiffersColumn, Qt::Horizontal).toString(),
                 QStringLiteral("Differs (2)"));
        // Which file differs: L2-13r in B1 only.
        const int r = model.rowOf(QStringLiteral("L2-13r"));
        QVERIFY(model.index(r, rangeA).data(CompareModel::DiffersRole).toBool());
        QVERIFY(model.index(r, rangeA + 1).data(CompareModel::DiffersRole).toBool());
        QVERIFY(!model.index(r, rangeA + 3).data(CompareModel::DiffersRole).toBool());
        QCOMPARE(model.index(r, rangeA + 3).data(CompareModel::OtherRole).toInt(), 1);
        QCOMPARE(model.differingTasks(), 2);
        QCOMPARE(model.differingAnywhere(ks::Criterion::OutputRange), 2);
        QCOMPARE(model.differingAnywhere(ks::Criterion::OutputStd), 0);
        // Each pair is the CLI's diff of A and that file.
        const ks::ResultsDiff d2 = ks::diffResults(a, a.thresholds, fixtureC(), a.thresholds);
        QCOMPARE(model.diff(1).differingTasks, d2.differingTasks);
        QCOMPARE(model.diff(1).differing, d2.differing);
        const QString summary = model.summaryText();
        QVERIFY2(summary.contains(QStringLiteral("<b>B2</b> b2.json")), qPrintable(summary));
        QVERIFY(summary.contains(QStringLiteral("2 of 18 tasks differ from A in a flag")));

        // Every task of any file: A's 16, then B1's L1-2, then B2's L1-3.
        model.setDifferingOnly(false);
        QCOMPARE(model.rowCount(), 18);
        QCOMPARE(model.index(16, CompareModel::IdColumn).data().toString(), QStringLiteral("L1-2"));
        QCOMPARE(model.index(17, CompareModel::IdColumn).data().toString(), QStringLiteral("L1-3"));
        auto presence = [&](const char* id) {
            return model.index(model.rowOf(QLatin1String(id)), CompareModel::PresenceColumn)
                .data()
                .toString();
        };
        QCOMPARE(presence("KS-3"), QStringLiteral("A, B2")); // B1 dropped it
        QCOMPARE(presence("L1-2"), QStringLiteral("B1"));
        QCOMPARE(presence("L1-3"), QStringLiteral("B2"));
        QCOMPARE(model.index(model.rowOf(QStringLiteral("L1-2")), rangeA + 3).data().toString(),
                 QString()); // not in B2
        // Sorted by B2's delta: L1-19's drop first.
        proxy.sort(rangeA + 4, Qt::AscendingOrder);
        QCOMPARE(proxy.index(0, CompareModel::IdColumn).data().toString(), QStringLiteral("L1-19"));

        // Each file by its own thresholds: B2 by range < 2 also flags L2-13 (1.52), L2-13r
        // (1.21), L2-66 (1.0) and KS-3 (0.76): with L1-19, five differ from A.
        ks::Thresholds loose = a.thresholds;
        loose.set(ks::Criterion::OutputRange, 2.0);
        model.setThresholds(a.thresholds, std::vector<ks::Thresholds>{a.thresholds, loose});
        QCOMPARE(model.rowCount(), 18); // in place
        QCOMPARE(model.diff(0).differing[size_t(ks::Criterion::OutputRange)], 1);
        QCOMPARE(model.diff(1).differing[size_t(ks::Criterion::OutputRange)], 5);
        QCOMPARE(model.differingAnywhere(ks::Criterion::OutputRange), 5);
        QCOMPARE(model.thresholdsB(1).value(ks::Criterion::OutputRange), 2.0);
        QCOMPARE(model.thresholdsB(0).value(ks::Criterion::OutputRange), 0.01);

        // Removing B1: two files again, the columns A, B, delta.
        model.removeB(0);
        QCOMPARE(model.otherCount(), 1);
        QCOMPARE(model.columnCount(), 4 + 3 * ks::CriterionCount);
        QCOMPARE(model.nameB(), QStringLiteral("b2.json"));
        QCOMPARE(model.headerData(rangeA + 1, Qt::Horizontal).toString(), QStringLiteral("B (7)"));
        QCOMPARE(model.thresholdsB().value(ks::Criterion::OutputRange), 2.0);
        QCOMPARE(model.rowCount(), 17); // L1-2 went with B1
        model.clear();
        QCOMPARE(model.otherCount(), 0);
        QCOMPARE(model.rowCount(), 0);
    }
};

QTEST_GUILESS_MAIN(TestCompareModel)
#include "tst_comparemodel.moc"
