// SPDX-License-Identifier: MIT
#include "kernelsview.h"
#include "speedupchart.h"
#include "timingchart.h"

#include <models/filtermatrixmodel.h>
#include <models/resultsutil.h>
#include <models/variantsmodel.h>

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

#include <cmath>
#include <map>

KernelsView::KernelsView(FilterMatrixModel* model, QWidget* parent)
    : QWidget(parent), m_model(model) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    auto* top = new QHBoxLayout;
    m_info = new QLabel;
    m_info->setObjectName(QStringLiteral("benchInfo"));
    // A long line (a run with --dim) wraps instead of widening the window.
    m_info->setWordWrap(true);
    m_scope = new QComboBox;
    m_scope->setObjectName(QStringLiteral("kernelScope"));
    m_scope->addItem(tr("Selected task"));
    m_scope->addItem(tr("All tasks with kernels"));
    m_variant = new QComboBox;
    m_variant->setObjectName(QStringLiteral("timingVariant"));
    m_variant->setToolTip(tr("Kernel whose timing distribution is shown"));
    // Summaries can be long: a bounded combo keeps the chart row from being pushed off screen.
    m_variant->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_variant->setMinimumContentsLength(28);
    top->addWidget(m_info, 1);
    top->addWidget(new QLabel(tr("Show:")));
    top->addWidget(m_scope);
    top->addWidget(new QLabel(tr("Timing of:")));
    top->addWidget(m_variant);
    layout->addLayout(top);

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
    connect(m_variant, &QComboBox::currentIndexChanged, this, &KernelsView::updateTiming);
    // Flags follow the thresholds: only the flawed-task marks move.
    connect(m_model, &FilterMatrixModel::flagsChanged, this,
            [this] { m_speedup->setFlaws(flaws()); });
    connect(m_model, &QAbstractItemModel::modelReset, this, &KernelsView::rebuild);
    rebuild();
}

QList<ChartWidget*> KernelsView::charts() const {
    return {m_speedup, m_timing};
}

void KernelsView::setBench(const ks::BenchRun& bench) {
    m_bench = bench;
    rebuild();
}

