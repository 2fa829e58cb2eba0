// SPDX-License-Identifier: MIT
#include "mainwindow.h"
#include "chartwidget.h"
#include "compareview.h"
#include "filtermatrixview.h"
#include "histogramchart.h"
#include "kernelsview.h"
#include "messagebar.h"
#include "rundialog.h"
#include "summarychart.h"
#include "summaryview.h"
#include "taskdetailview.h"
#include "thresholdpanel.h"
#include "windowlayout.h"

#include <models/comparemodel.h>
#include <models/filtermatrixmodel.h>
#include <models/filterproxymodel.h>
#include <models/resultsutil.h>
#include <models/runinfomodel.h>
#include <models/summarymodel.h>

#include <ks/core/benchresults.h>
#include <ks/core/resultsfile.h>
#include <ks/core/suite.h>
#include <ks/core/taskspec.h>

#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QClipboard>
#include <QCloseEvent>
#include <QDateTime>
#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QGuiApplication>
#include <QInputDialog>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QProgressBar>
#include <QResizeEvent>
#include <QScrollArea>
#include <QScrollBar>
#include <QSettings>
#include <QSplitter>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableView>
#include <QThread>
#include <QTime>
#include <QToolBar>
#include <QToolButton>
#include <QVBoxLayout>

namespace {
constexpr int MaxRecentFiles = 8;
const QString ResultsFilter = QObject::tr("KernelSieve results (*.json);;All files (*)");

// Same values (the profile name aside): a file's thresholds can lack keys that read as defaults.
bool sameValues(const ks::Thresholds& a, const ks::Thresholds& b) {
    for (const auto& i : ks::thresholdInfos())
        if (a.value(i.threshold) != b.value(i.threshold)) return false;
    return a.borderlineMargin == b.borderlineMargin;
}

QString autosavePath() {
    return QDir(QStandardPaths::writableLocation(QStandardPaths::AppDataLocation))
        .filePath(QStringLiteral("last-run.json"));
}
} // namespace

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
    setObjectName(QStringLiteral("MainWindow"));
    m_model = new FilterMatrixModel(this);
    m_proxy = new FilterProxyModel(this);
    m_proxy->setSourceModel(m_model);
    m_summary = new SummaryModel(this);
    m_summary->setSourceModel(m_model);
    m_runInfo = new RunInfoModel(this);
    m_client = new RunClient(this);
    m_compareModel = new CompareModel(this);

    auto* central = new QWidget;
    auto* layout = new QVBoxLayout(central);
    layout->setContentsMargins(4, 4, 4, 0);
    m_messages = new MessageBar;
    layout->addWidget(m_messages);
    m_matrixView = new FilterMatrixView(m_model, m_proxy);
    m_detail = new TaskDetailView(m_model);
    m_kernels = new KernelsView(m_model);
    m_summaryView = new SummaryView(m_summary, m_runInfo);
    m_compareView = new CompareView(m_compareModel);
    m_tabs = new QTabWidget;
    m_tabs->setObjectName(QStringLiteral("views"));
    m_tabs->addTab(m_detail, tr("Task Detail"));
    m_tabs->addTab(m_kernels, tr("Kernels"));
    m_tabs->addTab(m_summaryView, tr("Summary"));
    m_tabs->addTab(m_compareView, tr("Compare"));
    m_split = new QSplitter(Qt::Vertical);
    m_split->setObjectName(QStringLiteral("mainSplitter"));
    m_split->addWidget(m_matrixView);
    m_split->addWidget(m_tabs);
    m_split->setStretchFactor(0, 4);
    m_split->setStretchFactor(1, 5);
    // The matrix may be collapsed (View > Focus on the Views, or the handle) to give a small
    // screen's height to the charts; the views never: they are what the selection is for.
    m_split->setChildrenCollapsible(true);
    m_split->setCollapsible(1, false);
    m_matrixView->setMinimumHeight(m_matrixView->fontMetrics().height() * 7);
    m_tabs->setMinimumHeight(220);
    m_split->setSizes({320, 440});
    layout->addWidget(m_split, 1);
    setCentralWidget(central);

    m_thresholds = new ThresholdPanel;
    m_thresholdDock = new QDockWidget(tr("Thresholds"), this);
    m_thresholdDock->setObjectName(QStringLiteral("thresholdDock"));
    // In a scroll area: the two rows of spin boxes are ~1400 px wide, and the window must still
    // fit a 1280 px screen (issue 14, point 6); what does not fit scrolls sideways.
    m_thresholdScroll = new QScrollArea;
    m_thresholdScroll->setObjectName(QStringLiteral("thresholdScroll"));
    m_thresholdScroll->setWidget(m_thresholds);
    m_thresholdScroll->setWidgetResizable(true);
    m_thresholdScroll->setFrameShape(QFrame::NoFrame);
    m_thresholdScroll->setVerticalScrollBarPolicy(Qt::ScrollBarAsNeeded);
    m_thresholdDock->setWidget(m_thresholdScroll);
    m_thresholdDock->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetClosable |
                                 QDockWidget::DockWidgetFloatable);
    addDockWidget(Qt::TopDockWidgetArea, m_thresholdDock);
    connect(
        m_thresholdDock, &QDockWidget::dockLocationChanged, this, [this](Qt::DockWidgetArea area) {
            m_thresholds->setOrientation(
                area == Qt::LeftDockWidgetArea || area == Qt::RightDockWidgetArea ? Qt::Vertical
                                                                                  : Qt::Horizontal);
            if (m_layout) m_layout->fitThresholdDock();
        });

    m_deviceLabel = new QLabel(tr("Worker: probing\u2026"));
    m_deviceLabel->setObjectName(QStringLiteral("deviceLabel"));
    m_runLabel = new QLabel;
    m_runLabel->setObjectName(QStringLiteral("runLabel"));
    m_progress = new QProgressBar;
    m_progress->setObjectName(QStringLiteral("runProgress"));
    m_progress->setMaximumWidth(220);
    m_progress->setFormat(QStringLiteral("%v / %m"));
    m_cancelButton = new QToolButton;
    m_cancelButton->setObjectName(QStringLiteral("cancelRun"));
    m_cancelButton->setText(tr("Cancel"));
    statusBar()->addWidget(m_runLabel, 1);
    statusBar()->addWidget(m_progress);
    statusBar()->addWidget(m_cancelButton);
    statusBar()->addPermanentWidget(m_deviceLabel);

    m_layout = new WindowLayout(this, m_thresholdDock, m_thresholdScroll, m_thresholds, m_split);
    createActions();
    createMenus();

    connect(m_thresholds, &ThresholdPanel::thresholdsChanged, this,
            &MainWindow::onThresholdsChanged);
    connect(m_thresholds, &ThresholdPanel::profileChosen, this, [this] {
        // Picking or loading a profile is the user's choice: their thresholds, from now on.
        m_thresholdSource = ThresholdSource::User;
        onThresholdsChanged(m_thresholds->thresholds());
    });
    connect(m_thresholds, &ThresholdPanel::loadRequested, this, &MainWindow::loadProfileDialog);
    connect(m_thresholds, &ThresholdPanel::saveRequested, this, &MainWindow::saveProfileDialog);
    connect(m_matrixView, &FilterMatrixView::currentTaskChanged, this,
            &MainWindow::onCurrentTaskChanged);
    connect(m_matrixView, &FilterMatrixView::selectionChanged, this, &MainWindow::updateRunState);
    connect(m_matrixView, &FilterMatrixView::runSuiteRequested, this, [this] { runDialog(false); });
    connect(m_matrixView, &FilterMatrixView::openRequested, this, &MainWindow::openDialog);
    connect(m_matrixView->tableView(), &QTableView::doubleClicked, this,
            [this](const QModelIndex& index) {
                // A filter 5 or 6 cell opens the page that explains it.
                const int column = index.column();
                m_detail->showGraphAnalyses(column == FilterMatrixModel::BaselineInefficiencyColumn ||
                                            column == FilterMatrixModel::RedundantComputationColumn);
                showView(View::TaskDetail);
            });
    connect(m_cancelButton, &QToolButton::clicked, this, &MainWindow::cancelRun);
    m_matrixView->tableView()->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(m_matrixView->tableView(), &QWidget::customContextMenuRequested, this,
            [this](const QPoint& pos) {
                QTableView* table = m_matrixView->tableView();
                const QModelIndex index = table->indexAt(pos);
                if (!index.isValid()) return;
                QMenu* menu = taskContextMenu(index.data(FilterMatrixModel::TaskIdRole).toString());
                menu->setAttribute(Qt::WA_DeleteOnClose);
                menu->popup(table->viewport()->mapToGlobal(pos));
            });
    connect(m_compareView, &CompareView::taskActivated, this, [this](const QString& id) {
        if (id != currentTaskId()) selectTask(id); // the task in the matrix and the detail views
    });
    connect(m_compareView, &CompareView::thresholdsBChanged, this,
            [this] { updateComparison(false); });
    connect(m_compareView, &CompareView::openRequested, this, &MainWindow::compareDialog);
    connect(m_compareView, &CompareView::closeRequested, this, &MainWindow::closeComparison);
    connect(m_compareView, &CompareView::addRequested, this, &MainWindow::addComparisonDialog);
    connect(m_compareView, &CompareView::removeRequested, this, &MainWindow::removeComparison);
    connect(m_model, &FilterMatrixModel::flagsChanged, this, &MainWindow::updateFlagCounts);
    connect(m_client, &RunClient::started, this, &MainWindow::onRunStarted);
    connect(m_client, &RunClient::progress, this, &MainWindow::onRunProgress);
    connect(m_client, &RunClient::taskFinished, this, &MainWindow::onTaskFinished);
    connect(m_client, &RunClient::finished, this, &MainWindow::onRunFinished);
    connect(m_client, &RunClient::failed, this, &MainWindow::onRunFailed);
    connect(m_client, &RunClient::deviceProbed, this, &MainWindow::onDeviceProbed);
    connect(m_client, &RunClient::benchFinished, this, &MainWindow::onKernelRunFinished);
    connect(m_kernels, &KernelsView::kernelRunRequested, this,
            [this](const QString& command, const QString& kernels) {
                RunClient::BenchOptions o;
                o.command = command;
                o.kernels = kernels;
                o.taskIds = m_matrixView->selectedTaskIds();
                startKernelRun(o);
            });

    resize(1280, 800);
    readSettings();
    updateRunState();
    updateTitle();
}

