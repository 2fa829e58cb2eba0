// SPDX-License-Identifier: MIT
#include "kernelsview.h"
#include "speedupchart.h"
#include "timingchart.h"

#include <models/filtermatrixmodel.h>
#include <models/resultsutil.h>
#include <models/variantsmodel.h>

#include <QComboBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <map>

KernelsView::KernelsView(FilterMatrixModel* model, QWidget* parent)
    : QWidget(parent), m_model(model) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    auto* top = new QHBoxLayout;
    auto* run = new QHBoxLayout;
    m_info = new QLabel;
    m_info->setObjectName(QStringLiteral("benchInfo"));
    // A long line (a run with --dim) wraps instead of widening the window.
    m_info->setWordWrap(true);
    m_info->setMaximumHeight(m_info->fontMetrics().lineSpacing() * 2 + 4);
    m_scope = new QComboBox;
    m_scope->setObjectName(QStringLiteral("kernelScope"));
    m_scope->addItem(tr("Selected task"));
    m_scope->addItem(tr("All tasks with kernels"));
    m_variant = new QComboBox;
    m_variant->setObjectName(QStringLiteral("timingVariant"));
    m_variant->setToolTip(tr("Kernel whose timing distribution is shown"));
    // Summaries can be long: a bounded combo keeps the chart row from being pushed off screen.
    m_variant->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_variant->setMinimumContentsLength(18);
    m_files = new QComboBox;
    m_files->setObjectName(QStringLiteral("benchFiles"));
    m_files->setToolTip(
        tr("The bench files shown: all of them (rows tagged with their file) or one"));
    m_files->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_files->setMinimumContentsLength(10);
    // The info on a row of its own (one or two lines); the choices and the run bar share the
    // next: on a 1280 x 720 screen every row is chart height.
    layout->addWidget(m_info);
    top->addWidget(new QLabel(tr("Files:")));
    top->addWidget(m_files);
    top->addWidget(new QLabel(tr("Show:")));
    top->addWidget(m_scope);
    top->addWidget(new QLabel(tr("Timing of:")));
    top->addWidget(m_variant);
    top->addSpacing(12);
    layout->addLayout(top);

    // Kernel runs for the tasks selected in the matrix, in the worker (as filter runs are).
    m_runCommand = new QComboBox;
    m_runCommand->setObjectName(QStringLiteral("kernelRunCommand"));
    m_runCommand->addItem(tr("Validate"), QStringLiteral("validate"));
    m_runCommand->addItem(tr("Bench"), QStringLiteral("bench"));
    m_runCommand->setToolTip(tr("Validate: correctness only, no timing (faster). Bench: validate "
                                "and time against the eager baseline"));
    m_kernelsPath = new QLineEdit;
    m_kernelsPath->setObjectName(QStringLiteral("kernelsPath"));
    m_kernelsPath->setPlaceholderText(tr("built-in kernels, or a .cu / .py / folder"));
    m_kernelsPath->setMinimumWidth(
        m_kernelsPath->fontMetrics().horizontalAdvance(QStringLiteral("built-in kernels, or a")));
    m_kernelsPath->setClearButtonEnabled(true);
    auto* browse = new QPushButton(tr("Kernels\u2026"));
    browse->setObjectName(QStringLiteral("kernelsBrowse"));
    browse->setToolTip(tr("External kernels to validate or bench: a torch-extension .cu, a "
                          "KernelBench ModelNew .py, or a folder (docs/external-kernels.md)"));
    m_runButton = new QPushButton(tr("Run Kernels"));
    m_runButton->setObjectName(QStringLiteral("kernelRun"));
    run->addWidget(new QLabel(tr("Run:")));
    run->addWidget(m_runCommand);
    run->addWidget(m_kernelsPath, 1);
    run->addWidget(browse);
    run->addWidget(m_runButton);
    top->addLayout(run, 1);
    connect(browse, &QPushButton::clicked, this, [this] {
        const QString path =
            QFileDialog::getOpenFileName(this, tr("External kernels"), m_kernelsPath->text(),
                                         tr("Kernels (*.cu *.py *.json);;All files (*)"));
        if (!path.isEmpty()) m_kernelsPath->setText(path);
    });
    connect(m_runButton, &QPushButton::clicked, this, [this] {
        emit kernelRunRequested(m_runCommand->currentData().toString(),
                                m_kernelsPath->text().trimmed());
    });
    setRunEnabled(false, tr("Select tasks in the matrix to run their kernels"));

    m_speedup = new SpeedupChart;
    m_speedup->setObjectName(QStringLiteral("speedupChart"));
    m_timing = new TimingChart;
    m_timing->setObjectName(QStringLiteral("timingChart"));
    m_variants = new VariantsModel(this);
    m_table = new QTableView;
    m_table->setObjectName(QStringLiteral("variantsTable"));
    m_table->setModel(m_variants);
    m_table->verticalHeader()->setVisible(false);
    m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 4);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->setWordWrap(false);

    // The charts side by side above a table as wide as the view: with verdict, format, guards,
    // precision and the manifest's expectation it has a dozen columns, too many beside a chart.
    auto* charts = new QSplitter(Qt::Horizontal);
    charts->addWidget(m_speedup);
    charts->addWidget(m_timing);
    charts->setStretchFactor(0, 3);
    charts->setStretchFactor(1, 2);
    auto* split = new QSplitter(Qt::Vertical);
    split->setObjectName(QStringLiteral("kernelsSplitter"));
    split->addWidget(charts);
    split->addWidget(m_table);
    split->setStretchFactor(0, 2);
    split->setStretchFactor(1, 1);
    layout->addWidget(split, 1);

    connect(m_scope, &QComboBox::currentIndexChanged, this, &KernelsView::rebuild);
    connect(m_files, &QComboBox::currentIndexChanged, this, &KernelsView::rebuild);
    connect(m_variant, &QComboBox::currentIndexChanged, this, &KernelsView::updateTiming);
    // Flags follow the thresholds: only the flawed-task marks move.
    connect(m_model, &FilterMatrixModel::flagsChanged, this,
            [this] { m_speedup->setFlaws(flaws()); });
    connect(m_model, &QAbstractItemModel::modelReset, this, &KernelsView::rebuild);
    rebuildFileBox();
    rebuild();
}

