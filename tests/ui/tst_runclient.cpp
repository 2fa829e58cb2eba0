// SPDX-License-Identifier: MIT
// RunClient against fake workers (tests/ui/workers): streamed results, cancel (graceful and
// forced), a worker that crashes mid-run, a worker that cannot start, and the device probe.

#include <runclient.h>

#include <QElapsedTimer>
#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

namespace {
void useWorker(const char* script) {
    qputenv("KS_WORKER", QByteArray(KS_UI_TEST_WORKERS "/") + script);
}
} // namespace

class TestRunClient : public QObject {
    Q_OBJECT
  private slots:
    void testWorkerPath() {
        qputenv("KS_WORKER", "");
        QVERIFY(RunClient::workerPath().endsWith(QStringLiteral("/kernelsieve-cli")));
        useWorker("ok_worker.sh");
        QVERIFY(RunClient::workerPath().endsWith(QStringLiteral("ok_worker.sh")));
    }

    void testArguments() {
        RunClient::Options o;
        o.seeds = 20;
        o.preset = QStringLiteral("small");
        o.device = QStringLiteral("cpu");
        o.taskIds = QStringList{QStringLiteral("L1-23"), QStringLiteral("L2-13")};
        const auto args = RunClient::filterArguments(o, QStringLiteral("/tmp/x.json"));
        QCOMPARE(
            args.join(QLatin1Char(' ')),
            QStringLiteral(
                "filter --suite builtin --seeds 20 --device cpu --preset small --tasks L1-23,L2-13 "
                "--out /tmp/x.json --force --jsonl -q"));
        o.taskTimeout = 90;
        QVERIFY(RunClient::filterArguments(o, QStringLiteral("/tmp/x.json"))
                    .join(QLatin1Char(' '))
                    .contains(QStringLiteral("--task-timeout 90 ")));
        // Filters 5-6 run unless the run dialog turned them off.
        RunClient::Options some;
        some.inefficiency = false;
        QVERIFY(RunClient::filterArguments(some, QStringLiteral("/tmp/x.json"))
                    .join(QLatin1Char(' '))
                    .contains(QStringLiteral("--criteria stat,redundancy")));
        some.redundancy = false;
        QVERIFY(RunClient::filterArguments(some, QStringLiteral("/tmp/x.json"))
                    .join(QLatin1Char(' '))
                    .contains(QStringLiteral("--criteria stat ")));
        // Several GPUs, several workers on each: passed on; one GPU and one worker say nothing.
        QVERIFY(!RunClient::filterArguments(some, QStringLiteral("/tmp/x.json")).contains(QStringLiteral("--devices")));
        QVERIFY(!RunClient::filterArguments(some, QStringLiteral("/tmp/x.json"))
                     .contains(QStringLiteral("--workers-per-gpu")));
        some.gpus = QStringLiteral("0,2");
        some.workersPerGpu = 2;
        QVERIFY(RunClient::filterArguments(some, QStringLiteral("/tmp/x.json"))
                    .join(QLatin1Char(' '))
                    .contains(QStringLiteral("--devices 0,2 --workers-per-gpu 2 --out")));
    }

