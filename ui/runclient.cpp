// SPDX-License-Identifier: MIT
#include "runclient.h"

#include <ks/core/results.h>
#include <ks/core/resultsfile.h>
#include <ks/core/taskspec.h>

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>

#include <nlohmann/json.hpp>

#include <csignal>
#include <cstring>
#include <optional>

namespace {
constexpr int StderrLinesKept = 12;

QString signalName(int sig) {
    switch (sig) {
    case SIGSEGV:
        return QStringLiteral("SIGSEGV, segmentation fault");
    case SIGABRT:
        return QStringLiteral("SIGABRT, aborted");
    case SIGKILL:
        return QStringLiteral("SIGKILL");
    case SIGBUS:
        return QStringLiteral("SIGBUS, bus error");
    case SIGFPE:
        return QStringLiteral("SIGFPE");
    case SIGILL:
        return QStringLiteral("SIGILL");
    case SIGTERM:
        return QStringLiteral("SIGTERM");
    default:
        return QStringLiteral("signal %1").arg(sig);
    }
}
} // namespace

RunClient::RunClient(QObject* parent) : QObject(parent) {
    qRegisterMetaType<ks::TaskResult>();
    qRegisterMetaType<ks::RunInfo>();
    qRegisterMetaType<ks::BenchRun>();
    m_killTimer.setSingleShot(true);
    m_killTimer.setInterval(800);
    connect(&m_killTimer, &QTimer::timeout, this, [this] {
        if (isRunning()) m_process->kill();
    });
}

RunClient::~RunClient() {
    if (m_process) {
        // The window is closing: no signals to half-destroyed receivers, and no orphan worker.
        m_process->disconnect(this);
        if (m_process->state() != QProcess::NotRunning) {
            m_process->kill();
            m_process->waitForFinished(1000);
        }
    }
}

QString RunClient::workerPath() {
    const QString env = qEnvironmentVariable("KS_WORKER");
    if (!env.isEmpty()) return env;
    return QDir(QCoreApplication::applicationDirPath()).filePath(QStringLiteral("kernelsieve-cli"));
}

QStringList RunClient::filterArguments(const Options& o, const QString& outFile) {
    QStringList args{QStringLiteral("filter"),
                     QStringLiteral("--suite"),
                     o.suite.isEmpty() ? QStringLiteral("builtin") : o.suite,
                     QStringLiteral("--seeds"),
                     QString::number(o.seeds),
                     QStringLiteral("--device"),
                     o.device.isEmpty() ? QStringLiteral("auto") : o.device};
    if (!o.preset.isEmpty()) args << QStringLiteral("--preset") << o.preset;
    if (!o.taskIds.isEmpty()) args << QStringLiteral("--tasks") << o.taskIds.join(QLatin1Char(','));
    if (!o.inefficiency || !o.redundancy) { // the worker runs all filters unless told otherwise
        QStringList criteria{QStringLiteral("stat")};
        if (o.inefficiency) criteria << QStringLiteral("inefficiency");
        if (o.redundancy) criteria << QStringLiteral("redundancy");
        args << QStringLiteral("--criteria") << criteria.join(QLatin1Char(','));
    }
    if (o.taskTimeout > 0) args << QStringLiteral("--task-timeout") << QString::number(o.taskTimeout);
    if (!o.gpus.isEmpty()) args << QStringLiteral("--devices") << o.gpus;
    if (o.workersPerGpu > 1) args << QStringLiteral("--workers-per-gpu") << QString::number(o.workersPerGpu);
    // A fresh file per run in our own temporary folder: --force, so an earlier run's file there is
    // never a reason to write elsewhere (the GUI reads the stream, not this file).
    args << QStringLiteral("--out") << outFile << QStringLiteral("--force") << QStringLiteral("--jsonl")
         << QStringLiteral("-q");
    return args;
}

QStringList RunClient::benchArguments(const BenchOptions& o, const QString& outFile) {
    QStringList args{
        o.command == QLatin1String("bench") ? QStringLiteral("bench") : QStringLiteral("validate"),
        QStringLiteral("--suite"), o.suite.isEmpty() ? QStringLiteral("builtin") : o.suite};
    if (!o.taskIds.isEmpty()) args << QStringLiteral("--tasks") << o.taskIds.join(QLatin1Char(','));
    if (!o.kernels.isEmpty()) args << QStringLiteral("--kernels") << o.kernels;
    if (!o.preset.isEmpty()) args << QStringLiteral("--preset") << o.preset;
    if (o.seeds > 0) args << QStringLiteral("--seeds") << QString::number(o.seeds);
    if (!o.gpus.isEmpty()) args << QStringLiteral("--devices") << o.gpus;
    args << QStringLiteral("--out") << outFile;
    return args;
}