MainWindow::~MainWindow() {
    if (m_autosave) m_autosave->wait(); // never leave a half-written autosave behind
}

void MainWindow::createActions() {
    auto make = [this](const QString& text, const QKeySequence& key, auto slot,
                       const QString& icon = {}) {
        auto* a = new QAction(text, this);
        if (!key.isEmpty()) a->setShortcut(key);
        if (!icon.isEmpty()) a->setIcon(QIcon::fromTheme(icon));
        connect(a, &QAction::triggered, this, slot);
        return a;
    };
    m_openAction = make(tr("&Open\u2026"), QKeySequence::Open, &MainWindow::openDialog,
                        QStringLiteral("document-open"));
    m_openAction->setToolTip(tr("Open a results file, a kernel bench file or a suite folder"));
    m_openBenchAction = make(tr("Open &Kernel Bench\u2026"), QKeySequence(tr("Ctrl+K")),
                             [this] { openBenchDialog(false); });
    m_addBenchAction = make(tr("Add Kernel &Bench\u2026"), QKeySequence(tr("Ctrl+Shift+K")),
                            [this] { openBenchDialog(true); });
    m_addBenchAction->setToolTip(
        tr("One more bench file beside the open ones in the Kernels view"));
    m_openSuiteAction = make(tr("Open &Suite Folder\u2026"), QKeySequence(tr("Ctrl+Shift+O")),
                             &MainWindow::openSuiteDialog);
    m_compareAction =
        make(tr("Compare &With\u2026"), QKeySequence(tr("Ctrl+D")), &MainWindow::compareDialog);
    m_compareAction->setObjectName(QStringLiteral("compareWith"));
    m_compareAction->setToolTip(
        tr("Open a second results file beside these: the tasks whose flags differ"));
    m_addComparisonAction = make(tr("&Add to Comparison\u2026"), QKeySequence(tr("Ctrl+Shift+D")),
                                 &MainWindow::addComparisonDialog);
    m_addComparisonAction->setObjectName(QStringLiteral("addComparison"));
    m_addComparisonAction->setToolTip(
        tr("One more results file beside A: A against several files at once"));
    m_saveAction = make(tr("&Save Results"), QKeySequence::Save, &MainWindow::saveDialog,
                        QStringLiteral("document-save"));
    m_saveAsAction =
        make(tr("Save Results &As\u2026"), QKeySequence::SaveAs, &MainWindow::saveAsDialog);
    m_exportCsvAction = make(tr("Filter Table as &CSV\u2026"), QKeySequence(tr("Ctrl+E")),
                             &MainWindow::exportCsvDialog);
    m_exportChartAction = make(tr("C&hart as PNG or PDF\u2026"), QKeySequence(tr("Ctrl+Shift+E")),
                               &MainWindow::exportChartDialog);
    m_exportJsonAction = make(tr("Selected Task's &Metrics as JSON\u2026"),
                              QKeySequence(tr("Ctrl+J")), &MainWindow::exportTaskJsonDialog);
    m_quitAction = make(tr("&Quit"), QKeySequence::Quit, &QWidget::close);
    m_runSuiteAction = make(
        tr("&Run Suite\u2026"), QKeySequence(Qt::Key_F5), [this] { runDialog(false); },
        QStringLiteral("media-playback-start"));
    m_runSelectedAction = make(tr("Run &Selected Tasks\u2026"),
                               QKeySequence(Qt::SHIFT | Qt::Key_F5), [this] { runDialog(true); });
    m_cancelAction = make(tr("&Cancel Run"), QKeySequence(tr("Ctrl+.")), &MainWindow::cancelRun,
                          QStringLiteral("process-stop"));
    m_findAction = make(tr("&Find Task"), QKeySequence::Find, [this] {
        m_matrixView->searchEdit()->setFocus();
        m_matrixView->searchEdit()->selectAll();
    });
    m_flaggedOnlyAction = new QAction(tr("&Flagged Tasks Only"), this);
    m_flaggedOnlyAction->setCheckable(true);
    m_flaggedOnlyAction->setShortcut(QKeySequence(tr("Ctrl+Shift+F")));
    connect(m_flaggedOnlyAction, &QAction::toggled, m_matrixView->flaggedOnlyBox(),
            &QCheckBox::setChecked);
    connect(m_matrixView->flaggedOnlyBox(), &QCheckBox::toggled, m_flaggedOnlyAction,
            &QAction::setChecked);
    m_logCountAction = new QAction(tr("&Log Count in Histograms"), this);
    m_logCountAction->setCheckable(true);
    m_logCountAction->setShortcut(QKeySequence(tr("Ctrl+L")));
    connect(m_logCountAction, &QAction::toggled, m_detail->logCountBox(), &QCheckBox::setChecked);
    connect(m_detail->logCountBox(), &QCheckBox::toggled, m_logCountAction, &QAction::setChecked);
    const QString viewNames[] = {tr("&Task Detail"), tr("&Kernels"), tr("S&ummary"),
                                 tr("C&ompare")};
    for (int i = 0; i < 4; ++i) {
        m_viewActions[i] = make(viewNames[i], QKeySequence(tr("Ctrl+%1").arg(i + 1)),
                                [this, i] { m_tabs->setCurrentIndex(i); });
    }
    m_resetThresholdsAction = make(tr("&Reset to Profile"), QKeySequence(tr("Ctrl+0")),
                                   [this] { m_thresholds->resetToProfile(); });
    m_loadProfileAction =
        make(tr("&Load Profile\u2026"), QKeySequence(), &MainWindow::loadProfileDialog);
    m_saveProfileAction =
        make(tr("&Save Profile\u2026"), QKeySequence(), &MainWindow::saveProfileDialog);
    m_useUserThresholdsAction = make(tr("Use &My Thresholds"), QKeySequence(tr("Ctrl+Shift+M")),
                                     &MainWindow::useUserThresholds);
    m_useUserThresholdsAction->setToolTip(tr(
        "Your own thresholds (the last profile you chose and your edits) instead of the file's"));
    m_useFileThresholdsAction =
        make(tr("Use the &File's Thresholds"), QKeySequence(tr("Ctrl+Shift+T")),
             &MainWindow::useFileThresholds);
    m_useFileThresholdsAction->setToolTip(tr("The thresholds stored in the open results file"));
    m_runSeparateAction = make(tr("Run as &Separate Results"), QKeySequence(),
                               [this] { startRun(m_refusedRun, RunTarget::Separate); });
    // Tests and the context menu find actions by name.
    m_runSuiteAction->setObjectName(QStringLiteral("runSuite"));
    m_runSelectedAction->setObjectName(QStringLiteral("runSelected"));
    m_useUserThresholdsAction->setObjectName(QStringLiteral("useUserThresholds"));
    m_useFileThresholdsAction->setObjectName(QStringLiteral("useFileThresholds"));
    m_runSeparateAction->setObjectName(QStringLiteral("runSeparate"));
    m_exportCsvAction->setObjectName(QStringLiteral("exportCsv"));
}