void KernelsView::clearBench() {
    m_bench.reset();
    rebuild();
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

const ks::TaskBench* KernelsView::benchTask(const QString& id) const {
    if (!m_bench) return nullptr;
    for (const auto& t : m_bench->tasks)
        if (QString::fromStdString(t.taskId) == id) return &t;
    for (const auto& t : m_bench->tasks)
        if (resultsId(t) == id) return &t;
    return nullptr;
}

// Keyed by the bench's task id (what the chart knows), looked up by the results row.
QHash<QString, QStringList> KernelsView::flaws() const {
    QHash<QString, QStringList> out;
    if (!m_bench) return out;
    for (const auto& t : m_bench->tasks) {
        if (const auto* r = m_model->task(m_model->rowOf(resultsId(t)))) {
            const QStringList f = ResultsUtil::flaggedCriteria(*r, m_model->thresholds());
            if (!f.isEmpty()) out.insert(QString::fromStdString(t.taskId), f);
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

void KernelsView::rebuild() {
    if (!m_bench) {
        m_info->setText(tr("No kernel bench file open."));
        m_speedup->showMessage(tr("Open a kernel bench file (File \u25b8 Open Kernel "
                                  "Bench\u2026)\nmade by kernelsieve-cli bench"));
        m_variants->setTask(nullptr);
        QSignalBlocker block(m_variant);
        m_variant->clear();
        m_timing->setVariant(nullptr, -1);
        return;
    }
    QStringList withKernels;
    for (const auto& t : m_bench->tasks)
        withKernels << QString::fromStdString(t.taskId);
    // A run at other sizes (`bench --dim`) says so next to the preset, and that the flags beside
    // its speedups were measured at the suite's shapes: "full, dim=393216; flags at suite shapes".
    QString preset = QString::fromStdString(m_bench->preset);
    for (const auto& [name, size] : m_bench->dims)
        preset += QStringLiteral(", %1=%2").arg(QString::fromStdString(name)).arg(size);
    if (!m_bench->dims.empty()) preset += tr("; flags at suite shapes");
    // External kernels: how many and their verdicts, so a cheat in another task is not missed.
    static const char* const order[] = {"valid",   "invalid", "cheat",   "compile error",
                                        "refused", "failed",  "not run", "unsupported"};
    std::map<std::string, int> verdicts;
    int external = 0;
    for (const auto& t : m_bench->tasks)
        for (const auto& v : t.variants)
            if (v.isExternal()) {
                ++external;
                ++verdicts[ks::variantVerdict(v)];
            }
    QStringList counts;
    for (const char* verdict : order)
        if (verdicts.count(verdict))
            counts << QStringLiteral("%1 %2").arg(verdicts[verdict]).arg(QLatin1String(verdict));
    m_info->setText(tr("Bench: %1 (%2), %3 warm-ups, %4 timed runs \u00b7 tasks with kernels: %5")
                        .arg(QString::fromStdString(m_bench->deviceName), preset)
                        .arg(m_bench->settings.warmup)
                        .arg(m_bench->settings.runs)
                        .arg(withKernels.join(QStringLiteral(", "))) +
                    (external ? tr(" \u00b7 external kernels: %1 (%2)")
                                    .arg(external)
                                    .arg(counts.join(QStringLiteral(", ")))
                              : QString()));
    const ks::TaskBench* task = benchTask(m_id);
    if (scope() == Scope::AllTasks)
        m_speedup->setTasks(m_bench->tasks, flaws());
    else if (task)
        m_speedup->setTasks({*task}, flaws());
    else
        m_speedup->showMessage(
            m_id.isEmpty()
                ? tr("Select a task with kernels: %1").arg(withKernels.join(QStringLiteral(", ")))
                : tr("No kernels for %1 in this bench file.\nTasks with kernels: %2")
                      .arg(m_id, withKernels.join(QStringLiteral(", "))));
    // The table and timing plot follow the selected task, or the first task in "all" mode.
    if (!task && scope() == Scope::AllTasks && !m_bench->tasks.empty())
        task = &m_bench->tasks.front();
    m_variants->setTask(task);
    fitColumns();
    {
        QSignalBlocker block(m_variant);
        const int previous = m_variant->currentIndex();
        m_variant->clear();
        if (task) {
            m_variant->addItem(tr("PyTorch eager (baseline)"), -1);
            int lastTimed = 0; // the baseline
            for (int i = 0; i < int(task->variants.size()); ++i) {
                const auto& v = task->variants[static_cast<size_t>(i)];
                QString text = ResultsUtil::variantLabel(*task, v);
                if (!v.summary.empty())
                    text += QStringLiteral(": ") + QString::fromStdString(v.summary);
                else if (v.isExternal())
                    text += QStringLiteral(" (%1)").arg(QString::fromStdString(v.external.format));
                const QString verdict = QString::fromStdString(ks::variantVerdict(v));
                if (VariantsModel::isBadVerdict(verdict))
                    text += QStringLiteral(" \u2014 ") + verdict;
                m_variant->addItem(text, i);
                m_variant->setItemData(m_variant->count() - 1, QString::fromStdString(v.name),
                                       Qt::ToolTipRole);
                if (!v.timing.samplesMs.empty() || std::isfinite(v.timing.medianMs))
                    lastTimed = m_variant->count() - 1;
            }
            // Default to the most optimised variant: the one whose timing claims the speedup
            // (the last one that was timed: an external kernel that never compiled has none).
            const bool sameTask = m_variantTask == QString::fromStdString(task->taskId);
            m_variant->setCurrentIndex(
                sameTask && previous >= 0 && previous < m_variant->count() ? previous : lastTimed);
            m_variantTask = QString::fromStdString(task->taskId);
        }
    }
    updateTiming();
}

void KernelsView::updateTiming() {
    const ks::TaskBench* task = benchTask(m_id);
    if (!task && scope() == Scope::AllTasks && m_bench && !m_bench->tasks.empty())
        task = &m_bench->tasks.front();
    m_timing->setVariant(task, m_variant->currentData().toInt());
}
