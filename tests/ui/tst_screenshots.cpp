// SPDX-License-Identifier: MIT
// Renders each main view of the real window from the fixed results and bench files to PNG
// (${CMAKE_BINARY_DIR}/screenshots, kept as test artifacts; docs/screenshots has current copies)
// and checks the images are not trivial: not blank, and every chart's plot area has data drawn.

#include <axeschart.h>
#include <chartwidget.h>
#include <compareview.h>
#include <filtermatrixview.h>
#include <kernelsview.h>
#include <mainwindow.h>
#include <speedupchart.h>
#include <taskdetailview.h>

#include <models/comparemodel.h>
#include <models/filtermatrixmodel.h>
#include <models/redundancymodel.h>
#include <models/rewritesmodel.h>
#include <models/variantsmodel.h>

#include <QComboBox>
#include <QDir>
#include <QFileInfo>
#include <QHeaderView>
#include <QImage>
#include <QScrollBar>
#include <QSettings>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QTest>

#include <algorithm>
#include <map>

namespace {

struct ImageStats {
    int distinctColors = 0;
    double nonBackground = 0; // fraction of pixels that differ from the most common colour
    double saturated = 0;     // fraction of clearly coloured pixels (bars, flags), not greys
};

ImageStats statsOf(const QImage& image, const QRect& area = {}) {
    const QImage img = image.convertToFormat(QImage::Format_RGB32);
    const QRect r = area.isNull() ? img.rect() : area.intersected(img.rect());
    std::map<QRgb, int> histogram;
    int saturated = 0;
    for (int y = r.top(); y <= r.bottom(); ++y)
        for (int x = r.left(); x <= r.right(); ++x) {
            const QRgb p = img.pixel(x, y);
            ++histogram[p];
            const int mx = std::max({qRed(p), qGreen(p), qBlue(p)}),
                      mn = std::min({qRed(p), qGreen(p), qBlue(p)});
            if (mx - mn > 40) ++saturated;
        }
    int most = 0;
    for (const auto& [c, n] : histogram)
        most = std::max(most, n);
    const double total = double(r.width()) * r.height();
    return {int(histogram.size()), total > 0 ? 1.0 - most / total : 0,
            total > 0 ? saturated / total : 0};
}

void checkNonTrivial(const QImage& image, const QString& what) {
    const auto s = statsOf(image);
    QVERIFY2(!image.isNull(), qPrintable(what));
    QVERIFY2(s.distinctColors > 64,
             qPrintable(QStringLiteral("%1: only %2 colours").arg(what).arg(s.distinctColors)));
    QVERIFY2(s.nonBackground > 0.05,
             qPrintable(QStringLiteral("%1: %2% drawn").arg(what).arg(s.nonBackground * 100)));
}

// The chart is laid out, has data, and its axis rect holds coloured pixels (bars, bands, lines).
void checkPlotDrawn(ChartWidget* chart) {
    const QString name = chart->objectName();
    QVERIFY2(chart->isVisible(), qPrintable(name));
    QVERIFY2(chart->hasData(), qPrintable(name + QStringLiteral(": no data (") + chart->message() +
                                          QLatin1Char(')')));
    chart->replot(QCustomPlot::rpImmediateRefresh);
    const QImage image = chart->toPixmap(chart->width(), chart->height()).toImage();
    const QRect plotArea = chart->axisRect()->rect();
    QVERIFY2(plotArea.width() > 80 && plotArea.height() > 60,
             qPrintable(name + QStringLiteral(": plot area too small")));
    const auto s = statsOf(image, plotArea);
    QVERIFY2(s.saturated > 0.01,
             qPrintable(
                 QStringLiteral("%1: plot area is %2% coloured").arg(name).arg(s.saturated * 100)));
}

} // namespace

class TestScreenshots : public QObject {
    Q_OBJECT
  private:
    QString m_dir = QStringLiteral(KS_SCREENSHOT_DIR);