void MainWindow::createMenus() {
    auto* file = menuBar()->addMenu(tr("&File"));
    file->addAction(m_openAction);
    file->addAction(m_openBenchAction);
    file->addAction(m_addBenchAction);
    file->addAction(m_openSuiteAction);
    file->addAction(m_compareAction);
    file->addAction(m_addComparisonAction);
    m_recentMenu = file->addMenu(tr("Open &Recent"));
    file->addSeparator();
    file->addAction(m_saveAction);
    file->addAction(m_saveAsAction);
    file->addSeparator();
    auto* exportMenu = file->addMenu(tr("&Export"));
    exportMenu->addAction(m_exportCsvAction);
    exportMenu->addAction(m_exportChartAction);
    exportMenu->addAction(m_exportJsonAction);
    file->addSeparator();
    file->addAction(m_quitAction);

    auto* view = menuBar()->addMenu(tr("&View"));
    view->addAction(m_findAction);
    view->addAction(m_flaggedOnlyAction);
    view->addAction(m_logCountAction);
    view->addSeparator();
    for (auto* a : m_viewActions)
        view->addAction(a);
    view->addSeparator();
    view->addAction(m_layout->focusViewsAction());
    view->addAction(m_thresholdDock->toggleViewAction());

    auto* run = menuBar()->addMenu(tr("&Run"));
    run->addAction(m_runSuiteAction);
    run->addAction(m_runSelectedAction);
    run->addAction(m_cancelAction);

    auto* thresholds = menuBar()->addMenu(tr("&Thresholds"));
    thresholds->addAction(m_resetThresholdsAction);
    thresholds->addAction(m_loadProfileAction);
    thresholds->addAction(m_saveProfileAction);
    thresholds->addSeparator();
    thresholds->addAction(m_useFileThresholdsAction);
    thresholds->addAction(m_useUserThresholdsAction);

    auto* help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&About KernelSieve"), this, &MainWindow::about);
    help->addAction(tr("About &Qt"), qApp, &QApplication::aboutQt);

    auto* tools = addToolBar(tr("Main"));
    m_layout->setToolBar(tools);
    tools->setObjectName(QStringLiteral("mainToolBar"));
    tools->setToolButtonStyle(Qt::ToolButtonTextOnly);
    tools->addAction(m_openAction);
    tools->addAction(m_saveAction);
    tools->addAction(m_compareAction);
    tools->addSeparator();
    tools->addAction(m_runSuiteAction);
    tools->addAction(m_runSelectedAction);
    tools->addAction(m_cancelAction);
    tools->addSeparator();
    tools->addAction(m_exportCsvAction);
    rebuildRecentMenu();
}

// --- layout for the screen (WindowLayout) -------------------------------------------------------

MainWindow::LayoutMode MainWindow::layoutModeFor(const QSize& size) {
    return WindowLayout::modeFor(size);
}

MainWindow::LayoutMode MainWindow::layoutMode() const {
    return m_layout->mode();
}

void MainWindow::setViewsFocused(bool on) {
    m_layout->setViewsFocused(on);
}

bool MainWindow::viewsFocused() const {
    return m_layout->viewsFocused();
}

void MainWindow::resizeEvent(QResizeEvent* event) {
    QMainWindow::resizeEvent(event);
    m_layout->windowResized(event->size());
}

// --- settings -----------------------------------------------------------------------------------

void MainWindow::readSettings() {
    QSettings s;
    if (s.contains(QStringLiteral("window/geometry")))
        restoreGeometry(s.value(QStringLiteral("window/geometry")).toByteArray());
    if (s.contains(QStringLiteral("window/state")))
        restoreState(s.value(QStringLiteral("window/state")).toByteArray());
    if (s.contains(QStringLiteral("window/splitter")))
        m_split->restoreState(s.value(QStringLiteral("window/splitter")).toByteArray());
    m_layout->splitRestored();
    m_tabs->setCurrentIndex(s.value(QStringLiteral("window/view"), 0).toInt());
    m_detail->logCountBox()->setChecked(s.value(QStringLiteral("view/logCount"), false).toBool());

    ks::Thresholds t = ks::Thresholds::defaults();
    const QString profile = s.value(QStringLiteral("thresholds/profile")).toString();
    const QString profileFile = s.value(QStringLiteral("thresholds/profileFile")).toString();
    if (!profile.isEmpty()) {
        // Reset must return to the profile the values came from, built in or loaded from a file.
        if (const auto p = ks::builtinProfile(profile.toStdString()))
            m_thresholds->setProfile(*p);
        else if (!profileFile.isEmpty() && QFileInfo::exists(profileFile))
            m_thresholds->loadProfile(profileFile, nullptr);
        t = m_thresholds->profile();
        t.profile = profile.toStdString();
        for (const auto& i : ks::thresholdInfos()) { // settings from before filters 5-6 lack theirs
            const QString key = QStringLiteral("thresholds/") + QString::fromUtf8(i.key);
            if (s.contains(key)) t.set(i.threshold, s.value(key).toDouble());
        }
        const QString margin = QStringLiteral("thresholds/") + QString::fromUtf8(ks::BorderlineMarginKey);
        if (s.contains(margin)) t.borderlineMargin = s.value(margin).toDouble();
    }
    m_thresholdSource = ThresholdSource::User;
    m_thresholds->setThresholds(t); // -> onThresholdsChanged: the user's thresholds

    m_lastRun.seeds = s.value(QStringLiteral("run/seeds"), 5).toInt();
    m_lastRun.preset = s.value(QStringLiteral("run/preset")).toString();
    m_lastRun.device = s.value(QStringLiteral("run/device"), QStringLiteral("auto")).toString();
    m_lastRun.suite = s.value(QStringLiteral("run/suite"), QStringLiteral("builtin")).toString();
    m_lastRun.inefficiency = s.value(QStringLiteral("run/inefficiency"), true).toBool();
    m_lastRun.redundancy = s.value(QStringLiteral("run/redundancy"), true).toBool();
    m_lastRun.gpus = s.value(QStringLiteral("run/gpus")).toString();
    m_lastRun.workersPerGpu = s.value(QStringLiteral("run/workersPerGpu"), 1).toInt();
}

void MainWindow::saveSettings() const {
    QSettings s;
    s.setValue(QStringLiteral("window/geometry"), saveGeometry());
    s.setValue(QStringLiteral("window/state"), saveState());
    s.setValue(QStringLiteral("window/splitter"), m_split->saveState());
    s.setValue(QStringLiteral("window/view"), m_tabs->currentIndex());
    s.setValue(QStringLiteral("view/logCount"), m_detail->logCountBox()->isChecked());
    // The user's own thresholds, never a file's: those are the file's, and win only while it is
    // open.
    const ks::Thresholds& t = m_userThresholds;
    s.setValue(QStringLiteral("thresholds/profile"), QString::fromStdString(t.profile));
    s.setValue(QStringLiteral("thresholds/profileFile"), m_userProfilePath);
    for (const auto& i : ks::thresholdInfos())
        s.setValue(QStringLiteral("thresholds/") + QString::fromUtf8(i.key), t.value(i.threshold));
    s.setValue(QStringLiteral("thresholds/") + QString::fromUtf8(ks::BorderlineMarginKey), t.borderlineMargin);
    s.setValue(QStringLiteral("run/seeds"), m_lastRun.seeds);
    s.setValue(QStringLiteral("run/preset"), m_lastRun.preset);
    s.setValue(QStringLiteral("run/device"), m_lastRun.device);
    s.setValue(QStringLiteral("run/suite"), m_lastRun.suite);
    s.setValue(QStringLiteral("run/inefficiency"), m_lastRun.inefficiency);
    s.setValue(QStringLiteral("run/redundancy"), m_lastRun.redundancy);
    s.setValue(QStringLiteral("run/gpus"), m_lastRun.gpus);
    s.setValue(QStringLiteral("run/workersPerGpu"), m_lastRun.workersPerGpu);
    if (!m_resultsPath.isEmpty()) s.setValue(QStringLiteral("files/lastResults"), m_resultsPath);
    s.setValue(QStringLiteral("files/lastBench"), m_benchPath);
    // Every bench file open (several at once), reopened by the next start.
    QStringList benches;
    for (int i = 0; i < m_kernels->benchCount(); ++i)
        if (!m_kernels->benchPath(i).isEmpty()) benches << m_kernels->benchPath(i);
    s.setValue(QStringLiteral("files/benches"), benches);
}

QStringList MainWindow::recentFiles() const {
    return QSettings().value(QStringLiteral("files/recent")).toStringList();
}

void MainWindow::addRecentFile(const QString& path) {
    const QString abs = QFileInfo(path).absoluteFilePath();
    QStringList recent = recentFiles();
    recent.removeAll(abs);
    recent.prepend(abs);
    while (recent.size() > MaxRecentFiles)
        recent.removeLast();
    QSettings s;
    s.setValue(QStringLiteral("files/recent"), recent);
    rebuildRecentMenu();
}

