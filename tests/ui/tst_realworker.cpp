// SPDX-License-Identifier: MIT
// The GUI against the real engine: kernelsieve-cli from this build as the worker (on the CPU,
// small preset, a few seeds). Checks the JSON-lines protocol end to end, that the GUI's CSV
// export equals the CLI's own --csv for the same run, and that Cancel stops a real run fast.
// Skipped (QSKIP) when the worker was not built.

#include <filtermatrixview.h>
#include <mainwindow.h>
#include <messagebar.h>
#include <runclient.h>

#include <models/filtermatrixmodel.h>

#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QLabel>
#include <QProcess>
#include <QSet>
#include <QSettings>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

namespace {
const QString Tasks = QStringLiteral("L1-19,L1-23,L2-13");

QString realWorker() {
    const QString w = qEnvironmentVariable("KS_REAL_WORKER");
    return QFileInfo(w).isExecutable() ? w : QString();
}

RunClient::Options cpuOptions() {
    RunClient::Options o;
    o.device = QStringLiteral("cpu");
    o.preset = QStringLiteral("small");
    o.seeds = 3;
    o.taskIds = Tasks.split(QLatin1Char(','));
    return o;
}
} // namespace

class TestRealWorker : public QObject {
    Q_OBJECT
  private slots:
    void initTestCase() {
        if (realWorker().isEmpty())
            QSKIP("kernelsieve-cli is not built in this tree (set KS_REAL_WORKER); build it to run "
                  "these checks");
        qputenv("KS_WORKER", realWorker().toUtf8());
        QSettings().clear();
    }

    // The run dialog's GPUs (filter --devices; two stand-in GPUs here, KS_FAKE_DEVICES): every
    // task comes back with its place in the plan, and the matrix lists them in that order
    // whichever GPU finished first.
    void testSeveralGpusKeepTheSuiteOrder() {
        qputenv("KS_FAKE_DEVICES", "2");
        RunClient client;
        QSignalSpy tasks(&client, &RunClient::taskFinished);
        QSignalSpy finished(&client, &RunClient::finished);
        QSignalSpy failed(&client, &RunClient::failed);
        RunClient::Options o = cpuOptions();
        o.inefficiency = o.redundancy = false;
        o.gpus = QStringLiteral("all");
        client.start(o);
        QTRY_VERIFY_WITH_TIMEOUT(finished.count() + failed.count() == 1, 120000);
        qunsetenv("KS_FAKE_DEVICES");
        QVERIFY2(failed.isEmpty(), failed.isEmpty() ? "" : qPrintable(failed.first().at(0).toString()));
        QCOMPARE(tasks.count(), 3);
        const QStringList plan = Tasks.split(QLatin1Char(','));
        FilterMatrixModel model;
        QSet<QString> gpus;
        for (const auto& args : tasks) {
            const auto t = args.at(0).value<ks::TaskResult>();
            const QString id = QString::fromStdString(t.id);
            QCOMPARE(args.at(1).toInt(), int(plan.indexOf(id)));
            gpus.insert(QString::fromStdString(t.gpu));
            model.upsertTask(t, args.at(1).toInt());
        }
        QCOMPARE(gpus.size(), 2); // both stand-ins ran tasks
        for (int r = 0; r < model.rowCount(); ++r) QCOMPARE(QString::fromStdString(model.task(r)->id), plan[r]);
    }

