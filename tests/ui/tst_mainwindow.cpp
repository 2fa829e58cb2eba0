// SPDX-License-Identifier: MIT
// The real main window driven through Qt Test: open a results file, change a threshold and see
// flags and counts change, "flagged only", CSV/JSON export, save, runs against fake workers
// (streamed results, cancel, a worker that crashes mid-run), the no-GPU notice and settings.

#include <chartwidget.h>
#include <compareview.h>
#include <filtermatrixview.h>
#include <histogramchart.h>
#include <kernelsview.h>
#include <mainwindow.h>
#include <messagebar.h>
#include <rundialog.h>
#include <speedupchart.h>
#include <summarychart.h>
#include <summaryview.h>
#include <taskdetailview.h>
#include <thresholdpanel.h>
#include <timingchart.h>

#include <ks/core/resultsdiff.h>
#include <ks/core/suite.h>
#include <models/comparemodel.h>
#include <models/filtermatrixmodel.h>
#include <models/filterproxymodel.h>
#include <models/redundancymodel.h>
#include <models/resultsutil.h>
#include <models/rewritesmodel.h>
#include <models/rooflinemodel.h>
#include <models/runinfomodel.h>
#include <models/summarymodel.h>
#include <models/variantsmodel.h>

#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QClipboard>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QGuiApplication>
#include <QHeaderView>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QRadioButton>
#include <QSet>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QTextBlock>
#include <QTimer>

#include <QScrollArea>
#include <QScrollBar>
#include <QToolBar>
#include <QToolButton>
#include <memory>

namespace {
const QString ResultsFile = QStringLiteral(KS_UI_TEST_DATA "/results.json");
const QString BenchFile = QStringLiteral(KS_UI_TEST_DATA "/bench.json");
const QString ExternalBenchFile = QStringLiteral(KS_UI_TEST_DATA "/bench-external.json");

void useWorker(const char* script) {
    qputenv("KS_WORKER", QByteArray(KS_UI_TEST_WORKERS "/") + script);
}

ks::RunResults fixture() {
    return ks::resultsFromJson(ks::readFile(ResultsFile.toStdString()), ResultsFile.toStdString());
}

QByteArray readAll(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

// Sets a threshold the way a user does: typing into the panel's spin box.
void typeThreshold(MainWindow& w, ks::Threshold t, const QString& text) {
    QDoubleSpinBox* spin = w.thresholdPanel()->spinBox(t);
    spin->selectAll();
    QTest::keyClicks(spin, text);
    QTest::keyClick(spin, Qt::Key_Return);
}
void typeThreshold(MainWindow& w, ks::Criterion c, const QString& text) {
    typeThreshold(w, ks::thresholdsOf(c).front(), text);
}
} // namespace

class TestMainWindow : public QObject {
    Q_OBJECT
  private slots:
    void init() {
        QSettings().clear();
        useWorker("ok_worker.sh");
        qunsetenv("KS_FAKE_DEVICE");
    }

    void testOpenResults() {
        MainWindow w;
        w.show();
        QVERIFY(w.openResults(ResultsFile));
        QCOMPARE(w.model()->rowCount(), 16);
        QCOMPARE(w.matrixView()->tableView()->model()->rowCount(), 16);
        QVERIFY(w.windowTitle().contains(QStringLiteral("results.json")));
        QCOMPARE(w.summaryModel()->count(SummaryModel::AnyFlagRow, SummaryModel::TotalColumn), 8);
        QCOMPARE(w.runInfoModel()->value(QStringLiteral("LibTorch")), QStringLiteral("2.11.0"));
        QVERIFY(w.matrixView()->countsLabel()->text().contains(QStringLiteral("8 flagged")));
        // The first row is selected and drives the detail view.
        QCOMPARE(w.currentTaskId(), QStringLiteral("L1-1"));
        QCOMPARE(w.detailView()->taskId(), QStringLiteral("L1-1"));
        QVERIFY(w.detailView()->valueChart()->hasData());
        QVERIFY(w.selectTask(QStringLiteral("L3-11")));
        QVERIFY(
            w.detailView()->errorEdit()->toPlainText().contains(QStringLiteral("out of memory")));
        QVERIFY(!w.detailView()->valueChart()->hasData());
        QVERIFY(w.recentFiles().first().endsWith(QStringLiteral("results.json")));
    }

    void testOpenErrorKeepsWindow() {
        MainWindow w;
        w.show();
        QVERIFY(w.openResults(ResultsFile));
        QVERIFY(!w.openResults(QStringLiteral(KS_UI_TEST_DATA "/bench.json"))); // wrong schema
        QVERIFY(w.messageBar()->isVisible());
        QVERIFY(w.messageBar()->text().contains(QStringLiteral("not a KernelSieve results file")));
        QCOMPARE(w.model()->rowCount(), 16); // what was open stays open
        QVERIFY(!w.openResults(QStringLiteral("/nonexistent/r.json")));
        QVERIFY(w.messageBar()->text().contains(QStringLiteral("/nonexistent/r.json")));
        // openPath sniffs the schema: a bench file goes to the kernels view.
        QVERIFY(w.openPath(BenchFile));
        QVERIFY(w.kernelsView()->hasBench());
    }

    void testThresholdChangesFlagsAndCounts() {
        MainWindow w;
        w.show();
        QVERIFY(w.openResults(ResultsFile));
        QVERIFY(w.selectTask(QStringLiteral("L2-13")));
        FilterMatrixModel* m = w.model();
        const int row = m->rowOf(QStringLiteral("L2-13"));
        QCOMPARE(m->cellState(row, ks::Criterion::OutputRange),
                 FilterMatrixModel::CellState::Passed);
        QCOMPARE(m->headerData(FilterMatrixModel::OutputRangeColumn, Qt::Horizontal).toString(),
                 QStringLiteral("Output Range (2)"));
        QSignalSpy reset(m, &QAbstractItemModel::modelReset);

        typeThreshold(w, ks::Criterion::OutputRange, QStringLiteral("2"));

        QCOMPARE(w.thresholdPanel()->thresholds().value(ks::Criterion::OutputRange), 2.0);
        QCOMPARE(reset.count(), 0); // flags re-derived in place, nothing re-loaded or re-run
        // Flags and colours
        QCOMPARE(m->cellState(row, ks::Criterion::OutputRange),
                 FilterMatrixModel::CellState::Flagged);
        const QModelIndex cell =
            w.proxy()->mapFromSource(m->index(row, FilterMatrixModel::OutputRangeColumn));
        QCOMPARE(cell.data(Qt::BackgroundRole).value<QColor>(),
                 FilterMatrixModel::stateColor(FilterMatrixModel::CellState::Flagged));
        QVERIFY(cell.data(Qt::ToolTipRole).toString().contains(QStringLiteral("threshold = 2")));
        QVERIFY(m->anyFlag(m->rowOf(QStringLiteral("L2-13r")))); // 1.21 < 2: newly flagged
        // Counts: header, matrix label, summary table, threshold panel
        QCOMPARE(m->headerData(FilterMatrixModel::OutputRangeColumn, Qt::Horizontal).toString(),
                 QStringLiteral("Output Range (6)"));
        QVERIFY2(w.matrixView()->countsLabel()->text().contains(QStringLiteral("9 flagged")),
                 qPrintable(w.matrixView()->countsLabel()->text()));
        QCOMPARE(
            w.summaryModel()->count(int(ks::Criterion::OutputRange), SummaryModel::TotalColumn), 6);
        QCOMPARE(w.summaryModel()->count(SummaryModel::AnyFlagRow, SummaryModel::TotalColumn), 9);
        QCOMPARE(
            w.thresholdPanel()->findChild<QLabel*>(QStringLiteral("output_range_count"))->text(),
            QStringLiteral("(6)"));
        // Charts: the band moved, the task header names the new flag
        QCOMPARE(w.detailView()->valueChart()->threshold(), 2.0);
        QVERIFY(w.detailView()->headerLabel()->text().contains(QStringLiteral("Output Range")));

        // Reset to the profile: everything back.
        auto* resetButton =
            w.thresholdPanel()->findChild<QPushButton*>(QStringLiteral("resetThresholds"));
        QVERIFY(resetButton->isEnabled());
        QTest::mouseClick(resetButton, Qt::LeftButton);
        QCOMPARE(m->flaggedCount(ks::Criterion::OutputRange), 2);
        QCOMPARE(w.summaryModel()->count(SummaryModel::AnyFlagRow, SummaryModel::TotalColumn), 8);
        QVERIFY(!resetButton->isEnabled());
    }

    void testFlaggedOnly() {
        MainWindow w;
        w.show();
        QVERIFY(w.openResults(ResultsFile));
        QCheckBox* box = w.matrixView()->flaggedOnlyBox();
        QTest::mouseClick(box, Qt::LeftButton, {}, QPoint(4, box->height() / 2));
        QVERIFY(box->isChecked());
        QTableView* table = w.matrixView()->tableView();
        QCOMPARE(table->model()->rowCount(), 8);
        for (int r = 0; r < table->model()->rowCount(); ++r)
            QVERIFY(table->model()->index(r, 0).data(FilterMatrixModel::AnyFlagRole).toBool());
        QVERIFY(w.matrixView()->countsLabel()->text().contains(QStringLiteral("showing 8")));
        // Loosening the std threshold past L2-13r's 0.62 brings it into the filtered view.
        typeThreshold(w, ks::Criterion::OutputStd, QStringLiteral("0.7"));
        QCOMPARE(table->model()->rowCount(), 9);
        // Combined with the level filter and search.
        w.matrixView()->levelBox()->setCurrentIndex(w.matrixView()->levelBox()->findData(2));
        QCOMPARE(table->model()->rowCount(), 4);
        QTest::keyClicks(w.matrixView()->searchEdit(), QStringLiteral("gelu"));
        QCOMPARE(table->model()->rowCount(), 1);
        QCOMPARE(table->model()->index(0, 0).data().toString(), QStringLiteral("L2-80"));
    }