void MainWindow::rebuildRecentMenu() {
    m_recentMenu->clear();
    const QStringList recent = recentFiles();
    for (int i = 0; i < recent.size(); ++i) {
        const QString path = recent[i];
        auto* a = m_recentMenu->addAction(
            QStringLiteral("&%1 %2").arg(i + 1).arg(QFileInfo(path).fileName()));
        a->setToolTip(path);
        a->setStatusTip(path);
        connect(a, &QAction::triggered, this, [this, path] { openPath(path); });
    }
    if (recent.isEmpty())
        m_recentMenu->addAction(tr("(none)"))->setEnabled(false);
    else {
        m_recentMenu->addSeparator();
        m_recentMenu->addAction(tr("Clear List"), this, [this] {
            QSettings().remove(QStringLiteral("files/recent"));
            rebuildRecentMenu();
        });
    }
}

void MainWindow::closeEvent(QCloseEvent* event) {
    if (isRunning()) {
        const auto answer = QMessageBox::question(
            this, tr("Run in progress"),
            tr("A run is in progress. Stop it and quit? Finished tasks are kept in %1.")
                .arg(QDir::toNativeSeparators(autosavePath())));
        if (answer != QMessageBox::Yes) {
            event->ignore();
            return;
        }
        cancelRun();
    }
    if (isWindowModified()) {
        const auto answer = QMessageBox::question(
            this, tr("Unsaved results"),
            tr("The results of the last run are not saved. Save them before quitting?"),
            QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel);
        if (answer == QMessageBox::Cancel || (answer == QMessageBox::Save && !saveDialog())) {
            event->ignore();
            return;
        }
    }
    saveSettings();
    event->accept();
}

// --- startup and files --------------------------------------------------------------------------

void MainWindow::startup(const QString& path) {
    m_client->probeDevice();
    if (!path.isEmpty()) {
        openPath(path);
        return;
    }
    QSettings s;
    const QString last = s.value(QStringLiteral("files/lastResults")).toString();
    const QString bench = s.value(QStringLiteral("files/lastBench")).toString();
    QStringList benches = s.value(QStringLiteral("files/benches")).toStringList();
    if (benches.isEmpty() && !bench.isEmpty()) benches << bench; // settings of an older version
    bool first = true;
    for (const QString& b : benches)
        if (QFileInfo::exists(b) && addBench(b, first)) first = false;
    if (!last.isEmpty() && QFileInfo::exists(last) && openResults(last)) return;
    // First start (or the last file is gone): the built-in suite, not run yet, and an offer.
    if (openSuite(QStringLiteral("builtin")))
        m_messages->showMessage(tr("This is the built-in suite, not run yet. Press <b>Run "
                                   "Suite</b> (F5) to measure it: "
                                   "flags appear as each task finishes."),
                                MessageBar::Kind::Information);
}

bool MainWindow::openPath(const QString& path) {
    const QFileInfo info(path);
    if (info.isDir() || path == QLatin1String("builtin")) return openSuite(path);
    QFile f(path);
    if (f.open(QIODevice::ReadOnly) && f.read(4096).contains("\"kernelsieve.bench\""))
        return openBench(path);
    return openResults(path);
}

void MainWindow::setResults(ks::RunResults results, const QString& path) {
    const QString keep = currentTaskId();
    m_resultsPath = path;
    m_model->setResults(std::move(results));
    updateRunInfo();
    if (!selectTask(keep) && m_proxy->rowCount() > 0)
        m_matrixView->selectTask(
            m_proxy->index(0, 0).data(FilterMatrixModel::TaskIdRole).toString());
    setWindowModified(false);
    updateTitle();
    updateRunState();
    updateComparison(true);
}

QString MainWindow::resultsName() const {
    return m_resultsPath.isEmpty() ? tr("unsaved results") : QFileInfo(m_resultsPath).fileName();
}

bool MainWindow::compareWith(const QString& path) {
    return addComparison(path, true);
}

bool MainWindow::addComparison(const QString& path, bool replace) {
    ks::RunResults b;
    try {
        b = ks::resultsFromJson(ks::readFile(path.toStdString()), path.toStdString());
    } catch (const std::exception& e) {
        showError(tr("Cannot compare: %1").arg(QString::fromUtf8(e.what())));
        return false;
    }
    const QString name = QFileInfo(path).fileName();
    if (replace || !m_compareModel->isActive()) {
        const ks::Thresholds ta = m_model->thresholds();
        const ks::Thresholds tb = m_compareView->thresholdsB(ta, b.thresholds);
        m_compareModel->setThresholds(ta, tb);
        m_compareModel->setB(std::move(b), name);
        m_compareModel->setA(&m_model->results(), resultsName());
    } else {
        m_compareModel->addB(std::move(b), name);
    }
    updateComparison(false); // each file judged by what the view says, its own thresholds too
    showView(View::Compare);
    const int k = m_compareModel->otherCount() - 1;
    statusBar()->showMessage(tr("Compared with %1: %2 of %3 tasks differ in a flag")
                                 .arg(name)
                                 .arg(m_compareModel->diff(k).differingTasks)
                                 .arg(m_compareModel->diff(k).tasks.size()),
                             8000);
    return true;
}

void MainWindow::removeComparison(int other) {
    if (m_compareModel->otherCount() <= 1)
        closeComparison();
    else
        m_compareModel->removeB(other);
}

void MainWindow::closeComparison() {
    m_compareModel->clear();
}

void MainWindow::updateComparison(bool rowsChanged) {
    if (!m_compareModel || !m_compareModel->isActive()) return;
    const ks::Thresholds ta = m_model->thresholds();
    std::vector<ks::Thresholds> tb;
    for (int k = 0; k < m_compareModel->otherCount(); ++k)
        tb.push_back(m_compareView->thresholdsB(ta, m_compareModel->resultsB(k).thresholds));
    m_compareModel->setThresholds(ta, tb); // in place, O(files x tasks)
    if (rowsChanged) m_compareModel->setA(&m_model->results(), resultsName()); // the union again
}

bool MainWindow::openResults(const QString& path) {
    ks::RunResults results;
    try {
        results = ks::resultsFromJson(ks::readFile(path.toStdString()), path.toStdString());
    } catch (const std::exception& e) {
        showError(tr("Cannot open results: %1").arg(QString::fromUtf8(e.what())));
        return false;
    }
    m_suite = QString::fromStdString(results.run.suite).isEmpty()
                  ? QStringLiteral("builtin")
                  : QString::fromStdString(results.run.suite);
    // The file's thresholds win: the counts and CSVs must be the ones the file reports, not
    // whatever was in the panel the last time the app ran.
    m_fileThresholds = results.thresholds;
    setResults(std::move(results), path);
    applyThresholdSource(ThresholdSource::File);
    addRecentFile(path);
    m_messages->hide();
    QStringList differ;
    for (const auto& i : ks::thresholdInfos())
        if (m_fileThresholds->value(i.threshold) != m_userThresholds.value(i.threshold))
            differ << QStringLiteral("%1 %2 (yours %3)")
                          .arg(QString::fromUtf8(i.key))
                          .arg(m_fileThresholds->value(i.threshold), 0, 'g', 6)
                          .arg(m_userThresholds.value(i.threshold), 0, 'g', 6);
    if (m_fileThresholds->borderlineMargin != m_userThresholds.borderlineMargin)
        differ << QStringLiteral("%1 %2 (yours %3)")
                      .arg(QString::fromUtf8(ks::BorderlineMarginKey))
                      .arg(m_fileThresholds->borderlineMargin, 0, 'g', 6)
                      .arg(m_userThresholds.borderlineMargin, 0, 'g', 6);
    if (!differ.isEmpty()) {
        const int shown = 4;
        m_messages->showMessage(
            tr("Flags and counts use the thresholds stored in %1 (%2). Yours differ: %3%4.")
                .arg(QFileInfo(path).fileName().toHtmlEscaped(),
                     QString::fromStdString(m_fileThresholds->profile).toHtmlEscaped(),
                     differ.mid(0, shown).join(QStringLiteral(", ")),
                     differ.size() > shown ? tr(" and %1 more").arg(differ.size() - shown)
                                           : QString()),
            MessageBar::Kind::Information, {m_useUserThresholdsAction});
    }
    statusBar()->showMessage(
        tr("Opened %1: %2 tasks").arg(QFileInfo(path).fileName()).arg(m_model->rowCount()), 5000);
    return true;
}

bool MainWindow::openBench(const QString& path) {
    return addBench(path, true);
}

