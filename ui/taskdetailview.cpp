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

#include "ks/core/taskspec.h"

#include <QCheckBox>
#include <QColor>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QPlainTextEdit>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QTextBlock>
#include <QTextCursor>
#include <QTextEdit>
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

    // Filters 5-6 read as tables that need the whole width (a rewrite row has seven columns), so
    // they get a page of their own beside the output charts rather than a tab in the side pane.
    m_rooflineModel = new RooflineModel(this);
    m_rewritesModel = new RewritesModel(this);
    m_redundancyModel = new RedundancyModel(this);
    auto* roofline = makeTable(m_rooflineModel);
    roofline->setObjectName(QStringLiteral("roofline"));
    auto* rewrites = makeTable(m_rewritesModel);
    rewrites->setObjectName(QStringLiteral("rewrites"));
    auto* redundant = makeTable(m_redundancyModel);
    redundant->setObjectName(QStringLiteral("redundantNodes"));
    for (auto* table : {roofline, rewrites, redundant})
        table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    rewrites->horizontalHeader()->setSectionResizeMode(RewritesModel::WhatColumn, QHeaderView::Stretch);
    redundant->horizontalHeader()->setSectionResizeMode(RedundancyModel::ReasonColumn, QHeaderView::Stretch);
    redundant->horizontalHeader()->setSectionResizeMode(RedundancyModel::SourceColumn, QHeaderView::Interactive);
    redundant->setColumnWidth(RedundancyModel::SourceColumn, 170);
    redundant->horizontalHeader()->setStretchLastSection(false); // the reason gets the room, not FLOPs
    m_rewritesTable = rewrites;
    m_redundancyTable = redundant;
    // A rewrite or a redundant node names a source line: selecting it shows that line.
    auto followLine = [this](QTableView* table, int lineColumn) {
        connect(
            table->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this, table, lineColumn](const QModelIndex& current) {
                if (!current.isValid()) return;
                showSourceLine(
                    table->model()->index(current.row(), lineColumn).data(Qt::EditRole).toInt());
            });
    };
    followLine(rewrites, RewritesModel::LineColumn);
    followLine(redundant, RedundancyModel::LineColumn);
    m_redundancySummary = new QLabel;
    m_redundancySummary->setObjectName(QStringLiteral("redundancySummary"));
    m_redundancySummary->setWordWrap(true);
    auto titled = [](const QString& title, QWidget* body, QLabel* under = nullptr) {
        auto* box = new QWidget;
        auto* l = new QVBoxLayout(box);
        l->setContentsMargins(0, 0, 0, 0);
        l->setSpacing(2);
        l->addWidget(new QLabel(QStringLiteral("<b>%1</b>").arg(title)));
        if (under) l->addWidget(under);
        l->addWidget(body, 1);
        return box;
    };
    auto* tables = new QSplitter(Qt::Vertical);
    tables->addWidget(titled(tr("Rewrites (filter 5): run, checked equal on every seed, timed"), rewrites));
    tables->addWidget(titled(tr("Redundant computation (filter 6)"), redundant, m_redundancySummary));
    tables->setStretchFactor(0, 2);
    tables->setStretchFactor(1, 3);
    m_graphSource = makeText(QStringLiteral("graphSource"));
    auto* graph = new QSplitter(Qt::Horizontal);
    graph->setObjectName(QStringLiteral("graphSplitter"));
    graph->addWidget(titled(tr("Roofline (filter 5)"), roofline));
    graph->addWidget(tables);
    graph->addWidget(titled(tr("Source (lines as in the tables)"), m_graphSource));
    // The roofline's values ("CUDA (median of 20 calls)") need more room than the source, which
    // only has to show the lines the tables name.
    graph->setStretchFactor(0, 4);
    graph->setStretchFactor(1, 6);
    graph->setStretchFactor(2, 2);

    m_pages = new QTabWidget;
    m_pages->setObjectName(QStringLiteral("detailPages"));
    m_pages->setDocumentMode(true);
    m_pages->addTab(split, tr("Outputs (filters 1\u20134)"));
    m_pages->addTab(graph, tr("Graph analyses (filters 5\u20136)"));
    m_graphPage = graph;
    layout->addWidget(m_pages, 1);

    connect(m_logCount, &QCheckBox::toggled, this, [this](bool on) {
        m_value->setLogCount(on);
        m_std->setLogCount(on);
    });
    connect(m_model, &FilterMatrixModel::flagsChanged, this, &TaskDetailView::onThresholdsChanged);
    connect(m_model, &QAbstractItemModel::modelReset, this, [this] { setTask(m_id); });
    setTask({});
}

