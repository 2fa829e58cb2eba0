// SPDX-License-Identifier: MIT
#pragma once
// The workbench window: the filter matrix on top, the task detail / kernels / summary views
// below, the threshold panel docked above, and a run area in the status bar. Public methods
// are what the menus call, so tests drive the real window through the same paths.

#include "runclient.h"
#include "windowlayout.h"

#include <ks/core/benchresults.h>

#include <QMainWindow>
#include <QPointer>
#include <QThread>

#include <optional>

class ChartWidget;
class CompareModel;
class CompareView;
class FilterMatrixModel;
class FilterMatrixView;
class FilterProxyModel;
class KernelsView;
class MessageBar;
class QAction;
class QDockWidget;
class QLabel;
class QMenu;
class QProgressBar;
class QScrollArea;
class QSplitter;
class QTabWidget;
class QToolButton;
class RunInfoModel;
class SummaryModel;
class SummaryView;
class TaskDetailView;
class ThresholdPanel;

class MainWindow : public QMainWindow {
    Q_OBJECT
  public:
    enum class View { TaskDetail, Kernels, Summary, Compare };
    // Whose thresholds are in force: the open results file's (the default on open, so counts
    // and CSVs match what the file says) or the user's own (settings, profiles; one click away).
    enum class ThresholdSource { File, User };
    // Where a run of selected tasks goes: into the open results (refused when the run's suite,
    // device, preset, seeds or seed semantics differ from the file's: one results file never
    // mixes runs), or into new, separate results.
    enum class RunTarget { Merge, Separate };

    // How the window lays itself out for its size (issue 14, point 6; WindowLayout): Compact
    // below 780 px of height, Wide from 1800 x 1000, Regular between.
    using LayoutMode = WindowLayout::Mode;
    static LayoutMode layoutModeFor(const QSize& size);
    LayoutMode layoutMode() const;
    // View > Focus on the Views: the filter matrix collapsed, the charts and tables below get
    // the height; off restores the matrix's height.
    void setViewsFocused(bool on);
    bool viewsFocused() const;

    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    // First start: probe the worker's device, then open `path` if given, else the last
    // results, else the built-in suite (not run yet) with an offer to run it.
    void startup(const QString& path = {});

    bool openPath(const QString& path); // results, bench file or suite folder
    bool openResults(const QString& path);
    bool openBench(const QString& path); // replaces the open bench files
    // One more bench file in the Kernels view (several at once: built-in and external kernels,
    // two devices); `replace`: openBench().
    bool addBench(const QString& path, bool replace = false);
    bool openSuite(const QString& dirOrBuiltin);
    // A second results file beside the open one, in the Compare view (ks::diffResults, as
    // `kernelsieve-cli diff`); A stays the open results, B is judged by its file's thresholds
    // unless the view says otherwise.
    bool compareWith(const QString& path);
    // One more file beside A (several files: A against each, N columns per criterion); the
    // first one when nothing is compared yet. `replace`: compareWith().
    bool addComparison(const QString& path, bool replace = false);
    void removeComparison(int other);
    void closeComparison();
    bool saveResults(const QString& path);
    // Which rows a CSV export writes: those the matrix shows (its filters applied, in file
    // order) or every task of the results.
    enum class CsvRows { Visible, All };
    bool exportCsv(const QString& path, CsvRows rows = CsvRows::Visible);
    // Asks which rows when the matrix hides some ("Visible Rows (9)" / "All Rows (16)"); All
    // without asking when it shows every row; empty when the user cancels.
    std::optional<CsvRows> askCsvRows();
    // "h200-visible-9-of-16.csv", "h200.csv", "h200-my-thresholds.csv": the choice and the
    // thresholds in force, in the name the save dialog proposes (the CSV's columns stay the CLI's).
    QString suggestedCsvName(CsvRows rows) const;
    bool exportTaskJson(const QString& path);
    bool exportChart(const QString& chartName, const QString& path);