bool MainWindow::addBench(const QString& path, bool replace) {
    ks::BenchRun run;
    try {
        run = ks::benchFromJson(ks::readFile(path.toStdString()), path.toStdString());
    } catch (const std::exception& e) {
        showError(tr("Cannot open kernel bench: %1").arg(QString::fromUtf8(e.what())));
        return false;
    }
    const int tasks = int(run.tasks.size());
    if (replace)
        m_kernels->setBench(run, {}, path);
    else
        m_kernels->addBench(run, {}, path);
    m_benchPath = path;
    addRecentFile(path);
    statusBar()->showMessage(
        tr("Opened kernel bench %1: %2 tasks with kernels%3")
            .arg(QFileInfo(path).fileName())
            .arg(tasks)
            .arg(m_kernels->benchCount() > 1
                     ? tr(" (%1 bench files open)").arg(m_kernels->benchCount())
                     : QString()),
        5000);
    return true;
}

bool MainWindow::openSuite(const QString& dirOrBuiltin) {
    ks::Suite suite;
    try {
        suite = ks::loadSuite(dirOrBuiltin.toStdString());
    } catch (const std::exception& e) {
        showError(tr("Cannot open suite: %1").arg(QString::fromUtf8(e.what())));
        return false;
    }
    m_suite = dirOrBuiltin;
    m_lastRun.suite = dirOrBuiltin;
    m_fileThresholds.reset(); // nothing measured: no thresholds of a file, the user's apply
    setResults(ResultsUtil::resultsFromSuite(suite), {});
    applyThresholdSource(ThresholdSource::User);
    if (!suite.issues.empty())
        m_messages->showMessage(
            tr("%1 task file(s) in %2 could not be loaded; they are listed as failed tasks.")
                .arg(suite.issues.size())
                .arg(dirOrBuiltin),
            MessageBar::Kind::Warning);
    if (dirOrBuiltin != QLatin1String("builtin")) addRecentFile(dirOrBuiltin);
    return true;
}

bool MainWindow::saveResults(const QString& path) {
    ks::RunResults r = m_model->results();
    r.thresholds = m_model->thresholds();
    try {
        ks::writeFileAtomic(path.toStdString(), ks::resultsToJson(r));
    } catch (const std::exception& e) {
        showError(tr("Cannot save results: %1").arg(QString::fromUtf8(e.what())));
        return false;
    }
    m_resultsPath = path;
    m_fileThresholds = r.thresholds;
    if (m_thresholdSource == ThresholdSource::File)
        m_thresholds->setProfile(r.thresholds); // not "edited"
    setWindowModified(false);
    updateTitle();
    addRecentFile(path);
    QSettings().setValue(QStringLiteral("files/lastResults"), path);
    statusBar()->showMessage(tr("Saved %1").arg(path), 5000);
    return true;
}

bool MainWindow::exportCsv(const QString& path, CsvRows rows) {
    // The CLI's format; the visible rows are those the filters leave, in file order.
    const ks::RunResults& all = m_model->results();
    const bool subset = rows == CsvRows::Visible && m_proxy->isFiltering();
    const QList<int> shown = subset ? m_proxy->acceptedSourceRows() : QList<int>();
    const std::string csv =
        subset ? ks::resultsToCsv(ResultsUtil::subset(all, shown), m_model->thresholds())
               : ks::resultsToCsv(all, m_model->thresholds());
    try {
        ks::writeFileAtomic(path.toStdString(), csv);
    } catch (const std::exception& e) {
        showError(tr("Cannot export CSV: %1").arg(QString::fromUtf8(e.what())));
        return false;
    }
    statusBar()->showMessage(
        tr("Exported %1 (%2, %3) to %4")
            .arg(subset ? tr("%1 of %2 rows").arg(shown.size()).arg(all.tasks.size())
                        : tr("all %1 rows").arg(all.tasks.size()),
                 subset ? tr("the visible rows") : tr("every task"), thresholdsInForceText(), path),
        8000);
    return true;
}

std::optional<MainWindow::CsvRows> MainWindow::askCsvRows() {
    if (!m_proxy->isFiltering()) return CsvRows::All;
    const int shown = m_proxy->rowCount(), total = m_model->rowCount();
    QMessageBox box(QMessageBox::Question, tr("Export filter table"),
                    tr("The matrix shows %1 of %2 tasks (%3). Export the visible rows or all rows?")
                        .arg(shown)
                        .arg(total)
                        .arg(m_proxy->filterDescription()),
                    QMessageBox::Cancel, this);
    box.setObjectName(QStringLiteral("csvRowsQuestion"));
    box.setInformativeText(
        tr("Flags and threshold columns use the %1.").arg(thresholdsInForceText()));
    auto* visible = box.addButton(tr("Visible Rows (%1)").arg(shown), QMessageBox::AcceptRole);
    visible->setObjectName(QStringLiteral("exportVisibleRows"));
    auto* all = box.addButton(tr("All Rows (%1)").arg(total), QMessageBox::AcceptRole);
    all->setObjectName(QStringLiteral("exportAllRows"));
    box.setDefaultButton(visible);
    box.exec();
    if (box.clickedButton() == visible) return CsvRows::Visible;
    if (box.clickedButton() == all) return CsvRows::All;
    return std::nullopt;
}

QString MainWindow::suggestedCsvName(CsvRows rows) const {
    QString name = m_resultsPath.isEmpty() ? QStringLiteral("filters")
                                           : QFileInfo(m_resultsPath).completeBaseName();
    if (rows == CsvRows::Visible && m_proxy->isFiltering())
        name +=
            QStringLiteral("-visible-%1-of-%2").arg(m_proxy->rowCount()).arg(m_model->rowCount());
    if (m_fileThresholds && !sameValues(m_model->thresholds(), *m_fileThresholds))
        name += m_thresholdSource == ThresholdSource::User ? QStringLiteral("-my-thresholds")
                                                           : QStringLiteral("-edited-thresholds");
    return name + QStringLiteral(".csv");
}

bool MainWindow::exportTaskJson(const QString& path) {
    const ks::TaskResult* t = m_model->task(m_model->rowOf(currentTaskId()));
    if (!t) {
        showError(tr("Select a task to export its metrics."));
        return false;
    }
    try {
        ks::writeFileAtomic(path.toStdString(),
                            ResultsUtil::taskMetricsJson(*t, m_model->thresholds()));
    } catch (const std::exception& e) {
        showError(tr("Cannot export task metrics: %1").arg(QString::fromUtf8(e.what())));
        return false;
    }
    statusBar()->showMessage(tr("Exported %1").arg(path), 5000);
    return true;
}

bool MainWindow::exportChart(const QString& chartName, const QString& path) {
    ChartWidget* c = chart(chartName);
    if (!c) {
        showError(tr("No chart named '%1'").arg(chartName));
        return false;
    }
    QString error;
    if (!c->exportTo(path, &error)) {
        showError(error);
        return false;
    }
    statusBar()->showMessage(tr("Exported %1").arg(path), 5000);
    return true;
}

QList<ChartWidget*> MainWindow::charts() const {
    QList<ChartWidget*> all = m_detail->charts();
    all << m_kernels->charts();
    all << m_summaryView->chart();
    return all;
}

ChartWidget* MainWindow::chart(const QString& name) const {
    for (auto* c : charts())
        if (c->objectName() == name) return c;
    return nullptr;
}

// --- thresholds and selection -------------------------------------------------------------------

void MainWindow::setThresholds(const ks::Thresholds& thresholds) {
    m_thresholds->setThresholds(thresholds); // emits thresholdsChanged -> onThresholdsChanged
}

void MainWindow::onThresholdsChanged(const ks::Thresholds& thresholds) {
    m_model->setThresholds(thresholds); // flagsChanged -> updateFlagCounts
    updateComparison(false);
    if (m_thresholdSource == ThresholdSource::User) {
        m_userThresholds = thresholds;
        m_userProfile = m_thresholds->profile();
        m_userProfilePath = m_thresholds->profilePath();
    }
    updateTitle();
}

void MainWindow::applyThresholdSource(ThresholdSource source) {
    if (source == ThresholdSource::File && !m_fileThresholds) source = ThresholdSource::User;
    m_thresholdSource = source;
    if (source == ThresholdSource::File) {
        const ks::Thresholds file = *m_fileThresholds;
        m_thresholds->setProfile(file); // Reset returns to the file's values
        m_thresholds->setThresholds(file);
    } else {
        const ks::Thresholds user = m_userThresholds, profile = m_userProfile;
        const QString path = m_userProfilePath;
        m_thresholds->setProfile(profile, path);
        m_thresholds->setThresholds(user);
    }
    updateTitle();
}

void MainWindow::useUserThresholds() {
    applyThresholdSource(ThresholdSource::User);
    statusBar()->showMessage(tr("Thresholds in force: %1").arg(thresholdsInForceText()), 5000);
}