bool TaskDetailView::showSourceLine(int line) {
    QTextDocument* doc = m_graphSource->document();
    if (line <= 0 || line > doc->blockCount()) return false;
    const QTextBlock block = doc->findBlockByNumber(line - 1);
    QTextCursor cursor(block);
    m_graphSource->setTextCursor(cursor);
    m_graphSource->centerCursor();
    QTextEdit::ExtraSelection mark;
    mark.format.setBackground(QColor(0xff, 0xf5, 0x9d));
    mark.format.setProperty(QTextFormat::FullWidthSelection, true);
    mark.cursor = cursor;
    m_graphSource->setExtraSelections({mark});
    m_highlightedLine = line;
    return true;
}

void TaskDetailView::showGraphAnalyses(bool on) {
    m_pages->setCurrentIndex(on ? 1 : 0);
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
        m_tabs->setTabText(m_tabs->indexOf(m_spec), tr("Spec"));
        m_errors->clear();
        m_axesModel->setTask(nullptr, th.value(ks::Criterion::OutputAxes));
        m_seedModel->setTask(nullptr);
        m_rooflineModel->setTask(nullptr);
        m_rewritesModel->setTask(nullptr);
        m_redundancyModel->setTask(nullptr);
        m_redundancySummary->clear();
        m_graphSource->clear();
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
    // Tensors the engine cannot draw as the original file does are named above the JSON (each
    // carries its reason there as "approximated"), so a reader sees it before trusting per-seed values.
    QStringList approximated;
    for (const auto& n : ks::approximatedTensorsInSpec(t->specJson)) approximated << QString::fromStdString(n);
    const QString specNote = approximated.isEmpty() ? QString()
        : tr("Approximated (drawn as another sample than the original file; reasons below): %1\n\n")
              .arg(approximated.join(QStringLiteral(", ")));
    m_spec->setPlainText(specNote + QString::fromStdString(t->specJson));
    m_tabs->setTabText(m_tabs->indexOf(m_spec),
                       approximated.isEmpty() ? tr("Spec") : tr("Spec (%1 approximated)").arg(approximated.size()));
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
    // Numbered, because the rewrites and redundant nodes name source lines.
    const QStringList lines = QString::fromStdString(t->source).split(QLatin1Char('\n'));
    QStringList numbered;
    for (int i = 0; i < lines.size(); ++i)
        if (i + 1 < lines.size() || !lines[i].isEmpty())
            numbered << QStringLiteral("%1  %2").arg(i + 1, 3).arg(lines[i]);
    m_graphSource->setPlainText(numbered.join(QLatin1Char('\n')));
    m_highlightedLine = 0;
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
    // The page tab says when filters 5-6 flag the task, so their reasons are one click away.
    const bool graphFlag = t && (t->flagged(ks::Criterion::BaselineInefficiency, m_model->thresholds()) ||
                                 t->flagged(ks::Criterion::RedundantComputation, m_model->thresholds()));
    m_pages->setTabText(1, (graphFlag ? QStringLiteral("\u2691 ") : QString()) + tr("Graph analyses (filters 5\u20136)"));
    if (!t) {
        m_header->setText(tr("<i>No task selected</i>"));
        m_header->setToolTip(QString());
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
    m_header->setToolTip(ResultsUtil::timingSummary(*t));
}