    void setThresholds(const ks::Thresholds& thresholds);
    ThresholdSource thresholdSource() const { return m_thresholdSource; }
    // The open results' own thresholds (as read from the file, or saved into it); empty when
    // none is open (a suite, a fresh run not saved yet).
    const std::optional<ks::Thresholds>& fileThresholds() const { return m_fileThresholds; }
    const ks::Thresholds& userThresholds() const { return m_userThresholds; }
    void useUserThresholds();
    void useFileThresholds();
    // "file's thresholds (robust-kbench)", "my thresholds (strict)", "file's thresholds, edited":
    // what the title, the CSV export dialog and the status bar say.
    QString thresholdsInForceText() const;

    void startRun(const RunClient::Options& options, RunTarget target = RunTarget::Merge);
    // validate / bench the kernels of some tasks in the worker (the Kernels view's run bar):
    // progress and Cancel in the status bar as for filter runs; the results open in the Kernels
    // view as one more bench file (a copy is kept in the app's data folder, kernel-runs/).
    void startKernelRun(const RunClient::BenchOptions& options);
    void cancelRun();
    bool isRunning() const;

    void showView(View view);
    // The matrix's context menu for task `id` (selects it first): Copy ID, Copy Name, Show
    // Source at the Flagged Line, Re-run This Task. The caller owns the menu.
    QMenu* taskContextMenu(const QString& id);
    // Task Detail's graph page with the task's numbered source at its flagged line
    // (ResultsUtil::flaggedSourceLine; line 1 when none is named).
    bool showTaskSource(const QString& id);
    bool selectTask(const QString& id);
    QString currentTaskId() const;

    QString resultsPath() const { return m_resultsPath; }
    // "cuda", "cpu", or empty while unknown / no worker.
    QString workerDevice() const { return m_device; }
    QList<ChartWidget*> charts() const;
    ChartWidget* chart(const QString& name) const;

    FilterMatrixModel* model() const { return m_model; }
    FilterProxyModel* proxy() const { return m_proxy; }
    SummaryModel* summaryModel() const { return m_summary; }
    RunInfoModel* runInfoModel() const { return m_runInfo; }
    FilterMatrixView* matrixView() const { return m_matrixView; }
    TaskDetailView* detailView() const { return m_detail; }
    KernelsView* kernelsView() const { return m_kernels; }
    SummaryView* summaryView() const { return m_summaryView; }
    CompareView* compareView() const { return m_compareView; }
    CompareModel* compareModel() const { return m_compareModel; }
    ThresholdPanel* thresholdPanel() const { return m_thresholds; }
    RunClient* runClient() const { return m_client; }
    MessageBar* messageBar() const { return m_messages; }
    QProgressBar* progressBar() const { return m_progress; }
    QLabel* runLabel() const { return m_runLabel; }
    QLabel* deviceLabel() const { return m_deviceLabel; }
    QTabWidget* tabs() const { return m_tabs; }
    QStringList recentFiles() const;

    void saveSettings() const;