bool RunClient::isRunning() const {
    return m_process && m_process->state() != QProcess::NotRunning;
}

void RunClient::start(const Options& options) {
    if (isRunning()) {
        emit failed(tr("A run is already in progress; cancel it first."));
        return;
    }
    m_mode = Mode::Filter;
    m_total = options.taskIds.isEmpty() ? 0 : int(options.taskIds.size());
    // The worker also saves results after every task; we read the stream, the file is its own
    // crash insurance. A private folder keeps concurrent GUIs apart.
    m_tmp = std::make_unique<QTemporaryDir>();
    m_outFile = m_tmp->filePath(QStringLiteral("run.json"));
    launch(filterArguments(options, m_outFile));
}

void RunClient::startBench(const BenchOptions& options) {
    if (isRunning()) {
        emit failed(tr("A run is already in progress; cancel it first."));
        return;
    }
    m_mode = Mode::Bench;
    m_benchOptions = options;
    m_benchSeen.clear();
    m_total = int(options.taskIds.size());
    m_tmp = std::make_unique<QTemporaryDir>();
    m_outFile = m_tmp->filePath(QStringLiteral("bench.json"));
    launch(benchArguments(options, m_outFile));
    emit progress(0, m_total, QString());
}

void RunClient::launch(const QStringList& arguments) {
    if (m_process) {
        // The previous worker may still be inside its own finished() emission: delete it later,
        // and make sure nothing it still emits reaches the new run.
        m_process->disconnect(this);
        m_process.release()->deleteLater();
    }
    m_buffer.clear();
    m_stderr.clear();
    m_stderrPartial.clear();
    m_current.clear();
    m_phase.clear();
    m_done = 0;
    m_cancelRequested = m_sawDone = m_doneCancelled = m_ended = false;
    m_badLines = 0;
    m_totalSeconds = 0;

    m_process = std::make_unique<QProcess>();
    m_process->setProcessChannelMode(QProcess::SeparateChannels);
    connect(m_process.get(), &QProcess::readyReadStandardOutput, this, &RunClient::onReadyRead);
    connect(m_process.get(), &QProcess::readyReadStandardError, this, &RunClient::onStderr);
    connect(m_process.get(), &QProcess::finished, this, &RunClient::onProcessFinished);
    connect(m_process.get(), &QProcess::errorOccurred, this, &RunClient::onProcessError);
    m_process->start(workerPath(), arguments);
}

void RunClient::cancel() {
    if (!isRunning()) return;
    m_cancelRequested = true;
    m_process->terminate();
    m_killTimer.start();
}

void RunClient::probeDevice() {
    auto* p = new QProcess(this);
    connect(p, &QProcess::finished, this, [this, p](int code, QProcess::ExitStatus status) {
        p->deleteLater();
        const QString out = QString::fromUtf8(p->readAllStandardOutput());
        for (const QString& line : out.split(QLatin1Char('\n'))) {
            // "Device cuda: NVIDIA H200" / "Device cpu: x86_64 (16 threads)"
            if (line.startsWith(QLatin1String("Device "))) {
                const int colon = line.indexOf(QLatin1Char(':'));
                const QString device = line.mid(7, colon - 7).trimmed();
                emit deviceProbed(device, line.mid(colon + 1).trimmed());
                return;
            }
        }
        const QString err = QString::fromUtf8(p->readAllStandardError()).trimmed();
        emit deviceProbed(
            {}, status == QProcess::CrashExit
                    ? tr("the worker crashed while probing the device")
                    : tr("the worker printed no device (exit code %1) %2").arg(code).arg(err));
    });
    connect(p, &QProcess::errorOccurred, this, [this, p](QProcess::ProcessError e) {
        if (e != QProcess::FailedToStart) return;
        p->deleteLater();
        emit deviceProbed({},
                          tr("cannot start the worker %1: %2").arg(workerPath(), p->errorString()));
    });
    p->start(workerPath(), {QStringLiteral("--version")});
}