void KernelsView::setRunEnabled(bool enabled, const QString& why) {
    m_runButton->setEnabled(enabled);
    m_runButton->setToolTip(enabled ? tr("Validate or bench the kernels of the tasks selected in "
                                         "the matrix, in the worker; the results open here as one "
                                         "more file")
                                    : why);
}

QList<ChartWidget*> KernelsView::charts() const {
    return {m_speedup, m_timing};
}

void KernelsView::setBench(const ks::BenchRun& bench, const QString& label, const QString& path) {
    m_benches.clear();
    addBench(bench, label, path);
}

void KernelsView::addBench(const ks::BenchRun& bench, const QString& label, const QString& path) {
    BenchFile f{bench, label, path};
    if (f.label.isEmpty())
        f.label = !path.isEmpty()             ? QFileInfo(path).fileName()
                  : !bench.deviceName.empty() ? QString::fromStdString(bench.deviceName)
                                              : tr("bench %1").arg(m_benches.size() + 1);
    auto same = std::find_if(m_benches.begin(), m_benches.end(),
                             [&](const BenchFile& b) { return !path.isEmpty() && b.path == path; });
    if (same != m_benches.end())
        *same = std::move(f);
    else
        m_benches.push_back(std::move(f));
    rebuildFileBox();
    rebuild();
}

void KernelsView::removeBench(int index) {
    if (index < 0 || index >= benchCount()) return;
    m_benches.erase(m_benches.begin() + index);
    rebuildFileBox();
    rebuild();
}

void KernelsView::clearBench() {
    m_benches.clear();
    rebuildFileBox();
    rebuild();
}

const ks::BenchRun* KernelsView::bench(int index) const {
    return index >= 0 && index < benchCount() ? &m_benches[static_cast<size_t>(index)].run
                                              : nullptr;
}

QString KernelsView::benchLabel(int index) const {
    return index >= 0 && index < benchCount() ? m_benches[static_cast<size_t>(index)].label
                                              : QString();
}

QString KernelsView::benchPath(int index) const {
    return index >= 0 && index < benchCount() ? m_benches[static_cast<size_t>(index)].path
                                              : QString();
}