    void testProtocol() {
        RunClient client;
        QSignalSpy started(&client, &RunClient::started);
        QSignalSpy tasks(&client, &RunClient::taskFinished);
        QSignalSpy finished(&client, &RunClient::finished);
        QSignalSpy failed(&client, &RunClient::failed);
        client.start(cpuOptions());
        QTRY_VERIFY_WITH_TIMEOUT(finished.count() + failed.count() == 1, 120000);
        QVERIFY2(failed.isEmpty(),
                 failed.isEmpty() ? "" : qPrintable(failed.first().at(0).toString()));
        QCOMPARE(started.count(), 1);
        QCOMPARE(started.first().at(0).value<ks::RunInfo>().device, std::string("cpu"));
        QCOMPARE(tasks.count(), 3);
        const auto th = ks::Thresholds::defaults();
        for (const auto& args : tasks) {
            const auto t = args.at(0).value<ks::TaskResult>();
            QCOMPARE(t.status, ks::TaskStatus::Ok);
            QCOMPARE(t.seeds, 3);
            QVERIFY(!t.valueHistogram.empty());
            if (t.id == "L1-19") QVERIFY(!t.anyFlag(th));
            // Filters 5-6 ran in the worker and came back with the task, timed on the CPU.
            QVERIFY(t.inefficiency && t.redundancy);
            QCOMPARE(t.inefficiency->device, std::string("cpu"));
            QVERIFY2(t.inefficiency->error.empty(), t.inefficiency->error.c_str());
            QVERIFY2(t.redundancy->error.empty(), t.redundancy->error.c_str());
            if (t.id == "L1-23") { // the seed's Table 1: every statistical filter fires, not 5-6
                for (int c = 0; c < ks::StatisticalCriterionCount; ++c)
                    QVERIFY2(t.flagged(static_cast<ks::Criterion>(c), th), ks::criteria()[c].key);
                QVERIFY(!t.flagged(ks::Criterion::BaselineInefficiency, th));
                QVERIFY(!t.flagged(ks::Criterion::RedundantComputation, th));
            }
            if (t.id == "L2-13") {
                QVERIFY(!t.flagged(ks::Criterion::OutputRange, th));
                QVERIFY(t.flagged(ks::Criterion::OutputStd, th));
                // The softmax over a size-1 axis makes everything before it redundant.
                QVERIFY(t.flagged(ks::Criterion::RedundantComputation, th));
            }
        }
    }