    void testExportCsv() {
        QTemporaryDir tmp;
        MainWindow w;
        w.show();
        QVERIFY(w.openResults(ResultsFile));
        const QString all = tmp.filePath(QStringLiteral("all.csv"));
        QVERIFY(w.exportCsv(all));
        // Exactly the CLI's format (the same writer, resultsToCsv, over the same data).
        const ks::RunResults r = fixture();
        QCOMPARE(readAll(all),
                 QByteArray::fromStdString(ks::resultsToCsv(r, ks::Thresholds::defaults())));
        const QList<QByteArray> lines = readAll(all).split('\n');
        QCOMPARE(lines.size(), 18); // header + 16 tasks + trailing empty
        QVERIFY(lines[0].startsWith("Task ID,Task Name,Output Range,Output Std,Output Axes,Input "
                                    "Impact,Baseline Inefficiency,Redundant Computation,Zeros Pass,Any Flag,"
                                    "Level,Category,Status"));
        QVERIFY2(lines[5].startsWith(
                     "L1-23,23_Softmax,True,True,True,True,False,False,True,True,1,activation,ok,"),
                 lines[5].constData());
        QVERIFY(lines[2].startsWith(
            "L1-4,4_Matrix_vector_multiplication_,,,,,,,,False,1,matmul,skipped"));

        // New thresholds and "flagged only": the rows shown, with their flags and thresholds.
        typeThreshold(w, ks::Criterion::OutputRange, QStringLiteral("2"));
        w.matrixView()->flaggedOnlyBox()->setChecked(true);
        const QString flagged = tmp.filePath(QStringLiteral("flagged.csv"));
        QVERIFY(w.exportCsv(flagged));
        ks::Thresholds th = ks::Thresholds::defaults();
        th.set(ks::Criterion::OutputRange, 2.0);
        QList<int> rows;
        for (int i = 0; i < int(r.tasks.size()); ++i)
            if (r.tasks[static_cast<size_t>(i)].anyFlag(th)) rows << i;
        QCOMPARE(rows.size(), 9);
        QCOMPARE(readAll(flagged),
                 QByteArray::fromStdString(ks::resultsToCsv(ResultsUtil::subset(r, rows), th)));
        QVERIFY(readAll(flagged).contains(
            "L2-13,13_ConvTranspose3d_Mean_Add_Softmax_Tanh_Scaling,True,True,True,True,False,True,"
            "True,True,2")); // ... inefficiency, redundancy, zeros pass, any flag, level
        QVERIFY(!w.exportCsv(QStringLiteral("/nonexistent/dir/x.csv")));
        QVERIFY(w.messageBar()->isVisible());
    }

    // Issue 14: the export asks whether it writes the visible rows or all rows, and the name it
    // proposes says which (and whose thresholds), since the CSV's columns are the CLI's.
    void testExportCsvAsksWhichRows() {
        QTemporaryDir tmp;
        MainWindow w;
        w.show();
        QVERIFY(w.openResults(ResultsFile));
        // Nothing hidden: all rows, no question.
        QCOMPARE(w.askCsvRows(), std::optional<MainWindow::CsvRows>(MainWindow::CsvRows::All));
        QCOMPARE(w.suggestedCsvName(MainWindow::CsvRows::All), QStringLiteral("results.csv"));

        QComboBox* by = w.matrixView()->flaggedByBox();
        by->setCurrentIndex(by->findData(int(ks::Criterion::OutputRange)));
        QVERIFY(w.matrixView()->flaggedOnlyBox()->isChecked()); // choosing a criterion turns it on
        QCOMPARE(w.proxy()->rowCount(), 2);
        QString question;
        auto answer = [&question](const char* button) {
            QTimer::singleShot(0, [&question, button] {
                auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget());
                QVERIFY(box);
                question = box->text() + QLatin1Char('\n') + box->informativeText();
                if (auto* b = box->findChild<QAbstractButton*>(QString::fromLatin1(button)))
                    b->click();
                else
                    box->reject();
            });
        };
        answer("exportAllRows");
        QCOMPARE(w.askCsvRows(), std::optional<MainWindow::CsvRows>(MainWindow::CsvRows::All));
        QVERIFY2(
            question.contains(QStringLiteral("shows 2 of 16 tasks (flagged only by Output Range)")),
            qPrintable(question));
        QVERIFY(question.contains(QStringLiteral("file's thresholds (robust-kbench)")));
        answer("exportVisibleRows");
        QCOMPARE(w.askCsvRows(), std::optional<MainWindow::CsvRows>(MainWindow::CsvRows::Visible));
        answer("none: cancel");
        QCOMPARE(w.askCsvRows(), std::optional<MainWindow::CsvRows>());
        QCOMPARE(w.suggestedCsvName(MainWindow::CsvRows::Visible),
                 QStringLiteral("results-visible-2-of-16.csv"));
        QCOMPARE(w.suggestedCsvName(MainWindow::CsvRows::All), QStringLiteral("results.csv"));

        const QString visible = tmp.filePath(QStringLiteral("visible.csv"));
        const QString all = tmp.filePath(QStringLiteral("all.csv"));
        QVERIFY(w.exportCsv(visible, MainWindow::CsvRows::Visible));
        QVERIFY(w.exportCsv(all, MainWindow::CsvRows::All));
        const ks::RunResults r = fixture();
        QCOMPARE(readAll(all), QByteArray::fromStdString(ks::resultsToCsv(r, r.thresholds)));
        const QList<QByteArray> lines = readAll(visible).split('\n');
        QCOMPARE(lines.size(), 4); // header, L1-23, L2-80, trailing empty
        QVERIFY(lines[1].startsWith("L1-23,"));
        QVERIFY(lines[2].startsWith("L2-80,"));
        // The user's thresholds in force (they differ from the file's): said in the name.
        w.thresholdPanel()->setProfile(*ks::builtinProfile("strict"));
        w.thresholdPanel()->resetToProfile();
        emit w.thresholdPanel()->profileChosen();
        QCOMPARE(w.thresholdSource(), MainWindow::ThresholdSource::User);
        QCOMPARE(w.suggestedCsvName(MainWindow::CsvRows::All),
                 QStringLiteral("results-my-thresholds.csv"));
    }

    void testExportTaskJsonAndSave() {
        QTemporaryDir tmp;
        MainWindow w;
        w.show();
        QVERIFY(w.openResults(ResultsFile));
        QVERIFY(w.selectTask(QStringLiteral("L1-95")));
        const QString json = tmp.filePath(QStringLiteral("task.json"));
        QVERIFY(w.exportTaskJson(json));
        const auto doc = QJsonDocument::fromJson(readAll(json)).object();
        QCOMPARE(doc.value(QStringLiteral("id")).toString(), QStringLiteral("L1-95"));
        QCOMPARE(doc.value(QStringLiteral("flags"))
                     .toObject()
                     .value(QStringLiteral("output_std"))
                     .toBool(),
                 true);
        QCOMPARE(doc.value(QStringLiteral("metrics"))
                     .toObject()
                     .value(QStringLiteral("output_std"))
                     .toObject()
                     .value(QStringLiteral("max_std"))
                     .toDouble(),
                 8.7e-3);

        typeThreshold(w, ks::Criterion::OutputAxes, QStringLiteral("0.5"));
        const QString saved = tmp.filePath(QStringLiteral("saved.json"));
        QVERIFY(w.saveResults(saved));
        QCOMPARE(w.resultsPath(), saved);
        QVERIFY(!QFileInfo::exists(saved + QStringLiteral(".tmp"))); // atomic: no temp file left
        const auto back =
            ks::resultsFromJson(ks::readFile(saved.toStdString()), saved.toStdString());
        QCOMPARE(back.tasks.size(), size_t(16));
        QCOMPARE(back.thresholds.value(ks::Criterion::OutputAxes), 0.5);
        QCOMPARE(back.tasks[4].range.maxAbs, fixture().tasks[4].range.maxAbs);
        MainWindow again;
        QVERIFY(again.openResults(saved));
        QCOMPARE(again.model()->rowCount(), 16);
    }