    // The Kernels view stacks its charts over a dozen-column variants table: its shots get a
    // taller window and a shorter filter matrix (a few rows around the selected task).
    static void roomForKernels(MainWindow& w) {
        w.resize(1280, 960);
        QApplication::processEvents();
        auto* split = w.findChild<QSplitter*>(QStringLiteral("mainSplitter"));
        QVERIFY(split);
        const int total = split->sizes().value(0) + split->sizes().value(1);
        split->setSizes({250, total - 250}); // setSizes scales sizes that do not add up
        QApplication::processEvents();
        QTableView* matrix = w.matrixView()->tableView();
        matrix->scrollTo(matrix->currentIndex()); // the selected task stays in the picture
    }
    // ... and back to the window's default size and split for the other views.
    static void defaultRoom(MainWindow& w) {
        w.resize(1280, 800);
        QApplication::processEvents();
        w.findChild<QSplitter*>(QStringLiteral("mainSplitter"))->setSizes({320, 440});
    }

    QImage shoot(MainWindow& w, const QString& file) {
        QApplication::processEvents();
        for (auto* c : w.charts())
            c->replot(QCustomPlot::rpImmediateRefresh);
        const QImage image = w.grab().toImage();
        const QString path = QDir(m_dir).filePath(file);
        if (!image.save(path)) qWarning("cannot save %s", qPrintable(path));
        return image;
    }

  private slots:
    void initTestCase() {
        QSettings().clear();
        QDir().mkpath(m_dir);
        qputenv("KS_WORKER", KS_UI_TEST_WORKERS "/ok_worker.sh");
    }

    void testMainViews() {
        MainWindow w;
        w.resize(1280, 800);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        w.startup(QStringLiteral(KS_UI_TEST_DATA "/results.json"));
        QCOMPARE(w.model()->rowCount(), 16);
        QVERIFY(w.openBench(QStringLiteral(KS_UI_TEST_DATA "/bench.json")));
        QTRY_VERIFY(!w.workerDevice().isEmpty()); // the device note is part of the picture

        // Task detail: the seed's softmax, flagged by every filter.
        QVERIFY(w.selectTask(QStringLiteral("L1-23")));
        w.showView(MainWindow::View::TaskDetail);
        checkNonTrivial(shoot(w, QStringLiteral("task-detail.png")), QStringLiteral("task detail"));
        for (auto* c : w.detailView()->charts())
            checkPlotDrawn(c);

        // A task with a NaN (size-1) axis and wide outputs, with log counts.
        QVERIFY(w.selectTask(QStringLiteral("L1-47")));
        w.detailView()->logCountBox()->setChecked(true);
        checkNonTrivial(shoot(w, QStringLiteral("task-detail-logcount.png")),
                        QStringLiteral("task detail (log)"));
        for (auto* c : w.detailView()->charts())
            checkPlotDrawn(c);
        w.detailView()->logCountBox()->setChecked(false);

        // Filters 5-6 on their page: the diagonal matmul's roofline and the rewrite that flags
        // it, then the broken L2-13's constant softmax and what only fed it.
        QVERIFY(w.selectTask(QStringLiteral("L1-12")));
        w.detailView()->showGraphAnalyses(true);
        checkNonTrivial(shoot(w, QStringLiteral("task-detail-inefficiency.png")),
                        QStringLiteral("task detail (inefficiency)"));
        QCOMPARE(w.detailView()->rewritesModel()->rowCount(), 1);
        QVERIFY(w.selectTask(QStringLiteral("L2-13")));
        checkNonTrivial(shoot(w, QStringLiteral("task-detail-redundancy.png")),
                        QStringLiteral("task detail (redundancy)"));
        QCOMPARE(w.detailView()->redundancyModel()->rowCount(), 6);
        w.detailView()->showGraphAnalyses(false);

        // Kernels on the broken L2-13: a 124x shortcut on a flawed task must be marked. The
        // charts share the tab's height with the variants table: 160 px more for these shots.
        QVERIFY(w.selectTask(QStringLiteral("L2-13")));
        roomForKernels(w);
        w.showView(MainWindow::View::Kernels);
        checkNonTrivial(shoot(w, QStringLiteral("kernels.png")), QStringLiteral("kernels"));
        QVERIFY(w.kernelsView()->speedupChart()->flawMarkShown());
        for (auto* c : w.kernelsView()->charts())
            checkPlotDrawn(c);

        // Every task with kernels at once; L1-23 fails validation in one variant.
        w.kernelsView()->setScope(KernelsView::Scope::AllTasks);
        checkNonTrivial(shoot(w, QStringLiteral("kernels-all.png")),
                        QStringLiteral("kernels (all)"));
        checkPlotDrawn(w.kernelsView()->speedupChart());
        w.kernelsView()->setScope(KernelsView::Scope::SelectedTask);
        defaultRoom(w);

        w.showView(MainWindow::View::Summary);
        checkNonTrivial(shoot(w, QStringLiteral("summary.png")), QStringLiteral("summary"));
        checkPlotDrawn(w.chart(QStringLiteral("summaryChart")));

        // The filter matrix on its own.
        const QImage matrix = w.matrixView()->grab().toImage();
        matrix.save(QDir(m_dir).filePath(QStringLiteral("filter-matrix.png")));
        checkNonTrivial(matrix, QStringLiteral("filter matrix"));
        QVERIFY2(statsOf(matrix).saturated > 0.05, "the matrix cells are coloured");
    }

