// SPDX-License-Identifier: MIT
#include "taskdetailview.h"
#include "axeschart.h"
#include "histogramchart.h"

#include <models/axesmodel.h>
#include <models/filtermatrixmodel.h>
#include <models/redundancymodel.h>
#include <models/resultsutil.h>
#include <models/rewritesmodel.h>
#include <models/rooflinemodel.h>
#include <models/seedstatsmodel.h>

#include <QCheckBox>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPlainTextEdit>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>

namespace {
QPlainTextEdit* makeText(const QString& name) {
    auto* edit = new QPlainTextEdit;
    edit->setObjectName(name);
    edit->setReadOnly(true);
    edit->setLineWrapMode(QPlainTextEdit::NoWrap);
    edit->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    return edit;
}

QTableView* makeTable(QAbstractItemModel* model) {
    auto* table = new QTableView;
    table->setModel(model);
    table->verticalHeader()->setVisible(false);
    table->verticalHeader()->setDefaultSectionSize(table->fontMetrics().height() + 4);
    table->horizontalHeader()->setStretchLastSection(true);
    table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    return table;
}
} // namespace

TaskDetailView::TaskDetailView(FilterMatrixModel* model, QWidget* parent)
    : QWidget(parent), m_model(model) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    auto* top = new QHBoxLayout;
    m_header = new QLabel;
    m_header->setObjectName(QStringLiteral("taskHeader"));
    m_header->setTextFormat(Qt::RichText);
    m_header->setTextInteractionFlags(Qt::TextSelectableByMouse);
    // The header changes with every threshold edit; its width must not re-layout the view.
    m_header->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    m_logCount = new QCheckBox(tr("Log count"));
    m_logCount->setObjectName(QStringLiteral("logCount"));
    m_logCount->setToolTip(tr("Logarithmic count axis for the histograms (shows sparse tails)"));
    top->addWidget(m_header, 1);
    top->addWidget(m_logCount);
    layout->addLayout(top);

    m_value = new HistogramChart(tr("Output values (all seeds)"), HistogramChart::Marker::Band);
    m_value->setObjectName(QStringLiteral("valueHistogram"));
    m_std = new HistogramChart(tr("Per-element std across seeds"), HistogramChart::Marker::Line);
    m_std->setObjectName(QStringLiteral("stdHistogram"));
    m_axes = new AxesChart;
    m_axes->setObjectName(QStringLiteral("axesChart"));

    m_tabs = new QTabWidget;
    m_tabs->setObjectName(QStringLiteral("taskTabs"));
    m_source = makeText(QStringLiteral("source"));
    m_spec = makeText(QStringLiteral("spec"));
    m_errors = makeText(QStringLiteral("errors"));
    m_errors->setLineWrapMode(QPlainTextEdit::WidgetWidth);
    m_axesModel = new AxesModel(this);
    m_seedModel = new SeedStatsModel(this);
    m_tabs->addTab(m_source, tr("Source"));
    m_tabs->addTab(m_spec, tr("Spec"));
    m_tabs->addTab(makeTable(m_axesModel), tr("Axes"));
    m_tabs->addTab(makeTable(m_seedModel), tr("Seeds"));

    // Filter 5: the roofline numbers above the rewrites that were run, checked and timed.
    m_rooflineModel = new RooflineModel(this);
    m_rewritesModel = new RewritesModel(this);
    auto* inefficiencySplit = new QSplitter(Qt::Vertical);
    inefficiencySplit->setObjectName(QStringLiteral("inefficiency"));
    auto* roofline = makeTable(m_rooflineModel);
    roofline->setObjectName(QStringLiteral("roofline"));
    auto* rewrites = makeTable(m_rewritesModel);
    rewrites->setObjectName(QStringLiteral("rewrites"));
    inefficiencySplit->addWidget(roofline);
    inefficiencySplit->addWidget(rewrites);
    inefficiencySplit->setStretchFactor(0, 3);
    inefficiencySplit->setStretchFactor(1, 2);
    m_inefficiencyTab = inefficiencySplit;
    m_tabs->addTab(m_inefficiencyTab, tr("Inefficiency"));

    // Filter 6: one line of summary, then every redundant node and unused argument.
    m_redundancyModel = new RedundancyModel(this);
    m_redundancyTab = new QWidget;
    m_redundancyTab->setObjectName(QStringLiteral("redundancy"));
    auto* redundancyLayout = new QVBoxLayout(m_redundancyTab);
    redundancyLayout->setContentsMargins(0, 2, 0, 0);
    m_redundancySummary = new QLabel;
    m_redundancySummary->setObjectName(QStringLiteral("redundancySummary"));
    m_redundancySummary->setWordWrap(true);
    redundancyLayout->addWidget(m_redundancySummary);
    auto* redundant = makeTable(m_redundancyModel);
    redundant->setObjectName(QStringLiteral("redundantNodes"));
    redundancyLayout->addWidget(redundant, 1);
    m_tabs->addTab(m_redundancyTab, tr("Redundancy"));

    m_tabs->addTab(m_errors, tr("Errors"));

    auto* split = new QSplitter(Qt::Horizontal);
    split->setObjectName(QStringLiteral("detailSplitter"));
    split->addWidget(m_value);
    split->addWidget(m_std);
    split->addWidget(m_axes);
    split->addWidget(m_tabs);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 3);
    split->setStretchFactor(2, 3);
    split->setStretchFactor(3, 3);
    layout->addWidget(split, 1);

    connect(m_logCount, &QCheckBox::toggled, this, [this](bool on) {
        m_value->setLogCount(on);
        m_std->setLogCount(on);
    });
    connect(m_model, &FilterMatrixModel::flagsChanged, this, &TaskDetailView::onThresholdsChanged);
    connect(m_model, &QAbstractItemModel::modelReset, this, [this] { setTask(m_id); });
    setTask({});
}