void MainWindow::useFileThresholds() {
    if (!m_fileThresholds) {
        showError(tr("No results file is open: there are no file thresholds to use."));
        return;
    }
    applyThresholdSource(ThresholdSource::File);
    statusBar()->showMessage(tr("Thresholds in force: %1").arg(thresholdsInForceText()), 5000);
}

QString MainWindow::thresholdsInForceText() const {
    const QString profile = QString::fromStdString(m_model->thresholds().profile);
    if (m_thresholdSource == ThresholdSource::File)
        return m_fileThresholds && !sameValues(m_model->thresholds(), *m_fileThresholds)
                   ? tr("file's thresholds (%1), edited").arg(profile)
                   : tr("file's thresholds (%1)").arg(profile);
    return m_thresholds->isModified() ? tr("my thresholds (%1, modified)").arg(profile)
                                      : tr("my thresholds (%1)").arg(profile);
}

void MainWindow::updateFlagCounts() {
    std::array<int, ks::CriterionCount> counts{};
    for (const auto& c : ks::criteria())
        counts[static_cast<size_t>(c.criterion)] = m_model->flaggedCount(c.criterion);
    m_thresholds->setCounts(counts);
}

void MainWindow::onCurrentTaskChanged(const QString& id) {
    m_detail->setTask(id);
    m_kernels->setTask(id);
    updateRunState();
}

QMenu* MainWindow::taskContextMenu(const QString& id) {
    auto* menu = new QMenu(this);
    menu->setObjectName(QStringLiteral("taskContextMenu"));
    const ks::TaskResult* t = m_model->task(m_model->rowOf(id));
    if (!t) return menu;
    // The menu acts on the task under the pointer, as the selection then shows.
    if (!m_matrixView->selectedTaskIds().contains(id)) selectTask(id);
    const QString name = QString::fromStdString(t->name);
    auto* copyId = menu->addAction(tr("Copy ID (%1)").arg(id), this,
                                   [id] { QGuiApplication::clipboard()->setText(id); });
    copyId->setObjectName(QStringLiteral("copyTaskId"));
    auto* copyName = menu->addAction(tr("Copy Name"), this,
                                     [name] { QGuiApplication::clipboard()->setText(name); });
    copyName->setObjectName(QStringLiteral("copyTaskName"));
    const int line = ResultsUtil::flaggedSourceLine(*t, m_model->thresholds());
    auto* source = menu->addAction(line > 0 ? tr("Show Source at the Flagged Line (%1)").arg(line)
                                            : tr("Show Source"),
                                   this, [this, id] { showTaskSource(id); });
    source->setObjectName(QStringLiteral("showTaskSource"));
    source->setEnabled(!t->source.empty());
    menu->addSeparator();
    auto* rerun = menu->addAction(tr("Re-run This Task\u2026"), this, [this, id] {
        selectTask(id);
        runDialog(true);
    });
    rerun->setObjectName(QStringLiteral("rerunTask"));
    rerun->setEnabled(!isRunning());
    return menu;
}

bool MainWindow::showTaskSource(const QString& id) {
    const ks::TaskResult* t = m_model->task(m_model->rowOf(id));
    if (!t || !selectTask(id)) return false;
    showView(View::TaskDetail);
    m_detail->showGraphAnalyses(true);
    const int line = ResultsUtil::flaggedSourceLine(*t, m_model->thresholds());
    return m_detail->showSourceLine(line > 0 ? line : 1);
}

bool MainWindow::selectTask(const QString& id) {
    return !id.isEmpty() && m_matrixView->selectTask(id);
}

QString MainWindow::currentTaskId() const {
    return m_matrixView->currentTaskId();
}

void MainWindow::showView(View view) {
    m_tabs->setCurrentIndex(static_cast<int>(view));
}

void MainWindow::updateRunInfo() {
    const auto& r = m_model->results();
    m_runInfo->setRunInfo(r.run, r.thresholds, m_model->rowCount());
}

// --- runs ---------------------------------------------------------------------------------------

bool MainWindow::isRunning() const {
    return m_client->isRunning();
}

bool MainWindow::openResultsMeasured() const {
    // A suite opened but not run has no run (no device): any run may fill its rows.
    return !m_model->results().run.device.empty();
}

QString MainWindow::mergeProblem(const RunClient::Options& o) const {
    if (!openResultsMeasured()) return {};
    const ks::RunInfo& run = m_model->results().run;
    QStringList why;
    if (!run.suite.empty() && o.suite != QString::fromStdString(run.suite))
        why << tr("suite %1 (this run: %2)").arg(QString::fromStdString(run.suite), o.suite);
    if (run.seeds > 0 && o.seeds != run.seeds)
        why << tr("seeds %1 (this run: %2)").arg(run.seeds).arg(o.seeds);
    if (!o.preset.isEmpty() && !run.preset.empty() &&
        o.preset != QString::fromStdString(run.preset))
        why << tr("preset %1 (this run: %2)").arg(QString::fromStdString(run.preset), o.preset);
    if (o.device != QLatin1String("auto") && o.device != QString::fromStdString(run.device))
        why << tr("device %1 (this run: %2)").arg(QString::fromStdString(run.device), o.device);
    return why.join(QStringLiteral("; "));
}

void MainWindow::refuseMerge(const QString& why, const RunClient::Options& o) {
    const QString name =
        m_resultsPath.isEmpty() ? tr("the open results") : QFileInfo(m_resultsPath).fileName();
    m_refusedRun = o;
    m_messages->showMessage(tr("<b>Not merged into %1.</b> Its tasks were measured by another run: "
                               "it differs in %2. One "
                               "results file holds one run (suite, device, preset, seeds), so "
                               "nothing of it was changed. "
                               "Run the tasks as separate results to compare them with it.")
                                .arg(name.toHtmlEscaped(), why.toHtmlEscaped()),
                            MessageBar::Kind::Error, {m_runSeparateAction});
}

void MainWindow::startRun(const RunClient::Options& requested, RunTarget target) {
    if (isRunning()) {
        showError(tr("A run is already in progress."));
        return;
    }
    RunClient::Options o = requested;
    if (m_device == QLatin1String("cpu") && o.preset.isEmpty())
        o.preset = QStringLiteral("small"); // full KernelBench shapes take hours on a CPU
    m_freshResults = o.taskIds.isEmpty() || target == RunTarget::Separate;
    if (!m_freshResults) {
        // What is known before the worker starts; the rest (what "auto" resolves to, the GPU's
        // name, seed semantics) is checked against its start event.
        if (const QString why = mergeProblem(o); !why.isEmpty()) {
            refuseMerge(why, requested);
            return;
        }
    }
    // A fresh run beside a measured file: compare them as the run streams in (more seeds, another
    // device, a fixed task: the question the re-run asks).
    const QString previous = m_freshResults && openResultsMeasured() && !m_resultsPath.isEmpty()
                                 ? m_resultsPath
                                 : QString();
    if (m_freshResults) {
        // Rows for every task at once (not run yet); results fill them in as they arrive. A
        // separate run of selected tasks gets theirs only (as the open file has them).
        ks::RunResults fresh;
        if (o.taskIds.isEmpty()) {
            try {
                fresh = ResultsUtil::resultsFromSuite(ks::loadSuite(o.suite.toStdString()));
            } catch (const std::exception& e) {
                fresh = {};
            }
        } else {
            for (const QString& id : o.taskIds)
                if (const auto* t = m_model->task(m_model->rowOf(id))) {
                    ks::TaskResult row;
                    row.id = t->id;
                    row.name = t->name;
                    row.category = t->category;
                    row.description = t->description;
                    row.level = t->level;
                    row.number = t->number;
                    row.tags = t->tags;
                    row.source = t->source;
                    row.specJson = t->specJson;
                    row.status = ks::TaskStatus::Skipped;
                    fresh.tasks.push_back(std::move(row));
                }
        }
        fresh.thresholds = m_model->thresholds();
        fresh.run.suite = o.suite.toStdString();
        // The new results' own thresholds are the ones in force; a file's are no longer open.
        if (m_thresholdSource == ThresholdSource::File)
            m_fileThresholds = fresh.thresholds;
        else
            m_fileThresholds.reset();
        setResults(std::move(fresh), {});
        m_suite = o.suite;
    }
    m_mergeRefused = false;
    m_runOptions = requested;
    m_lastRun = requested;
    m_lastRun.taskIds.clear();
    m_messages->hide();
    m_progress->setRange(0, std::max(1, int(o.taskIds.size())));
    m_progress->setValue(0);
    m_runLabel->setText(tr("Starting the worker\u2026"));
    m_client->start(o);
    updateRunState();
    if (!previous.isEmpty()) compareWith(previous);
}

