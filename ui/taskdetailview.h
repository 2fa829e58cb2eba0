// SPDX-License-Identifier: MIT
#pragma once
// Everything about one task, on two pages. Outputs: its output-value histogram with the +-range
// band, the per-element std histogram with the std line, per-axis uniformity, and its source,
// spec, errors and per-seed statistics. Graph analyses: filter 5's roofline numbers and rewrites,
// filter 6's redundant nodes and unused arguments, beside the numbered source. Follows the
// matrix's current task; thresholds only move the markers and flag marks.

#include <QWidget>

class AxesChart;
class AxesModel;
class ChartWidget;
class FilterMatrixModel;
class HistogramChart;
class QCheckBox;
class QLabel;
class QPlainTextEdit;
class QTabWidget;
class QTableView;
class RedundancyModel;
class RewritesModel;
class RooflineModel;
class SeedStatsModel;

class TaskDetailView : public QWidget {
    Q_OBJECT
  public:
    explicit TaskDetailView(FilterMatrixModel* model, QWidget* parent = nullptr);

    void setTask(const QString& id);
    QString taskId() const { return m_id; }
    // The task's stored data changed (a re-run replaced it).
    void reload() { setTask(m_id); }

    HistogramChart* valueChart() const { return m_value; }
    HistogramChart* stdChart() const { return m_std; }
    AxesChart* axesChart() const { return m_axes; }
    QList<ChartWidget*> charts() const;
    QCheckBox* logCountBox() const { return m_logCount; }
    QLabel* headerLabel() const { return m_header; }
    QPlainTextEdit* sourceEdit() const { return m_source; }
    QPlainTextEdit* errorEdit() const { return m_errors; }
    QTabWidget* textTabs() const { return m_tabs; }
    // The two pages: the output charts (filters 1-4) and the graph analyses (filters 5-6).
    QTabWidget* pages() const { return m_pages; }
    QWidget* graphPage() const { return m_graphPage; }
    void showGraphAnalyses(bool on);
    // The graph page's numbered source, scrolled to `line` (1-based) with the line highlighted;
    // what clicking a rewrite or a redundant node does. False when the task has no such line.
    bool showSourceLine(int line);
    int highlightedLine() const { return m_highlightedLine; }
    QPlainTextEdit* graphSourceEdit() const { return m_graphSource; }
    QTableView* rewritesTable() const { return m_rewritesTable; }
    QTableView* redundancyTable() const { return m_redundancyTable; }
    RooflineModel* rooflineModel() const { return m_rooflineModel; }
    RewritesModel* rewritesModel() const { return m_rewritesModel; }
    RedundancyModel* redundancyModel() const { return m_redundancyModel; }
    QLabel* redundancySummary() const { return m_redundancySummary; }

  private:
    void onThresholdsChanged();
    void updateHeader();

    FilterMatrixModel* m_model;
    QString m_id;
    QLabel* m_header = nullptr;
    QCheckBox* m_logCount = nullptr;
    HistogramChart* m_value = nullptr;
    HistogramChart* m_std = nullptr;
    AxesChart* m_axes = nullptr;
    QTabWidget* m_tabs = nullptr;
    QPlainTextEdit* m_source = nullptr;
    QPlainTextEdit* m_spec = nullptr;
    QPlainTextEdit* m_errors = nullptr;
    AxesModel* m_axesModel = nullptr;
    SeedStatsModel* m_seedModel = nullptr;
    QTabWidget* m_pages = nullptr;
    QWidget* m_graphPage = nullptr;
    QPlainTextEdit* m_graphSource = nullptr;
    RooflineModel* m_rooflineModel = nullptr;
    RewritesModel* m_rewritesModel = nullptr;
    RedundancyModel* m_redundancyModel = nullptr;
    QLabel* m_redundancySummary = nullptr;
    QTableView* m_rewritesTable = nullptr;
    QTableView* m_redundancyTable = nullptr;
    int m_highlightedLine = 0;
};