void RunClient::onReadyRead() {
    if (!m_process) return;
    if (m_mode == Mode::Bench) {
        // The summary table: the results come from the --out file.
        m_process->readAllStandardOutput();
        return;
    }
    m_buffer += m_process->readAllStandardOutput();
    qsizetype start = 0;
    for (;;) {
        const qsizetype nl = m_buffer.indexOf('\n', start);
        if (nl < 0) break;
        handleLine(m_buffer.mid(start, nl - start));
        start = nl + 1;
    }
    m_buffer.remove(0, start);
}

void RunClient::onStderr() {
    if (!m_process) return;
    m_stderrPartial += m_process->readAllStandardError();
    const auto lines = m_stderrPartial.split('\n');
    m_stderrPartial = lines.last();
    for (qsizetype i = 0; i + 1 < lines.size(); ++i) {
        const QString l = QString::fromUtf8(lines[i]).trimmed();
        if (l.isEmpty()) continue;
        m_stderr << l;
        if (m_stderr.size() > StderrLinesKept) m_stderr.removeFirst();
        if (m_mode == Mode::Bench) handleBenchLog(l);
    }
}

// The harness's log: "<task>: <what>" per step, "[k/n] <task> <kernel>: <outcome>" per compile.
// A task named for the first time is the next one; the ones named before it are done.
void RunClient::handleBenchLog(const QString& line) {
    if (line.startsWith(QLatin1Char('['))) {
        const int close = line.indexOf(QLatin1Char(']'));
        if (close > 1) {
            m_phase = tr("compiling %1").arg(line.mid(1, close - 1));
            emit progress(m_done, m_total, m_current);
        }
        return;
    }
    const int colon = line.indexOf(QStringLiteral(": "));
    if (colon <= 0) return;
    const QString id = line.left(colon);
    // Without a task list, any id-like prefix; the CLI's own "compile: ...", "warning: ...",
    // "note: ..." and "error: ..." lines are no task.
    static const QStringList notTasks{QStringLiteral("compile"), QStringLiteral("warning"),
                                      QStringLiteral("error"), QStringLiteral("note")};
    const bool known = m_benchOptions.taskIds.isEmpty()
                           ? !id.contains(QLatin1Char(' ')) && !notTasks.contains(id)
                           : m_benchOptions.taskIds.contains(id);
    if (!known) return;
    if (!m_benchSeen.contains(id)) {
        m_benchSeen << id;
        m_done = int(m_benchSeen.size()) - 1;
        m_total = std::max(m_total, int(m_benchSeen.size()));
        m_current = id;
    }
    m_phase = line.mid(colon + 2).left(80);
    emit progress(m_done, m_total, m_current);
}

void RunClient::finishBench(int exitCode, QProcess::ExitStatus status) {
    const bool cancelled = m_cancelRequested || (status == QProcess::NormalExit && exitCode == 130);
    std::optional<ks::BenchRun> run;
    QString readError;
    if (QFileInfo::exists(m_outFile)) {
        try {
            run = ks::benchFromJson(ks::readFile(m_outFile.toStdString()), m_outFile.toStdString());
        } catch (const std::exception& e) {
            readError = QString::fromUtf8(e.what());
        }
    }
    const bool ok = status == QProcess::NormalExit && (exitCode == 0 || cancelled);
    if (run && (ok || cancelled)) {
        m_done = int(run->tasks.size());
        emit progress(m_done, std::max(m_total, m_done), QString());
        emit benchFinished(*run, cancelled);
        return;
    }
    if (cancelled) {
        emit finished(true); // stopped before it wrote anything
        return;
    }
    const QString tail = stderrTail();
    emit failed(
        (status == QProcess::CrashExit
             ? tr("The kernel worker crashed (%1)%2.")
                   .arg(signalName(exitCode))
                   .arg(m_current.isEmpty() ? QString() : tr(" while running %1").arg(m_current))
         : exitCode != 0 ? tr("The kernel worker stopped with exit code %1.").arg(exitCode)
                         : tr("The kernel worker wrote no results (%1).")
                               .arg(readError.isEmpty() ? m_outFile : readError)) +
        (tail.isEmpty() ? QString() : QStringLiteral("\n") + tail));
}

QString RunClient::stderrTail() const {
    QStringList lines = m_stderr;
    if (!m_stderrPartial.trimmed().isEmpty()) lines << QString::fromUtf8(m_stderrPartial).trimmed();
    return lines.mid(std::max<qsizetype>(0, lines.size() - 4)).join(QLatin1Char('\n'));
}