    // The compare view over two real H200 runs of the built-in suite (bench/filters): the
    // 2026-12-01 run (A) against the 2026-11-29 one (B), both judged by A's thresholds, so what
    // differs is what the engine measured, not the profiles.
    void testCompareView() {
        const QString dir = QStringLiteral(KS_UI_TEST_DATA "/../../../bench/filters");
        const QString a = dir + QStringLiteral("/h200-2026-12-01/builtin.json");
        const QString b = dir + QStringLiteral("/h200-2026-11-29-filter.json");
        if (!QFileInfo::exists(a) || !QFileInfo::exists(b))
            QSKIP("bench/filters has no H200 runs to compare");
        MainWindow w;
        w.resize(1280, 800);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        w.startup(a);
        QTRY_VERIFY(!w.workerDevice().isEmpty());
        QComboBox* judge = w.compareView()->thresholdsBox();
        judge->setCurrentIndex(judge->findData(QStringLiteral("a")));
        QVERIFY(w.compareWith(b));
        QCOMPARE(w.compareModel()->diff().differingTasks, 8); // as `kernelsieve-cli diff` says
        // Only baseline inefficiency differs: its three columns are the ones shown.
        QTableView* table = w.compareView()->tableView();
        const int ie =
            w.compareModel()->columnOf(ks::Criterion::BaselineInefficiency, CompareModel::Part::A);
        QVERIFY(!table->isColumnHidden(ie) && !table->isColumnHidden(ie + 2));
        QVERIFY(table->isColumnHidden(
            w.compareModel()->columnOf(ks::Criterion::OutputStd, CompareModel::Part::A)));
        // The compare table wants the room: a shorter matrix above it.
        w.findChild<QSplitter*>(QStringLiteral("mainSplitter"))->setSizes({220, 540});
        QApplication::processEvents();
        table->sortByColumn(ie + 2, Qt::AscendingOrder); // the largest drop of B against A first
        QVERIFY(w.compareView()->selectTask(QStringLiteral("L2-23")));
        QCOMPARE(w.currentTaskId(), QStringLiteral("L2-23"));
        const QImage image = shoot(w, QStringLiteral("compare.png"));
        checkNonTrivial(image, QStringLiteral("compare view"));
        const QImage view = w.compareView()->grab().toImage();
        QVERIFY2(statsOf(view).saturated > 0.02, "the compared cells are coloured");
    }