void KernelsView::rebuildFileBox() {
    const int current = m_files->currentData().isValid() ? m_files->currentData().toInt() : -1;
    QSignalBlocker block(m_files);
    m_files->clear();
    m_files->addItem(benchCount() > 1 ? tr("All %1 files").arg(benchCount()) : tr("All files"), -1);
    for (int i = 0; i < benchCount(); ++i) {
        const auto& f = m_benches[static_cast<size_t>(i)];
        m_files->addItem(f.label, i);
        m_files->setItemData(
            m_files->count() - 1,
            tr("%1\n%2").arg(f.path.isEmpty() ? tr("(not saved in a file)") : f.path,
                             QString::fromStdString(f.run.deviceName)),
            Qt::ToolTipRole);
    }
    m_files->setCurrentIndex(std::max(0, m_files->findData(current < benchCount() ? current : -1)));
    m_files->setEnabled(benchCount() > 1);
}

std::vector<int> KernelsView::shownFiles() const {
    std::vector<int> out;
    const int only = m_files->currentData().isValid() ? m_files->currentData().toInt() : -1;
    for (int i = 0; i < benchCount(); ++i)
        if (only < 0 || only == i) out.push_back(i);
    return out;
}

QString KernelsView::fileTag(int file) const {
    return QStringLiteral("[%1]").arg(file + 1);
}

QString KernelsView::chartId(int file, const ks::TaskBench& task) const {
    const QString id = QString::fromStdString(task.taskId);
    if (shownFiles().size() <= 1) return id;
    // A short tag, so that the chart's tick labels stay short; the info line and the table's
    // File column say which file [1] is.
    return QStringLiteral("%1 %2").arg(id, fileTag(file));
}

void KernelsView::setTask(const QString& id) {
    if (id == m_id) return;
    m_id = id;
    if (scope() == Scope::SelectedTask) rebuild();
}

void KernelsView::setScope(Scope scope) {
    m_scope->setCurrentIndex(scope == Scope::AllTasks ? 1 : 0);
}

KernelsView::Scope KernelsView::scope() const {
    return m_scope->currentIndex() == 1 ? Scope::AllTasks : Scope::SelectedTask;
}

// The results row of a bench task: by id, else by name. An external kernel's task can be named
// by its KernelBench name (a robust-kbench folder, `19_ReLU/`), and its flags must still show.
QString KernelsView::resultsId(const ks::TaskBench& task) const {
    const QString id = QString::fromStdString(task.taskId);
    if (m_model->rowOf(id) >= 0) return id;
    const QString name = QString::fromStdString(task.taskName);
    for (int row = 0; row < m_model->rowCount(); ++row) {
        const auto* r = m_model->task(row);
        const QString rname = QString::fromStdString(r->name);
        if (!rname.isEmpty() && (rname == id || rname == name))
            return QString::fromStdString(r->id);
    }
    return id;
}

const ks::TaskBench* KernelsView::benchTask(int file, const QString& id) const {
    if (file < 0 || file >= benchCount()) return nullptr;
    const auto& tasks = m_benches[static_cast<size_t>(file)].run.tasks;
    for (const auto& t : tasks)
        if (QString::fromStdString(t.taskId) == id) return &t;
    for (const auto& t : tasks)
        if (resultsId(t) == id) return &t;
    return nullptr;
}

// Keyed by the chart's id of each bench task, looked up by the results row.
QHash<QString, QStringList> KernelsView::flaws() const {
    QHash<QString, QStringList> out;
    for (const int file : shownFiles())
        for (const auto& t : m_benches[static_cast<size_t>(file)].run.tasks) {
            if (const auto* r = m_model->task(m_model->rowOf(resultsId(t)))) {
                const QStringList f = ResultsUtil::flaggedCriteria(*r, m_model->thresholds());
                if (!f.isEmpty()) out.insert(chartId(file, t), f);
            }
        }
    return out;
}

// Columns as wide as their contents, but no wider than a validation summary: one long guard
// detail or compiler line must not push the speedups out of sight (the tooltips hold the rest).
// Columns with nothing to say for this task are hidden.
void KernelsView::fitColumns() {
    for (int c = 0; c < m_variants->columnCount(); ++c)
        m_table->setColumnHidden(c, !m_variants->columnUsed(c));
    m_table->resizeColumnsToContents();
    const int cap = m_table->fontMetrics().horizontalAdvance(
        QStringLiteral("passed (100 seeds, max err 2.4e-07)\u2003\u2003"));
    for (int c = 0; c < m_variants->columnCount() - 1; ++c)
        if (m_table->columnWidth(c) > cap) m_table->setColumnWidth(c, cap);
}