    void testStreamedRun() {
        useWorker("ok_worker.sh");
        QTemporaryDir tmp;
        qputenv("KS_FAKE_ARGS", tmp.filePath(QStringLiteral("args")).toUtf8());
        RunClient client;
        QSignalSpy started(&client, &RunClient::started);
        QSignalSpy tasks(&client, &RunClient::taskFinished);
        QSignalSpy progress(&client, &RunClient::progress);
        QSignalSpy finished(&client, &RunClient::finished);
        QSignalSpy failed(&client, &RunClient::failed);
        QStringList phases; // what the worker said it was doing, as progress reported it
        connect(&client, &RunClient::progress, this, [&] {
            const QString p = client.currentTask() + QLatin1Char(':') + client.currentPhase();
            if (phases.isEmpty() || phases.last() != p) phases << p;
        });
        RunClient::Options o;
        o.seeds = 7;
        client.start(o);
        QVERIFY(client.isRunning());
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 10000);
        qunsetenv("KS_FAKE_ARGS");
        QCOMPARE(failed.count(), 0);
        QCOMPARE(finished.first().at(0).toBool(), false);
        QCOMPARE(started.count(), 1);
        QCOMPARE(started.first().at(1).toInt(), 4);
        QCOMPARE(started.first().at(0).value<ks::RunInfo>().deviceName, std::string("NVIDIA H200"));
        QCOMPARE(tasks.count(), 4);
        QStringList ids;
        for (const auto& args : tasks)
            ids << QString::fromStdString(args.at(0).value<ks::TaskResult>().id);
        QCOMPARE(ids, (QStringList{"L1-1", "L1-12", "L1-23", "L2-13"}));
        const auto last = progress.last();
        QCOMPARE(last.at(0).toInt(), 4);
        QCOMPARE(last.at(1).toInt(), 4);
        // Progress names the task being run as soon as it starts, before its result arrives.
        bool sawCurrent = false;
        for (const auto& p : progress)
            if (p.at(0).toInt() == 1 && p.at(2).toString() == QLatin1String("L1-12"))
                sawCurrent = true;
        QVERIFY(sawCurrent);
        QVERIFY2(phases.contains(QStringLiteral("L1-12:inefficiency")), qPrintable(phases.join(u' ')));
        QVERIFY(phases.contains(QStringLiteral("L1-12:redundancy")));
        QVERIFY(phases.indexOf(QStringLiteral("L1-12:statistics")) < phases.indexOf(QStringLiteral("L1-12:redundancy")));
        QFile argsFile(tmp.filePath(QStringLiteral("args")));
        QVERIFY(argsFile.open(QIODevice::ReadOnly));
        QVERIFY(argsFile.readAll().startsWith("filter --suite builtin --seeds 7 --device auto"));
        QCOMPARE(client.finishedCount(), 4);
    }

    void testCancelIsGraceful() {
        useWorker("slow_worker.sh");
        RunClient client;
        QSignalSpy tasks(&client, &RunClient::taskFinished);
        QSignalSpy finished(&client, &RunClient::finished);
        QSignalSpy failed(&client, &RunClient::failed);
        client.start({});
        QTRY_COMPARE_WITH_TIMEOUT(tasks.count(), 1, 5000);
        QTRY_COMPARE(client.currentTask(), QStringLiteral("L1-12"));
        QElapsedTimer timer;
        timer.start();
        client.cancel();
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 3000);
        QVERIFY2(timer.elapsed() < 1000, qPrintable(QString::number(timer.elapsed())));
        QCOMPARE(finished.first().at(0).toBool(), true);
        QCOMPARE(failed.count(), 0);
        QCOMPARE(tasks.count(), 1); // the finished task is kept
        QVERIFY(!client.isRunning());
    }

    void testCancelKillsAStuckWorker() {
        useWorker("stubborn_worker.sh");
        RunClient client;
        client.setKillDelay(300);
        QSignalSpy tasks(&client, &RunClient::taskFinished);
        QSignalSpy finished(&client, &RunClient::finished);
        client.start({});
        QTRY_COMPARE_WITH_TIMEOUT(tasks.count(), 1, 5000);
        QElapsedTimer timer;
        timer.start();
        client.cancel();
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 3000);
        QVERIFY2(timer.elapsed() < 1000, qPrintable(QString::number(timer.elapsed())));
        QCOMPARE(finished.first().at(0).toBool(), true);
    }

    void testCrashKeepsFinishedTasks() {
        useWorker("crash_worker.sh");
        RunClient client;
        QSignalSpy tasks(&client, &RunClient::taskFinished);
        QSignalSpy finished(&client, &RunClient::finished);
        QSignalSpy failed(&client, &RunClient::failed);
        client.start({});
        QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 1, 5000);
        QCOMPARE(finished.count(), 0);
        QCOMPARE(tasks.count(), 2);
        const QString message = failed.first().at(0).toString();
        QVERIFY2(message.contains(QStringLiteral("SIGSEGV")), qPrintable(message));
        QVERIFY2(message.contains(QStringLiteral("2 of 4")), qPrintable(message));
        QVERIFY2(message.contains(QStringLiteral("L1-23")), qPrintable(message));
        // A new run can start after a crash.
        useWorker("ok_worker.sh");
        QSignalSpy finished2(&client, &RunClient::finished);
        client.start({});
        QTRY_COMPARE_WITH_TIMEOUT(finished2.count(), 1, 10000);
    }

    void testMissingWorker() {
        qputenv("KS_WORKER", "/nonexistent/kernelsieve-cli");
        RunClient client;
        QSignalSpy failed(&client, &RunClient::failed);
        QSignalSpy probed(&client, &RunClient::deviceProbed);
        client.start({});
        QTRY_COMPARE(failed.count(), 1);
        QVERIFY(failed.first().at(0).toString().contains(QStringLiteral("KS_WORKER")));
        client.probeDevice();
        QTRY_COMPARE(probed.count(), 1);
        QCOMPARE(probed.first().at(0).toString(), QString());
    }

    void testProbeDevice() {
        useWorker("ok_worker.sh");
        RunClient client;
        QSignalSpy probed(&client, &RunClient::deviceProbed);
        client.probeDevice();
        QTRY_COMPARE(probed.count(), 1);
        QCOMPARE(probed.first().at(0).toString(), QStringLiteral("cpu"));
        QCOMPARE(probed.first().at(1).toString(), QStringLiteral("fake device"));
    }

    // Kernel runs from the Kernels view (issue 14, point 5): validate / bench in the worker,
    // progress from its log, the results from its --out file, cancel keeping what it finished.
    void testBenchArguments() {
        RunClient::BenchOptions o;
        o.taskIds = QStringList{QStringLiteral("L1-23"), QStringLiteral("L2-13")};
        QCOMPARE(RunClient::benchArguments(o, QStringLiteral("/tmp/b.json")).join(QLatin1Char(' ')),
                 QStringLiteral("validate --suite builtin --tasks L1-23,L2-13 --out /tmp/b.json"));
        o.command = QStringLiteral("bench");
        o.kernels = QStringLiteral("/k/relu.cu");
        o.preset = QStringLiteral("full");
        o.seeds = 20;
        o.suite = QStringLiteral("/suites/RK");
        QCOMPARE(RunClient::benchArguments(o, QStringLiteral("/tmp/b.json")).join(QLatin1Char(' ')),
                 QStringLiteral("bench --suite /suites/RK --tasks L1-23,L2-13 --kernels /k/relu.cu "
                                "--preset full --seeds 20 --out /tmp/b.json"));
        o.gpus = QStringLiteral("all");
        QVERIFY(RunClient::benchArguments(o, QStringLiteral("/tmp/b.json"))
                    .join(QLatin1Char(' '))
                    .endsWith(QStringLiteral("--seeds 20 --devices all --out /tmp/b.json")));
    }

    void testBenchRun() {
        useWorker("bench_worker.sh");
        QTemporaryDir tmp;
        qputenv("KS_FAKE_ARGS", tmp.filePath(QStringLiteral("args")).toUtf8());
        RunClient client;
        QSignalSpy progress(&client, &RunClient::progress);
        QSignalSpy benched(&client, &RunClient::benchFinished);
        QSignalSpy finished(&client, &RunClient::finished);
        QSignalSpy failed(&client, &RunClient::failed);
        QStringList seen; // (done, current) as progress reported it
        connect(&client, &RunClient::progress, this, [&](int done, int total, const QString& id) {
            const QString p = QStringLiteral("%1/%2 %3").arg(done).arg(total).arg(id);
            if (seen.isEmpty() || seen.last() != p) seen << p;
        });
        RunClient::BenchOptions o;
        o.taskIds = QStringList{QStringLiteral("L1-23"), QStringLiteral("L2-13")};
        client.startBench(o);
        QCOMPARE(client.mode(), RunClient::Mode::Bench);
        QVERIFY(client.isRunning());
        QTRY_COMPARE_WITH_TIMEOUT(benched.count(), 1, 10000);
        qunsetenv("KS_FAKE_ARGS");
        QCOMPARE(failed.count(), 0);
        QCOMPARE(finished.count(), 0); // a kernel run ends with benchFinished instead
        QCOMPARE(benched.first().at(1).toBool(), false);
        const auto run = benched.first().at(0).value<ks::BenchRun>();
        QVERIFY(!run.tasks.empty());
        QCOMPARE(run.deviceName, std::string("NVIDIA H200"));
        // The second task starts once the first is done; the log's other lines are no task.
        QVERIFY2(seen.contains(QStringLiteral("0/2 L1-23")), qPrintable(seen.join(u'|')));
        QVERIFY2(seen.contains(QStringLiteral("1/2 L2-13")), qPrintable(seen.join(u'|')));
        QVERIFY(client.currentPhase().isEmpty() || !client.isRunning());
        QFile argsFile(tmp.filePath(QStringLiteral("args")));
        QVERIFY(argsFile.open(QIODevice::ReadOnly));
        QVERIFY(
            argsFile.readAll().startsWith("validate --suite builtin --tasks L1-23,L2-13 --out "));
    }

    void testBenchCancelKeepsWhatItHas() {
        useWorker("bench_worker.sh");
        qputenv("KS_FAKE_BENCH_DELAY", "0.2");
        RunClient client;
        QSignalSpy benched(&client, &RunClient::benchFinished);
        RunClient::BenchOptions o;
        o.command = QStringLiteral("bench");
        o.taskIds =
            QStringList{QStringLiteral("L1-12"), QStringLiteral("L1-23"), QStringLiteral("L2-13")};
        client.startBench(o);
        QTRY_COMPARE_WITH_TIMEOUT(client.currentTask(), QStringLiteral("L1-12"), 5000);
        QElapsedTimer timer;
        timer.start();
        client.cancel();
        QTRY_COMPARE_WITH_TIMEOUT(benched.count(), 1, 3000);
        qunsetenv("KS_FAKE_BENCH_DELAY");
        QVERIFY2(timer.elapsed() < 1500, qPrintable(QString::number(timer.elapsed())));
        QCOMPARE(benched.first().at(1).toBool(), true); // cancelled, results kept
        QVERIFY(!client.isRunning());
    }

    void testBenchWithoutGpuFails() {
        useWorker("bench_worker.sh");
        qputenv("KS_FAKE_BENCH_FAIL", "1");
        RunClient client;
        QSignalSpy benched(&client, &RunClient::benchFinished);
        QSignalSpy failed(&client, &RunClient::failed);
        client.startBench({});
        QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 1, 5000);
        qunsetenv("KS_FAKE_BENCH_FAIL");
        QCOMPARE(benched.count(), 0);
        const QString message = failed.first().at(0).toString();
        QVERIFY2(message.contains(QStringLiteral("exit code 4")), qPrintable(message));
        QVERIFY2(message.contains(QStringLiteral("need a CUDA device")), qPrintable(message));
        // A filter run afterwards is a filter run again.
        useWorker("ok_worker.sh");
        QSignalSpy finished(&client, &RunClient::finished);
        client.start({});
        QCOMPARE(client.mode(), RunClient::Mode::Filter);
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 10000);
    }
};

QTEST_GUILESS_MAIN(TestRunClient)
#include "tst_runclient.moc"