    // Issue 14, point 6: the matrix (with Task Detail) and the compare view at 1280 x 720 and
    // 1920 x 1080. The compare view holds three H200 runs of the built-in suite (bench/filters):
    // 2026-12-01 (A) against 2026-11-29 (B1) and 2026-11-29d (B2), all judged by A's thresholds.
    void testScreenSizes_data() {
        QTest::addColumn<QSize>("size");
        QTest::newRow("1280x720") << QSize(1280, 720);
        QTest::newRow("1920x1080") << QSize(1920, 1080);
    }
    void testScreenSizes() {
        QFETCH(QSize, size);
        const QString tag = QStringLiteral("%1x%2").arg(size.width()).arg(size.height());
        {
            MainWindow w;
            w.resize(size);
            w.show();
            QVERIFY(QTest::qWaitForWindowExposed(&w));
            w.startup(QStringLiteral(KS_UI_TEST_DATA "/results.json"));
            QTRY_VERIFY(!w.workerDevice().isEmpty());
            QCOMPARE(w.size(), size); // the window fits the screen it is made for
            QVERIFY(w.selectTask(QStringLiteral("L1-23")));
            w.showView(MainWindow::View::TaskDetail);
            const QImage image = shoot(w, QStringLiteral("matrix-%1.png").arg(tag));
            checkNonTrivial(image, QStringLiteral("matrix ") + tag);
            for (auto* c : w.detailView()->charts())
                checkPlotDrawn(c);
            // Readable: every chart of the detail view at least 250 px tall, the matrix several
            // rows.
            for (auto* c : w.detailView()->charts())
                QVERIFY2(
                    c->height() >= 250,
                    qPrintable(QStringLiteral("%1: %2 px").arg(c->objectName()).arg(c->height())));
            QTableView* matrix = w.matrixView()->tableView();
            QVERIFY(matrix->viewport()->height() >=
                    5 * matrix->verticalHeader()->defaultSectionSize());
            QCOMPARE(matrix->horizontalScrollBar()->maximum(), 0); // every column in view

            // Kernels with two bench files (built-in and external kernels) on the broken L2-13:
            // rows tagged with their file, one chart group per file.
            QVERIFY(w.openBench(QStringLiteral(KS_UI_TEST_DATA "/bench.json")));
            QVERIFY(w.addBench(QStringLiteral(KS_UI_TEST_DATA "/bench-external.json")));
            QVERIFY(w.selectTask(QStringLiteral("L2-13")));
            w.showView(MainWindow::View::Kernels);
            checkNonTrivial(shoot(w, QStringLiteral("kernels-%1.png").arg(tag)),
                            QStringLiteral("kernels ") + tag);
            for (auto* c : w.kernelsView()->charts())
                checkPlotDrawn(c);
            // The table under the charts has a few rows at 720 px; Focus on the Views (the
            // matrix collapsed) gives it at least five.
            w.setViewsFocused(true);
            QApplication::processEvents();
            QTableView* variants = w.kernelsView()->variantsTable();
            QVERIFY2(variants->viewport()->height() >=
                         5 * variants->verticalHeader()->defaultSectionSize(),
                     qPrintable(QString::number(variants->viewport()->height())));
            w.setViewsFocused(false);
            QCOMPARE(w.kernelsView()->variantsModel()->sourceCount(), 2);
        }
        const QString dir = QStringLiteral(KS_UI_TEST_DATA "/../../../bench/filters");
        const QString a = dir + QStringLiteral("/h200-2026-12-01/builtin.json");
        const QString b1 = dir + QStringLiteral("/h200-2026-11-29-filter.json");
        const QString b2 = dir + QStringLiteral("/h200-2026-11-29d-filter.json");
        if (!QFileInfo::exists(a) || !QFileInfo::exists(b1) || !QFileInfo::exists(b2))
            QSKIP("bench/filters has no three H200 runs to compare");
        MainWindow w;
        w.resize(size);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        w.startup(a);
        QTRY_VERIFY(!w.workerDevice().isEmpty());
        QComboBox* judge = w.compareView()->thresholdsBox();
        judge->setCurrentIndex(judge->findData(QStringLiteral("a")));
        QVERIFY(w.compareWith(b1));
        QVERIFY(w.addComparison(b2));
        QCOMPARE(w.compareModel()->otherCount(), 2);
        QCOMPARE(w.compareModel()->diff(0).differingTasks, 8); // as `kernelsieve-cli diff A B1`
        QTableView* table = w.compareView()->tableView();
        const int ie = w.compareModel()->columnOf(ks::Criterion::BaselineInefficiency,
                                                  CompareModel::Part::Delta, 0);
        table->sortByColumn(ie, Qt::AscendingOrder);
        QVERIFY(w.compareView()->selectTask(QStringLiteral("L2-23")));
        const QImage image = shoot(w, QStringLiteral("compare-%1.png").arg(tag));
        checkNonTrivial(image, QStringLiteral("compare ") + tag);
        QVERIFY(table->viewport()->height() >= 5 * table->verticalHeader()->defaultSectionSize());
        QVERIFY2(statsOf(w.compareView()->grab().toImage()).saturated > 0.02,
                 "the compared cells are coloured");
    }