QString KernelsView::fileInfoText(const BenchFile& f) const {
    const ks::BenchRun& b = f.run;
    QStringList withKernels;
    for (const auto& t : b.tasks)
        withKernels << QString::fromStdString(t.taskId);
    // A run at other sizes (`bench --dim`) says so next to the preset, and that the flags beside
    // its speedups were measured at the suite's shapes: "full, dim=393216; flags at suite shapes".
    QString preset = QString::fromStdString(b.preset);
    for (const auto& [name, size] : b.dims)
        preset += QStringLiteral(", %1=%2").arg(QString::fromStdString(name)).arg(size);
    if (!b.dims.empty()) preset += tr("; flags at suite shapes");
    // External kernels: how many and their verdicts, so a cheat in another task is not missed.
    static const char* const order[] = {"valid",   "invalid", "cheat",   "compile error",
                                        "refused", "failed",  "not run", "unsupported"};
    std::map<std::string, int> verdicts;
    int external = 0;
    for (const auto& t : b.tasks)
        for (const auto& v : t.variants)
            if (v.isExternal()) {
                ++external;
                ++verdicts[ks::variantVerdict(v)];
            }
    QStringList counts;
    for (const char* verdict : order)
        if (verdicts.count(verdict))
            counts << QStringLiteral("%1 %2").arg(verdicts[verdict]).arg(QLatin1String(verdict));
    return tr("Bench: %1 (%2), %3 warm-ups, %4 timed runs \u00b7 tasks with kernels: %5")
               .arg(QString::fromStdString(b.deviceName), preset)
               .arg(b.settings.warmup)
               .arg(b.settings.runs)
               .arg(withKernels.join(QStringLiteral(", "))) +
           (external ? tr(" \u00b7 external kernels: %1 (%2)")
                           .arg(external)
                           .arg(counts.join(QStringLiteral(", ")))
                     : QString());
}

