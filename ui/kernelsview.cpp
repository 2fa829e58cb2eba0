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
    auto* table = new QTableView;
    table->setObjectName(QStringLiteral("variantsTable"));
    table->setModel(m_variants);
    table->verticalHeader()->setVisible(false);
    table->verticalHeader()->setDefaultSectionSize(table->fontMetrics().height() + 4);
    table->horizontalHeader()->setStretchLastSection(true);
    table->setWordWrap(false);

    auto* right = new QSplitter(Qt::Vertical);
    right->addWidget(m_timing);
    right->addWidget(table);
    right->setStretchFactor(0, 3);
    right->setStretchFactor(1, 2);
    auto* split = new QSplitter(Qt::Horizontal);
    split->setObjectName(QStringLiteral("kernelsSplitter"));
    split->addWidget(m_speedup);
    split->addWidget(right);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
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

const ks::TaskBench* KernelsView::benchTask(const QString& id) const {
    if (!m_bench) return nullptr;
    for (const auto& t : m_bench->tasks)
        if (QString::fromStdString(t.taskId) == id) return &t;
    return nullptr;
}

QHash<QString, QStringList> KernelsView::flaws() const {
    QHash<QString, QStringList> out;
    if (!m_bench) return out;
    for (const auto& t : m_bench->tasks) {
        const QString id = QString::fromStdString(t.taskId);
        if (const auto* r = m_model->task(m_model->rowOf(id))) {
            const QStringList f = ResultsUtil::flaggedCriteria(*r, m_model->thresholds());
            if (!f.isEmpty()) out.insert(id, f);
        }
    }
    return out;
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
    m_info->setText(tr("Bench: %1 (%2), %3 warm-ups, %4 timed runs \u00b7 tasks with kernels: %5")
                        .arg(QString::fromStdString(m_bench->deviceName), preset)
                        .arg(m_bench->settings.warmup)
                        .arg(m_bench->settings.runs)
                        .arg(withKernels.join(QStringLiteral(", "))));
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
    {
        QSignalBlocker block(m_variant);
        const int previous = m_variant->currentIndex();
        m_variant->clear();
        if (task) {
            m_variant->addItem(tr("PyTorch eager (baseline)"), -1);
            for (int i = 0; i < int(task->variants.size()); ++i) {
                const auto& v = task->variants[static_cast<size_t>(i)];
                QString text = ResultsUtil::variantLabel(*task, v);
                if (!v.summary.empty())
                    text += QStringLiteral(": ") + QString::fromStdString(v.summary);
                m_variant->addItem(text, i);
                m_variant->setItemData(m_variant->count() - 1, QString::fromStdString(v.name),
                                       Qt::ToolTipRole);
            }
            // Default to the most optimised variant: the one whose timing claims the speedup.
            const bool sameTask = m_variantTask == QString::fromStdString(task->taskId);
            m_variant->setCurrentIndex(sameTask && previous >= 0 && previous < m_variant->count()
                                           ? previous
                                           : m_variant->count() - 1);
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