QList<ChartWidget*> TaskDetailView::charts() const {
    return {m_value, m_std, m_axes};
}

void TaskDetailView::setTask(const QString& id) {
    m_id = id;
    const ks::TaskResult* t = m_model->task(m_model->rowOf(id));
    const auto& th = m_model->thresholds();
    if (!t) {
        m_value->showMessage(tr("Select a task in the matrix"));
        m_std->showMessage(tr("Select a task in the matrix"));
        m_axes->showMessage(tr("Select a task in the matrix"));
        m_source->clear();
        m_spec->clear();
        m_errors->clear();
        m_axesModel->setTask(nullptr, th.value(ks::Criterion::OutputAxes));
        m_seedModel->setTask(nullptr);
        m_rooflineModel->setTask(nullptr);
        m_rewritesModel->setTask(nullptr);
        m_redundancyModel->setTask(nullptr);
        m_redundancySummary->clear();
        updateHeader();
        return;
    }
    if (t->range.run && !t->valueHistogram.empty())
        m_value->setHistogram(t->valueHistogram, th.value(ks::Criterion::OutputRange),
                              tr("output value"));
    else
        m_value->showMessage(t->status == ks::TaskStatus::Error ? tr("The task failed: no outputs")
                                                                : tr("Not run yet"));
    if (t->outputStd.run && !t->stdHistogram.empty())
        m_std->setHistogram(t->stdHistogram, th.value(ks::Criterion::OutputStd),
                            tr("std over seeds (per element)"));
    else
        m_std->showMessage(t->status == ks::TaskStatus::Error ? tr("The task failed: no outputs")
                                                              : tr("Not run yet"));
    if (t->axes.run)
        m_axes->setTask(t, th.value(ks::Criterion::OutputAxes));
    else
        m_axes->showMessage(t->status == ks::TaskStatus::Error ? tr("The task failed: no outputs")
                                                               : tr("Not run yet"));
    m_source->setPlainText(QString::fromStdString(t->source));
    m_spec->setPlainText(QString::fromStdString(t->specJson));
    // The task's own error and those of filters 5-6, each named: one place says why a cell is orange.
    QStringList errors;
    if (!t->error.empty()) errors << QString::fromStdString(t->error);
    for (ks::Criterion c : {ks::Criterion::BaselineInefficiency, ks::Criterion::RedundantComputation})
        if (const std::string e = t->criterionError(c); !e.empty())
            errors << tr("%1: %2").arg(QString::fromUtf8(ks::criterionInfo(c).label), QString::fromStdString(e));
    m_errors->setPlainText(errors.isEmpty() ? tr("No errors.") : errors.join(QStringLiteral("\n\n")));
    m_tabs->setTabText(m_tabs->indexOf(m_errors),
                       errors.isEmpty() ? tr("Errors") : tr("Errors (%1)").arg(errors.size()));
    if (!t->error.empty()) m_tabs->setCurrentWidget(m_errors);
    m_rooflineModel->setThresholds(th);
    m_rooflineModel->setTask(t);
    m_rewritesModel->setThresholds(th);
    m_rewritesModel->setTask(t);
    m_redundancyModel->setTask(t);
    m_redundancySummary->setText(m_redundancyModel->summary());
    m_axesModel->setTask(t, th.value(ks::Criterion::OutputAxes));
    m_seedModel->setTask(t);
    updateHeader();
}

void TaskDetailView::onThresholdsChanged() {
    // Markers and the header only; the data did not change.
    const auto& th = m_model->thresholds();
    m_value->setThreshold(th.value(ks::Criterion::OutputRange));
    m_std->setThreshold(th.value(ks::Criterion::OutputStd));
    m_axes->setThreshold(th.value(ks::Criterion::OutputAxes));
    m_axesModel->setThreshold(th.value(ks::Criterion::OutputAxes));
    m_rooflineModel->setThresholds(th);
    m_rewritesModel->setThresholds(th);
    updateHeader();
}

void TaskDetailView::updateHeader() {
    const ks::TaskResult* t = m_model->task(m_model->rowOf(m_id));
    if (!t) {
        m_header->setText(tr("<i>No task selected</i>"));
        return;
    }
    QString shape;
    for (size_t i = 0; i < t->outputShape.size(); ++i)
        shape += (i ? QStringLiteral(" \u00d7 ") : QString()) + QString::number(t->outputShape[i]);
    QString state;
    if (t->status == ks::TaskStatus::Error)
        state = tr("<span style='color:#e65100'><b>failed</b></span>");
    else if (t->status == ks::TaskStatus::Skipped)
        state = tr("<span style='color:#757575'>not run</span>");
    else {
        const QStringList flags = ResultsUtil::flaggedCriteria(*t, m_model->thresholds());
        state = flags.isEmpty() ? tr("<span style='color:#2e7d32'><b>clean</b></span>")
                                : tr("<span style='color:#c62828'><b>flagged</b>: %1</span>")
                                      .arg(flags.join(QStringLiteral(", ")));
    }
    m_header->setText(tr("<b>%1</b> %2 &nbsp;\u00b7&nbsp; level %3, %4 &nbsp;\u00b7&nbsp; %5 "
                         "&nbsp;\u00b7&nbsp; output [%6], %7 seeds, %8 s")
                          .arg(QString::fromStdString(t->id).toHtmlEscaped(),
                               QString::fromStdString(t->name).toHtmlEscaped())
                          .arg(t->level)
                          .arg(QString::fromStdString(t->category).toHtmlEscaped(), state,
                               shape.isEmpty() ? tr("scalar") : shape)
                          .arg(t->seeds)
                          .arg(t->wallSeconds, 0, 'f', 2));
}