    void testCsvEqualsCli() {
        QTemporaryDir tmp;
        const QString cliCsv = tmp.filePath(QStringLiteral("cli.csv"));
        QProcess cli;
        // Filter 5 times the baseline, and two runs never time alike; without it a run is a pure
        // function of the seeds, so the two CSVs can be compared byte for byte.
        cli.start(realWorker(),
                  {QStringLiteral("filter"), QStringLiteral("--device"), QStringLiteral("cpu"),
                   QStringLiteral("--preset"), QStringLiteral("small"), QStringLiteral("--seeds"),
                   QStringLiteral("3"), QStringLiteral("--tasks"), Tasks, QStringLiteral("--out"),
                   tmp.filePath(QStringLiteral("cli.json")), QStringLiteral("--csv"), cliCsv,
                   QStringLiteral("--criteria"), QStringLiteral("stat,redundancy"), QStringLiteral("-q")});
        QVERIFY(cli.waitForFinished(120000));
        QCOMPARE(cli.exitCode(), 0);

        MainWindow w;
        w.show();
        QSignalSpy finished(w.runClient(), &RunClient::finished);
        RunClient::Options o = cpuOptions();
        o.inefficiency = false;
        w.startRun(o);
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 120000);
        QCOMPARE(w.model()->rowCount(), 3);
        const QString guiCsv = tmp.filePath(QStringLiteral("gui.csv"));
        QVERIFY(w.exportCsv(guiCsv));
        QFile a(cliCsv), b(guiCsv);
        QVERIFY(a.open(QIODevice::ReadOnly) && b.open(QIODevice::ReadOnly));
        QCOMPARE(b.readAll(), a.readAll()); // same seeds, same engine, same writer: byte for byte
        // And the CLI's results file, opened in the GUI, exports the CLI's CSV again.
        QVERIFY(w.openResults(tmp.filePath(QStringLiteral("cli.json"))));
        QVERIFY(w.exportCsv(guiCsv));
        QFile c(cliCsv), d(guiCsv);
        QVERIFY(c.open(QIODevice::ReadOnly) && d.open(QIODevice::ReadOnly));
        QCOMPARE(d.readAll(), c.readAll());
        w.setWindowModified(false);
    }

    // Strangers' tasks through the GUI's worker: one that never returns is recorded as timed out and
    // the run goes on; one that prints a protocol line from TorchScript ("L1-FAKE") shows no such
    // task, because the tasks run in the worker's worker, whose stdout is only log.
    void testHostileSuite() {
        const QString suite = qEnvironmentVariable("KS_HOSTILE_SUITE");
        if (suite.isEmpty()) QSKIP("KS_HOSTILE_SUITE is not set");
        RunClient client;
        QSignalSpy tasks(&client, &RunClient::taskFinished);
        QSignalSpy finished(&client, &RunClient::finished);
        QSignalSpy failed(&client, &RunClient::failed);
        RunClient::Options o = cpuOptions();
        o.suite = suite;
        o.taskIds.clear();
        o.seeds = 2;
        o.inefficiency = o.redundancy = false;
        o.taskTimeout = 3;
        client.start(o);
        QTRY_VERIFY_WITH_TIMEOUT(finished.count() + failed.count() == 1, 120000);
        QVERIFY2(failed.isEmpty(), failed.isEmpty() ? "" : qPrintable(failed.first().at(0).toString()));
        QStringList ids;
        for (const auto& args : tasks) {
            const auto t = args.at(0).value<ks::TaskResult>();
            ids << QString::fromStdString(t.id);
            if (t.id == "H-hang") {
                QCOMPARE(t.status, ks::TaskStatus::Error);
                QVERIFY2(t.error.find("timed out") != std::string::npos, t.error.c_str());
            } else {
                QCOMPARE(t.status, ks::TaskStatus::Ok);
            }
        }
        QCOMPARE(ids, QStringList({"H-first", "H-forge", "H-hang", "H-last"}));
        QCOMPARE(finished.first().at(0).toBool(), false); // not cancelled: the run went on
    }

    void testCancelRealRun() {
        MainWindow w;
        w.show();
        QSignalSpy tasks(w.runClient(), &RunClient::taskFinished);
        QSignalSpy finished(w.runClient(), &RunClient::finished);
        RunClient::Options o = cpuOptions();
        o.taskIds.clear(); // the whole built-in suite, so there is always more to cancel
        o.seeds = 20;
        w.startRun(o);
        QTRY_VERIFY_WITH_TIMEOUT(tasks.count() >= 1, 120000);
        QElapsedTimer timer;
        timer.start();
        w.cancelRun();
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 5000);
        QVERIFY2(timer.elapsed() < 1000, qPrintable(QString::number(timer.elapsed())));
        QCOMPARE(finished.first().at(0).toBool(), true);
        int measured = 0;
        for (int r = 0; r < w.model()->rowCount(); ++r)
            measured += w.model()->task(r)->status == ks::TaskStatus::Ok;
        QVERIFY(measured >=
                tasks.count() - 1); // finished tasks kept (load-failure rows are not "Ok")
        QVERIFY(w.runLabel()->text().contains(QStringLiteral("cancelled")));
        w.setWindowModified(false);
    }

    void testDeviceNotice() {
        MainWindow w;
        w.startup();
        QTRY_VERIFY_WITH_TIMEOUT(!w.workerDevice().isEmpty(), 60000);
        if (w.workerDevice() == QLatin1String("cpu"))
            QVERIFY(w.deviceLabel()->text().contains(QStringLiteral("No GPU")));
        else
            QVERIFY(w.deviceLabel()->text().startsWith(QStringLiteral("GPU:")));
    }

    // A kernel run (the Kernels view's run bar) against the real CLI: the arguments the GUI
    // builds are ones `validate` accepts. Without a GPU it must refuse for want of a device (not
    // a usage error) and the message must say so; with one, the results must hold the task.
    void testKernelRunArgumentsAreAccepted() {
        RunClient client;
        QSignalSpy benched(&client, &RunClient::benchFinished);
        QSignalSpy failed(&client, &RunClient::failed);
        RunClient::BenchOptions o;
        o.taskIds = QStringList{QStringLiteral("L1-23")};
        o.preset = QStringLiteral("small");
        o.seeds = 3;
        client.startBench(o);
        QTRY_VERIFY_WITH_TIMEOUT(benched.count() + failed.count() == 1, 300000);
        if (failed.count()) {
            const QString message = failed.first().at(0).toString();
            QVERIFY2(message.contains(QStringLiteral("CUDA device")), qPrintable(message));
            QVERIFY2(!message.contains(QStringLiteral("exit code 2")), qPrintable(message));
        } else {
            const auto run = benched.first().at(0).value<ks::BenchRun>();
            QCOMPARE(int(run.tasks.size()), 1);
            QCOMPARE(run.tasks.front().taskId, std::string("L1-23"));
        }
    }
};

QTEST_MAIN(TestRealWorker)
#include "tst_realworker.moc"