  protected:
    void closeEvent(QCloseEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;

  private:
    void createActions();
    void createMenus();
    void readSettings();
    void addRecentFile(const QString& path);
    void rebuildRecentMenu();
    void updateTitle();
    void updateRunState();
    void showError(const QString& message);
    void onThresholdsChanged(const ks::Thresholds& thresholds);
    void updateFlagCounts();
    void onCurrentTaskChanged(const QString& id);
    void onRunStarted(const ks::RunInfo& info, int total);
    void onRunProgress(int done, int total, const QString& current);
    void onTaskFinished(const ks::TaskResult& task, int index);
    void onRunFinished(bool cancelled);
    void onRunFailed(const QString& message);
    void onDeviceProbed(const QString& device, const QString& description);
    void onKernelRunFinished(const ks::BenchRun& run, bool cancelled);
    void autosaveRun();
    void updateRunInfo();
    void setResults(ks::RunResults results, const QString& path);
    void updateComparison(bool rowsChanged);
    QString resultsName() const;
    bool openResultsMeasured() const;
    // Why a run with these options may not merge into the open results, as far as the options
    // tell before the worker starts ("" when nothing known differs).
    QString mergeProblem(const RunClient::Options& o) const;
    void refuseMerge(const QString& why, const RunClient::Options& o);
    void applyThresholdSource(ThresholdSource source);

    // actions (slots of the menus)
    void openDialog();
    void openBenchDialog(bool add);
    void openSuiteDialog();
    void compareDialog();
    void addComparisonDialog();
    bool saveDialog();
    bool saveAsDialog();
    void exportCsvDialog();
    void exportChartDialog();
    void exportTaskJsonDialog();
    void runDialog(bool selectedOnly);
    void loadProfileDialog();
    void saveProfileDialog();
    void about();

    FilterMatrixModel* m_model = nullptr;
    FilterProxyModel* m_proxy = nullptr;
    SummaryModel* m_summary = nullptr;
    RunInfoModel* m_runInfo = nullptr;
    RunClient* m_client = nullptr;
    CompareModel* m_compareModel = nullptr;

    FilterMatrixView* m_matrixView = nullptr;
    TaskDetailView* m_detail = nullptr;
    KernelsView* m_kernels = nullptr;
    SummaryView* m_summaryView = nullptr;
    CompareView* m_compareView = nullptr;
    ThresholdPanel* m_thresholds = nullptr;
    QDockWidget* m_thresholdDock = nullptr;
    QScrollArea* m_thresholdScroll = nullptr;
    WindowLayout* m_layout = nullptr;
    QTabWidget* m_tabs = nullptr;
    QSplitter* m_split = nullptr;
    MessageBar* m_messages = nullptr;
    QProgressBar* m_progress = nullptr;
    QLabel* m_runLabel = nullptr;
    QToolButton* m_cancelButton = nullptr;
    QLabel* m_deviceLabel = nullptr;
    QMenu* m_recentMenu = nullptr;

    QAction* m_openAction = nullptr;
    QAction* m_openBenchAction = nullptr;
    QAction* m_addBenchAction = nullptr;
    QAction* m_openSuiteAction = nullptr;
    QAction* m_compareAction = nullptr;
    QAction* m_addComparisonAction = nullptr;
    QAction* m_saveAction = nullptr;
    QAction* m_saveAsAction = nullptr;
    QAction* m_exportCsvAction = nullptr;
    QAction* m_exportChartAction = nullptr;
    QAction* m_exportJsonAction = nullptr;
    QAction* m_quitAction = nullptr;
    QAction* m_runSuiteAction = nullptr;
    QAction* m_runSelectedAction = nullptr;
    QAction* m_cancelAction = nullptr;
    QAction* m_findAction = nullptr;
    QAction* m_flaggedOnlyAction = nullptr;
    QAction* m_logCountAction = nullptr;
    QAction* m_viewActions[4] = {};
    QAction* m_resetThresholdsAction = nullptr;
    QAction* m_loadProfileAction = nullptr;
    QAction* m_saveProfileAction = nullptr;
    QAction* m_useUserThresholdsAction = nullptr;
    QAction* m_useFileThresholdsAction = nullptr;
    QAction* m_runSeparateAction = nullptr; // offered when a merge is refused

    QString m_resultsPath;
    QString m_benchPath;
    QString m_suite = QStringLiteral("builtin");
    QString m_device; // worker device: "cuda" | "cpu" | "" unknown
    QString m_deviceDescription;     // the worker's device line: "NVIDIA H200"
    bool m_freshResults = false;     // the run fills new results (whole suite, or a separate run)
    bool m_mergeRefused = false;     // the running worker's run differs from the open file: ignored
    RunClient::Options m_runOptions; // the run in progress, as asked
    RunClient::Options m_refusedRun; // the run whose merge was refused, for "Run as Separate"
    RunClient::Options m_lastRun;
    // Thresholds: the user's own (settings; what Reset returns to in their mode), the open file's.
    ThresholdSource m_thresholdSource = ThresholdSource::User;
    ks::Thresholds m_userThresholds = ks::Thresholds::defaults();
    ks::Thresholds m_userProfile = ks::Thresholds::defaults();
    QString m_userProfilePath;
    std::optional<ks::Thresholds> m_fileThresholds;
    QPointer<QThread> m_autosave; // the autosave being written, if any
};
