// SPDX-License-Identifier: MIT
#pragma once
// The one adapter between the GUI and the engine. A run executes in a `kernelsieve-cli filter
// --jsonl` child process, so a crash or CUDA fault in a task (or a bad kernel) takes down the
// worker, never the window. JSON lines are parsed as they arrive (readyRead, never blocking), and
// turned into one signal per result kind; nothing the worker does throws past this class.
//
// Every run ends with exactly one of finished(cancelled) or failed(message); tasks reported
// before a failure have already been delivered through taskFinished and stay valid.
//
// Kernel runs (startBench: `kernelsieve-cli validate|bench --tasks ... --out FILE`) go through
// the same process handling, cancel and crash reports. That command has no JSON stream: progress
// comes from its log lines on stderr ("L1-23: softmax_kernel2", "[3/7] L1-19 relu: cached"), and
// the results from its --out file, read when it exits: benchFinished(run, cancelled) (a cancelled
// run keeps the tasks it finished), or failed(message) when it wrote none.

#include <models/metatypes.h>

#include <ks/core/benchresults.h>

#include <QObject>
#include <QProcess>
#include <QStringList>
#include <QTemporaryDir>
#include <QTimer>

#include <memory>

Q_DECLARE_METATYPE(ks::BenchRun)

class RunClient : public QObject {
    Q_OBJECT
  public:
    struct Options {
        QString suite = QStringLiteral("builtin"); // "builtin" or a suite folder
        int seeds = 5;
        QString preset;                          // "small" | "full" | "" (worker default)
        QString device = QStringLiteral("auto"); // "auto" | "cuda" | "cpu"
        QStringList taskIds;                     // empty = the whole suite
        bool inefficiency = true;                // filter 5 after the statistics
        bool redundancy = true;                  // filter 6 after the statistics
        double taskTimeout = 0;                  // seconds a task may run; 0 = the worker's default
        QString gpus;                            // --devices: "" (one GPU), "all" or "0,1,..."
        int workersPerGpu = 1;                   // --workers-per-gpu (1: one worker a GPU)
    };

    // A kernel run from the Kernels view: validate (no timing) or bench the kernels of some tasks.
    struct BenchOptions {
        QString command = QStringLiteral("validate"); // "validate" | "bench"
        QString suite = QStringLiteral("builtin");
        QStringList taskIds; // empty = every task with kernels
        QString kernels;     // --kernels PATH (external); empty = built in
        QString preset;      // "" = the worker's default
        int seeds = 0;       // 0 = the worker's default
        QString gpus;        // --devices: "" (one GPU), "all" or "0,1,..."
    };
    enum class Mode { Filter, Bench };

    explicit RunClient(QObject* parent = nullptr);
    ~RunClient() override;

    // $KS_WORKER if set, else kernelsieve-cli next to the running executable.
    static QString workerPath();
    static QStringList filterArguments(const Options& options, const QString& outFile);
    static QStringList benchArguments(const BenchOptions& options, const QString& outFile);

    bool isRunning() const;
    void start(const Options& options);
    void startBench(const BenchOptions& options);
    // What the current (or last) run is: a filter run or a kernel run.
    Mode mode() const { return m_mode; }
    const BenchOptions& benchOptions() const { return m_benchOptions; }
    // SIGTERM (the worker stops after the current seed and reports), then SIGKILL after
    // killDelay() ms, so a cancel always completes in about a second.
    void cancel();
    void setKillDelay(int ms) { m_killTimer.setInterval(ms); }
    int killDelay() const { return m_killTimer.interval(); }

    // Asks the worker (`--version`) which device it would use; answers with deviceProbed().
    void probeDevice();

    int finishedCount() const { return m_done; }
    int totalCount() const { return m_total; }
    // Wall time of the last run as the worker reported it ("done" event), 0 if unknown.
    double totalSeconds() const { return m_totalSeconds; }
    QString currentTask() const { return m_current; }
    // What the worker does with the current task: "statistics", "inefficiency", "redundancy" or
    // "" (it did not say); progress() is emitted again when it changes.
    QString currentPhase() const { return m_phase; }

  signals:
    void started(const ks::RunInfo& info, int total);
    void progress(int done, int total, const QString& currentTask);
    // `index`: the task's place in the run's plan (suite order), -1 when the worker did not say.
    void taskFinished(const ks::TaskResult& result, int index);
    // A kernel run's results (its --out file); `cancelled`: stopped early, finished tasks kept.
    void benchFinished(const ks::BenchRun& run, bool cancelled);
    void finished(bool cancelled);
    void failed(const QString& message);
    // device: "cuda" | "cpu" | "" (worker unusable); description: the worker's device line or the
    // error.
    void deviceProbed(const QString& device, const QString& description);

  private:
    void onReadyRead();
    void onStderr();
    void onProcessFinished(int exitCode, QProcess::ExitStatus status);
    void onProcessError(QProcess::ProcessError error);
    void handleLine(const QByteArray& line);
    void handleBenchLog(const QString& line);
    void finishBench(int exitCode, QProcess::ExitStatus status);
    void launch(const QStringList& arguments);
    void endRun();
    QString stderrTail() const;

    std::unique_ptr<QProcess> m_process;
    std::unique_ptr<QTemporaryDir> m_tmp;
    QByteArray m_buffer;
    QStringList m_stderr; // last lines, for failure messages
    QByteArray m_stderrPartial;
    QTimer m_killTimer;
    QString m_current;
    QString m_phase;
    int m_done = 0;
    int m_total = 0;
    bool m_cancelRequested = false;
    bool m_sawDone = false;
    bool m_doneCancelled = false;
    bool m_ended = false;
    int m_badLines = 0;
    double m_totalSeconds = 0;
    Mode m_mode = Mode::Filter;
    BenchOptions m_benchOptions;
    QStringList m_benchSeen; // task ids the kernel run's log has named, in order
    QString m_outFile;
};