    // External kernels (bench-external.json) on L1-19, a task without built-in kernels: one of
    // each verdict, a cheat that is the fastest bar, a compile error, a disagreeing manifest.
    void testExternalKernels() {
        MainWindow w;
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        w.startup(QStringLiteral(KS_UI_TEST_DATA "/results.json"));
        QVERIFY(w.openBench(QStringLiteral(KS_UI_TEST_DATA "/bench-external.json")));
        QTRY_VERIFY(!w.workerDevice().isEmpty());
        QVERIFY(w.selectTask(QStringLiteral("L1-19")));
        roomForKernels(w);
        w.showView(MainWindow::View::Kernels);
        checkNonTrivial(shoot(w, QStringLiteral("kernels-external.png")),
                        QStringLiteral("kernels (external)"));
        for (auto* c : w.kernelsView()->charts())
            checkPlotDrawn(c);
        QVERIFY(!w.kernelsView()->speedupChart()->flawMarkShown()); // ReLU is a sound task

        // Both tasks: the cheats stay marked, and the 124x constant on L2-13 sits in the
        // flawed (tinted) group.
        w.kernelsView()->setScope(KernelsView::Scope::AllTasks);
        checkNonTrivial(shoot(w, QStringLiteral("kernels-external-all.png")),
                        QStringLiteral("kernels (external, all)"));
        checkPlotDrawn(w.kernelsView()->speedupChart());
        QVERIFY(w.kernelsView()->speedupChart()->flawMarkShown());
        w.kernelsView()->setScope(KernelsView::Scope::SelectedTask);
    }

    // Issue 12: the H200 bench of the built-in kernels against eager, compiled (AOTInductor)
    // and CUDA-graph baselines (bench/kernels/h200-2026-12-02): RMSNorm, where the best kernel's
    // 3.1x over eager is 2.4x over compiled, and softmax, where compiled is slower than eager.
    void testCompiledBaselines() {
        MainWindow w;
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        w.startup(QStringLiteral(KS_UI_TEST_DATA "/results.json"));
        QVERIFY(w.openBench(QStringLiteral(KS_UI_TEST_DATA "/bench-baselines.json")));
        QTRY_VERIFY(!w.workerDevice().isEmpty());
        QVERIFY(w.selectTask(QStringLiteral("L1-36")));
        roomForKernels(w);
        w.showView(MainWindow::View::Kernels);
        QTableView* table = w.kernelsView()->variantsTable();
        QVERIFY(!table->isColumnHidden(VariantsModel::VsCompiledColumn));
        QVERIFY(!table->isColumnHidden(VariantsModel::VsGraphColumn));
        checkNonTrivial(shoot(w, QStringLiteral("kernels-baselines.png")), QStringLiteral("kernels (baselines)"));
        for (auto* c : w.kernelsView()->charts())
            checkPlotDrawn(c);
        QVERIFY(w.selectTask(QStringLiteral("L1-23")));
        checkNonTrivial(shoot(w, QStringLiteral("kernels-baselines-softmax.png")),
                        QStringLiteral("kernels (baselines, softmax)"));
        checkPlotDrawn(w.kernelsView()->speedupChart());
    }