    void testRunStreamsAndCancels() {
        useWorker("slow_worker.sh");
        MainWindow w;
        w.show();
        QVERIFY(w.openResults(ResultsFile));
        RunClient::Options o;
        o.taskIds = QStringList{QStringLiteral("L1-1"), QStringLiteral("L1-12")};
        QSignalSpy tasks(w.runClient(), &RunClient::taskFinished);
        QSignalSpy finished(w.runClient(), &RunClient::finished);
        w.startRun(o);
        QVERIFY(w.isRunning());
        QVERIFY(w.progressBar()->isVisible());
        auto* cancel = w.findChild<QToolButton*>(QStringLiteral("cancelRun"));
        QVERIFY(cancel->isVisible());
        QTRY_COMPARE_WITH_TIMEOUT(tasks.count(), 1, 5000);
        QTRY_VERIFY(w.runLabel()->text().contains(QStringLiteral("L1-12")));
        QCOMPARE(w.progressBar()->value(), 1);
        QCOMPARE(w.model()->rowCount(), 16); // the streamed L1-1 replaced its row
        QVERIFY(w.isWindowModified());

        QElapsedTimer timer;
        timer.start();
        QTest::mouseClick(cancel, Qt::LeftButton);
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 3000);
        QVERIFY2(timer.elapsed() < 1000, qPrintable(QString::number(timer.elapsed())));
        QCOMPARE(finished.first().at(0).toBool(), true);
        QVERIFY(!w.isRunning());
        QVERIFY(!w.progressBar()->isVisible());
        QVERIFY(w.runLabel()->text().contains(QStringLiteral("cancelled")));
        QVERIFY(w.model()->task(w.model()->rowOf(QStringLiteral("L1-1")))->range.run);
        QVERIFY(!w.messageBar()->isVisible());
    }

    void testWholeSuiteRun() {
        MainWindow w;
        w.show();
        QSignalSpy finished(w.runClient(), &RunClient::finished);
        w.startRun({});
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 10000);
        QCOMPARE(finished.first().at(0).toBool(), false);
        // The streamed tasks are in the matrix (replacing the suite's not-run rows where ids
        // match).
        for (const char* id : {"L1-1", "L1-12", "L1-23", "L2-13"}) {
            const auto* t = w.model()->task(w.model()->rowOf(QString::fromLatin1(id)));
            QVERIFY2(t && t->status == ks::TaskStatus::Ok, id);
        }
        QCOMPARE(w.runInfoModel()->value(QStringLiteral("Device")),
                 QStringLiteral("cuda (NVIDIA H200)"));
        QVERIFY(w.runLabel()->text().contains(QStringLiteral("finished")));
        // Unsaved runs are kept for the next start.
        const QString autosave = QSettings().value(QStringLiteral("files/lastResults")).toString();
        QVERIFY(autosave.endsWith(QStringLiteral("last-run.json")));
        QTRY_VERIFY(QFileInfo::exists(autosave)); // written by a worker thread
        QVERIFY(w.isWindowModified());
        w.setWindowModified(false); // so that destroying the window asks nothing
    }

    void testCrashingWorkerLeavesWindowAlive() {
        useWorker("crash_worker.sh");
        MainWindow w;
        w.show();
        QVERIFY(w.openResults(ResultsFile));
        QSignalSpy failed(w.runClient(), &RunClient::failed);
        RunClient::Options o;
        o.taskIds =
            QStringList{QStringLiteral("L1-1"), QStringLiteral("L1-12"), QStringLiteral("L1-23")};
        w.startRun(o);
        QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 1, 5000);
        QVERIFY(w.isVisible());
        QVERIFY(!w.isRunning());
        QVERIFY(w.messageBar()->isVisible());
        QCOMPARE(w.messageBar()->kind(), MessageBar::Kind::Error);
        QVERIFY2(w.messageBar()->text().contains(QStringLiteral("crashed")),
                 qPrintable(w.messageBar()->text()));
        QVERIFY(w.messageBar()->text().contains(QStringLiteral("SIGSEGV")));
        QVERIFY(w.messageBar()->text().contains(QStringLiteral("L1-23")));
        QVERIFY(w.runLabel()->text().contains(QStringLiteral("failed after 2")));
        QCOMPARE(w.model()->rowCount(), 16); // finished results kept, nothing lost
        // The window still works: thresholds, selection, another run.
        typeThreshold(w, ks::Criterion::OutputRange, QStringLiteral("3"));
        QCOMPARE(w.model()->flaggedCount(ks::Criterion::OutputRange), 7);
        QVERIFY(w.selectTask(QStringLiteral("L1-12")));
        useWorker("ok_worker.sh");
        QSignalSpy finished(w.runClient(), &RunClient::finished);
        w.startRun(o);
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 10000);
        w.setWindowModified(false);
    }

    void testNoGpuNotice() {
        MainWindow w;
        w.show();
        w.startup(ResultsFile);
        QTRY_COMPARE(w.workerDevice(), QStringLiteral("cpu"));
        QVERIFY(w.deviceLabel()->text().contains(QStringLiteral("No GPU")));
        QVERIFY(w.deviceLabel()->text().contains(QStringLiteral("small preset")));

        qputenv("KS_FAKE_DEVICE", "cuda");
        MainWindow gpu;
        gpu.startup(ResultsFile);
        QTRY_COMPARE(gpu.workerDevice(), QStringLiteral("cuda"));
        QVERIFY(gpu.deviceLabel()->text().startsWith(QStringLiteral("GPU:")));

        qputenv("KS_WORKER", "/nonexistent/kernelsieve-cli");
        MainWindow none;
        none.startup(ResultsFile);
        QTRY_VERIFY(none.deviceLabel()->text().contains(QStringLiteral("unavailable")));
    }

    void testKernelsFlawMarkFollowsThresholds() {
        MainWindow w;
        w.show();
        QVERIFY(w.openResults(ResultsFile));
        QVERIFY(w.openBench(BenchFile));
        w.showView(MainWindow::View::Kernels);
        QVERIFY(w.selectTask(QStringLiteral("L1-12")));
        SpeedupChart* chart = w.kernelsView()->speedupChart();
        QVERIFY(chart->hasData());
        QCOMPARE(chart->bars().size(), size_t(4));
        // The seed's Table 1: the diagonal matmul's baseline is inefficient (a 51x equal rewrite),
        // so its kernels' speedups sit on a flawed task.
        QVERIFY(chart->flawMarkShown());
        QVERIFY2(chart->warning().contains(QStringLiteral("Baseline Inefficiency")), qPrintable(chart->warning()));
        typeThreshold(w, ks::Threshold::BaselineRewriteSpeedup, QStringLiteral("100"));
        QVERIFY(!chart->flawMarkShown());
        QVERIFY(chart->warning().isEmpty());
        typeThreshold(w, ks::Criterion::OutputRange,
                      QStringLiteral("100")); // 24.8 < 100: now "flawed"
        QVERIFY(chart->flawMarkShown());
        QVERIFY(chart->warning().contains(QStringLiteral("flawed task")));
        w.thresholdPanel()->resetToProfile();
        QVERIFY(chart->flawMarkShown()); // the profile flags its baseline again
        QVERIFY(w.selectTask(QStringLiteral("L2-13r"))); // the repaired task: clean
        QVERIFY(!chart->flawMarkShown());
        QVERIFY(w.selectTask(QStringLiteral("L1-1"))); // no kernels: says so
        QVERIFY(!chart->hasData());
        QVERIFY(chart->message().contains(QStringLiteral("No kernels for L1-1")));
    }

    // External kernels (bench-external.json) in the Kernels view: a task without built-in
    // variants, cheats drawn so that they cannot pass for a win, the flawed-task warning on L2-13.
    void testKernelsExternal() {
        using Kind = ResultsUtil::SpeedupBar::Kind;
        MainWindow w;
        w.show();
        QVERIFY(w.openResults(ResultsFile));
        QVERIFY(w.openBench(ExternalBenchFile));
        w.showView(MainWindow::View::Kernels);
        KernelsView* view = w.kernelsView();
        QVERIFY2(view->infoLabel()->text().contains(
                     QStringLiteral("external kernels: 7 (4 valid, 2 cheat, 1 compile error)")),
                 qPrintable(view->infoLabel()->text()));

        QVERIFY(w.selectTask(QStringLiteral("L1-19"))); // ReLU: no op, no built-in kernels
        SpeedupChart* chart = view->speedupChart();
        QVERIFY(chart->hasData());
        QCOMPARE(chart->bars().size(), size_t(6));
        QCOMPARE(chart->bars()[2].kind, Kind::Cheat);
        QVERIFY(!chart->flawMarkShown()); // L1-19 is clean
        const QStringList labels = chart->valueLabels();
        QCOMPARE(labels.size(), 6);
        QVERIFY2(labels[2].contains(QStringLiteral("\u2717 cheat\nstale-memory")),
                 qPrintable(labels[2]));
        QVERIFY2(labels[3].contains(QStringLiteral("\u2717 cheat\nprecision")),
                 qPrintable(labels[3]));
        QVERIFY2(labels[4].endsWith(QStringLiteral("\nlibrary")), qPrintable(labels[4]));
        QCOMPARE(labels[5], QStringLiteral("compile error")); // named where its bar would be
        QVERIFY(!labels[1].contains(QStringLiteral("\u2717")));
        // The cheats share one style: greyed, cross-hatched, under their own legend entry.
        QCPBars* cheats = nullptr;
        for (int i = 0; i < chart->plottableCount(); ++i)
            if (auto* b = qobject_cast<QCPBars*>(chart->plottable(i)))
                if (b->name().startsWith(QStringLiteral("cheat"))) cheats = b;
        QVERIFY(cheats);
        QCOMPARE(cheats->brush().style(), Qt::DiagCrossPattern);
        QCOMPARE(cheats->data()->size(), 2);

        // The table: verdicts, and the timing plot on the last kernel that was timed.
        QCOMPARE(view->variantsModel()->rowCount(), 6);
        QVERIFY(!view->variantsTable()->isColumnHidden(VariantsModel::ExpectColumn));
        QVERIFY(!view->variantsTable()->isColumnHidden(VariantsModel::PrecisionColumn));
        QCOMPARE(view->variantsModel()->index(5, VariantsModel::VerdictColumn).data().toString(),
                 QStringLiteral("compile error"));
        QCOMPARE(view->variantBox()->currentData().toInt(), 3); // library_relu, not compile_error
        QVERIFY(view->timingChart()->hasData());
        QVERIFY(view->variantBox()->itemText(2).endsWith(QStringLiteral("\u2014 cheat")));
        view->variantBox()->setCurrentIndex(5);
        QVERIFY(!view->timingChart()->hasData());
        QVERIFY2(view->timingChart()->message().contains(QStringLiteral("compile error")),
                 qPrintable(view->timingChart()->message()));

        // L2-13: the constant kernel is valid, and the task it sits on is flagged.
        QVERIFY(w.selectTask(QStringLiteral("L2-13")));
        QCOMPARE(chart->bars().size(), size_t(3));
        QCOMPARE(chart->bars()[2].kind, Kind::Passed);
        QVERIFY(chart->flawMarkShown());
        QVERIFY2(chart->warning().contains(QStringLiteral("flawed task: L2-13")),
                 qPrintable(chart->warning()));

        // Every task: the flawed L2-13 group is tinted and named.
        view->setScope(KernelsView::Scope::AllTasks);
        QCOMPARE(chart->bars().size(), size_t(9));
        QVERIFY(chart->flawMarkShown());
        QVERIFY(chart->warning().contains(QStringLiteral("L2-13")));
        QVERIFY(chart->valueLabels()[2].contains(QStringLiteral("\u2717 cheat")));
        view->setScope(KernelsView::Scope::SelectedTask);

        // A bench task named by its KernelBench name (a robust-kbench folder): found for the
        // selected task, and its flags still show.
        ks::BenchRun named = view->bench() ? *view->bench() : ks::BenchRun{};
        named.tasks.resize(1);
        named.tasks[0].taskId = "23_Softmax";
        named.tasks[0].taskName = "23_Softmax";
        view->setBench(named);
        QVERIFY(w.selectTask(QStringLiteral("L1-23")));
        QVERIFY(chart->hasData());
        QCOMPARE(chart->bars().size(), size_t(6));
        QVERIFY(chart->flawMarkShown());
        QVERIFY(chart->warning().contains(QStringLiteral("Output Std")));

        // Built-in variants only: no manifest, no precision ratio, so no empty columns for them.
        QVERIFY(w.openBench(BenchFile));
        QVERIFY(view->variantsTable()->isColumnHidden(VariantsModel::ExpectColumn));
        QVERIFY(view->variantsTable()->isColumnHidden(VariantsModel::PrecisionColumn));
        QVERIFY(!view->variantsTable()->isColumnHidden(VariantsModel::VerdictColumn));
        QCOMPARE(view->variantsModel()->index(4, VariantsModel::VerdictColumn).data().toString(),
                 QStringLiteral("invalid")); // v4 skip_max
    }

    void testProfileBoxNamesTheProfileInUse() {
        // Built-in profiles are listed alphabetically; fusion-headroom sorts before the default.
        ThresholdPanel panel;
        const auto* box = panel.findChild<QComboBox*>(QStringLiteral("profile"));
        QVERIFY(box);
        QVERIFY(box->findText(QStringLiteral("fusion-headroom")) >= 0);
        QCOMPARE(box->currentText(), QString::fromStdString(ks::Thresholds::defaults().profile));
        QCOMPARE(panel.thresholds().value(ks::Threshold::BaselinePasses), 0.0);
    }

    void testAnalysisThresholdsAndDetailTabs() {
        MainWindow w;
        w.show();
        QVERIFY(w.openResults(ResultsFile));
        FilterMatrixModel* m = w.model();
        QLabel* count =
            w.thresholdPanel()->findChild<QLabel*>(QStringLiteral("baseline_inefficiency_count"));
        QVERIFY(count);
        // Zeros pass: its two tolerances are spin boxes too; the seed's bar leaves the 4 constants.
        QLabel* zeros = w.thresholdPanel()->findChild<QLabel*>(QStringLiteral("zeros_pass_count"));
        QVERIFY(zeros);
        QCOMPARE(zeros->text(), QStringLiteral("(6)"));
        typeThreshold(w, ks::Threshold::ZerosPassAtol, QStringLiteral("1e-5"));
        typeThreshold(w, ks::Threshold::ZerosPassRtol, QStringLiteral("1e-4"));
        QCOMPARE(zeros->text(), QStringLiteral("(4)"));
        QCOMPARE(m->thresholds().value(ks::Threshold::ZerosPassRtol), 1e-4);
        w.thresholdPanel()->resetToProfile();
        QCOMPARE(zeros->text(), QStringLiteral("(6)"));
        QCOMPARE(count->text(), QStringLiteral("(4)"));
        QCOMPARE(w.thresholdPanel()->findChild<QLabel*>(QStringLiteral("redundant_computation_count"))->text(),
                 QStringLiteral("(4)"));
        // Each of filter 5's three bounds is its own spin box and re-flags at once.
        QSignalSpy reset(m, &QAbstractItemModel::modelReset);
        QCOMPARE(
            m->cellState(m->rowOf(QStringLiteral("L1-36")), ks::Criterion::BaselineInefficiency),
            FilterMatrixModel::CellState::Passed); // passes are information by default
        typeThreshold(w, ks::Threshold::BaselinePasses, QStringLiteral("2"));
        QCOMPARE(
            m->cellState(m->rowOf(QStringLiteral("L1-36")), ks::Criterion::BaselineInefficiency),
            FilterMatrixModel::CellState::Flagged);
        typeThreshold(w, ks::Threshold::BaselinePasses, QStringLiteral("3"));
        QCOMPARE(m->cellState(m->rowOf(QStringLiteral("L1-36")), ks::Criterion::BaselineInefficiency),
                 FilterMatrixModel::CellState::Passed);
        typeThreshold(w, ks::Threshold::BaselineEfficiency, QStringLiteral("0.001"));
        QCOMPARE(m->flaggedCount(ks::Criterion::BaselineInefficiency), 1); // L1-12, by its rewrite
        QCOMPARE(count->text(), QStringLiteral("(1)"));
        typeThreshold(w, ks::Threshold::BaselineRewriteSpeedup, QStringLiteral("60"));
        QCOMPARE(m->flaggedCount(ks::Criterion::BaselineInefficiency), 0);
        // Severity: the four redundant tasks hold constant outputs (major), which flag at any
        // FLOP share; the bound only moves minor findings.
        typeThreshold(w, ks::Threshold::RedundantFlopFraction, QStringLiteral("0.997"));
        QCOMPARE(m->flaggedCount(ks::Criterion::RedundantComputation), 4);
        QCOMPARE(reset.count(), 0);
        QVERIFY(w.thresholdPanel()->isModified());
        const ks::Thresholds th = w.thresholdPanel()->thresholds();
        QCOMPARE(th.value(ks::Threshold::BaselinePasses), 3.0);
        QCOMPARE(th.value(ks::Threshold::RedundantFlopFraction), 0.997);
        w.thresholdPanel()->resetToProfile();
        QCOMPARE(m->flaggedCount(ks::Criterion::BaselineInefficiency), 4);

        // The detail view lists the rewrites, roofline numbers and redundant nodes of the task.
        QVERIFY(w.selectTask(QStringLiteral("L1-12")));
        QCOMPARE(w.detailView()->rewritesModel()->rowCount(), 1);
        QCOMPARE(w.detailView()->rooflineModel()->value(QStringLiteral("Best rewrite")),
                 QStringLiteral("51.1x diag-matmul"));
        QVERIFY(w.detailView()->headerLabel()->text().contains(QStringLiteral("Baseline Inefficiency")));
        QVERIFY(w.selectTask(QStringLiteral("L2-13")));
        QCOMPARE(w.detailView()->redundancyModel()->rowCount(), 6);
        QVERIFY(w.detailView()->redundancySummary()->text().startsWith(QStringLiteral("99.6%")));
        // Thresholds move the flag marks of the detail tables too.
        QVERIFY(w.selectTask(QStringLiteral("L1-36")));
        QCOMPARE(w.detailView()->rooflineModel()->value(QStringLiteral("Verdict")),
                 QStringLiteral("passed"));
        typeThreshold(w, ks::Threshold::BaselinePasses, QStringLiteral("2"));
        QVERIFY(w.detailView()->rooflineModel()->value(QStringLiteral("Verdict")).startsWith(QStringLiteral("flagged")));
        typeThreshold(w, ks::Threshold::BaselinePasses, QStringLiteral("3"));
        QCOMPARE(w.detailView()->rooflineModel()->value(QStringLiteral("Verdict")), QStringLiteral("passed"));
        w.thresholdPanel()->resetToProfile();
    }

    void testSettingsPersist() {
        {
            MainWindow w;
            w.show();
            QVERIFY(w.openResults(ResultsFile));
            // Edits to the file's thresholds stay with the file; the user's own are what persist.
            w.useUserThresholds();
            QCOMPARE(w.thresholdSource(), MainWindow::ThresholdSource::User);
            typeThreshold(w, ks::Criterion::InputImpact, QStringLiteral("0.05"));
            typeThreshold(w, ks::Threshold::BaselinePasses, QStringLiteral("4"));
            typeThreshold(w, ks::Threshold::ZerosPassAtol, QStringLiteral("1e-5"));
            QDoubleSpinBox* margin = w.thresholdPanel()->marginSpinBox();
            margin->selectAll();
            QTest::keyClicks(margin, QStringLiteral("0.25"));
            QTest::keyClick(margin, Qt::Key_Return);
            QCOMPARE(w.model()->thresholds().borderlineMargin, 0.25);
            w.detailView()->logCountBox()->setChecked(true);
            w.showView(MainWindow::View::Summary);
            QVERIFY(w.close());
        }
        MainWindow again;
        QCOMPARE(again.thresholdPanel()->thresholds().value(ks::Criterion::InputImpact), 0.05);
        QCOMPARE(again.thresholdPanel()->thresholds().value(ks::Threshold::BaselinePasses), 4.0);
        QCOMPARE(again.thresholdPanel()->thresholds().value(ks::Threshold::ZerosPassAtol), 1e-5);
        QCOMPARE(again.thresholdPanel()->thresholds().borderlineMargin, 0.25);
        QVERIFY(again.thresholdPanel()->isModified());
        QVERIFY(again.detailView()->logCountBox()->isChecked());
        QCOMPARE(again.tabs()->currentIndex(), 2);
        QVERIFY(again.recentFiles().first().endsWith(QStringLiteral("results.json")));
        // The next start opens the last results, with the file's thresholds (issue 14: the saved
        // ones silently overrode the file's); the user's are one click away.
        again.startup();
        QCOMPARE(again.resultsPath(), ResultsFile);
        QCOMPARE(again.model()->rowCount(), 16);
        QCOMPARE(again.thresholdSource(), MainWindow::ThresholdSource::File);
        QCOMPARE(again.model()->thresholds().value(ks::Criterion::InputImpact), 0.01);
        QVERIFY(
            again.messageBar()->text().contains(QStringLiteral("input_impact 0.01 (yours 0.05)")));
        again.useUserThresholds();
        QCOMPARE(again.model()->thresholds().value(ks::Criterion::InputImpact), 0.05);
        QCOMPARE(again.model()->thresholds().borderlineMargin, 0.25);
    }

    // Issue 14, point 3: the file's thresholds win on open, the window title and the CSV say
    // which are in force, the user's are one click away and edits to the file's never leak into
    // the user's settings.
    void testFileThresholdsWinOnOpen() {
        QTemporaryDir tmp;
        ks::RunResults r = fixture();
        r.thresholds.profile = "from-the-file";
        r.thresholds.set(ks::Criterion::OutputRange, 2.0); // flags L2-13r (1.21) and more
        const QString path = tmp.filePath(QStringLiteral("h200.json"));
        ks::writeFileAtomic(path.toStdString(), ks::resultsToJson(r));
        {
            MainWindow w; // the user's thresholds: strict, from the profile combo
            const auto strict = ks::builtinProfile("strict");
            QVERIFY(strict);
            w.thresholdPanel()->setProfile(*strict);
            w.thresholdPanel()->resetToProfile();
            w.saveSettings();
        }
        MainWindow w;
        w.show();
        const auto strict = *ks::builtinProfile("strict");
        QCOMPARE(w.thresholdSource(), MainWindow::ThresholdSource::User);
        QCOMPARE(w.model()->thresholds().value(ks::Criterion::OutputStd),
                 strict.value(ks::Criterion::OutputStd));

        QVERIFY(w.openResults(path));
        QCOMPARE(w.thresholdSource(), MainWindow::ThresholdSource::File);
        QCOMPARE(w.model()->thresholds().value(ks::Criterion::OutputRange), 2.0);
        QCOMPARE(w.model()->thresholds().value(ks::Criterion::OutputStd), 0.01);
        QCOMPARE(w.model()->flaggedCount(ks::Criterion::OutputRange), 6); // as the file counts them
        QVERIFY2(w.windowTitle().contains(QStringLiteral("file's thresholds (from-the-file)")),
                 qPrintable(w.windowTitle()));
        // Told, with the user's one click away.
        QVERIFY(w.messageBar()->isVisible());
        QVERIFY2(w.messageBar()->text().contains(QStringLiteral("output_range 2 (yours")),
                 qPrintable(w.messageBar()->text()));
        QCOMPARE(w.messageBar()->actionButtons().size(), 1);
        QToolButton* mine = w.messageBar()->actionButtons().first();
        QCOMPARE(mine->defaultAction()->objectName(), QStringLiteral("useUserThresholds"));
        // The CSV carries the thresholds in force on every row.
        const QString fileCsv = tmp.filePath(QStringLiteral("file.csv"));
        QVERIFY(w.exportCsv(fileCsv));
        QCOMPARE(readAll(fileCsv), QByteArray::fromStdString(ks::resultsToCsv(r, r.thresholds)));

        // An edit is the file's thresholds, edited; Reset returns to the file's values.
        typeThreshold(w, ks::Criterion::OutputRange, QStringLiteral("3"));
        QVERIFY(
            w.windowTitle().contains(QStringLiteral("file's thresholds (from-the-file), edited")));
        w.thresholdPanel()->resetToProfile();
        QCOMPARE(w.model()->thresholds().value(ks::Criterion::OutputRange), 2.0);

        QTest::mouseClick(mine, Qt::LeftButton);
        QCOMPARE(w.thresholdSource(), MainWindow::ThresholdSource::User);
        QCOMPARE(w.model()->thresholds().value(ks::Criterion::OutputRange),
                 strict.value(ks::Criterion::OutputRange));
        QVERIFY2(w.windowTitle().contains(QStringLiteral("my thresholds (strict)")),
                 qPrintable(w.windowTitle()));
        QVERIFY(!w.messageBar()->isVisible());
        const QString userCsv = tmp.filePath(QStringLiteral("user.csv"));
        QVERIFY(w.exportCsv(userCsv));
        QCOMPARE(readAll(userCsv), QByteArray::fromStdString(ks::resultsToCsv(r, strict)));

        w.useFileThresholds();
        QCOMPARE(w.model()->thresholds().value(ks::Criterion::OutputRange), 2.0);
        typeThreshold(w, ks::Criterion::OutputStd, QStringLiteral("0.5")); // the file's, edited
        w.saveSettings();
        {
            MainWindow next; // nothing of the file leaked into the user's settings
            QCOMPARE(next.model()->thresholds().value(ks::Criterion::OutputRange),
                     strict.value(ks::Criterion::OutputRange));
            QCOMPARE(next.model()->thresholds().value(ks::Criterion::OutputStd),
                     strict.value(ks::Criterion::OutputStd));
        }
        // Choosing a profile is the user's choice: their thresholds from then on.
        QComboBox* box = w.thresholdPanel()->profileBox();
        const int robust = box->findText(QStringLiteral("robust-kbench"));
        QVERIFY(robust >= 0);
        box->setCurrentIndex(robust);
        emit box->activated(robust);
        QCOMPARE(w.thresholdSource(), MainWindow::ThresholdSource::User);
        QCOMPARE(w.userThresholds().value(ks::Criterion::OutputRange), 0.01);
        // Opening a file the user's thresholds agree with says nothing.
        QVERIFY(w.openResults(ResultsFile));
        QVERIFY(!w.messageBar()->isVisible());
        QVERIFY(w.windowTitle().contains(QStringLiteral("file's thresholds (robust-kbench)")));
    }

    // Issue 14, point 1: a re-run never mixes runs in one file.
    void testRerunRefusesToMixRuns() {
        useWorker("cpu_worker.sh"); // no GPU: the run says cpu / small
        MainWindow w;
        w.show();
        QVERIFY(w.openResults(ResultsFile));
        const ks::RunResults before = fixture();
        const QByteArray onDisk = readAll(ResultsFile);
        RunClient::Options o;
        o.taskIds = QStringList{QStringLiteral("L1-1"), QStringLiteral("L1-12")};
        QSignalSpy tasks(w.runClient(), &RunClient::taskFinished);
        w.startRun(o); // "auto" device and preset: only the worker's start event tells
        QTRY_VERIFY_WITH_TIMEOUT(!w.isRunning(), 5000);
        QCOMPARE(w.messageBar()->kind(), MessageBar::Kind::Error);
        QVERIFY2(w.messageBar()->text().contains(QStringLiteral("Not merged into results.json")),
                 qPrintable(w.messageBar()->text()));
        QVERIFY(w.messageBar()->text().contains(
            QStringLiteral("device cuda NVIDIA H200 (this run: cpu x86_64")));
        QVERIFY(w.messageBar()->text().contains(QStringLiteral("preset full (this run: small)")));
        QVERIFY(w.runLabel()->text().contains(QStringLiteral("refused")));
        // Not one row of the file changed; it still says what measured it.
        QCOMPARE(w.model()->rowCount(), 16);
        for (const auto& t : before.tasks) {
            const auto* now = w.model()->task(w.model()->rowOf(QString::fromStdString(t.id)));
            QVERIFY(now);
            QCOMPARE(now->outputShape, t.outputShape);
            QCOMPARE(now->range.maxAbs, t.range.maxAbs);
        }
        QCOMPARE(w.model()->results().run.device, std::string("cuda"));
        QCOMPARE(w.model()->results().run.preset, std::string("full"));
        QVERIFY(!w.isWindowModified());
        QCOMPARE(w.resultsPath(), ResultsFile);

        // Known before the worker starts: refused at once, nothing started.
        useWorker("ok_worker.sh");
        RunClient::Options more = o;
        more.seeds = 20;
        w.startRun(more);
        QVERIFY(!w.isRunning());
        QVERIFY(w.messageBar()->text().contains(QStringLiteral("seeds 5 (this run: 20)")));
        QCOMPARE(w.messageBar()->actionButtons().size(), 1);

        // The way out: the same run as separate results; the file stays as it was on disk.
        useWorker("cpu_worker.sh");
        QSignalSpy finished(w.runClient(), &RunClient::finished);
        QTest::mouseClick(w.messageBar()->actionButtons().first(), Qt::LeftButton);
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 10000);
        QVERIFY(w.resultsPath().isEmpty());
        QCOMPARE(w.model()->results().run.device, std::string("cpu"));
        QCOMPARE(w.model()->results().run.seeds, 5);
        QVERIFY(w.model()->rowOf(QStringLiteral("L1-1")) >= 0);
        QVERIFY(w.model()->rowOf(QStringLiteral("L3-11")) < 0); // only the run's tasks
        QVERIFY(w.windowTitle().contains(QStringLiteral("unsaved results")));
        QCOMPARE(readAll(ResultsFile), onDisk); // the file was never written
        // ... and the new run is compared with it in the compare view.
        QVERIFY(w.compareModel()->isActive());
        QCOMPARE(w.compareModel()->nameB(), QStringLiteral("results.json"));
        QVERIFY2(w.compareView()->summaryText().contains(QStringLiteral("preset small | full")),
                 qPrintable(w.compareView()->summaryText()));
        w.setWindowModified(false);
    }

    // Issue 14, point 2: a second results file beside the open one, the tasks whose flags differ.
    void testCompareView() {
        QTemporaryDir tmp;
        ks::RunResults b = fixture();
        b.run.seeds = 100;
        for (auto& t : b.tasks)
            if (t.id == "L2-13r") t.range.maxAbs = 0.005; // range and zeros pass flag in B
        const QString bPath = tmp.filePath(QStringLiteral("h200-100seeds.json"));
        ks::writeFileAtomic(bPath.toStdString(), ks::resultsToJson(b));

        MainWindow w;
        w.show();
        QVERIFY(w.openResults(ResultsFile));
        CompareView* view = w.compareView();
        QVERIFY(!w.compareModel()->isActive());
        QVERIFY(w.compareWith(bPath));
        QCOMPARE(w.tabs()->currentWidget(), view);
        QVERIFY(w.compareModel()->isActive());
        QCOMPARE(view->tableView()->model()->rowCount(), 1); // differing only
        QCOMPARE(view->tableView()->model()->index(0, CompareModel::IdColumn).data().toString(),
                 QStringLiteral("L2-13r"));
        QVERIFY2(view->summaryText().contains(QStringLiteral("seeds 5 | 100")),
                 qPrintable(view->summaryText()));
        QVERIFY(view->summaryText().contains(QStringLiteral("results.json")));
        QVERIFY(view->summaryText().contains(QStringLiteral("h200-100seeds.json")));
        // Selecting a compared task selects it in the matrix and the detail views.
        QVERIFY(view->selectTask(QStringLiteral("L2-13r")));
        QCOMPARE(w.currentTaskId(), QStringLiteral("L2-13r"));
        view->differingOnlyBox()->setChecked(false);
        QCOMPARE(view->tableView()->model()->rowCount(), 16);

        // A re-threshold in the panel re-judges A at once; B keeps its file's thresholds.
        typeThreshold(w, ks::Criterion::OutputRange, QStringLiteral("2"));
        const ks::ResultsDiff expected =
            ks::diffResults(w.model()->results(), w.model()->thresholds(), b, b.thresholds);
        QCOMPARE(w.compareModel()->diff().differingTasks, expected.differingTasks);
        QCOMPARE(w.compareModel()->diff().differing, expected.differing);
        QCOMPARE(w.compareModel()->thresholdsA().value(ks::Criterion::OutputRange), 2.0);
        QCOMPARE(w.compareModel()->thresholdsB().value(ks::Criterion::OutputRange), 0.01);
        // B judged by A's thresholds: the same data under one profile.
        QComboBox* judge = view->thresholdsBox();
        judge->setCurrentIndex(judge->findData(QStringLiteral("a")));
        QCOMPARE(w.compareModel()->thresholdsB().value(ks::Criterion::OutputRange), 2.0);
        const ks::ResultsDiff same = ks::diffResults(w.model()->results(), w.model()->thresholds(),
                                                     b, w.model()->thresholds());
        QCOMPARE(w.compareModel()->diff().differingTasks, same.differingTasks);
        w.thresholdPanel()->resetToProfile();

        // A file that is not results: said, and the comparison stays.
        QVERIFY(!w.compareWith(BenchFile));
        QVERIFY(w.messageBar()->text().contains(QStringLiteral("Cannot compare")));
        QVERIFY(w.compareModel()->isActive());
        w.closeComparison();
        QVERIFY(!w.compareModel()->isActive());
        QCOMPARE(view->tableView()->model()->rowCount(), 0);
    }

    // Issue 14, point 4: a task's context menu (copy id, copy name, its source at the flagged line,
    // re-run it), and a rewrite or redundant node selected shows its source line.
    void testTaskContextMenuAndSourceLines() {
        MainWindow w;
        w.show();
        QVERIFY(w.openResults(ResultsFile));
        std::unique_ptr<QMenu> menu(w.taskContextMenu(QStringLiteral("L2-13")));
        QCOMPARE(w.currentTaskId(), QStringLiteral("L2-13")); // the menu acts on the task it names
        auto action = [&](const char* name) {
            return menu->findChild<QAction*>(QString::fromLatin1(name));
        };
        QVERIFY(action("copyTaskId") && action("copyTaskName") && action("showTaskSource") &&
                action("rerunTask"));
        action("copyTaskId")->trigger();
        QCOMPARE(QGuiApplication::clipboard()->text(), QStringLiteral("L2-13"));
        action("copyTaskName")->trigger();
        QCOMPARE(QGuiApplication::clipboard()->text(),
                 QStringLiteral("13_ConvTranspose3d_Mean_Add_Softmax_Tanh_Scaling"));
        // Flagged by filter 6: its first redundant node, the constant softmax on line 5.
        QVERIFY2(action("showTaskSource")->text().contains(QStringLiteral("(5)")),
                 qPrintable(action("showTaskSource")->text()));
        action("showTaskSource")->trigger();
        QCOMPARE(w.tabs()->currentWidget(), w.detailView());
        QCOMPARE(w.detailView()->pages()->currentWidget(), w.detailView()->graphPage());
        QCOMPARE(w.detailView()->highlightedLine(), 5);
        QPlainTextEdit* source = w.detailView()->graphSourceEdit();
        QCOMPARE(source->textCursor().blockNumber(), 4);
        QVERIFY(source->textCursor().block().text().contains(QStringLiteral("torch.softmax")));
        QCOMPARE(source->extraSelections().size(), 1);
        // Selecting a redundant node shows its line: the transposed conv that only feeds it.
        QTableView* nodes = w.detailView()->redundancyTable();
        nodes->setCurrentIndex(nodes->model()->index(1, RedundancyModel::LineColumn));
        QCOMPARE(w.detailView()->highlightedLine(), 2);
        QVERIFY(source->textCursor().block().text().contains(QStringLiteral("conv_transpose3d")));

        // The diagonal matmul: flagged by its rewrite, on line 2; selecting the rewrite shows it.
        menu.reset(w.taskContextMenu(QStringLiteral("L1-12")));
        QVERIFY(action("showTaskSource")->text().contains(QStringLiteral("(2)")));
        QVERIFY(w.showTaskSource(QStringLiteral("L1-12")));
        QCOMPARE(w.detailView()->highlightedLine(), 2);
        QVERIFY(source->textCursor().block().text().contains(QStringLiteral("torch.diag")));
        QVERIFY(w.detailView()->showSourceLine(1));
        QCOMPARE(w.detailView()->highlightedLine(), 1);
        QVERIFY(!w.detailView()->showSourceLine(99)); // no such line: nothing moves
        QCOMPARE(w.detailView()->highlightedLine(), 1);
        QTableView* rewrites = w.detailView()->rewritesTable();
        rewrites->setCurrentIndex(rewrites->model()->index(0, RewritesModel::RuleColumn));
        QCOMPARE(w.detailView()->highlightedLine(), 2);

        // Re-run this task: the run dialog with exactly it, into the file (same run settings).
        bool checked = false;
        QTimer::singleShot(0, [&checked] {
            auto* dialog = qobject_cast<RunDialog*>(QApplication::activeModalWidget());
            QVERIFY(dialog);
            QCOMPARE(dialog->options().taskIds, QStringList{QStringLiteral("L1-12")});
            QCOMPARE(dialog->options().seeds, 5);                       // the file's
            QCOMPARE(dialog->options().preset, QStringLiteral("full")); // the file's
            checked = true;
            dialog->reject();
        });
        action("rerunTask")->trigger();
        QVERIFY(checked);
        QVERIFY(!w.isRunning());
    }

    // A suite opened but not run has no run of its own: a run of selected tasks fills it and
    // gives it the run's device and preset (the saved file said nothing about them before).
    void testRunIntoUnmeasuredSuiteAdoptsTheRun() {
        MainWindow w;
        w.show();
        QVERIFY(w.openSuite(QStringLiteral("builtin")));
        if (w.model()->rowOf(QStringLiteral("L1-12")) < 0)
            QSKIP("this build embeds no built-in tasks");
        RunClient::Options o;
        o.taskIds = QStringList{QStringLiteral("L1-12")};
        QSignalSpy finished(w.runClient(), &RunClient::finished);
        w.startRun(o);
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 10000);
        QCOMPARE(w.model()->results().run.device, std::string("cuda"));
        QCOMPARE(w.model()->results().run.preset, std::string("full"));
        QVERIFY(w.model()->task(w.model()->rowOf(QStringLiteral("L1-12")))->range.run);
        w.setWindowModified(false);
    }

    // The run dialog takes suite, preset, seeds and device from the open file and says when the
    // device differs; merging is offered only when nothing differs.
    void testRunDialogFollowsTheOpenFile() {
        const ks::RunInfo h200 = fixture().run;
        RunClient::Options last; // what the settings remember: another suite, seeds and preset
        last.suite = QStringLiteral("/somewhere/else");
        last.seeds = 12;
        last.preset = QStringLiteral("small");
        last.device = QStringLiteral("cpu");
        const QStringList selected{QStringLiteral("L1-23")};
        {
            RunDialog cpu(last, selected, false);
            cpu.setOpenResults(QStringLiteral("h200.json"), h200, QStringLiteral("cpu"),
                               QStringLiteral("x86_64 (2 threads)"));
            const auto o = cpu.options();
            QCOMPARE(o.suite, QStringLiteral("builtin"));
            QCOMPARE(o.seeds, 5);
            QCOMPARE(o.preset, QStringLiteral("full"));
            QCOMPARE(o.device, QStringLiteral("cpu")); // no GPU here
            auto* note = cpu.findChild<QLabel*>(QStringLiteral("deviceNote"));
            QVERIFY(note && !note->isHidden());
            QVERIFY2(note->text().contains(
                         QStringLiteral("h200.json was measured on cuda (NVIDIA H200)")),
                     qPrintable(note->text()));
            QVERIFY(note->text().contains(QStringLiteral("no GPU")));
            cpu.setSelectedOnly(true);
            QVERIFY(cpu.separateResults());
            QVERIFY(!cpu.findChild<QRadioButton*>(QStringLiteral("mergeInto"))->isEnabled());
            QVERIFY(cpu.mergeProblem().contains(QStringLiteral("device cpu (the file: cuda)")));
        }
        RunDialog gpu(last, selected, true);
        gpu.setOpenResults(QStringLiteral("h200.json"), h200, QStringLiteral("cuda"),
                           QStringLiteral("NVIDIA H200"));
        QCOMPARE(gpu.options().device, QStringLiteral("cuda"));
        QVERIFY(gpu.findChild<QLabel*>(QStringLiteral("deviceNote"))->isHidden());
        QVERIFY(gpu.separateResults()); // the whole suite: new results
        gpu.setSelectedOnly(true);
        auto* merge = gpu.findChild<QRadioButton*>(QStringLiteral("mergeInto"));
        QVERIFY(merge->isEnabled() && merge->isChecked());
        QVERIFY(!gpu.separateResults());
        QSpinBox* seeds = gpu.findChild<QSpinBox*>();
        seeds->setValue(100); // more seeds: a new run, not rows of this one
        QVERIFY(!merge->isEnabled());
        QVERIFY(gpu.separateResults());
        QVERIFY(gpu.mergeProblem().contains(QStringLiteral("100 seeds (the file: 5)")));
        QVERIFY(gpu.findChild<QLabel*>(QStringLiteral("mergeNote"))
                    ->text()
                    .contains(QStringLiteral("Not merged")));
        seeds->setValue(5);
        QVERIFY(merge->isEnabled() && merge->isChecked());
        // Another GPU: said plainly, and not merged.
        RunDialog h100(last, selected, true);
        h100.setOpenResults(QStringLiteral("h200.json"), h200, QStringLiteral("cuda"),
                            QStringLiteral("NVIDIA H100 80GB HBM3"));
        h100.setSelectedOnly(true);
        QVERIFY(h100.findChild<QLabel*>(QStringLiteral("deviceNote"))
                    ->text()
                    .contains(QStringLiteral("NVIDIA H100")));
        QVERIFY(h100.separateResults());
    }

    void testFirstStartOffersBuiltinSuite() {
        MainWindow w;
        w.show();
        w.startup();
        const ks::Suite builtin = ks::loadBuiltinSuite();
        QCOMPARE(w.model()->rowCount(), int(builtin.tasks.size() + builtin.issues.size()));
        if (builtin.tasks.empty())
            QSKIP("this build embeds no built-in tasks; the empty state is shown instead");
        QVERIFY(w.messageBar()->isVisible());
        QVERIFY(w.messageBar()->text().contains(QStringLiteral("Run Suite")));
        QCOMPARE(w.model()->cellState(0, ks::Criterion::OutputRange),
                 FilterMatrixModel::CellState::NotRun);
        QVERIFY(!w.detailView()->sourceEdit()->toPlainText().isEmpty()); // source of a not-run task
    }

    void testRunDialogChoices() {
        RunClient::Options defaults;
        defaults.seeds = 12;
        defaults.device = QStringLiteral("cuda");
        defaults.preset = QStringLiteral("full");
        {
            RunDialog gpu(defaults, {QStringLiteral("L1-23"), QStringLiteral("L2-13")}, true);
            auto o = gpu.options();
            QCOMPARE(o.seeds, 12);
            QCOMPARE(o.device, QStringLiteral("cuda"));
            QCOMPARE(o.preset, QStringLiteral("full"));
            QVERIFY(o.taskIds.isEmpty()); // the whole suite unless asked otherwise
            gpu.setSelectedOnly(true);
            QCOMPARE(gpu.options().taskIds, (QStringList{"L1-23", "L2-13"}));
            QVERIFY(!gpu.findChild<QLabel*>(QStringLiteral("noGpuNote")));
            // GPUs and workers per GPU (filter --devices / --workers-per-gpu): one GPU, one
            // worker unless asked; only GPU lists the CLI takes; none with the CPU.
            auto* gpus = gpu.findChild<QLineEdit*>(QStringLiteral("runGpus"));
            auto* workers = gpu.findChild<QSpinBox*>(QStringLiteral("runWorkersPerGpu"));
            QVERIFY(gpus && workers);
            QVERIFY(gpu.options().gpus.isEmpty());
            QCOMPARE(gpu.options().workersPerGpu, 1);
            gpus->clear();
            QTest::keyClicks(gpus, QStringLiteral("0,x1,"));
            QCOMPARE(gpus->text(), QStringLiteral("0,1,"));
            workers->setValue(2);
            QCOMPARE(gpu.options().gpus, QStringLiteral("0,1")); // the trailing comma dropped
            QCOMPARE(gpu.options().workersPerGpu, 2);
            gpus->clear();
            QTest::keyClicks(gpus, QStringLiteral("all"));
            QCOMPARE(gpu.options().gpus, QStringLiteral("all"));
            auto* device = gpu.findChild<QComboBox*>(QStringLiteral("runDevice"));
            QVERIFY(device);
            device->setCurrentIndex(device->findData(QStringLiteral("cpu")));
            QVERIFY(!gpus->isEnabled());
            QVERIFY(gpu.options().gpus.isEmpty());
            QCOMPARE(gpu.options().workersPerGpu, 1);
        }
        // No GPU: the dialog says so and picks the CPU with the small preset.
        RunDialog cpu(defaults, {}, false);
        QVERIFY(cpu.findChild<QLabel*>(QStringLiteral("noGpuNote")));
        QCOMPARE(cpu.options().device, QStringLiteral("cpu"));
        QCOMPARE(cpu.options().preset, QStringLiteral("small"));
        QVERIFY(!cpu.findChild<QLineEdit*>(QStringLiteral("runGpus"))->isEnabled());
        cpu.setSelectedOnly(true); // nothing selected: stays "whole suite"
        QVERIFY(cpu.options().taskIds.isEmpty());
    }

    void testProfileSaveAndLoad() {
        QTemporaryDir tmp;
        MainWindow w;
        QVERIFY(w.openResults(ResultsFile));
        ThresholdPanel* panel = w.thresholdPanel();
        typeThreshold(w, ks::Criterion::OutputStd, QStringLiteral("1e-3"));
        QCOMPARE(panel->thresholds().value(ks::Criterion::OutputStd), 1e-3);
        QCOMPARE(w.model()->flaggedCount(ks::Criterion::OutputStd),
                 4); // 1.48e-3 and 8.7e-3 no longer below
        const QString path = tmp.filePath(QStringLiteral("mine.json"));
        QString error;
        QVERIFY2(panel->saveProfile(path, &error), qPrintable(error));
        const auto saved = ks::parseProfile(ks::readFile(path.toStdString()), path.toStdString());
        QCOMPARE(saved.value(ks::Criterion::OutputStd), 1e-3);
        QCOMPARE(saved.profile, std::string("mine"));

        panel->setProfile(*ks::builtinProfile("robust-kbench"));
        panel->resetToProfile();
        QCOMPARE(w.model()->flaggedCount(ks::Criterion::OutputStd), 6);
        QVERIFY2(panel->loadProfile(path, &error), qPrintable(error));
        QCOMPARE(panel->profile().profile, std::string("mine"));
        QVERIFY(!panel->isModified());
        QCOMPARE(w.model()->flaggedCount(ks::Criterion::OutputStd), 4);
        // A profile loaded from a file survives a restart, and Reset still returns to it.
        typeThreshold(w, ks::Criterion::OutputRange, QStringLiteral("0.5"));
        w.saveSettings();
        {
            MainWindow again;
            QCOMPARE(again.thresholdPanel()->profile().profile, std::string("mine"));
            QCOMPARE(again.thresholdPanel()->profilePath(), path);
            QCOMPARE(again.thresholdPanel()->thresholds().value(ks::Criterion::OutputRange), 0.5);
            again.thresholdPanel()->resetToProfile();
            QCOMPARE(again.thresholdPanel()->thresholds().value(ks::Criterion::OutputStd), 1e-3);
            QCOMPARE(again.thresholdPanel()->thresholds().value(ks::Criterion::OutputRange), 0.01);
        }
        QVERIFY(!panel->loadProfile(ResultsFile, &error)); // not a profile
        QVERIFY(error.contains(QStringLiteral("not a threshold profile")));
        // The built-in "strict" profile from the combo.
        if (const auto strict = ks::builtinProfile("strict")) {
            panel->setProfile(*strict);
            panel->resetToProfile();
            QCOMPARE(w.model()->thresholds().value(ks::Criterion::OutputRange),
                     strict->value(ks::Criterion::OutputRange));
        }
    }

    void testOpenSuiteFolder() {
        MainWindow w;
        w.show();
        // The engine tests' task folders: one loads cleanly, one is full of broken task files.
        const QString good = QStringLiteral(KS_UI_TEST_DATA "/../../data/synthetic");
        const ks::Suite suite = ks::loadSuite(good.toStdString());
        QVERIFY(w.openSuite(good));
        QCOMPARE(w.model()->rowCount(), int(suite.tasks.size() + suite.issues.size()));
        QCOMPARE(w.model()->anyFlagCount(), 0); // nothing measured yet
        QCOMPARE(w.model()->cellState(0, ks::Criterion::OutputStd),
                 FilterMatrixModel::CellState::NotRun);
        QVERIFY(w.recentFiles().first().endsWith(QStringLiteral("synthetic")));

        const QString bad = QStringLiteral(KS_UI_TEST_DATA "/../../data/bad");
        const ks::Suite badSuite = ks::loadSuite(bad.toStdString());
        QVERIFY(!badSuite.issues.empty());
        QVERIFY(w.openSuite(bad));
        QVERIFY(w.messageBar()->isVisible());
        QCOMPARE(w.messageBar()->kind(), MessageBar::Kind::Warning);
        QCOMPARE(w.model()->errorCount(),
                 int(badSuite.issues.size())); // each broken file is a failed row
        QVERIFY(!w.openSuite(QStringLiteral("/nonexistent/suite")));
        QCOMPARE(w.messageBar()->kind(), MessageBar::Kind::Error);
    }

    void testShortcuts() {
        MainWindow w;
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        // Xvfb has no window manager to activate windows; shortcuts need the active window.
        QApplication::setActiveWindow(&w);
        if (!QTest::qWaitForWindowActive(&w))
            QSKIP("the window cannot become active on this display (Xvfb without a window "
                  "manager), so shortcuts "
                  "cannot fire; the offscreen platform (ctest) runs this test");
        QVERIFY(w.openResults(ResultsFile));
        QTest::keyClick(&w, Qt::Key_3, Qt::ControlModifier);
        QCOMPARE(w.tabs()->currentIndex(), 2);
        QTest::keyClick(&w, Qt::Key_1, Qt::ControlModifier);
        QCOMPARE(w.tabs()->currentIndex(), 0);
        QTest::keyClick(&w, Qt::Key_F, Qt::ControlModifier | Qt::ShiftModifier);
        QVERIFY(w.matrixView()->flaggedOnlyBox()->isChecked());
        QTest::keyClick(&w, Qt::Key_F, Qt::ControlModifier);
        QTRY_VERIFY(w.matrixView()->searchEdit()->hasFocus());
    }

    // Issue 14, point 4: range filters typed into the matrix's Ranges panel, with flagged only.
    void testMetricRangesInTheMatrix() {
        MainWindow w;
        w.show();
        QVERIFY(w.openResults(ResultsFile));
        FilterMatrixView* view = w.matrixView();
        QAbstractItemModel* shown = view->tableView()->model();
        QCOMPARE(view->rangesButton()->text(), QStringLiteral("Ranges"));
        QLineEdit* min = view->rangeMinEdit(ks::Criterion::OutputRange);
        QLineEdit* max = view->rangeMaxEdit(ks::Criterion::OutputRange);
        QVERIFY(min && max);
        QTest::keyClicks(min, QStringLiteral("1"));
        QTest::keyClicks(max, QStringLiteral("6"));
        QCOMPARE(shown->rowCount(), 7); // 1 <= max |value| <= 6
        QCOMPARE(view->rangesButton()->text(), QStringLiteral("Ranges (1)"));
        QVERIFY(view->countsLabel()->text().contains(QStringLiteral("showing 7")));
        view->flaggedOnlyBox()->setChecked(true); // L1-95, L2-13, L2-66 of those are flagged
        QCOMPARE(shown->rowCount(), 3);
        // A bound that is not a number is ignored, and marked.
        QTest::keyClicks(view->rangeMaxEdit(ks::Criterion::OutputStd), QStringLiteral("abc"));
        QCOMPARE(shown->rowCount(), 3);
        QVERIFY(view->rangeMaxEdit(ks::Criterion::OutputStd)
                    ->styleSheet()
                    .contains(QStringLiteral("background")));
        QCOMPARE(w.proxy()->activeRangeCount(), 1);
        // The CSV export says which rows it leaves out, ranges included.
        QVERIFY(w.proxy()->filterDescription().contains(QStringLiteral("Output Range in [1, 6]")));
        QVERIFY(w.suggestedCsvName(MainWindow::CsvRows::Visible)
                    .contains(QStringLiteral("visible-3-of-16")));
        // Flagged by Output Std, then a re-threshold: the ranges stay, L1-95 (std 0.0087) goes.
        QComboBox* by = view->flaggedByBox();
        by->setCurrentIndex(by->findData(int(ks::Criterion::OutputStd)));
        QCOMPARE(shown->rowCount(), 3);
        typeThreshold(w, ks::Criterion::OutputStd, QStringLiteral("0.001"));
        QCOMPARE(shown->rowCount(), 2);
        QVERIFY(w.matrixView()->selectTask(QStringLiteral("L2-13")));
        QVERIFY(!w.matrixView()->selectTask(QStringLiteral("L1-95")));
        w.thresholdPanel()->resetToProfile();
        QCOMPARE(shown->rowCount(), 3);
        by->setCurrentIndex(0);
        // The header's context menu on a criterion: flagged only by it, a range, clear it.
        QVERIFY(!view->headerContextMenu(FilterMatrixModel::NameColumn));
        std::unique_ptr<QMenu> header(
            view->headerContextMenu(FilterMatrixModel::OutputRangeColumn));
        QVERIFY(header);
        auto* clearOne = header->findChild<QAction*>(QStringLiteral("headerClearRange"));
        QVERIFY(clearOne && clearOne->isEnabled());
        clearOne->trigger();
        QVERIFY(min->text().isEmpty() && max->text().isEmpty());
        QCOMPARE(w.proxy()->activeRangeCount(), 0);
        header.reset(view->headerContextMenu(FilterMatrixModel::InputImpactColumn));
        header->findChild<QAction*>(QStringLiteral("headerFlaggedOnly"))->trigger();
        QCOMPARE(w.proxy()->flaggedCriterion(), std::optional(ks::Criterion::InputImpact));
        header->findChild<QAction*>(QStringLiteral("headerRange"))->trigger();
        QTRY_VERIFY(view->rangesButton()->menu()->isVisible());
        QCOMPARE(QApplication::focusWidget(), view->rangeMinEdit(ks::Criterion::InputImpact));
        QTest::keyClicks(view->rangeMinEdit(ks::Criterion::InputImpact), QStringLiteral("0.005"));
        QCOMPARE(shown->rowCount(), 1); // L1-95: impact 0.0084, flagged by it
        view->rangesButton()->menu()->hide();
        view->flaggedByBox()->setCurrentIndex(0);
        auto* clear = view->findChild<QPushButton*>(QStringLiteral("clearRanges"));
        QVERIFY(clear);
        clear->click();
        QVERIFY(min->text().isEmpty());
        view->flaggedOnlyBox()->setChecked(false);
        QCOMPARE(shown->rowCount(), 16);
    }

    // Issue 14, point 2 with more than two files: A against two others, from the Compare view.
    void testCompareSeveralFiles() {
        QTemporaryDir tmp;
        ks::RunResults b1 = fixture(), b2 = fixture();
        b1.run.seeds = 100;
        for (auto& t : b1.tasks)
            if (t.id == "L2-13r") t.range.maxAbs = 0.005;
        b2.run.device = "cpu";
        for (auto& t : b2.tasks)
            if (t.id == "L1-19") t.range.maxAbs = 0.005;
        const QString p1 = tmp.filePath(QStringLiteral("b1.json")),
                      p2 = tmp.filePath(QStringLiteral("b2.json"));
        ks::writeFileAtomic(p1.toStdString(), ks::resultsToJson(b1));
        ks::writeFileAtomic(p2.toStdString(), ks::resultsToJson(b2));
        MainWindow w;
        w.show();
        QVERIFY(w.openResults(ResultsFile));
        QVERIFY(w.compareWith(p1));
        QVERIFY(w.addComparison(p2));
        CompareModel* m = w.compareModel();
        QCOMPARE(m->otherCount(), 2);
        QCOMPARE(m->nameB(1), QStringLiteral("b2.json"));
        QCOMPARE(m->differingTasks(), 2); // L1-19 (B2), L2-13r (B1)
        QTableView* table = w.compareView()->tableView();
        QCOMPARE(table->model()->rowCount(), 2);
        QCOMPARE(table->model()->columnCount(), 4 + 5 * ks::CriterionCount);
        // Only range and zeros pass differ: their five columns each are shown, std's are not.
        const int range = m->columnOf(ks::Criterion::OutputRange, CompareModel::Part::A);
        for (int c = range; c < range + 5; ++c)
            QVERIFY(!table->isColumnHidden(c));
        QVERIFY(
            table->isColumnHidden(m->columnOf(ks::Criterion::OutputStd, CompareModel::Part::B, 1)));
        QVERIFY(table->columnWidth(range + 3) > 40); // the new file's columns are laid out
        QVERIFY2(w.compareView()->summaryText().contains(QStringLiteral("B2 b2.json")),
                 qPrintable(w.compareView()->summaryText()));
        // A re-threshold re-judges A against both files.
        typeThreshold(w, ks::Criterion::OutputRange, QStringLiteral("2"));
        for (int k = 0; k < 2; ++k) {
            const ks::ResultsDiff expected =
                ks::diffResults(w.model()->results(), w.model()->thresholds(), k ? b2 : b1,
                                (k ? b2 : b1).thresholds);
            QCOMPARE(m->diff(k).differing, expected.differing);
        }
        w.thresholdPanel()->resetToProfile();
        // Remove B1 from the view's Remove menu: A against B2 alone, three columns again.
        QMenu* menu = w.compareView()->removeButton()->menu();
        QCOMPARE(menu->actions().size(), 2);
        menu->actions().first()->trigger();
        QCOMPARE(m->otherCount(), 1);
        QCOMPARE(m->nameB(), QStringLiteral("b2.json"));
        QCOMPARE(table->model()->columnCount(), 4 + 3 * ks::CriterionCount);
        QVERIFY(!w.compareView()->removeButton()->isEnabled()); // the last goes with Close
        w.closeComparison();
        QVERIFY(!m->isActive());
    }

    // Issue 14, point 5: several bench files at once, rows tagged with their file and device.
    void testKernelsSeveralBenchFiles() {
        MainWindow w;
        w.show();
        QVERIFY(w.openResults(ResultsFile));
        QVERIFY(w.openBench(BenchFile));
        QVERIFY(w.addBench(ExternalBenchFile));
        KernelsView* view = w.kernelsView();
        QCOMPARE(view->benchCount(), 2);
        QCOMPARE(view->benchLabel(1), QStringLiteral("bench-external.json"));
        w.showView(MainWindow::View::Kernels);
        // L2-13 has built-in variants in one file and an external kernel in the other.
        QVERIFY(w.selectTask(QStringLiteral("L2-13")));
        VariantsModel* vm = view->variantsModel();
        QCOMPARE(vm->sourceCount(), 2);
        QVERIFY(!view->variantsTable()->isColumnHidden(VariantsModel::FileColumn));
        QCOMPARE(vm->index(0, VariantsModel::FileColumn).data().toString(),
                 QStringLiteral("[1] bench.json \u00b7 NVIDIA H200"));
        const int last = vm->rowCount() - 1;
        QCOMPARE(vm->sourceOf(last), 1);
        QCOMPARE(vm->index(last, VariantsModel::FileColumn).data().toString(),
                 QStringLiteral("[2] bench-external.json \u00b7 NVIDIA H200"));
        // The chart has one group per file, named by the file, both on the flawed task.
        SpeedupChart* chart = view->speedupChart();
        QVERIFY(chart->hasData());
        QSet<QString> groups;
        for (const auto& bar : chart->bars())
            groups.insert(bar.taskId);
        QCOMPARE(groups, (QSet<QString>{QStringLiteral("L2-13 [1]"), QStringLiteral("L2-13 [2]")}));
        QVERIFY2(chart->title().contains(QStringLiteral("L2-13 in 2 bench files")),
                 qPrintable(chart->title()));
        QVERIFY(chart->flawMarkShown());
        QVERIFY2(view->infoLabel()->text().contains(
                     QStringLiteral("[2] bench-external.json: NVIDIA H200, 2 task(s), 7 external "
                                    "(3 cheat/invalid/failed)")),
                 qPrintable(view->infoLabel()->text()));
        QVERIFY(view->infoLabel()->toolTip().contains(
            QStringLiteral("external kernels: 7 (4 valid, 2 cheat, 1 compile error)")));
        // One file only: the File column goes, the groups are the task's again.
        view->fileBox()->setCurrentIndex(view->fileBox()->findData(1));
        QCOMPARE(vm->sourceCount(), 1);
        QVERIFY(view->variantsTable()->isColumnHidden(VariantsModel::FileColumn));
        QCOMPARE(chart->bars().front().taskId, QStringLiteral("L2-13"));
        view->fileBox()->setCurrentIndex(0);
        // Both are open again at the next start.
        w.saveSettings();
        {
            MainWindow next;
            next.startup();
            QCOMPARE(next.kernelsView()->benchCount(), 2);
            QCOMPARE(next.kernelsView()->benchLabel(0), QStringLiteral("bench.json"));
            QCOMPARE(next.kernelsView()->benchLabel(1), QStringLiteral("bench-external.json"));
        }
        // The same file again replaces its copy; Open replaces them all.
        QVERIFY(w.addBench(ExternalBenchFile));
        QCOMPARE(view->benchCount(), 2);
        QVERIFY(w.openBench(BenchFile));
        QCOMPARE(view->benchCount(), 1);
        // The column table: every column has its spec, in enum order.
        QCOMPARE(int(VariantsModel::columnSpecs().size()), int(VariantsModel::ColumnCount));
        for (int c = 0; c < VariantsModel::ColumnCount; ++c)
            QCOMPARE(int(VariantsModel::columnSpecs()[size_t(c)].column), c);
    }

    // Issue 14, point 5: validate / bench the selected tasks' kernels from the Kernels view in
    // the worker, with progress and cancel like filter runs; the results open as one more file.
    void testKernelRunFromTheKernelsView() {
        useWorker("bench_worker.sh");
        QTemporaryDir tmp;
        qputenv("KS_FAKE_ARGS", tmp.filePath(QStringLiteral("args")).toUtf8());
        qputenv("KS_FAKE_BENCH_DELAY", "0.15");
        MainWindow w;
        w.show();
        QVERIFY(w.openResults(ResultsFile));
        QVERIFY(w.openBench(ExternalBenchFile));
        w.showView(MainWindow::View::Kernels);
        KernelsView* view = w.kernelsView();
        QVERIFY(w.selectTask(QStringLiteral("L1-23")));
        QVERIFY(view->runButton()->isEnabled());
        view->runCommandBox()->setCurrentIndex(
            view->runCommandBox()->findData(QStringLiteral("bench")));
        QSignalSpy benched(w.runClient(), &RunClient::benchFinished);
        view->runButton()->click();
        QVERIFY(w.isRunning());
        QVERIFY(!view->runButton()->isEnabled()); // one worker at a time
        QVERIFY(w.progressBar()->isVisible());
        QTRY_VERIFY_WITH_TIMEOUT(
            w.runLabel()->text().contains(QStringLiteral("Benchmarking kernels of L1-23")), 5000);
        QTRY_COMPARE_WITH_TIMEOUT(benched.count(), 1, 10000);
        QVERIFY(!w.isRunning());
        QCOMPARE(view->benchCount(), 2);
        QVERIFY(view->benchLabel(1).startsWith(QStringLiteral("bench ")));
        QVERIFY(QFileInfo::exists(view->benchPath(1))); // kept in the app's data folder
        QVERIFY2(w.runLabel()->text().contains(QStringLiteral("Kernel run finished")),
                 qPrintable(w.runLabel()->text()));
        QFile args(tmp.filePath(QStringLiteral("args")));
        QVERIFY(args.open(QIODevice::ReadOnly));
        // The open results' suite and preset, the selected task.
        QVERIFY2(
            args.readAll().startsWith("bench --suite builtin --tasks L1-23 --preset full --out "),
            qPrintable(readAll(tmp.filePath(QStringLiteral("args")))));

        // Cancel: the status bar's Cancel, as for filter runs; what it finished is kept.
        QVERIFY(w.selectTask(QStringLiteral("L1-12")));
        QTest::keyClicks(view->kernelsPathEdit(), QStringLiteral("/k/relu.cu"));
        view->runButton()->click();
        QTRY_VERIFY_WITH_TIMEOUT(!w.runClient()->currentTask().isEmpty(), 5000);
        auto* cancel = w.findChild<QToolButton*>(QStringLiteral("cancelRun"));
        QVERIFY(cancel && cancel->isVisible());
        cancel->click();
        QTRY_COMPARE_WITH_TIMEOUT(benched.count(), 2, 5000);
        QCOMPARE(benched.last().at(1).toBool(), true);
        QVERIFY(w.runLabel()->text().contains(QStringLiteral("cancelled")));
        QVERIFY(readAll(tmp.filePath(QStringLiteral("args"))).contains("--kernels /k/relu.cu"));
        QCOMPARE(view->benchCount(), 3);

        // No GPU: the worker's error is shown, nothing is added, the window stays.
        qputenv("KS_FAKE_BENCH_FAIL", "1");
        view->runButton()->click();
        QTRY_VERIFY_WITH_TIMEOUT(!w.isRunning(), 5000);
        QTRY_VERIFY(w.messageBar()->text().contains(QStringLiteral("need a CUDA device")));
        QCOMPARE(view->benchCount(), 3);
        qunsetenv("KS_FAKE_BENCH_FAIL");
        qunsetenv("KS_FAKE_BENCH_DELAY");
        qunsetenv("KS_FAKE_ARGS");
    }

    // Issue 14, point 6: 1280 x 720 fits and leaves the charts room; 1920 x 1080 gives the matrix
    // all its columns; the matrix collapses on demand.
    void testSmallAndLargeScreens() {
        MainWindow w;
        w.resize(1280, 720);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(w.openResults(ResultsFile));
        QApplication::processEvents();
        QVERIFY2(w.minimumSizeHint().width() <= 1280,
                 qPrintable(QString::number(w.minimumSizeHint().width())));
        QCOMPARE(w.size(), QSize(1280, 720));
        QCOMPARE(w.layoutMode(), MainWindow::LayoutMode::Compact);
        QVERIFY(!w.findChild<QToolBar*>(QStringLiteral("mainToolBar"))->isVisible());
        w.showView(MainWindow::View::TaskDetail);
        QApplication::processEvents();
        ChartWidget* value = w.detailView()->valueChart();
        QVERIFY2(value->height() >= 250, qPrintable(QString::number(value->height())));
        QTableView* matrix = w.matrixView()->tableView();
        const int rowsShown =
            matrix->viewport()->height() / matrix->verticalHeader()->defaultSectionSize();
        QVERIFY2(rowsShown >= 5, qPrintable(QString::number(rowsShown)));
        // Every matrix column without scrolling sideways: the counts on a second header line,
        // the names still readable.
        QCOMPARE(matrix->horizontalScrollBar()->maximum(), 0);
        QCOMPARE(matrix->model()
                     ->headerData(FilterMatrixModel::OutputStdColumn, Qt::Horizontal)
                     .toString(),
                 QStringLiteral("Output Std\n(6)"));
        QVERIFY(matrix->columnWidth(FilterMatrixModel::NameColumn) >= 160);
        // Focus on the views: the matrix collapses, the charts get its height; and back.
        const int before = value->height();
        w.setViewsFocused(true);
        QApplication::processEvents();
        QVERIFY(w.viewsFocused());
        QVERIFY2(value->height() > before + 100, qPrintable(QString::number(value->height())));
        w.setViewsFocused(false);
        QApplication::processEvents();
        QVERIFY(!w.viewsFocused());

        w.resize(1920, 1080);
        QApplication::processEvents();
        QCOMPARE(w.layoutMode(), MainWindow::LayoutMode::Wide);
        QVERIFY(w.findChild<QToolBar*>(QStringLiteral("mainToolBar"))->isVisible());
        // All twelve matrix columns without scrolling sideways, one-line headers, the spare
        // width to the metrics; the thresholds without scrolling either.
        QCOMPARE(matrix->horizontalScrollBar()->maximum(), 0);
        QCOMPARE(matrix->model()
                     ->headerData(FilterMatrixModel::OutputStdColumn, Qt::Horizontal)
                     .toString(),
                 QStringLiteral("Output Std (6)"));
        QVERIFY(matrix->columnWidth(FilterMatrixModel::NameColumn) <= 440);
        QVERIFY(matrix->columnWidth(FilterMatrixModel::OutputStdColumn) > 110);
        auto* scroll = w.findChild<QScrollArea*>(QStringLiteral("thresholdScroll"));
        QVERIFY(scroll);
        QCOMPARE(scroll->horizontalScrollBar()->maximum(), 0);
        QVERIFY2(value->height() >= 300, qPrintable(QString::number(value->height())));
        QCOMPARE(MainWindow::layoutModeFor(QSize(1280, 800)), MainWindow::LayoutMode::Regular);
    }
};

QTEST_MAIN(TestMainWindow)
#include "tst_mainwindow.moc"