void RunClient::handleLine(const QByteArray& raw) {
    const QByteArray line = raw.trimmed();
    if (line.isEmpty()) return;
    // Deep nesting parses, but dumping it below (the run info) would overflow the GUI's stack.
    const bool tooDeep = !ks::jsonNestingProblem(line.toStdString()).empty();
    nlohmann::json j =
        tooDeep ? nlohmann::json()
                : nlohmann::json::parse(line.constBegin(), line.constEnd(), nullptr, false);
    if (tooDeep || j.is_discarded() || !j.is_object()) {
        ++m_badLines; // a worker printing to stdout by accident; keep going
        return;
    }
    try {
        const std::string event = j.value("event", "");
        if (event == "start") {
            m_total = j.value("total", m_total);
            ks::RunInfo info;
            if (j.contains("run")) info = ks::runInfoFromJson(j.at("run").dump(), "worker");
            emit started(info, m_total);
            emit progress(m_done, m_total, m_current);
        } else if (event == "task_start") {
            m_total = j.value("total", m_total);
            m_current = QString::fromStdString(j.value("id", ""));
            m_phase.clear();
            emit progress(m_done, m_total, m_current);
        } else if (event == "task_phase") {
            m_phase = QString::fromStdString(j.value("phase", ""));
            emit progress(m_done, m_total, m_current);
        } else if (event == "task") {
            m_total = j.value("total", m_total);
            if (!j.contains("result")) throw ks::Error("a task event without a result");
            ks::TaskResult t = ks::taskResultFromJson(j.at("result").dump(), "worker");
            ++m_done;
            const auto index = j.find("index");
            emit taskFinished(t, index != j.end() && index->is_number_integer() ? index->get<int>() : -1);
            emit progress(m_done, m_total, m_current);
        } else if (event == "done") {
            m_sawDone = true;
            m_doneCancelled = j.value("cancelled", false);
            const auto totalS = j.find("total_s");
            m_totalSeconds = totalS != j.end() && totalS->is_number() ? totalS->get<double>() : 0.0;
        }
    } catch (const std::exception& e) {
        // Exceptions stop here: a malformed line loses that line, not the run or the window.
        ++m_badLines;
        m_stderr << tr("unreadable worker output: %1").arg(QString::fromUtf8(e.what()));
    }
}

void RunClient::onProcessFinished(int exitCode, QProcess::ExitStatus status) {
    m_killTimer.stop();
    // Whatever arrived before the exit is still results: parse it before deciding how it ended.
    onReadyRead();
    if (!m_buffer.trimmed().isEmpty()) handleLine(m_buffer);
    m_buffer.clear();
    onStderr();
    if (m_ended) return;
    m_ended = true;
    if (m_mode == Mode::Bench) {
        finishBench(exitCode, status);
        return;
    }

    if (m_cancelRequested) {
        emit finished(true);
    } else if (status == QProcess::CrashExit) {
        emit failed(
            tr("The worker crashed (%1) after %2 of %3 tasks%4. The finished tasks are kept.%5")
                .arg(signalName(exitCode))
                .arg(m_done)
                .arg(m_total)
                .arg(m_current.isEmpty() ? QString() : tr(", while running %1").arg(m_current))
                .arg(stderrTail().isEmpty() ? QString() : QStringLiteral("\n") + stderrTail()));
    } else if (exitCode == 130 || (m_sawDone && m_doneCancelled)) {
        emit finished(true); // stopped from outside (Ctrl-C in a terminal, kill -INT)
    } else if (exitCode != 0) {
        emit failed(
            tr("The worker stopped with exit code %1 after %2 of %3 tasks. The finished tasks are "
               "kept.%4")
                .arg(exitCode)
                .arg(m_done)
                .arg(m_total)
                .arg(stderrTail().isEmpty() ? QString() : QStringLiteral("\n") + stderrTail()));
    } else if (!m_sawDone) {
        emit failed(
            tr("The worker ended without reporting the end of the run (%1 of %2 tasks received).")
                .arg(m_done)
                .arg(m_total));
    } else {
        emit finished(false);
    }
}

void RunClient::onProcessError(QProcess::ProcessError error) {
    // Crashes arrive through finished() as well; only a failed start ends the run here.
    if (error != QProcess::FailedToStart || m_ended) return;
    m_ended = true;
    emit failed(tr("Cannot start the worker '%1': %2. Build kernelsieve-cli next to the GUI or "
                   "point KS_WORKER at it.")
                    .arg(workerPath(), m_process ? m_process->errorString() : QString()));
}