void KernelsView::rebuild() {
    if (m_benches.empty()) {
        m_info->setText(tr("No kernel bench file open."));
        m_speedup->showMessage(tr("Open a kernel bench file (File \u25b8 Open Kernel "
                                  "Bench\u2026)\nmade by kernelsieve-cli bench, or run the "
                                  "kernels of the selected tasks below"));
        m_variants->setTask(nullptr);
        QSignalBlocker block(m_variant);
        m_variant->clear();
        m_timing->setVariant(nullptr, -1);
        return;
    }
    const std::vector<int> files = shownFiles();
    QStringList withKernels;
    for (const int f : files)
        for (const auto& t : m_benches[static_cast<size_t>(f)].run.tasks)
            if (!withKernels.contains(QString::fromStdString(t.taskId)))
                withKernels << QString::fromStdString(t.taskId);
    // One file: what it holds. Several: one short entry per file, tagged as its rows and bars
    // are, the full account in the tooltip (two lines at most: the charts need the height).
    QStringList info, full;
    for (const int f : files) {
        const auto& file = m_benches[static_cast<size_t>(f)];
        full << fileTag(f) + QLatin1Char(' ') + file.label + QStringLiteral(": ") +
                    fileInfoText(file);
        int external = 0, bad = 0;
        for (const auto& t : file.run.tasks)
            for (const auto& v : t.variants)
                if (v.isExternal()) {
                    ++external;
                    bad +=
                        VariantsModel::isBadVerdict(QString::fromStdString(ks::variantVerdict(v)));
                }
        info << tr("%1 %2: %3, %n task(s)", nullptr, int(file.run.tasks.size()))
                        .arg(fileTag(f), file.label, QString::fromStdString(file.run.deviceName)) +
                    (external ? tr(", %1 external (%2 cheat/invalid/failed)").arg(external).arg(bad)
                              : QString());
    }
    m_info->setText(files.size() == 1 ? fileInfoText(m_benches[static_cast<size_t>(files.front())])
                                      : info.join(QStringLiteral(" \u00b7 ")));
    m_info->setToolTip(full.join(QLatin1Char('\n')));

    // The selected task in every file shown that has it (or, in "all" mode, every task).
    std::vector<ks::TaskBench> chartTasks;
    std::vector<VariantsModel::Source> sources;
    for (const int f : files) {
        const auto& file = m_benches[static_cast<size_t>(f)];
        const QString device = QString::fromStdString(file.run.deviceName);
        if (scope() == Scope::AllTasks) {
            for (const auto& t : file.run.tasks) {
                chartTasks.push_back(t);
                chartTasks.back().taskId = chartId(f, t).toStdString();
            }
        } else if (const ks::TaskBench* t = benchTask(f, m_id)) {
            chartTasks.push_back(*t);
            chartTasks.back().taskId = chartId(f, *t).toStdString();
        }
        // The table and timing plot follow the selected task, or the first task in "all" mode.
        const ks::TaskBench* t = benchTask(f, m_id);
        if (!t && scope() == Scope::AllTasks && !file.run.tasks.empty() && sources.empty())
            t = &file.run.tasks.front();
        if (t)
            sources.push_back(
                {t, files.size() > 1 ? fileTag(f) + QLatin1Char(' ') + file.label : file.label,
                 device});
    }
    if (!chartTasks.empty())
        m_speedup->setTasks(chartTasks, flaws(),
                            scope() == Scope::SelectedTask && chartTasks.size() > 1
                                ? tr("%1 in %2 bench files").arg(m_id).arg(chartTasks.size())
                                : QString());
    else
        m_speedup->showMessage(
            m_id.isEmpty()
                ? tr("Select a task with kernels: %1").arg(withKernels.join(QStringLiteral(", ")))
                : tr("No kernels for %1 in %2.\nTasks with kernels: %3")
                      .arg(m_id, files.size() > 1 ? tr("these bench files") : tr("this bench file"),
                           withKernels.join(QStringLiteral(", "))));
    m_variants->setSources(sources);
    fitColumns();
    {
        QSignalBlocker block(m_variant);
        const int previous = m_variant->currentIndex();
        const QString previousTask = m_variantTask;
        m_variant->clear();
        m_variantTask.clear();
        int lastTimed = -1;
        for (int s = 0; s < int(sources.size()); ++s) {
            const ks::TaskBench* task = sources[static_cast<size_t>(s)].task;
            // Several files: each item says whose timing it is.
            const QString tag =
                sources.size() > 1
                    ? sources[static_cast<size_t>(s)].file.section(QLatin1Char(' '), 0, 0) +
                          QLatin1Char(' ')
                    : QString();
            m_variant->addItem(tag + tr("PyTorch eager (baseline)"), -1);
            m_variant->setItemData(m_variant->count() - 1, s, SourceRole);
            if (lastTimed < 0) lastTimed = 0; // the baseline
            for (int i = 0; i < int(task->variants.size()); ++i) {
                const auto& v = task->variants[static_cast<size_t>(i)];
                QString text = tag + ResultsUtil::variantLabel(*task, v);
                if (!v.summary.empty())
                    text += QStringLiteral(": ") + QString::fromStdString(v.summary);
                else if (v.isExternal())
                    text += QStringLiteral(" (%1)").arg(QString::fromStdString(v.external.format));
                const QString verdict = QString::fromStdString(ks::variantVerdict(v));
                if (VariantsModel::isBadVerdict(verdict))
                    text += QStringLiteral(" \u2014 ") + verdict;
                m_variant->addItem(text, i);
                m_variant->setItemData(m_variant->count() - 1, s, SourceRole);
                m_variant->setItemData(m_variant->count() - 1, QString::fromStdString(v.name),
                                       Qt::ToolTipRole);
                // Default to the most optimised variant of the first file: the one whose timing
                // claims the speedup (the last one timed: a kernel that never compiled has none).
                if (s == 0 && (!v.timing.samplesMs.empty() || std::isfinite(v.timing.medianMs)))
                    lastTimed = m_variant->count() - 1;
            }
            if (s == 0) m_variantTask = QString::fromStdString(task->taskId);
        }
        const bool sameTask = !m_variantTask.isEmpty() && m_variantTask == previousTask;
        if (m_variant->count() > 0)
            m_variant->setCurrentIndex(
                sameTask && previous >= 0 && previous < m_variant->count() ? previous : lastTimed);
    }
    m_timingSources = sources;
    updateTiming();
}

void KernelsView::updateTiming() {
    const int s = m_variant->currentData(SourceRole).isValid()
                      ? m_variant->currentData(SourceRole).toInt()
                      : -1;
    const ks::TaskBench* task = s >= 0 && s < int(m_timingSources.size())
                                    ? m_timingSources[static_cast<size_t>(s)].task
                                    : nullptr;
    m_timing->setVariant(task, m_variant->currentData().toInt());
}