void MainWindow::startKernelRun(const RunClient::BenchOptions& requested) {
    if (isRunning()) {
        showError(tr("A run is already in progress."));
        return;
    }
    RunClient::BenchOptions o = requested;
    if (o.suite.isEmpty() || o.suite == QLatin1String("builtin")) o.suite = m_suite;
    // The GPUs of the last filter run (one kernel worker on each, timing alone on its GPU).
    if (o.gpus.isEmpty() && m_lastRun.device != QLatin1String("cpu")) o.gpus = m_lastRun.gpus;
    // The open results' shapes, so the kernels' speedups sit beside flags of the same preset.
    if (o.preset.isEmpty()) {
        const std::string preset = m_model->results().run.preset;
        o.preset = !preset.empty() ? QString::fromStdString(preset) : m_lastRun.preset;
    }
    m_messages->hide();
    m_progress->setRange(0, std::max(1, int(o.taskIds.size())));
    m_progress->setValue(0);
    m_runLabel->setText(tr("Starting the kernel worker\u2026"));
    m_client->startBench(o);
    updateRunState();
}

void MainWindow::onKernelRunFinished(const ks::BenchRun& run, bool cancelled) {
    const RunClient::BenchOptions& o = m_client->benchOptions();
    // Kept beside the autosave, so the run survives the worker's temporary folder and can be
    // opened again (File > Open Recent).
    const QString dir = QDir(QStandardPaths::writableLocation(QStandardPaths::AppDataLocation))
                            .filePath(QStringLiteral("kernel-runs"));
    QDir().mkpath(dir);
    const QString stamp =
        QDateTime::currentDateTime().toString(QStringLiteral("yyyyMMdd-HHmmss-zzz"));
    const QString path = QDir(dir).filePath(QStringLiteral("%1-%2.json").arg(o.command, stamp));
    QString saved = path;
    try {
        ks::writeFileAtomic(path.toStdString(), ks::benchToJson(run));
    } catch (const std::exception&) {
        saved.clear(); // still shown; only the copy on disk is missing
    }
    const QString label =
        tr("%1 %2").arg(o.command, QTime::currentTime().toString(QStringLiteral("HH:mm:ss")));
    m_kernels->addBench(run, label, saved);
    if (!saved.isEmpty()) addRecentFile(saved);
    const int n = int(run.tasks.size());
    m_runLabel->setText(cancelled ? tr("Kernel run cancelled: %1 finished task(s) kept").arg(n)
                                  : tr("Kernel run finished: %1 task(s)").arg(n));
    showView(View::Kernels);
    updateRunState();
}

void MainWindow::cancelRun() {
    if (!isRunning()) return;
    m_runLabel->setText(tr("Cancelling\u2026"));
    m_client->cancel();
}

void MainWindow::onRunStarted(const ks::RunInfo& info, int total) {
    if (!m_freshResults && openResultsMeasured()) {
        // The worker's own account of the run (device and GPU name, preset, seeds, seed
        // semantics) against the file's: a mismatch is refused before any row is replaced.
        std::vector<std::string> ids;
        for (const auto& t : m_model->results().tasks)
            ids.push_back(t.id);
        if (const std::string why = ks::resultsConflict(m_model->results(), info, ids);
            !why.empty()) {
            m_mergeRefused = true;
            m_client->cancel();
            refuseMerge(QString::fromStdString(why), m_runOptions);
            return;
        }
    }
    if (m_freshResults || !openResultsMeasured()) {
        m_model->setRunInfo(info);
        updateRunInfo();
    }
    m_progress->setRange(0, std::max(1, total));
}

void MainWindow::onRunProgress(int done, int total, const QString& current) {
    m_progress->setRange(0, std::max(1, total));
    m_progress->setValue(done);
    if (m_client->mode() == RunClient::Mode::Bench) {
        const QString what = m_client->benchOptions().command == QLatin1String("bench")
                                 ? tr("Benchmarking kernels")
                                 : tr("Validating kernels");
        m_runLabel->setText(
            current.isEmpty()
                ? tr("%1: %2 of %3 tasks done").arg(what).arg(done).arg(total)
                : tr("%1 of %2%3 \u00b7 %4 of %5 tasks done")
                      .arg(what, current,
                           m_client->currentPhase().isEmpty()
                               ? QString()
                               : QStringLiteral(" (%1)").arg(m_client->currentPhase()))
                      .arg(done)
                      .arg(total));
        return;
    }
    m_runLabel->setText(
        current.isEmpty() || done >= total
            ? tr("Running: %1 of %2 tasks done").arg(done).arg(total)
            : tr("Running %1%2 \u00b7 %3 of %4 tasks done")
                  .arg(current,
                       m_client->currentPhase().isEmpty() ? QString()
                                                          : QStringLiteral(" (%1)").arg(m_client->currentPhase()))
                  .arg(done)
                  .arg(total));
}

void MainWindow::onTaskFinished(const ks::TaskResult& task, int index) {
    if (m_mergeRefused) return; // a run of other settings: none of its rows go into the file
    m_model->upsertTask(task, index);
    updateComparison(true);
    setWindowModified(true);
    const QString id = QString::fromStdString(task.id);
    if (currentTaskId().isEmpty())
        selectTask(id);
    else if (id == currentTaskId())
        m_detail->reload();
}

void MainWindow::onRunFinished(bool cancelled) {
    if (m_client->mode() == RunClient::Mode::Bench) { // stopped before any task was done
        m_runLabel->setText(cancelled ? tr("Kernel run cancelled before any task finished")
                                      : tr("Kernel run finished"));
        updateRunState();
        return;
    }
    if (m_mergeRefused) {
        m_runLabel->setText(tr("Run refused: not merged into the open results"));
        updateRunState();
        return;
    }
    auto info = m_model->results().run;
    info.cancelled = cancelled;
    if (m_freshResults && m_client->totalSeconds() > 0)
        info.totalSeconds = m_client->totalSeconds();
    m_model->setRunInfo(info);
    updateRunInfo();
    const int n = m_client->finishedCount();
    m_runLabel->setText(cancelled ? tr("Run cancelled: %1 finished task(s) kept").arg(n)
                                  : tr("Run finished: %1 task(s)").arg(n));
    autosaveRun();
    updateRunState();
}

void MainWindow::onRunFailed(const QString& message) {
    if (m_client->mode() == RunClient::Mode::Bench) {
        showError(
            tr("<b>Kernel run failed.</b> %1")
                .arg(message.toHtmlEscaped().replace(QLatin1Char('\n'), QStringLiteral("<br>"))));
        m_runLabel->setText(tr("Kernel run failed"));
        updateRunState();
        return;
    }
    if (m_mergeRefused) { // killed after the refusal: the refusal is what the user must read
        m_runLabel->setText(tr("Run refused: not merged into the open results"));
        updateRunState();
        return;
    }
    showError(tr("<b>Run failed.</b> %1")
                  .arg(message.toHtmlEscaped().replace(QLatin1Char('\n'), QStringLiteral("<br>"))));
    m_runLabel->setText(tr("Run failed after %1 task(s)").arg(m_client->finishedCount()));
    autosaveRun();
    updateRunState();
}

void MainWindow::autosaveRun() {
    // The newest measurements survive a GUI crash or a forgotten save; the next start opens them.
    if (m_client->finishedCount() == 0 || !m_resultsPath.isEmpty()) return;
    const QString path = autosavePath();
    QDir().mkpath(QFileInfo(path).absolutePath());
    ks::RunResults r = m_model->results();
    r.thresholds = m_model->thresholds();
    // Serialising 250 tasks x 100 seeds takes ~100 ms: a worker thread writes a copy, so the
    // end of a run never stalls the window.
    if (m_autosave) m_autosave->wait();
    m_autosave = QThread::create([r = std::move(r), path] {
        try {
            ks::writeFileAtomic(path.toStdString(), ks::resultsToJson(r));
        } catch (const std::exception&) {
            // Best effort: the results are still in the window and can be saved by hand.
        }
    });
    connect(m_autosave, &QThread::finished, m_autosave, &QObject::deleteLater);
    m_autosave->start();
    QSettings().setValue(QStringLiteral("files/lastResults"), path);
}

void MainWindow::onDeviceProbed(const QString& device, const QString& description) {
    m_device = device;
    m_deviceDescription = description;
    if (device == QLatin1String("cuda")) {
        m_deviceLabel->setText(tr("GPU: %1").arg(description));
    } else if (device == QLatin1String("cpu")) {
        m_deviceLabel->setText(tr("No GPU \u2014 runs use the CPU with the small preset"));
        m_deviceLabel->setStyleSheet(QStringLiteral("color: #e65100"));
        m_deviceLabel->setToolTip(tr("The worker found no CUDA device (%1).").arg(description));
        if (m_lastRun.device == QLatin1String("auto") ||
            m_lastRun.device == QLatin1String("cuda")) {
            m_lastRun.device = QStringLiteral("cpu");
            m_lastRun.preset = QStringLiteral("small");
        }
    } else {
        m_deviceLabel->setText(tr("Worker unavailable"));
        m_deviceLabel->setStyleSheet(QStringLiteral("color: #c62828"));
        m_deviceLabel->setToolTip(description);
    }
}