    // Optional: the same views over a results file from a real engine run (set
    // KS_SCREENSHOT_RESULTS), saved as real-*.png, to eyeball real data beside the fixture.
    void testRealResults() {
        const QString path = qEnvironmentVariable("KS_SCREENSHOT_RESULTS");
        if (path.isEmpty()) QSKIP("set KS_SCREENSHOT_RESULTS to a results file to render it too");
        MainWindow w;
        w.resize(1280, 800);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(w.openResults(path));
        QVERIFY(w.openBench(qEnvironmentVariable("KS_SCREENSHOT_BENCH",
                                                 QStringLiteral(KS_UI_TEST_DATA "/bench.json"))));
        const QString task = qEnvironmentVariable("KS_SCREENSHOT_TASK", QStringLiteral("L1-23"));
        QVERIFY(w.selectTask(task));
        w.showView(MainWindow::View::TaskDetail);
        checkNonTrivial(shoot(w, QStringLiteral("real-task-detail.png")),
                        QStringLiteral("real task detail"));
        roomForKernels(w);
        w.showView(MainWindow::View::Kernels);
        checkNonTrivial(shoot(w, QStringLiteral("real-kernels.png")),
                        QStringLiteral("real kernels"));
        defaultRoom(w);
        w.showView(MainWindow::View::Summary);
        checkNonTrivial(shoot(w, QStringLiteral("real-summary.png")),
                        QStringLiteral("real summary"));
    }

    void testChartExports() {
        MainWindow w;
        w.resize(1280, 800);
        w.show();
        QVERIFY(w.openResults(QStringLiteral(KS_UI_TEST_DATA "/results.json")));
        QVERIFY(w.openBench(QStringLiteral(KS_UI_TEST_DATA "/bench.json")));
        QVERIFY(w.selectTask(QStringLiteral("L1-12")));
        for (auto* c : w.charts()) {
            for (const char* suffix : {"png", "pdf"}) {
                const QString path = QDir(m_dir).filePath(
                    QStringLiteral("export-%1.%2").arg(c->objectName(), QLatin1String(suffix)));
                QFile::remove(path);
                QVERIFY2(w.exportChart(c->objectName(), path), qPrintable(path));
                QFile f(path);
                QVERIFY(f.open(QIODevice::ReadOnly));
                const QByteArray head = f.read(8);
                QVERIFY2(f.size() > 2000, qPrintable(path));
                QVERIFY(head.startsWith(suffix == QLatin1String("png") ? QByteArray("\x89PNG")
                                                                       : QByteArray("%PDF")));
            }
        }
        const QImage speedup(QDir(m_dir).filePath(QStringLiteral("export-speedupChart.png")));
        QCOMPARE(speedup.size(), QSize(1200, 700));
        checkNonTrivial(speedup, QStringLiteral("exported speedup chart"));
        QVERIFY(!w.exportChart(QStringLiteral("speedupChart"),
                               QDir(m_dir).filePath(QStringLiteral("x.bmp"))));
    }
};

QTEST_MAIN(TestScreenshots)
#include "tst_screenshots.moc"