void MainWindow::updateRunState() {
    const bool running = isRunning();
    m_progress->setVisible(running);
    m_cancelButton->setVisible(running);
    m_cancelAction->setEnabled(running);
    m_runSuiteAction->setEnabled(!running);
    m_runSelectedAction->setEnabled(!running && !m_matrixView->selectedTaskIds().isEmpty());
    m_openAction->setEnabled(!running);
    m_openSuiteAction->setEnabled(!running);
    m_recentMenu->setEnabled(!running);
    const bool hasResults = m_model->rowCount() > 0;
    m_saveAction->setEnabled(hasResults);
    m_saveAsAction->setEnabled(hasResults);
    m_exportCsvAction->setEnabled(hasResults);
    m_compareAction->setEnabled(hasResults);
    m_addComparisonAction->setEnabled(hasResults);
    m_exportJsonAction->setEnabled(!currentTaskId().isEmpty());
    m_kernels->setRunEnabled(!running && !m_matrixView->selectedTaskIds().isEmpty(),
                             running ? tr("A run is in progress")
                                     : tr("Select tasks in the matrix to run their kernels"));
}

void MainWindow::updateTitle() {
    const QString name = m_resultsPath.isEmpty()
                             ? (m_model->rowCount() ? tr("unsaved results") : tr("no results"))
                             : QFileInfo(m_resultsPath).fileName();
    // Which thresholds the flags and counts use: the file's or the user's, said where a
    // screenshot or a glance would see it.
    setWindowTitle(tr("%1[*] [%2] \u2014 KernelSieve").arg(name, thresholdsInForceText()));
    if (m_useUserThresholdsAction) {
        m_useFileThresholdsAction->setEnabled(m_fileThresholds.has_value());
        m_useUserThresholdsAction->setEnabled(m_thresholdSource == ThresholdSource::File);
    }
}

void MainWindow::showError(const QString& message) {
    m_messages->showMessage(message, MessageBar::Kind::Error);
}

// --- dialogs ------------------------------------------------------------------------------------

void MainWindow::openDialog() {
    const QString path =
        QFileDialog::getOpenFileName(this, tr("Open results or kernel bench"),
                                     QFileInfo(m_resultsPath).absolutePath(), ResultsFilter);
    if (!path.isEmpty()) openPath(path);
}

void MainWindow::openBenchDialog(bool add) {
    // Several at once: built-in and external kernels, two devices, side by side.
    const QStringList paths = QFileDialog::getOpenFileNames(
        this, add ? tr("Add kernel bench files") : tr("Open kernel bench files"),
        QFileInfo(m_benchPath).absolutePath(), tr("KernelSieve bench (*.json);;All files (*)"));
    for (int i = 0; i < paths.size(); ++i)
        if (!addBench(paths[i], !add && i == 0)) break;
}

void MainWindow::compareDialog() {
    const QString path = QFileDialog::getOpenFileName(
        this, tr("Compare with results"), QFileInfo(m_resultsPath).absolutePath(), ResultsFilter);
    if (!path.isEmpty()) compareWith(path);
}

void MainWindow::addComparisonDialog() {
    const QStringList paths =
        QFileDialog::getOpenFileNames(this, tr("Add results to the comparison"),
                                      QFileInfo(m_resultsPath).absolutePath(), ResultsFilter);
    for (const QString& path : paths)
        if (!addComparison(path)) break;
}

void MainWindow::openSuiteDialog() {
    const QString dir = QFileDialog::getExistingDirectory(this, tr("Open suite folder"));
    if (!dir.isEmpty()) openSuite(dir);
}

bool MainWindow::saveDialog() {
    if (m_resultsPath.isEmpty()) return saveAsDialog();
    return saveResults(m_resultsPath);
}

bool MainWindow::saveAsDialog() {
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Save results"),
        m_resultsPath.isEmpty() ? QStringLiteral("results.json") : m_resultsPath, ResultsFilter);
    return !path.isEmpty() && saveResults(path);
}

void MainWindow::exportCsvDialog() {
    const auto rows = askCsvRows();
    if (!rows) return;
    const bool subset = *rows == CsvRows::Visible && m_proxy->isFiltering();
    const QString dir =
        m_resultsPath.isEmpty() ? QString() : QFileInfo(m_resultsPath).absolutePath();
    const QString path = QFileDialog::getSaveFileName(
        this,
        subset
            ? tr("Export the %1 visible rows of %2 (%3)")
                  .arg(m_proxy->rowCount())
                  .arg(m_model->rowCount())
                  .arg(thresholdsInForceText())
            : tr("Export all %1 rows (%2)").arg(m_model->rowCount()).arg(thresholdsInForceText()),
        QDir(dir).filePath(suggestedCsvName(*rows)), tr("CSV (*.csv)"));
    if (!path.isEmpty()) exportCsv(path, *rows);
}

void MainWindow::exportChartDialog() {
    QList<ChartWidget*> candidates;
    if (m_tabs->currentWidget() == m_detail)
        candidates = m_detail->charts();
    else if (m_tabs->currentWidget() == m_kernels)
        candidates = m_kernels->charts();
    else
        candidates = {m_summaryView->chart()};
    ChartWidget* chosen = candidates.value(0);
    if (candidates.size() > 1) {
        QStringList titles;
        for (auto* c : candidates)
            titles << c->title();
        bool ok = false;
        const QString t =
            QInputDialog::getItem(this, tr("Export chart"), tr("Chart:"), titles, 0, false, &ok);
        if (!ok) return;
        chosen = candidates.value(int(titles.indexOf(t)));
    }
    if (!chosen) return;
    QString suffixFilter;
    const QString path =
        QFileDialog::getSaveFileName(this, tr("Export chart"), chosen->objectName() + ".png",
                                     tr("PNG image (*.png);;PDF document (*.pdf)"), &suffixFilter);
    if (path.isEmpty()) return;
    QString target = path;
    if (QFileInfo(target).suffix().isEmpty())
        target += suffixFilter.contains(QLatin1String("pdf")) ? ".pdf" : ".png";
    exportChart(chosen->objectName(), target);
}

void MainWindow::exportTaskJsonDialog() {
    const QString id = currentTaskId();
    if (id.isEmpty()) return;
    const QString path = QFileDialog::getSaveFileName(this, tr("Export task metrics"), id + ".json",
                                                      tr("JSON (*.json)"));
    if (!path.isEmpty()) exportTaskJson(path);
}

void MainWindow::runDialog(bool selectedOnly) {
    RunDialog dialog(m_lastRun, m_matrixView->selectedTaskIds(), m_device != QLatin1String("cpu"),
                     this);
    if (openResultsMeasured())
        dialog.setOpenResults(m_resultsPath.isEmpty() ? tr("the open results")
                                                      : QFileInfo(m_resultsPath).fileName(),
                              m_model->results().run, m_device, m_deviceDescription);
    dialog.setSelectedOnly(selectedOnly);
    if (dialog.exec() == QDialog::Accepted)
        startRun(dialog.options(),
                 dialog.separateResults() ? RunTarget::Separate : RunTarget::Merge);
}

void MainWindow::loadProfileDialog() {
    const QString path = QFileDialog::getOpenFileName(this, tr("Load threshold profile"), {},
                                                      tr("Profiles (*.json)"));
    if (path.isEmpty()) return;
    QString error;
    if (!m_thresholds->loadProfile(path, &error))
        showError(tr("Cannot load profile: %1").arg(error));
}

void MainWindow::saveProfileDialog() {
    const QString path =
        QFileDialog::getSaveFileName(this, tr("Save threshold profile"),
                                     QStringLiteral("profile.json"), tr("Profiles (*.json)"));
    if (path.isEmpty()) return;
    QString error;
    if (!m_thresholds->saveProfile(path, &error))
        showError(tr("Cannot save profile: %1").arg(error));
}

void MainWindow::about() {
    QMessageBox::about(this, tr("About KernelSieve"),
                       tr("<h3>KernelSieve</h3><p>Audits GPU-kernel benchmark tasks (KernelBench) "
                          "for flaws: outputs "
                          "too small, too constant or too uniform to check a kernel against, and "
                          "speedups that sit "
                          "on such tasks.</p><p>Runs execute in <tt>kernelsieve-cli</tt> worker "
                          "processes (%1).</p>")
                           .arg(QDir::toNativeSeparators(RunClient::workerPath())));
}
